"""Tests of chainlite.Variable and chainlite.Parameter: every public name, Chainer semantics."""
import copy
import operator

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import backend
from chainlite.utils import type_check


def _f32(*values):
    return numpy.array(values, numpy.float32)


# --- construction ------------------------------------------------------------------------


def test_init_from_array_shares_it():
    a = _f32(1, 2, 3)
    x = chainlite.Variable(a)
    assert x.array is a
    assert x.data is a
    assert x.grad is None
    assert x.grad_var is None
    assert x.creator is None
    assert x.creator_node is None
    assert x.rank == 0
    assert x.name is None
    assert x.requires_grad is True


def test_init_empty():
    x = chainlite.Variable()
    assert x.array is None
    assert x.grad is None
    assert x.label == 'None'


def test_init_with_name_grad_requires_grad():
    g = _f32(0.5, 0.5)
    x = chainlite.Variable(_f32(1, 2), name='x', grad=g, requires_grad=False)
    assert x.name == 'x'
    assert x.grad is g
    assert x.requires_grad is False


@pytest.mark.parametrize('data', [[1.0, 2.0], (1.0,), 3.0, 2])
def test_init_from_non_array_raises_type_error(data):
    with pytest.raises(TypeError):
        chainlite.Variable(data)


def test_init_volatile_raises_value_error():
    with pytest.raises(ValueError, match='volatile'):
        chainlite.Variable(_f32(1), volatile=True)


def test_init_unknown_keyword_raises_type_error():
    with pytest.raises(TypeError):
        chainlite.Variable(_f32(1), foo=1)


def test_init_grad_mismatch_raises():
    with pytest.raises(ValueError):
        chainlite.Variable(_f32(1, 2), grad=_f32(1, 2, 3))


# --- the array ---------------------------------------------------------------------------


def test_array_and_data_setters():
    x = chainlite.Variable(_f32(1, 2))
    b = numpy.zeros((2, 3), numpy.float64)
    x.array = b
    assert x.data is b
    assert x.shape == (2, 3)
    assert x.dtype == numpy.float64
    c = _f32(7)
    x.data = c
    assert x.array is c
    with pytest.raises(TypeError):
        x.array = [1.0]


@pytest.mark.parametrize('shape', [(), (3,), (2, 3), (2, 3, 4)])
def test_shape_ndim_size_dtype(shape):
    a = numpy.zeros(shape, numpy.float32)
    x = chainlite.Variable(a)
    assert x.shape == shape
    assert x.ndim == len(shape)
    assert x.size == a.size
    assert x.dtype == numpy.float32


def test_T():
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    x = chainlite.Variable(a)
    y = x.T
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, a.T)
    g = numpy.arange(6, dtype=numpy.float32).reshape(3, 2)
    y.grad = g
    y.backward()
    numpy.testing.assert_array_equal(x.grad, g.T)


def test_len():
    assert len(chainlite.Variable(numpy.zeros((4, 3), numpy.float32))) == 4
    assert len(chainlite.Variable(numpy.zeros((0,), numpy.float32))) == 0


def test_len_of_0d_raises_type_error():
    with pytest.raises(TypeError):
        len(chainlite.Variable(numpy.array(1.0, numpy.float32)))


def test_xp_and_device():
    x = chainlite.Variable(_f32(1))
    assert x.xp is numpy
    assert isinstance(x.device, backend.CpuDevice)
    assert x.device == backend.get_device('@numpy')


@pytest.mark.parametrize('a', [numpy.array(2.5, numpy.float32), _f32(2.5),
                               numpy.array([[7]], numpy.int32)])
def test_item(a):
    v = chainlite.Variable(a).item()
    assert v == a.item()
    assert type(v) is type(a.item())


def test_item_of_many_elements_raises():
    with pytest.raises(ValueError):
        chainlite.Variable(_f32(1, 2)).item()


def test_label():
    assert chainlite.Variable(numpy.zeros((2, 3), numpy.float32)).label == '(2, 3), float32'
    assert chainlite.Variable(numpy.array(1.0, numpy.float64)).label == 'float64'


def test_name_setter():
    x = chainlite.Variable(_f32(1))
    x.name = 'w'
    assert x.name == 'w'
    assert x.node.name == 'w'


def test_requires_grad_false_leaf_gets_no_grad():
    x = chainlite.Variable(_f32(1, 2), requires_grad=False)
    w = chainlite.Variable(_f32(3, 4))
    F.sum(x * w).backward()
    assert x.grad is None
    numpy.testing.assert_array_equal(w.grad, _f32(1, 2))


# --- shape helpers -----------------------------------------------------------------------


@pytest.mark.parametrize('call', [lambda x: x.reshape(3, 2), lambda x: x.reshape((3, 2)),
                                  lambda x: x.reshape([3, 2])])
