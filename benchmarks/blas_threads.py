#!/usr/bin/env python
"""BLAS threads on small and large models: one thread against OpenBLAS's default.

Each measurement runs in a fresh interpreter, since the thread count is fixed when NumPy is
imported. Run it on an idle machine and again while something else keeps the cores busy
(for example ``python -c 'while True: pass' &`` per core): docs/performance.md, "BLAS
threads", explains what the figures mean for choosing a setting.

    python benchmarks/blas_threads.py --threads 1,2
"""
import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_BIG_MLP_STEP = '''
import time, numpy as np, chainlite as chainer, chainlite.links as L, chainlite.functions as F
np.random.seed(0)
model = L.Classifier(chainer.Sequential(L.Linear(784, 1000), F.relu, L.Linear(1000, 1000),
                                        F.relu, L.Linear(1000, 10)))
optimizer = chainer.optimizers.Adam().setup(model)
x = np.random.rand(100, 784).astype(np.float32)
t = np.random.randint(0, 10, 100).astype(np.int32)
for _ in range(3):
    optimizer.update(model, x, t)
times = []
for _ in range(3):
    start = time.perf_counter()
    for _ in range(20):
        optimizer.update(model, x, t)
    times.append((time.perf_counter() - start) / 20)
print(min(times))
'''


def _env(threads):
    env = {k: v for k, v in os.environ.items()
           if k not in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS')}
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    env['OPENBLAS_NUM_THREADS'] = str(threads)
    return env


def train_digits_seconds(threads, epochs):
    """Wall time of ``examples/train_digits.py`` with ``threads`` BLAS threads."""
    start = time.perf_counter()
    subprocess.run([sys.executable, os.path.join(ROOT, 'examples', 'train_digits.py'),
                    '--epoch', str(epochs), '--no-progress', '--out',
                    os.path.join(ROOT, 'result_blas_threads')],
                   env=_env(threads), check=True, capture_output=True)
    return time.perf_counter() - start


def big_mlp_step_seconds(threads):
    """Best time of one Adam step of a 784-1000-1000-10 MLP on a batch of 100."""
    proc = subprocess.run([sys.executable, '-c', _BIG_MLP_STEP], env=_env(threads), check=True,
                          capture_output=True, text=True)
    return float(proc.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--threads', default='1,%d' % os.cpu_count(),
                        help='comma-separated thread counts to compare')
    parser.add_argument('--epochs', type=int, default=30)
    args = parser.parse_args()
    print('%-8s %22s %22s' % ('threads', 'train_digits (s)', 'big MLP step (ms)'))
    for threads in [int(n) for n in args.threads.split(',')]:
        print('%-8d %22.1f %22.1f' % (threads, train_digits_seconds(threads, args.epochs),
                                      1e3 * big_mlp_step_seconds(threads)))


if __name__ == '__main__':
    main()
