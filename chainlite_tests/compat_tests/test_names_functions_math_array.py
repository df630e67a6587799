"""Chainer 7.8.1 names of chainer.functions.{math,array,connection,noise,evaluation} internals.

The FunctionNode classes, ``*Grad`` nodes and helpers that code outside Chainer may import
(test_chainer_names.py checks that they resolve): each test checks what the name does, as
Chainer does it without a GPU, reached under compat through Chainer's module path.
"""
import importlib
import math

import numpy as np
import pytest

from chainlite import gradient_check


def _mod(name):
    return importlib.import_module('chainer.functions.' + name)


_rng = np.random.RandomState(0)


def _r(*shape, low=None, high=None):
    if low is None:
        return _rng.randn(*shape)
    return _rng.uniform(low, high, shape)


def _check(f, inputs, n_out=1):
    """Forward once, then first and second order gradients (float64) of ``f``."""
    outs = f(*inputs)
    gys = tuple(_r(*y.shape) for y in outs)
    ggs = tuple(_r(*np.shape(x)) for x in inputs)
    gradient_check.check_backward(f, inputs, gys)
    gradient_check.check_double_backward(f, inputs, gys, ggs)
    return outs


# -- math: trigonometric gradient nodes ----------------------------------------------------------

@pytest.mark.parametrize('name,derivative', [
    ('SinGrad', np.cos),
    ('CosGrad', lambda x: -np.sin(x)),
    ('ArcsinGrad', lambda x: 1 / np.sqrt(1 - x * x)),
    ('ArccosGrad', lambda x: -1 / np.sqrt(1 - x * x)),
    ('ArctanGrad', lambda x: 1 / (1 + x * x)),
])
def test_trigonometric_grad_nodes(chainer, name, derivative):
    node = getattr(_mod('math.trigonometric'), name)
    x, gy = _r(3, 2, low=-0.8, high=0.8), _r(3, 2)  # inside (-1, 1): arcsin's domain
    gx, = _check(lambda x, gy: node().apply((x, gy)), (x, gy))
    np.testing.assert_allclose(gx.array, derivative(x) * gy)
    assert node().apply((x.astype(np.float32), gy.astype(np.float32)))[0].dtype == np.float32


def test_arctan2_grad_node(chainer):
    node = _mod('math.trigonometric').Arctan2Grad
    x1, x2, gy = _r(3, 2, low=0.5, high=1), _r(3, 2, low=0.5, high=1), _r(3, 2)
    gx1, gx2 = _check(lambda *xs: node().apply(xs), (x1, x2, gy))
    r2 = x1 ** 2 + x2 ** 2
    np.testing.assert_allclose(gx1.array, gy * x2 / r2)
    np.testing.assert_allclose(gx2.array, -gy * x1 / r2)


# -- math: basic_math --------------------------------------------------------------------------

def test_basic_math_div_grads(chainer):
    bm = _mod('math.basic_math')
    x0, gy = _r(3, 2, low=0.5, high=2), _r(3, 2)
    for x1 in (_r(3, 2, low=0.5, high=2), _r(2, low=0.5, high=2)):  # also broadcast
        gx0, gx1 = _check(lambda *xs: bm.DivGrad(x1.shape == x0.shape).apply(xs), (x0, x1, gy))
        np.testing.assert_allclose(gx0.array, gy / x1)
        np.testing.assert_allclose(gx1.array, (-gy * x0 / x1 ** 2).sum(0) if x1.ndim == 1
                                   else -gy * x0 / x1 ** 2)
    gx, = _check(lambda x, gy: bm.DivFromConstantGrad(3.0).apply((x, gy)), (x0, gy))
    np.testing.assert_allclose(gx.array, -3.0 * gy / x0 ** 2)


def test_basic_math_pow_grads(chainer):
    bm = _mod('math.basic_math')
    x0, x1, gy = _r(3, 2, low=0.5, high=2), _r(3, 2, low=0.5, high=2), _r(3, 2)
    gx0, gx1 = bm.PowVarVarGrad(True, x0 ** x1).apply((x0, x1, gy))
    np.testing.assert_allclose(gx0.array, x1 * x0 ** (x1 - 1) * gy)
    np.testing.assert_allclose(gx1.array, np.log(x0) * x0 ** x1 * gy)
    # y is the forward output x0 ** x1: the numerical check recomputes it from the inputs.
    f = lambda a, b, g: bm.PowVarVarGrad(True, a.array ** b.array).apply((a, b, g))  # noqa
    gradient_check.check_backward(f, (x0, x1, gy), (_r(3, 2), _r(3, 2)))
    gx, = _check(lambda x, gy: bm.PowVarConstGrad(2.5).apply((x, gy)), (x0, gy))
    np.testing.assert_allclose(gx.array, 2.5 * x0 ** 1.5 * gy)
    y = 2.5 ** x0
    gx, = _check(lambda y, gy: bm.PowConstVarGrad(2.5).apply((y, gy)), (y, gy))
    np.testing.assert_allclose(gx.array, math.log(2.5) * y * gy)


