"""CPU-only counterparts of Chainer's backend test configurations.

Chainer runs a test class once per backend configuration (NumPy, CuPy, ChainerX, iDeep).
chainlite has NumPy alone: :func:`inject_backend_tests` takes Chainer's parameter dicts
unchanged, runs the CPU ones and generates the others as skipped tests that say why.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Iterable, List, Optional

import numpy

from chainlite import backend
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


class CpuBackendConfig:
    """One backend configuration, given as in Chainer; the arrays are always NumPy's.

    The instance is what a test method of a class decorated with :func:`inject_backend_tests`
    receives as ``backend_config``. It accepts Chainer's keys (``use_cuda``, ``cuda_device``,
    ``use_chainerx``, ``chainerx_device``, ``use_cudnn``, ``use_ideep``, ...) and says, in
    :attr:`skip_reason`, why a configuration cannot run here.

    Args:
        params: A dict of Chainer's ``BackendConfig`` parameters; ``{}`` is the CPU.

    Example:
        >>> import numpy as np
        >>> config = CpuBackendConfig({})
        >>> config.xp is np, config.skip_reason
        (True, None)
        >>> CpuBackendConfig({'use_cuda': True}).skip_reason
        'CUDA GPU required; chainlite runs on NumPy (CPU) only'
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

    @property
    def skip_reason(self) -> Optional[str]:
        """None for a CPU configuration, else why the tests using it are skipped."""
        if self.use_cuda or (self.use_chainerx
                             and str(self.chainerx_device).startswith('cuda')):
            return 'CUDA GPU required; chainlite runs on NumPy (CPU) only'
        if self.use_chainerx:
            return 'ChainerX required; chainlite has no ChainerX'
        if self.use_ideep != 'never':
            return 'iDeep required; chainlite has no iDeep backend'
        return None

    @property
    def device(self) -> backend.Device:
        """The device: always the CPU."""
        return backend.CpuDevice()

    @property
    def xp(self) -> Any:
        """The array module: always NumPy."""
        return numpy

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
        """The decorators applied to the tests of this configuration (skips, for non-CPU)."""
        reason = self.skip_reason
        if reason is None:
            return []
        name = 'gpu' if 'CUDA' in reason else 'chainerx' if 'ChainerX' in reason else 'ideep'
        return [attr._marked_and_skipped(name, reason)]

    def __enter__(self) -> 'CpuBackendConfig':
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def __repr__(self) -> str:
        return '<BackendConfig %s>' % ' '.join('%s=%r' % (key, getattr(self, key))
                                              for key, _ in _DEFAULTS)


def _generate(base: type, method_names: Optional[List[str]],
              params: List[dict]) -> Iterable[_bundle.Spec]:
    if method_names is not None:
        # The tests that take no backend_config keep running, in a class of their own.
        yield ('%s_without_backend' % base.__name__, {},
               lambda method: None if method.__name__ in method_names else method)
    for param in params:
        config = CpuBackendConfig(param)

        def wrap(method, config=config):
            if method_names is not None and method.__name__ not in method_names:
                return None

            @functools.wraps(method)
            def test(self, *args, **kwargs):
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
    """Class decorator running test methods once per backend configuration, CPU only.

    Each ``test_*`` method named in ``method_names`` (all of them if None) takes a
    ``backend_config`` argument after ``self``; one class is generated per configuration in
    ``params``, its tests receiving a :class:`CpuBackendConfig`. Configurations that need
    CUDA, ChainerX or iDeep give skipped tests, with the reason. Works with unittest and
    pytest-style classes and stacks with :func:`~chainlite.testing.parameterize`.

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


# Chainer's name for a backend configuration.
BackendConfig = CpuBackendConfig
