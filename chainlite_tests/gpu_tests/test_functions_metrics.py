"""The functions the GPU matrix (test_functions.py) leaves out, and the paths of the losses,
noise and evaluation functions that its single spec per function does not reach, on a GPU
array module against the CPU.

Evaluation metrics and the integer or piecewise-constant math functions (argmax, ceil, ...)
are in the matrix's SKIPPED; here each runs on the CPU and on the GPU (the strict CuPy
stand-in, or real CuPy under ``CHAINLITE_TEST_GPU=1``) with the same inputs: every result is
a GPU array of the CPU result's dtype and shape, with its values. The losses are also run with
``ignore_label``, ``reduce='no'``, class weights, variable lengths and their other options,
with first-order gradients (second-order where the function has them), and the random
functions draw their noise on the device.
"""
import os

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.backends import cuda

REAL_GPU = os.environ.get('CHAINLITE_TEST_GPU') == '1'
DTYPES = [numpy.float64, numpy.float32, numpy.float16]
_TOL = {numpy.dtype(numpy.float64): (1e-7, 1e-9), numpy.dtype(numpy.float32): (1e-4, 1e-5),
        numpy.dtype(numpy.float16): (2e-2, 2e-3)}


def _send(value, xp):
    # Host arrays (also inside lists) on xp's device; anything else as it is.
    if isinstance(value, numpy.ndarray):
        return value if xp is numpy else xp.asarray(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_send(v, xp) for v in value)
    return value


def _as_variables(value, leaves):
    # Float arrays become Variables (collected in leaves, the gradient's inputs).
    if isinstance(value, (list, tuple)):
        return type(value)(_as_variables(v, leaves) for v in value)
    if hasattr(value, 'dtype') and hasattr(value, 'shape') and value.dtype.kind == 'f':
        v = chainlite.Variable(value)
        leaves.append(v)
        return v
    return value


def _flatten(out):
    if isinstance(out, (list, tuple)):
        return [o for item in out for o in _flatten(item)]
    return [out]


def _run(f, args, xp, order):
    """Results of ``f(*args)`` on ``xp``'s device: outputs, then gradients to ``order``."""
    numpy.random.seed(0)  # the stand-in draws from NumPy's global state, as the CPU does
    seeds = numpy.random.RandomState(1)
    leaves = []
    out = _flatten(f(*_as_variables(_send(args, xp), leaves)))
    results = [o.array if isinstance(o, chainlite.Variable) else o for o in out]
    ys = [o for o in out if isinstance(o, chainlite.Variable) and o.dtype.kind == 'f'
          and o.creator is not None]
    if order < 1 or not ys:
        return results
    gys = [chainlite.Variable(xp.asarray(seeds.uniform(-1, 1, y.shape).astype(y.dtype)))
           for y in ys]
    gxs = chainlite.grad(ys, leaves, gys, enable_double_backprop=order > 1)
    results += [None if g is None else g.array for g in gxs]
    live = [g for g in gxs if g is not None and g.creator is not None]
    if order > 1 and live:
        ggs = [chainlite.Variable(xp.asarray(seeds.uniform(-1, 1, g.shape).astype(g.dtype)))
               for g in live]
        results += [None if g is None else g.array for g in chainlite.grad(live, leaves, ggs)]
    return results


