"""L.EmbedID: W's shape and default initializer, lookup, ignore_label, backward, errors."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import initializers


def test_shape_and_default_initializer():
    embed = L.EmbedID(5, 3)
    assert embed.W.shape == (5, 3) and embed.W.dtype == np.float32
    # Chainer's default: a standard normal distribution.
    assert isinstance(embed.W.initializer, initializers.Normal)
    assert embed.W.initializer.scale == 1.0
    assert embed.ignore_label is None and L.EmbedID.ignore_label is None
    assert [n for n, _ in embed.namedparams()] == ['/W']
    assert str(embed) == 'EmbedID()'


def test_forward_looks_up_rows():
    W = np.arange(12.0).reshape(4, 3)
    embed = L.EmbedID(4, 3, initialW=W)
    x = np.array([[3, 0], [1, 1]], np.int32)
    y = embed(x)
    assert y.dtype == np.float32 and y.shape == (2, 2, 3)
    np.testing.assert_array_equal(y.array, W[x])
    np.testing.assert_array_equal(y.array, F.embed_id(x, embed.W).array)


def test_ignore_label_gives_zeros():
    embed = L.EmbedID(3, 2, initialW=1.0, ignore_label=-1)
    np.testing.assert_array_equal(embed(np.array([-1, 2], np.int32)).array, [[0, 0], [1, 1]])


def test_backward_accumulates_rows():
    embed = L.EmbedID(3, 2)
    embed.cleargrads()
    F.sum(embed(np.array([0, 2, 0], np.int32))).backward()
    np.testing.assert_array_equal(embed.W.grad, [[2, 2], [0, 0], [1, 1]])


def test_initializers_and_dtypes():
    embed = L.EmbedID(2, 2, initialW=initializers.Constant(3, dtype=np.float64))
    assert embed.W.dtype == np.float64
    with chainlite.using_config('dtype', np.float16):
        assert L.EmbedID(2, 2).W.dtype == np.float16


def test_from_params():
    W = np.arange(6, dtype=np.float32).reshape(3, 2)
    embed = L.EmbedID.from_params(chainlite.Variable(W), ignore_label=0)
    assert embed.W.shape == (3, 2) and embed.ignore_label == 0
    np.testing.assert_array_equal(embed.W.array, W)


def test_errors():
    with pytest.raises(ValueError, match=r'EmbedID: initialW .*\(3, 2\)'):
        L.EmbedID(3, 2, initialW=np.zeros((2, 2)))
    with pytest.raises(ValueError, match='embed_id'):
        L.EmbedID(3, 2)(np.array([3], np.int32))
