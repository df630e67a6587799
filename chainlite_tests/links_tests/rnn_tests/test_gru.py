"""StatelessGRU, StatefulGRU and GRU: Chainer's layout and names, the equations, the state."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import testing
from chainlite.links.connection.linear import Linear
from chainlite.links.rnn.gru import GRU
from chainlite.links.rnn.gru import StatefulGRU
from chainlite.links.rnn.gru import StatelessGRU

# namedparams() of chainer.links.StatefulGRU(3, 2) (and GRU, StatelessGRU) in Chainer 7.8.1.
CHAINER_PARAMS = [
    ('/U/W', (2, 2)), ('/U/b', (2,)), ('/U_r/W', (2, 2)), ('/U_r/b', (2,)),
    ('/U_z/W', (2, 2)), ('/U_z/b', (2,)), ('/W/W', (2, 3)), ('/W/b', (2,)),
    ('/W_r/W', (2, 3)), ('/W_r/b', (2,)), ('/W_z/W', (2, 3)), ('/W_z/b', (2,))]
NAMES = ['W_r', 'U_r', 'W_z', 'U_z', 'W', 'U']


def _arr(shape, phase, scale):
    n = int(numpy.prod(shape))
    return (scale * numpy.sin(numpy.arange(n) * 0.7 + phase)).reshape(shape).astype(
        numpy.float32)


def _fixed(cls):
    link = cls(3, 2)
    for i, name in enumerate(NAMES):
        child = getattr(link, name)
        child.W.array[...] = _arr(child.W.shape, i, 0.6)
        child.b.array[...] = _arr(child.b.shape, i + 0.5, 0.2)
    return link


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _reference(link, h, x):
    # The GRU equations in NumPy, from the link's parameters.
    def lin(name, v):
        child = getattr(link, name)
        return v @ child.W.array.T + child.b.array

    r = _sigmoid(lin('W_r', x) + lin('U_r', h))
    z = _sigmoid(lin('W_z', x) + lin('U_z', h))
    h_bar = numpy.tanh(lin('W', x) + lin('U', r * h))
    return z * h_bar + (1 - z) * h


@pytest.mark.parametrize('cls', [StatelessGRU, StatefulGRU, GRU])
def test_namedparams_match_chainer(cls):
    link = cls(3, 2)
    assert sorted((path, p.shape) for path, p in link.namedparams()) == CHAINER_PARAMS
    assert all(isinstance(getattr(link, name), Linear) for name in NAMES)


def test_gru_is_the_stateful_one():
    # In Chainer 7, links.GRU subclasses StatefulGRU (stateless until Chainer v2).
    assert issubclass(GRU, StatefulGRU)
    link = GRU(3, 2)
    with pytest.raises(ValueError, match='StatelessGRU'):
        link(numpy.zeros((1, 2), numpy.float32), numpy.zeros((1, 3), numpy.float32))
    with pytest.raises(ValueError, match='GRU.forward takes one argument'):
        link()


def test_stateless_gru_equations():
    link = _fixed(StatelessGRU)
    h, x = _arr((2, 2), 7.0, 0.8), _arr((2, 3), 3.0, 1.0)
    y = link(h, x)
    testing.assert_allclose(y.array, _reference(link, h, x))
    assert y.dtype == numpy.float32


def test_stateful_gru_steps_and_state():
    link = _fixed(StatefulGRU)
    assert link.h is None and link.state_size == 2
    x = _arr((2, 3), 3.0, 1.0)
    y1 = link(x)
    W, W_z = link.W, link.W_z
    first = _sigmoid(x @ W_z.W.array.T + W_z.b.array) * numpy.tanh(x @ W.W.array.T + W.b.array)
    testing.assert_allclose(y1.array, first)
    y2 = link(x * 0.5)
    testing.assert_allclose(y2.array, _reference(link, y1.array, x * 0.5))
    assert link.h is y2
    link.reset_state()
    assert link.h is None
    testing.assert_allclose(link(x).array, first)
    h = chainlite.Variable(_arr((2, 2), 1.0, 0.5))
    link.set_state(h)
    assert link.h is h
    testing.assert_allclose(link(x).array, _reference(link, h.array, x))
    with pytest.raises(TypeError, match='StatefulGRU.set_state: h must be a Variable'):
        link.set_state(h.array)


def test_default_biases():
    assert not StatefulGRU(3, 2).W.b.array.any()
    assert not StatelessGRU(3, 2).U.b.array.any()
    link = StatefulGRU(3, 2, init=0.5, inner_init=-1, bias_init=0.25)
    numpy.testing.assert_array_equal(link.W_r.W.array, 0.5)
    numpy.testing.assert_array_equal(link.U.W.array, -1)
    numpy.testing.assert_array_equal(link.U_z.b.array, 0.25)


def test_lazy_in_size():
    link = StatefulGRU(None, 4)
    assert link.W.W.array is None and link.U.W.shape == (4, 4)
    assert link(numpy.ones((2, 5), numpy.float32)).shape == (2, 4)
    assert link.W.W.shape == (4, 5)
    # As in Chainer, W_r is first used (and initialized) once there is a state.
    assert link.W_r.W.array is None
    link(numpy.ones((2, 5), numpy.float32))
    assert link.W_r.W.shape == (4, 5)


@pytest.mark.parametrize('cls', [StatelessGRU, StatefulGRU])
def test_gradients_reach_all_params(cls):
    link = _fixed(cls)
    link.cleargrads()
    x = _arr((2, 3), 3.0, 1.0)
    if cls is StatelessGRU:
        y = link(link(_arr((2, 2), 7.0, 0.8), x), x)
    else:
        link(x)
        y = link(x)
    F.sum(y * y).backward()
    for path, p in link.namedparams():
        assert p.grad is not None and numpy.abs(p.grad).sum() > 0, path


def test_matches_chainer_numerically():
    # chainer.links.StatefulGRU(3, 2) in Chainer 7.8.1 with the weights of _fixed.
    link = _fixed(StatefulGRU)
    x = _arr((2, 3), 3.0, 1.0)
    testing.assert_allclose(link(x).array, [[0.254644, -0.463854], [0.141335, -0.059961]],
                            atol=2e-6)
    testing.assert_allclose(link(x * 0.5).array,
                            [[0.134718, -0.53083], [0.047295, -0.110994]], atol=2e-6)
