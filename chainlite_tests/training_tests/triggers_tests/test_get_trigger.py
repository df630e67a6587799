from chainlite import training
from chainlite.training import triggers


def test_tuple_gives_an_interval_trigger():
    trigger = triggers.get_trigger((3, 'iteration'))
    assert isinstance(trigger, triggers.IntervalTrigger)
    assert (trigger.period, trigger.unit) == (3, 'iteration')


def test_callable_is_returned_as_it_is():
    def my_trigger(trainer):
        return True
    assert triggers.get_trigger(my_trigger) is my_trigger
    once = triggers.OnceTrigger()
    assert triggers.get_trigger(once) is once


def test_none_never_fires():
    trigger = triggers.get_trigger(None)
    assert trigger(None) is False


def test_exported_from_training():
    assert training.get_trigger is triggers.get_trigger
    assert training.IntervalTrigger is triggers.IntervalTrigger
