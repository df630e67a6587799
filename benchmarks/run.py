#!/usr/bin/env python3
"""Times chainlite against hand-written NumPy doing the same math, case by case.

Each case (a module in ``benchmarks/cases/``) runs in a process of its own at one BLAS/OpenMP
thread. In that process the chainlite version and the NumPy version are first checked to
compute the same arrays, then timed in alternation for several rounds. The table shows both
medians and the median of the per-round ratios chainlite / NumPy: lower is better, 1.0 means
the framework costs nothing on top of NumPy.

    python benchmarks/run.py
    python benchmarks/run.py --cases op_overhead,deep_chain --rounds 7 --json /tmp/bench.json

The exit status is 1 if a case failed or its two versions disagree; a missed target is only
shown in the table.
"""
import os
import sys

# One thread, set before numpy is first imported (here and in the case processes, which
# inherit the environment): the ratio should measure the framework, not the BLAS threading.
for _name in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS',
              'VECLIB_MAXIMUM_THREADS', 'NUMEXPR_NUM_THREADS'):
    os.environ[_name] = '1'

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = ('op_overhead', 'deep_chain', 'double_backward', 'matmul_chain', 'array_ops',
         'activations', 'conv2d', 'max_pooling_2d', 'batch_normalization',
         'softmax_cross_entropy', 'adam_update', 'jvp_mlp', 'static_mlp', 'resnet_step')
# A timed sample repeats a closure until it has run at least this long, so that fast
# closures are not measured at the timer's resolution.
MIN_SAMPLE_S = 0.05


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--cases', default=','.join(CASES),
                   help='comma-separated case names (default: all of %s)' % ', '.join(CASES))
    p.add_argument('--rounds', type=int, default=5,
                   help='timed rounds per case, each timing both versions (default 5)')
    p.add_argument('--json', metavar='FILE', help='also write the full results to FILE')
    p.add_argument('--worker', metavar='CASE', help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        for record in measure(args.worker, args.rounds):
            print(json.dumps(record), flush=True)
        return 0

    cases = [c for c in args.cases.split(',') if c]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        p.error('unknown case(s) %s; known: %s' % (', '.join(unknown), ', '.join(CASES)))
    print(_header(), flush=True)
    records = []
    for case in cases:
        for record in run_case(case, args.rounds):
            records.append(record)
            print(_row(record), flush=True)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'rounds': args.rounds, 'python': sys.version.split()[0],
                       'results': records}, f, indent=1)
    return 0 if all(r['status'] == 'ok' for r in records) else 1


def run_case(case: str, rounds: int) -> list:
    """Measures one case in a fresh process and returns its records, one per row."""
    cmd = [sys.executable, os.path.abspath(__file__), '--worker', case, '--rounds', str(rounds)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith('{')]
    if proc.returncode != 0 or not records:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ['no output']
        return [{'row': case, 'status': 'error', 'error': tail[0]}]
    return records


def measure(case: str, rounds: int) -> list:
    """Runs in the case's process: checks, then times, every row of the case."""
    import numpy
    sys.path.insert(0, HERE)
    mod = importlib.import_module('cases.' + case)
    ours, ref = mod.chainlite_case(), mod.numpy_case()
    records = []
    for row, target in mod.TARGETS.items():
        record = {'row': row, 'case': case, 'unit': mod.UNIT, 'target': target,
                  'numpy_version': numpy.__version__}
        try:
            record.update(_check(ours[row](), ref[row]()))
            if record['status'] == 'ok':
                record.update(_time_pair(ours[row], ref[row], rounds, mod.SCALE))
        except Exception as e:  # one broken row must not hide the others' numbers
            record.update(status='error', error='%s: %s' % (type(e).__name__, e))
        records.append(record)
    return records


def _check(got: tuple, want: tuple) -> dict:
    # The two versions must compute the same arrays, or the ratio compares different work.
    import numpy
    if len(got) != len(want):
        return {'status': 'mismatch', 'error': '%d results vs %d' % (len(got), len(want))}
    worst = 0.0
    for g, w in zip(got, want):
        g, w = numpy.asarray(g, numpy.float64), numpy.asarray(w, numpy.float64)
        if g.shape != w.shape or not numpy.allclose(g, w, rtol=1e-4, atol=1e-6):
            return {'status': 'mismatch',
                    'error': 'results differ (shapes %s vs %s)' % (g.shape, w.shape)}
        if g.size:
            worst = max(worst, float(numpy.abs(g - w).max()))
    return {'status': 'ok', 'max_abs_diff': worst}


def _time_pair(ours, ref, rounds: int, scale: float) -> dict:
    n_ours, n_ref = _calls_per_sample(ours), _calls_per_sample(ref)
    times_ours, times_ref, ratios = [], [], []
    for r in range(rounds):
        # Alternate who goes first, so a drift in machine speed does not favour one side.
        if r % 2 == 0:
            a, b = _sample(ours, n_ours), _sample(ref, n_ref)
        else:
            b, a = _sample(ref, n_ref), _sample(ours, n_ours)
        times_ours.append(a * scale)
        times_ref.append(b * scale)
        ratios.append(a / b)
    return {'chainlite': statistics.median(times_ours), 'numpy': statistics.median(times_ref),
            'ratio': statistics.median(ratios), 'ratio_min': min(ratios),
            'ratio_max': max(ratios), 'chainlite_samples': times_ours,
            'numpy_samples': times_ref, 'calls_per_sample': [n_ours, n_ref]}


def _calls_per_sample(fn) -> int:
    t = _sample(fn, 1)  # also a second warm-up call, after the check's
    return max(1, math.ceil(MIN_SAMPLE_S / max(t, 1e-9)))


def _sample(fn, number: int) -> float:
    """Seconds per call of ``fn``, averaged over ``number`` calls, garbage collected first."""
    gc.collect()
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def _header() -> str:
    return '%-22s %11s %11s %-8s %7s %-13s %s' % (
        'case', 'chainlite', 'numpy', 'unit', 'ratio', '(min-max)', 'target')


def _row(r: dict) -> str:
    if r['status'] != 'ok':
        return '%-22s %s: %s' % (r['row'], r['status'].upper(), r['error'][:300])
    target = r['target']
    if target is None:
        verdict = '-'
    else:
        verdict = '<= %.1f %s' % (target, 'ok' if r['ratio'] <= target else 'MISSED')
    return '%-22s %11.4g %11.4g %-8s %7.2f %-13s %s' % (
        r['row'], r['chainlite'], r['numpy'], r['unit'], r['ratio'],
        '(%.2f-%.2f)' % (r['ratio_min'], r['ratio_max']), verdict)


if __name__ == '__main__':
    sys.exit(main())
