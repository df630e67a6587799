import numpy as np

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers
from chainlite import training
from chainlite.iterators.serial_iterator import SerialIterator
from chainlite.training import extensions


def test_unchains_reported_variables_only_when_graphs_are_kept(tmp_path):
    data = [(np.full(2, i, np.float32), np.int32(i % 2)) for i in range(4)]
    model = L.Classifier(L.Linear(2, 2))
    updater = training.updaters.StandardUpdater(SerialIterator(data, 2),
                                                optimizers.SGD().setup(model))
    trainer = training.Trainer(updater, (2, 'iteration'), out=str(tmp_path))
    ext = extensions.unchain_variables()
    assert ext.priority == 0
    trainer.extend(ext)
    creators = []
    # Runs after unchain_variables (lower priority) and looks at the reported loss.
    trainer.extend(lambda t: creators.append(t.observation['main/loss'].creator),
                   priority=-1)
    with chainlite.using_config('keep_graph_on_report', True):
        trainer.run()
    assert creators == [None, None]


def test_trigger_follows_the_previous_flag():
    ext = extensions.unchain_variables()
    with chainlite.using_config('keep_graph_on_report', False):
        ext.initialize(None)
        assert ext.trigger(None) is False
        with chainlite.using_config('keep_graph_on_report', True):
            assert ext.trigger(None) is False  # the flag during the previous iteration
            assert ext.trigger(None) is True
        assert ext.trigger(None) is True
        assert ext.trigger(None) is False


def test_call_unchains_only_variables():
    x = chainlite.Variable(np.ones(2, np.float32))
    y = F.sum(x * 3)
    trainer = type('T', (), {'observation': {'loss': y, 'n': 3}})()
    extensions.unchain_variables()(trainer)
    assert y.creator is None