def _compare(gpu_xp, f, *args, order=1, random=False):
    """Runs ``f`` on host copies and on device copies of ``args``; asserts equal results."""
    cpu = _run(f, args, numpy, order)
    gpu = _run(f, args, gpu_xp, order)
    assert len(gpu) == len(cpu)
    for i, (c, g) in enumerate(zip(cpu, gpu)):
        if c is None:
            assert g is None, i
            continue
        if not isinstance(c, numpy.ndarray):  # a Python value (a count, a flag)
            assert g == c, i
            continue
        assert isinstance(g, gpu_xp.ndarray), 'result %d is %s' % (i, type(g))
        assert g.dtype == c.dtype and g.shape == c.shape, (i, g.dtype, c.dtype)
        if REAL_GPU and random:
            continue
        if c.dtype.kind == 'f':
            rtol, atol = _TOL[c.dtype]
            if REAL_GPU:
                rtol, atol = max(rtol, 1e-5), max(atol, 1e-6)
            numpy.testing.assert_allclose(cuda.to_cpu(g), c, rtol=rtol, atol=atol,
                                          equal_nan=True, err_msg='result %d' % i)
        else:
            numpy.testing.assert_array_equal(cuda.to_cpu(g), c, err_msg='result %d' % i)
    return gpu


def _raises_alike(gpu_xp, f, *args):
    """``f`` raises on both devices: the same type and message."""
    errors = []
    for xp in (numpy, gpu_xp):
        with pytest.raises(Exception) as info:
            f(*_send(args, xp))
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0])
    assert str(errors[1]) == str(errors[0])
    return errors[0]


def _scores(dtype, *shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-2, 2, shape).astype(dtype)


def _ids(dtype=numpy.float32):
    return numpy.dtype(dtype).name


# -- evaluation -------------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('ignore_label', [None, -1, 2])
def test_accuracy(gpu_xp, dtype, ignore_label):
    y = _scores(dtype, 6, 3)
    t = numpy.array([0, 1, 2, -1, 1, 2], numpy.int32)
    out = _compare(gpu_xp, lambda y, t: F.accuracy(y, t, ignore_label), y,
                   numpy.abs(t) if ignore_label is None else t)
    assert out[0].dtype == dtype


def test_accuracy_of_several_axes_and_of_nothing(gpu_xp):
    y = _scores(numpy.float32, 2, 3, 4)
    t = numpy.array([[0, 1, 2, 1], [-1, -1, 0, 2]], numpy.int32)
    _compare(gpu_xp, lambda y, t: F.accuracy(y, t, ignore_label=-1), y, t)
    # Every label ignored: 0, as on the CPU.
    _compare(gpu_xp, lambda y, t: F.accuracy(y, t, ignore_label=-1), y, numpy.full((2, 4), -1))
    _compare(gpu_xp, F.accuracy, numpy.zeros((0, 3), numpy.float32),
             numpy.zeros(0, numpy.int32))


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
def test_binary_accuracy(gpu_xp, dtype):
    y = _scores(dtype, 4, 3)
    t = numpy.array([[0, 1, -1], [1, 1, 0], [-1, -1, -1], [0, 0, 1]], numpy.int32)
    _compare(gpu_xp, F.binary_accuracy, y, t)
    _compare(gpu_xp, F.binary_accuracy, y, numpy.full((4, 3), -1, numpy.int32))


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('multioutput', ['uniform_average', 'raw_values'])
def test_r2_score(gpu_xp, dtype, multioutput):
    pred = _scores(dtype, 5, 3)
    true = _scores(dtype, 5, 3, seed=1)
    true[:, 2] = 0.5  # a constant target scores 0
    _compare(gpu_xp, lambda p, t: F.r2_score(p, t, multioutput=multioutput), pred, true)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('label_num', [None, 4])
@pytest.mark.parametrize('ignore_label', [-1, 0])
def test_classification_summary_and_its_parts(gpu_xp, dtype, label_num, ignore_label):
    y = _scores(dtype, 8, 4)
    y[:, 3] = -5  # class 3 is never predicted: its precision is NaN
    t = numpy.array([0, 1, 2, 3, -1, 1, 0, 2], numpy.int32)
    t[t == -1] = ignore_label
    outs = _compare(gpu_xp, lambda y, t: F.classification_summary(
        y, t, label_num, beta=2.0, ignore_label=ignore_label), y, t)
    assert outs[3].dtype.kind == 'i'
    for f in (F.precision, F.recall, F.f1_score):
        _compare(gpu_xp, lambda y, t: f(y, t, label_num, ignore_label=ignore_label), y, t)
    _compare(gpu_xp, lambda y, t: F.fbeta_score(y, t, label_num, beta=0.5,
                                                 ignore_label=ignore_label), y, t)


