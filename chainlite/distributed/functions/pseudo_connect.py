"""Joining a delegate variable to the variables a graph component outputs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional


from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.distributed.functions import _delegate

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class PseudoConnect(function_node.FunctionNode):
    """Passes ``inputs[1:]`` through; backward also gives the delegate a zero gradient."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        delegate = inputs[0]
        self._delegate = (delegate.shape, delegate.dtype, backend.get_array_module(delegate))
        return tuple(inputs[1:])

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        shape, dtype, xp = self._delegate
        return (variable.Variable(xp.zeros(shape, dtype), requires_grad=False),) + tuple(
            grad_outputs)


def pseudo_connect(delegate_variable: Optional[VariableOrArray],
                   *actual_variables: VariableOrArray) -> tuple[Variable, ...]:
    """Returns ``actual_variables`` unchanged, but joined in the graph to ``delegate_variable``.

    In model parallelism a rank's graph falls apart into components linked only by
    messages: :func:`send` returns an empty *delegate* variable that stands for "the rest
    of the graph behind this send". Passing it here makes a backward pass from the returned
    variables also run the delegate's backward (the matching receive of gradients), after
    theirs. The delegate gets a zero gradient.

    Args:
        delegate_variable: A delegate (or any variable); None stands for an empty one.
        actual_variables: The variables to pass through.

    Returns:
        A tuple of Variables with the data of ``actual_variables``.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite.distributed.functions import pseudo_connect
        >>> d = chainlite.Variable(np.empty((0,), np.float32))
        >>> x = chainlite.Variable(np.array([1.0, 2.0]))
        >>> y, = pseudo_connect(d, x)
        >>> chainlite.functions.sum(y * y).backward()
        >>> x.grad, d.grad
        (array([2., 4.]), array([], dtype=float32))
    """
    if delegate_variable is None:
        delegate_variable = _delegate.empty()
    if not actual_variables:
        raise ValueError('pseudo_connect: give at least one actual variable')
    return PseudoConnect().apply((delegate_variable,) + tuple(actual_variables))
