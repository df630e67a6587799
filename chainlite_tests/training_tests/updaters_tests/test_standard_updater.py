import numpy as np
import pytest

import chainlite
from chainlite import dataset
from chainlite import iterators
from chainlite import optimizers
from chainlite import serializers
from chainlite import training
from chainlite.training import updaters

DATA = [(np.full(2, i, np.float32), np.int32(i % 2)) for i in range(5)]


class _Spy(chainlite.Link):
    """A model with one parameter that records what it is called with; its loss is W**2."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainlite.Parameter(np.array(1.0, np.float32))
        self.calls = []

    def forward(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return self.W * self.W


def _updater(batch_size=2, **kwargs):
    model = _Spy()
    optimizer = optimizers.SGD(lr=0.25).setup(model)
    iterator = iterators.SerialIterator(DATA, batch_size, shuffle=False)
    return updaters.StandardUpdater(iterator, optimizer, **kwargs), iterator, optimizer, model


def test_update_feeds_the_converted_batch_to_the_optimizer():
    updater, iterator, optimizer, model = _updater()
    updater.update()
    (args, kwargs), = model.calls
    np.testing.assert_array_equal(args[0], [[0, 0], [1, 1]])
    np.testing.assert_array_equal(args[1], [0, 1])
    assert kwargs == {}
    assert model.W.array == 0.5   # 1 - 0.25 * 2
    assert (updater.iteration, optimizer.t) == (1, 1)


@pytest.mark.parametrize('converted, expected_args, expected_kwargs', [
    ((1, 2), (1, 2), {}),
    ({'x': 1}, (), {'x': 1}),
    (np.zeros(1), (np.zeros(1),), {}),
])
def test_converter_output_is_spread(converted, expected_args, expected_kwargs):
    updater, _, _, model = _updater(converter=lambda batch, device: converted)
    updater.update()
    (args, kwargs), = model.calls
    assert len(args) == len(expected_args) and kwargs == expected_kwargs
    for a, e in zip(args, expected_args):
        np.testing.assert_array_equal(a, e)


def test_devices_given_to_converters():
    # As in Chainer 7.8.1: an old-style function gets None or -1, a Converter the Device.
    seen = []

    def old_style(batch, device):
        seen.append(device)
        return dataset.concat_examples(batch, device)

    @dataset.converter()
    def new_style(batch, device):
        seen.append(device)
        return dataset.concat_examples(batch, device)

    for converter in (old_style, new_style):
        _updater(converter=converter)[0].update()
        _updater(converter=converter, device='@numpy')[0].update()
        _updater(converter=converter, input_device='@numpy')[0].update()
    cpu = chainlite.get_device('@numpy')
    assert seen == [None, -1, -1, None, cpu, cpu]


def test_devices():
    updater = _updater()[0]
    assert updater.device is None and updater.input_device is None
    updater = _updater(device='@numpy')[0]
    assert updater.device == chainlite.get_device('@numpy') == updater.input_device
    updater = _updater(input_device=np)[0]
    assert updater.device is None and updater.input_device == chainlite.get_device('@numpy')
    with pytest.raises(ValueError, match='device'):
        _updater(device='@tpu')


def test_loss_func():
    updater, _, _, model = _updater()
    called = []

    def loss_func(x, t):
        called.append(x.shape)
        return model.W * 3
    updater.loss_func = loss_func
    updater.update()
    assert called == [(2, 2)] and model.calls == []
    assert model.W.array == 0.25   # 1 - 0.25 * 3


def test_epochs_come_from_the_main_iterator_and_advance_the_optimizer():
    updater, iterator, optimizer, _ = _updater(batch_size=2)
    assert optimizer.use_auto_new_epoch
    details = []
    for _ in range(5):
        updater.update()
        details.append((updater.epoch, updater.epoch_detail, updater.previous_epoch_detail,
                        updater.is_new_epoch, optimizer.epoch))
    assert details == [
        (0, 0.4, 0.0, False, 0), (0, 0.8, 0.4, False, 0), (1, 1.2, 0.8, True, 1),
        (1, 1.6, 1.2, False, 1), (2, 2.0, 1.6, True, 2)]


def test_without_auto_new_epoch():
    updater, _, optimizer, _ = _updater(batch_size=5, auto_new_epoch=False)
    updater.update()
    assert updater.is_new_epoch
    assert (optimizer.epoch, optimizer.use_auto_new_epoch) == (0, False)


def test_loss_scale_is_set_on_every_optimizer():
    updater, _, optimizer, _ = _updater(loss_scale=8.0)
    assert updater.loss_scale == 8.0 and optimizer._loss_scale == 8.0


def test_several_iterators_and_optimizers():
    model_a, model_b = _Spy(), _Spy()
    opt_a = optimizers.SGD().setup(model_a)
    opt_b = optimizers.SGD().setup(model_b)
    main, extra = iterators.SerialIterator(DATA, 1), iterators.SerialIterator(DATA, 2)
    updater = updaters.StandardUpdater({'main': main, 'extra': extra},
                                       {'main': opt_a, 'b': opt_b})
    assert updater.get_iterator('extra') is extra and updater.get_optimizer('b') is opt_b
    optimizers_ = updater.get_all_optimizers()
    assert optimizers_ == {'main': opt_a, 'b': opt_b}
    optimizers_.clear()     # a copy
    assert updater.get_optimizer('main') is opt_a
    assert opt_b.use_auto_new_epoch
    updater.update()
    assert len(model_a.calls) == 1 and model_b.calls == []


def test_finalize_finalizes_every_iterator():
    finalized = []

    class Iterator(iterators.SerialIterator):
        def finalize(self):
            finalized.append(self.batch_size)
    model = _Spy()
    updater = updaters.StandardUpdater({'main': Iterator(DATA, 1), 'b': Iterator(DATA, 2)},
                                       optimizers.SGD().setup(model))
    updater.finalize()
    assert sorted(finalized) == [1, 2]


def test_serialize_round_trip():
    updater, _, _, _ = _updater(batch_size=2)
    for _ in range(3):
        updater.update()
    snapshot = serializers.npz.serialize(updater)
    # Chainer 7.8.1's keys for the same updater.
    assert sorted(snapshot) == [
        'iteration', 'iterator:main/current_position', 'iterator:main/epoch',
        'iterator:main/is_new_epoch', 'iterator:main/previous_epoch_detail', 'model:main/W',
        'optimizer:main/W/t', 'optimizer:main/epoch', 'optimizer:main/t']

    resumed, _, optimizer, model = _updater(batch_size=2)
    serializers.NpzDeserializer(snapshot).load(resumed)
    assert (resumed.iteration, resumed.epoch, resumed.epoch_detail) == (3, 1, 1.2)
    assert (optimizer.t, optimizer.epoch) == (3, 1)
    assert model.W.array == updater.get_optimizer('main').target.W.array


def test_is_an_updater():
    assert isinstance(_updater()[0], training.Updater)
    assert training.StandardUpdater is updaters.StandardUpdater
