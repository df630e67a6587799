import io
import types

import numpy as np
import pytest

import chainlite.links as L
from chainlite import optimizers
from chainlite import training
from chainlite.iterators.serial_iterator import SerialIterator
from chainlite.training import extensions

_ENTRIES = ['epoch', 'main/loss', 'validation/main/accuracy', 'elapsed_time']
_LOG = [{'epoch': 1, 'main/loss': 0.3125, 'validation/main/accuracy': 0.123456789,
         'elapsed_time': 12.3456},
        {'epoch': 2, 'main/loss': 1e-7}]


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def _trainer_with_log(log):
    holder = types.SimpleNamespace(log=log)
    return types.SimpleNamespace(get_extension=lambda name: holder)


def test_prints_chainers_table_on_a_terminal():
    out = _Terminal()
    extensions.PrintReport(_ENTRIES, out=out)(_trainer_with_log(_LOG))
    # The exact bytes Chainer 7.8.1 prints for this log.
    assert out.getvalue() == (
        'epoch       main/loss   validation/main/accuracy  elapsed_time\n'
        '\x1b[J1           0.3125      0.123457                  12.3456       \n'
        '\x1b[J2           1e-07                                               \n')


def test_writes_no_control_characters_elsewhere():
    out = io.StringIO()
    extensions.PrintReport(_ENTRIES, out=out)(_trainer_with_log(_LOG))
    assert '\x1b' not in out.getvalue()
    assert out.getvalue().splitlines()[1] == (
        '1           0.3125      0.123457                  12.3456       ')


def test_prints_each_entry_once_and_the_header_once():
    log = []
    out = io.StringIO()
    report = extensions.PrintReport(['epoch'], out=out)
    trainer = _trainer_with_log(log)
    report(trainer)
    log.append({'epoch': 1})
    report(trainer)
    report(trainer)
    log.append({'epoch': 2, 'note': 'x'})
    report(trainer)
    assert out.getvalue() == 'epoch     \n1           \n2           \n'


def test_non_numbers_are_printed_as_text():
    out = io.StringIO()
    extensions.PrintReport(['name'], out=out)(_trainer_with_log([{'name': 'abc'}]))
    assert out.getvalue().splitlines()[1] == 'abc         '


def test_with_its_own_log_report_instance(tmp_path):
    log_report = extensions.LogReport(trigger=(1, 'iteration'), log_name=None)
    out = io.StringIO()
    report = extensions.PrintReport(['iteration', 'loss'], log_report=log_report, out=out)
    updater = types.SimpleNamespace(iteration=1, epoch=0, epoch_detail=0.1)
    trainer = types.SimpleNamespace(updater=updater, observation={'loss': 0.5}, out=tmp_path,
                                    elapsed_time=0.0)
    report(trainer)
    assert out.getvalue().splitlines()[1].split() == ['1', '0.5']
    # The state of the own LogReport is saved with the PrintReport.
    from chainlite import serializers
    state = serializers.DictionarySerializer()
    state.save(report)
    assert '_log_report/_log' in state.target


def test_wrong_log_report_type():
    with pytest.raises(TypeError, match='PrintReport: log_report'):
        extensions.PrintReport(['a'], log_report=3, out=io.StringIO())(object())


def test_in_a_trainer_reads_the_log_report_by_name(tmp_path, capsys):
    data = [(np.full(2, i, np.float32), np.int32(i % 2)) for i in range(4)]
    model = L.Classifier(L.Linear(2, 2))
    updater = training.updaters.StandardUpdater(SerialIterator(data, 2, shuffle=False),
                                                optimizers.SGD().setup(model))
    trainer = training.Trainer(updater, (2, 'epoch'), out=str(tmp_path))
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(['epoch', 'iteration', 'main/loss']))
    trainer.run()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == 'epoch       iteration   main/loss '
    assert [line.split()[:2] for line in lines[1:]] == [['1', '2'], ['2', '4']]
    log = trainer.get_extension('LogReport').log
    assert float(lines[2].split()[2]) == pytest.approx(log[1]['main/loss'], rel=1e-5)
