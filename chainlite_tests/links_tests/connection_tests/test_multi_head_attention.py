"""MultiHeadAttention: parameters, a NumPy reference of the same math (masks, layouts,
weights), gradients, dropout, dtypes, clear errors, and PyTorch's nn.MultiheadAttention with
the same weights when torch is installed."""
import math

import numpy
import pytest

import chainlite
import chainlite.links as L
from chainlite import gradient_check

E, H = 8, 2


def _normal(shape, seed=0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).standard_normal(shape).astype(dtype)


def _link(dtype=numpy.float64, **kwargs):
    numpy.random.seed(0)
    with chainlite.using_config('dtype', numpy.dtype(dtype)):
        link = L.MultiHeadAttention(E, H, **kwargs)
    # Non-zero biases, so that a bias misplaced in the reference would show.
    for i, p in enumerate(link.params()):
        if p.ndim == 1:
            p.array[...] = _normal(p.shape, 100 + i, dtype)
    return link


def _reference(link, query, key, value, key_padding_mask=None, attn_mask=None,
               is_causal=False, average=True):
    """The layer in NumPy, batch first: (out, weights); all-blocked rows attend to nothing."""
    def project(lin, x):
        y = x @ lin.W.array.T
        return y if lin.b is None else y + lin.b.array

    def heads(x):
        n, length, _ = x.shape
        return x.reshape(n, length, H, E // H).transpose(0, 2, 1, 3)

    q, k, v = (heads(project(lin, x)) for lin, x in (
        (link.q_proj, query), (link.k_proj, key), (link.v_proj, value)))
    n, _, length, d = q.shape
    source = k.shape[2]
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d)
    blocked = numpy.zeros(scores.shape, bool)
    for m, shape in ((key_padding_mask, (n, 1, 1, source)), (attn_mask, None)):
        if m is None:
            continue
        m = numpy.asarray(m)
        if shape is None and m.ndim == 3:
            shape = (n, H, length, source)
        m = m.reshape(shape) if shape is not None else m
        if m.dtype == bool:
            blocked |= m
        else:
            scores = scores + m
    if is_causal:
        blocked |= numpy.triu(numpy.ones((length, source), bool), 1)
    scores = numpy.where(blocked | (scores == -numpy.inf), -numpy.inf, scores)
    dead = numpy.isneginf(scores).all(axis=-1, keepdims=True)
    e = numpy.exp(scores - numpy.where(dead, 0, scores.max(axis=-1, keepdims=True)))
    w = e / numpy.where(dead, 1, e.sum(axis=-1, keepdims=True))
    o = (w @ v).transpose(0, 2, 1, 3).reshape(n, length, E)
    return project(link.out_proj, o), (w.mean(axis=1) if average else w)


def test_parameters_in_declaration_order():
    link = L.MultiHeadAttention(E, H, kdim=3, vdim=5)
    assert [(name, p.shape) for name, p in link.namedparams()] == [
        ('/q_proj/W', (E, E)), ('/q_proj/b', (E,)), ('/k_proj/W', (E, 3)), ('/k_proj/b', (E,)),
        ('/v_proj/W', (E, 5)), ('/v_proj/b', (E,)), ('/out_proj/W', (E, E)),
        ('/out_proj/b', (E,))]
    assert all(p.dtype == numpy.float32 for p in link.params())
    assert link.head_dim == 4 and link.batch_first
    assert [name for name, _ in L.MultiHeadAttention(E, H, bias=False).namedparams()] == [
        '/q_proj/W', '/k_proj/W', '/v_proj/W', '/out_proj/W']


def test_default_initialization_is_glorot_uniform_for_the_input_projections():
    link = L.MultiHeadAttention(64, 4)
    bound = math.sqrt(6 / (64 + 64))
    for lin in (link.q_proj, link.k_proj, link.v_proj):
        assert 0.9 * bound < abs(lin.W.array).max() <= bound
        assert (lin.b.array == 0).all()
    assert (link.out_proj.b.array == 0).all()


