"""One step of backpropagation, for code that drives its own backward loop.

This is the seam Chainer calls ``chainer._backprop_utils``. :func:`chainlite.backward` and
:func:`chainlite.grad` run the same step inline in their loop (see :mod:`chainlite.backprop`);
:func:`backprop_step` runs it for one function, with the gradients held as Chainer's loop
holds them: ``grad_inputs`` maps each input node to the *list* of gradients it has received
so far, which :func:`_reduce` sums into one.

Example:
    >>> import numpy as np, chainlite
    >>> from chainlite import _backprop_utils
    >>> x = chainlite.Variable(np.array([1.0, 2.0]))
    >>> y = x * 3
    >>> f = y.creator_node
    >>> grads = {x.node: []}
    >>> _backprop_utils.backprop_step(f, (0,), (chainlite.Variable(np.ones(2)),), grads, False)
    >>> _backprop_utils._reduce(grads[x.node]).array
    array([3., 3.])
"""
from __future__ import annotations

from typing import Any, Optional

from chainlite import backprop
from chainlite import configuration
from chainlite import variable


def _reduce(grad_list: list) -> Optional[variable.Variable]:
    """Sums a list of gradients in place (it is left holding the sum) and returns the sum.

    Args:
        grad_list: Gradient Variables received by one node.

    Returns:
        Their sum (differentiable, if backprop is enabled), or None for an empty list.
    """
    if not grad_list:
        return None
    if len(grad_list) > 1:
        total = grad_list[0]
        for g in grad_list[1:]:
            total = total + g
        grad_list[:] = [total]
    return grad_list[0]


def _pop_or_none(grad_list: list) -> Optional[variable.Variable]:
    return grad_list.pop() if grad_list else None


def _take_grad_var(node: Any) -> Optional[variable.Variable]:
    # The gradient a leaf holds already: handed to the table and cleared on the node.
    gv = node.grad_var
    node.grad_var = None
    return gv


class GradTable:
    """Gradients received so far, by node: each node maps to a list of gradient Variables.

    A list longer than one is summed lazily (on :meth:`pop`); :meth:`__setitem__` replaces
    it with one gradient. It is the ``grad_inputs`` argument :func:`backprop_step` takes
    (``table[node]`` is :meth:`get_as_list`).

    Args:
        accumulate_grad_inputs: Whether a leaf node met for the first time starts from the
            gradient it already holds (``grad_var``, taken off the node), as
            ``Variable.backward`` accumulates into existing gradients.

    Example:
        >>> import numpy as np, chainlite
        >>> x = chainlite.Variable(np.array([1.0]))
        >>> table = GradTable()
        >>> table.accumulate(x.node, chainlite.Variable(np.array([2.0])))
        >>> table.accumulate(x.node, chainlite.Variable(np.array([3.0])))
        >>> table.pop(x.node).array
        array([5.])
    """

    def __init__(self, accumulate_grad_inputs: bool = False) -> None:
        self.grads: dict[Any, list] = {}
        self._load_if_new = accumulate_grad_inputs

    def __setitem__(self, node: Any, grad: Optional[variable.Variable]) -> None:
        self.grads[node] = [] if grad is None else [grad]

    def __getitem__(self, node: Any) -> list:
        return self.get_as_list(node)

    def values(self) -> Any:
        """The gradient lists held, one per node (a view)."""
        return self.grads.values()

    def accumulate(self, node: Any, grad: variable.Variable) -> None:
        """Adds one gradient for ``node`` (summed when popped).

        Args:
            node: A :class:`~chainlite.variable.VariableNode`.
            grad: The gradient Variable.
        """
        self.get_as_list(node).append(grad)

    def get_as_list(self, node: Any) -> list:
        """Returns the list of gradients of ``node`` (created empty, or from a leaf's grad).

        Args:
            node: A :class:`~chainlite.variable.VariableNode`.

        Returns:
            The list itself: appending to it adds a gradient.
        """
        if node is None:
            raise TypeError('GradTable.get_as_list: node must be a VariableNode, got None')
        grads = self.grads
        if node not in grads:
            gv = (_take_grad_var(node) if self._load_if_new and node.creator_node is None
                  else None)
            grads[node] = [] if gv is None else [gv]
        return grads[node]

    def pop(self, node: Any) -> Optional[variable.Variable]:
        """Removes ``node`` and returns the sum of its gradients (None if it has none).

        Args:
            node: A :class:`~chainlite.variable.VariableNode`, or None (returns None).

        Returns:
            The summed gradient, the node's own ``grad_var`` for a node never met when the
            table accumulates into inputs, or None.
        """
        if node is None:
            return None
        if node in self.grads:
            return _reduce(self.grads.pop(node))
        return _take_grad_var(node) if self._load_if_new else None

    def assert_no_grads(self) -> None:
        """Checks that every list is empty (every gradient was popped).

        Raises:
            AssertionError: If a node still holds a gradient.
        """
        for grads in self.grads.values():
            assert grads == [], 'GradTable: gradients left unpopped'


