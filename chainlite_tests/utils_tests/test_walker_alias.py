"""WalkerAlias: the frequencies of its draws match the given probabilities."""
import numpy
import pytest

import chainlite
from chainlite.utils import WalkerAlias


@pytest.mark.parametrize('probs', [[5, 3, 4, 1, 2], [0.1, 0.0, 0.9], [1.0], [2, 2, 2, 2]])
def test_frequencies(probs):
    numpy.random.seed(0)
    sampler = WalkerAlias(numpy.array(probs))
    draws = sampler.sample((200, 500))
    assert draws.dtype == numpy.int32 and draws.shape == (200, 500)
    freq = numpy.bincount(draws.ravel(), minlength=len(probs)) / draws.size
    numpy.testing.assert_allclose(freq, numpy.array(probs) / numpy.sum(probs), atol=5e-3)


def test_tables_split_each_bucket():
    sampler = WalkerAlias([5, 3, 4, 1, 2])
    n = 5
    # Each bucket holds mass 1/n split at threshold between its two outcomes.
    mass = numpy.zeros(n)
    for k in range(n):
        thr = min(sampler.threshold[k], 1.0)
        mass[sampler.values[2 * k]] += thr / n
        mass[sampler.values[2 * k + 1]] += (1 - thr) / n
    numpy.testing.assert_allclose(mass, numpy.array([5, 3, 4, 1, 2]) / 15, atol=1e-6)


def test_seeded_and_device():
    sampler = WalkerAlias([1, 2, 3])
    numpy.random.seed(1)
    a = sampler.sample(10)
    numpy.random.seed(1)
    assert (sampler.sample(10) == a).all()
    with pytest.warns(DeprecationWarning, match='to_device'):
        assert sampler.to_cpu() is sampler
    assert sampler.to_device('@numpy') is sampler
    assert sampler.device == chainlite.get_device('@numpy') and not sampler.use_gpu


@pytest.mark.parametrize('probs', [[], [[1, 2]], [1, -1], [0, 0], [1, numpy.nan]])
def test_invalid(probs):
    with pytest.raises(ValueError, match='WalkerAlias'):
        WalkerAlias(probs)