def test_basic_math_absolute_grad_and_multi_add(chainer):
    bm = _mod('math.basic_math')
    x = np.array([-2.0, 0.0, 3.0])
    gx, = _check(lambda gy: bm.AbsoluteGrad(x).apply((gy,)), (_r(3),))
    np.testing.assert_array_equal(bm.AbsoluteGrad(x).apply((np.ones(3),))[0].array,
                                  [-1.0, 0.0, 1.0])
    a, b, c = _r(3, 2), _r(2), _r(3, 2)
    y, = _check(lambda *xs: bm.MultiAdd().apply(xs), (a, b, c))
    np.testing.assert_allclose(y.array, a + b + c)
    assert bm.MultiAdd().apply((a,))[0].array is not None


def test_basic_math_operand_helpers(chainer):
    bm = _mod('math.basic_math')
    x = np.zeros(2, np.float32)
    c = bm._preprocess_const(x, 2)
    assert c == 2 and c.dtype == np.float32
    assert bm._preprocess_rhs(chainer.Variable(x), np.ones(2)).dtype == np.float32
    v = chainer.Variable(np.ones(2))
    assert bm._preprocess_rhs(chainer.Variable(x), v) is v
    with pytest.raises(TypeError, match='Value must be'):
        bm._preprocess_rhs(chainer.Variable(x), [1, 2])
    assert bm._chainerx_preprocess_const(x, np.float64(1.5), 'add') == 1.5
    assert type(bm._chainerx_preprocess_const(x, np.float64(1.5), 'add')) is float
    with pytest.raises(RuntimeError, match='ChainerX is not available'):
        bm._chainerx_preprocess_const(x, np.ones(2), 'add')


# -- math: small names -------------------------------------------------------------------------

def test_average_mean_node(chainer):
    average = _mod('math.average')
    x = _r(2, 3)
    y, = _check(lambda x: average.Mean((1,), False).apply((x,)), (x,))
    np.testing.assert_allclose(y.array, x.mean(axis=1))
    np.testing.assert_allclose(average._mean(x, 0, keepdims=True).array,
                               x.mean(axis=0, keepdims=True))


def test_special_function_flags_and_constants(chainer):
    for name in ('erfcinv', 'erfcx', 'erfinv', 'ndtri'):
        assert _mod('math.' + name).available_cpu is True  # SciPy is a test dependency
    assert _mod('math.erfinv').BACKWORDC == pytest.approx(math.sqrt(math.pi) / 2)
    assert _mod('math.erfcinv').BACKWORDC == pytest.approx(math.sqrt(math.pi) / 2)
    ndtr = _mod('math.ndtr')
    assert ndtr._slow_ndtr_cpu(0.0) == 0.5
    assert ndtr._slow_ndtr_cpu(1.0) == pytest.approx(0.8413447460685429)


def test_rsqrt_gpu_node_and_sum_to_node(chainer):
    sqrt, sum_ = _mod('math.sqrt'), _mod('math.sum')
    x = _r(3, low=0.5, high=2)
    y, = _check(lambda x: sqrt.RsqrtGPU().apply((x,)), (x,))
    np.testing.assert_allclose(y.array, 1 / np.sqrt(x))
    y, = _check(lambda x: sum_.SumTo((1, 2)).apply((x,)), (_r(3, 2),))
    assert y.shape == (1, 2)


# -- math: gradient nodes of elementwise and reduction ops -------------------------------------

def test_maximum_and_minimum_grad_nodes(chainer):
    x1, x2, gy = _r(3, 2), _r(2), _r(3, 2)  # x2 broadcasts: each part is summed to its shape
    for name, cond in (('maximum.MaximumGrad', x1 >= x2), ('minimum.MinimumGrad', x1 <= x2)):
        module, cls = name.split('.')
        node = getattr(_mod('math.' + module), cls)
        gx1, gx2 = _check(lambda gy: node(x1, x2).apply((gy,)), (gy,))
        np.testing.assert_allclose(gx1.array, np.where(cond, gy, 0))
        np.testing.assert_allclose(gx2.array, np.where(cond, 0, gy).sum(0))


def test_clip_grad_node(chainer):
    clip = _mod('math.clip')
    x, gy = np.array([-2.0, -0.5, 0.5, 2.0]), _r(4)
    gx, = _check(lambda gy: clip.ClipGrad(x, -1.0, 1.0).apply((gy,)), (gy,))
    np.testing.assert_allclose(gx.array, [0, gy[1], gy[2], 0])
    np.testing.assert_allclose(clip.ClipGrad(x, None, 1.0).apply((gy,))[0].array,
                               [gy[0], gy[1], gy[2], 0])
    with pytest.raises(ValueError):
        clip.ClipGrad(x, None, None)


def test_batch_l2_norm_squared_and_linear_interpolate_grads(chainer):
    b = _mod('math.batch_l2_norm_squared')
    x, gy = _r(3, 2, 2), _r(3)
    gx, = _check(lambda x, gy: b.BatchL2NormSquaredGrad().apply((x, gy)), (x, gy))
    np.testing.assert_allclose(gx.array, 2 * x * gy[:, None, None])
    li = _mod('math.linear_interpolate')
    p, x, y, gz = _r(3, 2), _r(3, 2), _r(3, 2), _r(3, 2)
    gp, gx, gy = _check(lambda *xs: li.LinearInterpolateGrad().apply(xs), (p, x, y, gz))
    np.testing.assert_allclose(gp.array, (x - y) * gz)
    np.testing.assert_allclose(gx.array, p * gz)
    np.testing.assert_allclose(gy.array, (1 - p) * gz)


