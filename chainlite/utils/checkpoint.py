"""Gradient checkpointing: run a segment of a model without keeping its activations.

Beyond Chainer (PyTorch's ``torch.utils.checkpoint``), built on
:func:`chainlite.functions.array.forget.forget`.
"""
from typing import Any, Callable

from chainlite import variable
from chainlite.functions.array.forget import forget


def checkpoint(function: Callable, *args: Any, **kwargs: Any) -> Any:
    """Runs ``function(*args, **kwargs)`` keeping only its inputs and outputs in memory.

    The intermediate activations of ``function`` (a Link, a Chain, or any callable built from
    differentiable functions) are dropped after the forward and recomputed when the backward
    reaches the segment; its parameters get the same gradients as without checkpointing. A
    deep model split into k segments keeps about 1/k of its activations (plus the segment
    boundaries), at the price of one more forward.

    Args:
        function: The segment: a callable taking Variables (and, optionally, constants) and
            returning a Variable or a tuple of Variables.
        *args: Its positional arguments. Variables and arrays are the differentiable inputs;
            anything else (numbers, strings, None) is passed through unchanged.
        **kwargs: Keyword arguments passed through unchanged (not differentiated).

    Returns:
        What ``function`` returns.

    Note:
        The segment must compute the same thing when recomputed: do not checkpoint a segment
        with dropout or other random functions. Links with running statistics must skip their
        update when ``chainlite.config.in_recomputing`` is True (``BatchNormalization``
        does). Parameter gradients are accumulated into ``grad`` even under
        :func:`chainlite.grad`.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F, chainlite.links as L
        >>> from chainlite.utils.checkpoint import checkpoint
        >>> block = chainlite.Sequential(L.Linear(4, 8), F.relu, L.Linear(8, 4))
        >>> x = np.ones((2, 4), np.float32)
        >>> loss = F.sum(checkpoint(block, x))
        >>> block.cleargrads(); loss.backward()
        >>> block[0].W.grad.shape
        (8, 4)
    """
    positions = [i for i, a in enumerate(args)
                 if isinstance(a, variable.Variable) or variable._is_array(a)]
    if not positions:
        raise TypeError('checkpoint: give at least one Variable or array argument')

    def segment(*xs):
        full = list(args)
        for i, x in zip(positions, xs):
            full[i] = x
        return function(*full, **kwargs)

    return forget(segment, *[args[i] for i in positions])
