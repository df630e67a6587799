"""Base classes that test a function or a link from a few methods a subclass defines.

A subclass says how to make inputs, how to run the code under test and what it should return;
the base class provides ``test_forward``, ``test_backward`` (and ``test_double_backward``)
that compare the outputs with the expectation and the gradients with numerical ones, using
:mod:`chainlite.gradient_check`. The ``backend_config`` argument of Chainer's test methods is
optional (the CPU) and filled in by :func:`~chainlite.testing.inject_backend_tests` when it is
used; with a CUDA configuration, as in Chainer, the inputs (and a link's parameters) go to the
GPU, the outputs must be GPU arrays, and they are compared on the host with the expected
NumPy values; gradients are checked on the device.
"""
from __future__ import annotations

import unittest
from typing import Any, Optional, Sequence

import numpy

from chainlite import backend
from chainlite import gradient_check
from chainlite import initializers
from chainlite import link as link_module
from chainlite import variable
from chainlite.backends import cuda
from chainlite.testing import array as array_module
from chainlite.testing import backend as backend_module


class _TestError(AssertionError):
    """Base of the errors that blame the code under test."""


class FunctionTestError(_TestError):
    """Raised when the tested function is implemented incorrectly."""


class LinkTestError(_TestError):
    """Raised when the tested link is implemented incorrectly."""


class InitializerArgument:
    """A link constructor's initializer argument paired with the initializer it stands for.

    Use it in :meth:`LinkInitializersTestCase.get_initializers` when the argument is not an
    initializer itself, e.g. ``InitializerArgument(None, initializers.LeCunNormal())``.

    Args:
        argument_value: The value passed to the link's constructor.
        expected_initializer: The initializer-like the link should use for it.
    """

    def __init__(self, argument_value: Any, expected_initializer: Any) -> None:
        if expected_initializer is None:
            raise ValueError('Expected initialized cannot be None.')
        initializers._check_is_initializer_like(expected_initializer)
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer


def _cpu_config(backend_config: Any) -> Any:
    return backend_module.BackendConfig({}) if backend_config is None else backend_config


def _as_noncontiguous(arrays: Any) -> Any:
    # Every second element of a buffer twice as long (on the arrays' device): same values,
    # no contiguity.
    def one(a):
        if a is None or a.ndim == 0 or a.size == 0:
            return a
        xp = backend.get_array_module(a)
        with cuda.using_device(a):  # the array's GPU; nothing for a NumPy array
            buffer = xp.empty(a.shape[:-1] + (a.shape[-1] * 2,), a.dtype)
            view = buffer[..., ::2]
            view[...] = a
        return view
    return tuple(one(a) for a in arrays)


def _check_array_tuple(arrays: Any, name: str) -> tuple:
    if not isinstance(arrays, tuple):
        raise TypeError('`%s()` must return a tuple, not %s.' % (name, type(arrays).__name__))
    if not all(a is None or isinstance(a, (numpy.ndarray, numpy.generic)) for a in arrays):
        raise TypeError('%s() must return a tuple of NumPy arrays or None.\nActual: %s'
                        % (name, tuple(type(a).__name__ for a in arrays)))
    return arrays


def _check_variable_tuple(outputs: Any, error: type) -> tuple:
    if not isinstance(outputs, tuple):
        raise error('`forward()` must return a tuple, not %s.' % type(outputs).__name__)
    if not all(isinstance(y, variable.Variable) for y in outputs):
        raise error('forward() must return a tuple of Variables.\nActual: %s'
                    % ', '.join(type(y).__name__ for y in outputs))
    return outputs


def _props(arrays: tuple) -> str:
    return ', '.join('(%s, %s)' % (a.shape, a.dtype) for a in arrays)


def _check_arrays_equal(actual: tuple, expected: tuple, error: type, **options: Any) -> None:
    """Raises ``error`` unless the arrays match in number, shape, dtype and value."""
    message = details = None
    if len(actual) != len(expected):
        message = 'Number of outputs (%d, %d) does not match' % (len(actual), len(expected))
    elif any(y.shape != e.shape or y.dtype != e.dtype for y, e in zip(actual, expected)):
        message = 'Shapes and/or dtypes do not match'
    else:
        failures = {}
        for i, (y, e) in enumerate(zip(actual, expected)):
            try:
                array_module.assert_allclose(y, e, **options)
            except AssertionError as exc:
                failures[i] = 'Error details of output [%d]:\n%s' % (i, exc)
        if failures:
            message = ('Outputs do not match the expected values.\nIndices of outputs that do '
                       'not match: %s' % ', '.join(map(str, failures)))
            details = '\n'.join(failures.values())
    if message is not None:
        text = '%s\nExpected shapes and dtypes: %s\nActual shapes and dtypes:   %s\n' % (
            message, _props(expected), _props(actual))
        if details:
            text += '\n\n' + details
        raise error(text)