def test_cumprodsum_and_flipcumprodsum(chainer):
    cumprod = _mod('math.cumprod')
    xmul, xadd = _r(2, 3), _r(2, 4)
    y, = _check(lambda m, a: cumprod.Cumprodsum(1).apply((m, a)), (xmul, xadd))
    expect = xadd.copy()
    for i in range(1, 4):
        expect[:, i] = expect[:, i - 1] * xmul[:, i - 1] + xadd[:, i]
    np.testing.assert_allclose(y.array, expect)
    # Run backwards: g[i] = gy[i] + xmul[i] * g[i + 1].
    z = cumprod._flipcumprodsum(np.array([2.0, 3.0]), np.array([1.0, 1.0, 1.0]), 0)
    np.testing.assert_allclose(z.array, [9.0, 4.0, 1.0])


def test_minmax_nodes(chainer):
    minmax = _mod('math.minmax')
    x = np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]])
    y = minmax.ArgMax(1).apply((x,))[0]
    np.testing.assert_array_equal(y.array, [1, 0])
    assert y.dtype == np.int32
    assert minmax.ArgMin().apply((x,))[0].array == 4
    assert issubclass(minmax.ArgMax, minmax.IndexSelectorBase)
    assert issubclass(minmax.Max, minmax.SelectorBase) and issubclass(minmax.Min, minmax.Max)
    with pytest.raises(TypeError, match='None or an int'):
        minmax.ArgMax((0, 1))
    with pytest.raises(TypeError, match='base class'):
        minmax.SelectorBase().apply((x,))

    class Peak(minmax.SelectorBase):  # Chainer's way to add a reduction
        def _fwd(self, x, xp):
            return x.max(axis=self.axis, keepdims=self.keepdims)

    np.testing.assert_allclose(Peak(1).apply((x,))[0].array, [5.0, 4.0])


# -- math: matrix products ---------------------------------------------------------------------

def test_matmul_array_helpers(chainer):
    matmul = _mod('math.matmul')
    a, b = _r(2, 3), _r(3, 4)
    np.testing.assert_allclose(matmul._matmul(a, b), a @ b)
    np.testing.assert_allclose(matmul._matmul(a.T, b, transa=True), a @ b)
    np.testing.assert_allclose(matmul._matmul(a, b, transout=True), (a @ b).T)
    np.testing.assert_allclose(matmul._matmul(_r(3), b, transa=True).shape, (4,))
    assert matmul._as_batch_mat(_r(5, 3)).shape == (5, 3, 1)
    assert matmul._as_batch_mat(_r(5, 3, 2, 2)).shape == (5, 3, 4)
    trans, ld = matmul._get_ld(np.zeros((3, 4)))
    assert (trans, ld) == (1, 4)
    trans, ld = matmul._get_ld(np.asfortranarray(np.zeros((3, 4))))
    assert (trans, ld) == (0, 3)
    assert matmul._get_check_index(False, False) == 1 and matmul._get_check_index(True, False) == 0
    assert matmul._get_check_index(False, True, row_idx=1, col_idx=2) == 1
    x, y = _r(2, 3, 4), _r(2, 5, 4)
    np.testing.assert_allclose(matmul._batch_matmul(x, y, False, True, False),
                               x @ y.transpose(0, 2, 1))
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        matmul._mat_ptrs(x)


def test_matmul_type_check_helpers(chainer):
    matmul = _mod('math.matmul')
    from chainer.utils import type_check
    types = type_check.get_types((np.zeros((2, 3)),), 'in_types', False)
    matmul._check_ndim(types[0], 1, 2)
    assert matmul._get_size(types[0], 2) == 1
    assert type_check.eval(matmul._get_size(types[0], 1)) == 3
    with pytest.raises(type_check.InvalidType):
        matmul._check_ndim(types[0], 3, 3)


@pytest.mark.parametrize('transa', [False, True])
@pytest.mark.parametrize('transb', [False, True])
def test_batch_matmul_nodes(chainer, transa, transb):
    matmul = _mod('math.matmul')
    a = _r(2, 4, 3) if transa else _r(2, 3, 4)
    b = _r(2, 5, 4) if transb else _r(2, 4, 5)
    y = matmul.BatchMatMul(transa, transb).apply((a, b))[0]
    ta, tb = (a.transpose(0, 2, 1) if transa else a), (b.transpose(0, 2, 1) if transb else b)
    np.testing.assert_allclose(y.array, ta @ tb)
    gy = _r(2, 3, 5)
    ga, gb = _check(lambda *xs: matmul.BatchMatMulGrad(transa, transb).apply(xs), (a, b, gy))
    va, vb = chainer.Variable(a), chainer.Variable(b)
    out = matmul.BatchMatMul(transa, transb).apply((va, vb))[0]
    out.grad = gy
    out.backward()
    np.testing.assert_allclose(ga.array, va.grad)
    np.testing.assert_allclose(gb.array, vb.grad)
    with pytest.warns(DeprecationWarning):
        np.testing.assert_allclose(matmul.batch_matmul(a, b, transa, transb).array, ta @ tb)


def test_batch_det_inv_nodes_and_inv_gpu(chainer):
    det, inv = _mod('math.det'), _mod('math.inv')
    a = _r(2, 3, 3) + 3 * np.eye(3)
    np.testing.assert_allclose(det.BatchDet().apply((a,))[0].array, np.linalg.det(a))
    np.testing.assert_allclose(inv.BatchInv().apply((a,))[0].array, np.linalg.inv(a))
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        inv._inv_gpu(a)


