import numpy as np
import pytest

import chainlite.links as L
from chainlite import optimizers
from chainlite import training
from chainlite.iterators.serial_iterator import SerialIterator
from chainlite.training import extensions


def _trainer(tmp_path, lr):
    data = [(np.full(2, 1e3, np.float32), np.int32(0))] * 4
    model = L.Classifier(L.Linear(2, 2))
    optimizer = optimizers.SGD(lr=lr).setup(model)
    updater = training.updaters.StandardUpdater(SerialIterator(data, 2), optimizer)
    trainer = training.Trainer(updater, (3, 'iteration'), out=str(tmp_path))
    trainer.extend(extensions.FailOnNonNumber())
    return trainer, model


def test_finite_training_runs_to_the_end(tmp_path):
    trainer, _ = _trainer(tmp_path, lr=1e-3)
    trainer.run()
    assert trainer.updater.iteration == 3


def test_diverged_parameters_stop_training(tmp_path):
    trainer, model = _trainer(tmp_path, lr=np.inf)
    with np.errstate(all='ignore'):
        with pytest.raises(RuntimeError, match="FailOnNonNumber: the parameter /predictor/.* "
                                               "optimizer 'main' holds NaN or Inf"):
            trainer.run(show_loop_exception_msg=False)
    assert trainer.updater.iteration == 1


def test_uninitialized_parameters_are_skipped(tmp_path):
    trainer, model = _trainer(tmp_path, lr=0.1)
    with model.init_scope():
        model.lazy = L.Linear(None, 3)
    extensions.FailOnNonNumber()(trainer)
    model.lazy.W.array = None  # still uninitialized
    model.predictor.b.array[1] = -np.inf
    with pytest.raises(RuntimeError, match='/predictor/b'):
        extensions.FailOnNonNumber()(trainer)