def _retry_when_nondifferentiable(check: Any, dodge: bool) -> None:
    # With dodge_nondifferentiable, inputs that land on a kink are drawn again.
    while True:
        try:
            check()
        except gradient_check.NondifferentiableError:
            if not dodge:
                raise
        else:
            return


class FunctionTestBase:
    """The checks of :class:`FunctionTestCase` without ``unittest.TestCase`` (Chainer's mixin).

    A class deriving from it (and from a test framework's base of its choice) defines the
    same methods and attributes as for :class:`FunctionTestCase`, and runs the checks with
    :meth:`run_test_forward`, :meth:`run_test_backward` and
    :meth:`run_test_double_backward`.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> class CheckExp(FunctionTestBase):
        ...     def generate_inputs(self):
        ...         return np.random.uniform(-1, 1, (3, 2)).astype(np.float32),
        ...     def forward(self, inputs, device):
        ...         return F.exp(inputs[0]),
        ...     def forward_expected(self, inputs):
        ...         return np.exp(inputs[0]),
        >>> check = CheckExp()
        >>> check.run_test_forward(); check.run_test_backward()
    """

    backend_config: Any = None
    check_forward_options: Any = None
    check_backward_options: Any = None
    check_double_backward_options: Any = None
    skip_forward_test = False
    skip_backward_test = False
    skip_double_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype = numpy.float64
    contiguous: Optional[str] = None
    test_name: Optional[str] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check_forward_options = {}
        self.check_backward_options = {}
        self.check_double_backward_options = {}

    def before_test(self, test_name: str) -> None:
        """Called before each test with its name; raise ``unittest.SkipTest`` to skip it."""

    def generate_inputs(self) -> tuple:
        """Returns the inputs: a tuple of NumPy arrays."""
        raise NotImplementedError('generate_inputs() is not implemented.')

    def forward(self, inputs: tuple, device: Any) -> tuple:
        """Runs the tested function on Variables; returns a tuple of Variables."""
        raise NotImplementedError('forward() is not implemented.')

    def forward_expected(self, inputs: tuple) -> tuple:
        """Returns the expected outputs for NumPy ``inputs``: a tuple of arrays."""
        raise NotImplementedError('forward_expected() is not implemented.')

    def generate_grad_outputs(self, outputs_template: tuple) -> tuple:
        """Returns output gradients shaped like the outputs, uniform in [-1, 1)."""
        return tuple(numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
                     for a in outputs_template)

    def generate_grad_grad_inputs(self, inputs_template: tuple) -> tuple:
        """Returns gradients of the input gradients shaped like the inputs."""
        return tuple(numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
                     for a in inputs_template)

    def check_forward_outputs(self, outputs: tuple, expected_outputs: tuple) -> None:
        """Compares the outputs with the expected ones; raises :class:`FunctionTestError`."""
        _check_arrays_equal(outputs, expected_outputs, FunctionTestError,
                            **self.check_forward_options)

    def _layout(self, arrays: tuple) -> tuple:
        if self.contiguous is None:
            return _as_noncontiguous(arrays)
        if self.contiguous == 'C':
            return tuple(arrays)
        raise ValueError('Invalid value of `contiguous`: %r' % (self.contiguous,))

    def _start(self, test_name: str, skip: bool, backend_config: Any) -> Any:
        if skip:
            raise unittest.SkipTest('skip_%s_test is set' % test_name[len('test_'):])
        self.backend_config = _cpu_config(backend_config)
        self.test_name = test_name
        self.before_test(test_name)
        return self.backend_config

    def _inputs(self) -> tuple:
        return _check_array_tuple(self.generate_inputs(), 'generate_inputs')

    def _expected(self, inputs: tuple) -> tuple:
        return _check_array_tuple(self.forward_expected(inputs), 'forward_expected')

    def _forward(self, inputs: Sequence[Any], config: Any) -> tuple:
        with config:
            outputs = self.forward(tuple(inputs), config.device)
        outputs = _check_variable_tuple(outputs, FunctionTestError)
        _check_variable_types(outputs, config.device, 'forward', FunctionTestError)
        return outputs

    def run_test_forward(self, backend_config: Any = None) -> None:
        """Checks the outputs against ``forward_expected``, and that inputs are unchanged."""
        config = self._start('test_forward', self.skip_forward_test, backend_config)
        host_inputs = self._inputs()
        expected = self._expected(host_inputs)
        # As in Chainer: the inputs go to the configuration's device, non-contiguous there.
        inputs = self._layout(config.get_array(host_inputs))
        # Compared on the host (a GPU array's copy is fetched; its GPU need not be current).
        copies = [a.copy() if a.__class__ is numpy.ndarray else _host(a) for a in inputs]
        outputs = self._forward(
            [variable.Variable(a, requires_grad=a.dtype.kind == 'f') for a in inputs], config)
        modified = [i for i, (a, c) in enumerate(zip(inputs, copies))
                    if not numpy.array_equal(_host(a), c, equal_nan=a.dtype.kind in 'fc')]
        if modified:
            raise FunctionTestError('Input arrays have been modified during forward.\n'
                                    'Indices of modified inputs: %s'
                                    % ', '.join(map(str, modified)))
        self.check_forward_outputs(tuple(y.array for y in outputs), expected)

    def run_test_backward(self, backend_config: Any = None) -> None:
        """Checks first-order gradients numerically (:func:`~gradient_check.check_backward`)."""
        config = self._start('test_backward', self.skip_backward_test, backend_config)

        def check():
            inputs = self._inputs()
            grad_outputs = _check_array_tuple(
                self.generate_grad_outputs(self._expected(inputs)), 'generate_grad_outputs')
            try:
                gradient_check.check_backward(
                    lambda *xs: self._forward(xs, config),
                    self._layout(config.get_array(inputs)),
                    self._layout(config.get_array(grad_outputs)),
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_backward_options)
            except AssertionError as e:
                if isinstance(e, FunctionTestError):
                    raise
                raise FunctionTestError('backward is not implemented correctly\n\n%s' % e) \
                    from e

        _retry_when_nondifferentiable(check, self.dodge_nondifferentiable)

    def run_test_double_backward(self, backend_config: Any = None) -> None:
        """Checks second-order gradients (:func:`~gradient_check.check_double_backward`)."""
        config = self._start('test_double_backward', self.skip_double_backward_test,
                             backend_config)

        def check():
            inputs = self._inputs()
            grad_outputs = _check_array_tuple(
                self.generate_grad_outputs(self._expected(inputs)), 'generate_grad_outputs')
            grad_grad_inputs = _check_array_tuple(
                self.generate_grad_grad_inputs(inputs), 'generate_grad_grad_inputs')
            # Only float inputs have gradients, so only they get a grad_grad.
            grad_grad_inputs = tuple(g for g, x in zip(grad_grad_inputs, inputs)
                                     if x.dtype.kind == 'f')
            try:
                gradient_check.check_double_backward(
                    lambda *xs: self._forward(xs, config),
                    self._layout(config.get_array(inputs)),
                    self._layout(config.get_array(grad_outputs)),
                    self._layout(config.get_array(grad_grad_inputs)),
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_double_backward_options)
            except AssertionError as e:
                if isinstance(e, FunctionTestError):
                    raise
                raise FunctionTestError(
                    'double backward is not implemented correctly\n\n%s' % e) from e

        _retry_when_nondifferentiable(check, self.dodge_nondifferentiable)


