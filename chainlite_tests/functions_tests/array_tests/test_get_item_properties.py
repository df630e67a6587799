"""F.get_item against NumPy on random shapes and random index expressions (hypothesis).

Every drawn index is one NumPy accepts: ints (negative too), slices with any step, None,
Ellipsis, integer arrays with repeated entries (as arrays, lists or tuples), boolean masks over
one or two axes, and mixtures of them whose advanced indexes broadcast together.
"""
import numpy
from hypothesis import assume
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import chainlite
import chainlite.functions as F
from chainlite import gradient_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SETTINGS = settings(max_examples=200, deadline=None, database=None)


def _int_array(draw, n, shape):
    # Entries drawn from a pool of one to three indexes (negative ones alias positive ones):
    # repeated entries, whose gradients add up, are the rule.
    if n == 0:
        return numpy.zeros((0,), numpy.intp)  # the only integer array an empty axis takes
    pool = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3))
    size = int(numpy.prod(shape))
    values = draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size))
    a = numpy.array(values, numpy.intp).reshape(shape)
    # NumPy reads a list, or a tuple inside the index tuple, as the same integer array.
    form = draw(st.sampled_from(['array', 'array', 'list', 'tuple']))
    if form == 'list':
        return a.tolist()
    if form == 'tuple' and a.ndim:
        return tuple(a.tolist())
    return a


def _slice(draw, n):
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
    step = st.one_of(st.none(), st.integers(-3, 3).filter(bool))
    return slice(draw(bound), draw(bound), draw(step))


@st.composite
def shapes_and_indexes(draw):
    ndim = draw(st.integers(0, 4))
    # Mostly 2 and 3 (where repeats and reversals show), but also 1 and empty axes.
    sizes = st.sampled_from([2, 3, 1, 3, 2, 0])
    shape = tuple(draw(st.lists(sizes, min_size=ndim, max_size=ndim)))
    # What each axis gets; a mask may cover two adjacent axes.
    kinds = []
    axis = 0
    while axis < len(shape):
        kind = draw(st.sampled_from(['array', 'slice', 'int', 'mask', 'array', 'mask2',
                                     'slice', 'full']))
        if kind == 'mask2' and axis + 1 == len(shape):
            kind = 'mask'
        kinds.append((kind, axis))
        axis += 2 if kind == 'mask2' else 1
    # Several masks turn into arrays of independent lengths, which rarely broadcast: the
    # masks after the first become full slices over the axes they covered.
    masks = [i for i, (k, _) in enumerate(kinds) if k in ('mask', 'mask2')]
    for i in reversed(masks[1:]):
        kind, axis = kinds[i]
        kinds[i:i + 1] = [('full', axis)] + ([('full', axis + 1)] if kind == 'mask2' else [])

    # Masks first: their number of True elements fixes the broadcast shape of the arrays.
    parts = {}
    mask_count = None
    for kind, axis in kinds:
        if kind in ('mask', 'mask2'):
            mshape = shape[axis:axis + (2 if kind == 'mask2' else 1)]
            size = int(numpy.prod(mshape))
            mask = numpy.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)),
                               bool).reshape(mshape)
            mask_count = int(mask.sum())
            parts[axis] = mask.tolist() if draw(st.booleans()) and mask.ndim == 1 else mask
    a, b = draw(st.sampled_from([2, 3, 1, 0])), draw(st.sampled_from([3, 2, 1, 0]))
    if mask_count is not None:
        b = mask_count
    array_shapes = [(b,), (a, b), (b,), (), (1,), (a, 1)]
    for kind, axis in kinds:
        n = shape[axis]
        if kind == 'int' and n == 0:
            kind = 'slice'  # an empty axis takes no integer
        if kind == 'int':
            value = draw(st.integers(-n, n - 1))
            parts[axis] = draw(st.sampled_from([value, numpy.int64(value)]))
        elif kind == 'slice':
            parts[axis] = _slice(draw, n)
        elif kind == 'full':
            parts[axis] = slice(None)
        elif kind == 'array':
            parts[axis] = _int_array(draw, n, draw(st.sampled_from(array_shapes)))
    index = [parts[axis] for _, axis in kinds]

    # Maybe an Ellipsis standing for a run of components (the axes they covered), or the
    # trailing components left out: NumPy fills in full slices both ways.
    start = draw(st.integers(0, len(index)))
    stop = draw(st.integers(start, len(index)))
    form = draw(st.sampled_from(['all', 'ellipsis', 'all', 'truncated']))
    if form == 'ellipsis':
        index = index[:start] + [Ellipsis] + index[stop:]
    elif form == 'truncated':
        index = index[:start]
    for _ in range(draw(st.integers(0, 2))):
        index.insert(draw(st.integers(0, len(index))), None)
    index = tuple(index)
    if len(index) == 1 and not isinstance(index[0], tuple) and draw(st.booleans()):
        index = index[0]  # a lone index, as in x[i]

    dtype = draw(st.sampled_from(DTYPES))
    x = numpy.random.RandomState(draw(st.integers(0, 2 ** 16))).uniform(-1, 1, shape)
    try:
        expected = x[index]
    except IndexError:
        assume(False)
    return x.astype(dtype), index, expected.astype(dtype)


