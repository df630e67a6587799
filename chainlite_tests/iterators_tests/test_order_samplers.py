import numpy as np
import pytest

from chainlite import iterators


def test_shuffle_order_sampler_uses_numpy_global_random_stream():
    np.random.seed(5)
    sampler = iterators.ShuffleOrderSampler()
    # Chainer 7.8.1 gives these after numpy.random.seed(5).
    assert sampler(np.arange(6), 0).tolist() == [5, 2, 4, 1, 0, 3]
    assert sampler(np.arange(6), 3).tolist() == [5, 1, 4, 2, 0, 3]


def test_shuffle_order_sampler_with_its_own_random_state():
    sampler = iterators.ShuffleOrderSampler(np.random.RandomState(7))
    np.random.seed(0)
    assert sampler(np.arange(6), 0).tolist() == [3, 5, 0, 2, 1, 4]  # Chainer 7.8.1's
    assert sampler(np.arange(6), 0).tolist() == [4, 5, 3, 2, 1, 0]
    assert np.random.randint(1000) == np.random.RandomState(0).randint(1000)  # untouched


def test_the_order_has_the_length_of_the_current_order():
    order = iterators.ShuffleOrderSampler()(np.arange(10, 20), 4)
    assert sorted(order.tolist()) == list(range(10))


def test_order_sampler_base_is_abstract():
    with pytest.raises(NotImplementedError, match='OrderSampler'):
        iterators.OrderSampler()(np.arange(3), 0)