@pytest.mark.parametrize('kwargs, shapes', [
    ({}, ((3, 4, E),) * 3),
    ({'kdim': 3, 'vdim': 5}, ((3, 4, E), (3, 6, 3), (3, 6, 5))),
    ({'bias': False}, ((2, 5, E), (2, 3, E), (2, 3, E))),
])
@pytest.mark.parametrize('average', [True, False])
def test_forward_matches_numpy(kwargs, shapes, average):
    link = _link(**kwargs)
    query, key, value = (_normal(s, seed=i) for i, s in enumerate(shapes))
    y, w = link(query, key, value, need_weights=True, average_attn_weights=average)
    expected_y, expected_w = _reference(link, query, key, value, average=average)
    numpy.testing.assert_allclose(y.array, expected_y, rtol=1e-12, atol=1e-12)
    numpy.testing.assert_allclose(w.array, expected_w, rtol=1e-12, atol=1e-12)


def test_key_and_value_default_to_query():
    link = _link()
    x = _normal((2, 4, E))
    numpy.testing.assert_array_equal(link(x).array, link(x, x, x).array)
    k = _normal((2, 3, E), seed=1)
    numpy.testing.assert_array_equal(link(x, k).array, link(x, k, k).array)
    assert isinstance(link(x), chainlite.Variable)


def _padding():
    mask = numpy.zeros((3, 5), bool)
    mask[1, 3:] = True
    mask[2, 4] = True
    return mask


def _masks():
    rng = numpy.random.RandomState(9)
    blocked = rng.uniform(size=(4, 5)) > 0.6
    blocked[:, 0] = False
    return [
        ('key_padding_mask bool', {'key_padding_mask': _padding()}),
        ('key_padding_mask float', {'key_padding_mask': rng.uniform(-2, 2, (3, 5))}),
        ('attn_mask bool (L, S)', {'attn_mask': blocked}),
        ('attn_mask bool (N * H, L, S)', {'attn_mask': rng.uniform(size=(3 * H, 4, 5)) > 0.8}),
        ('attn_mask float (L, S)', {'attn_mask': rng.uniform(-2, 2, (4, 5))}),
        ('attn_mask float (N, 1, L, S)', {'attn_mask': rng.uniform(-2, 2, (3, 1, 4, 5))}),
        ('both bool, causal', {'key_padding_mask': _padding(), 'attn_mask': blocked,
                               'is_causal': True}),
        ('bool and float', {'key_padding_mask': _padding(),
                            'attn_mask': rng.uniform(-2, 2, (4, 5))}),
        ('causal', {'is_causal': True}),
    ]


@pytest.mark.parametrize('name, masks', _masks(), ids=lambda v: v if isinstance(v, str) else '')
def test_masks_match_numpy(name, masks):
    link = _link()
    query = _normal((3, 4, E))
    key = _normal((3, 5, E), seed=1)
    y, w = link(query, key, need_weights=True, average_attn_weights=False, **masks)
    expected_y, expected_w = _reference(link, query, key, key, average=False, **masks)
    numpy.testing.assert_allclose(y.array, expected_y, rtol=1e-12, atol=1e-12)
    numpy.testing.assert_allclose(w.array, expected_w, rtol=1e-12, atol=1e-12)


def test_key_padding_mask_true_means_padded():
    link = _link()
    query, key = _normal((3, 4, E)), _normal((3, 5, E), seed=1)
    _, w = link(query, key, key_padding_mask=_padding(), need_weights=True)
    assert (w.array[1, :, 3:] == 0).all() and (w.array[2, :, 4] == 0).all()
    assert (w.array[0] > 0).all()
    # Padded keys do not matter: changing them changes nothing.
    key2 = key.copy()
    key2[1, 3:] = 100
    y1 = link(query, key, key_padding_mask=_padding()).array
    y2 = link(query, key2, key_padding_mask=_padding()).array
    numpy.testing.assert_allclose(y1, y2, rtol=1e-13)


