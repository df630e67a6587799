"""A class decorator that tests a unary elementwise function, as Chainer's
``chainer.testing.unary_math_function_unittest``."""
from __future__ import annotations

import unittest
import warnings
from typing import Any, Callable, Optional

import numpy

from chainlite import function as function_module
from chainlite import functions
from chainlite import variable


def is_available() -> bool:
    """Returns True: the decorator needs nothing beyond chainlite and pytest."""
    return True


def check_available() -> None:
    """Does nothing: the decorator is always available."""


def _func_name(func: Any) -> str:
    # The name of the tested function: an old-style Function's class, lower-cased.
    if isinstance(func, function_module.Function):
        return type(func).__name__.lower()
    return func.__name__


def _func_class(func: Any) -> Any:
    # The class behind the tested function: ``functions.<Name>`` for a new-style one (None
    # if there is none), an old-style Function's own class.
    if isinstance(func, function_module.Function):
        return type(func)
    return getattr(functions, func.__name__.capitalize(), None)


def _make_data_default(shape: tuple, dtype: Any) -> tuple:
    # x, gy and ggx, uniform in [-1, 1).
    return tuple(numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False)
                 for _ in range(3))


def _nonlinear(func: Callable) -> Callable:
    # ``func`` squared: a linear function's double backward is zero, so the check squares it.
    def nonlinear(x: Any) -> Any:
        y = func(x)
        return y * y
    return nonlinear


