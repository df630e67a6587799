"""Operator dispatch on Variable: which op each operand kind selects, values, dtypes, errors."""
import operator

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math import add
from chainlite.functions.math import div
from chainlite.functions.math import mul
from chainlite.functions.math import pow as pow_
from chainlite.functions.math import sub

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
SHAPE = (2, 3)

# Scalars of every kind the operators accept: each becomes part of a constant op.
SCALARS = [2, 1.5, numpy.float64(1.5), numpy.float32(1.5), numpy.int64(2), numpy.float16(1.5)]

# operator -> (op class for `x op scalar`, for `scalar op x`, for `x op array` / `array op x`)
DISPATCH = {
    operator.add: (add.AddConstant, add.AddConstant, add.Add),
    operator.sub: (add.AddConstant, sub.SubFromConstant, sub.Sub),
    operator.mul: (mul.MulConstant, mul.MulConstant, mul.Mul),
    operator.truediv: (mul.MulConstant, div.DivFromConstant, div.Div),
    operator.pow: (pow_.PowVarConst, pow_.PowConstVar, pow_.PowVarVar),
}
OPS = list(DISPATCH)


def _positive(shape, dtype=numpy.float64, seed=0):
    # Positive values in [0.5, 2]: x ** y and c ** x need x > 0 and c > 0, and 1 / x is
    # singular at 0, so every operator is smooth at every input used here.
    return numpy.random.RandomState(seed).uniform(0.5, 2, shape).astype(dtype)


