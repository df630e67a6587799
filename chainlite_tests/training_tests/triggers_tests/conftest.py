"""A stand-in trainer for trigger tests: an updater sweeping a data set of ``size`` examples
in minibatches of ``batch_size`` with SerialIterator's epoch arithmetic (no shuffling)."""
import types

import pytest


class FakeUpdater:
    """Counts iterations and epochs as a StandardUpdater over a SerialIterator would."""

    def __init__(self, size, batch_size):
        self.size, self.batch_size = size, batch_size
        self.iteration = self.epoch = self._position = 0
        self.previous_epoch_detail = None
        self.is_new_epoch = False

    @property
    def epoch_detail(self):
        # Computed as SerialIterator does (epoch + position / size), so that floating-point
        # results on multiples of a period are Chainer's.
        return self.epoch + self._position / self.size

    def update(self):
        self.previous_epoch_detail = self.epoch_detail
        self._position += self.batch_size
        self.is_new_epoch = self._position >= self.size
        if self.is_new_epoch:
            self.epoch += 1
            self._position -= self.size
        self.iteration += 1


def make_trainer(size=10, batch_size=3):
    return types.SimpleNamespace(updater=FakeUpdater(size, batch_size), observation={},
                                 elapsed_time=0.0)


def fired_at(trigger, trainer, iterations, values=None, key='v'):
    """Updates ``iterations`` times, calling the trigger after each update as the trainer
    does; ``values[i]`` is reported under ``key`` at iteration ``i + 1`` if given. Returns
    the iterations at which it fired."""
    fired = []
    for i in range(iterations):
        trainer.updater.update()
        trainer.observation = {} if values is None else {key: values[i]}
        if trigger(trainer):
            fired.append(trainer.updater.iteration)
    return fired


@pytest.fixture
def fake():
    return types.SimpleNamespace(make_trainer=make_trainer, fired_at=fired_at)
