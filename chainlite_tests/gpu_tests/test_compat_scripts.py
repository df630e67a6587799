"""A Chainer-style GPU script under ``python -m chainlite.compat``, run in-process on the GPU.

The script uses what Chainer 7 scripts use for ``--gpu 0``: ``chainer.cuda.get_device_from_id
(0).use()``, ``model.to_gpu()``, ``chainer.backends.cuda.get_array_module``, ``cuda.cupy``,
``cuda.to_gpu``/``to_cpu``, ``chainer.get_device('@cupy:0')`` with ``to_device`` and
``concat_examples(..., device)``, an optimizer and ``chainer.cuda.available``. It runs through
``chainlite.compat.__main__.main`` (as ``python -m chainlite.compat script.py --gpu N``) with
the GPU module installed, once on the CPU (``--gpu -1``) and once on the GPU; the GPU run's
losses and parameters equal the CPU run's.
"""
import json
import sys
import textwrap

import numpy
import pytest

from chainlite import compat
from chainlite.compat import __main__ as compat_main

SCRIPT = textwrap.dedent('''
    import argparse
    import json

    import numpy as np

    import chainer
    import chainer.functions as F
    import chainer.links as L
    from chainer import cuda
    from chainer import optimizers
    from chainer.backends import cuda as backends_cuda
    from chainer.dataset import concat_examples

    parser = argparse.ArgumentParser()
    parser.add_argument('--gpu', type=int, default=-1)
    parser.add_argument('--out')
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    model = L.Classifier(L.Linear(4, 3, initialW=rng.uniform(-1, 1, (3, 4))))
    if args.gpu >= 0:
        assert chainer.cuda.available and cuda.available
        chainer.cuda.get_device_from_id(args.gpu).use()
        model.to_gpu()
        xp = cuda.cupy
        device = chainer.get_device('@cupy:%d' % args.gpu)
    else:
        xp = np
        device = chainer.get_device('@numpy')
    optimizer = optimizers.MomentumSGD(lr=0.1)
    optimizer.setup(model)

    data = [(rng.uniform(-1, 1, 4).astype(np.float32), np.int32(i % 3)) for i in range(6)]
    losses = []
    for epoch in range(4):
        x, t = concat_examples(data, device)
        assert backends_cuda.get_array_module(x) is xp
        assert chainer.backend.get_array_module(model.predictor.W) is xp
        loss = model(x, t)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append(float(cuda.to_cpu(loss.array)))
        assert isinstance(loss.array, xp.ndarray)
    if args.gpu >= 0:
        # Data sent by hand, Chainer 5 style.
        y = model.predictor(cuda.to_gpu(data[0][0][None]))
        assert cuda.get_device_from_array(y.array).id == args.gpu
        model.to_cpu()
    W = model.predictor.W.array
    assert isinstance(W, np.ndarray)
    with open(args.out, 'w') as f:
        json.dump({'losses': losses, 'W': W.tolist(), 'accuracy':
                   float(cuda.to_cpu(model.accuracy.array))}, f)
''')


def _run(tmp_path, monkeypatch, gpu):
    script = tmp_path / 'train_mlp.py'
    script.write_text(SCRIPT)
    out = tmp_path / ('gpu%d.json' % gpu)
    # main() sets argv and the script's folder as sys.path[0], as `python script.py` would.
    monkeypatch.setattr(sys, 'argv', list(sys.argv))
    monkeypatch.setattr(sys, 'path', list(sys.path))
    try:
        assert compat_main.main([str(script), '--gpu', str(gpu), '--out', str(out)]) == 0
    finally:
        compat.uninstall()
    return json.loads(out.read_text())


# chainlite warns that Link.to_gpu/to_cpu are deprecated (Chainer 7 says so in its docs).
@pytest.mark.filterwarnings('ignore:to_gpu is deprecated:DeprecationWarning')
@pytest.mark.filterwarnings('ignore:to_cpu is deprecated:DeprecationWarning')
def test_chainer_gpu_script_runs_and_matches_the_cpu(gpu_xp, tmp_path, monkeypatch):
    cpu = _run(tmp_path, monkeypatch, -1)
    gpu = _run(tmp_path, monkeypatch, 0)
    _assert_close(gpu, cpu)
    assert cpu['losses'][-1] < cpu['losses'][0]
    if gpu_xp.cuda.runtime.getDeviceCount() >= 2:  # the second GPU as well
        _assert_close(_run(tmp_path, monkeypatch, 1), cpu)


def _assert_close(result, expected):
    # Key by key: pytest 9.2's approx refuses nested containers in a dict.
    assert sorted(result) == sorted(expected)
    for key in expected:
        numpy.testing.assert_allclose(result[key], expected[key], rtol=1e-4, atol=1e-5,
                                      err_msg=key)


def test_chainer_cuda_names_map_to_chainlites(gpu_xp, chainer_module):
    from chainlite.backends import cuda
    assert chainer_module.cuda is cuda
    assert chainer_module.backends.cuda is cuda
    assert chainer_module.cuda.cupy is gpu_xp
    assert chainer_module.backend.GpuDevice is chainer_module.cuda.GpuDevice
    device = chainer_module.get_device(0)
    assert str(device) == '@cupy:0' and device.xp is gpu_xp


@pytest.fixture
def chainer_module():
    import importlib
    compat.install()
    try:
        yield importlib.import_module('chainer')
    finally:
        compat.uninstall()
