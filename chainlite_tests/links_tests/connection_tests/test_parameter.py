"""L.Parameter: holds the given array, returns it in the graph, serializes, errors."""
import numpy
import pytest

import chainlite
import chainlite.links as L
from chainlite import serializers


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_holds_the_array_and_returns_it(dtype):
    array = numpy.arange(6, dtype=dtype).reshape(2, 3)
    link = L.Parameter(array)
    assert link.W.array is array and link.W.dtype == dtype
    assert [name for name, _ in link.namedparams()] == ['/W']
    y = link()
    assert y is not link.W and y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, array)
    assert link(volatile='on').creator is not None


def test_gradient_reaches_w():
    link = L.Parameter(numpy.array([1.0, -2.0, 3.0]))
    loss = chainlite.functions.sum(link() ** 2)
    loss.backward()
    numpy.testing.assert_allclose(link.W.grad, [2.0, -4.0, 6.0])


def test_optimizer_updates_it():
    link = L.Parameter(numpy.array([1.0, 2.0], numpy.float32))
    opt = chainlite.optimizers.SGD(lr=0.5).setup(link)
    link.cleargrads()
    chainlite.functions.sum(link()).backward()
    opt.update()
    numpy.testing.assert_allclose(link.W.array, [0.5, 1.5])


def test_serialization_round_trip(tmp_path):
    src = L.Parameter(numpy.array([1.0, 2.0]))
    serializers.save_npz(str(tmp_path / 'p.npz'), src)
    dst = L.Parameter(numpy.zeros(2))
    serializers.load_npz(str(tmp_path / 'p.npz'), dst)
    numpy.testing.assert_array_equal(dst.W.array, [1.0, 2.0])


@pytest.mark.parametrize('bad', [3.0, [1.0, 2.0], None])
def test_non_array_rejected(bad):
    with pytest.raises(TypeError, match='Parameter: array must be an array'):
        L.Parameter(bad)
