"""L.DecorrelatedBatchNormalization: statistics' shapes, training/test forward, fine-tuning,
serialization (with Chainer's pre-v7 layout)."""
import io
import warnings

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import serializers


def _x(seed=0):
    rng = numpy.random.RandomState(seed)
    x = rng.randn(16, 4, 3)
    return (x + 0.5 * numpy.roll(x, 1, axis=1)).astype(numpy.float32)


def test_initial_statistics():
    link = L.DecorrelatedBatchNormalization(6, groups=3)
    assert link.avg_mean.shape == (3, 2) and link.avg_projection.shape == (3, 2, 2)
    numpy.testing.assert_array_equal(link.avg_projection, numpy.stack([numpy.eye(2)] * 3))
    assert list(link.namedparams()) == []


def test_training_and_test_forward():
    link = L.DecorrelatedBatchNormalization(4, groups=2, decay=0.0)
    x = _x()
    y = link(x)
    expected = F.decorrelated_batch_normalization(x, groups=2)
    numpy.testing.assert_allclose(y.array, expected.array, rtol=1e-4, atol=1e-5)
    # With decay 0 the running statistics are this batch's (projection with m / (m - 1)).
    with chainlite.using_config('train', False):
        y_test = link(x)
    m = 48
    numpy.testing.assert_allclose(y_test.array, y.array * m / (m - 1), rtol=1e-3, atol=1e-4)


def test_finetune_counts():
    link = L.DecorrelatedBatchNormalization(4, groups=2)
    link(_x(), finetune=True)
    link(_x(1), finetune=True)
    assert link.N == 2
    link.start_finetuning()
    assert link.N == 0


def test_serialization_roundtrip_and_old_layout():
    link = L.DecorrelatedBatchNormalization(4, groups=2)
    link(_x())
    buf = io.BytesIO()
    serializers.save_npz(buf, link)
    other = L.DecorrelatedBatchNormalization(4, groups=2)
    serializers.load_npz(io.BytesIO(buf.getvalue()), other)
    numpy.testing.assert_array_equal(other.avg_projection, link.avg_projection)
    old = {'avg_mean': numpy.arange(2, dtype=numpy.float32),
           'avg_projection': 2 * numpy.eye(2, dtype=numpy.float32), 'N': numpy.array(0)}
    with pytest.warns(UserWarning, match='old'):
        serializers.NpzDeserializer(old).load(other)
    numpy.testing.assert_array_equal(other.avg_mean, [[0, 1], [0, 1]])
    one = L.DecorrelatedBatchNormalization(2, groups=1)
    with warnings.catch_warnings():
        warnings.simplefilter('error')   # one group: the old layout is the same thing
        serializers.NpzDeserializer(old).load(one)
    numpy.testing.assert_array_equal(one.avg_projection[0], 2 * numpy.eye(2))


def test_size_must_divide():
    with pytest.raises(ValueError, match='multiple'):
        L.DecorrelatedBatchNormalization(5, groups=2)
