#!/usr/bin/env python
"""BLAS threads: chainlite's default policy against fixed thread counts, small and large models.

For each workload, machine load and number of cores, runs the workload in fresh interpreters
with chainlite's default (no thread variable set) and with ``OPENBLAS_NUM_THREADS`` fixed at
1 and at 2, in alternation, and prints a markdown table with the median time of each and
the ratio of the default to the best fixed count, of the medians and of the fastest runs
(docs/performance.md, "BLAS threads"):

- workloads: an epoch of the digits MLP of ``examples/train_digits.py`` (64-128-128-10,
  batch 32, Adam) and of the CNN of ``examples/cnn_digits.py``, one forward and backward
  pass of ``F.matmul`` on two float32 4096x4096 Variables (three 4096^3 products; the
  faster of two), and a step of ``benchmarks/cases/resnet_step.py``;
- load: idle (whatever else runs on the machine), or two busy processes
  (``python -c 'while True: pass'``) that this script starts and kills;
- cores: the process restricted to one core (``os.sched_setaffinity``) or all of them.

The machine's load average is printed beside each row: other work on it shows there.

    python benchmarks/blas_threads.py                  # the whole table (about 15 minutes)
    python benchmarks/blas_threads.py --repeat 1 --workloads mlp,cnn --loads idle
    python benchmarks/blas_threads.py --products     # the products behind the thresholds
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREAD_VARS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS',
               'BLIS_NUM_THREADS', 'GOTO_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS')
WORKLOADS = {
    'mlp': '`examples/train_digits.py` MLP, one epoch',
    'cnn': '`examples/cnn_digits.py` CNN, one epoch',
    'matmul4096': '`F.matmul` 4096x4096 float32, forward + backward',
    'resnet': '`benchmarks/cases/resnet_step.py`, one step',
}
VARIANTS = ('default', '1', '2')      # chainlite's policy, then OPENBLAS_NUM_THREADS=1, =2


def _digits_epoch_seconds(example, model_class, ndim, epochs):
    # Median time of an epoch of Adam updates (after one untimed epoch) of the example's model.
    import runpy

    import numpy as np

    import chainlite
    import chainlite.links as L
    from chainlite.dataset import concat_examples

    module = runpy.run_path(os.path.join(ROOT, 'examples', example), run_name='loaded')
    np.random.seed(0)
    model = L.Classifier(module[model_class](*((128, 10) if model_class == 'MLP' else ())))
    optimizer = chainlite.optimizers.Adam().setup(model)
    train, _ = chainlite.datasets.get_digits(ndim=ndim)
    times = []
    for _ in range(epochs + 1):
        it = chainlite.iterators.SerialIterator(train, 32, repeat=False)
        start = time.perf_counter()
        for batch in it:
            optimizer.update(model, *concat_examples(batch))
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def _matmul4096_seconds(passes=2):
    # The faster of two passes (the first also faults in the results' pages).
    import numpy as np

    import chainlite
    import chainlite.functions as F
    rs = np.random.default_rng(0)
    a = chainlite.Variable(rs.standard_normal((4096, 4096), np.float32))
    b = chainlite.Variable(rs.standard_normal((4096, 4096), np.float32))
    times = []
    for _ in range(passes):
        a.cleargrad()
        b.cleargrad()
        start = time.perf_counter()
        y = F.matmul(a, b)
        y.grad = np.ones_like(y.array)
        y.backward()
        times.append(time.perf_counter() - start)
    return min(times)


def _resnet_step_seconds(steps=10):
    sys.path.insert(0, os.path.join(ROOT, 'benchmarks'))
    from cases import resnet_step
    step = resnet_step.chainlite_case()['resnet_step']
    for _ in range(2):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def worker(name):
    """Runs one workload in this process and prints its time in seconds."""
    if name == 'mlp':
        seconds = _digits_epoch_seconds('train_digits.py', 'MLP', 1, 15)
    elif name == 'cnn':
        seconds = _digits_epoch_seconds('cnn_digits.py', 'CNN', 3, 5)
    elif name == 'matmul4096':
        seconds = _matmul4096_seconds()
    else:
        seconds = _resnet_step_seconds()
    print(seconds)


PRODUCTS = ((32, 64, 128), (64, 128, 128), (32, 144, 512), (32, 256, 256), (64, 256, 128),
            (64, 256, 256), (128, 256, 256), (32, 144, 2048), (32, 288, 8192),
            (512, 512, 512), (256, 1024, 1024), (1024, 1024, 1024), (1024, 2048, 2048),
            (2048, 2048, 2048), (4096, 4096, 4096))


def product_ratios():
    """Time of each product of PRODUCTS on 2 threads (raised around it) over 1, in-process.

    What chainlite/_blas.py's thresholds rest on. The better of two medians of 3-7 samples
    of each, the two variants in alternation.
    """
    import numpy as np
    from threadpoolctl import ThreadpoolController
    libs = [c for c in ThreadpoolController().lib_controllers if c.user_api == 'blas']
    for lib in libs:
        lib.set_num_threads(1)
    rs = np.random.default_rng(0)

    def raised(f):
        for lib in libs:
            lib.set_num_threads(2)
        try:
            return f()
        finally:
            for lib in libs:
                lib.set_num_threads(1)

    ratios = []
    for m, k, n in PRODUCTS:
        a = rs.standard_normal((m, k)).astype(np.float32)
        b = rs.standard_normal((k, n)).astype(np.float32)
        flops = 2 * m * k * n
        calls, samples = max(1, int(3e8 / flops)), (3 if flops > 1e10 else 7)
        best = {1: [], 2: []}
        for _ in range(2):
            for threads in (1, 2):
                times = []
                for _ in range(samples):
                    start = time.perf_counter()
                    for _ in range(calls):
                        a @ b if threads == 1 else raised(lambda: a @ b)
                    times.append((time.perf_counter() - start) / calls)
                best[threads].append(statistics.median(times))
        ratios.append((m, k, n, flops, min(best[2]) / min(best[1])))
    return ratios


def print_products(loads):
    """Prints PRODUCTS' ratios of 2 threads to 1, idle and beside two busy processes."""
    columns = []
    for load in loads:
        busy = [subprocess.Popen([sys.executable, '-c', 'while True: pass'])
                for _ in range(2 if load == 'busy' else 0)]
        try:
            time.sleep(1.0 if busy else 0.0)
            columns.append(product_ratios())
        finally:
            for p in busy:
                p.kill()
                p.wait()
    print('| product (m k n) | flops | %s |' % ' | '.join(
        'idle: 2 threads / 1' if load == 'idle' else 'beside 2 busy processes: 2 / 1'
        for load in loads))
    print('|---|---|%s' % ('---|' * len(loads)))
    for i, (m, k, n, flops, _) in enumerate(columns[0]):
        print('| %d %d %d | %.1e | %s |' % (m, k, n, flops, ' | '.join(
            '%.2f' % column[i][4] for column in columns)))


