"""BlackOut link: NaN weights until set, samples from counts or from sample_data."""
import numpy

import chainlite
import chainlite.functions as F
import chainlite.links as L


def test_parameter():
    link = L.BlackOut(3, [4, 3, 2, 1], 2)
    assert [(n, p.shape) for n, p in link.namedparams()] == [('/W', (4, 3))]
    assert numpy.isnan(link.W.array).all()
    assert link.sample_size == 2 and link.sample_data is None


def test_forward_with_given_samples_matches_function():
    link = L.BlackOut(3, [4, 3, 2, 1], 2)
    rs = numpy.random.RandomState(0)
    link.W.array[...] = rs.uniform(-1, 1, (4, 3))
    x = rs.uniform(-1, 1, (5, 3)).astype(numpy.float32)
    t = numpy.array([0, 1, 2, 3, 0], numpy.int32)
    link.sample_data = rs.randint(0, 4, (5, 2)).astype(numpy.int32)
    y = link(x, t)
    expect = F.black_out(x, t, link.W.array, link.sample_data)
    numpy.testing.assert_allclose(y.array, expect.array, rtol=1e-6)


def test_draws_samples():
    link = L.BlackOut(3, [0, 1, 0, 0], 2)  # only class 1 can be drawn
    link.W.array[...] = 0.5
    x = chainlite.Variable(numpy.ones((2, 3), numpy.float32))
    y = link(x, numpy.array([0, 2], numpy.int32))
    expect = F.black_out(x, numpy.array([0, 2]), link.W.array, numpy.ones((2, 2), numpy.int32))
    numpy.testing.assert_allclose(y.array, expect.array)
    y.backward()
    assert x.grad.shape == (2, 3)