def test_reshape_both_forms(call):
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    x = chainlite.Variable(a)
    y = call(x)
    numpy.testing.assert_array_equal(y.array, a.reshape(3, 2))
    y.grad = numpy.arange(6, dtype=numpy.float32).reshape(3, 2) * 2
    y.backward(retain_grad=True)
    numpy.testing.assert_array_equal(x.grad, (numpy.arange(6) * 2).reshape(2, 3))


@pytest.mark.parametrize('axes,expected', [((), (4, 3, 2)), ((None,), (4, 3, 2)),
                                           ((1, 0, 2), (3, 2, 4)), (((2, 0, 1),), (4, 2, 3))])
def test_transpose(axes, expected):
    a = numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)
    x = chainlite.Variable(a)
    y = x.transpose(*axes)
    assert y.shape == expected
    numpy.testing.assert_array_equal(y.array, a.transpose(*axes))


@pytest.mark.parametrize('index', [0, slice(1, None), (slice(None), 1), (1, [0, 2]),
                                   Ellipsis, (None, 0)])
def test_getitem(index):
    a = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    x = chainlite.Variable(a)
    y = x[index]
    numpy.testing.assert_array_equal(y.array, a[index])
    F.sum(y).backward()
    expected = numpy.zeros_like(a)
    expected[index] = 1
    numpy.testing.assert_array_equal(x.grad, expected)


# --- arithmetic --------------------------------------------------------------------------

_A = numpy.array([[1.5, 2.7, 3.2], [0.45, 1.9, 2.2]], numpy.float32)
_B = numpy.array([[0.7, 1.1, 2.3], [1.3, 0.6, 0.9]], numpy.float32)

_BINARY = [
    ('add', operator.add),
    ('sub', operator.sub),
    ('mul', operator.mul),
    ('truediv', operator.truediv),
    ('floordiv', operator.floordiv),
    ('pow', operator.pow),
]


@pytest.mark.parametrize('name,op', _BINARY)
@pytest.mark.parametrize('form', ['var_var', 'var_array', 'array_var'])
def test_binary_operators_against_numpy(name, op, form):
    expected = op(_A, _B)
    x, y = chainlite.Variable(_A), chainlite.Variable(_B)
    if form == 'var_var':
        z = op(x, y)
    elif form == 'var_array':
        z = op(x, _B)
    else:
        z = op(_A, y)
    assert isinstance(z, chainlite.Variable)
    assert z.dtype == numpy.float32
    numpy.testing.assert_allclose(z.array, expected, rtol=1e-6)


@pytest.mark.parametrize('name,op', _BINARY)
@pytest.mark.parametrize('scalar', [2, 0.75, numpy.float64(0.75), numpy.float32(0.75)])
def test_binary_operators_with_scalars_keep_float32(name, op, scalar):
    x = chainlite.Variable(_A)
    for z, expected in ((op(x, scalar), op(_A.astype(numpy.float64), float(scalar))),
                        (op(scalar, x), op(float(scalar), _A.astype(numpy.float64)))):
        assert isinstance(z, chainlite.Variable)
        assert z.dtype == numpy.float32, (name, type(scalar))
        numpy.testing.assert_allclose(z.array, expected, rtol=1e-5)


def test_matmul_operator_and_reflected():
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    b = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    x, y = chainlite.Variable(a), chainlite.Variable(b)
    for z in (x @ y, x @ b, a @ y):
        assert isinstance(z, chainlite.Variable)
        numpy.testing.assert_allclose(z.array, a @ b)
    z = x @ y
    z.grad = numpy.ones((2, 4), numpy.float32)
    z.backward()
    numpy.testing.assert_allclose(x.grad, numpy.ones((2, 4)) @ b.T)
    numpy.testing.assert_allclose(y.grad, a.T @ numpy.ones((2, 4)))


def test_unary_operators():
    a = numpy.array([-1.5, 0.5, 2.0], numpy.float32)
    x = chainlite.Variable(a)
    for z, expected in ((-x, -a), (abs(x), numpy.abs(a)), (+x, a)):
        assert isinstance(z, chainlite.Variable)
        assert z.dtype == numpy.float32
        numpy.testing.assert_array_equal(z.array, expected)
    F.sum(-x).backward()
    numpy.testing.assert_array_equal(x.grad, -numpy.ones(3, numpy.float32))
    x.cleargrad()
    F.sum(abs(x)).backward()  # no element at the kink 0
    numpy.testing.assert_array_equal(x.grad, numpy.sign(a))


