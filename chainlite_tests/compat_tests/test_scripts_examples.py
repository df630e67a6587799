"""Scripts of the kinds Chainer's own examples are (a GAN with its own updater, a BPTT
language model with resume, serialization) run unchanged under ``python -m chainlite.compat``.

They take ``--device`` as a string, as Chainer's examples do (argparse hands ``'-1'`` over),
and import ``chainer.datasets`` before anything imported ``chainlite.datasets``.
"""
import json
import os
import re

import numpy

from chainlite_tests.compat_tests.test_scripts_models import _compat, _script


def test_integer_string_device_and_bundled_data_through_the_chainer_names():
    code = ('import chainer\n'
            'from chainer.datasets import get_digits\n'
            'train, test = get_digits()\n'
            'print(chainer.get_device("-1"), len(train), len(test))\n')
    proc = _compat('-c', code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ['@numpy', '1438', '359']


def test_gan_with_two_optimizers_and_its_own_updater(tmp_path):
    out = _script('train_gan.py', '--epoch', '2', '--out', str(tmp_path))
    assert 'Device: @numpy' in out
    with open(os.path.join(str(tmp_path), 'log')) as f:
        log = json.load(f)
    assert {'gen/loss', 'dis/loss'} <= set(log[-1])
    assert all(numpy.isfinite([e['gen/loss'], e['dis/loss']]).all() for e in log)
    images = numpy.load(os.path.join(str(tmp_path), 'preview_iter_90.npy'))
    assert images.shape == (4, 1, 8, 8) and images.dtype == numpy.uint8
    # The generator snapshot loads into a fresh generator.
    with numpy.load(os.path.join(str(tmp_path), 'gen_epoch_2.npz')) as f:
        assert f['dc2/W'].shape == (8, 1, 4, 4)
        assert 'bn1/avg_mean' in f


def test_bptt_language_model_learns_and_resumes(tmp_path):
    out = _script('train_lm_bptt.py', '--epoch', '4', '--out', str(tmp_path / 'full'))
    rows = re.findall(r'^(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)', out, re.M)
    assert [int(r[0]) for r in rows] == [1, 2, 3, 4]
    assert float(rows[-1][2]) < 0.6 * float(rows[0][2])       # about 10 -> 3.3
    assert float(rows[-1][3]) < 5
    # Two epochs, then two more from the snapshot. As in Chainer, PrintReport prints the
    # whole restored log again; the first two rows are those of the first run. (The LSTM's
    # state is not part of a snapshot, so later figures differ a little from the full run.)
    part = tmp_path / 'part'
    out1 = _script('train_lm_bptt.py', '--epoch', '2', '--out', str(part))
    out2 = _script('train_lm_bptt.py', '--epoch', '4', '--out', str(part),
                   '--resume', str(part / 'snapshot_epoch_2'))
    rows1 = re.findall(r'^(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)', out1, re.M)
    rows2 = re.findall(r'^(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)', out2, re.M)
    assert rows2[:2] == rows1 == rows[:2]
    assert [(r[0], r[1]) for r in rows2] == [(r[0], r[1]) for r in rows]
    assert float(rows2[-1][2]) < 0.6 * float(rows2[0][2])


def test_serialization_round_trip(tmp_path):
    out = _script('serialize_model.py', '--out', str(tmp_path))
    assert 'model.npz saved!' in out and 'model.npz loaded!' in out
    assert re.search(r'^persistent\t: \(2, 3\)$', out, re.M)
    assert re.search(r'^l1/W\t: \(5, 4\)$', out, re.M)
