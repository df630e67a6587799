"""BinaryHierarchicalSoftmaxFunction: tree parsing, a distribution over the words, gradients."""
import numpy
import pytest

from chainlite.functions.loss.hierarchical_softmax import BinaryHierarchicalSoftmaxFunction
from chainlite.testing import gradients
from chainlite.utils import type_check

TREE = ((0, 1), ((2, 3), 4))


def test_parse():
    f = BinaryHierarchicalSoftmaxFunction(TREE, numpy.float32)
    # Internal nodes in pre-order: root 0, (0, 1) -> 1, ((2, 3), 4) -> 2, (2, 3) -> 3.
    assert f.parser_size == 4
    numpy.testing.assert_array_equal(f.begins, [0, 2, 4, 7, 10, 12])
    numpy.testing.assert_array_equal(f.paths, [0, 1, 0, 1, 0, 2, 3, 0, 2, 3, 0, 2])
    numpy.testing.assert_array_equal(f.codes, [1, 1, 1, -1, -1, 1, 1, -1, 1, -1, -1, -1])
    assert f.codes.dtype == numpy.float32 and f.paths.dtype == numpy.int32


def test_deep_tree_has_no_recursion_limit():
    tree = 0
    for i in range(1, 3000):
        tree = (tree, i)
    f = BinaryHierarchicalSoftmaxFunction(tree, numpy.float64)
    assert f.parser_size == 2999 and f.begins[-1] == f.paths.size


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_probabilities_sum_to_one(dtype):
    f = BinaryHierarchicalSoftmaxFunction(TREE, dtype)
    rs = numpy.random.RandomState(0)
    W = rs.uniform(-1, 1, (4, 3)).astype(dtype)
    x = rs.uniform(-1, 1, (1, 3)).astype(dtype)
    losses = [f(x, numpy.array([i], numpy.int32), W) for i in range(5)]
    assert all(v.dtype == dtype and v.shape == () for v in losses)
    total = sum(numpy.exp(-float(v.array)) for v in losses)
    assert abs(total - 1) < (2e-3 if dtype == numpy.float16 else 1e-6)


def test_forward_against_numpy():
    f = BinaryHierarchicalSoftmaxFunction(TREE, numpy.float64)
    rs = numpy.random.RandomState(1)
    W, x = rs.uniform(-1, 1, (4, 3)), rs.uniform(-1, 1, (3, 3))
    t = numpy.array([0, 3, 4], numpy.int32)
    expect = 0.0
    for xi, ti in zip(x, t):
        b, e = f.begins[ti], f.begins[ti + 1]
        expect += numpy.logaddexp(0, -(W[f.paths[b:e]] @ xi) * f.codes[b:e]).sum()
    numpy.testing.assert_allclose(f(x, t, W).array, expect, rtol=1e-12)


def test_backward_and_double_backward():
    f = BinaryHierarchicalSoftmaxFunction(TREE, numpy.float64)
    rs = numpy.random.RandomState(2)
    t = numpy.array([0, 2, 4, 4], numpy.int32)
    gradients.check_grads(lambda x, W: f(x, t, W),
                          (rs.uniform(-1, 1, (4, 3)), rs.uniform(-1, 1, (4, 3))), order=2)


def test_errors():
    f = BinaryHierarchicalSoftmaxFunction(TREE, numpy.float64)
    x, W = numpy.zeros((2, 3)), numpy.zeros((4, 3))
    with pytest.raises(type_check.InvalidType, match='W.shape'):
        f(x, numpy.array([0, 1], numpy.int32), W[:3])
    with pytest.raises(type_check.InvalidType, match='t.dtype'):
        f(x, numpy.array([0, 1]), W)
    with pytest.raises(ValueError, match=r'word ids must be in \[0, 5\)'):
        f(x, numpy.array([0, 5], numpy.int32), W)
    with pytest.raises(ValueError, match='two children'):
        BinaryHierarchicalSoftmaxFunction((0, 1, 2), numpy.float32)
    with pytest.raises(ValueError, match='appears twice'):
        BinaryHierarchicalSoftmaxFunction((0, 0), numpy.float32)
    with pytest.raises(ValueError, match='non-negative int word ids'):
        BinaryHierarchicalSoftmaxFunction(('a', 'b'), numpy.float32)