class FunctionTestCase(FunctionTestBase, unittest.TestCase):
    """Base class of a function's tests: forward, backward and double backward, per device.

    A subclass defines:

    - ``generate_inputs(self)``: a tuple of NumPy arrays;
    - ``forward(self, inputs, device)``: runs the function on ``inputs`` (Variables) and
      returns a tuple of Variables;
    - ``forward_expected(self, inputs)``: the expected outputs from the NumPy ``inputs``, as
      a tuple of arrays (same shapes and dtypes).

    Optionally it overrides ``before_test(test_name)`` (raise ``unittest.SkipTest`` there to
    skip), ``generate_grad_outputs(outputs_template)``,
    ``generate_grad_grad_inputs(inputs_template)`` and ``check_forward_outputs(outputs,
    expected_outputs)``, and sets the attributes ``skip_forward_test``,
    ``skip_backward_test``, ``skip_double_backward_test``, ``dodge_nondifferentiable`` (draw
    inputs again when they sit on a kink), ``numerical_grad_dtype`` (float64 by default),
    ``contiguous`` (None: inputs are made non-contiguous; ``'C'``: left as they are) and,
    typically in ``setUp``, the dicts ``check_forward_options`` (for
    :func:`~chainlite.testing.assert_allclose`), ``check_backward_options`` and
    ``check_double_backward_options`` (for :mod:`~chainlite.gradient_check`).

    Failures raise :class:`FunctionTestError`. The test methods take an optional
    ``backend_config``; with :func:`~chainlite.testing.inject_backend_tests` they run once per
    CPU configuration.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> class TestExp(FunctionTestCase):
        ...     def generate_inputs(self):
        ...         return np.random.uniform(-1, 1, (3, 2)).astype(np.float32),
        ...     def forward(self, inputs, device):
        ...         x, = inputs
        ...         return F.exp(x),
        ...     def forward_expected(self, inputs):
        ...         x, = inputs
        ...         return np.exp(x),
        >>> import io
        >>> result = unittest.TextTestRunner(stream=io.StringIO()).run(
        ...     unittest.defaultTestLoader.loadTestsFromTestCase(TestExp))
        >>> result.testsRun, result.wasSuccessful()
        (3, True)
    """

    def test_forward(self, backend_config: Any = None) -> None:
        """Checks the outputs against ``forward_expected``, and that inputs are unchanged."""
        self.run_test_forward(backend_config)

    def test_backward(self, backend_config: Any = None) -> None:
        """Checks first-order gradients numerically (:func:`~gradient_check.check_backward`)."""
        self.run_test_backward(backend_config)

    def test_double_backward(self, backend_config: Any = None) -> None:
        """Checks second-order gradients (:func:`~gradient_check.check_double_backward`)."""
        self.run_test_double_backward(backend_config)


