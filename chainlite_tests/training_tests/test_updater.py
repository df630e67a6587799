import pytest

from chainlite import reporter
from chainlite import training


def test_base_methods_are_abstract():
    updater = training.Updater()
    updater.connect_trainer(None)   # does nothing by default
    for call in (updater.finalize, updater.get_all_optimizers, updater.update,
                 lambda: updater.get_optimizer('main'), lambda: updater.serialize(None)):
        with pytest.raises(NotImplementedError):
            call()


def test_connect_trainer_is_called_by_the_trainer(tmp_path):
    class Counter(training.Updater):
        iteration = 0

        def get_all_optimizers(self):
            return {}

        def connect_trainer(self, trainer):
            trainer.reporter.add_observer('counter', self)
            self.trainer = trainer

    updater = Counter()
    trainer = training.Trainer(updater, out=str(tmp_path))
    assert updater.trainer is trainer
    observation = {}
    with trainer.reporter.scope(observation):
        reporter.report({'n': 1}, updater)
    assert observation == {'counter/n': 1}
