"""Chainer's backend test configurations: the CPU, and CUDA GPUs through CuPy.

Chainer runs a test class once per backend configuration (NumPy, CuPy, ChainerX, iDeep).
:func:`inject_backend_tests` takes Chainer's parameter dicts unchanged. CPU configurations
always run; ``{'use_cuda': True}`` configurations run where CUDA is available when the test
runs (real CuPy with a GPU, or the tests' CuPy stand-in installed), with arrays sent to
``'@cupy:N'``, and are skipped with the reason elsewhere; ChainerX and iDeep configurations
are skipped (chainlite has neither).
"""
from __future__ import annotations

import functools
import unittest
from typing import Any, Callable, Iterable, List, Optional

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite.testing import _bundle
from chainlite.testing import attr

_DEFAULTS = (
    ('use_chainerx', False),
    ('chainerx_device', None),
    ('use_cuda', False),
    ('cuda_device', None),
    ('use_cudnn', 'never'),
    ('cudnn_deterministic', False),
    ('autotune', False),
    ('cudnn_fast_batch_normalization', False),
    ('use_ideep', 'never'),
)


class BackendConfig:
    """One backend configuration, given as in Chainer: the CPU or a CUDA GPU.

    The instance is what a test method of a class decorated with :func:`inject_backend_tests`
    receives as ``backend_config``. It accepts Chainer's keys (``use_cuda``, ``cuda_device``,
    ``use_chainerx``, ``chainerx_device``, ``use_cudnn``, ``use_ideep``, ...). With
    ``use_cuda`` its device is the GPU ``'@cupy:<cuda_device>'``: :meth:`get_array` sends
    arrays there and :attr:`xp` is CuPy. :attr:`skip_reason` says why a configuration cannot
    run here (checked when the test runs, so a GPU configuration runs wherever CUDA is
    available at that moment). In a ``with`` block the configuration's ``use_cudnn``,
    ``cudnn_deterministic``, ``autotune``, ``cudnn_fast_batch_normalization`` and
    ``use_ideep`` are set, and its device is current.

    Args:
        params: A dict of Chainer's ``BackendConfig`` parameters; ``{}`` is the CPU.

    Example:
        >>> import numpy as np
        >>> config = BackendConfig({})
        >>> config.xp is np, config.skip_reason
        (True, None)
        >>> BackendConfig({'use_chainerx': True}).skip_reason
        'ChainerX required; chainlite has no ChainerX'
    """

    # Chainer's keys, set from _DEFAULTS and the given params.
    use_chainerx: bool
    chainerx_device: Any
    use_cuda: bool
    cuda_device: Any
    use_cudnn: str
    cudnn_deterministic: bool
    autotune: bool
    cudnn_fast_batch_normalization: bool
    use_ideep: str

    def __init__(self, params: dict) -> None:
        if not isinstance(params, dict):
            raise TypeError('params must be a dict, got %s' % type(params).__name__)
        for key, value in _DEFAULTS:
            setattr(self, key, value)
        for key, value in params.items():
            if key not in dict(_DEFAULTS):
                raise ValueError('Parameter %s is not defined' % key)
            setattr(self, key, value)
        if self.use_cuda and self.cuda_device is None:
            self.cuda_device = 0
        self._contexts: list = []

    @property
    def skip_reason(self) -> Optional[str]:
        """None for a configuration that can run now, else why its tests are skipped."""
        if self.use_chainerx:
            return 'ChainerX required; chainlite has no ChainerX'
        if self.use_ideep != 'never':
            return 'iDeep required; chainlite has no iDeep backend'
        if self.use_cuda:
            return attr._gpu_skip_reason(int(self.cuda_device) + 1)
        return None

    @property
    def device(self) -> backend.Device:
        """The device: the CPU, or the GPU ``'@cupy:<cuda_device>'`` with ``use_cuda``.

        Raises:
            RuntimeError: ``use_cuda`` is set and no GPU can be used (the reason says why).
        """
        if self.use_cuda:
            return backend.GpuDevice.from_device_id(int(self.cuda_device))
        return backend.CpuDevice()

    @property
    def xp(self) -> Any:
        """The array module: NumPy, or CuPy with ``use_cuda``."""
        return self.device.xp if self.use_cuda else numpy

    def get_array(self, np_array: Any) -> Any:
        """Returns the array (or tuple/list/dict of arrays) on the device."""
        return self.device.send(np_array)

    def get_func_str(self) -> str:
        """A string that names this configuration inside class and method names."""
        def text(value):
            return {True: 'true', False: 'false'}.get(value, str(value)) \
                if isinstance(value, bool) else str(value)
        return '__'.join('%s_%s' % (key, text(getattr(self, key))) for key, _ in _DEFAULTS)

    def get_pytest_marks(self) -> List[Callable]:
        """The decorators applied to the tests of this configuration.

        ``gpu`` (and ``cudnn`` where cuDNN is asked for) for a CUDA configuration, which then
        runs or skips when the test runs; a skip for ChainerX and iDeep configurations.
        """
        if self.use_chainerx:
            return [attr._marked_and_skipped('chainerx', str(self.skip_reason))]
        if self.use_ideep != 'never':
            return [attr._marked_and_skipped('ideep', str(self.skip_reason))]
        if self.use_cuda:
            marks = [attr._mark('gpu')]
            if self.use_cudnn != 'never':
                marks.append(attr._mark('cudnn'))
            return marks
        return []

    def __enter__(self) -> 'BackendConfig':
        contexts: List[Any] = [configuration.using_config(key, getattr(self, key))
                               for key in _CONFIG_KEYS]
        if self.use_cuda:
            contexts.append(self.device)
        for context in contexts:
            context.__enter__()
        self._contexts.append(contexts)
        return self

    def __exit__(self, *exc: Any) -> None:
        for context in reversed(self._contexts.pop()):
            context.__exit__(*exc)

    def __repr__(self) -> str:
        return '<BackendConfig %s>' % ' '.join('%s=%r' % (key, getattr(self, key))
                                              for key, _ in _DEFAULTS)


