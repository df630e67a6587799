import io

import numpy as np
import pytest

import chainlite
import chainlite.links as L
from chainlite import link_hook
from chainlite.link_hooks import TimerHook


class Recorder(link_hook.LinkHook):
    def __init__(self, name='Recorder'):
        self.name = name
        self.events = []

    def added(self, link=None):
        self.events.append(('added', link))

    def deleted(self, link=None):
        self.events.append(('deleted', link))

    def forward_preprocess(self, args):
        self.events.append(('pre', type(args.link).__name__, args.forward_name, args.args,
                            args.kwargs))

    def forward_postprocess(self, args):
        self.events.append(('post', type(args.link).__name__, args.out))


class Scale(chainlite.Link):
    def forward(self, x, factor=2.0):
        return x * factor


class Two(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.a = Scale()
            self.b = Scale()

    def forward(self, x):
        return self.b(self.a(x))


def test_global_hook_sees_every_link_with_args_and_out():
    x = np.ones(2)
    with Recorder() as hook:
        y = Scale()(x, factor=3.0)
    assert link_hook._hooks_active == 0
    assert hook.events[0] == ('added', None)
    pre, post = hook.events[1:3]
    assert pre[:3] == ('pre', 'Scale', 'forward')
    assert pre[3] == (x,) and pre[4] == {'factor': 3.0}
    assert post[0:2] == ('post', 'Scale') and post[2] is y
    assert hook.events[3] == ('deleted', None)


def test_nested_links_are_all_hooked_in_call_order():
    with Recorder() as hook:
        Two()(np.ones(1))
    order = [e[:2] for e in hook.events if e[0] in ('pre', 'post')]
    assert order == [('pre', 'Two'), ('pre', 'Scale'), ('post', 'Scale'), ('pre', 'Scale'),
                     ('post', 'Scale'), ('post', 'Two')]


def test_local_hook_applies_to_that_link_only():
    model = Two()
    hook = Recorder()
    assert model.a.add_hook(hook) is model.a
    assert hook.events == [('added', model.a)]
    assert list(model.a.local_link_hooks) == ['Recorder']
    model(np.ones(1))
    assert [e[:2] for e in hook.events[1:]] == [('pre', 'Scale'), ('post', 'Scale')]
    model.a.delete_hook('Recorder')
    assert hook.events[-1] == ('deleted', model.a)
    assert link_hook._hooks_active == 0
    model(np.ones(1))
    assert len(hook.events) == 4


def test_hook_registration_errors():
    link = Scale()
    link.add_hook(Recorder(), name='r')
    with pytest.raises(KeyError):
        link.add_hook(Recorder(), name='r')
    with pytest.raises(KeyError):
        link.delete_hook('missing')
    with pytest.raises(TypeError):
        link.add_hook(object())
    link.delete_hook('r')
    with Recorder(), pytest.raises(KeyError):
        Recorder().__enter__()
    assert link_hook._hooks_active == 0


def test_global_and_local_hooks_run_global_first():
    link = Scale()
    calls = []

    class Tag(link_hook.LinkHook):
        def __init__(self, name):
            self.name = name

        def forward_preprocess(self, args):
            calls.append(('pre', self.name))

        def forward_postprocess(self, args):
            calls.append(('post', self.name))

    link.add_hook(Tag('local'))
    with Tag('global'):
        link(np.ones(1))
    link.delete_hook('local')
    assert calls == [('pre', 'global'), ('pre', 'local'), ('post', 'global'),
                     ('post', 'local')]


def test_base_hook_does_nothing():
    with link_hook.LinkHook():
        y = Scale()(chainlite.Variable(np.ones(1)))
    assert y.array == 2.0
    assert 'link=Scale' in repr(link_hook.ForwardPostprocessCallbackArgs(
        Scale(), 'forward', (), {}, None))
    assert 'link=Scale' in repr(link_hook.ForwardPreprocessCallbackArgs(
        Scale(), 'forward', (), {}))


def test_timer_hook_times_links():
    model = L.Linear(3, 2)
    chain = Two()
    with TimerHook() as hook:
        model(np.zeros((4, 3), np.float32))
        model(np.zeros((4, 3), np.float32))
        chain(np.ones(1))
    summary = hook.summary()
    assert list(summary) == ['Linear', 'Scale', 'Two']
    assert summary['Linear']['occurrence'] == 2
    assert summary['Scale']['occurrence'] == 2
    # The chain's time includes its children's; the total counts outermost calls only.
    outer = (summary['Linear']['elapsed_time'] + summary['Two']['elapsed_time'])
    assert hook.total_time() == pytest.approx(outer)
    out = io.StringIO()
    hook.print_report(file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ['LinkName', 'ElapsedTime', 'Occurrence']
    assert [line.split()[0] for line in lines[1:]] == ['Linear', 'Scale', 'Two']
    out = io.StringIO()
    hook.print_report(unit='us', file=out)
    assert out.getvalue().splitlines()[1].split()[1].endswith('us')


def test_link_timer_on_one_link(capsys):
    model = Two()
    hook = TimerHook()
    model.b.add_hook(hook)
    model(np.ones(1))
    model.b.delete_hook('TimerHook')
    assert list(hook.summary()) == ['Scale']
    hook.print_report()
    assert capsys.readouterr().out.startswith('LinkName')


def test_hook_count_follows_copies_and_collected_links():
    import copy
    import gc

    before = link_hook._hooks_active
    link = L.Linear(2, 3)
    link.add_hook(Recorder(), name="a")
    twin = copy.deepcopy(link)                  # the copy's hook counts too
    assert link_hook._hooks_active == before + 2
    twin.delete_hook('a')
    assert link_hook._hooks_active == before + 1
    del link, twin
    gc.collect()                                # a collected link takes its hooks' count along
    assert link_hook._hooks_active == before