def test_classification_summary_refuses_labels_out_of_range(gpu_xp):
    y = _scores(numpy.float32, 3, 2)
    e = _raises_alike(gpu_xp, lambda y, t: F.classification_summary(y, t, label_num=2),
                      y, numpy.array([0, 2, 1], numpy.int32))
    assert isinstance(e, ValueError) and 'label_num = 2' in str(e)


# -- integer and piecewise-constant math ------------------------------------------------------

@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('axis', [None, 0, 1])
@pytest.mark.parametrize('name', ['argmax', 'argmin'])
def test_argmax_argmin(gpu_xp, dtype, axis, name):
    x = _scores(dtype, 3, 4)
    out = _compare(gpu_xp, lambda x: getattr(F, name)(x, axis=axis), x)
    assert out[0].dtype.kind == 'i'


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('name', ['ceil', 'floor', 'fix', 'sign'])
def test_piecewise_constant_math(gpu_xp, dtype, name):
    x = _scores(dtype, 3, 4) * 3  # away from the integers' steps by chance: compared exactly
    _compare(gpu_xp, getattr(F, name), x)


# -- losses: options the matrix does not reach ------------------------------------------------

@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('options', [
    dict(), dict(reduce='no'), dict(normalize=False), dict(ignore_label=1),
    dict(cache_score=False), dict(enable_double_backprop=True), dict(class_weight='host'),
    dict(class_weight='device', reduce='no')], ids=str)
def test_softmax_cross_entropy_options(gpu_xp, dtype, options):
    options = dict(options)
    x = _scores(dtype, 5, 3)
    t = numpy.array([0, 2, -1, 1, 2], numpy.int32)
    t[t == -1] = options.get('ignore_label', -1)  # 1: an ignored label among the classes
    weight = options.pop('class_weight', None)
    if weight is not None:
        w = numpy.array([0.5, 2.0, 1.5], dtype)
        options['class_weight'] = w
        if weight == 'device':
            # A weight on the device is only given to the GPU run.
            def f(x, t):
                cw = w if isinstance(t, numpy.ndarray) else gpu_xp.asarray(w)
                return F.softmax_cross_entropy(x, t, **dict(options, class_weight=cw))
            _compare(gpu_xp, f, x, t, order=2)
            return
    _compare(gpu_xp, lambda x, t: F.softmax_cross_entropy(x, t, **options), x, t, order=2)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_softmax_cross_entropy_of_images_and_soft_targets(gpu_xp, dtype, reduce):
    x = _scores(dtype, 2, 3, 4)
    t = numpy.array([[0, 2, -1, 1], [2, 2, 0, -1]], numpy.int32)
    _compare(gpu_xp, lambda x, t: F.softmax_cross_entropy(x, t, reduce=reduce), x, t, order=2)
    soft = numpy.random.RandomState(3).dirichlet(numpy.ones(3), (2, 4)).transpose(0, 2, 1)
    for loss in ('cross-entropy', 'kl-divergence'):
        _compare(gpu_xp, lambda x, t: F.softmax_cross_entropy(
            x, t, reduce=reduce, soft_target_loss=loss), x, soft.astype(dtype), order=2)


def test_softmax_cross_entropy_checks_labels_on_the_gpu_in_debug_mode(gpu_xp):
    # As Chainer: outside debug mode the GPU reads no label on the host (no check).
    with chainlite.using_config('debug', True):
        e = _raises_alike(gpu_xp, F.softmax_cross_entropy, _scores(numpy.float32, 2, 3),
                          numpy.array([0, 5], numpy.int32))
    assert isinstance(e, ValueError) and 'x.shape[1] = 3' in str(e)
    with chainlite.using_config('debug', True):
        _compare(gpu_xp, F.softmax_cross_entropy, _scores(numpy.float32, 3, 3),
                 numpy.array([0, -1, 2], numpy.int32), order=2)


