"""``Graph``: the functions between a model's inputs and outputs, converted one by one."""
from __future__ import annotations

import collections
from typing import Any, Callable, Iterable, Optional

from chainlite import variable
from chainlite.onnx import converter as converter_module
from chainlite.onnx import onnx_helper

#: ``leaf(node, func, index) -> (name, constant)``: the name of input ``index`` of ``func``
#: (the FunctionNode as recorded) that no converted function computes, and its array if it
#: is a constant of the graph.
Leaf = Callable[[Any, Any, int], tuple]


def function_name(func: Any) -> str:
    """The name a function is converted under: its ``custom_function_node_name`` or class."""
    return getattr(func, 'custom_function_node_name', None) or type(func).__name__


def collect_functions(output_nodes: Iterable[Any], stop: set) -> list:
    """Every function between the inputs and the outputs, parents before children.

    Args:
        output_nodes: The VariableNodes to walk back from.
        stop: The ids of the nodes not to walk past (the graph's inputs).
    """
    # Ranks grow along every edge, so sorting by rank orders them; the walk is a loop, not a
    # recursion, so deep graphs (long RNN unrolls) are fine.
    found: dict = {}
    todo = [n.creator_node for n in output_nodes
            if n.creator_node is not None and id(n) not in stop]
    while todo:
        f = todo.pop()
        if id(f) in found:
            continue
        found[id(f)] = f
        for n in f.inputs:
            c = n.creator_node
            if c is not None and id(n) not in stop and id(c) not in found:
                todo.append(c)
    return sorted(found.values(), key=lambda f: f.rank)


def lookup_converter(func: Any, name: str, external: dict) -> Any:
    """The converter of ``func``: from ``external`` by name or class, else the built-in one.

    Raises:
        ValueError: If there is none, naming the function and how to pass one.
    """
    from chainlite.onnx import functions
    if name in external:
        return external[name]
    if type(func) in external:
        return external[type(func)]
    conv = functions.converters.get(type(func))
    if conv is None and getattr(func, 'custom_function_node_name', None):
        # A node wrapped by replace_func under a built-in function's name (as onnx_chainer
        # keys its converters by name): that converter, reading the node's attributes.
        conv = functions.converters_by_name().get(name)
    if conv is None:
        raise ValueError(
            'chainlite.onnx cannot export the function %s (%s.%s): no converter for it. '
            'Pass one with export(..., external_converters={%r: converter}), where '
            'converter(params) returns the ONNX nodes (see docs/onnx.md).'
            % (name, type(func).__module__, type(func).__qualname__, name))
    return conv