def _host(a: Any) -> Any:
    # A GPU array copied to the host (output templates for generate_grad_outputs).
    return a.get() if cuda.is_gpu_array(a) else a


def _initializer_argument(init: Any) -> Any:
    return init.argument_value if isinstance(init, InitializerArgument) else init


def _expected_initializer(init: Any) -> Any:
    if isinstance(init, InitializerArgument):
        init = init.expected_initializer
    return initializers._get_initializer(init)


class _LinkTestBase(unittest.TestCase):
    """What link tests share: making the link, its inputs, and running it."""

    backend_config: Any = None
    contiguous: Optional[str] = None
    param_names: Any = ()

    def before_test(self, test_name: str) -> None:
        """Called before each test with its name; raise ``unittest.SkipTest`` to skip it."""

    def generate_params(self) -> tuple:
        """Returns the initializer-likes passed to :meth:`create_link`."""
        raise NotImplementedError('generate_params is not implemented.')

    def generate_inputs(self) -> tuple:
        """Returns the inputs: a tuple of NumPy arrays."""
        raise NotImplementedError('generate_inputs is not implemented.')

    def create_link(self, initializers: Any) -> link_module.Link:
        """Returns the link made with the given initializer-likes."""
        raise NotImplementedError('create_link is not implemented.')

    def forward(self, link: link_module.Link, inputs: tuple, device: Any) -> tuple:
        """Runs the link on Variables; by default ``link(*inputs)`` as a tuple."""
        outputs = link(*inputs)
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def _layout(self, arrays: tuple) -> tuple:
        if self.contiguous is None:
            return _as_noncontiguous(arrays)
        if self.contiguous == 'C':
            return tuple(arrays)
        raise ValueError('Invalid value of `contiguous`: %r' % (self.contiguous,))

    def _start(self, test_name: str, backend_config: Any) -> Any:
        self.backend_config = _cpu_config(backend_config)
        self.before_test(test_name)
        return self.backend_config

    def _params(self) -> list:
        params = self.generate_params()
        if not isinstance(params, (tuple, list)):
            raise TypeError('`generate_params` must return a tuple or a list.')
        return list(params)

    def _link(self, inits: Any) -> link_module.Link:
        link = self.create_link([_initializer_argument(i) for i in inits])
        if not isinstance(link, link_module.Link):
            raise TypeError('`create_link` must return a chainlite.Link object.')
        if self.backend_config is not None and self.backend_config.use_cuda:
            link.to_device(self.backend_config.device)
        return link

    def _forward(self, link: link_module.Link, inputs: Sequence[Any], config: Any) -> tuple:
        with config:
            outputs = self.forward(link, tuple(inputs), config.device)
        outputs = _check_variable_tuple(outputs, LinkTestError)
        _check_variable_types(outputs, config.device, 'forward', LinkTestError)
        return outputs

    def _link_params(self, link: link_module.Link) -> list:
        return _get_link_params(link, self.param_names)