@pytest.mark.parametrize('name,op,dx,dy', [
    ('add', operator.add, lambda a, b: numpy.ones_like(a), lambda a, b: numpy.ones_like(b)),
    ('sub', operator.sub, lambda a, b: numpy.ones_like(a), lambda a, b: -numpy.ones_like(b)),
    ('mul', operator.mul, lambda a, b: b, lambda a, b: a),
    ('truediv', operator.truediv, lambda a, b: 1 / b, lambda a, b: -a / b ** 2),
    ('pow', operator.pow, lambda a, b: b * a ** (b - 1), lambda a, b: numpy.log(a) * a ** b),
])
def test_binary_operator_gradients(name, op, dx, dy):
    a, b = _A.astype(numpy.float64), _B.astype(numpy.float64)
    x, y = chainlite.Variable(a), chainlite.Variable(b)
    F.sum(op(x, y)).backward()
    numpy.testing.assert_allclose(x.grad, dx(a, b))
    numpy.testing.assert_allclose(y.grad, dy(a, b))


@pytest.mark.parametrize('op,dx', [
    (lambda x: x + 2, lambda a: numpy.ones_like(a)),
    (lambda x: 2 - x, lambda a: -numpy.ones_like(a)),
    (lambda x: x * 3.0, lambda a: 3 * numpy.ones_like(a)),
    (lambda x: 3.0 / x, lambda a: -3 / a ** 2),
    (lambda x: x ** 3, lambda a: 3 * a ** 2),
    (lambda x: 2.0 ** x, lambda a: numpy.log(2) * 2 ** a),
])
def test_scalar_operator_gradients(op, dx):
    a = _A.astype(numpy.float64)
    x = chainlite.Variable(a)
    F.sum(op(x)).backward()
    numpy.testing.assert_allclose(x.grad, dx(a))


@pytest.mark.parametrize('op', [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.pow])
def test_ndarray_operand_is_cast_to_variable_dtype(op):
    x = chainlite.Variable(_A)
    other = _B.astype(numpy.float64)
    for z in (op(x, other), op(other, x)):
        assert z.dtype == numpy.float32
    numpy.testing.assert_allclose(op(x, other).array, op(_A, _B), rtol=1e-6)
    numpy.testing.assert_allclose(op(other, x).array, op(_B, _A), rtol=1e-6)


def test_variable_plus_variable_of_different_dtypes_raises_invalid_type():
    x = chainlite.Variable(_f32(1, 2))
    y = chainlite.Variable(numpy.array([1.0, 2.0], numpy.float64))
    with pytest.raises(type_check.InvalidType) as info:
        x + y
    msg = str(info.value)
    assert 'Invalid operation is performed in: _ + _ (Forward)' in msg
    assert 'Expect: lhs.dtype == rhs.dtype' in msg
    assert 'Actual: float32 != float64' in msg


def test_broadcasting_add_sums_grad_back():
    x = chainlite.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    y = chainlite.Variable(_f32(10, 20, 30))
    z = x + y
    numpy.testing.assert_array_equal(z.array, x.array + y.array)
    z.grad = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    z.backward()
    assert y.grad.shape == (3,)
    numpy.testing.assert_array_equal(y.grad, _f32(3, 5, 7))
    numpy.testing.assert_array_equal(x.grad, numpy.arange(6).reshape(2, 3))


def test_broadcasting_mul_sums_grad_back():
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    x = chainlite.Variable(a)
    y = chainlite.Variable(_f32(1, 2, 3))
    F.sum(x * y).backward()
    numpy.testing.assert_array_equal(y.grad, a.sum(axis=0))
    numpy.testing.assert_array_equal(x.grad, numpy.broadcast_to(_f32(1, 2, 3), (2, 3)))


@pytest.mark.parametrize('op', [operator.eq, operator.ne, operator.lt, operator.le,
                                operator.gt, operator.ge])
def test_comparisons_raise_type_error(op):
    x, y = chainlite.Variable(_f32(1)), chainlite.Variable(_f32(2))
    with pytest.raises(TypeError):
        op(x, y)
    with pytest.raises(TypeError):
        op(x, 1.0)


def test_bool_raises_type_error():
    with pytest.raises(TypeError):
        bool(chainlite.Variable(_f32(1)))
    with pytest.raises(TypeError):
        if chainlite.Variable(numpy.array(True)):
            pass


def test_hash_raises_type_error():
    x = chainlite.Variable(_f32(1))
    with pytest.raises(TypeError):
        hash(x)
    with pytest.raises(TypeError):
        {x}


def test_bad_operand_type_raises_type_error():
    x = chainlite.Variable(_f32(1))
    with pytest.raises(TypeError):
        x + 'a'
    with pytest.raises(TypeError):
        x * [1.0]


# --- gradients ---------------------------------------------------------------------------