def _f64(v):
    return numpy.asarray(v, numpy.float64)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('scalar', SCALARS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize('op', OPS, ids=lambda op: op.__name__)
def test_scalar_operand(op, scalar, dtype):
    x = _positive(SHAPE, dtype)
    forward_cls, reflected_cls, _ = DISPATCH[op]
    for y, cls, expected in (
            (op(chainlite.Variable(x), scalar), forward_cls, op(_f64(x), _f64(scalar))),
            (op(scalar, chainlite.Variable(x)), reflected_cls, op(_f64(scalar), _f64(x)))):
        assert isinstance(y, chainlite.Variable)
        assert isinstance(y.creator, cls)
        # A scalar never changes the variable's dtype (float16 stays float16).
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('other_shape', [SHAPE, (3,), ()])
@pytest.mark.parametrize('op', OPS, ids=lambda op: op.__name__)
def test_array_operand(op, other_shape, dtype):
    # The array is float64 whatever the variable's dtype: it is cast to the variable's.
    x, a = _positive(SHAPE, dtype), _positive(other_shape, seed=1)
    a_as_x = a.astype(dtype)
    cls = DISPATCH[op][2]
    for y, expected in ((op(chainlite.Variable(x), a), op(_f64(x), _f64(a_as_x))),
                        (op(a, chainlite.Variable(x)), op(_f64(a_as_x), _f64(x)))):
        assert isinstance(y, chainlite.Variable)
        assert isinstance(y.creator, cls)
        assert y.dtype == dtype
        assert y.shape == SHAPE
        numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('op', OPS, ids=lambda op: op.__name__)
def test_variable_operands(op):
    x, z = _positive(SHAPE), _positive((3,), seed=1)
    y = op(chainlite.Variable(x), chainlite.Variable(z))
    assert isinstance(y.creator, DISPATCH[op][2])
    numpy.testing.assert_allclose(y.array, op(x, z), rtol=1e-12)


@pytest.mark.parametrize('op', OPS, ids=lambda op: op.__name__)
def test_gradient_dtype_follows_the_variable(op):
    x = chainlite.Variable(_positive(SHAPE, numpy.float32))
    for y in (op(x, numpy.float64(1.5)), op(1.5, x), op(x, _positive(SHAPE)),
              op(_positive(SHAPE), x)):
        x.cleargrad()
        assert y.dtype == numpy.float32
        y.grad = numpy.ones_like(y.array)
        y.backward()
        assert x.grad.dtype == numpy.float32


def test_expression_gradients():
    # A composite expression through every dispatch path, checked to second order.
    def f(x, z):
        return (x * z + 2) / (z ** 2) - 3 ** x + 1.5 / x - x ** 0.5 * 4 + abs(-z) - (1 - z)

    x, z = _positive(SHAPE), _positive(SHAPE, seed=1)
    gy, ggx, ggz = (numpy.random.RandomState(s).uniform(-1, 1, SHAPE) for s in (2, 3, 4))
    gradient_check.check_backward(f, (x, z), (gy,))
    gradient_check.check_double_backward(f, (x, z), (gy,), (ggx, ggz))


@pytest.mark.parametrize('dtype', DTYPES)
def test_floordiv(dtype):
    # Values whose quotients are not near integers, so rounding cannot move the floor.
    x = numpy.array([3.5, -3.5, 7.25, 0.5], dtype)
    v = chainlite.Variable(x)
    for y, expected in ((v // 2, [1.0, -2.0, 3.0, 0.0]),
                        (v // numpy.float64(2), [1.0, -2.0, 3.0, 0.0]),
                        (v // numpy.full(4, 2.0), [1.0, -2.0, 3.0, 0.0]),
                        (10 // v, [2.0, -3.0, 1.0, 20.0]),
                        (numpy.full(4, 10.0) // v, [2.0, -3.0, 1.0, 20.0]),
                        (v // chainlite.Variable(numpy.full(4, 2.0, dtype)),
                         [1.0, -2.0, 3.0, 0.0])):
        assert isinstance(y, chainlite.Variable)
        assert y.dtype == dtype
        # Floor division has no gradient: the result is outside the graph, as in Chainer.
        assert y.creator is None
        assert not y.requires_grad
        numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('dtype', DTYPES)
def test_matmul_operator(dtype):
    a, b = _positive((2, 3), dtype), _positive((3, 4), numpy.float64, seed=1)
    expected = a.astype(numpy.float64) @ b.astype(dtype).astype(numpy.float64)
    va = chainlite.Variable(a)
    for y in (va @ b, va @ chainlite.Variable(b.astype(dtype))):
        assert y.dtype == dtype
        numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])
    y = b.T @ chainlite.Variable(a.T)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected.T, **TOL[dtype])


def test_unary_operators():
    x = numpy.array([-1.5, 2.0])
    numpy.testing.assert_array_equal((-chainlite.Variable(x)).array, -x)
    numpy.testing.assert_array_equal(abs(chainlite.Variable(x)).array, numpy.abs(x))


BINARY = OPS + [operator.floordiv, operator.matmul]


@pytest.mark.parametrize('bad', [[1.0, 2.0, 3.0], (1.0, 2.0, 3.0), 'abc', None],
                         ids=['list', 'tuple', 'str', 'None'])
@pytest.mark.parametrize('op', BINARY, ids=lambda op: op.__name__)
def test_unsupported_operand_is_a_type_error(op, bad):
    x = chainlite.Variable(numpy.ones(3))
    with pytest.raises(TypeError):
        op(x, bad)
    with pytest.raises(TypeError):
        op(bad, x)


def test_type_error_message_names_the_operand_type():
    with pytest.raises(TypeError, match='list'):
        chainlite.Variable(numpy.ones(3)) + [1, 2, 3]


@pytest.mark.parametrize('value, text', [(2, '2'), (0, '0'), (-2, '(-2)'), (2.0, '2.0'),
                                         (-2.0, '(-2.0)'), (numpy.float32(2), '2.0'),
                                         (numpy.array([1, 2]), 'constant array'),
                                         (chainlite.Variable(numpy.ones(2)), 'constant array')])
def test_operand_text_in_labels(value, text):
    from chainlite.functions.math import basic_math
    assert basic_math._convert_value_to_string(value) == text


def test_operand_text_rejects_other_objects():
    from chainlite.functions.math import basic_math
    with pytest.raises(ValueError, match='basic_math: an operand'):
        basic_math._convert_value_to_string([1, 2])


def test_operator_nodes_and_their_labels():
    # Chainer keeps the nodes in basic_math; the operators create exactly these.
    from chainlite.functions.math import basic_math as bm
    x = chainlite.Variable(numpy.ones(2))
    assert isinstance((x + x).creator, bm.Add) and isinstance((-x).creator, bm.Neg)
    assert isinstance((2.0 - x).creator, bm.SubFromConstant)
    labels = {bm.Neg(): '__neg__', bm.Absolute(): '|_|', bm.Add(): '_ + _',
              bm.AddConstant(2.0): '_ + 2.0', bm.Sub(): '_ - _',
              bm.SubFromConstant(2.0): '2.0 - _', bm.Mul(): '_ * _',
              bm.MulConstant(-2.0): '_ * (-2.0)', bm.Div(): '_ / _',
              bm.DivFromConstant(2.0): '2.0 / _', bm.PowVarVar(): '_ ** _',
              bm.PowVarConst(2.0): '_ ** 2.0', bm.PowConstVar(2.0): '2.0 ** _'}
    assert {node.label: text for node, text in labels.items()} == \
        {text: text for text in labels.values()}