def unary_math_function_unittest(func: Any, func_expected: Optional[Callable] = None,
                                 label_expected: Optional[str] = None,
                                 make_data: Optional[Callable] = None,
                                 is_linear: Optional[bool] = None,
                                 forward_options: Optional[dict] = None,
                                 backward_options: Optional[dict] = None,
                                 double_backward_options: Optional[dict] = None) -> Callable:
    """Makes a :class:`unittest.TestCase` test a unary elementwise function.

    The decorated class gets ``test_forward_cpu``, ``test_backward_cpu`` and (for a
    function, not an old-style :class:`~chainlite.Function` instance)
    ``test_double_backward_cpu``, each with its ``_gpu`` twin (marked ``gpu``: it runs on
    CuPy arrays where a GPU is available, as in Chainer), parameterized over shapes
    ``(3, 2)`` and ``()`` and dtypes float16/32/64. The forward result is compared with
    ``func_expected`` (by default the NumPy function of the same name), the gradients with
    numerical ones.

    Args:
        func: The function under test (or an old-style Function instance).
        func_expected: ``f(x, dtype=...)`` giving the expected output; NumPy's function of
            ``func``'s name if None.
        label_expected: The expected ``label`` of the function's class, where it has one.
        make_data: ``make_data(shape, dtype)`` returning ``(x, gy, ggx)`` (``(x, gy)`` for
            an old-style Function); uniform in ``[-1, 1]`` by default.
        is_linear: Deprecated; a linear function is squared for the double-backward test.
        forward_options: Overrides of :func:`~chainlite.testing.assert_allclose`'s tolerances.
        backward_options: Overrides of :func:`~chainlite.gradient_check.check_backward`'s
            options.
        double_backward_options: Overrides of ``check_double_backward``'s options.

    Returns:
        The class decorator.

    Raises:
        ValueError: If NumPy has no function of ``func``'s name and ``func_expected`` is not
            given, or ``label_expected`` is given for a function without a class.

    Example:
        >>> import unittest
        >>> from chainlite import functions as F, testing
        >>> @testing.unary_math_function_unittest(F.sin)
        ... class TestSin(unittest.TestCase):
        ...     pass
    """
    from chainlite import gradient_check
    from chainlite import testing
    from chainlite.backends import cuda
    from chainlite.testing import attr

    new_style = not isinstance(func, function_module.Function)
    name, func_class = _func_name(func), _func_class(func)
    if func_expected is None:
        func_expected = getattr(numpy, name, None)
        if func_expected is None:
            raise ValueError('unary_math_function_unittest: NumPy has no function matching '
                             '%r; pass func_expected' % name)
    if label_expected is None:
        label_expected = name
    elif func_class is None:
        raise ValueError('unary_math_function_unittest: label_expected is given but %r has '
                         'no function class with a label' % name)
    if make_data is None:
        make_data = (_make_data_default if new_style
                     else (lambda shape, dtype: _make_data_default(shape, dtype)[:2]))
    if is_linear is not None:
        warnings.warn('is_linear option is deprecated', DeprecationWarning)

    def decorate(klass: type) -> Any:
        if not issubclass(klass, unittest.TestCase):
            raise TypeError('unary_math_function_unittest decorates unittest.TestCase '
                            'subclasses, not %r' % klass)

        def setUp(self: Any) -> None:
            data = make_data(self.shape, self.dtype)
            self.x, self.gy = data[0], data[1]
            self.ggx = data[2] if new_style else None
            if self.dtype == numpy.float16:
                eps16 = float(numpy.finfo(numpy.float16).eps)
                self.forward_options = {'atol': eps16, 'rtol': eps16}
                grad_options = {'eps': 2 ** -4, 'atol': 2 ** -4, 'rtol': 2 ** -4,
                                'dtype': numpy.float64}
            else:
                self.forward_options = {'atol': 1e-4, 'rtol': 1e-4}
                grad_options = {'dtype': numpy.float64, 'atol': 1e-4, 'rtol': 1e-4}
            self.backward_options = dict(grad_options)
            self.double_backward_options = dict(grad_options)
            self.forward_options.update(forward_options or {})
            self.backward_options.update(backward_options or {})
            self.double_backward_options.update(double_backward_options or {})

        def check_forward(self: Any, x_data: Any) -> None:
            y = func(variable.Variable(x_data))
            self.assertEqual(y.data.dtype, x_data.dtype)
            testing.assert_allclose(func_expected(cuda.to_cpu(x_data), dtype=x_data.dtype),
                                    y.data, **self.forward_options)

        def test_forward_cpu(self: Any) -> None:
            self.check_forward(self.x)

        @attr.gpu
        def test_forward_gpu(self: Any) -> None:
            self.check_forward(cuda.to_gpu(self.x))

        def check_backward(self: Any, x_data: Any, y_grad: Any) -> None:
            gradient_check.check_backward(func, x_data, y_grad, **self.backward_options)

        def test_backward_cpu(self: Any) -> None:
            self.check_backward(self.x, self.gy)

        @attr.gpu
        def test_backward_gpu(self: Any) -> None:
            self.check_backward(cuda.to_gpu(self.x), cuda.to_gpu(self.gy))

        methods = dict(setUp=setUp, check_forward=check_forward,
                       test_forward_cpu=test_forward_cpu, test_forward_gpu=test_forward_gpu,
                       check_backward=check_backward, test_backward_cpu=test_backward_cpu,
                       test_backward_gpu=test_backward_gpu)
        if new_style:
            def check_double_backward(self: Any, x_data: Any, y_grad: Any,
                                      x_grad_grad: Any) -> None:
                f = _nonlinear(func) if is_linear else func
                gradient_check.check_double_backward(f, x_data, y_grad, x_grad_grad,
                                                     **self.double_backward_options)

            def test_double_backward_cpu(self: Any) -> None:
                self.check_double_backward(self.x, self.gy, self.ggx)

            @attr.gpu
            def test_double_backward_gpu(self: Any) -> None:
                self.check_double_backward(cuda.to_gpu(self.x), cuda.to_gpu(self.gy),
                                           cuda.to_gpu(self.ggx))

            methods.update(check_double_backward=check_double_backward,
                           test_double_backward_cpu=test_double_backward_cpu,
                           test_double_backward_gpu=test_double_backward_gpu)
        if func_class is not None:
            def test_label(self: Any) -> None:
                self.assertEqual(func_class().label, label_expected)
            methods['test_label'] = test_label
        for key, value in methods.items():
            setattr(klass, key, value)
        return testing.parameterize(*testing.product({
            'shape': [(3, 2), ()],
            'dtype': [numpy.float16, numpy.float32, numpy.float64],
        }))(klass)

    return decorate
