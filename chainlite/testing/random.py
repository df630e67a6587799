"""A decorator that runs tests with fixed random seeds and leaves the global state as it was."""
from __future__ import annotations

import atexit
import functools
import os
import random
import unittest
from typing import Any, Callable

import numpy

from chainlite.testing import _bundle


def _seed_gpu(seed: Any) -> None:
    # CuPy's generator too where CuPy is in use (as Chainer's fix_random); CuPy is not
    # imported for it. Its state is not restored afterwards (CuPy has no get_state).
    from chainlite.backends import cuda
    if cuda._gpu_types:
        cuda.cupy.random.seed(seed)


class _Seeded:
    """Seeds ``numpy.random``, ``random`` (and CuPy's generator where CuPy is in use) on
    entry and restores the first two on exit; nestable."""

    depth = 0
    saved: Any = None

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __enter__(self) -> None:
        # Only the outermost level seeds: a fixed setUp around a fixed test draws one stream.
        if _Seeded.depth == 0:
            _Seeded.saved = (numpy.random.get_state(), random.getstate())
            numpy.random.seed(self.seed)
            random.seed(self.seed)
            _seed_gpu(self.seed)
        _Seeded.depth += 1

    def __exit__(self, *exc: object) -> None:
        _Seeded.depth -= 1
        if _Seeded.depth == 0:
            numpy_state, python_state = _Seeded.saved
            numpy.random.set_state(numpy_state)
            random.setstate(python_state)
            _Seeded.saved = None


_saved_by_do_setup: Any = None


def _numpy_do_setup(deterministic: bool = True) -> None:
    global _saved_by_do_setup
    _saved_by_do_setup = (random.getstate(), numpy.random.get_state())
    numpy.random.seed(100 if deterministic else None)
    _seed_gpu(100 if deterministic else None)


def _numpy_do_teardown() -> None:
    global _saved_by_do_setup
    if _saved_by_do_setup is None:
        raise RuntimeError('do_teardown called without do_setup')
    python_state, numpy_state = _saved_by_do_setup
    random.setstate(python_state)
    numpy.random.set_state(numpy_state)
    _saved_by_do_setup = None


def do_setup(deterministic: bool = True) -> None:
    """Saves the global random states and seeds ``numpy.random`` (with 100 if deterministic).

    Undone by :func:`do_teardown`. Where CuPy is in use its generator is seeded too, as in
    Chainer (and not restored by :func:`do_teardown`).

    Args:
        deterministic: Seed with 100; False reseeds from the OS's entropy.

    Example:
        >>> do_setup()
        >>> first = numpy.random.rand()
        >>> do_teardown(); do_setup()
        >>> numpy.random.rand() == first
        True
        >>> do_teardown()
    """
    _numpy_do_setup(deterministic)


def do_teardown() -> None:
    """Restores the random states :func:`do_setup` saved (``numpy.random`` and ``random``).

    Raises:
        RuntimeError: :func:`do_setup` was not called first.
    """
    _numpy_do_teardown()


def generate_seed() -> int:
    """Draws a seed from ``numpy.random``, for a test that seeds a generator of its own.

    Returns:
        An int in ``[0, 2**32 - 1)``; the same in every run inside a :func:`fix_random` test.
    """
    return int(numpy.random.randint(0xffffffff))


def _seeded_function(f: Callable, seed: int) -> Callable:
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        with _Seeded(seed):
            return f(*args, **kwargs)
    return wrapper


def _call_hook(hook: Any, self: Any, method: Any) -> None:
    # pytest passes the test method to setup_method/teardown_method only if they take it.
    if hook is None:
        return
    code = getattr(hook, '__code__', None)
    if code is not None and code.co_argcount >= 2:
        hook(self, method)
    else:
        hook(self)


def _fix_class(cls: type, seed: int, setup_method: str, teardown_method: str) -> None:
    if not issubclass(cls, unittest.TestCase):
        # pytest-style classes: the per-test hooks of pytest's xunit protocol.
        setup_method, teardown_method = 'setup_method', 'teardown_method'
    setup = getattr(cls, setup_method, None)
    teardown = getattr(cls, teardown_method, None)

    def new_setup(self, method=None):
        _Seeded(seed).__enter__()
        try:
            _call_hook(setup, self, method)
        except BaseException:
            # A failed setup skips the teardown, which would have restored the state.
            _Seeded(seed).__exit__()
            raise

    def new_teardown(self, method=None):
        try:
            _call_hook(teardown, self, method)
        finally:
            _Seeded(seed).__exit__()

    setattr(cls, setup_method, new_setup)
    setattr(cls, teardown_method, new_teardown)


def fix_random(seed: int = 0, *, setup_method: str = 'setUp',
               teardown_method: str = 'tearDown') -> Callable[[Any], Any]:
    """Decorator running tests with ``numpy.random`` and ``random`` seeded with ``seed``.

    The states of both generators are saved before each test and restored after it, so the
    test neither depends on nor disturbs the random draws of other tests. On a ``test_*``
    function or method, the seeding wraps the call. On a class (a ``unittest.TestCase``, a
    pytest-style class, or the result of :func:`parameterize`), it wraps the per-test setup and
    teardown (``setUp``/``tearDown``, or ``setup_method``/``teardown_method`` for plain
    classes), so the random draws of the setup are fixed too. Apply it outside (above)
    :func:`condition.repeat`/``retry``, or every trial would draw the same numbers.

    Args:
        seed: The seed.
        setup_method: The setup method of a ``unittest.TestCase`` to wrap.
        teardown_method: The teardown method of a ``unittest.TestCase`` to wrap.

    Returns:
        The decorator; it returns what it decorates (a class is changed in place).

    Example:
        >>> import numpy as np
        >>> @fix_random()
        ... def test_draw():
        ...     return np.random.rand()
        >>> test_draw() == test_draw()
        True
    """
    def decorator(target):
        if isinstance(target, (type, _bundle.CaseBundle)):
            for cls in _bundle.classes_of(target):
                _fix_class(cls, seed, setup_method, teardown_method)
            return target
        if callable(target):
            return _seeded_function(target, seed)
        raise TypeError('fix_random applies to a test function or class, not %r' % (target,))
    return decorator


def _fix_random(setup_method_name: str, teardown_method_name: str) -> Callable[[Any], Any]:
    # Chainer's positional form of fix_random.
    return fix_random(setup_method=setup_method_name, teardown_method=teardown_method_name)


def _cupy_testing_random() -> Any:
    # CuPy's testing random module in Chainer; without CUDA there is none.
    from chainlite.backends import cuda
    cuda.check_cuda_available()


# Chainer's nestable pair around a test (condition.repeat and retry nest setUp): only the
# outermost _setup_random seeds (do_setup) and only the outermost _teardown_random restores.
_nest_count = 0


def _setup_random() -> None:
    global _nest_count
    if _nest_count == 0:
        nondeterministic = bool(int(os.environ.get('CHAINER_TEST_RANDOM_NONDETERMINISTIC',
                                                   '0')))
        do_setup(not nondeterministic)
    _nest_count += 1


def _teardown_random() -> None:
    global _nest_count
    if _nest_count <= 0:
        raise AssertionError('_setup_random has not been called')
    _nest_count -= 1
    if _nest_count == 0:
        do_teardown()


@atexit.register
def _check_teardown() -> None:
    # At exit: every _setup_random was paired with a _teardown_random.
    if _nest_count != 0:
        raise AssertionError('_setup_random() and _teardown_random() must be called in pairs.')