class Graph:
    """The ONNX nodes of the functions that compute ``network_outputs``, as onnx_chainer's.

    The functions are found by walking back from the outputs to the nodes named in
    ``explicit_input_names``; :meth:`to_onnx_graph` converts each, parents first, naming
    its outputs ``<Function>_<k>`` and appending its nodes to :attr:`graph`.

    Args:
        context: The export's :class:`~chainlite.onnx.context.Context`; the graph's inputs
            have pinned names there.
        converters: Converters keyed by function name or class, before the built-in ones
            (``external_converters``); each takes a
            :class:`~chainlite.onnx.converter.FunctionConverterParams`.
        opset_version: The opset of the exported model.
        explicit_input_names: The names of the graph's inputs (and parameters).
        network_outputs: The outputs, ``name -> Variable``; after :meth:`to_onnx_graph` the
            keys are the outputs' names in the graph.
        leaf: How to name an input that no converted function computes (see :data:`Leaf`);
            None gives it a fresh name of the context.

    Attributes:
        graph: The ONNX nodes made so far, in order.
        function_nodes: The functions to convert, parents before children.
        outputs: The names of the values the converted functions computed.

    Example:
        >>> import collections, numpy as np, chainlite, chainlite.functions as F
        >>> from chainlite.onnx import context as context_module
        >>> ctx = context_module.Context(None)
        >>> x = chainlite.Variable(np.ones((1, 2), np.float32))
        >>> _ = ctx.set_name(x.node, 'x', pinned=True)
        >>> g = Graph(ctx, {}, 13, {'x'}, collections.OrderedDict(y=F.exp(F.relu(x))))
        >>> g.to_onnx_graph()
        >>> [n.op_type for n in g.graph], list(g.network_outputs)
        (['Relu', 'Exp'], ['Exp_0'])
    """

    def __init__(self, context: Any, converters: Optional[dict], opset_version: int,
                 explicit_input_names: Iterable[str], network_outputs: dict,
                 leaf: Optional[Leaf] = None) -> None:
        self.context = context
        self.converters = dict(converters or {})
        self.graph: list = []
        self.func_name_counts: dict = collections.defaultdict(int)
        self.outputs: set = set()
        self.specified_opset_version = opset_version
        self.explicit_input_names = set(explicit_input_names)
        self.network_outputs = network_outputs
        self.leaf = leaf
        # The ids of the input nodes (their names pinned in the context): the walk stops there.
        self._stop = {key for key, (name, pinned) in context.name_list.items()
                      if pinned and name in self.explicit_input_names}
        self.function_nodes = self._build_computational_graph(network_outputs.values())

    def _build_computational_graph(self, outputs: Iterable[Any]) -> list:
        nodes = [o.node if isinstance(o, variable.Variable) else o for o in outputs]
        return collect_functions(nodes, self._stop)

    def create_node(self, func_name: str, func: Any, input_names: list, output_names: list,
                    constants: tuple = ()) -> list:
        """Converts ``func`` and returns its ONNX nodes.

        Args:
            func_name: The name its converter is looked up by.
            func: The function.
            input_names: The names of its inputs.
            output_names: The names to give its outputs.
            constants: For each input, its array if it is a constant of the graph.
        """
        conv = lookup_converter(func, func_name, self.converters)
        params = converter_module.params_of(func, self.specified_opset_version, input_names,
                                            output_names, self.context)
        params.constants = tuple(constants)
        return list(conv(params))

    def convert_to_onnx_node(self, function: Any) -> None:
        """Names the inputs and outputs of ``function``, converts it, adds its nodes."""
        node = function
        function = getattr(node, '_function', None) or node
        context = self.context
        fname = function_name(function)
        base = '%s_%d' % (fname, self.func_name_counts[fname])
        self.func_name_counts[fname] += 1
        input_names = []
        constants: list = []
        for i, n in enumerate(node.inputs):
            if context.has_name(n):
                input_names.append(context.get_name(n))
                constants.append(None)
                continue
            if n.creator_node is not None and id(n) not in self._stop:
                raise RuntimeError('export: %s reads a value computed by a function that was '
                                   'not converted before it' % fname)
            name, constant = (context.get_name(n), None) if self.leaf is None \
                else self.leaf(n, node, i)
            input_names.append(name)
            constants.append(constant)
        output_names = []
        for i, ref in enumerate(node.outputs):
            n = ref()
            default = base if len(node.outputs) == 1 else '%s_%d' % (base, i)
            name = context.unique_name(default) if n is None else \
                context.set_name(n, context.unique_name(default))
            output_names.append(name)
            self.outputs.add(name)
        onnx_helper.set_func_name(base)
        made = self.create_node(fname, function, input_names, output_names, tuple(constants))
        # Constants the converter added to the context go before its nodes.
        self.graph.extend(context.constants)
        context.constants.clear()
        self.graph.extend(made)

    def to_onnx_graph(self) -> None:
        """Converts every function of :attr:`function_nodes`, in order."""
        for function in self.function_nodes:
            self.convert_to_onnx_node(function)
        renamed = collections.OrderedDict()
        for key, var in self.network_outputs.items():
            node = var.node if isinstance(var, variable.Variable) else var
            renamed[self.context.get_name(node) if self.context.has_name(node) else key] = var
        self.network_outputs = renamed