def test_softmax_cross_entropy_first_order_node(gpu_xp):
    # Chainer's first-order gradient node, which refuses double backprop.
    from chainlite.functions.loss import softmax_cross_entropy as sce
    x = _scores(numpy.float32, 4, 3)
    t = numpy.array([0, 2, -1, 1], numpy.int32)
    w = numpy.array([0.5, 2.0, 1.5], numpy.float32)

    def f(x, t):
        y = numpy.exp(x - x.max(axis=1, keepdims=True))
        cw = w if isinstance(x, numpy.ndarray) else gpu_xp.asarray(w)
        node = sce._SoftmaxCrossEntropyGrad_NoDoubleBackprop(
            -1, cw, y / y.sum(axis=1, keepdims=True), 0.25, False)
        return node.apply((x, t, x.sum() * 0 + 1))[0]
    _compare(gpu_xp, lambda x, t: f(x.array, t), x, t, order=0)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('options', [dict(), dict(reduce='no'), dict(normalize=False)],
                         ids=str)
def test_sigmoid_cross_entropy_options(gpu_xp, dtype, options):
    x = _scores(dtype, 3, 4)
    t = numpy.array([[0, 1, -1, 1], [1, 1, 0, -1], [-1, 0, 0, 1]], numpy.int32)
    _compare(gpu_xp, lambda x, t: F.sigmoid_cross_entropy(x, t, **options), x, t, order=2)


def test_sigmoid_cross_entropy_grad_node_and_bad_labels(gpu_xp):
    from chainlite.functions.loss import sigmoid_cross_entropy as sce
    x = _scores(numpy.float32, 2, 3)
    t = numpy.array([[0, 1, -1], [1, 0, 1]], numpy.int32)

    def f(x, t):
        node = sce.SigmoidCrossEntropyGrad('mean', 5, t != -1, t)
        return node.apply((x, x[0, 0] * 0 + 1))[0]
    _compare(gpu_xp, f, x, t, order=2)
    # The GPU's labels are checked in debug mode only (no host read otherwise, as Chainer).
    with chainlite.using_config('debug', True):
        e = _raises_alike(gpu_xp, F.sigmoid_cross_entropy, x,
                          numpy.full((2, 3), 2, numpy.int32))
        _compare(gpu_xp, F.sigmoid_cross_entropy, x, t, order=2)
    assert isinstance(e, ValueError)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('reduce', ['sum', 'mean', 'no'])
@pytest.mark.parametrize('name', ['bernoulli_nll', 'gaussian_kl_divergence'])
def test_two_input_likelihoods(gpu_xp, dtype, reduce, name):
    _compare(gpu_xp, lambda a, b: getattr(F, name)(a, b, reduce=reduce),
             _scores(dtype, 2, 3), _scores(dtype, 2, 3, seed=1), order=2)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('reduce', ['sum', 'mean', 'no'])
def test_gaussian_nll(gpu_xp, dtype, reduce):
    _compare(gpu_xp, lambda x, m, v: F.gaussian_nll(x, m, v, reduce=reduce),
             _scores(dtype, 2, 3), _scores(dtype, 2, 3, seed=1), _scores(dtype, 2, 3, seed=2),
             order=2)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
def test_pair_and_triplet_losses_per_row(gpu_xp, dtype):
    a, b, c = (_scores(dtype, 4, 3, seed=s) for s in range(3))
    y = numpy.array([1, 0, 0, 1], numpy.int32)
    _compare(gpu_xp, lambda a, b, y: F.contrastive(a, b, y, margin=3, reduce='no'), a, b, y,
             order=2)
    _compare(gpu_xp, lambda a, b, c: F.triplet(a, b, c, margin=4.0, reduce='no'), a, b, c,
             order=2)
    with chainlite.using_config('debug', True):  # the GPU's labels are read in debug mode
        e = _raises_alike(gpu_xp, F.contrastive, a, b, numpy.array([1, 2, 0, 1], numpy.int32))
    assert isinstance(e, ValueError)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