def test_grad_setter_checks():
    x = chainlite.Variable(numpy.zeros((2, 3), numpy.float32))
    g = numpy.ones((2, 3), numpy.float32)
    x.grad = g
    assert x.grad is g
    assert isinstance(x.grad_var, chainlite.Variable)
    assert x.grad_var.array is g
    with pytest.raises(ValueError):
        x.grad = numpy.ones((3, 2), numpy.float32)
    with pytest.raises(TypeError):
        x.grad = numpy.ones((2, 3), numpy.float64)
    with pytest.raises(TypeError):
        x.grad = [[1.0] * 3] * 2
    with pytest.raises(TypeError):
        x.grad = 1.0
    assert x.grad is g  # the failed assignments left it untouched
    x.grad = None
    assert x.grad is None
    assert x.grad_var is None


def test_grad_var_setter_checks():
    x = chainlite.Variable(numpy.zeros(3, numpy.float32))
    gv = chainlite.Variable(numpy.ones(3, numpy.float32))
    x.grad_var = gv
    assert x.grad_var is gv
    assert x.grad is gv.array
    with pytest.raises(ValueError):
        x.grad_var = chainlite.Variable(numpy.ones(4, numpy.float32))
    with pytest.raises(TypeError):
        x.grad_var = chainlite.Variable(numpy.ones(3, numpy.float64))
    x.grad_var = None
    assert x.grad is None


def test_backward_seed_is_cleared_unless_retain_grad():
    # Chainer sets y.grad to None before backprop; retain_grad puts the seed back.
    x = chainlite.Variable(_f32(1, 2))
    y = F.sum(x * x)
    y.backward()
    assert y.grad is None
    numpy.testing.assert_array_equal(x.grad, _f32(2, 4))
    x.cleargrad()
    y = F.sum(x * x)
    y.backward(retain_grad=True)
    numpy.testing.assert_array_equal(y.grad, numpy.array(1, numpy.float32))


def test_backward_explicit_seed_is_cleared_unless_retain_grad():
    x = chainlite.Variable(_f32(1, 2))
    y = x * 3
    y.grad = _f32(1, 10)
    y.backward()
    assert y.grad is None
    numpy.testing.assert_array_equal(x.grad, _f32(3, 30))


def test_backward_retain_grad_keeps_intermediate_grads():
    x = chainlite.Variable(_f32(1, 2))
    h = x * 3
    y = F.sum(h * h)
    y.backward()
    assert h.grad is None
    x.cleargrad()
    h = x * 3
    y = F.sum(h * h)
    y.backward(retain_grad=True)
    numpy.testing.assert_allclose(h.grad, 2 * h.array)
    numpy.testing.assert_allclose(x.grad, 18 * x.array)


def test_retain_grad_per_variable():
    x = chainlite.Variable(_f32(1, 2))
    h1 = x * 3
    h2 = h1 * 2
    h1.retain_grad()
    F.sum(h2).backward()
    numpy.testing.assert_array_equal(h1.grad, _f32(2, 2))
    assert h2.grad is None
    numpy.testing.assert_array_equal(x.grad, _f32(6, 6))


def test_leaf_grad_accumulates_across_backward_calls():
    x = chainlite.Variable(_f32(1, 2))
    F.sum(x * x).backward()
    F.sum(x * 3).backward()
    numpy.testing.assert_array_equal(x.grad, _f32(5, 7))


def test_backward_does_not_alias_leaf_grad_arrays():
    x = chainlite.Variable(_f32(1, 2))
    y = chainlite.Variable(_f32(3, 4))
    F.sum(x + y).backward()
    assert x.grad is not y.grad
    x.grad[0] = 100
    assert y.grad[0] == 1


def test_backward_from_leaf_does_nothing():
    x = chainlite.Variable(_f32(1, 2))
    x.backward()
    assert x.grad is None


def test_backward_of_non_scalar_without_grad_raises():
    x = chainlite.Variable(numpy.ones((2, 3), numpy.float32))
    y = x * 2
    with pytest.raises(ValueError, match=r'\(2, 3\)'):
        y.backward()


@pytest.mark.parametrize('shape', [(), (1,), (1, 1)])
def test_backward_of_one_element_seeds_one(shape):
    x = chainlite.Variable(numpy.full(shape, 3.0, numpy.float32))
    (x * x).backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full(shape, 6.0, numpy.float32))
    assert x.grad.dtype == numpy.float32


def test_cleargrad():
    x = chainlite.Variable(_f32(1, 2), grad=_f32(3, 4))
    x.cleargrad()
    assert x.grad is None
    assert x.grad_var is None


