"""``chainer.iterators._statemachine``: Chainer's names of the sweep state and its step.

Example:
    >>> from chainlite.iterators import _statemachine
    >>> state = _statemachine.IteratorState(0, 0, False, None)
    >>> state, indices = _statemachine.iterator_statemachine(state, 3, True, None, 4)
    >>> indices.tolist(), state.current_position
    ([0, 1, 2], 3)
"""
from chainlite.iterators._sweep import IteratorState  # noqa: F401
from chainlite.iterators._sweep import advance as iterator_statemachine  # noqa: F401