def test_tensordot_array_helper(chainer):
    tensordot = _mod('math.tensordot')
    a, b = _r(2, 3, 4), _r(4, 3, 5)
    y = tensordot._tensordot(a, b, ((0,), (1, 2)), ((1, 0), (2,)))
    np.testing.assert_allclose(y, np.einsum('ijk,kjl->il', a, b))
    y = tensordot._tensordot(a, b, ((0,), (1, 2)), ((1, 0), (2,)), ((1,), (0,)))
    np.testing.assert_allclose(y, np.einsum('ijk,kjl->li', a, b))
    with pytest.raises(ValueError, match='shape mismatch'):
        tensordot._tensordot(a, b, ((0,), (1, 2)), ((0, 1), (2,)))
    with pytest.raises(ValueError, match='axes count mismatch'):
        tensordot._tensordot(a, b, ((0,), (1, 2)), ((1,), (0, 2)))


def test_einsum_helpers(chainer):
    einsum = _mod('math.einsum')
    assert einsum.einsum_symbols[:3] == 'ABC' and len(einsum.einsum_symbols) == 52
    assert einsum.einsum_symbols_set == set(einsum.einsum_symbols)
    a, b = np.ones((4, 4)), np.ones((4, 4, 4))
    assert einsum._parse_einsum_input(('...a,...a->...', a, b)) == ('@a,@a', '@', [a, b])
    # Sublist ints index einsum_symbols, whose first letter is 'A'.
    assert einsum._parse_einsum_input((a, [Ellipsis, 0], b, [Ellipsis, 0]))[:2] == \
        ('@A,@A', '@')
    assert einsum._parse_einsum_input(('ij,jk', a, a))[:2] == ('ij,jk', 'ik')
    with pytest.raises(ValueError):
        einsum._parse_einsum_input(('ij->k', a))
    assert list(einsum._enumerate_axes('a@bc')) == [
        (0, 'a'), (slice(1, -2), '@'), (-2, 'b'), (-1, 'c')]
    assert list(einsum._enumerate_axes('ab')) == [(0, 'a'), (1, 'b')]
    x, y = _r(2, 3, 4), _r(4, 5)
    z = einsum._einsum(np, np.float32, '@j,jk', '@k', x, y)
    assert z.dtype == np.float32
    np.testing.assert_allclose(z, np.einsum('...j,jk->...k', x, y), rtol=1e-5)
    np.testing.assert_allclose(einsum._einsum(np, np.float64, '@j', 'j', x), x.sum((0, 1)))
    with pytest.raises(ValueError, match="summing over the axes of '...'"):
        einsum._einsum(np, np.float64, '@j', 'j', x, check_undefined_ellipsis_sum=True)


def _coo(dense):
    row, col = np.nonzero(dense)
    # One padding entry (row -1) at the end, as Chainer's COO arrays allow.
    return (np.append(dense[row, col], 0.0), np.append(row, -1).astype(np.int32),
            np.append(col, -1).astype(np.int32))


def test_sparse_matmul_array_helpers(chainer):
    sm = _mod('math.sparse_matmul')
    S = _r(3, 4) * (_r(3, 4) > 0)
    data, row, col = _coo(S)
    B = _r(4, 5)
    np.testing.assert_allclose(sm._coo_matmul(data, row, col, (3, 4), 'C', B, False, False,
                                              False), S @ B)
    np.testing.assert_allclose(sm._coo_matmul(data, row, col, (3, 4), 'C', B.T.copy(), False,
                                              True, True), (S @ B).T)
    np.testing.assert_allclose(sm._coo_matmul(data, row, col, (3, 4), 'C', _r(3, 2), True,
                                              False, False).shape, (4, 2))
    y = sm._coo_matmul_cpu(data, row, col, (3, 4), B, np.float32)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, S @ B, rtol=1e-5)
    A, C = _r(3, 6), _r(6, 4)
    g = sm._coo_matmul_gradsp(A, C, row, col, (3, 4), False, False, False, None)
    np.testing.assert_allclose(g[:-1], (A @ C)[row[:-1], col[:-1]])
    assert g[-1] == 0
    np.testing.assert_allclose(sm._coo_matmul_gradsp_cpu(A, C, row, col, np.float64), g)
    for f, args in ((sm._coo_matmul_gpu, (data, row, col, (3, 4), 'C', B, None)),
                    (sm._coo_matmul_gradsp_gpu, (A, C, row, col, None)),
                    (sm._cupy_coo_matmul, ()), (sm._cupy_coo_matmul_gradsp, ())):
        with pytest.raises(RuntimeError, match='CUDA is not available'):
            f(*args)


@pytest.mark.parametrize('transa,transb,transc', [(False, False, False), (True, True, True),
                                                  (True, False, True), (False, True, False)])
def test_coo_matmul_grad_sp_node(chainer, transa, transb, transc):
    sm = _mod('math.sparse_matmul')
    _, row, col = _coo(_r(3, 4) * (_r(3, 4) > 0))
    A, B = _r(3, 6), _r(6, 4)
    a, b = (A.T.copy() if transa else A), (B.T.copy() if transb else B)
    r, c = (col, row) if transc else (row, col)
    shape = (4, 3) if transc else (3, 4)
    f = lambda a, b: sm.CooMatMulGradSP(r, c, shape, 'other', transa, transb,  # noqa
                                        transc).apply((a, b))
    g, = f(a, b)
    np.testing.assert_allclose(g.array[:-1], (A @ B)[row[:-1], col[:-1]])
    gs = _r(len(row))
    gs[-1] = 0  # the padding entry is a constant 0
    gradient_check.check_backward(f, (a, b), gs)
    gradient_check.check_double_backward(f, (a, b), gs, (_r(*a.shape), _r(*b.shape)))


