"""Link, Chain, ChainList and Sequential: registration, paths, gradients, copies, serialization."""
import copy
import pickle

import numpy
import pytest

import chainlite
import chainlite.functions as F


class Affine(chainlite.Link):
    def __init__(self, n_in, n_out, seed=0):
        super().__init__()
        rs = numpy.random.RandomState(seed)
        with self.init_scope():
            self.W = chainlite.Parameter(rs.randn(n_out, n_in).astype(numpy.float32))
            self.b = chainlite.Parameter(numpy.zeros(n_out, numpy.float32))

    def forward(self, x):
        return F.linear(x, self.W, self.b)


class MLP(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Affine(3, 4, seed=1)
            self.l2 = Affine(4, 2, seed=2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class WithPersistent(chainlite.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.p = chainlite.Parameter(numpy.ones(2, numpy.float32))
        self.add_persistent('mean', numpy.zeros(2, numpy.float32))
        self.add_persistent('count', 0)


def _x():
    return numpy.arange(6, dtype=numpy.float32).reshape(2, 3) / 6


def test_init_scope_registers_parameters_in_declaration_order():
    link = Affine(3, 4)
    assert isinstance(link._params, set)     # a set, as in Chainer, iterated in order
    assert list(link._params) == ['W', 'b']
    assert link.W.name == 'W'


def test_parameter_assigned_outside_init_scope_is_not_registered():
    link = chainlite.Link()
    link.p = chainlite.Parameter(numpy.zeros(1, numpy.float32))
    assert list(link.params()) == []


def test_namedparams_and_namedlinks_paths():
    m = MLP()
    assert [p for p, _ in m.namedparams()] == ['/l1/W', '/l1/b', '/l2/W', '/l2/b']
    assert [p for p, _ in m.namedlinks()] == ['/', '/l1', '/l2']
    assert [p for p, _ in m.namedlinks(skipself=True)] == ['/l1', '/l2']
    assert list(m.children()) == [m.l1, m.l2]
    assert m['l1'] is m.l1


def test_nested_chain_paths_depth_first():
    outer = chainlite.Chain()
    with outer.init_scope():
        outer.a = MLP()
        outer.b = Affine(2, 2)
    assert [p for p, _ in outer.namedlinks()] == ['/', '/a', '/a/l1', '/a/l2', '/b']
    assert [p for p, _ in outer.namedparams()][:2] == ['/a/l1/W', '/a/l1/b']


def test_call_runs_forward_and_backward_reaches_parameters():
    m = MLP()
    y = m(_x())
    assert y.shape == (2, 2)
    F.sum(y).backward()
    assert m.l1.W.grad.shape == (4, 3) and m.l2.b.grad.shape == (2,)


def test_call_without_forward_is_a_clear_error():
    with pytest.raises(AttributeError, match='has no forward method'):   # as Chainer's type
        chainlite.Link()(1)


def test_old_code_overriding_call_still_works():
    class Old(chainlite.Chain):
        def __call__(self, x):
            return x * 2

    assert Old()(chainlite.Variable(numpy.array([1.0]))).array[0] == 2.0


def test_cleargrads_and_zerograds():
    m = MLP()
    F.sum(m(_x())).backward()
    m.cleargrads()
    assert all(p.grad is None for p in m.params())
    with pytest.warns(DeprecationWarning, match='zerograds'):
        m.zerograds()
    assert all((p.grad == 0).all() for p in m.params())


def test_addgrads_adds_the_other_links_gradients():
    a, b = MLP(), MLP()
    for m in (a, b):
        m.cleargrads()
        F.sum(m(_x())).backward()
    expected = a.l1.W.grad + b.l1.W.grad
    a.addgrads(b)
    numpy.testing.assert_allclose(a.l1.W.grad, expected)


def test_copy_share_copy_init():
    m = MLP()
    F.sum(m(_x())).backward()
    shared = m.copy('share')
    assert shared.l1.W is not m.l1.W and shared.l1.W.array is m.l1.W.array
    assert shared.l1.W.grad is None and m.l1.W.grad is not None
    deep = m.copy('copy')
    assert deep.l1.W.array is not m.l1.W.array
    numpy.testing.assert_array_equal(deep.l1.W.array, m.l1.W.array)
    assert shared.name is None and deep.name is None
    with pytest.raises(ValueError, match='mode'):
        m.copy('bad')


def test_copy_init_reinitialises_with_the_initializer():
    link = chainlite.Link()
    link.add_param('w', (3,), initializer=2.0)
    link.w.array[...] = 7
    fresh = link.copy('init')
    numpy.testing.assert_array_equal(fresh.w.array, [2.0, 2.0, 2.0])


def test_copyparams_copies_values_and_persistents():
    a, b = WithPersistent(), WithPersistent()
    b.p.array[...] = 5
    b.mean[...] = 3
    b.count = 4
    a.copyparams(b)
    numpy.testing.assert_array_equal(a.p.array, [5, 5])
    numpy.testing.assert_array_equal(a.mean, [3, 3])
    assert a.count == 4 and a.p.array is not b.p.array


def test_add_param_and_persistent_and_errors():
    link = chainlite.Link()
    link.add_param('w', (2, 3))
    assert link.w.shape == (2, 3) and numpy.isnan(link.w.array).all()
    link.add_param('lazy')
    assert not link.lazy.is_initialized
    with pytest.raises(AttributeError, match='exists'):
        link.add_param('w', (1,))
    link.add_persistent('n', 0)
    with pytest.raises(AttributeError, match='exists'):
        link.add_persistent('n', 1)
    link.other = 3
    link.register_persistent('other')
    assert list(link._persistent) == ['n', 'other']
    with pytest.raises(AttributeError):
        link.register_persistent('missing')


def test_params_excludes_uninitialised_on_request():
    link = chainlite.Link()
    link.add_param('a', (2,))
    link.add_param('b')
    assert len(list(link.params())) == 2
    assert [p.name for p in link.params(include_uninit=False)] == ['a']


def test_count_params_warns_for_uninitialised():
    link = chainlite.Link()
    link.add_param('a', (2, 3))
    assert link.count_params() == 6
    link.add_param('b')
    with pytest.warns(UserWarning, match="'/b' has not been initialized"):
        assert link.count_params() == 6


def test_delattr_unregisters():
    m = MLP()
    del m.l2
    assert [p for p, _ in m.namedlinks()] == ['/', '/l1']
    link = Affine(2, 2)
    del link.b
    assert list(link._params) == ['W']


def test_enable_disable_update_toggle_update_rules():
    class Rule:
        enabled = True

    m = MLP()
    for p in m.params():
        p.update_rule = Rule()
    m.disable_update()
    assert not m.update_enabled
    m.l1.enable_update()
    assert m.update_enabled and m.l1.W.update_rule.enabled and not m.l2.W.update_rule.enabled


class _DictSerializer:
    # Saves into, or loads from, a flat dict with '/'-joined keys, like the npz serializers.
    def __init__(self, store, path='', load=False):
        self.store, self.path, self.load = store, path, load

    def __getitem__(self, key):
        return _DictSerializer(self.store, self.path + key + '/', self.load)

    def __call__(self, key, value):
        if self.load:
            loaded = self.store[self.path + key]
            if isinstance(value, numpy.ndarray):
                numpy.copyto(value, loaded)
                return value
            return loaded
        self.store[self.path + key] = copy.copy(value)
        return value


def test_serialize_uses_chainer_keys_and_round_trips():
    m = MLP()
    store = {}
    m.serialize(_DictSerializer(store))
    assert sorted(store) == ['l1/W', 'l1/b', 'l2/W', 'l2/b']
    other = MLP()
    other.l1.W.array[...] = 0
    other.serialize(_DictSerializer(store, load=True))
    numpy.testing.assert_array_equal(other.l1.W.array, m.l1.W.array)


def test_serialize_persistents_and_lazy_parameter_initialisation():
    src = WithPersistent()
    src.mean[...] = 2
    src.count = 9
    store = {}
    src.serialize(_DictSerializer(store))
    assert sorted(store) == ['count', 'mean', 'p']
    dst = chainlite.Link()
    dst.add_param('p')                 # uninitialised: the loaded shape initialises it
    dst.add_persistent('mean', numpy.zeros(2, numpy.float32))
    dst.add_persistent('count', 0)
    dst.serialize(_DictSerializer(store, load=True))
    assert dst.p.shape == (2,) and dst.count == 9
    numpy.testing.assert_array_equal(dst.mean, [2, 2])


def test_chainlist_paths_append_and_indexing():
    cl = chainlite.ChainList(Affine(2, 3), Affine(3, 2))
    cl.append(Affine(2, 1))
    assert len(cl) == 3 and cl[2].name == '2'
    assert [p for p, _ in cl.namedparams()][-2:] == ['/2/W', '/2/b']
    assert list(cl) == list(cl.children())
    with pytest.raises(TypeError, match='append'):
        with cl.init_scope():
            cl.x = Affine(1, 1)
    with pytest.raises(TypeError):
        cl.append(3)


def test_chainlist_copy_share_keeps_structure():
    cl = chainlite.ChainList(Affine(2, 3), Affine(3, 2))
    c = cl.copy()
    assert [p for p, _ in c.namedparams()] == [p for p, _ in cl.namedparams()]
    assert c[0] is not cl[0] and c[0].W.array is cl[0].W.array


def test_sequential_mixes_links_and_functions():
    s = chainlite.Sequential(Affine(3, 4), F.relu, Affine(4, 2))
    y = s(_x())
    expected = s[2](F.relu(s[0](_x())))
    numpy.testing.assert_allclose(y.array, expected.array)
    assert [p for p, _ in s.namedparams()] == ['/0/W', '/0/b', '/1/W', '/1/b']
    assert len(s) == 3 and s.index(F.relu) == 1 and s.count(F.relu) == 1


def test_sequential_editing_renumbers_parameter_paths():
    s = chainlite.Sequential(F.relu, Affine(2, 2))
    s.insert(0, Affine(2, 2))
    assert [p for p, _ in s.namedparams()] == ['/0/W', '/0/b', '/1/W', '/1/b']
    s.remove_by_layer_type('relu')
    assert len(s) == 2 and s.count_by_layer_type('Affine') == 2
    popped = s.pop(0)
    assert isinstance(popped, Affine) and len(s) == 1
    assert isinstance(s[0:1], chainlite.Sequential)


def test_sequential_tuple_outputs_become_arguments():
    s = chainlite.Sequential(lambda x: (x, x * 2), lambda a, b: a + b)
    numpy.testing.assert_array_equal(s(chainlite.Variable(numpy.array([1.0]))).array, [3.0])


def test_sequential_add_mul_flatten_and_repeat():
    a = chainlite.Sequential(Affine(2, 2))
    b = chainlite.Sequential(F.relu)
    assert len(a + b) == 2
    tripled = a * 3
    assert len(tripled) == 3
    assert tripled[0][0].W.array is not a[0].W.array    # mode='init' copies
    nested = chainlite.Sequential(a, b)
    assert len(nested.flatten()) == 2
    with pytest.raises(ValueError, match='callable'):      # ValueError, as in Chainer
        chainlite.Sequential(3)
    with pytest.raises(ValueError, match='Sequential'):
        a + 3
    with pytest.raises(RuntimeError, match='no layer'):
        chainlite.Sequential()(numpy.ones(2))


def test_sequential_list_operations():
    f, g, h = F.relu, F.tanh, F.sigmoid
    s = chainlite.Sequential(f, g)
    s += chainlite.Sequential(h)
    assert list(s) == [f, g, h] and list(reversed(s)) == [h, g, f]
    assert g in s and F.exp not in s
    s[1] = F.exp
    assert s[1] is F.exp
    with pytest.raises(ValueError):
        s[3] = f
    del s[0]
    assert list(s) == [F.exp, h]
    s.insert(-1, f)
    assert list(s) == [F.exp, f, h]
    with pytest.raises(IndexError):
        s.insert(5, f)
    assert s.index(h, 1) == 1    # counted from start, as in Chainer
    with pytest.raises(ValueError):
        s.remove(g)
    a = Affine(2, 2)
    s.insert(0, a)
    assert [name for name, _ in s.namedparams()] == ['/0/W', '/0/b']
    s.clear()
    assert len(s) == 0 and list(s.params()) == [] and str(s) == 'Sequential()'


def test_repeat_makes_independent_copies():
    seq = Affine(2, 2).repeat(3, mode='copy')
    assert len(seq) == 3 and seq[0].W is not seq[1].W
    assert len(Affine(2, 2).repeat(0)) == 0


def test_str_shows_the_tree():
    text = str(chainlite.Sequential(Affine(2, 2), F.relu))
    assert text.splitlines()[0] == 'Sequential(' and '(1): relu,' in text
    assert '(l1): Affine()' in str(MLP())


def test_repr_shows_the_tree_too():
    model = chainlite.Sequential(Affine(2, 2), F.relu)
    assert repr(model) == str(model) and repr(model).splitlines()[0] == 'Sequential('
    assert repr(MLP()) == str(MLP()) and '(l1): Affine()' in repr(MLP())
    assert repr([Affine(2, 2)]) == '[Affine()]'


def test_to_device_and_to_cpu_keep_arrays_on_numpy():
    link = WithPersistent()
    with pytest.warns(DeprecationWarning, match=r"to_cpu is deprecated.*to_device\('@numpy'\)"):
        assert link.to_cpu() is link
    assert link.to_device('@numpy') is link
    assert isinstance(link.mean, numpy.ndarray) and link.xp is numpy
    assert str(link.device) == '@numpy'
    with pytest.raises(RuntimeError, match='CUDA is not available'):
        link.to_gpu()


class _CopyingDevice(chainlite.backend.Device):
    # A device of the user's: NumPy arrays, copied on send.
    xp = numpy
    supported_array_types = (numpy.ndarray,)

    def __init__(self, index):
        self.index = index

    def __eq__(self, other):
        return isinstance(other, _CopyingDevice) and other.index == self.index

    def send_array(self, array):
        return array.copy()


def test_to_device_is_remembered_by_links_and_parameters():
    # As in Chainer: the device a link was sent to is what it and its parameters report,
    # uninitialized parameters included.
    outer = chainlite.Chain()
    with outer.init_scope():
        outer.inner = Affine(2, 3)
        outer.lazy = chainlite.Parameter()
    W = outer.inner.W.array
    assert outer.to_device(_CopyingDevice(1)) is outer
    for obj in (outer, outer.inner, outer.inner.W, outer.lazy):
        assert obj.device == _CopyingDevice(1)
    assert outer.inner.W.array is not W  # sent: copied by the device
    numpy.testing.assert_array_equal(outer.inner.W.array, W)
    outer.to_device('@numpy')
    assert outer.lazy.device == outer.device == chainlite.backend.CpuDevice()
    assert chainlite.Variable(numpy.zeros(1)).device == chainlite.backend.CpuDevice()


def test_old_style_keyword_declarations():
    link = chainlite.Link(w=(2, 3))
    assert link.w.shape == (2, 3)
    chain = chainlite.Chain(child=Affine(1, 1))
    assert [p for p, _ in chain.namedlinks()] == ['/', '/child']


def test_link_constructor_takes_shapes_and_shape_dtype_pairs_as_chainer():
    link = chainlite.Link(x=((2, numpy.int64(3)), 'd'), u=(None, 'd'), w=(2, 3), z=3)
    assert link.x.shape == (2, 3) and link.x.dtype == numpy.float64
    assert link.u.array is None
    assert link.w.shape == (2, 3) and link.w.dtype == numpy.float32
    assert link.z.shape == (3,)


# --- Chainer-suite behaviours -------------------------------------------------------------


def test_ordered_names_is_a_set_that_keeps_the_order():
    from chainlite.link import _OrderedNames
    names = _OrderedNames(['b', 'a', 'c'])
    assert isinstance(names, set) and names == {'a', 'b', 'c'}
    assert list(names) == ['b', 'a', 'c'] and list(reversed(names)) == ['c', 'a', 'b']
    names.add('a')
    names.add('d')
    names.discard('b')
    assert list(names) == ['a', 'c', 'd']
    names |= ['e', 'a']
    names -= {'c'}
    assert list(names) == ['a', 'd', 'e']
    names &= {'a', 'e', 'z'}
    assert list(names) == ['a', 'e']
    names ^= {'e', 'f'}
    assert list(names) == ['a', 'f']
    assert names.pop() == 'f' and list(names) == ['a']
    with pytest.raises(KeyError):
        names.remove('zz')
    for clone in (copy.copy(names), copy.deepcopy(names), pickle.loads(pickle.dumps(names))):
        assert type(clone) is _OrderedNames and list(clone) == ['a']
        clone.add('q')
        assert 'q' not in names
    assert repr(names) == "{'a'}"
    names.clear()
    assert not names and list(names) == [] and repr(names) == 'set()'


def test_missing_link_init_is_detected():
    class NoInit(chainlite.Link):
        def __init__(self):
            pass

        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match=r'^Link\.__init__\(\) has not been called\.$'):
        NoInit()(1)

    class ScopeWithoutInit(chainlite.Link):
        def __init__(self):
            with self.init_scope():
                pass

    with pytest.raises(RuntimeError, match='has not been called'):
        ScopeWithoutInit()

    class AddParamWithoutInit(chainlite.Link):
        def __init__(self):
            self.add_param('p', (2,))

    with pytest.raises(RuntimeError, match='has not been called'):
        AddParamWithoutInit()


def test_call_injected_by_a_mixin():
    class CallMixin:
        def __call__(self, x, scale=1):
            return x * scale

    class Injected(chainlite.Link, CallMixin):
        pass

    assert Injected()(3, scale=2) == 6


def test_printable_specs_may_be_a_property():
    class Spec(chainlite.Link):
        @property
        def printable_specs(self):
            yield 'n', 3
            yield 'flag', False

    assert str(Spec()) == 'Spec(n=3, flag=False)'


def test_copy_keeps_the_name_except_in_share_mode():
    m = MLP()
    child = m.l1
    assert child.copy('share').name is None
    assert child.copy('copy').name == 'l1'
    assert child.copy('init').name == 'l1'


def test_overriding_to_cpu_warns_and_to_device_calls_it():
    calls = []
    with pytest.warns(DeprecationWarning, match='Overriding to_cpu is deprecated'):
        class Child(chainlite.Link):
            def to_cpu(self):
                with pytest.warns(DeprecationWarning):
                    super().to_cpu()
                calls.append(self)
                return self

    class Parent(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.child = Child()

    p = Parent()
    p.to_device('@numpy')
    assert calls == [p.child]
    with pytest.warns(DeprecationWarning):
        p.to_cpu()
    assert calls == [p.child, p.child]
    p.child.to_cpu()                         # its own to_cpu does not call itself again
    assert len(calls) == 3
    with pytest.warns(DeprecationWarning, match='to_gpu'):
        class GpuChild(chainlite.Link):
            def to_gpu(self, device=None):
                return self
    with pytest.warns(DeprecationWarning), pytest.raises(RuntimeError):
        chainlite.Link().to_intel64()


def test_chainlist_is_a_mutable_sequence():
    a, b, c, d = (chainlite.Link() for _ in range(4))
    cl = chainlite.ChainList(a, b)
    assert str(chainlite.ChainList()) == 'ChainList()'
    cl[1] = c
    assert list(cl) == [a, c] and c.name == '1'
    cl.append(b)
    cl[3:0:-1] = [d, b]                      # a b d (an extended slice of the same length)
    assert list(cl) == [a, b, d] and [x.name for x in cl] == ['0', '1', '2']
    cl[1:3] = [c]
    assert list(cl) == [a, c] and c.name == '1'
    del cl[0]
    assert list(cl) == [c] and c.name == '0'
    cl.insert(0, a)
    assert list(cl) == [a, c] and a.name == '0' and c.name == '1'
    other = chainlite.ChainList(d)
    cl += other
    assert list(cl) == [a, c, d] and d.name == '2'
    cl.reverse()
    assert list(cl) == [d, c, a] and [x.name for x in cl] == ['0', '1', '2']
    assert cl.index(a) == 2 and cl.count(c) == 1 and c in cl and b not in cl
    assert list(reversed(cl)) == [a, c, d]
    assert cl.pop() is a and cl.pop(0) is d and list(cl) == [c] and c.name == '0'
    cl.remove(c)
    assert len(cl) == 0
    with pytest.raises(TypeError, match='must be a Link'):
        cl.append(3)
    with pytest.raises(TypeError, match='integers or slices'):
        cl['x'] = a
    with pytest.raises(ValueError):
        cl.index(a)
    params = chainlite.ChainList(Affine(2, 3), Affine(3, 1))
    params[0] = Affine(2, 3)
    assert [p for p, _ in params.namedparams()] == ['/0/W', '/0/b', '/1/W', '/1/b']


def test_share_mode_copies_hold_one_array_slot_as_in_chainer():
    # ChainerRL's shared-memory A3C assigns the array of one copy and reads it in another.
    import chainlite.links as L
    original = L.Linear(2, 2)
    a, b = original.copy(), original.copy()
    a.W.array = numpy.zeros((2, 2), numpy.float32)
    assert b.W.array is a.W.array is original.W.array
    original.b.data = numpy.ones(2, numpy.float32)
    assert a.b.array is b.b.array is original.b.array
    a.W.grad = numpy.ones((2, 2), numpy.float32)
    assert b.W.grad is None or b.W.grad is not a.W.grad  # gradients stay their own
    deep = original.copy(mode='copy')
    deep.W.array = numpy.full((2, 2), 5, numpy.float32)
    assert original.W.array is a.W.array and not (original.W.array == 5).any()


@pytest.mark.parametrize('name', ['to_device', 'to_chx', 'from_chx'])
def test_link_device_methods_are_final(name):
    # As in Chainer 7: defining the class already fails, naming the method and the way out.
    with pytest.raises(TypeError, match='%s.*device_resident_accept' % name):
        type('Mover', (chainlite.Link,), {name: lambda self, *args: self})


def test_device_resident_accept_moves_what_a_link_holds():
    class Holder(chainlite.Link):
        def __init__(self):
            super().__init__()
            self.table = numpy.arange(3.0)
            self.visited = 0

        def device_resident_accept(self, visitor):
            super().device_resident_accept(visitor)
            self.visited += 1
            self.table = visitor.visit_array(self.table)

    holder = Holder()
    chain = chainlite.Sequential(holder)
    assert chain.to_device('@numpy') is chain
    assert holder.visited == 1
    numpy.testing.assert_array_equal(holder.table, [0.0, 1.0, 2.0])


@pytest.mark.parametrize('make', [
    lambda: chainlite.links.NegativeSampling(3, [1, 2, 3], 2),
    lambda: chainlite.links.BlackOut(3, [1, 2, 3], 2),
])
def test_sampler_links_move_their_sampler_with_to_device(make):
    link = make()
    link.sampler._device = None              # as if it lived elsewhere
    assert link.to_device('@numpy') is link
    assert link.sampler.device == chainlite.get_device('@numpy')
    assert link.W.device == chainlite.get_device('@numpy')
