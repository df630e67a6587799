"""L.Inception and L.InceptionBN: link names, output channels, forward against the paths."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L


def test_inception_forward_against_its_paths():
    inc = L.Inception(3, 2, 2, 3, 2, 4, 5)
    assert [n for n, _ in inc.namedlinks(skipself=True)] == [
        '/conv1', '/proj3', '/conv3', '/proj5', '/conv5', '/projp']
    x = numpy.random.RandomState(0).randn(2, 3, 5, 5).astype(numpy.float32)
    expected = F.relu(F.concat((
        inc.conv1(x), inc.conv3(F.relu(inc.proj3(x))), inc.conv5(F.relu(inc.proj5(x))),
        inc.projp(F.max_pooling_2d(x, 3, 1, 1))), axis=1))
    y = inc(x)
    assert y.shape == (2, 14, 5, 5)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-6)


@pytest.mark.parametrize('pooltype', ['max', 'avg'])
def test_inceptionbn_shapes(pooltype):
    x = numpy.random.RandomState(0).randn(2, 3, 6, 6).astype(numpy.float32)
    inc = L.InceptionBN(3, 2, 2, 3, 2, 4, pooltype, proj_pool=5)
    assert inc(x).shape == (2, 14, 6, 6)
    down = L.InceptionBN(3, 0, 2, 3, 2, 4, pooltype, stride=2)
    assert not hasattr(down, 'conv1') and not hasattr(down, 'poolp')
    assert down(x).shape == (2, 3 + 4 + 3, 3, 3)


def test_inceptionbn_test_mode_uses_running_statistics():
    x = numpy.random.RandomState(1).randn(4, 3, 4, 4).astype(numpy.float32)
    inc = L.InceptionBN(3, 2, 2, 3, 2, 4, 'max', proj_pool=2)
    inc(x)
    assert numpy.abs(inc.proj3n.avg_mean).sum() > 0
    with chainlite.using_config('train', False):
        y1, y2 = inc(x[:1]), inc(x[:2])
    numpy.testing.assert_allclose(y1.array, y2.array[:1], rtol=1e-5, atol=1e-6)


def test_inceptionbn_errors():
    with pytest.raises(NotImplementedError, match='pooltype'):
        L.InceptionBN(3, 2, 2, 3, 2, 4, 'median', proj_pool=2)
    with pytest.raises(AssertionError, match='stride'):
        L.InceptionBN(3, 2, 2, 3, 2, 4, 'max', proj_pool=2, stride=2)
    with pytest.raises(ValueError, match='proj_pool'):
        L.InceptionBN(3, 2, 2, 3, 2, 4, 'max')