class LinkTestCase(_LinkTestBase):
    """Base class of a link's forward and backward tests, per device.

    A subclass defines ``generate_params(self)`` (the initializer-likes of the link),
    ``create_link(self, initializers)``, ``generate_inputs(self)`` (NumPy arrays) and
    ``forward_expected(self, link, inputs)`` (expected outputs from the link's parameters
    and NumPy inputs), and may override ``forward(self, link, inputs, device)`` (by default
    ``link(*inputs)``), ``before_test``, ``generate_grad_outputs`` and
    ``check_forward_outputs``. Attributes: ``param_names`` (the parameters whose gradients
    ``test_backward`` checks, e.g. ``('W', 'b')``), ``skip_forward_test``,
    ``skip_backward_test``, ``dodge_nondifferentiable``, ``numerical_grad_dtype``,
    ``contiguous``, and the dicts ``check_forward_options`` and ``check_backward_options``.
    Failures raise :class:`LinkTestError`.
    """

    check_forward_options: Any = None
    check_backward_options: Any = None
    skip_forward_test = False
    skip_backward_test = False
    dodge_nondifferentiable = False
    numerical_grad_dtype = numpy.float64

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check_forward_options = {}
        self.check_backward_options = {}

    def forward_expected(self, link: link_module.Link, inputs: tuple) -> tuple:
        """Returns the expected outputs: a tuple of NumPy arrays."""
        raise NotImplementedError('forward_expected() is not implemented.')

    def generate_grad_outputs(self, outputs_template: tuple) -> tuple:
        """Returns output gradients shaped like the outputs, uniform in [-1, 1)."""
        return tuple(numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
                     for a in outputs_template)

    def check_forward_outputs(self, outputs: tuple, expected_outputs: tuple) -> None:
        """Compares the outputs with the expected ones; raises :class:`LinkTestError`."""
        _check_arrays_equal(outputs, expected_outputs, LinkTestError,
                            **self.check_forward_options)

    def test_forward(self, backend_config: Any = None) -> None:
        """Checks the link's outputs against ``forward_expected``."""
        if self.skip_forward_test:
            raise unittest.SkipTest('skip_forward_test is set')
        config = self._start('test_forward', backend_config)
        link = self._link(self._params())
        inputs = _check_array_tuple(self.generate_inputs(), 'generate_inputs')
        outputs = self._forward(
            link, [variable.Variable(a) for a in self._layout(config.get_array(inputs))],
            config)
        if config.use_cuda:
            link.to_device('@numpy')  # forward_expected reads NumPy parameters
        expected = _check_array_tuple(self.forward_expected(link, inputs), 'forward_expected')
        self.check_forward_outputs(tuple(y.array for y in outputs), expected)

    def test_backward(self, backend_config: Any = None) -> None:
        """Checks the gradients of the inputs and of ``param_names`` numerically."""
        if self.skip_backward_test:
            raise unittest.SkipTest('skip_backward_test is set')
        config = self._start('test_backward', backend_config)

        def check():
            link = self._link(self._params())
            inputs = _check_array_tuple(self.generate_inputs(), 'generate_inputs')
            # One forward run initializes lazily shaped parameters and gives output shapes.
            outputs = self._forward(
                link, [variable.Variable(a) for a in config.get_array(inputs)], config)
            grad_outputs = _check_array_tuple(
                self.generate_grad_outputs(tuple(_host(y.array) for y in outputs)),
                'generate_grad_outputs')
            try:
                gradient_check.check_backward(
                    lambda *xs: self._forward(link, xs, config),
                    self._layout(config.get_array(inputs)),
                    self._layout(config.get_array(grad_outputs)),
                    params=self._link_params(link),
                    dtype=self.numerical_grad_dtype,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_backward_options)
            except AssertionError as e:
                if isinstance(e, LinkTestError):
                    raise
                raise LinkTestError('backward is not implemented correctly\n\n%s' % e) from e

        _retry_when_nondifferentiable(check, self.dodge_nondifferentiable)