# -- array: as_strided ---------------------------------------------------------------------------

def test_as_strided_geometry_helpers(chainer):
    a = _mod('array.as_strided')
    assert a.index_dtype[4] is np.int32 and a.index_dtype[8] is np.int64
    assert a._byte2step((16, 8), 8) == (2, 1) and a._step2byte((2, 1), 4) == (8, 4)
    with pytest.raises(ValueError):
        a._byte2step((6,), 4)
    assert a._maybe_overlapping_memory((3, 2), (1, 1))  # sliding windows share memory
    assert not a._maybe_overlapping_memory((3, 2), (2, 1))
    assert not a._maybe_overlapping_memory((3, 2), (-2, 1))
    assert a._min_index((3, 2), (-2, 1), 5) == 1 and a._max_index((3, 2), (-2, 1), 5) == 6
    augend = np.zeros(3)
    a._index_add(augend, np.array([0, 0, 2]), np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(augend, [3.0, 0.0, 3.0])
    base = np.arange(12.0)
    view = base[2:10].reshape(2, 4)[:, ::2]
    assert a._get_base_array(view) is base
    geometry = a.TensorGeometry(view)
    assert (geometry.shape, geometry.strides, geometry.storage_offset) == ((2, 2), (4, 2), 2)
    assert geometry.ndim == 2 and geometry.itemsize == 8


@pytest.mark.parametrize('shape,strides,offset', [
    ((3, 2), (1, 1), None),  # overlapping windows
    ((4,), (-1,), 3),        # reversed
    ((2, 3), (0, 1), 1),     # broadcast
])
def test_as_strided_nodes(chainer, shape, strides, offset):
    a = _mod('array.as_strided')
    x = _r(6)
    y, = _check(lambda x: a.AsStrided(shape, strides, offset).apply((x,)), (x,))
    np.testing.assert_allclose(
        y.array, a.as_strided(x, shape, strides, offset).array)
    # AsStridedGrad is the gradient as_strided (a composition of other ops) computes.
    gy = _r(*shape)
    v = chainer.Variable(x)
    y = a.as_strided(v, shape, strides, offset)
    y.grad = gy
    y.backward()
    grad = a.AsStridedGrad(a.TensorGeometry(x), shape, strides,
                           0 if offset is None else offset).apply((gy,))[0]
    np.testing.assert_allclose(grad.array, v.grad)


def test_as_strided_grad_splits_shared_memory(chainer):
    a = _mod('array.as_strided')
    base = _r(6)
    x = np.ndarray((3, 2), base.dtype, base, 0, (8, 8))  # elements share memory
    geometry = a.TensorGeometry(x)
    gx, = _check(lambda gy: a.AsStridedGrad(geometry, (4,), (1,), 0).apply((gy,)), (_r(4),))
    out = a.AsStridedGrad(geometry, (4,), (1,), 0).apply((np.arange(4.0),))[0]
    np.testing.assert_allclose(out.array, [[0.0, 0.5], [0.5, 1.0], [1.0, 3.0]])
    with pytest.raises(TypeError, match='float'):
        a.AsStridedGrad(geometry, (4,), (1,), 0).apply((np.arange(4),))


# -- array: gradient nodes and helpers -----------------------------------------------------------

def test_array_grad_nodes(chainer):
    diagonal, get_item = _mod('array.diagonal'), _mod('array.get_item')
    gx, = _check(lambda gy: diagonal.DiagonalGrad((2, 3), 1, 0, 1).apply((gy,)), (_r(2),))
    np.testing.assert_array_equal(
        diagonal.DiagonalGrad((2, 3), 1, 0, 1).apply((np.array([1.0, 2.0]),))[0].array,
        [[0, 1, 0], [0, 0, 2]])
    gx, = _check(lambda gy: get_item.GetItemGrad([0, 0, 2], (3,)).apply((gy,)), (_r(3),))
    np.testing.assert_array_equal(
        get_item.GetItemGrad([0, 0, 2], (3,)).apply((np.ones(3),))[0].array, [2, 0, 1])
    repeat = _mod('array.repeat')
    gx, = _check(lambda gy: repeat.RepeatGrad(2, -1, (2, 3), np.float64).apply((gy,)),
                 (_r(2, 6),))
    np.testing.assert_array_equal(
        repeat.RepeatGrad((1, 0, 2), None, (3,), np.float64).apply(
            (np.array([1.0, 2.0, 3.0]),))[0].array, [1, 0, 5])
    select_item = _mod('array.select_item')
    t = chainer.Variable(np.array([0, 2]))
    gx, = _check(lambda gy: select_item.Assign((2, 3), np.float64, t).apply((gy,)), (_r(2),))
    np.testing.assert_array_equal(
        select_item.Assign((2, 3), np.float64, t).apply((np.array([1.0, 2.0]),))[0].array,
        [[1, 0, 0], [0, 0, 2]])


def test_install_variable_get_item(chainer):
    get_item = _mod('array.get_item')
    get_item.install_variable_get_item()
    y = chainer.Variable(np.arange(6.0).reshape(2, 3))[:, 1]
    np.testing.assert_array_equal(y.array, [1.0, 4.0])
    assert type(y.creator).__name__ == 'GetItem'


def test_im2col_grad_and_helpers(chainer):
    im2col = _mod('array.im2col')
    x = _r(1, 2, 4, 5)
    y = im2col.Im2Col(2, 1, 1, False, 1).apply((x,))[0]
    gy = _r(*y.shape)
    gx, = _check(lambda gy: im2col.Im2ColGrad(2, 1, 1, False, 1, x.shape).apply((gy,)), (gy,))
    # The transpose of im2col: <im2col(x), gy> = <x, Im2ColGrad(gy)>.
    np.testing.assert_allclose((y.array * gy).sum(), (x * gx.array).sum())
    assert im2col._pair(3) == (3, 3) and im2col._pair([1, 2]) == [1, 2]
    col = y.array.reshape(1, 2, 2, 2, 5, 6)
    np.testing.assert_allclose(im2col._col2im(col, 1, 1, 1, 1, 4, 5),
                               im2col.Im2ColGrad(2, 1, 1, False, 1, x.shape)
                               .apply((y.array,))[0].array)


def test_array_small_helpers(chainer):
    moveaxis, permutate = _mod('array.moveaxis'), _mod('array.permutate')
    x = _r(2, 3, 4)
    assert moveaxis._moveaxis(x, (0,), (2,), np).shape == (3, 4, 2)
    assert moveaxis._normalize_axis_tuple((-1, 0), 3) == [2, 0]
    np.testing.assert_array_equal(permutate._inverse_indices(np.array([2, 0, 1])), [1, 2, 0])
    permutate._check_indices(np.array([2, 0, 1]))
    with pytest.raises(ValueError, match='duplicate'):
        permutate._check_indices(np.array([0, 0, 1]))
    with pytest.raises(ValueError, match='Out of bounds'):
        permutate._check_indices(np.array([0, 3, 1]))
    assert _mod('array.reshape')._count_unknown_dims((-1, 3, -1)) == 2
    squeeze = _mod('array.squeeze')
    assert squeeze.argone((1, 3, 1)) == [0, 2]
    with pytest.raises(ValueError, match='must be int'):
        squeeze.argone((1.0, 2))
    xs = [np.array([0, 1, 2]), np.array([3, 4]), np.array([5])]
    ys = _mod('array.transpose_sequence')._transpose(xs, 3)
    assert [y.tolist() for y in ys] == [[0, 3, 5], [1, 4], [2]]
    assert _mod('array.transpose_sequence')._transpose(xs, 0) == ()


def test_split_axis_helpers(chainer):
    split_axis = _mod('array.split_axis')
    assert split_axis._get_indices_or_sections((1, 2)) == ([1, 2], None)
    assert split_axis._get_indices_or_sections(3) == (None, 3)
    indices, sections = split_axis._get_indices_or_sections(np.array([1, 3]))
    assert sections is None and indices.tolist() == [1, 3]
    with pytest.raises(TypeError, match='integers'):
        split_axis._get_indices_or_sections(np.array([1.5]))
    with pytest.raises(TypeError, match='1-D'):
        split_axis._get_indices_or_sections(np.zeros((2, 2), np.int32))
    with pytest.raises(TypeError):
        split_axis._get_indices_or_sections(1.5)
    with chainer.using_config('debug', True):
        with pytest.raises(ValueError, match='sorted'):
            split_axis._get_indices_or_sections([3, 1])
    x = np.zeros((2, 1))
    ys = split_axis._fix_numpy_split([np.zeros((2, 1)), np.zeros(0)], x, [2], 0)
    assert [y.shape for y in ys] == [(2, 1), (0, 1)]


# -- array: resize_images and the spatial transformer ------------------------------------------

@pytest.mark.parametrize('mode,align_corners', [('bilinear', True), ('bilinear', False),
                                                ('nearest', False)])
def test_resize_images_kernels(chainer, mode, align_corners):
    ri = _mod('array.resize_images')
    x = _r(2, 3, 4, 5)
    v, u, vw, uw = ri.compute_indices_and_weights((6, 7), (4, 5), mode, align_corners, np)
    assert v.shape == vw.shape == (6,) and u.shape == uw.shape == (7,)
    v, u, vw, uw = np.broadcast_arrays(v[:, None].astype(np.intp), u[None].astype(np.intp),
                                       vw[:, None], uw[None])
    y = ri.interpolate_bilinear_cpu(x, v, u, vw, uw)
    np.testing.assert_allclose(y, ri.resize_images(x, (6, 7), mode, align_corners).array)
    gy = _r(2, 3, 6, 7)
    gx = ri.interpolate_grad_bilinear_cpu(gy, v, u, vw, uw, 4, 5)
    np.testing.assert_allclose((gx * x).sum(), (gy * y).sum())  # the transpose
    node = lambda g: ri.ResizeImagesGrad(x.shape, (6, 7), mode, align_corners).apply((g,))  # noqa
    g, = _check(node, (gy,))
    np.testing.assert_allclose(g.array, gx)
    for f, args in ((ri.interpolate_bilinear_gpu, (x, v, u, vw, uw)),
                    (ri.interpolate_grad_bilinear_gpu, (gy, v, u, vw, uw, 4, 5))):
        with pytest.raises(RuntimeError, match='CUDA is not available'):
            f(*args)


def test_resize_images_infer_lines(chainer):
    ri = _mod('array.resize_images')
    assert ri._infer_lines(2, 3, 4, 5, 6, 7, 2, 2) == 6  # everything fits
    lines = ri._infer_lines(64, 64, 256, 256, 512, 512, 2, 2)
    assert lines == 1
    lines = ri._infer_lines(1, 1, 64, 64, 256, 256, 2, 2)
    assert lines & (lines - 1) == 0 and lines < 256  # a power of two


def test_spatial_transformer_sampler_function(chainer):
    sts = _mod('array.spatial_transformer_sampler')
    x = _r(2, 3, 4, 5)
    theta = _r(2, 2, 3) * 0.3 + np.array([[1.0, 0, 0], [0, 1.0, 0]])
    grid = chainer.functions.spatial_transformer_grid(theta, (3, 4)).array
    y = sts.SpatialTransformerSampler()(x, grid)
    np.testing.assert_allclose(y.array, sts.spatial_transformer_sampler(x, grid).array)
    gradient_check.check_backward(lambda a, b: sts.SpatialTransformerSampler()(a, b),
                                  (x, grid), _r(2, 3, 3, 4), atol=1e-4, rtol=1e-3)
    with pytest.raises(chainer.utils.type_check.InvalidType):
        sts.SpatialTransformerSampler()(x, grid[:, :1])


# -- connection --------------------------------------------------------------------------------

def test_bilinear_contractions(chainer):
    bilinear = _mod('connection.bilinear')
    a, b, c = _r(3, 4), _r(3, 5), _r(3, 2)
    W = _r(4, 5, 2)
    np.testing.assert_allclose(bilinear._ij_ik_il_to_jkl(a, b, c).array,
                               np.einsum('ij,ik,il->jkl', a, b, c))
    np.testing.assert_allclose(bilinear._ij_ik_jkl_to_il(a, b, W).array,
                               np.einsum('ij,ik,jkl->il', a, b, W))
    np.testing.assert_allclose(bilinear._ij_il_jkl_to_ik(a, c, W).array,
                               np.einsum('ij,il,jkl->ik', a, c, W))
    np.testing.assert_allclose(bilinear._ik_il_jkl_to_ij(b, c, W).array,
                               np.einsum('ik,il,jkl->ij', b, c, W))


@pytest.mark.parametrize('linear_terms', [False, True])
def test_bilinear_function_grad(chainer, linear_terms):
    bilinear = _mod('connection.bilinear')
    e1, e2, W, gy = _r(3, 2, 2), _r(3, 3), _r(4, 3, 2), _r(3, 2)
    params = (_r(4, 2), _r(3, 2), _r(2)) if linear_terms else ()
    ins = (e1, e2, W) + params[:2] + (gy,)
    outs = _check(lambda *xs: bilinear.BilinearFunctionGrad().apply(xs), ins)
    vs = [chainer.Variable(a) for a in (e1, e2, W) + params]
    y = bilinear.bilinear(*vs)
    y.grad = gy
    y.backward()
    assert len(outs) == len(vs)
    for out, v in zip(outs, vs):
        np.testing.assert_allclose(out.array, v.grad)


def test_convolution_grad_w_nodes(chainer):
    c2, cnd = _mod('connection.convolution_2d'), _mod('connection.convolution_nd')
    x, W = _r(2, 3, 5, 5), _r(4, 3, 3, 3)
    node = c2.Convolution2DFunction(1, 1)
    y = node.apply((chainer.Variable(x), chainer.Variable(W)))[0]
    gy = _r(*y.shape)
    xv, Wv = chainer.Variable(x), chainer.Variable(W)
    out = c2.convolution_2d(xv, Wv, pad=1)
    out.grad = gy
    out.backward()
    gW, = _check(lambda x, gy: cnd.ConvolutionNDGradW(node).apply((x, gy)), (x, gy))
    np.testing.assert_allclose(gW.array, Wv.grad)
    gW = c2.Convolution2DGradW(node, W.shape, np.float32, None).apply((x, gy))[0]
    assert gW.dtype == np.float32
    np.testing.assert_allclose(gW.array, Wv.grad, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match='applied'):
        cnd.ConvolutionNDGradW(c2.Convolution2DFunction())


def test_connection_small_helpers(chainer):
    for module in ('convolution_2d', 'deconvolution_2d', 'local_convolution_2d'):
        pair = _mod('connection.' + module)._pair
        assert pair(2) == (2, 2) and pair((1, 3)) == (1, 3)
    np.testing.assert_allclose(
        _mod('connection.convolution_2d')._matmul(np.ones((2, 2, 3)), np.ones((2, 3, 4))),
        np.full((2, 2, 4), 3.0))
    d = _mod('connection.deformable_convolution_2d_sampler')
    offset = np.zeros((1, 8, 2, 2))  # kh = kw = 2, no offsets: the regular grid
    grid = d._offset2grid(offset, 2, 2, 1, 1, 0, 0, 3, 3).array
    # Tap (0, 1) of output (1, 0) reads pixel (y, x) = (1, 1): the centre, 0 in [-1, 1].
    assert grid[0, 1, 1, 0] == 0.0 and grid[0, 4 + 1, 1, 0] == 0.0
    assert grid[0, 0, 0, 0] == -1.0 and grid[0, 3, 1, 1] == 1.0


def test_embed_id_and_linear_grad_nodes(chainer):
    embed_id, linear = _mod('connection.embed_id'), _mod('connection.linear')
    ids, gy = np.array([0, 2, 2, -1]), _r(4, 3)
    gW = embed_id.EmbedIDGrad((3, 3), -1).apply((ids, gy))[0].array
    np.testing.assert_allclose(gW, [gy[0], np.zeros(3), gy[1] + gy[2]])
    gW = embed_id.EmbedIDGrad((3, 3)).apply((ids[:3], gy[:3]))[0].array
    np.testing.assert_allclose(gW[2], gy[1] + gy[2])
    W, x, gy = _r(3, 4), _r(5, 4), _r(5, 3)
    gx, = _check(lambda W, gy: linear.LinearGradData().apply((W, gy)), (W, gy))
    np.testing.assert_allclose(gx.array, gy @ W)
    gW, = _check(lambda x, gy: linear.LinearGradWeight(np.float64).apply((x, gy)), (x, gy))
    np.testing.assert_allclose(gW.array, gy.T @ x)
    assert linear.LinearGradWeight(np.float32).apply((x, gy))[0].dtype == np.float32


# -- noise and evaluation ----------------------------------------------------------------------

def test_dropout_grad_nodes(chainer):
    dropout = _mod('noise.dropout')
    mask = (_r(3, 2) > 0) * 2.0
    gx, = _check(lambda gy: dropout.DropoutGrad(mask).apply((gy,)), (_r(3, 2),))
    np.testing.assert_allclose(dropout.DropoutGrad(mask).apply((np.ones((3, 2)),))[0].array,
                               mask)
    with pytest.raises(RuntimeError):
        dropout.DropoutGradCuDNN(None, 0.5).apply((np.ones(2),))


def test_simplified_dropconnect_helpers(chainer):
    sd = _mod('noise.simplified_dropconnect')
    x = _r(2, 3, 4)
    assert sd._as_mat(x).shape == (2, 12)
    y = _r(2, 3)
    assert sd._as_mat(y) is y
    a, b = _r(2, 3, 4), _r(2, 4, 5)
    np.testing.assert_allclose(sd._matmul(a, b, np), a @ b)


def test_evaluation_names(chainer):
    cs, r2 = _mod('evaluation.classification_summary'), _mod('evaluation.r2_score')
    p, r = np.array([0.5, 1.0], np.float32), np.array([0.5, 0.25], np.float32)
    f = cs._fbeta_score(p, r, 1.0)
    assert f.dtype == np.float32
    np.testing.assert_allclose(f, [0.5, 0.4])
    np.testing.assert_allclose(cs._fbeta_score(p, r, 2.0), 5 * p * r / (4 * p + r))
    pred, true = _r(5, 2), _r(5, 2)
    score = r2.R2_score(None, 'raw_values')(pred, true).array
    np.testing.assert_allclose(
        score, 1 - ((pred - true) ** 2).sum(0) / ((true - true.mean(0)) ** 2).sum(0))
    np.testing.assert_allclose(r2.R2_score(None, 'uniform_average').apply((pred, true))[0].array,
                               score.mean())
    with pytest.raises(ValueError):
        r2.R2_score(None, 'variance_weighted')


# -- Chainer's constructors of nodes chainlite already had -------------------------------------

@pytest.mark.parametrize('transc', [False, True])
def test_matmul_node_transc_and_dtype(chainer, transc):
    matmul = _mod('math.matmul')
    a, b = _r(2, 3, 4), _r(4, 5)
    y, = _check(lambda a, b: matmul.MatMul(False, False, transc).apply((a, b)), (a, b))
    np.testing.assert_allclose(y.array, (a @ b).swapaxes(-1, -2) if transc else a @ b)
    assert matmul.MatMul(dtype=np.float32).apply((a, b))[0].dtype == np.float32


def test_tensordot_node_chainer_signature(chainer):
    tensordot = _mod('math.tensordot')
    a, b = _r(2, 3, 4), _r(4, 3, 5)
    node = lambda a, b: tensordot.TensorDot(  # noqa
        a_axes=((0,), (1, 2)), b_axes=((1, 0), (2,)), c_axes=((1,), (0,))).apply((a, b))
    y, = _check(node, (a, b))
    np.testing.assert_allclose(y.array, np.einsum('ijk,kjl->li', a, b))
    y, = _check(lambda a, b: tensordot.TensorDot(([1, 2], [1, 0])).apply((a, b)), (a, b))
    np.testing.assert_allclose(y.array, np.tensordot(a, b, ([1, 2], [1, 0])))
    y = tensordot.TensorDot(axes=1, dtype=np.float32).apply((a, _r(4, 6)))[0]
    assert y.shape == (2, 3, 6) and y.dtype == np.float32
    with pytest.raises(ValueError, match='pair'):
        tensordot.TensorDot(axes=[1])
    with pytest.raises(TypeError):
        tensordot.TensorDot(axes=1.5)


def test_einsum_node_chainer_subscripts(chainer):
    einsum = _mod('math.einsum')
    a, b = _r(2, 3, 4), _r(4, 5)
    y, = _check(lambda a, b: einsum.EinSum('@j,jk', '@k').apply((a, b)), (a, b))
    np.testing.assert_allclose(y.array, a @ b)
    y = einsum.EinSum('ij,jk', 'ik').apply((_r(2, 3), _r(3, 4)))[0]
    assert y.shape == (2, 4)
