"""Every module-level name of Chainer 7.8.1 that code outside Chainer can import, under compat.

``chainer_names.json`` (written by ``chainer_names.py`` from Chainer's source: the rules are in
its docstring) lists Chainer's modules and their names. Under :func:`chainlite.compat.install`
each module must import and each name must resolve, except:

* :data:`EXCLUDED`: what does not apply to chainlite at all, each with its reason. A CUDA or
  ChainerX internal is not excluded: chainlite offers it as Chainer behaves without a GPU.
* ``chainer_names_known_missing.txt``: names chainlite does not offer yet, one a line. The
  list may only shrink: a listed name that resolves fails the test until it is taken off the
  list, so the file stays an honest count of what is left.

The failure message lists the missing names grouped by module.
"""
import collections
import importlib
import json
import os
import warnings

import pytest

from chainlite import compat

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES_FILE = os.path.join(HERE, 'chainer_names.json')
KNOWN_MISSING_FILE = os.path.join(HERE, 'chainer_names_known_missing.txt')

#: Modules (with everything in them) or ``module.name`` that do not apply, with the reason.
EXCLUDED = {
    'chainer.functions.theano': 'Theano ended in 2017; chainlite has no Theano bridge',
    'chainer.links.theano': 'Theano ended in 2017; chainlite has no Theano bridge',
    'chainer.links.TheanoFunction': 'Theano ended in 2017; chainlite has no Theano bridge',
    'onnx_chainer.testing.test_mxnet': 'MXNet backend checks of onnx_chainer\'s own tests; '
                                       'MXNet is retired (Apache attic, 2023)',
}
# Chainer defines these only when CuPy imports (under ``if available:``): Chainer without a GPU
# has none of them either.
EXCLUDED.update(dict.fromkeys(
    ['chainer.backends.cuda.' + n for n in ('cudnn', 'libcudnn', 'memory_pool',
                                            'pinned_memory_pool')],
    'defined by Chainer only where CuPy imports; absent in Chainer without a GPU too'))
# Chainer's modules that use cuDNN bind these only under ``if cuda.cudnn_enabled:``: absent in
# Chainer without a GPU too.
EXCLUDED.update(dict.fromkeys(
    ['chainer.functions.%s.%s' % (m, n) for m, names in (
        ('activation.clipped_relu', ('cudnn',)), ('activation.log_softmax', ('cudnn',)),
        ('activation.relu', ('cudnn',)), ('activation.sigmoid', ('cudnn',)),
        ('activation.softmax', ('cudnn',)), ('activation.tanh', ('cudnn',)),
        ('array.spatial_transformer_grid', ('cudnn', 'libcudnn')),
        ('array.spatial_transformer_sampler', ('cudnn', 'libcudnn')),
        ('noise.dropout', ('cudnn',)),
        ('normalization.batch_normalization', ('cudnn', 'libcudnn')),
        ('normalization.group_normalization', ('cudnn', 'libcudnn')),
        ('pooling.pooling_2d', ('cudnn',)), ('pooling.pooling_nd', ('cudnn',)),
        ('rnn.n_step_gru', ('cudnn',)), ('rnn.n_step_lstm', ('cudnn',)),
        ('rnn.n_step_rnn', ('cudnn', 'libcudnn'))) for n in names],
    'bound by Chainer only where cuDNN is enabled; absent in Chainer without a GPU too'))
# Chainer defines these only on Windows (under ``if os.name == 'nt':``).
EXCLUDED.update(dict.fromkeys(
    ['chainer.training.extensions.util.' + n for n in (
        '_COORD', '_SMALL_RECT', '_CONSOLE_SCREEN_BUFFER_INFO', 'set_console_cursor_position',
        'erase_console')],
    'Windows console calls (ctypes.windll), defined by Chainer only on Windows'))


def _excluded(dotted):
    return any(dotted == e or dotted.startswith(e + '.') for e in EXCLUDED)


def _load():
    with open(NAMES_FILE) as f:
        data = json.load(f)
    with open(KNOWN_MISSING_FILE) as f:
        known = {line.strip() for line in f
                 if line.strip() and not line.lstrip().startswith('#')}
    return data, known


def resolve_all(modules):
    """Returns the listed ``module`` and ``module.name`` strings that do not resolve.

    Args:
        modules: ``{module: [names]}`` as in ``chainer_names.json``.

    Returns:
        The set of dotted names that fail: a module that does not import stands for itself
        and for each of its names.
    """
    missing = set()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # deprecated names warn when read
        for module_name, names in modules.items():
            if _excluded(module_name):
                continue
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                missing.add(module_name)
                missing.update(d for d in ('%s.%s' % (module_name, n) for n in names)
                               if not _excluded(d))
                continue
            for name in names:
                dotted = '%s.%s' % (module_name, name)
                if _excluded(dotted):
                    continue
                try:
                    getattr(module, name)
                except AttributeError:
                    missing.add(dotted)
    return missing


def _grouped(dotted_names, modules):
    groups = collections.defaultdict(list)
    for dotted in sorted(dotted_names):
        if dotted in modules:
            groups[dotted].insert(0, '(module)')
        else:
            module, _, name = dotted.rpartition('.')
            groups[module].append(name)
    return '\n'.join('  %s: %s' % (m, ', '.join(n)) for m, n in sorted(groups.items()))


@pytest.fixture(scope='module')
def outcome():
    data, known = _load()
    compat.install()
    try:
        missing = resolve_all(data['modules'])
    finally:
        compat.uninstall()
    return data, known, missing


def test_the_list_is_chainers_tree(outcome):
    data, known, _ = outcome
    modules = data['modules']
    assert data['chainer_version'] == compat.CHAINER_VERSION
    assert len(modules) > 500 and sum(map(len, modules.values())) > 2000
    # Spot checks of the rules of chainer_names.py.
    assert 'Variable' in modules['chainer'] and 'relu' in modules['chainer.functions']
    assert '_lstm' in modules['chainer.functions.rnn.n_step_lstm']
    assert 'no_backprop_mode' in modules['chainer.function']
    assert 'numpy' not in modules['chainer.functions.activation.relu']
    assert 'chainer._environment_check' not in modules and 'chainer._environment_check' in \
        data['skipped']
    for entry in EXCLUDED:
        module = entry if entry in modules else entry.rpartition('.')[0]
        assert module in modules, entry  # an exclusion names something listed


def test_every_listed_name_resolves(outcome):
    data, known, missing = outcome
    unexpected = missing - known
    assert not unexpected, (
        '%d Chainer names do not resolve under chainlite.compat (by module):\n%s'
        % (len(unexpected), _grouped(unexpected, data['modules'])))


def test_known_missing_list_is_honest(outcome):
    data, known, missing = outcome
    listed = set()
    for module, names in data['modules'].items():
        listed.add(module)
        listed.update('%s.%s' % (module, n) for n in names)
    assert not known - listed, 'not in chainer_names.json: %s' % sorted(known - listed)
    now_present = known - missing
    assert not now_present, (
        'these resolve now: take them off chainer_names_known_missing.txt:\n%s'
        % _grouped(now_present, data['modules']))


def test_hook_still_names_what_is_missing():
    # An excluded module fails as the hook promises: with the name of what is missing.
    compat.install()
    try:
        with pytest.raises(ModuleNotFoundError, match='chainer.links.theano'):
            importlib.import_module('chainer.links.theano')
    finally:
        compat.uninstall()