class LinkInitializersTestCase(_LinkTestBase):
    """Base class testing that a link initializes its parameters with the given initializers.

    A subclass defines ``generate_params``, ``create_link``, ``generate_inputs`` (as for
    :class:`LinkTestCase`; one forward run initializes lazily shaped parameters),
    ``param_names`` (one per initializer argument) and ``get_initializers(self)``: one list
    per initializer argument of the initializer-likes to try (deterministic ones), wrapping
    non-initializer arguments such as None in :class:`InitializerArgument`. ``test_initializers``
    creates a link for each, the other arguments taken from ``generate_params``, and compares
    the parameter with the initializer applied to an array of its shape and dtype, with the
    options in the dict ``check_initializers_options``. Failures raise :class:`LinkTestError`.
    """

    check_initializers_options: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check_initializers_options = {}

    def get_initializers(self) -> tuple:
        """Returns, per initializer argument, the initializer-likes to test."""
        raise NotImplementedError('get_initializers is not implemented.')

    def test_initializers(self, backend_config: Any = None) -> None:
        """Checks each parameter against each initializer from ``get_initializers``."""
        config = self._start('test_initializers', backend_config)
        candidates = self.get_initializers()
        if not isinstance(candidates, (tuple, list)) or not all(
                isinstance(c, (tuple, list)) for c in candidates):
            raise TypeError('`get_initializers` must return a tuple or a list of tuples or '
                            'lists.')
        for i, inits_to_try in enumerate(candidates):
            for init in inits_to_try:
                if init is None:
                    raise ValueError('A None initializer must be wrapped in a '
                                     'InitializerArgument along with the expected '
                                     'initializer fallen back to.')
                inits = self._params()
                inits[i] = init
                link = self._link(inits)
                inputs = _check_array_tuple(self.generate_inputs(), 'generate_inputs')
                self._forward(link, [variable.Variable(a) for a in config.get_array(inputs)],
                              config)
                actual = self._link_params(link)[i].array
                # The initializer applied on the host; assert_allclose fetches a GPU array.
                expected = numpy.empty(actual.shape, actual.dtype)
                _expected_initializer(init)(expected)
                _check_arrays_equal((actual,), (expected,), LinkTestError,
                                    **self.check_initializers_options)


def _get_link_params(link: Any, param_names: Sequence[str]) -> list:
    # The link's parameters of those names; a missing one blames the link.
    params = []
    for name in param_names:
        param = getattr(link, name, None)
        if param is None:
            raise LinkTestError("Link does not have a parameter named '%s'." % name)
        params.append(param)
    return params


_get_initializer_argument_value = _initializer_argument  # Chainer's name
_get_expected_initializer = _expected_initializer  # Chainer's name


def _check_generated_initializer(init: Any) -> None:
    # An initializer a LinkInitializersTestCase generated: None must come wrapped in an
    # InitializerArgument that says what it falls back to.
    if isinstance(init, InitializerArgument):
        init = init.expected_initializer
    elif init is None:
        raise ValueError('A None initializer must be wrapped in a InitializerArgument along '
                         'with the expected initializer fallen back to.')
    initializers._check_is_initializer_like(init)


def _check_array_types(arrays: Any, device: Any, func_name: str) -> None:
    # What ``func_name()`` returned: a tuple of the device's arrays or None.
    if not isinstance(arrays, tuple):
        raise TypeError('`{}()` must return a tuple, not {}.'.format(func_name, type(arrays)))
    if not all(a is None or isinstance(a, device.supported_array_types) for a in arrays):
        raise TypeError('{}() must return a tuple of arrays supported by device {} or None.\n'
                        'Actual: {}'.format(func_name, device, tuple(type(a) for a in arrays)))


def _check_variable_types(vars: Any, device: Any, func_name: str,
                          test_error_cls: type) -> None:
    # What ``func_name()`` returned: a tuple of Variables of the device's arrays; else the
    # code under test is blamed with ``test_error_cls``.
    if not issubclass(test_error_cls, _TestError):
        raise TypeError('test_error_cls must be FunctionTestError or LinkTestError, got %r'
                        % (test_error_cls,))
    if not isinstance(vars, tuple):
        raise test_error_cls('`{}()` must return a tuple, not {}.'.format(func_name,
                                                                          type(vars)))
    if not all(isinstance(a, variable.Variable) for a in vars):
        raise test_error_cls('{}() must return a tuple of Variables.\nActual: {}'.format(
            func_name, ', '.join(str(type(a)) for a in vars)))
    if not all(isinstance(a.array, device.supported_array_types) for a in vars):
        raise test_error_cls(
            '{}() must return a tuple of Variables of arrays supported by device {}.\n'
            'Actual: {}'.format(func_name, device, ', '.join(str(type(a.array)) for a in vars)))