def test_attn_mask_true_means_blocked():
    link = _link()
    blocked = numpy.zeros((4, 4), bool)
    blocked[:, 2] = True
    _, w = link(_normal((1, 4, E)), attn_mask=blocked, need_weights=True)
    assert (w.array[..., 2] == 0).all() and (w.array[..., [0, 1, 3]] > 0).all()


def test_fully_padded_sequence_gives_the_output_bias():
    link = _link()
    padding = numpy.zeros((2, 5), bool)
    padding[1] = True
    with numpy.errstate(all='raise'):
        y = link(_normal((2, 4, E)), _normal((2, 5, E), seed=1), key_padding_mask=padding)
    numpy.testing.assert_allclose(y.array[1], numpy.broadcast_to(link.out_proj.b.array, (4, E)))
    assert numpy.isfinite(y.array).all()


def test_batch_second_and_unbatched_layouts():
    batched = _link()
    query, key = _normal((3, 4, E)), _normal((3, 5, E), seed=1)
    y, w = batched(query, key, key_padding_mask=_padding(), need_weights=True)
    seq_first = _link(batch_first=False)
    y2, w2 = seq_first(query.swapaxes(0, 1), key.swapaxes(0, 1), key_padding_mask=_padding(),
                       need_weights=True)
    numpy.testing.assert_allclose(y2.array, y.array.swapaxes(0, 1), rtol=1e-13)
    numpy.testing.assert_allclose(w2.array, w.array, rtol=1e-13)  # weights: always (N, L, S)
    y3, w3 = batched(query[1], key[1], key_padding_mask=_padding()[1], need_weights=True)
    numpy.testing.assert_allclose(y3.array, y.array[1], rtol=1e-13)
    numpy.testing.assert_allclose(w3.array, w.array[1], rtol=1e-13)


def test_gradients():
    link = _link(kdim=3)
    query, key, value = _normal((2, 3, E)), _normal((2, 4, 3), seed=1), _normal((2, 4, E), 2)
    padding = numpy.array([[False, False, False, True], [False, False, False, False]])

    def func(query, key, value):
        return link(query, key, value, key_padding_mask=padding, is_causal=True)
    gy = _normal((2, 3, E), seed=3)
    gradient_check.check_backward(func, (query, key, value), gy, params=list(link.params()))
    gradient_check.check_double_backward(
        func, (query, key, value), gy,
        tuple(_normal(x.shape, seed=4 + i) for i, x in enumerate((query, key, value))))


def test_dropout_only_in_training():
    link = _link(dropout=0.5)
    x = _normal((2, 4, E))
    with chainlite.using_config('train', False):
        y_test = link(x).array
    numpy.testing.assert_allclose(y_test, _reference(link, x, x, x)[0], rtol=1e-12)
    numpy.random.seed(0)
    y_train = link(x).array
    assert not numpy.allclose(y_train, y_test)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_is_kept(dtype):
    link = _link(dtype)
    x = chainlite.Variable(_normal((2, 4, E), dtype=dtype))
    y, w = link(x, key_padding_mask=_padding()[:2, :4], need_weights=True)
    assert y.dtype == dtype and w.dtype == dtype
    y.grad = numpy.ones(y.shape, dtype)
    y.backward()
    assert x.grad.dtype == dtype and link.q_proj.W.grad.dtype == dtype
    expected = _reference(link, *(x.array.astype(numpy.float64),) * 3,
                          key_padding_mask=_padding()[:2, :4])[0]
    numpy.testing.assert_allclose(y.array, expected, rtol=2e-2 if dtype == numpy.float16 else
                                  1e-5, atol=2e-2 if dtype == numpy.float16 else 1e-5)