def test_zerograd_is_deprecated_and_zeros():
    x = chainlite.Variable(_f32(1, 2))
    with pytest.warns(DeprecationWarning):
        x.zerograd()
    numpy.testing.assert_array_equal(x.grad, _f32(0, 0))
    assert x.grad.dtype == numpy.float32
    g = _f32(3, 4)
    x.grad = g
    with pytest.warns(DeprecationWarning):
        x.zerograd()
    numpy.testing.assert_array_equal(x.grad, _f32(0, 0))


def test_addgrad():
    x = chainlite.Variable(_f32(1, 2), grad=_f32(10, 20))
    y = chainlite.Variable(_f32(0, 0), grad=_f32(1, 2))
    x.addgrad(y)
    numpy.testing.assert_array_equal(x.grad, _f32(11, 22))
    numpy.testing.assert_array_equal(y.grad, _f32(1, 2))
    z = chainlite.Variable(_f32(0, 0))
    z.addgrad(y)
    numpy.testing.assert_array_equal(z.grad, _f32(1, 2))
    assert z.grad is not y.grad
    w = chainlite.Variable(_f32(0, 0))
    z.addgrad(w)  # w has no grad: nothing changes
    numpy.testing.assert_array_equal(z.grad, _f32(1, 2))


def test_addgrad_shape_mismatch_raises():
    x = chainlite.Variable(_f32(1, 2), grad=_f32(1, 1))
    y = chainlite.Variable(_f32(1, 2, 3), grad=_f32(1, 1, 1))
    with pytest.raises(ValueError):
        x.addgrad(y)


def test_copydata():
    a = _f32(1, 2)
    x = chainlite.Variable(a)
    x.copydata(chainlite.Variable(_f32(5, 6)))
    assert x.array is a
    numpy.testing.assert_array_equal(a, _f32(5, 6))
    e = chainlite.Variable()
    src = chainlite.Variable(_f32(7))
    e.copydata(src)
    numpy.testing.assert_array_equal(e.array, _f32(7))
    assert e.array is not src.array


# --- graph -------------------------------------------------------------------------------


def test_creator_and_rank():
    x = chainlite.Variable(_f32(1, 2))
    h = x * 2
    y = h + 1
    assert h.creator is h.creator_node
    assert isinstance(h.creator_node, chainlite.FunctionNode)
    assert h.rank == 1
    assert y.rank == 2
    assert y.creator.inputs[0] is h.node


def test_creator_setters():
    x = chainlite.Variable(_f32(1, 2))
    y = x * 2
    f = y.creator_node
    y.creator_node = None
    assert y.creator is None
    assert y.rank == 1                       # as Chainer: removing the creator keeps the rank
    y.creator_node = f
    assert y.creator_node is f
    assert y.rank == f.rank + 1
    y.set_creator(None)
    assert y.creator is None
    y.set_creator_node(f)
    assert y.creator is f


def test_unchain():
    x = chainlite.Variable(_f32(1, 2))
    h = x * 2
    y = h * 3
    h.unchain()
    assert h.creator is None
    F.sum(y).backward()
    assert x.grad is None


def test_unchain_backward_cuts_every_creator():
    x = chainlite.Variable(_f32(1, 2))
    h1 = x * 2
    h2 = F.sin(h1)
    h3 = h2 + h1
    y = F.sum(h3)
    y.unchain_backward()
    for v in (y, h3, h2, h1):
        assert v.creator is None
    y.backward()
    assert x.grad is None


def test_detach():
    x = chainlite.Variable(_f32(1, 2))
    y = x * 2
    d = y.detach()
    assert d.array is y.array
    assert d.creator is None
    assert d.requires_grad is False
    assert d.grad is None
    F.sum(d * x).backward()
    numpy.testing.assert_array_equal(x.grad, _f32(2, 4))


def test_to_cpu_and_to_device():
    a = _f32(1, 2)
    x = chainlite.Variable(a)
    assert x.to_cpu() is x
    assert x.array is a
    assert x.to_device('@numpy') is x
    assert x.array is a
    assert x.to_device(-1) is x


def test_to_gpu_raises():
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        chainlite.Variable(_f32(1)).to_gpu()


# --- text --------------------------------------------------------------------------------


def test_repr():
    assert repr(chainlite.Variable(_f32(1, 2))) == 'variable([1., 2.])'
    assert repr(chainlite.Variable(_f32(1, 2), name='x')) == 'variable x([1., 2.])'
    assert repr(chainlite.Variable()) == 'variable(None)'
    assert repr(chainlite.Variable(numpy.array([[1, 2], [3, 4]], numpy.int32))) == (
        'variable([[1, 2],\n          [3, 4]])')


def test_str():
    assert str(chainlite.Variable(_f32(1, 2))) == 'variable([1. 2.])'
    assert str(chainlite.Variable(_f32(1, 2), name='x')) == 'variable x([1. 2.])'
    assert str(chainlite.Variable()) == 'variable(None)'