def test_covariance_losses_unreduced(gpu_xp, dtype):
    y, z = _scores(dtype, 5, 3), _scores(dtype, 5, 2, seed=1)
    _compare(gpu_xp, lambda y, z: F.cross_covariance(y, z, reduce='no'), y, z, order=2)
    _compare(gpu_xp, lambda h: F.decov(h, reduce='no'), y, order=2)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('norm', ['L1', 'L2'])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_hinge(gpu_xp, dtype, norm, reduce):
    x = numpy.array([[0.3, -0.4, 0.1], [-0.2, 0.45, 0.25]], dtype)  # margins away from 0
    t = numpy.array([0, 2], numpy.int32)
    _compare(gpu_xp, lambda x, t: F.hinge(x, t, norm, reduce), x, t)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
def test_elementwise_errors_unreduced(gpu_xp, dtype):
    a, b = _scores(dtype, 3, 4), _scores(dtype, 3, 4, seed=1)
    _compare(gpu_xp, lambda a, b: F.huber_loss(a, b, 1.0, reduce='no'), a, b, order=2)
    _compare(gpu_xp, F.absolute_error, a, b, order=2)
    _compare(gpu_xp, F.squared_error, a, b, order=2)
    _compare(gpu_xp, F.mean_absolute_error, a, b, order=2)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
def test_black_out_per_row(gpu_xp, dtype):
    x, W = _scores(dtype, 2, 3), _scores(dtype, 4, 3, seed=1)
    _compare(gpu_xp, lambda x, W, t, s: F.black_out(x, t, W, s, reduce='no'), x, W,
             numpy.array([0, 2], numpy.int32), numpy.array([[1, 3], [2, 0]], numpy.int32),
             order=2)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
def test_crf1d_of_sequences_of_several_lengths(gpu_xp, dtype):
    cost = _scores(dtype, 3, 3)
    xs = [_scores(dtype, 3, 3, seed=1), _scores(dtype, 2, 3, seed=2),
          _scores(dtype, 1, 3, seed=3)]
    ys = [numpy.array([0, 2, 1], numpy.int32), numpy.array([1, 1], numpy.int32),
          numpy.array([2], numpy.int32)]
    _compare(gpu_xp, lambda c, xs, ys: F.crf1d(c, xs, ys, reduce='no'), cost, xs, ys, order=2)
    out = _compare(gpu_xp, F.argmax_crf1d, cost, xs)
    assert [p.shape for p in out[1:4]] == [(3,), (2,), (1,)]


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_ctc_with_lengths(gpu_xp, dtype, reduce):
    x = [_scores(dtype, 2, 4, seed=s) for s in range(4)]
    t = numpy.array([[0, 1], [2, 2]], numpy.int32)
    il = numpy.array([4, 3], numpy.int32)
    ll = numpy.array([2, 1], numpy.int32)
    _compare(gpu_xp, lambda x, t, il, ll: F.connectionist_temporal_classification(
        x, t, 3, il, ll, reduce=reduce), x, t, il, ll, order=2)


