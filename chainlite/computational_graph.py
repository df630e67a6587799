"""Computational graphs as Graphviz DOT text: what a loss was computed from, for a picture.

:func:`build_computational_graph` walks backward from some outputs, through each variable's
creator and each function's inputs, and collects the nodes and edges it meets;
:meth:`ComputationalGraph.dump` writes them in the DOT language (``dot -Tpng cg.dot``).
"""
from __future__ import annotations

import heapq
from typing import Any, Iterable, Optional, Union

from chainlite import function_node
from chainlite import variable

# The default node styles (Chainer's): grey octagons for variables, blue records for functions.
_VARIABLE_STYLE = {'shape': 'octagon', 'fillcolor': '#E0E0E0', 'style': 'filled'}
_FUNCTION_STYLE = {'shape': 'record', 'fillcolor': '#6495ED', 'style': 'filled'}

_GraphNode = Union[variable.VariableNode, function_node.FunctionNode]


def _resolve_style(style: Any, default: dict) -> dict:
    # None means no style at all (Chainer v1.22's plain output); 'default' the default one.
    if style is None:
        return {}
    if isinstance(style, str):
        if style == 'default':
            return dict(default)
        raise ValueError("a node style must be a dict, None or 'default', got %r" % style)
    return dict(style)


class DotNode:
    """One node of a :class:`ComputationalGraph` as a DOT statement.

    Args:
        node: A :class:`~chainlite.variable.VariableNode` or a :class:`~chainlite.FunctionNode`.
        attribute: DOT attributes added to (and overriding) the defaults: the node's
            ``label``, and ``shape`` (``oval`` for variables, ``box`` for functions).
        show_name: Whether a variable's ``name`` prefixes its label (``'x: (2), float32'``).

    Attributes:
        node: The graph node.
        id_: The identifier used in the DOT text (the ``id`` of the node).
        attribute: The DOT attributes, in output order.

    Example:
        >>> import numpy as np, chainlite
        >>> x = chainlite.Variable(np.zeros(3, np.float32), name='x')
        >>> DotNode(x.node, {'color': 'red'}).label.split(' ', 1)[1]
        '[label="x: (3), float32",shape="oval",color="red"];'
    """

    def __init__(self, node: _GraphNode, attribute: Optional[dict] = None,
                 show_name: bool = True) -> None:
        if isinstance(node, variable.VariableNode):
            # A node without an array yet (Variable(None)) has no shape to show.
            label = 'None' if node.shape is None else node.label
            if show_name and node.name is not None:
                label = '%s: %s' % (node.name, label)
            self.attribute = {'label': label, 'shape': 'oval'}
        elif isinstance(node, function_node.FunctionNode):
            self.attribute = {'label': node.label, 'shape': 'box'}
        else:
            raise TypeError('DotNode: node must be a VariableNode or a FunctionNode, got %s'
                            % type(node).__name__)
        self.node = node
        self.id_ = id(node)
        if attribute:
            self.attribute.update(attribute)

    @property
    def label(self) -> str:
        """The DOT statement of the node: ``<id> [key="value",...];``."""
        attrs = ','.join('%s="%s"' % (k, str(v).replace('"', '\\"'))
                         for k, v in self.attribute.items())
        return '%d [%s];' % (self.id_, attrs)


class ComputationalGraph:
    """A directed acyclic graph of variable nodes and function nodes, dumpable as DOT.

    Usually made by :func:`build_computational_graph`.

    Args:
        nodes: The :class:`~chainlite.variable.VariableNode` and
            :class:`~chainlite.FunctionNode` objects.
        edges: Pairs ``(head, tail)`` of nodes: a variable into the function that used it, or a
            function to the variable it produced.
        variable_style: DOT attributes of variable nodes (``shape``, ``color``,
            ``fillcolor``, ``style``...); ``'default'`` for grey octagons, None for none.
        function_style: DOT attributes of function nodes; ``'default'`` for blue records,
            None for none.
        rankdir: The direction of the drawing: ``'TB'`` (top to bottom), ``'BT'``, ``'LR'``
            or ``'RL'``.
        remove_variable: If True, only functions are drawn, with an edge from each function
            to every function that used one of its outputs.
        show_name: Whether variable names prefix their labels.

    Attributes:
        nodes: The list of nodes.
        edges: The list of ``(head, tail)`` edges.
        variable_style: The resolved style of variable nodes (a dict).
        function_style: The resolved style of function nodes (a dict).
        rankdir: The drawing direction.
        remove_variable: Whether variables are left out of the drawing.
        show_name: Whether variable names are shown.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> x = chainlite.Variable(np.ones(2, np.float32))
        >>> g = build_computational_graph(F.exp(x))
        >>> len(g.nodes), len(g.edges)
        (3, 2)
        >>> g.dump().startswith('digraph graphname{rankdir=TB;')
        True
    """

    def __init__(self, nodes: list, edges: list, variable_style: Any = 'default',
                 function_style: Any = 'default', rankdir: str = 'TB',
                 remove_variable: bool = False, show_name: bool = True) -> None:
        if rankdir not in ('TB', 'BT', 'LR', 'RL'):
            raise ValueError('ComputationalGraph: rankdir must be TB, BT, LR or RL, got %r'
                             % (rankdir,))
        self.nodes = nodes
        self.edges = edges
        self.variable_style = _resolve_style(variable_style, _VARIABLE_STYLE)
        self.function_style = _resolve_style(function_style, _FUNCTION_STYLE)
        self.rankdir = rankdir
        self.remove_variable = remove_variable
        self.show_name = show_name

    def _dot_node(self, node: _GraphNode) -> DotNode:
        style = (self.variable_style if isinstance(node, variable.VariableNode)
                 else self.function_style)
        return DotNode(node, style, self.show_name)

    def _drawn_edges(self) -> list:
        if not self.remove_variable:
            for head, tail in self.edges:
                if isinstance(head, variable.VariableNode) == isinstance(
                        tail, variable.VariableNode):
                    raise TypeError('ComputationalGraph: an edge must join a VariableNode and '
                                    'a FunctionNode, got %s -> %s'
                                    % (type(head).__name__, type(tail).__name__))
            return self.edges
        # Without variables, an edge runs from a variable's creator to each function using it;
        # leaves (no creator) have nothing to connect.
        return [(head.creator_node, tail) for head, tail in self.edges
                if isinstance(head, variable.VariableNode) and head.creator_node is not None
                and isinstance(tail, function_node.FunctionNode)]

    def _to_dot(self) -> str:
        parts = ['digraph graphname{rankdir=%s;' % self.rankdir]
        for node in self.nodes:
            if self.remove_variable and isinstance(node, variable.VariableNode):
                continue
            parts.append(self._dot_node(node).label)
        drawn = set()
        for head, tail in self._drawn_edges():
            key = (id(head), id(tail))
            if key in drawn:
                continue
            drawn.add(key)
            parts.append('%d -> %d;' % key)
        parts.append('}')
        return ''.join(parts)

    def dump(self, format: str = 'dot') -> str:
        """Writes the graph as text.

        Args:
            format: The graph language; only ``'dot'`` (Graphviz) is supported.

        Returns:
            The graph's text.

        Raises:
            NotImplementedError: For a format other than ``'dot'``.
        """
        if format == 'dot':
            return self._to_dot()
        raise NotImplementedError('ComputationalGraph.dump: only the dot format is supported, '
                                  'got %r' % (format,))


