"""Function hooks (global and per function) and gradient hooks on variables and parameters."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import function_node


class Recorder(chainlite.FunctionHook):
    name = 'Recorder'

    def __init__(self):
        self.events = []

    def added(self, function=None):
        self.events.append(('added', None if function is None else function.label))

    def deleted(self, function=None):
        self.events.append(('deleted', None if function is None else function.label))

    def forward_preprocess(self, function, in_data):
        self.events.append(('fpre', function.label, len(in_data)))

    def forward_postprocess(self, function, in_data):
        self.events.append(('fpost', function.label))

    def backward_preprocess(self, function, in_data, out_grad):
        self.events.append(('bpre', function.label, out_grad[0].shape))

    def backward_postprocess(self, function, in_data, out_grad):
        self.events.append(('bpost', function.label))


def test_global_hook_sees_forward_and_backward_in_order():
    x = chainlite.Variable(numpy.array([0.5, 1.0]))
    with Recorder() as hook:
        assert chainlite.get_function_hooks()['Recorder'] is hook
        y = F.sum(F.exp(x))
        y.backward()
    assert hook.events[0] == ('added', None) and hook.events[-1] == ('deleted', None)
    forward = [e[1] for e in hook.events if e[0] == 'fpost']
    assert forward[:2] == ['exp', 'Sum']
    assert ('bpre', 'Sum', ()) in hook.events and ('bpost', 'exp') in hook.events
    assert 'Recorder' not in chainlite.get_function_hooks()
    assert function_node._hooks_active == 0


def test_hook_is_inactive_outside_the_block_and_names_must_be_unique():
    hook = Recorder()
    F.exp(numpy.array([1.0]))
    assert hook.events == []
    with hook:
        with pytest.raises(KeyError, match='already exists'):
            with Recorder():
                pass
    assert function_node._hooks_active == 0


def test_local_hook_on_one_function():
    x = chainlite.Variable(numpy.array([0.5]))
    node = F.sin(x).creator  # already applied: the hook sees its backward only
    hook = Recorder()
    node.add_hook(hook)
    assert hook.events == [('added', 'sin')]
    with pytest.raises(KeyError):
        node.add_hook(hook)
    with pytest.raises(TypeError):
        node.add_hook(object())
    y = F.sin(x)
    y.creator.add_hook(Recorder(), name='other')   # a different function is unaffected
    y.creator.delete_hook('other')
    node.delete_hook('Recorder')
    assert hook.events[-1] == ('deleted', 'sin')
    with pytest.raises(KeyError):
        node.delete_hook('Recorder')
    assert function_node._hooks_active == 0


def test_register_hook_on_an_intermediate_variable_can_replace_the_gradient():
    x = chainlite.Variable(numpy.array([1.0, 2.0]))
    h = x * 2
    seen = []
    h.register_hook(lambda g: seen.append(g.array.copy()))
    handle = h.register_hook(lambda g: g * 10)
    F.sum(h * h).backward()
    numpy.testing.assert_allclose(seen[0], 2 * h.array)      # d(sum h^2)/dh
    numpy.testing.assert_allclose(x.grad, 10 * 2 * 2 * h.array)
    handle.remove()
    handle.remove()                                           # harmless twice
    x.cleargrad()
    F.sum(h * h).backward()
    numpy.testing.assert_allclose(x.grad, 2 * 2 * h.array)


def test_register_hook_on_a_leaf_runs_before_accumulation_and_in_grad():
    x = chainlite.Variable(numpy.array([3.0]))
    calls = []
    x.register_hook(lambda g: calls.append(float(g.array[0])) or numpy.array([7.0]))
    F.sum(x * x).backward()
    assert calls == [6.0] and x.grad[0] == 7.0
    gx, = chainlite.grad([F.sum(x * x)], [x])
    assert calls == [6.0, 6.0] and gx.array[0] == 7.0


def test_parameter_post_accumulate_hook_sees_the_accumulated_gradient():
    p = chainlite.Parameter(numpy.array([1.0, 2.0]))
    seen = []
    handle = p.register_post_accumulate_grad_hook(lambda param: seen.append(param.grad.copy()))
    F.sum(p * p).backward()
    F.sum(p * p).backward()                                    # accumulates
    numpy.testing.assert_allclose(seen[0], [2.0, 4.0])
    numpy.testing.assert_allclose(seen[1], [4.0, 8.0])
    handle.remove()
    F.sum(p * p).backward()
    assert len(seen) == 2


def test_debug_mode_error_in_backward_names_where_the_function_was_applied():
    class Broken(chainlite.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            raise ValueError('broken backward')

    x = chainlite.Variable(numpy.array([1.0]))
    with chainlite.using_config('debug', True):
        y, = Broken().apply((x,))            # the line the note must point to
        with pytest.raises(ValueError, match='broken backward') as info:
            y.backward()
    # As Chainer: the stack is in the message itself (so str(e) and regexes see it).
    message = str(info.value)
    assert 'Stacktrace of the function Broken' in message and 'test_hooks.py' in message


def test_debug_mode_error_without_a_message_gets_the_stack_as_a_note():
    class Broken(chainlite.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, indexes, grad_outputs):
            raise KeyError('k')

    x = chainlite.Variable(numpy.array([1.0]))
    with chainlite.using_config('debug', True):
        y, = Broken().apply((x,))
        with pytest.raises(KeyError) as info:
            y.backward()
    assert info.value.args == ('k',)
    assert 'test_hooks.py' in '\n'.join(info.value.__notes__)
