"""L.BatchRenormalization: BatchNormalization's parameters and keys, renormalized training
output, running statistics, test mode, recomputation."""
import io

import numpy

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import serializers


def _x(seed=0):
    return numpy.random.RandomState(seed).uniform(-3, 3, (6, 3, 2)).astype(numpy.float32)


def test_training_matches_the_function_and_updates_statistics():
    link = L.BatchRenormalization(3, rmax=2.0, dmax=1.0, decay=0.5)
    link.avg_mean[...] = [0.5, -0.5, 0.0]
    mean, var = link.avg_mean.copy(), link.avg_var.copy()
    x = _x()
    y = link(x)
    expected = F.batch_renormalization(x, numpy.ones(3, numpy.float32),
                                       numpy.zeros(3, numpy.float32), 2.0, 1.0, 2e-5,
                                       mean, var, 0.5, update_statistics=True)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-6)
    numpy.testing.assert_allclose(link.avg_mean, mean)   # both updated the same way
    assert not numpy.allclose(link.avg_mean, [0.5, -0.5, 0.0])


def test_test_mode_uses_running_statistics():
    link = L.BatchRenormalization(3)
    link.avg_mean[...] = [1, 2, 3]
    link.avg_var[...] = [4, 4, 4]
    x = _x()
    with chainlite.using_config('train', False):
        y = link(x)
    expected = (x - numpy.array([1, 2, 3])[:, None]) / numpy.sqrt(4 + 2e-5)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5)


def test_finetune_and_recompute():
    link = L.BatchRenormalization(3, rmax=2.0, dmax=1.0)
    x = _x()
    y1 = link(x, finetune=True)
    assert link.N == 1
    mean = link.avg_mean.copy()
    with chainlite.using_config('in_recomputing', True):
        y2 = link(x, finetune=True)
    assert link.N == 1
    numpy.testing.assert_array_equal(link.avg_mean, mean)
    numpy.testing.assert_allclose(y1.array, y2.array)


def test_parameters_and_serialization_keys():
    link = L.BatchRenormalization(3, use_beta=False)
    assert [n for n, _ in link.namedparams()] == ['/gamma']
    link.cleargrads()
    F.sum(link(_x()) ** 2).backward()
    assert link.gamma.grad.shape == (3,)
    buf = io.BytesIO()
    serializers.save_npz(buf, link)
    keys = set(numpy.load(io.BytesIO(buf.getvalue())).files)
    assert keys == {'gamma', 'avg_mean', 'avg_var', 'N'}