def test_ctc_as_chainers_old_style_function(gpu_xp):
    from chainlite.functions.loss import ctc
    x = numpy.stack([_scores(numpy.float32, 2, 4, seed=s) for s in range(3)])
    t = numpy.array([[0, 1], [2, 2]], numpy.int32)
    lengths = numpy.array([3, 2], numpy.int32), numpy.array([2, 1], numpy.int32)

    def f(il, ll, t, x):
        func = ctc.ConnectionistTemporalClassification(3, 'no')
        return func(il, ll, t, x), func.yseq, func.path
    out = _compare(gpu_xp, f, *lengths, t, x)
    assert out[2].dtype == numpy.int32
    # The GPU's lengths are checked in debug mode only (no host read otherwise).
    with chainlite.using_config('debug', True):
        e = _raises_alike(gpu_xp, lambda x, t: F.connectionist_temporal_classification(
            list(x), t, 3, label_length=t[:, 0] * 0 + 5), x, t)
    assert isinstance(e, ValueError) and 'label_length' in str(e)


def _sampler(shape):
    # A host sampler (NumPy's draws, as WalkerAlias gives before it is sent to a GPU).
    return numpy.random.RandomState(7).randint(0, 5, shape)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
@pytest.mark.parametrize('reduce', ['sum', 'no'])
def test_negative_sampling_with_ignored_rows(gpu_xp, dtype, reduce):
    x, W = _scores(dtype, 3, 4), _scores(dtype, 5, 4, seed=1)
    t = numpy.array([1, -1, 3], numpy.int32)
    out = _compare(gpu_xp, lambda x, t, W: F.negative_sampling(
        x, t, W, _sampler, 2, reduce=reduce, return_samples=True), x, t, W, order=2)
    assert out[1].dtype == numpy.int32 and out[1].shape == (3, 3)


@pytest.mark.parametrize('reduce', ['sum', 'no'])
def test_negative_sampling_as_chainers_node(gpu_xp, reduce):
    from chainlite.functions.loss import negative_sampling as ns
    x, W = _scores(numpy.float32, 3, 4), _scores(numpy.float32, 5, 4, seed=1)
    t = numpy.array([1, -1, 3], numpy.int32)

    def f(x, t, W):
        node = ns.NegativeSamplingFunction(_sampler, 2, reduce)
        y = node.apply((x, t, W))[0]
        return y, node.samples
    out = _compare(gpu_xp, f, x, t, W, order=2)
    assert isinstance(out[1], gpu_xp.ndarray)


def test_discriminative_loss_l2(gpu_xp):
    emb = _scores(numpy.float32, 2, 3, 2, 2)
    labels = numpy.array([[[1, 2], [0, 3]], [[1, 1], [2, 0]]], numpy.int32)
    _compare(gpu_xp, lambda e, lab: F.discriminative_margin_based_clustering_loss(
        e, lab, 0.5, 1.5, 3, norm=2), emb, labels, order=2)


def test_hierarchical_softmax_on_the_device(gpu_xp):
    from chainlite.functions.loss import hierarchical_softmax as hsm
    tree = ((0, 1), (2, (3, 4)))
    x, W = _scores(numpy.float32, 3, 2), _scores(numpy.float32, 4, 2, seed=1)
    t = numpy.array([0, 3, 4], numpy.int32)
    func = hsm.BinaryHierarchicalSoftmaxFunction(tree, numpy.float32)
    _compare(gpu_xp, func, x, t, W, order=2)
    # Called on device arrays, it sent its tables there once (copies share them).
    assert len(func._sent) == 1
    assert isinstance(func.paths, numpy.ndarray)
    # to_device moves them, as Chainer's DeviceResident does.
    func.to_device('@cupy:0')
    assert isinstance(func.begins, gpu_xp.ndarray) and isinstance(func.codes, gpu_xp.ndarray)
    y = func(gpu_xp.asarray(x), gpu_xp.asarray(t), gpu_xp.asarray(W))
    assert isinstance(y.array, gpu_xp.ndarray)
    e = _raises_alike(gpu_xp, hsm.BinaryHierarchicalSoftmaxFunction(tree, numpy.float32),
                      x, numpy.array([0, 7, 1], numpy.int32), W)
    assert isinstance(e, ValueError)


# -- noise: drawn on the device ---------------------------------------------------------------