def run_once(name, variant, cores):
    """Seconds of workload ``name`` in a fresh interpreter, with BLAS ``variant`` on ``cores``."""
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    if variant != 'default':
        env['OPENBLAS_NUM_THREADS'] = variant
    proc = subprocess.run([sys.executable, __file__, '--worker', name], env=env,
                          capture_output=True, text=True,
                          preexec_fn=lambda: os.sched_setaffinity(0, cores))
    if proc.returncode:
        raise RuntimeError('%s with %s failed:\n%s' % (name, variant, proc.stderr))
    return float(proc.stdout.split()[-1])


def measure(name, cores, repeat):
    """Times of each variant, ``repeat`` runs each, the variants in alternating order."""
    times = {v: [] for v in VARIANTS}
    for r in range(repeat):
        for variant in (VARIANTS if r % 2 == 0 else VARIANTS[::-1]):
            times[variant].append(run_once(name, variant, cores))
    return times


def _seconds(t):
    return '%.3f s' % t if t >= 1 else '%.1f ms' % (1e3 * t)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--workloads', default=','.join(WORKLOADS),
                        help='comma-separated, of %s' % ', '.join(WORKLOADS))
    parser.add_argument('--loads', default='idle,busy', help='idle, busy or both')
    parser.add_argument('--cores', default='1,2', help='1, 2 (all usable cores) or both')
    parser.add_argument('--repeat', type=int, default=3,
                        help='runs of each variant per row (default 3); the median counts')
    parser.add_argument('--products', action='store_true',
                        help='instead, time single products on 2 threads against 1 (the '
                        'thresholds of chainlite/_blas.py), for --loads')
    parser.add_argument('--worker', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return 0
    if args.products:
        print_products(args.loads.split(','))
        return 0
    all_cores = sorted(os.sched_getaffinity(0))
    print('%s, %s, %d usable cores, Python %s; %d runs per variant, medians'
          % (datetime.datetime.now().strftime('%Y-%m-%d %H:%M'), platform.processor() or
             platform.machine(), len(all_cores), platform.python_version(), args.repeat))
    print()
    print('| workload | load | cores | default | 1 thread | 2 threads | default / best '
          '| best-of ratio | load average |')
    print('|---|---|---|---|---|---|---|---|---|')
    worst = 0.0
    for load in args.loads.split(','):
        busy = [subprocess.Popen([sys.executable, '-c', 'while True: pass'])
                for _ in range(2 if load == 'busy' else 0)]
        try:
            time.sleep(1.0 if busy else 0.0)
            for name in args.workloads.split(','):
                for n in (int(c) for c in args.cores.split(',')):
                    cores = set(all_cores[:n])
                    before = os.getloadavg()[0]
                    times = measure(name, cores, args.repeat)
                    med = {v: statistics.median(t) for v, t in times.items()}
                    ratio = med['default'] / min(med['1'], med['2'])
                    best = {v: min(t) for v, t in times.items()}
                    worst = max(worst, ratio)
                    print('| %s | %s | %d | %s | %s | %s | %.2f | %.2f | %.1f-%.1f |' % (
                        WORKLOADS[name], 'idle' if load == 'idle' else '2 busy processes', n,
                        _seconds(med['default']), _seconds(med['1']), _seconds(med['2']),
                        ratio, best['default'] / min(best['1'], best['2']), before,
                        os.getloadavg()[0]), flush=True)
        finally:
            for p in busy:
                p.kill()
                p.wait()
    print()
    print('worst default / best fixed (medians): %.2f (target <= 1.10)' % worst)
    return 0


if __name__ == '__main__':
    sys.exit(main())