def test_summary():
    x = chainlite.Variable(_f32(1))
    assert x.summary() == '<variable at 0x%x>' % id(x)
    x.name = 'w'
    assert x.summary() == '<variable w>'


def test_debug_print():
    x = chainlite.Variable(_f32(1, 3), name='x')
    text = x.debug_print()
    lines = text.splitlines()
    assert lines[0] == '<variable x>'
    assert '- device: CPU' in lines
    assert "- backend: <class 'numpy.ndarray'>" in lines
    assert '- shape: (2,)' in lines
    assert '- dtype: float32' in lines
    assert '- statistics: mean=2.00000000, std=1.00000000' in lines
    assert lines[-1] == '- grad: None'
    x.grad = _f32(0, 0)
    assert x.debug_print().splitlines()[-1] == '- grad: 0'
    x.grad = _f32(1, 1)
    assert x.debug_print().splitlines()[-1] == '- grad: mean=1.00000000, std=0.00000000'


def test_debug_print_of_zero_data_shows_statistics():
    # Chainer shows "mean=..., std=..." statistics of the data even when it is all zeros;
    # only the gradient is abbreviated to 0.
    text = chainlite.Variable(_f32(0, 0)).debug_print()
    assert '- statistics: mean=0.00000000, std=0.00000000' in text.splitlines()


def test_debug_print_of_empty_variable():
    lines = chainlite.Variable().debug_print().splitlines()
    assert '- shape: None' in lines
    assert '- dtype: None' in lines
    assert '- grad: None' in lines


# --- Parameter ---------------------------------------------------------------------------


def test_parameter_from_array():
    a = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    p = chainlite.Parameter(a, name='W')
    assert isinstance(p, chainlite.Variable)
    assert p.array is a
    assert p.grad is None
    assert p.name == 'W'
    assert p.is_initialized


@pytest.mark.parametrize('value', [0.5, 2, numpy.float64(0.5)])
def test_parameter_from_scalar_and_shape(value):
    p = chainlite.Parameter(value, (2, 3))
    assert p.shape == (2, 3)
    assert p.dtype == numpy.float32
    numpy.testing.assert_array_equal(p.array, numpy.full((2, 3), value, numpy.float32))
    assert p.grad.shape == (2, 3)
    assert p.grad.dtype == numpy.float32
    assert numpy.isnan(p.grad).all()


def test_parameter_from_scalar_follows_config_dtype():
    with chainlite.using_config('dtype', numpy.float64):
        p = chainlite.Parameter(1.0, (2,))
    assert p.dtype == numpy.float64
    assert p.grad.dtype == numpy.float64


class _Initializer:
    # A Chainer-style initializer: fills an array in place.
    def __init__(self, value, dtype=None):
        self.value = value
        self.dtype = dtype

    def __call__(self, array):
        array[...] = self.value


def test_parameter_lazy_initialization():
    p = chainlite.Parameter(_Initializer(3.0))
    assert not p.is_initialized
    assert p.array is None
    with pytest.raises(RuntimeError, match='Call cleargrad'):
        p.grad                               # undefined until cleared or initialised
    assert p._grad is None
    assert p.dtype == numpy.float32
    p.initialize((2, 2))
    assert p.is_initialized
    numpy.testing.assert_array_equal(p.array, numpy.full((2, 2), 3.0, numpy.float32))
    assert p.grad.shape == (2, 2)
    assert numpy.isnan(p.grad).all()


def test_parameter_without_initializer_is_nan():
    p = chainlite.Parameter()
    assert not p.is_initialized
    p.initialize((3,))
    assert numpy.isnan(p.array).all()
    assert p.array.dtype == numpy.float32


def test_parameter_dtype_before_initialization():
    assert chainlite.Parameter(_Initializer(1.0, numpy.float64)).dtype == numpy.float64
    with chainlite.using_config('dtype', numpy.float16):
        assert chainlite.Parameter(_Initializer(1.0)).dtype == numpy.float16
    p = chainlite.Parameter(_Initializer(1.0, numpy.float64))
    p.initialize((2,))
    assert p.array.dtype == numpy.float64


def test_parameter_cleargrad_before_initialize():
    p = chainlite.Parameter(_Initializer(1.0))
    p.cleargrad()
    p.initialize((2,))
    assert p.grad is None


def test_parameter_zerograd_before_initialize():
    p = chainlite.Parameter(_Initializer(1.0))
    with pytest.warns(DeprecationWarning):
        p.zerograd()
    p.initialize((2,))
    numpy.testing.assert_array_equal(p.grad, numpy.zeros(2, numpy.float32))


