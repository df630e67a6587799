"""Tests of chainlite.utils.conv_nd: tuples of parameters and N-d patch extraction."""
import itertools

import numpy
import pytest

from chainlite.utils import conv
from chainlite.utils import conv_nd


def test_as_tuple():
    assert conv_nd.as_tuple(1, 3) == (1, 1, 1)
    assert conv_nd.as_tuple([1, 2, 3], 3) == (1, 2, 3)
    for error in (ValueError, AssertionError):      # chainlite's and Chainer's
        with pytest.raises(error, match='expected 3 values'):
            conv_nd.as_tuple((1,), 3)


def test_get_conv_outsize_is_there_as_in_chainer():
    assert conv_nd.get_conv_outsize is conv.get_conv_outsize
    assert conv_nd.get_conv_outsize(10, 2, 2, 2) == 7


@pytest.mark.parametrize('dims', [(5,), (5, 4), (4, 3, 3)])
@pytest.mark.parametrize('ksize, stride, pad', [(1, 1, 1), (2, 2, 2), ((1, 2, 1), (2, 1, 2),
                                                                          (1, 2, 1))])
def test_im2col_nd_against_loops(dims, ksize, stride, pad):
    nd = len(dims)
    ksize, stride, pad = [conv_nd.as_tuple(v, nd) if isinstance(v, int) else v[:nd]
                          for v in (ksize, stride, pad)]
    img = numpy.random.RandomState(0).uniform(-1, 1, (2, 3) + dims)
    col = conv_nd.im2col_nd(img, ksize, stride, pad)
    outs = tuple(conv_nd.get_conv_outsize(d, k, s, p)
                 for d, k, s, p in zip(dims, ksize, stride, pad))
    assert col.shape == (2, 3) + ksize + outs
    for xs in itertools.product(*[range(o) for o in outs]):
        for dxs in itertools.product(*[range(k) for k in ksize]):
            src = tuple(x * s - p + dx for x, s, p, dx in zip(xs, stride, pad, dxs))
            got = col[(slice(None), slice(None)) + dxs + xs]
            if all(0 <= o < d for o, d in zip(src, dims)):
                numpy.testing.assert_array_equal(got, img[(slice(None), slice(None)) + src])
            else:
                numpy.testing.assert_array_equal(got, 0)


@pytest.mark.parametrize('args', [((2,), (1, 1), (0, 0)), ((2, 2), (1,), (0, 0)),
                                  ((2, 2), (1, 1), (0,))])
def test_im2col_nd_checks_the_lengths(args):
    img = numpy.zeros((2, 3, 4, 3))
    for error in (ValueError, AssertionError):
        with pytest.raises(error, match='one value per spatial axis'):
            conv_nd.im2col_nd_cpu(img, *args)


def test_col2im_nd_checks_the_ranks():
    col = numpy.ones((2, 3, 2, 2, 3, 2))
    img = conv_nd.col2im_nd_cpu(col, (1, 1), (0, 0), (4, 3))
    assert img.shape == (2, 3, 4, 3)
    for bad in [(numpy.ones((2, 3, 2, 3, 2)), (1, 1), (0, 0)), (col, (1,), (0, 0)),
                (col, (1, 1), (0,))]:
        with pytest.raises(AssertionError, match='col2im_nd_cpu'):
            conv_nd.col2im_nd_cpu(bad[0], bad[1], bad[2], (4, 3))