def backprop_step(func: Any, target_input_indexes: tuple, grad_outputs: tuple,
                  grad_inputs: dict, is_debug: bool) -> None:
    """Runs the backward of one function and adds its results to the input gradients.

    A function that overrides ``backward_accumulate`` receives the gradients its target
    inputs hold so far (taken out of their lists) and its results replace them; otherwise
    ``backward`` runs and its results are appended. The results are checked as in
    :func:`chainlite.backward` (their number, each gradient's shape against its input and
    dtype against the gradients it joins; in debug mode also that they are Variables and
    finite). Unless
    ``chainlite.config.lazy_grad_sum`` is set, every list is then summed to one element.

    Args:
        func: The :class:`~chainlite.FunctionNode` (its ``inputs`` set).
        target_input_indexes: Sorted indexes of the inputs that need a gradient.
        grad_outputs: One gradient (or None) per output of ``func``.
        grad_inputs: Maps each target input node to its list of gradients (updated).
        is_debug: Whether to run the debug-mode checks.

    Raises:
        ValueError: If ``backward`` returns the wrong number of gradients, or one of the
            wrong shape or dtype.
    """
    indexes = tuple(target_input_indexes)
    grad_outputs = tuple(grad_outputs)
    inputs = func.inputs
    try:
        if func._accumulates:
            current = tuple([_pop_or_none(grad_inputs[inputs[i]]) for i in indexes])
            gxs = func.backward_accumulate(indexes, grad_outputs, current)
        else:
            gxs = func.backward(indexes, grad_outputs)
    except Exception as e:
        backprop._annotate(e, func, is_debug)
        raise
    if gxs.__class__ is not tuple or len(gxs) != len(indexes) or is_debug:
        gxs = backprop._normalize_grads(func, indexes, gxs, is_debug)
    for i, gx in zip(indexes, gxs):
        if gx is None:
            continue
        if gx.__class__ is not variable.Variable:
            gx = backprop._as_grad_variable(func, gx)
        d = gx._data
        if d is None:
            continue
        x = inputs[i]
        if d.shape != x.shape:
            backprop._bad_grad(func, i, x, gx)
        received = grad_inputs[x]
        if received and received[0]._data.dtype != d.dtype:
            # As Chainer's step: the dtype is checked against the gradients it is summed
            # with (an integer input may be given float gradients).
            raise ValueError('dtype of gradients returned from backward is incorrect: '
                             '%s.backward returned a gradient of dtype %s for input %d, '
                             'which has received gradients of dtype %s'
                             % (func.label, d.dtype, i, received[0]._data.dtype))
        received.append(gx)
    if not configuration.config.lazy_grad_sum:
        for grad_list in grad_inputs.values():
            _reduce(grad_list)