def test_parameter_reinitialize_gradient_depends_on_how_it_was_made():
    # As in Chainer: only a parameter made uninitialised (or rebuilt by a deep copy or a
    # pickle) starts each initialisation with a NaN gradient; one made with a shape or an
    # array gets None when initialised again.
    lazy = chainlite.Parameter(_Initializer(1.0))
    lazy.initialize((2,))
    assert numpy.isnan(lazy.grad).all()
    lazy.initialize((3,))
    assert numpy.isnan(lazy.grad).all() and lazy.grad.shape == (3,)

    shaped = chainlite.Parameter(_Initializer(1.0), (2,))
    assert numpy.isnan(shaped.grad).all()
    shaped.initialize((2,))
    assert shaped.grad is None
    numpy.testing.assert_array_equal(shaped.array, _f32(1, 1))

    from_array = chainlite.Parameter(numpy.zeros(2, numpy.float32))
    assert from_array.grad is None
    from_array.initialize((2,))
    assert from_array.grad is None

    for clone in (copy.deepcopy(shaped), copy.deepcopy(from_array)):
        assert clone.grad is None
        clone.initialize((2,))
        assert numpy.isnan(clone.grad).all()
    # The original is unchanged by its copies.
    shaped.initialize((2,))
    assert shaped.grad is None
    # An uninitialised parameter whose gradient was cleared stays readable in its copies.
    cleared = chainlite.Parameter(_Initializer(1.0))
    cleared.cleargrad()
    clone = copy.deepcopy(cleared)
    assert clone.grad is None
    clone.initialize((2,))
    assert clone.grad is None


def test_parameter_cleargrad_then_backward():
    p = chainlite.Parameter(2.0, (2,))
    p.cleargrad()
    assert p.grad is None
    F.sum(p * p).backward()
    numpy.testing.assert_array_equal(p.grad, _f32(4, 4))


def test_parameter_copy_shares_data_not_grad_node():
    p = chainlite.Parameter(numpy.ones(3, numpy.float32), name='p')
    p.grad = numpy.full(3, 2.0, numpy.float32)
    q = copy.copy(p)
    assert isinstance(q, chainlite.Parameter)
    assert q.array is p.array
    assert q.name == 'p'
    assert q.node is not p.node
    numpy.testing.assert_array_equal(q.grad, p.grad)
    q.cleargrad()
    assert q.grad is None
    numpy.testing.assert_array_equal(p.grad, numpy.full(3, 2.0, numpy.float32))
    q.grad = numpy.zeros(3, numpy.float32)
    numpy.testing.assert_array_equal(p.grad, numpy.full(3, 2.0, numpy.float32))


def test_parameter_check_grad_for_update_explains_a_never_cleared_grad():
    p = chainlite.Parameter(1.0, (2,), name='W')
    y = F.sum(p * p)
    y.backward()                      # adds to the NaN-initialised gradient
    assert numpy.isnan(p.grad).all()
    with pytest.raises(RuntimeError, match=r'W.*never cleared.*cleargrads\(\)'):
        p.check_grad_for_update()


def test_parameter_check_grad_for_update_passes_after_cleargrad():
    p = chainlite.Parameter(1.0, (2,))
    p.cleargrad()
    F.sum(p * p).backward()
    p.check_grad_for_update()         # no error
    numpy.testing.assert_array_equal(p.grad, [2.0, 2.0])


def test_parameter_check_grad_for_update_ignores_nan_from_the_computation():
    # NaN that the model itself produced is not the cleargrads trap: no special message.
    p = chainlite.Parameter(numpy.array([-1.0], numpy.float32))
    p.grad = numpy.array([numpy.nan], numpy.float32)
    p.check_grad_for_update()


def test_parameter_accepts_an_int_shape():
    p = chainlite.Parameter(1.0)
    p.initialize(3)
    assert p.shape == (3,)
    assert chainlite.Parameter(0.5, 2).shape == (2,)


def test_mean_method_is_a_differentiable_weighted_average():
    v = chainlite.Variable(numpy.arange(6.).reshape(2, 3))
    assert float(v.mean().array) == 2.5
    w = numpy.array([1., 0., 1.])
    y = v.mean(axis=1, weights=w, keepdims=True)
    numpy.testing.assert_allclose(y.array, [[1.], [4.]])
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_allclose(v.grad, [[.5, 0., .5], [.5, 0., .5]])


def test_array_types_are_numpys():
    assert chainlite.get_array_types() == (numpy.ndarray,)
    assert chainlite.is_arrays_compatible([numpy.ones(2), None])
    assert not chainlite.is_arrays_compatible([numpy.ones(2), [1.0]])


# --- Chainer-suite behaviours -------------------------------------------------------------


