"""Bad input that used to slip through or fail far from its cause gets a clear error.

Each case names the function or link, the argument and what was seen, and is raised where the
value is first known (at construction for links, optimizers and triggers).
"""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers
from chainlite import serializers
from chainlite import training


@pytest.mark.parametrize('make, error, message', [
    (lambda: L.Convolution2D(3, 4, ksize=0), ValueError,
     'Convolution2D: ksize must be at least 1, got 0'),
    (lambda: L.Convolution2D(3, 4, 3, stride=(1, 0)), ValueError,
     'Convolution2D: stride must be at least 1, got 0'),
    (lambda: L.Convolution2D(3, 4, 3, pad=-1), ValueError,
     'Convolution2D: pad must be at least 0, got -1'),
    (lambda: L.Deconvolution2D(3, 4, (2, 0)), ValueError,
     'Deconvolution2D: ksize must be at least 1'),
    (lambda: L.ConvolutionND(2, 3, 4, 0), ValueError, 'ConvolutionND: ksize must be at least 1'),
    (lambda: L.Convolution2D('3', 4, 3), TypeError,
     "Convolution2D: in_channels must be an int or None, got '3'"),
    (lambda: L.Linear('a', 4), TypeError,
     "Linear: in_size must be an int or None, got 'a' (a str)"),
    (lambda: L.Linear(3, 2.5), TypeError, 'Linear: out_size must be an int, got 2.5 (a float)'),
    (lambda: L.EmbedID(-1, 3), ValueError, 'EmbedID: in_size must be at least 0, got -1'),
    (lambda: L.LSTM('x', 3), TypeError, "LSTM: in_size must be an int or None, got 'x'"),
], ids=lambda v: v if isinstance(v, str) else '')
def test_link_arguments_are_checked_at_construction(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert message in str(info.value)


def test_lstm_names_itself_for_a_wrong_input_width():
    x = np.zeros((2, 5), np.float32)
    for link in (L.LSTM(3, 4), L.StatelessLSTM(3, 4)):
        with pytest.raises(ValueError, match=r'LSTM: the input has 5 features per example '
                           r'\(shape \(2, 5\)\) but the link was built for in_size=3'):
            link(x) if isinstance(link, L.LSTM) else link(None, None, x)
    lazy = L.LSTM(None, 4)
    lazy(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match='built for in_size=3'):
        lazy(x)


@pytest.mark.parametrize('stop, error, message', [
    ((-1, 'epoch'), ValueError,
     'Trainer: stop_trigger: IntervalTrigger: period must be positive, got -1 epochs'),
    ((0, 'epoch'), ValueError, 'period must be positive, got 0 epochs'),
    ('epoch', TypeError, "Trainer: stop_trigger: a trigger is a callable, None or a "
                         "(period, unit) pair such as (1, 'epoch'), got 'epoch'"),
    ((1, 'epochs'), ValueError, "unit must be either 'epoch' or 'iteration', got 'epochs'"),
    (('1', 'epoch'), TypeError, "period must be a number of epochs, got '1'"),
], ids=str)
def test_trainer_checks_its_stop_trigger(stop, error, message):
    with pytest.raises(error) as info:
        training.Trainer(None, stop)
    assert message in str(info.value)


def test_extension_trigger_is_checked_when_extended():
    class Updater:
        def get_all_optimizers(self):
            return {}

        def connect_trainer(self, trainer):
            pass

    trainer = training.Trainer(Updater(), (1, 'iteration'))
    with pytest.raises(ValueError, match=r"Trainer.extend: the trigger of 'ext': IntervalTrigger: "
                       r'period must be positive, got 0 iterations'):
        trainer.extend(lambda t: None, name='ext', trigger=(0, 'iteration'))


@pytest.mark.parametrize('make, message', [
    (lambda: optimizers.Adam(alpha='0.1'),
     "Adam: hyperparameter alpha must be a number, got '0.1' (a str)"),
    (lambda: optimizers.SGD(lr='1e-3'), "SGD: hyperparameter lr must be a number, got '1e-3'"),
    (lambda: setattr(optimizers.MomentumSGD(), 'lr', 'high'), 'MomentumSGD: hyperparameter lr'),
], ids=['adam', 'sgd', 'proxy'])
def test_optimizer_hyperparameters_must_be_numbers(make, message):
    with pytest.raises(TypeError) as info:
        make()
    assert message in str(info.value)


def test_optimizer_hyperparameters_still_repr_their_entries_only():
    assert repr(optimizers.SGD(lr=0.5).hyperparam) == 'Hyperparameter(lr=0.5)'


@pytest.mark.parametrize('reduce', [F.max, F.min])
def test_max_and_min_of_an_empty_axis(reduce):
    name = reduce.__name__
    with pytest.raises(ValueError, match=r'%s: cannot reduce over an empty axis: x has shape '
                       r'\(0,\) and axis=None' % name):
        reduce(np.zeros(0, np.float32))
    with pytest.raises(ValueError, match=r'axis=\(1,\)'):
        reduce(np.zeros((2, 0), np.float32), axis=1)
    assert reduce(np.zeros((0, 3), np.float32), axis=1).shape == (0,)  # nothing to reduce


def test_load_npz_rejects_what_is_not_a_file():
    with pytest.raises(TypeError, match='load_npz: file must be a path or a binary file object, '
                       r'got None \(a NoneType\)'):
        serializers.load_npz(None, L.Linear(2, 3))


def test_save_npz_into_a_missing_directory_names_the_file(tmp_path):
    target = tmp_path / 'missing' / 'model.npz'
    with pytest.raises(FileNotFoundError) as info:
        serializers.save_npz(str(target), L.Linear(2, 3))
    assert "cannot write '%s'" % target in str(info.value)
    assert '.tmp' not in str(info.value)


def test_debug_mode_names_the_function_whose_backward_failed():
    x = chainlite.Variable(np.array([0.0, 1.0]))
    with chainlite.using_config('debug', True), np.errstate(divide='ignore'):
        y = F.sqrt(x)
        with pytest.raises(RuntimeError, match=r'inf is detected on forward computation of '
                           r'_ / _ \(debug mode\): in the output, in the backward pass of sqrt'):
            F.sum(y).backward()


@pytest.mark.parametrize('x, seen', [([[1.0, 2.0]], 'got list'), (None, 'got NoneType'),
                                     (chainlite.Variable(None), 'got a Variable without data')])
def test_linear_names_what_it_was_given(x, seen):
    with pytest.raises(TypeError, match='linear: x must be a Variable or a numpy.ndarray with '
                       'data, %s' % seen):
        F.linear(x, np.zeros((3, 2), np.float32))


@pytest.mark.parametrize('f, label', [
    (F.relu, r'ReLU: input 0 \(x\)'), (F.tanh, 'Tanh: input 0'),
    (lambda x: F.reshape(x, (2,)), 'Reshape: input 0'),
    (lambda x: x * x, r'_ \* _: input 0 \(lhs\)'),
])
def test_a_variable_without_data_is_named(f, label):
    with pytest.raises(TypeError,
                       match=label + r' is a Variable without data \(Variable\(None\)\)'):
        f(chainlite.Variable(None))
