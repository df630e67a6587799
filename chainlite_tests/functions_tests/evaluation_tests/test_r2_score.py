"""r2_score: against a direct formula, raw values, constant targets, dtypes, errors."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(pred, true):
    # Column by column, straight from the definition.
    pred = pred.reshape(len(pred), -1)
    true = true.reshape(len(true), -1)
    out = []
    for j in range(pred.shape[1]):
        res = sum((p - t) ** 2 for p, t in zip(pred[:, j], true[:, j]))
        mean = sum(true[:, j]) / len(true)
        tot = sum((t - mean) ** 2 for t in true[:, j])
        out.append(0.0 if tot == 0 else 1 - res / tot)
    return numpy.array(out)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(10,), (10, 3), (8, 2, 3)])
def test_forward(shape, dtype):
    rng = numpy.random.RandomState(0)
    true = rng.uniform(-1, 1, shape)
    pred = true + 0.3 * rng.uniform(-1, 1, shape)
    expected = _reference(pred, true)
    tol = 1e-2 if dtype == numpy.float16 else 1e-6
    raw = F.r2_score(pred.astype(dtype), true.astype(dtype), multioutput='raw_values')
    assert raw.dtype == dtype and raw.shape == shape[1:]
    numpy.testing.assert_allclose(raw.array.ravel(), expected, atol=tol, rtol=tol)
    avg = F.r2_score(chainlite.Variable(pred.astype(dtype)), true.astype(dtype))
    assert avg.dtype == dtype and avg.shape == ()
    numpy.testing.assert_allclose(avg.array, expected.mean(), atol=tol, rtol=tol)


def test_constant_target_scores_zero():
    true = numpy.array([[1.0, 0.0], [1.0, 2.0], [1.0, 4.0]])
    pred = numpy.array([[5.0, 0.0], [1.0, 2.0], [0.0, 4.0]])
    numpy.testing.assert_array_equal(
        F.r2_score(pred, true, multioutput='raw_values').array, [0.0, 1.0])


def test_not_differentiable():
    pred = chainlite.Variable(numpy.array([1.0, 2.0, 4.0]))
    score = F.r2_score(pred, numpy.array([1.0, 2.0, 3.0]))
    assert score.creator is None and not score.requires_grad


def test_errors():
    x = numpy.zeros((3, 2))
    with pytest.raises(ValueError, match='r2_score: sample_weight'):
        F.r2_score(x, x, sample_weight=numpy.ones(3))
    with pytest.raises(ValueError, match="r2_score: multioutput.*'variance_weighted'"):
        F.r2_score(x, x, multioutput='variance_weighted')
    with pytest.raises(type_check.InvalidType):
        F.r2_score(x, numpy.zeros((3, 3)))
    with pytest.raises(type_check.InvalidType):
        F.r2_score(x, numpy.zeros((3, 2), numpy.int32))
