"""Files written by Chainer 7.8.1 load into chainlite, and chainlite writes the same layout.

The files in ``data/`` come from ``data/README.md`` (its generator script, run with Chainer).
Tests that need a link or optimizer not written yet are skipped until it exists.
"""
import io
import json
import pathlib

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import serializers
from chainlite.serializers import npz

DATA = pathlib.Path(__file__).parent / 'data'
MODEL = DATA / 'chainer_mlp_model.npz'
ADAM = DATA / 'chainer_mlp_adam.npz'
CHAIN_LIST = DATA / 'chainer_chainlist.npz'
LAZY = DATA / 'chainer_lazy_linear.npz'
SNAPSHOT = DATA / 'chainer_trainer_snapshot.npz'


def _arrays(path):
    """The arrays of a Chainer file, read by NumPy without pickle (None entries left out)."""
    with numpy.load(path, allow_pickle=False) as f:
        return {key: f[key] for key in f.files if key not in _none_keys(path)}


def _none_keys(path):
    with npz._NpzArchive(path) as archive:
        return {key for key in archive if archive[key] is None}


def _expected():
    with open(DATA / 'chainer_mlp_expected.json') as f:
        return json.load(f)


def _links(*names):
    """chainlite.links, or a skip while one of the named links is not written yet."""
    import chainlite.links as L
    missing = [name for name in names if not hasattr(L, name)]
    if missing:
        pytest.skip('chainlite.links has no %s yet' % ', '.join(missing))
    return L


def _adam():
    import chainlite.optimizers as O
    if not hasattr(O, 'Adam'):
        pytest.skip('chainlite.optimizers has no Adam yet')
    return O.Adam