def test_chainer_private_names():
    x = chainlite.Variable(_f32(1, 2), grad=_f32(3, 4))
    assert x._has_chainerx_array is False
    numpy.testing.assert_array_equal(x._grad, [3, 4])
    x.node._requires_grad = False
    assert x.node.requires_grad is False


def test_init_unchecked():
    a = _f32(1, 2)
    x = chainlite.Variable._init_unchecked(a, name='x', requires_grad=False)
    assert x.array is a and x.name == 'x' and not x.requires_grad
    assert x.node.shape == (2,)
    node = x.node
    y = chainlite.Variable._init_unchecked(a, node=node, grad=_f32(5, 6))
    assert y.node is node
    numpy.testing.assert_array_equal(y.grad, [5, 6])
    with pytest.raises(ValueError, match='ChainerX'):
        chainlite.Variable._init_unchecked(a, is_chainerx_array=True)


def test_removing_the_creator_keeps_the_rank():
    x = chainlite.Variable(_f32(1, 2))
    y = (x * 2) * 3
    assert y.rank == 2
    y.creator = None
    assert y.creator is None and y.rank == 2


def test_grad_setter_makes_a_grad_var_that_requires_grad():
    x = chainlite.Variable(_f32(1, 2), requires_grad=False)
    x.grad = _f32(3, 4)
    assert x.grad_var.requires_grad is True
    assert x.requires_grad is False


def test_zerograd_unchains_the_old_gradient():
    x = chainlite.Variable(_f32(1, 2))
    g = chainlite.Variable(_f32(5, 6))
    x.grad_var = g * 2
    assert x.grad_var.creator is not None
    with pytest.warns(DeprecationWarning):
        x.zerograd()
    assert x.grad_var.creator is None
    numpy.testing.assert_array_equal(x.grad, [0, 0])
    empty = chainlite.Variable()
    with pytest.warns(DeprecationWarning):
        empty.zerograd()                     # nothing to fill
    assert empty.grad is None


def test_copydata_initialises_uninitialised_parameters():
    dst = chainlite.Parameter(_f32(1, 2, 3))
    src = chainlite.Parameter(chainlite.initializers.Constant(7.0))
    before = dst.array
    dst.copydata(src)                        # src is initialised with dst's shape
    assert dst.array is before
    numpy.testing.assert_array_equal(src.array, [7, 7, 7])
    numpy.testing.assert_array_equal(dst.array, [7, 7, 7])

    dst = chainlite.Parameter()
    dst.copydata(chainlite.Parameter(_f32(4, 5)))
    numpy.testing.assert_array_equal(dst.array, [4, 5])

    a, b = chainlite.Parameter(), chainlite.Parameter()
    a.copydata(b)                            # both uninitialised: nothing happens
    assert a.array is None and b.array is None

    with pytest.raises(ValueError, match='no data'):
        chainlite.Variable(_f32(1)).copydata(chainlite.Variable())


def test_addgrad_initialises_an_uninitialised_parameter():
    x = chainlite.Parameter()
    y = chainlite.Parameter(_f32(1, 2))
    y.grad = _f32(3, 4)
    x.cleargrad()
    x.addgrad(y)
    assert isinstance(x.array, numpy.ndarray) and x.shape == (2,)
    numpy.testing.assert_array_equal(x.grad, [3, 4])


def test_copy_of_an_uninitialised_parameter_shares_the_array_once_initialised():
    x = chainlite.Parameter()
    y = copy.copy(x)
    x.initialize((3, 2))
    assert y.array is x.array
    z = chainlite.Parameter()
    w = copy.copy(z)
    w.initialize((2,))                       # either side may come first
    assert z.array is w.array
    p = chainlite.Parameter(chainlite.initializers.Normal(), (2,))
    q = copy.copy(p)                         # initialised: shares at once
    assert q.array is p.array
    p.initialize((3,))                       # and again after a re-initialisation
    assert q.array is p.array and q.shape == (3,)
    r = copy.deepcopy(p)                     # a deep copy shares nothing
    r.initialize((3,))
    assert r.array is not p.array and q.array is p.array
    q.array = _f32(5)                        # one slot, as in Chainer: assigning one
    assert p.array is q.array                # array assigns it in every copy
    p.initialize((2,))
    assert q.shape == (2,) and r.shape == (3,)


def test_dtype_of_an_uninitialised_parameter():
    class NoDtype:
        def __call__(self, array):
            array.fill(1)

    p = chainlite.Parameter(NoDtype())
    with pytest.raises(RuntimeError, match='not determined yet'):
        p.dtype
    with chainlite.using_config('dtype', numpy.float16):
        p.initialize((2,))
    assert p.dtype == numpy.float16
    assert chainlite.Parameter(chainlite.initializers.Zero(numpy.float64)).dtype == numpy.float64
