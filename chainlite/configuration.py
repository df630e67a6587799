"""Run-time configuration: ``chainlite.config`` (per thread) over ``chainlite.global_config``.

Reading a key is on every op's hot path, so the design keeps it to one attribute lookup:
``config`` is a :class:`threading.local` whose *class* attributes are the global values.
Setting a key on ``global_config`` sets that class attribute (seen by every thread that has
not overridden it); setting it on ``config`` sets an instance attribute, private to the thread.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any, TextIO

import numpy


# Whether debug mode was ever switched on, in any thread or globally. Until it is, the hot
# path skips reading ``config.debug`` (a thread-local lookup costs about as much as the rest
# of an op's bookkeeping): ``debug_was_set and config.debug``.
debug_was_set = False


def _note_key(name: str, value: Any) -> None:
    global debug_was_set
    if name == 'debug' and value:
        debug_was_set = True


class _LocalConfigBase(threading.local):
    """Per-thread values; unset keys fall back to class attributes, i.e. the global values."""

    def __setattr__(self, name: str, value: Any) -> None:
        _note_key(name, value)
        super().__setattr__(name, value)


class GlobalConfig:
    """The process-wide configuration (``chainlite.global_config``).

    Every thread sees these values unless it overrides a key through ``chainlite.config``.
    ``GlobalConfig()`` makes a new, empty configuration, as in Chainer; ``LocalConfig(g)``
    then makes the per-thread view over it.

    Args:
        local_cls: The :class:`LocalConfig` subclass whose class attributes hold the values;
            None makes a new one.
    """

    def __init__(self, local_cls: type[LocalConfig] | None = None) -> None:
        if local_cls is None:
            local_cls = type('LocalConfig', (LocalConfig,), {})
        local_cls._global_config = self
        object.__setattr__(self, '_local_cls', local_cls)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._local_cls.__dict__[name]
        except KeyError:
            raise AttributeError(
                'chainlite.global_config has no key %r' % name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        _note_key(name, value)
        setattr(self._local_cls, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._local_cls, name)

    def _own_values(self) -> dict:
        return vars(self._local_cls)

    def _keys(self) -> list[str]:
        return sorted(k for k, v in vars(self._local_cls).items()
                      if not k.startswith('_') and not callable(v))

    def show(self, file: TextIO = sys.stdout) -> None:
        """Prints every key and its value, one per line, sorted by key."""
        _show(self, self._keys(), file)


class LocalConfig(_LocalConfigBase):
    """The thread-local configuration (``chainlite.config``).

    Reading a key gives this thread's value if it set one, else the global value. Setting a
    key changes it for this thread only; prefer :func:`using_config`, which restores it.

    Args:
        global_config: The :class:`GlobalConfig` to fall back on (Chainer's constructor);
            None for the class's own (``chainlite.global_config`` for this class).

    Example:
        >>> from chainlite import configuration
        >>> g = configuration.GlobalConfig()
        >>> g.x = 1
        >>> local = configuration.LocalConfig(g)
        >>> local.x, hasattr(configuration.config, 'x')
        (1, False)
    """

    _global_config: Any = None

    def __new__(cls, global_config: Any = None) -> 'LocalConfig':
        if global_config is not None:
            cls = global_config._local_cls
        return super().__new__(cls)

    def __init__(self, global_config: Any = None) -> None:
        super().__init__()

    def _own_values(self) -> dict:
        return self.__dict__

    def _keys(self) -> list[str]:
        return sorted(set(type(self)._global_config._keys()) | set(self.__dict__))

    def show(self, file: TextIO = sys.stdout) -> None:
        """Prints every key and its effective value for this thread, sorted by key."""
        _show(self, self._keys(), file)


def _show(cfg: Any, keys: list[str], file: TextIO) -> None:
    width = max((len(k) for k in keys), default=0)
    for k in keys:
        file.write('%s %s\n' % (k.ljust(width), getattr(cfg, k)))


def _default_dtype() -> numpy.dtype:
    name = os.environ.get('CHAINLITE_DTYPE', os.environ.get('CHAINER_DTYPE', 'float32'))
    return numpy.dtype(name)


global_config = GlobalConfig()
config = LocalConfig(global_config)

global_config.train = True
global_config.enable_backprop = True
global_config.type_check = True
global_config.debug = bool(int(os.environ.get('CHAINLITE_DEBUG', os.environ.get(
    'CHAINER_DEBUG', '0'))))
global_config.dtype = _default_dtype()
global_config.keep_graph_on_report = False
global_config.lazy_grad_sum = False
global_config.in_recomputing = False
global_config.schedule_func = None
global_config.warn_nondeterministic = False
# Chainer's GPU keys: accepted so that scripts setting them keep working; nothing reads them.
global_config.use_cudnn = 'never'
global_config.cudnn_deterministic = False
global_config.autotune = False
global_config.use_ideep = 'never'
global_config.use_cudnn_tensor_core = 'auto'
global_config.cudnn_fast_batch_normalization = False
global_config.use_static_graph = True
global_config.compute_mode = None
global_config.comm = None

_UNSET = object()


class _ConfigContext(contextlib.ContextDecorator):
    # ContextDecorator makes every context manager here usable as a decorator too.
    def __init__(self, name: str, value: Any, cfg: Any) -> None:
        self.name, self.value, self.cfg = name, value, cfg

    def __enter__(self) -> None:
        self._old = self.cfg._own_values().get(self.name, _UNSET)
        setattr(self.cfg, self.name, self.value)

    def __exit__(self, *exc: object) -> None:
        if self._old is _UNSET:
            delattr(self.cfg, self.name)
        else:
            setattr(self.cfg, self.name, self._old)

    def _recreate_cm(self) -> '_ConfigContext':
        # A decorated function may run re-entrantly or in several threads: fresh state each call.
        return _ConfigContext(self.name, self.value, self.cfg)


def using_config(name: str, value: Any, config: Any = None) -> _ConfigContext:
    """Sets a configuration key inside a ``with`` block (or a decorated function).

    The previous value is restored on exit, even if an exception is raised.

    Args:
        name: The key, e.g. ``'train'``.
        value: Its value inside the block.
        config: The configuration object to change; ``chainlite.config`` (this thread) if None.

    Returns:
        A context manager that also works as a function decorator.

    Example:
        >>> import chainlite
        >>> with chainlite.using_config('train', False):
        ...     chainlite.config.train
        False
    """
    return _ConfigContext(name, value, globals()['config'] if config is None else config)


def no_backprop_mode() -> _ConfigContext:
    """Disables graph construction inside the block: outputs get no creator.

    Example:
        >>> import numpy as np, chainlite
        >>> x = chainlite.Variable(np.ones(2, np.float32))
        >>> with chainlite.no_backprop_mode():
        ...     y = x * 2
        >>> y.creator is None
        True
    """
    return using_config('enable_backprop', False)


def force_backprop_mode() -> _ConfigContext:
    """Enables graph construction inside the block, even within :func:`no_backprop_mode`."""
    return using_config('enable_backprop', True)


def is_debug() -> bool:
    """Returns True if debug mode (NaN/inf checks, creation stacks) is on for this thread."""
    return bool(config.debug)


def set_debug(debug: bool) -> None:
    """Turns debug mode on or off for this thread (``chainlite.config.debug``)."""
    config.debug = debug


class DebugMode(_ConfigContext):
    """Context manager (and decorator) that turns debug mode on or off inside a block."""

    def __init__(self, debug: bool) -> None:
        super().__init__('debug', debug, config)


class _Mixed16:
    # Chainer's mixed16: float16 activations with parameters in the dtype map_mixed16 names.
    # ``dtype`` lets NumPy read it as float16 (``array.astype(mixed16)``), as in Chainer.
    dtype = numpy.dtype(numpy.float16)

    def __repr__(self) -> str:
        return "dtype('mixed16')"

    def __eq__(self, other: object) -> bool:
        return other is self or (isinstance(other, str) and other == 'mixed16')

    def __hash__(self) -> int:
        return hash('mixed16')


mixed16 = _Mixed16()


def get_dtype(dtype: Any = None, map_mixed16: Any = None) -> numpy.dtype:
    """Resolves the floating-point dtype to use: ``dtype`` if given, else ``config.dtype``.

    Args:
        dtype: An explicit dtype, or None to use ``chainlite.config.dtype``.
        map_mixed16: The dtype that Chainer's ``mixed16`` maps to (float16 if None).

    Returns:
        A :class:`numpy.dtype`.
    """
    if dtype is None:
        dtype = config.dtype
    if dtype is mixed16 or (isinstance(dtype, str) and dtype == 'mixed16'):
        return numpy.dtype(numpy.float16 if map_mixed16 is None else map_mixed16)
    return numpy.dtype(dtype)