def build_computational_graph(
        outputs: Union[Any, Iterable[Any]], remove_split: bool = True,
        variable_style: Any = 'default', function_style: Any = 'default', rankdir: str = 'TB',
        remove_variable: bool = False, show_name: bool = True) -> ComputationalGraph:
    """Builds the graph of the functions and variables that ``outputs`` were computed from.

    The walk goes backward only (a variable to its creator, a function to its inputs), so
    branches that do not lead to ``outputs`` are left out, and it stops where the graph was
    cut (``unchain_backward``). It uses an explicit heap, not recursion, so graphs of any
    depth work.

    Args:
        outputs: A :class:`~chainlite.Variable`, :class:`~chainlite.variable.VariableNode` or
            :class:`~chainlite.FunctionNode`, or a list of them.
        remove_split: Must be True (kept for compatibility with old Chainer code).
        variable_style: DOT attributes of variable nodes; ``'default'`` for grey octagons,
            None for none.
        function_style: DOT attributes of function nodes; ``'default'`` for blue records,
            None for none.
        rankdir: The drawing direction: ``'TB'``, ``'BT'``, ``'LR'`` or ``'RL'``.
        remove_variable: If True, only functions are drawn.
        show_name: Whether variable names prefix their labels.

    Returns:
        A :class:`ComputationalGraph`. Nodes are listed in the order the walk meets them,
        starting from the outputs, so the dump is deterministic.

    Raises:
        ValueError: If ``remove_split`` is False.
        TypeError: If an output is of another type.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> x = chainlite.Variable(np.ones(2, np.float32), name='x')
        >>> y = F.sum(F.exp(x))
        >>> g = build_computational_graph([y])
        >>> [n.label for n in g.nodes]
        ['float32', 'Sum', '(2), float32', 'exp', '(2), float32']
        >>> print(build_computational_graph(y, remove_variable=True, function_style=None)
        ...       .dump().count('->'))
        1
    """
    if not remove_split:
        raise ValueError('build_computational_graph: remove_split=False is not supported '
                         'anymore')
    kinds = (variable.Variable, variable.VariableNode, function_node.FunctionNode)
    if isinstance(outputs, kinds):
        outputs = [outputs]
    else:
        outputs = list(outputs)
        for o in outputs:
            if not isinstance(o, kinds):
                raise TypeError('build_computational_graph: each output must be a Variable, '
                                'VariableNode or FunctionNode, got %s' % type(o).__name__)

    nodes: list = []
    edges: list = []
    seen_nodes: set = set()
    seen_edges: set = set()
    heap: list = []
    # The counter breaks rank ties in push order, so nodes are never compared.
    count = 0

    def add(node: _GraphNode) -> None:
        nonlocal count
        if id(node) in seen_nodes:
            return
        seen_nodes.add(id(node))
        nodes.append(node)
        heapq.heappush(heap, (-node.rank, count, node))
        count += 1

    def link(head: _GraphNode, tail: _GraphNode) -> None:
        key = (id(head), id(tail))
        if key not in seen_edges:
            seen_edges.add(key)
            edges.append((head, tail))

    for o in outputs:
        add(o.node if isinstance(o, variable.Variable) else o)
    while heap:
        node = heapq.heappop(heap)[2]
        if isinstance(node, variable.VariableNode):
            creator = node.creator_node
            if creator is not None:
                add(creator)
                link(creator, node)
        else:
            # A function cut by unchain() has no inputs left.
            for x in node.inputs or ():
                add(x)
                link(x, node)
    return ComputationalGraph(nodes, edges, variable_style, function_style, rankdir,
                              remove_variable, show_name)
