"""Chainer 7.8.1 names of links, testing, utils, hooks, initializers, optimizers, distributions,
graph optimizations, serializers and memory layouts, added so that they resolve under compat
(test_chainer_names.py).

Each test checks what the name does, as Chainer does it without a GPU.
"""
import importlib
import math

import numpy as np
import pytest

from chainlite import compat


@pytest.fixture
def chainer():
    compat.install()
    try:
        yield importlib.import_module('chainer')
    finally:
        compat.uninstall()


# -- optimizers --------------------------------------------------------------------------------

_HYPERPARAMETERS = {
    'ada_delta': ('AdaDelta', {'rho', 'eps'}),
    'ada_grad': ('AdaGrad', {'lr', 'eps'}),
    'adam': ('Adam', {'alpha', 'beta1', 'beta2', 'eps', 'eta', 'weight_decay_rate', 'amsgrad',
                      'adabound', 'final_lr', 'gamma'}),
    'corrected_momentum_sgd': ('CorrectedMomentumSGD', {'lr', 'momentum'}),
    'momentum_sgd': ('MomentumSGD', {'lr', 'momentum'}),
    'msvag': ('MSVAG', {'lr', 'beta', 'eta', 'weight_decay_rate'}),
    'nesterov_ag': ('NesterovAG', {'lr', 'momentum'}),
    'rmsprop': ('RMSprop', {'lr', 'alpha', 'eps', 'eps_inside_sqrt'}),
    'rmsprop_graves': ('RMSpropGraves', {'lr', 'alpha', 'momentum', 'eps'}),
    'sgd': ('SGD', {'lr'}),
    'smorms3': ('SMORMS3', {'lr', 'eps'}),
}


@pytest.mark.parametrize('module_name', sorted(_HYPERPARAMETERS))
def test_optimizer_hyperparameter_protocols(chainer, module_name):
    module = importlib.import_module('chainer.optimizers.' + module_name)
    prefix, attributes = _HYPERPARAMETERS[module_name]
    protocol = getattr(module, prefix + 'Hyperparameter')
    assert set(protocol.__annotations__) == attributes
    # The optimizer's own hyperparameters satisfy the protocol; an empty one does not.
    assert isinstance(getattr(module, prefix)().hyperparam, protocol)
    assert not isinstance(chainer.optimizer.Hyperparameter(), protocol)


def test_adam_intermediate_dtype_and_axpby(chainer):
    from chainer.optimizers import adam
    assert adam._get_intermediate_dtype(np.float16) == np.float32
    assert adam._get_intermediate_dtype(np.dtype(np.float64)) == np.float64
    x = np.array([1.0, 2.0], np.float32)
    adam._inplace_axpby(x, 0.5, 2.0, np.array([1.0, -1.0], np.float32))
    np.testing.assert_allclose(x, [2.5, -1.0])
    adam._inplace_axpby(x, 1, 1.0, np.array([1.0, 1.0], np.float32))
    np.testing.assert_allclose(x, [3.5, 0.0])
    assert x.dtype == np.float32


# -- distributions -----------------------------------------------------------------------------

def test_distribution_constants(chainer):
    from chainer.distributions import gumbel, log_normal, multivariate_normal, normal
    assert gumbel.EULER == pytest.approx(0.5772156649015329)
    log_2pi = math.log(2 * math.pi)
    assert normal.LOGPROBC == log_normal.LOGPROBC == multivariate_normal.LOGPROBC \
        == pytest.approx(-0.5 * log_2pi)
    assert normal.ENTROPYC == multivariate_normal.ENTROPYC == pytest.approx(0.5 * (log_2pi + 1))
    assert normal.PROBC == pytest.approx(1 / math.sqrt(2 * math.pi))
    # The constants are those the distributions use.
    d = normal.Normal(np.zeros(1, np.float32), np.ones(1, np.float32))
    assert d.log_prob(np.zeros(1, np.float32)).array[0] == pytest.approx(normal.LOGPROBC)
    assert d.entropy.array[0] == pytest.approx(normal.ENTROPYC)
    assert multivariate_normal.available_cpu is (
        importlib.util.find_spec('scipy') is not None)