def _mlp():
    L = _links('Linear', 'BatchNormalization')

    class MLP(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(4, 5)
                self.bn = L.BatchNormalization(5)
                self.l2 = L.Linear(5, 3)

        def forward(self, x):
            return self.l2(self.bn(F.relu(self.l1(x))))

    return MLP()


class _Wrapper(chainlite.Chain):
    """Classifier's layout and loss (a 'predictor' child, softmax cross entropy), no reports."""

    def __init__(self, predictor):
        super().__init__()
        with self.init_scope():
            self.predictor = predictor

    def forward(self, x, t):
        return F.softmax_cross_entropy(self.predictor(x), t)


def _classifier(kind, predictor):
    if kind == 'wrapper':
        return _Wrapper(predictor)
    return _links('Classifier').Classifier(predictor)


class Tree:
    """A hand-written serializable object: named values, then named children."""

    def __init__(self, values=None, children=None):
        self.values = dict(values or {})
        self.children = dict(children or {})

    def serialize(self, serializer):
        for name in self.values:
            self.values[name] = serializer(name, self.values[name])
        for name, child in self.children.items():
            child.serialize(serializer[name])


# -- the files, read with hand-written objects ------------------------------------------------

def test_chainer_files_are_read_without_pickle():
    for path in (MODEL, ADAM, CHAIN_LIST, LAZY, SNAPSHOT):
        with npz._NpzArchive(path) as archive:
            loaded = {key: archive[key] for key in archive}
        expected = _arrays(path)
        assert set(loaded) == set(expected) | _none_keys(path)
        for key, array in expected.items():
            assert loaded[key].dtype == array.dtype
            numpy.testing.assert_array_equal(loaded[key], array)
    assert _none_keys(LAZY) == {'W'}  # Chainer pickles None (numpy 1.26, protocol 3)


def test_chainer_model_into_hand_written_objects():
    def layer(n_out, n_in):
        return Tree({'W': numpy.zeros((n_out, n_in), numpy.float32),
                     'b': numpy.zeros(n_out, numpy.float32)})

    bn = Tree({name: numpy.zeros(5, numpy.float32)
               for name in ('gamma', 'beta', 'avg_mean', 'avg_var')})
    bn.values['N'] = 7
    model = Tree(children={'predictor': Tree(children={
        'l1': layer(5, 4), 'bn': bn, 'l2': layer(3, 5)})})
    serializers.load_npz(MODEL, model)
    arrays = _arrays(MODEL)
    p = model.children['predictor'].children
    numpy.testing.assert_array_equal(p['l1'].values['W'], arrays['predictor/l1/W'])
    numpy.testing.assert_array_equal(p['bn'].values['avg_var'], arrays['predictor/bn/avg_var'])
    assert p['bn'].values['N'] == 0 and type(p['bn'].values['N']) is int


def test_chainer_optimizer_state_loads_into_empty_state():
    # An update rule that has not run yet asks for its state with None, as Chainer's does.
    names = ['l1/W', 'l1/b', 'bn/gamma', 'bn/beta', 'l2/W', 'l2/b']
    opt = Tree({'t': 0, 'epoch': 0}, {
        'predictor/' + name: Tree({'t': 0, 'm': None, 'v': None}) for name in names})
    serializers.load_npz(ADAM, opt)
    assert opt.values == {'t': 3, 'epoch': 0}
    rule = opt.children['predictor/l1/W'].values
    assert rule['t'] == 3
    numpy.testing.assert_array_equal(rule['m'], _arrays(ADAM)['predictor/l1/W/m'])
    assert rule['v'].shape == (5, 4) and rule['v'].dtype == numpy.float32


def test_chainer_trainer_snapshot_scalars_and_sub_tree():
    snapshot = Tree(children={'updater': Tree(
        {'iteration': 0},
        {'iterator:main': Tree({'current_position': 0, 'epoch': 0, 'is_new_epoch': True,
                                'previous_epoch_detail': 0.0})})})
    serializers.load_npz(SNAPSHOT, snapshot, strict=False)
    updater = snapshot.children['updater']
    assert updater.values == {'iteration': 3}
    it = updater.children['iterator:main'].values
    assert it == {'current_position': 4, 'epoch': 1, 'is_new_epoch': False,
                  'previous_epoch_detail': 1.0}
    assert [type(v) for v in it.values()] == [int, int, bool, float]

    model = Tree(children={'predictor': Tree({'W': numpy.zeros((3, 4), numpy.float32),
                                              'b': numpy.zeros(3, numpy.float32)})})
    serializers.load_npz(SNAPSHOT, model, path='updater/model:main/')
    numpy.testing.assert_array_equal(model.children['predictor'].values['W'],
                                     _arrays(SNAPSHOT)['updater/model:main/predictor/W'])
    with pytest.raises(KeyError, match="'updater/model:main/W' is not in .*trainer_snapshot"):
        serializers.load_npz(SNAPSHOT, Tree({'W': None}), path='updater/model:main/')


# -- the files and chainlite's links ----------------------------------------------------------

@pytest.mark.parametrize('kind', ['wrapper', 'classifier'])
def test_model_key_layout_equals_chainers(kind):
    model = _classifier(kind, _mlp())
    saved = npz.serialize(model)
    chainer = _arrays(MODEL)
    assert set(saved) == set(chainer)
    for key, array in chainer.items():
        assert (saved[key].dtype, saved[key].shape) == (array.dtype, array.shape), key


def test_chainer_model_loads_into_chainlite_links():
    mlp = _mlp()
    serializers.load_npz(MODEL, mlp, path='predictor/')
    arrays = _arrays(MODEL)
    for name, param in mlp.namedparams():
        numpy.testing.assert_array_equal(param.array, arrays['predictor' + name])
    numpy.testing.assert_array_equal(mlp.bn.avg_mean, arrays['predictor/bn/avg_mean'])
    assert mlp.bn.N == 0


def test_chain_list_layout_and_lazy_initialization():
    L = _links('Linear')
    chain_list = chainlite.ChainList(L.Linear(None, 4), L.Linear(None, 2, nobias=True))
    serializers.load_npz(CHAIN_LIST, chain_list)
    arrays = _arrays(CHAIN_LIST)
    numpy.testing.assert_array_equal(chain_list[0].W.array, arrays['0/W'])
    numpy.testing.assert_array_equal(chain_list[1].W.array, arrays['1/W'])
    saved = npz.serialize(chain_list)
    assert {k: (v.dtype, v.shape) for k, v in saved.items()} == {
        k: (v.dtype, v.shape) for k, v in arrays.items()}


def test_a_none_saved_by_chainer_leaves_the_parameter_uninitialized():
    L = _links('Linear')
    linear = L.Linear(None, 3)
    serializers.load_npz(LAZY, linear)
    assert linear.W.array is None
    numpy.testing.assert_array_equal(linear.b.array, _arrays(LAZY)['b'])
    saved = npz.serialize(linear)  # and it is written back the way Chainer wrote it
    assert saved['W'].dtype == object and saved['W'][()] is None


def test_model_from_a_chainer_trainer_snapshot():
    L = _links('Linear')
    model = _Wrapper(L.Linear(4, 3))
    serializers.load_npz(SNAPSHOT, model, path='updater/model:main/')
    numpy.testing.assert_array_equal(model.predictor.b.array,
                                     _arrays(SNAPSHOT)['updater/model:main/predictor/b'])


@pytest.mark.parametrize('kind', ['wrapper', 'classifier'])
def test_training_continues_as_in_chainer(kind):
    model = _classifier(kind, _mlp())
    Adam = _adam()
    expected = _expected()
    optimizer = Adam(alpha=expected['adam_alpha'])
    optimizer.setup(model)
    serializers.load_npz(MODEL, model)
    serializers.load_npz(ADAM, optimizer)
    assert optimizer.t == 3

    losses = []
    for batch in expected['batches']:
        x = numpy.array(batch['x'], numpy.float32)
        t = numpy.array(batch['t'], numpy.int32)
        model.cleargrads()
        loss = model(x, t)
        loss.backward()
        optimizer.update()
        losses.append(float(loss.array))
    numpy.testing.assert_allclose(losses, expected['losses'], rtol=1e-5)
    for name, param in model.namedparams():
        numpy.testing.assert_allclose(param.array, expected['params'][name.lstrip('/')],
                                      rtol=1e-5, atol=1e-6, err_msg=name)
    bn = model.predictor.bn
    persistents = expected['persistents']
    numpy.testing.assert_allclose(bn.avg_mean, persistents['predictor/bn/avg_mean'], rtol=1e-5)
    numpy.testing.assert_allclose(bn.avg_var, persistents['predictor/bn/avg_var'], rtol=1e-5)
    assert optimizer.t == expected['optimizer_t']

    # The reverse direction: what chainlite writes has the keys, dtypes and shapes of the
    # files Chainer wrote, so Chainer's NpzDeserializer loads it.
    for obj, path in ((model, MODEL), (optimizer, ADAM)):
        buf = io.BytesIO()
        serializers.save_npz(buf, obj)
        buf.seek(0)
        with numpy.load(buf, allow_pickle=False) as saved:
            assert {k: (saved[k].dtype, saved[k].shape) for k in saved.files} == {
                k: (v.dtype, v.shape) for k, v in _arrays(path).items()}
