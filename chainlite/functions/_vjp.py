"""Backward of a gradient node by differentiating its own formula again.

Chainer's ``*Grad`` nodes compute a gradient in their forward on arrays; their backward
(for double backprop) is the derivative of that same formula. Where writing it out by hand
adds nothing, :func:`vjp` rebuilds the formula on the retained input Variables and lets
backprop differentiate it, recording the result so it can be differentiated again.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from chainlite import backprop
from chainlite import configuration
from chainlite import variable


def vjp(formula: Callable[..., Sequence[Any]], inputs: Sequence[Any],
        grad_outputs: Sequence[Any], indexes: Sequence[int]) -> tuple[Any, ...]:
    """The gradients of ``formula(*inputs)`` weighted by ``grad_outputs``, for ``indexes``.

    Args:
        formula: Maps the input Variables to the output Variables (None for an output
            that has no formula).
        inputs: The node's retained input Variables.
        grad_outputs: The upstream gradients, one per output (None where absent).
        indexes: The input indexes whose gradients are wanted.

    Returns:
        One gradient Variable (or None) per index, differentiable again.
    """
    # An input that needs no gradient (an array input) may still be differentiated through
    # inside the formula (a gradient formula differentiates its forward): a fresh Variable
    # over the same array stands for it.
    inputs = [x if x.requires_grad else variable.Variable(x.array) for x in inputs]
    with configuration.using_config('enable_backprop', True):
        outputs = formula(*inputs)
        pairs = [(y, g) for y, g in zip(outputs, grad_outputs)
                 if y is not None and g is not None]
        if not pairs:
            return (None,) * len(indexes)
        grads = backprop.grad([y for y, _ in pairs], list(inputs),
                              grad_outputs=[g for _, g in pairs],
                              enable_double_backprop=True)
    return tuple(grads[i] for i in indexes)