# The configuration keys a BackendConfig sets inside its ``with`` block.
_CONFIG_KEYS = ('use_cudnn', 'cudnn_deterministic', 'autotune',
                'cudnn_fast_batch_normalization', 'use_ideep')
# The former name, from when every configuration computed on the CPU.
CpuBackendConfig = BackendConfig


def _generate(base: type, method_names: Optional[List[str]],
              params: List[dict]) -> Iterable[_bundle.Spec]:
    if method_names is not None:
        # The tests that take no backend_config keep running, in a class of their own.
        yield ('%s_without_backend' % base.__name__, {},
               lambda method: None if method.__name__ in method_names else method)
    for param in params:
        config = BackendConfig(param)

        def wrap(method, config=config):
            if method_names is not None and method.__name__ not in method_names:
                return None

            @functools.wraps(method)
            def test(self, *args, **kwargs):
                reason = config.skip_reason
                if reason is not None:
                    raise unittest.SkipTest(reason)
                return method(self, config, *args, **kwargs)

            # Hide the backend_config parameter from pytest, which would look for a fixture.
            del test.__wrapped__
            for mark in config.get_pytest_marks():
                test = mark(test)
            return test

        yield '%s_%s' % (base.__name__, config.get_func_str()), {}, wrap


_test_case_generator = _generate  # Chainer's name


def inject_backend_tests(method_names: Optional[List[str]],
                         params: List[dict]) -> Callable[[Any], _bundle.CaseBundle]:
    """Class decorator running test methods once per backend configuration.

    Each ``test_*`` method named in ``method_names`` (all of them if None) takes a
    ``backend_config`` argument after ``self``; one class is generated per configuration in
    ``params``, its tests receiving a :class:`BackendConfig`. CUDA configurations run where
    CUDA is available when the test runs (CuPy with a GPU, or the CuPy stand-in installed)
    and are skipped with the reason elsewhere; ChainerX and iDeep ones are skipped. Works with
    unittest and pytest-style classes and stacks with :func:`~chainlite.testing.parameterize`.

    Args:
        method_names: The names of the test methods taking ``backend_config``, or None.
        params: A list of dicts of Chainer's ``BackendConfig`` parameters, e.g.
            ``[{}, {'use_cuda': True}]``.

    Returns:
        The class decorator.

    Raises:
        TypeError: If ``method_names`` is not None or a list, or ``params`` not a list of
            dicts.
    """
    if not (method_names is None or isinstance(method_names, list)):
        raise TypeError('method_names must be either None or a list.')
    if not isinstance(params, list) or not all(isinstance(p, dict) for p in params):
        raise TypeError('params must be a list of dicts.')
    return _bundle.make_decorator(lambda base: _generate(base, method_names, params))


