import io

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import function_node
from chainlite.function_hooks import MemoryHook, PrintHook, TimerHook


def _step(shape=(2, 3)):
    x = chainlite.Variable(np.ones(shape, np.float32))
    y = F.sum(F.exp(x) * 2)
    y.backward()
    return x


# -- TimerHook ---------------------------------------------------------------------------------

def test_timer_counts_forward_and_backward_by_class_name():
    with TimerHook() as hook:
        _step()
    summary = hook.summary()
    assert list(summary)[:2] == ['Exp', 'MulConstant']
    assert summary['Exp']['occurrence'] == 2           # one forward, one backward
    assert all(r['elapsed_time'] >= 0 for r in summary.values())
    # Backward of Exp runs a Mul forward inside it: timed, but not counted twice in the total.
    assert 'Mul' in summary
    total = sum(r['elapsed_time'] for r in summary.values())
    assert 0 < hook.total_time() <= total
    assert function_node._hooks_active == 0


def test_timer_total_time_counts_nested_calls_once():
    hook = TimerHook()
    inner = TimerHook()
    hook.forward_preprocess(None, ())
    inner.forward_preprocess(None, ())
    hook.forward_preprocess(None, ())
    hook.forward_postprocess(F.exp, ())
    hook.forward_postprocess(F.exp, ())
    assert len(hook.call_history) == 2
    assert hook.total_time() == hook.call_history[1][1]


@pytest.mark.parametrize('unit', ['auto', 'auto_foreach', 'sec', 'ms', 'us', 'ns'])
def test_timer_print_report(unit):
    with TimerHook() as hook:
        _step()
    out = io.StringIO()
    hook.print_report(unit=unit, file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ['FunctionName', 'ElapsedTime', 'Occurrence']
    assert len(lines) == 1 + len(hook.summary())
    assert len({len(line) for line in lines}) == 1     # a right-aligned table
    exp = next(line for line in lines if line.split()[0] == 'Exp').split()
    assert exp[2] == '2'
    if unit not in ('auto', 'auto_foreach'):
        assert exp[1].endswith(unit)


def test_timer_print_report_to_stdout_and_bad_unit(capsys):
    with TimerHook() as hook:
        _step()
    hook.print_report()
    assert capsys.readouterr().out.startswith('FunctionName')
    with pytest.raises(ValueError):
        hook.print_report(unit='hours')


def test_timer_on_one_function():
    hook = TimerHook()
    from chainlite.functions.math.exp import Exp
    e = Exp()
    e.add_hook(hook)
    e.apply((np.ones(3),))
    F.sin(np.ones(3))                                   # not hooked
    e.delete_hook(hook.name)
    assert [name for name, _ in hook.call_history] == ['Exp']
    assert function_node._hooks_active == 0


def test_timer_names_old_style_functions_by_their_class():
    class Twice(chainlite.Function):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, inputs, grad_outputs):
            return grad_outputs[0] * 2,

    with TimerHook() as hook:
        Twice()(np.ones(2))
    assert list(hook.summary()) == ['Twice']


# -- PrintHook ---------------------------------------------------------------------------------

def test_print_forward_and_backward():
    out = io.StringIO()
    with PrintHook(file=out):
        x = chainlite.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
        y = F.exp(x)
        y.grad = np.ones_like(y.array)
        y.backward()
    text = out.getvalue()
    blocks = text.split('function\t')[1:]
    # Exp's backward computes gy * y with a function, which is printed too (as in Chainer).
    assert [b.splitlines()[0] for b in blocks] == ['exp', 'exp', '_ * _']
    assert 'output gradient' not in blocks[0]
    assert '- shape: (2, 3)' in blocks[0]
    assert '- dtype: float32' in blocks[0]
    assert '- statistics: mean=2.50000000, std=1.70782518' in blocks[0]
    assert 'output gradient' in blocks[1]
    assert '- grad: mean=1.00000000, std=0.00000000' in blocks[1]


def test_print_end_and_default_stdout(capsys):
    with PrintHook(end='|\n'):
        F.exp(np.zeros(2))
    out = capsys.readouterr().out
    assert out.startswith('function\texp|\ninput data|\n')


def test_print_removed_input_and_missing_gradient():
    out = io.StringIO()
    hook = PrintHook(file=out)
    hook.backward_preprocess(F.exp(np.zeros(1)).creator or _Label(), (None,), (None,))
    assert '(removed)' in out.getvalue()
    assert '- shape: None' in out.getvalue()


class _Label:
    label = 'fake'


def test_print_sep_is_deprecated():
    with pytest.warns(DeprecationWarning):
        PrintHook(sep=' ')


# -- MemoryHook --------------------------------------------------------------------------------

def test_memory_counts_outputs_and_gradients():
    with MemoryHook() as hook:
        _step((10, 10))
    summary = hook.summary()
    assert summary['Exp'] == {'used_bytes': 800, 'occurrence': 2}
    assert summary['Sum'] == {'used_bytes': 4 + 400, 'occurrence': 2}
    assert hook.total_used_bytes() == sum(r['used_bytes'] for r in summary.values())
    assert function_node._hooks_active == 0


def test_memory_leaves_functions_unwrapped():
    with MemoryHook():
        y = F.exp(chainlite.Variable(np.ones(3)))
        f = y.creator
        y.grad = np.ones(3)
        y.backward()
    assert 'forward' not in f.__dict__ and 'backward' not in f.__dict__


@pytest.mark.parametrize('unit', ['auto', 'auto_foreach', 'B', 'KB', 'MB'])
def test_memory_print_report(unit):
    with MemoryHook() as hook:
        _step((64, 64))
    out = io.StringIO()
    hook.print_report(unit=unit, file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ['FunctionName', 'UsedBytes', 'Occurrence']
    assert len({len(line) for line in lines}) == 1
    if unit == 'auto':
        assert 'KB' in lines[1]
    with pytest.raises(ValueError):
        hook.print_report(unit='bits')
