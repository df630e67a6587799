import numpy as np

import chainlite.links as L
from chainlite import optimizers
from chainlite import training
from chainlite.iterators.serial_iterator import SerialIterator
from chainlite.training import extensions


def test_observe_lr_and_observe_value_are_logged_each_epoch(tmp_path):
    data = [(np.full(2, i, np.float32), np.int32(i % 2)) for i in range(4)]
    optimizer = optimizers.MomentumSGD(lr=0.5).setup(L.Classifier(L.Linear(2, 2)))
    updater = training.updaters.StandardUpdater(SerialIterator(data, 2), optimizer)
    trainer = training.Trainer(updater, (2, 'epoch'), out=str(tmp_path))
    trainer.extend(extensions.observe_lr())
    trainer.extend(extensions.observe_value('twice', lambda t: t.updater.iteration * 2))
    trainer.extend(extensions.LogReport(log_name=None))
    trainer.run()
    log = trainer.get_extension('LogReport').log
    assert [entry['lr'] for entry in log] == [0.5, 0.5]
    assert [entry['twice'] for entry in log] == [4.0, 8.0]
    assert trainer.get_extension('_observe_value_1').trigger == (1, 'epoch')


def test_defaults_match_chainer():
    ext = extensions.observe_value('x', lambda t: 1)
    assert ext.default_name == '_observe_value'
    assert ext.priority == training.PRIORITY_WRITER
    assert ext.trigger == (1, 'epoch')
    assert ext.initialize is None and ext.finalize is None
