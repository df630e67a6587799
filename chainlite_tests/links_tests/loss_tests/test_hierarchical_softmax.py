"""BinaryHierarchicalSoftmax link: Huffman trees as in Chainer, the parameter, the loss."""
import numpy
import pytest

import chainlite
import chainlite.links as L
from chainlite import gradient_check

HSM = L.BinaryHierarchicalSoftmax


def test_huffman_tree():
    # Chainer 7.8.1's results for these counts.
    assert HSM.create_huffman_tree({'x': 8, 'y': 6, 'z': 5, 'w': 4, 'v': 3}) == (
        ('z', 'y'), (('v', 'w'), 'x'))
    assert HSM.create_huffman_tree({0: 8, 1: 5, 2: 6, 3: 4}) == ((3, 1), (2, 0))
    assert HSM.create_huffman_tree({'a': 1}) == 'a'
    with pytest.raises(ValueError, match='empty vocabulary'):
        HSM.create_huffman_tree({})


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_parameter_and_distribution(dtype):
    with chainlite.using_config('dtype', dtype):
        link = HSM(3, ((0, 1), ((2, 3), 4)))
    assert [(n, p.shape, p.dtype) for n, p in link.namedparams()] == [('/W', (4, 3), dtype)]
    assert (abs(link.W.array) <= 1).all() and link._func.codes.dtype == dtype
    x = numpy.array([[1.0, 2.0, 3.0]], dtype)
    total = 0.0
    for i in range(5):
        loss = link(chainlite.Variable(x), chainlite.Variable(numpy.array([i], numpy.int32)))
        assert loss.dtype == dtype and loss.shape == ()
        total += numpy.exp(-float(loss.array))
    assert abs(total - 1) < (2e-3 if dtype == numpy.float16 else 1e-5)


def test_backward_through_the_link():
    link = HSM(3, ((0, 1), ((2, 3), 4)), dtype=numpy.float64)
    rs = numpy.random.RandomState(0)
    x = rs.uniform(-1, 1, (2, 3))
    t = numpy.array([0, 2], numpy.int32)
    gradient_check.check_backward(lambda x: link(x, t), x, rs.uniform(-1, 1, ()),
                                  params=(link.W,))


def test_each_call_is_independent():
    link = HSM(2, (0, (1, 2)))
    x = numpy.ones((1, 2), numpy.float32)
    a = link(x, numpy.array([1], numpy.int32))
    b = link(x, numpy.array([1], numpy.int32))
    assert a is not b and a.array == b.array