@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
def test_dropout_draws_on_the_device(gpu_xp, dtype):
    x = _scores(dtype, 3, 4)
    out = _compare(gpu_xp, lambda x: F.dropout(x, 0.4, return_mask=True), x, random=True)
    mask = out[1]
    assert isinstance(mask, gpu_xp.ndarray) and mask.dtype == dtype
    # The mask given back to a second call (on the device) gives the same output.
    y = F.dropout(gpu_xp.asarray(x), mask=mask)
    numpy.testing.assert_array_equal(cuda.to_cpu(y.array), cuda.to_cpu(out[0]))
    with chainlite.using_config('train', False):
        _compare(gpu_xp, lambda x: F.dropout(x, return_mask=True), x)


def test_dropout_grad_node(gpu_xp):
    from chainlite.functions.noise import dropout
    x = _scores(numpy.float32, 3, 4)
    mask = numpy.where(x > 0, 2.0, 0.0).astype(numpy.float32)

    def f(x, mask):
        return dropout.DropoutGrad(mask.array).apply((x,))[0]
    _compare(gpu_xp, f, x, mask, order=2)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
def test_gaussian_draws_on_the_device(gpu_xp, dtype):
    m, v = _scores(dtype, 2, 3), _scores(dtype, 2, 3, seed=1)
    out = _compare(gpu_xp, lambda m, v: F.gaussian(m, v, return_eps=True), m, v, order=2,
                   random=True)
    assert isinstance(out[1], gpu_xp.ndarray) and out[1].dtype == dtype
    # With the noise given (on the device): deterministic.
    eps = _scores(dtype, 2, 3, seed=2)
    _compare(gpu_xp, lambda m, v, e: F.gaussian(m, v, eps=e.array), m, v, eps, order=2)


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
def test_gumbel_softmax(gpu_xp, dtype):
    x = _scores(dtype, 2, 3)
    _compare(gpu_xp, lambda x: F.gumbel_softmax(x, 0.5, axis=1), x, order=2, random=True)
    _compare(gpu_xp, lambda x, tau: F.gumbel_softmax(x, tau), x,
             numpy.array([[0.5], [2.0]], dtype), order=2, random=True)
    _compare(gpu_xp, F.gumbel_softmax, numpy.array(0.3, dtype))


@pytest.mark.parametrize('dtype', DTYPES, ids=_ids)
def test_zoneout_and_dropconnect(gpu_xp, dtype):
    h, x = _scores(dtype, 3, 4), _scores(dtype, 3, 4, seed=1)
    _compare(gpu_xp, lambda h, x: F.zoneout(h, x, 0.3), h, x, order=2, random=True)
    W, b = _scores(dtype, 2, 4, seed=2), _scores(dtype, 2, seed=3)
    _compare(gpu_xp, lambda x, W, b: F.simplified_dropconnect(x, W, b, 0.4), x, W, b,
             order=2, random=True)
    _compare(gpu_xp, lambda x, W: F.simplified_dropconnect(x, W, None, 0.4,
                                                           use_batchwise_mask=False), x, W,
             order=2, random=True)
    mask = (numpy.random.RandomState(4).uniform(size=(3, 2, 4)) > 0.5).astype(dtype)
    _compare(gpu_xp, lambda x, W, m: F.simplified_dropconnect(x, W, None, mask=m.array), x,
             W, mask, order=2)
    _compare(gpu_xp, lambda x, W, b: F.simplified_dropconnect(x, W, b, train=False), x, W, b,
             order=2)


@pytest.mark.parametrize('reduce', ['half_squared_sum', 'no'])
def test_decov_as_chainers_old_style_function(gpu_xp, reduce):
    from chainlite.functions.loss import decov
    h = _scores(numpy.float32, 5, 3)

    def f(h):
        func = decov.DeCov(reduce)
        return func(h), func.covariance
    out = _compare(gpu_xp, f, h)
    assert float(abs(out[1]).diagonal().sum()) == 0