def _reference_grad(x, index, gy):
    # The gradient by definition: each selected element gets the sum of its gradients.
    gx = numpy.zeros(x.shape)
    numpy.add.at(gx, index, gy)
    return gx


@SETTINGS
@given(shapes_and_indexes())
def test_forward_matches_numpy(case):
    x, index, expected = case
    for y in (F.get_item(chainlite.Variable(x), index), chainlite.Variable(x)[index],
              F.get_item(x, index)):
        assert isinstance(y.array, numpy.ndarray)
        assert y.shape == expected.shape
        assert y.dtype == x.dtype
        numpy.testing.assert_array_equal(y.array, expected)


@SETTINGS
@given(shapes_and_indexes(), st.integers(0, 2 ** 16))
def test_backward_matches_numerical_and_exact_gradients(case, seed):
    x, index, expected = case
    x = x.astype(numpy.float64)
    # Indexing is linear: any values will do.
    gy = numpy.random.RandomState(seed).uniform(-1, 1, expected.shape)
    v = chainlite.Variable(x)
    y = F.get_item(v, index)
    y.grad = gy
    y.backward()
    assert v.grad.shape == x.shape and v.grad.dtype == x.dtype
    # Repeated integer indexes must add up their gradients.
    numpy.testing.assert_allclose(v.grad, _reference_grad(x, index, gy), rtol=1e-15,
                                  atol=1e-15)
    gradient_check.check_backward(lambda x: F.get_item(x, index), (x,), (gy,))


@SETTINGS
@given(shapes_and_indexes(), st.integers(0, 2 ** 16))
def test_double_backward(case, seed):
    x, index, expected = case
    x = x.astype(numpy.float64)
    rs = numpy.random.RandomState(seed)
    gy, ggx = rs.uniform(-1, 1, expected.shape), rs.uniform(-1, 1, x.shape)
    gradient_check.check_double_backward(lambda x: F.get_item(x, index), (x,), (gy,), (ggx,))
    # Inside a nonlinear expression the first-order gradient depends on x.
    gradient_check.check_double_backward(lambda x: F.get_item(x * x, index), (x,), (gy,),
                                         (ggx,))


@SETTINGS
@given(shapes_and_indexes())
def test_gradient_keeps_the_dtype(case):
    x, index, expected = case
    v = chainlite.Variable(x)
    y = F.get_item(v, index)
    y.grad = numpy.ones(expected.shape, x.dtype)
    y.backward()
    assert v.grad.dtype == x.dtype
    assert v.grad.shape == x.shape
