"""Tests of DumpGraph (training/extensions/computational_graph.py); the expected dump was
written by Chainer 7.8.1's DumpGraph for the same model and updater."""
import os
import re
import stat
import types

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import optimizers
from chainlite import serializers
from chainlite import training
from chainlite.training import extensions


class _LossUpdater(training.Updater):
    """Reports sum(relu(model(x))) as 'main/loss' (and a float as 'main/n')."""

    def __init__(self, optimizer):
        self.optimizer, self.iteration = optimizer, 0

    epoch_detail = property(lambda self: float(self.iteration))

    def get_optimizer(self, name):
        return self.optimizer

    def get_all_optimizers(self):
        return {'main': self.optimizer}

    def update(self):
        model = self.optimizer.target
        x = chainlite.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name='x')
        loss = F.sum(F.relu(model(x)))
        chainlite.report({'loss': loss, 'n': 1.0}, model)
        self.iteration += 1

    def finalize(self):
        pass

    def serialize(self, serializer):
        pass


@pytest.fixture(autouse=True)
def _restore_config():
    saved = dict(vars(chainlite.config))
    yield
    vars(chainlite.config).clear()
    vars(chainlite.config).update(saved)


def _trainer(out, ext, n=3):
    optimizer = optimizers.SGD()
    optimizer.setup(chainlite.links.Linear(3, 2))
    trainer = training.Trainer(_LossUpdater(optimizer), (n, 'iteration'), out=str(out))
    trainer.extend(ext)
    return trainer


def _canon(dot):
    labels = dict(re.findall(r'(\d+) \[label="([^"]*)"', dot))
    nodes = sorted(re.findall(r'\d+ \[([^\]]*)\];', dot))
    edges = sorted('%s -> %s' % (labels[a], labels[b])
                   for a, b in re.findall(r'(\d+) -> (\d+);', dot))
    return dot[:dot.index(';') + 1], nodes, edges


_V = ',shape="octagon",fillcolor="#E0E0E0",style="filled"'
_F = ',shape="record",fillcolor="#6495ED",style="filled"'
_CHAINER_DUMP = (
    'digraph graphname{rankdir=TB;',
    ['label="(2, 2), float32"' + _V, 'label="(2, 2), float32"' + _V,
     'label="LinearFunction"' + _F, 'label="ReLU"' + _F, 'label="Sum"' + _F,
     'label="W: (2, 3), float32"' + _V, 'label="b: (2), float32"' + _V,
     'label="float32"' + _V, 'label="x: (2, 3), float32"' + _V],
    ['(2, 2), float32 -> ReLU', '(2, 2), float32 -> Sum', 'LinearFunction -> (2, 2), float32',
     'ReLU -> (2, 2), float32', 'Sum -> float32', 'W: (2, 3), float32 -> LinearFunction',
     'b: (2), float32 -> LinearFunction', 'x: (2, 3), float32 -> LinearFunction'])


def test_dumps_the_loss_graph_as_chainer(tmp_path, monkeypatch):
    monkeypatch.setenv('PATH', str(tmp_path / 'empty'))  # no Graphviz: the DOT file only
    ext = extensions.DumpGraph('main/loss')
    trainer = _trainer(tmp_path / 'out', ext)
    trainer.run()
    assert _canon((tmp_path / 'out' / 'cg.dot').read_text()) == _CHAINER_DUMP
    assert os.listdir(tmp_path / 'out') == ['cg.dot']
    assert chainlite.config.keep_graph_on_report is False
    assert ext._flag_called


def test_fires_once_and_keeps_graphs_only_until_then(tmp_path):
    ext = extensions.DumpGraph('main/loss', filename='graph.dot')
    trainer = _trainer(tmp_path, ext)
    kept = []
    trainer.extend(lambda t: kept.append(t.observation['main/loss'].creator is not None),
                   name='spy', priority=0)
    trainer.run()
    # The graph of the first loss was kept for the dump; the flag was off afterwards.
    assert kept == [True, False, False]
    assert ext.trigger(trainer) is False
    assert (tmp_path / 'graph.dot').read_text().startswith('digraph graphname{rankdir=TB;')


def test_keep_graph_flag_restored_to_its_original_value(tmp_path):
    chainlite.config.keep_graph_on_report = True
    trainer = _trainer(tmp_path, extensions.DumpGraph('main/loss'))
    trainer.run()
    assert chainlite.config.keep_graph_on_report is True


def test_styles_out_name_and_alias(tmp_path):
    assert extensions.dump_graph is extensions.DumpGraph
    ext = extensions.dump_graph('main/loss', out_name='old.dot', variable_style={'color': 'red'},
                                function_style={})
    assert ext.default_name == 'dump_graph'
    _trainer(tmp_path, ext, n=1).run()
    _, nodes, _ = _canon((tmp_path / 'old.dot').read_text())
    assert 'label="ReLU",shape="box"' in nodes
    assert 'label="float32",shape="oval",color="red"' in nodes
    with pytest.raises(TypeError, match='DumpGraph.*outname'):
        extensions.DumpGraph('main/loss', outname='x.dot')


def test_renders_png_when_graphviz_is_installed(tmp_path, monkeypatch):
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    dot = bin_dir / 'dot'
    dot.write_text('#!/bin/sh\n[ "$1" = -V ] && exit 0\n# dot -Tpng IN -o OUT\n'
                   'echo "$1 $2" > "$4"\n')
    dot.chmod(dot.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv('PATH', str(bin_dir))
    _trainer(tmp_path / 'out', extensions.DumpGraph('main/loss', filename='g.dot'), n=1).run()
    assert (tmp_path / 'out' / 'g.png').read_text() == '-Tpng %s\n' % (tmp_path / 'out' / 'g.dot')


def test_is_graphviz_available_runs_dot(tmp_path, monkeypatch):
    from chainlite.training.extensions import computational_graph as cg
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    monkeypatch.setenv('PATH', str(bin_dir))
    assert not cg.is_graphviz_available()  # not installed
    dot = bin_dir / 'dot'
    dot.write_text('#!/bin/sh\nexit 1\n')
    dot.chmod(dot.stat().st_mode | stat.S_IXUSR)
    assert not cg.is_graphviz_available()  # installed but broken
    dot.write_text('#!/bin/sh\n[ "$1" = -V ] && exit 0\nexit 1\n')
    assert cg.is_graphviz_available()
    assert not cg.is_return_code_zero([str(tmp_path / 'missing')])


def test_errors_restore_the_flag(tmp_path):
    for root, error in (('main/n', TypeError), ('main/nothing', KeyError)):
        ext = extensions.DumpGraph(root)
        trainer = _trainer(tmp_path, ext, n=1)
        with pytest.raises(error, match='main/n'):
            trainer.run(show_loop_exception_msg=False)
        assert chainlite.config.keep_graph_on_report is False


def test_serialize_resume_after_the_dump(tmp_path):
    ext = extensions.DumpGraph('main/loss')
    s = serializers.DictionarySerializer()
    ext.serialize(s)
    assert sorted(s.target) == ['_flag_called', '_original_flag']
    _trainer(tmp_path, ext, n=1).run()
    s = serializers.DictionarySerializer()
    ext.serialize(s)
    resumed = extensions.DumpGraph('main/loss')
    serializers.NpzDeserializer(s.target).load(resumed)
    assert (resumed._flag_called, resumed._original_flag) == (True, False)
    resumed.initialize(types.SimpleNamespace())
    assert chainlite.config.keep_graph_on_report is False
    assert resumed.trigger(None) is False
