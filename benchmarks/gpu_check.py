#!/usr/bin/env python3
"""The GPU check: one script, under 8 minutes, for a machine with an NVIDIA GPU and CuPy.

It runs, in order, and prints what each gave:

1. the GPU test matrix (``chainlite_tests/gpu_tests``: every function, link, optimizer, the
   training loop and the serializers, GPU against CPU) on real CuPy (``CHAINLITE_TEST_GPU=1``);
2. Chainer 7.8.1's own GPU tests for functions, links and optimizers through
   ``../shared/chainer_suite/run_suite.sh --gpu``, when ``CHAINER_MIRROR`` names a copy of
   Chainer's repository (the GPU machine cannot fetch one);
3. ``examples/train_digits.py --device 0`` (the README's example on the GPU);
4. the ``mlp_step``, ``resnet_step`` and ``lstm_lm_step`` workloads of ``benchmarks/cases``
   on the GPU against PyTorch CUDA eager in the same run (median step time after warm-up,
   the device synchronized around each timed step), with the issue's targets: mlp_step
   <= 1.3x PyTorch's time, lstm_lm_step <= 1.5x, resnet_step <= 2.0x.

    python benchmarks/gpu_check.py                 # everything
    python benchmarks/gpu_check.py --only bench    # one part: tests, chainer, example, bench
    python benchmarks/gpu_check.py --stand-in --only bench --steps 2   # logic check, no GPU

``--stand-in`` times the workloads on chainlite's NumPy-backed CuPy stand-in instead (no
PyTorch twin): it only checks that the script's GPU code paths run. The exit status is 1 if
a part failed; a missed target is only reported.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

TARGETS = {'mlp_step': 1.3, 'lstm_lm_step': 1.5, 'resnet_step': 2.0}


def _run(title, cmd, timeout, env=None):
    """Runs a command, prints its last lines; returns True when it succeeded."""
    print('== %s: %s' % (title, ' '.join(cmd)), flush=True)
    start = time.perf_counter()
    try:
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                             env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        print('   TIMEOUT after %d s' % timeout)
        return False
    tail = (out.stdout + out.stderr).strip().splitlines()[-12:]
    for line in tail:
        print('   ' + line)
    print('   exit %d in %.0f s' % (out.returncode, time.perf_counter() - start), flush=True)
    return out.returncode == 0


def part_tests():
    return _run('GPU test matrix on real CuPy',
                # Every failure counts (not -x), but a broken backend stops early; the
                # first kernels of each kind compile on first use, hence the budget.
                [sys.executable, '-m', 'pytest', '-q', '--maxfail=30', '--no-header', '-p',
                 'no:cacheprovider', 'chainlite_tests/gpu_tests'], 300,
                {'CHAINLITE_TEST_GPU': '1'})


def part_chainer():
    mirror = os.environ.get('CHAINER_MIRROR')
    script = os.path.join(ROOT, '..', 'shared', 'chainer_suite', 'run_suite.sh')
    if not mirror or not os.path.exists(script):
        print('== Chainer 7.8.1 GPU tests: skipped (set CHAINER_MIRROR to a copy of '
              'chainer/chainer and keep ../shared/chainer_suite beside the checkout)')
        return True
    return _run('Chainer 7.8.1 GPU tests (functions, links, optimizers)',
                ['bash', script, '--gpu', '--only', 'functions_tests,links_tests,'
                 'optimizers_tests', '--test-timeout', '60'], 240,
                {'CHAINLITE_SRC': ROOT, 'CHAINER_MIRROR': mirror})


def part_example():
    return _run('examples/train_digits.py on GPU 0',
                [sys.executable, 'examples/train_digits.py', '--device', '0'], 150)


# -- the workloads --------------------------------------------------------------------------

def _sync(xp):
    if hasattr(xp, 'cuda') and hasattr(xp.cuda, 'Device'):
        xp.cuda.Device().synchronize()


def _chainlite_steps(xp, device):
    """The three workloads as chainlite steps on ``device``: name -> step()."""
    import chainlite
    import chainlite.functions as F
    import chainlite.links as L
    from chainlite import optimizers
    from cases import lstm_lm_step, mlp_step, resnet_step

    steps = {}
    x, t, Ws, bs = mlp_step._arrays()
    mlp = chainlite.Sequential(*[L.Linear(W.shape[1], W.shape[0]) for W in Ws])
    for link, W, b in zip(mlp, Ws, bs):
        link.W.array[...] = W
        link.b.array[...] = b
    mlp.to_device(device)
    opt = optimizers.Adam(alpha=mlp_step.ALPHA, beta1=mlp_step.BETA1, beta2=mlp_step.BETA2,
                          eps=mlp_step.ADAM_EPS)
    opt.setup(mlp)
    gx, gt = xp.asarray(x), xp.asarray(t)

    def mlp_one():
        mlp.cleargrads()
        h = gx
        for k, link in enumerate(mlp):
            h = link(h)
            if k < len(Ws) - 1:
                h = F.relu(h)
        loss = F.softmax_cross_entropy(h, gt)
        loss.backward()
        opt.update()
        return loss
    steps['mlp_step'] = mlp_one

    x, r, Ws = resnet_step._arrays()
    res = chainlite.ChainList(*[resnet_step._Block(Ws[2 * i], Ws[2 * i + 1])
                                for i in range(resnet_step.BLOCKS)])
    res.to_device(device)
    ropt = optimizers.MomentumSGD(lr=resnet_step.LR, momentum=resnet_step.MOMENTUM)
    ropt.setup(res)
    rx, rr = xp.asarray(x), xp.asarray(r)

    def resnet_one():
        res.cleargrads()
        h = rx
        for block in res:
            h = block(h)
        loss = F.sum(h * rr) / resnet_step.N
        loss.backward()
        ropt.update()
        return loss
    steps['resnet_step'] = resnet_one

    xs, ts, arrays = lstm_lm_step._arrays()
    lm = lstm_lm_step._LM()
    params = (lm.embed.W, lm.lstm.upward.W, lm.lstm.upward.b, lm.lstm.lateral.W, lm.out.W,
              lm.out.b)
    for p, a in zip(params, arrays):
        p.array[...] = a
    lm.to_device(device)
    lopt = optimizers.Adam(alpha=lstm_lm_step.ALPHA, beta1=lstm_lm_step.BETA1,
                           beta2=lstm_lm_step.BETA2, eps=lstm_lm_step.ADAM_EPS)
    lopt.setup(lm)
    lxs, lts = [xp.asarray(a) for a in xs], [xp.asarray(a) for a in ts]

    def lstm_one():
        lm.cleargrads()
        loss = 0
        for xi, ti in zip(lxs, lts):
            loss += F.softmax_cross_entropy(lm.out(lm.lstm(lm.embed(xi))), ti)
        loss.backward()
        loss.unchain_backward()
        lopt.update()
        return loss
    steps['lstm_lm_step'] = lstm_one
    return steps


def _torch_steps():
    """The PyTorch twins of ``benchmarks/cases``, eager on CUDA: name -> step().

    The same models, data and optimizers as the cases' ``torch_case()`` (which read gradients
    back to NumPy for their checks, so cannot run on CUDA as they are).
    """
    import torch
    from torch import nn
    from cases import lstm_lm_step, mlp_step, resnet_step
    dev = torch.device('cuda')
    steps = {}

    x, t, Ws, bs = mlp_step._arrays()
    layers = []
    for W, b in zip(Ws, bs):
        layer = nn.Linear(W.shape[1], W.shape[0]).to(dev)
        with torch.no_grad():
            layer.weight.copy_(torch.tensor(W))
            layer.bias.copy_(torch.tensor(b))
        layers.append(layer)
    tx, tt = torch.tensor(x, device=dev), torch.tensor(t, dtype=torch.int64, device=dev)
    opt = torch.optim.Adam([p for layer in layers for p in layer.parameters()],
                           lr=mlp_step.ALPHA, betas=(mlp_step.BETA1, mlp_step.BETA2),
                           eps=mlp_step.ADAM_EPS)

    def mlp_one():
        opt.zero_grad(set_to_none=True)
        h = tx
        for k, layer in enumerate(layers):
            h = layer(h)
            if k < len(layers) - 1:
                h = torch.relu(h)
        loss = nn.functional.cross_entropy(h, tt)
        loss.backward()
        opt.step()
        return loss
    steps['mlp_step'] = mlp_one

    x, r, Ws = resnet_step._arrays()
    C, eps, decay = resnet_step.C, resnet_step.EPS, resnet_step.DECAY
    convbn = []
    for W in Ws:
        conv = nn.Conv2d(C, C, 3, padding=1, bias=False).to(dev)
        with torch.no_grad():
            conv.weight.copy_(torch.tensor(W))
        convbn.append((conv, nn.BatchNorm2d(C, eps=eps, momentum=1 - decay).to(dev)))
    rparams = [p for conv, bn in convbn for p in (conv.weight, bn.weight, bn.bias)]
    ropt = torch.optim.SGD(rparams, lr=resnet_step.LR, momentum=resnet_step.MOMENTUM)
    rx, rr = torch.tensor(x, device=dev), torch.tensor(r, device=dev)

    def resnet_one():
        ropt.zero_grad(set_to_none=True)
        h = rx
        for b in range(resnet_step.BLOCKS):
            (conv1, bn1), (conv2, bn2) = convbn[2 * b:2 * b + 2]
            h = torch.relu(bn2(conv2(torch.relu(bn1(conv1(h))))) + h)
        loss = (h * rr).sum() / resnet_step.N
        loss.backward()
        ropt.step()
        return loss
    steps['resnet_step'] = resnet_one

    xs, ts, arrays = lstm_lm_step._arrays()
    V, E_, H = lstm_lm_step.VOCAB, lstm_lm_step.EMBED, lstm_lm_step.HIDDEN
    embed, cell, out = nn.Embedding(V, E_).to(dev), nn.LSTMCell(E_, H).to(dev), \
        nn.Linear(H, V).to(dev)
    with torch.no_grad():
        embed.weight.copy_(torch.tensor(arrays[0]))
        out.weight.copy_(torch.tensor(arrays[4]))
    lparams = [p for m in (embed, cell, out) for p in m.parameters()]
    lopt = torch.optim.Adam(lparams, lr=lstm_lm_step.ALPHA,
                            betas=(lstm_lm_step.BETA1, lstm_lm_step.BETA2),
                            eps=lstm_lm_step.ADAM_EPS)
    lxs = torch.tensor(xs, dtype=torch.int64, device=dev)
    lts = torch.tensor(ts, dtype=torch.int64, device=dev)
    state = {'h': torch.zeros(lstm_lm_step.BATCH, H, device=dev),
             'c': torch.zeros(lstm_lm_step.BATCH, H, device=dev)}

    def lstm_one():
        lopt.zero_grad(set_to_none=True)
        h, c = state['h'], state['c']
        loss = 0
        for xi, ti in zip(lxs, lts):
            h, c = cell(embed(xi), (h, c))
            loss = loss + nn.functional.cross_entropy(out(h), ti)
        loss.backward()
        state['h'], state['c'] = h.detach(), c.detach()
        lopt.step()
        return loss
    steps['lstm_lm_step'] = lstm_one
    return steps


def _time(step, sync, warmup, n):
    for _ in range(warmup):
        step()
    sync()
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        step()
        sync()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def part_bench(stand_in, steps_n):
    import chainlite
    from chainlite.backends import cuda
    if stand_in:
        from chainlite.testing import cupy_stand_in
        ctx = cupy_stand_in.installed()
    else:
        import contextlib
        ctx = contextlib.nullcontext()
    with ctx:
        if not cuda.available:
            print('== bench: no GPU: ' + cuda._reason)
            return False
        xp = cuda.cupy
        ours = _chainlite_steps(xp, chainlite.get_device('@cupy:0'))
        theirs = {}
        if not stand_in:
            try:
                import torch
                if torch.cuda.is_available():
                    theirs = _torch_steps()
            except Exception as e:  # torch missing or its twin failed: report, go on
                print('== bench: PyTorch CUDA twins unavailable: %r' % (e,))
        print('== bench: median ms/step on %s (%d timed steps after warm-up)'
              % ('the CuPy stand-in' if stand_in else _gpu_name(xp), steps_n))
        print('   %-14s %10s %10s %8s %8s' % ('case', 'chainlite', 'torch', 'ratio', 'target'))
        for name, step in ours.items():
            t_ours = _time(step, lambda: _sync(xp), 1 if stand_in else 3, steps_n)
            loss = float(cuda.to_cpu(step().array))
            assert np.isfinite(loss), name
            if name in theirs:
                import torch
                t_theirs = _time(theirs[name], torch.cuda.synchronize, 3, steps_n)
                ratio = t_ours / t_theirs
                print('   %-14s %10.2f %10.2f %8.2f %8s %s'
                      % (name, 1e3 * t_ours, 1e3 * t_theirs, ratio, '<= %.1f' % TARGETS[name],
                         'met' if ratio <= TARGETS[name] else 'MISSED'))
            else:
                print('   %-14s %10.2f %10s %8s %8s' % (name, 1e3 * t_ours, '-', '-',
                                                       '<= %.1f' % TARGETS[name]))
    return True


def _gpu_name(xp):
    try:
        props = xp.cuda.runtime.getDeviceProperties(0)
        name = props['name']
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:
        return 'GPU 0'


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--only', default='tests,chainer,example,bench',
                   help='comma-separated parts: tests, chainer, example, bench')
    p.add_argument('--stand-in', action='store_true',
                   help='time the workloads on the CuPy stand-in (checks the script only)')
    p.add_argument('--steps', type=int, default=20, help='timed steps per workload')
    args = p.parse_args(argv)
    parts = args.only.split(',')
    print('gpu_check %s, Python %s, NumPy %s' % (time.strftime('%Y-%m-%d %H:%M'),
                                                 sys.version.split()[0], np.__version__))
    ok = True
    if 'tests' in parts:
        ok &= part_tests()
    if 'chainer' in parts:
        ok &= part_chainer()
    if 'example' in parts:
        ok &= part_example()
    if 'bench' in parts:
        ok &= part_bench(args.stand_in, args.steps)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
