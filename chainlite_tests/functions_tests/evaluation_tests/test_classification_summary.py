"""classification_summary, precision, recall, fbeta_score, f1_score: per-class counts
against a NumPy loop over the classes."""
import re

import numpy
import pytest

import chainlite
from chainlite.functions.evaluation.classification_summary import (
    classification_summary, f1_score, fbeta_score, precision, recall)
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPES = [((12, 4), (12,)), ((6, 3, 2), (6, 2))]


def _inputs(y_shape, t_shape, dtype=numpy.float64, seed=0):
    # Distinct scores: no ties in the argmax; every class has a true positive, so that no
    # score is 0 / 0.
    rs = numpy.random.RandomState(seed)
    while True:
        y = rs.permutation(numpy.prod(y_shape)).reshape(y_shape).astype(dtype)
        t = rs.randint(0, y_shape[1], t_shape).astype(numpy.int32)
        pred = y.argmax(axis=1)
        if all(((t == c) & (pred == c)).any() for c in range(y_shape[1])):
            return y, t


def _expected(y, t, n, beta=1.0, ignore_label=-1):
    pred, t = y.argmax(axis=1).ravel(), t.ravel()
    keep = t != ignore_label
    pred, t = pred[keep], t[keep]
    out = []
    for c in range(n):
        tp = ((pred == c) & (t == c)).sum()
        p, r = tp / (pred == c).sum(), tp / (t == c).sum()
        out.append((p, r, (1 + beta ** 2) * p * r / (beta ** 2 * p + r), (t == c).sum()))
    return [numpy.array(v) for v in zip(*out)]


@pytest.mark.parametrize('beta', [1.0, 0.5])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('y_shape, t_shape', SHAPES)
def test_forward(y_shape, t_shape, dtype, beta):
    y, t = _inputs(y_shape, t_shape, dtype)
    got = classification_summary(chainlite.Variable(y), t, beta=beta)
    want = _expected(y, t, y_shape[1], beta)
    for g, w in zip(got[:3], want[:3]):
        assert g.dtype == dtype and g.shape == (y_shape[1],)
        numpy.testing.assert_allclose(g.array, w, rtol=1e-3)
    assert got[3].dtype.kind == 'i'
    numpy.testing.assert_array_equal(got[3].array, want[3])


def test_shortcuts():
    y, t = _inputs((12, 4), (12,))
    p, r, f, s = _expected(y, t, 4)
    for func, want in ((precision, p), (recall, r), (f1_score, f)):
        got, support = func(y, t)
        numpy.testing.assert_allclose(got.array, want)
        numpy.testing.assert_array_equal(support.array, s)
    f2 = _expected(y, t, 4, beta=2.0)[2]
    numpy.testing.assert_allclose(fbeta_score(y, t, beta=2.0)[0].array, f2)


def test_label_num_and_ignore_label():
    y, t = _inputs((12, 4), (12,))
    # Three more instances, all ignored.
    y = numpy.concatenate([y, numpy.eye(4)[:3] + 100])
    t = numpy.concatenate([t, numpy.full(3, 5, numpy.int32)])
    got = classification_summary(y, t, label_num=4, ignore_label=5)
    for g, w in zip(got, _expected(y, t, 4, ignore_label=5)):
        numpy.testing.assert_allclose(g.array, w)
    # label_num larger than the labels: the extra class has support 0 and NaN recall.
    p, r, f, s = classification_summary(y, t, label_num=6, ignore_label=5)
    assert s.array[5] == 0 and numpy.isnan(r.array[5])


def test_outside_the_graph():
    y = chainlite.Variable(numpy.eye(3))
    for v in classification_summary(y, numpy.array([0, 1, 2])):
        assert v.creator is None and not v.requires_grad


def test_label_out_of_range():
    with pytest.raises(ValueError, match='classification_summary: each label'):
        classification_summary(numpy.eye(3), numpy.array([0, 1, 3]), label_num=3)


@pytest.mark.parametrize('y, t', [(numpy.zeros((3, 2)), numpy.zeros(2, numpy.int32)),
                                  (numpy.zeros((3, 2)), numpy.zeros(3)),
                                  (numpy.zeros((3, 2), numpy.int32), numpy.zeros(3, numpy.int32))])
def test_invalid_types(y, t):
    msg = re.escape('Invalid operation is performed in: ClassificationSummary (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        classification_summary(y, t)