@pytest.mark.parametrize('make, error, message', [
    (lambda: L.MultiHeadAttention(10, 3), ValueError,
     'MultiHeadAttention: num_heads=3 must divide embed_dim=10'),
    (lambda: L.MultiHeadAttention(8, 0), ValueError,
     'MultiHeadAttention: num_heads must be at least 1, got 0'),
    (lambda: L.MultiHeadAttention(8.0, 2), TypeError,
     'MultiHeadAttention: embed_dim must be an int, got 8.0'),
    (lambda: L.MultiHeadAttention(8, 2, dropout=1.0), ValueError,
     'MultiHeadAttention: dropout must be in the range [0, 1), got 1.0'),
    (lambda: L.MultiHeadAttention(8, 2, kdim=0), ValueError,
     'MultiHeadAttention: kdim must be at least 1, got 0'),
], ids=lambda v: v if isinstance(v, str) else '')
def test_constructor_arguments_are_checked(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert message in str(info.value)


@pytest.mark.parametrize('args, kwargs, message', [
    (((2, 4, 6),), {}, 'MultiHeadAttention: query has 6 features (shape (2, 4, 6)) but the '
                       'link was built for embed_dim=8'),
    (((2, 4, E), (2, 5, E), (2, 5, 3)), {},
     'value has 3 features (shape (2, 5, 3)) but the link was built for vdim=8'),
    (((2, 4, E), (3, 5, E), (3, 5, E)), {},
     'query, key and value must have one batch size (axis 0), got query.shape=(2, 4, 8), '
     'key.shape=(3, 5, 8), value.shape=(3, 5, 8)'),
    (((2, 4, E), (2, 5, E), (2, 6, E)), {},
     'key and value must have one length S (axis 1), got key.shape=(2, 5, 8), '
     'value.shape=(2, 6, 8)'),
    (((2, 1, 4, E),), {}, 'query, key and value must all be (N, L, E), or all (L, E) for one '
                          'unbatched sequence; got query.shape=(2, 1, 4, 8)'),
    (((2, 4, E),), {'key_padding_mask': numpy.zeros((2, 3), bool)},
     'key_padding_mask must have shape (N, S) = (2, 4), got (2, 3)'),
    (((2, 4, E),), {'attn_mask': numpy.zeros((3, 4), bool)},
     'attn_mask must have shape (L, S) = (4, 4), (N * num_heads, L, S) = (4, 4, 4) or one '
     'broadcastable to (N, num_heads, L, S) = (2, 2, 4, 4), got (3, 4)'),
    (((2, 4, E),), {'attn_mask': numpy.zeros((4, 4), numpy.int64)},
     'a mask must be bool or float, got dtype int64'),
], ids=lambda v: v if isinstance(v, str) else '')
def test_bad_inputs_name_the_argument_and_the_shapes(args, kwargs, message):
    link = L.MultiHeadAttention(E, H)
    inputs = [numpy.zeros(s, numpy.float32) for s in args]
    with pytest.raises((ValueError, TypeError)) as info:
        link(*inputs, **kwargs)
    assert message in str(info.value)


# -- PyTorch ----------------------------------------------------------------------------------

def _torch_twin(torch, link, **kwargs):
    mha = torch.nn.MultiheadAttention(E, H, dtype=torch.float64, **kwargs)
    t = lambda a: torch.tensor(a, dtype=torch.float64)  # noqa: E731
    with torch.no_grad():
        ws = [link.q_proj.W.array, link.k_proj.W.array, link.v_proj.W.array]
        if mha._qkv_same_embed_dim:
            mha.in_proj_weight.copy_(t(numpy.concatenate(ws)))
        else:
            mha.q_proj_weight.copy_(t(ws[0]))
            mha.k_proj_weight.copy_(t(ws[1]))
            mha.v_proj_weight.copy_(t(ws[2]))
        if mha.in_proj_bias is not None:
            mha.in_proj_bias.copy_(t(numpy.concatenate(
                [link.q_proj.b.array, link.k_proj.b.array, link.v_proj.b.array])))
            mha.out_proj.bias.copy_(t(link.out_proj.b.array))
        mha.out_proj.weight.copy_(t(link.out_proj.W.array))
    return mha.eval()


def _torch_masks(masks):
    # The same masks as PyTorch takes them: its is_causal is only a hint that attn_mask is
    # causal, and it wants both masks bool or both float.
    masks = dict(masks)
    if masks.pop('is_causal', False):
        causal = numpy.triu(numpy.ones((4, 5), bool), 1)
        masks['attn_mask'] = causal | masks.get('attn_mask', False)
    if len({m.dtype.kind for m in masks.values()}) > 1:
        masks = {name: numpy.where(m, -numpy.inf, 0.0) if m.dtype == bool else m
                 for name, m in masks.items()}
    return masks


@pytest.mark.parametrize('kwargs', [
    {}, {'kdim': 3, 'vdim': 5}, {'bias': False}, {'batch_first': False}],
    ids=['self', 'kdim-vdim', 'no-bias', 'batch-second'])
@pytest.mark.parametrize('name, masks', [m for m in _masks() if '(N, 1, L, S)' not in m[0]] +
                         [('none', {})], ids=lambda v: v if isinstance(v, str) else '')
def test_matches_torch(kwargs, name, masks):
    torch = pytest.importorskip('torch')
    kwargs = dict(kwargs, batch_first=kwargs.get('batch_first', True))
    link = _link(**kwargs)
    mha = _torch_twin(torch, link, **kwargs)
    kdim, vdim = kwargs.get('kdim', E), kwargs.get('vdim', E)
    query, key, value = _normal((3, 4, E)), _normal((3, 5, kdim), 1), _normal((3, 5, vdim), 2)
    if not kwargs['batch_first']:
        query, key, value = (a.swapaxes(0, 1).copy() for a in (query, key, value))
    gy = _normal(query.shape, seed=3)
    ours = [chainlite.Variable(a) for a in (query, key, value)]
    y, w = link(*ours, need_weights=True, average_attn_weights=False, **masks)
    link.cleargrads()
    y.grad = gy
    y.backward()
    theirs = [torch.tensor(a, requires_grad=True) for a in (query, key, value)]
    torch_masks = {name: torch.tensor(m) for name, m in _torch_masks(masks).items()}
    ty, tw = mha(*theirs, need_weights=True, average_attn_weights=False, **torch_masks)
    (ty * torch.tensor(gy)).sum().backward()
    numpy.testing.assert_allclose(y.array, ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(w.array, tw.detach().numpy(), rtol=1e-10, atol=1e-12)
    for x, tx in zip(ours, theirs):
        numpy.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(link.out_proj.W.grad, mha.out_proj.weight.grad.numpy(),
                                  rtol=1e-10, atol=1e-12)


def test_scaled_dot_product_attention_matches_torch():
    torch = pytest.importorskip('torch')
    import chainlite.functions as F
    q, k, v = _normal((2, 3, 4, 5)), _normal((2, 1, 6, 5), 1), _normal((2, 1, 6, 3), 2)
    rng = numpy.random.RandomState(5)
    allowed = rng.uniform(size=(4, 6)) > 0.4
    allowed[:, 0] = True
    for kwargs in ({}, {'mask': allowed}, {'mask': rng.uniform(-2, 2, (3, 4, 6))},
                   {'is_causal': True}, {'scale': 0.3}):
        y = F.scaled_dot_product_attention(q, k, v, **kwargs)
        targs = {'attn_mask' if name == 'mask' else name: torch.tensor(a) if name == 'mask'
                 else a for name, a in kwargs.items()}
        ty = torch.nn.functional.scaled_dot_product_attention(
            *(torch.tensor(a) for a in (q, k, v)), **targs)
        numpy.testing.assert_allclose(y.array, ty.numpy(), rtol=1e-10, atol=1e-12)
