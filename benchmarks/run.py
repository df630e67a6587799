#!/usr/bin/env python3
"""Times chainlite against hand-written NumPy doing the same math, case by case.

Each case (a module in ``benchmarks/cases/``) runs in a process of its own at one BLAS/OpenMP
thread. In that process the chainlite version and the NumPy version are first checked to
compute the same arrays, then timed in alternation for several rounds. The table shows both
medians and the median of the per-round ratios chainlite / NumPy: lower is better, 1.0 means
the framework costs nothing on top of NumPy. The ``best`` column divides chainlite's fastest
sample by NumPy's, which descheduling cannot inflate.

When ``import torch`` works, a case that defines a PyTorch twin (``torch_case()``: eager
mode, CPU, ``torch.set_num_threads(1)``) is timed against it in the same rounds, and the
table adds torch's median and the median ratio chainlite / torch. torch is never a
dependency: without it the torch columns show ``-`` and the table ends with a note.

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
         'softmax_cross_entropy', 'adam_update', 'jvp_mlp', 'static_mlp', 'mlp_step',
         'resnet_step', 'lstm_lm_step')
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
    p.add_argument('--no-torch', action='store_true',
                   help='do not time the PyTorch twins even when torch is importable')
    p.add_argument('--worker', metavar='CASE', help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        for record in measure(args.worker, args.rounds, not args.no_torch):
            print(json.dumps(record), flush=True)
        return 0

    cases = [c for c in args.cases.split(',') if c]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        p.error('unknown case(s) %s; known: %s' % (', '.join(unknown), ', '.join(CASES)))
    print(_header(), flush=True)
    records = []
    for case in cases:
        for record in run_case(case, args.rounds, not args.no_torch):
            records.append(record)
            print(_row(record), flush=True)
    notes = sorted({r['torch_note'] for r in records if r.get('torch_note')})
    for note in notes:
        print('note: ' + note, flush=True)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'rounds': args.rounds, 'python': sys.version.split()[0],
                       'results': records}, f, indent=1)
    return 0 if all(r['status'] == 'ok' for r in records) else 1


def run_case(case: str, rounds: int, with_torch: bool = True) -> list:
    """Measures one case in a fresh process and returns its records, one per row."""
    cmd = [sys.executable, os.path.abspath(__file__), '--worker', case, '--rounds', str(rounds)]
    if not with_torch:
        cmd.append('--no-torch')
    proc = subprocess.run(cmd, capture_output=True, text=True)
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith('{')]
    if proc.returncode != 0 or not records:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ['no output']
        return [{'row': case, 'status': 'error', 'error': tail[0]}]
    return records


def measure(case: str, rounds: int, with_torch: bool = True) -> list:
    """Runs in the case's process: checks, then times, every row of the case."""
    import numpy
    sys.path.insert(0, HERE)
    mod = importlib.import_module('cases.' + case)
    ours, ref = mod.chainlite_case(), mod.numpy_case()
    twins, note = torch_twins(mod) if with_torch else ({}, None)
    tolerances = getattr(mod, 'TOLERANCES', {})
    records = []
    for row, target in mod.TARGETS.items():
        record = {'row': row, 'case': case, 'unit': mod.UNIT, 'target': target,
                  'numpy_version': numpy.__version__}
        if note:
            record['torch_note'] = note
        try:
            tol = tolerances.get(row, (1e-4, 1e-6))
            got = ours[row]()
            record.update(_check(got, ref[row](), tol))
            fns = [ours[row], ref[row]]
            if record['status'] == 'ok' and row in twins:
                # Another library sums in another order: an absolute slack of 1e-5 of
                # each array's largest entry on top of the row's tolerance.
                torch_check = _check(got, twins[row](), tol, scaled_atol=1e-5)
                if torch_check['status'] != 'ok':
                    record.update(status='mismatch', error='torch: ' + torch_check['error'])
                record['torch_max_abs_diff'] = torch_check.get('max_abs_diff')
                fns.append(twins[row])
            if record['status'] == 'ok':
                record.update(_time(fns, rounds, mod.SCALE))
        except Exception as e:  # one broken row must not hide the others' numbers
            record.update(status='error', error='%s: %s' % (type(e).__name__, e))
        records.append(record)
    return records


def torch_twins(mod) -> tuple:
    """The case's PyTorch closures ``{row: closure}`` and a note when there are none."""
    if not hasattr(mod, 'torch_case'):
        return {}, None
    try:
        import torch
    except ImportError:
        return {}, 'torch is not importable: the torch columns are skipped'
    torch.set_num_threads(1)
    return mod.torch_case(), None


def _check(got: tuple, want: tuple, tol: tuple = (1e-4, 1e-6),
           scaled_atol: float = 0.0) -> dict:
    # The two versions must compute the same arrays, or the ratio compares different work.
    import numpy
    if len(got) != len(want):
        return {'status': 'mismatch', 'error': '%d results vs %d' % (len(got), len(want))}
    worst = 0.0
    for g, w in zip(got, want):
        g, w = numpy.asarray(g, numpy.float64), numpy.asarray(w, numpy.float64)
        atol = tol[1] + scaled_atol * float(numpy.abs(w).max(initial=0.0))
        if g.shape != w.shape or not numpy.allclose(g, w, rtol=tol[0], atol=atol):
            return {'status': 'mismatch',
                    'error': 'results differ (shapes %s vs %s)' % (g.shape, w.shape)}
        if g.size:
            worst = max(worst, float(numpy.abs(g - w).max()))
    return {'status': 'ok', 'max_abs_diff': worst}


def _time(fns: list, rounds: int, scale: float) -> dict:
    # fns: chainlite's closure, NumPy's, and torch's when there is a twin.
    counts = [_calls_per_sample(fn) for fn in fns]
    times: list = [[] for _ in fns]
    for r in range(rounds):
        # Rotate who goes first, so a drift in machine speed does not favour one side.
        order = [(r + k) % len(fns) for k in range(len(fns))]
        for k in order:
            times[k].append(_sample(fns[k], counts[k]) * scale)
    ratios = [a / b for a, b in zip(times[0], times[1])]
    out = {'chainlite': statistics.median(times[0]), 'numpy': statistics.median(times[1]),
           'ratio': statistics.median(ratios), 'ratio_min': min(ratios),
           'ratio_max': max(ratios),
           # The fastest sample of each side: what descheduling cannot inflate (a
           # neighbour's cache traffic still can).
           'ratio_best': min(times[0]) / min(times[1]), 'chainlite_samples': times[0],
           'numpy_samples': times[1], 'calls_per_sample': counts}
    if len(fns) == 3:
        torch_ratios = [a / b for a, b in zip(times[0], times[2])]
        out.update(torch=statistics.median(times[2]), torch_samples=times[2],
                   ratio_torch=statistics.median(torch_ratios),
                   ratio_torch_min=min(torch_ratios), ratio_torch_max=max(torch_ratios))
    return out


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
    return '%-22s %11s %11s %-8s %7s %-13s %5s %-11s %11s %8s' % (
        'case', 'chainlite', 'numpy', 'unit', 'ratio', '(min-max)', 'best', 'target', 'torch',
        'c/torch')


def _row(r: dict) -> str:
    if r['status'] != 'ok':
        return '%-22s %s: %s' % (r['row'], r['status'].upper(), r['error'][:300])
    target = r['target']
    if target is None:
        verdict = '-'
    else:
        verdict = '<= %.2g %s' % (target, 'ok' if r['ratio'] <= target else 'MISSED')
    torch = ('%11.4g %8.2f' % (r['torch'], r['ratio_torch'])) if 'torch' in r else (
        '%11s %8s' % ('-', '-'))
    return '%-22s %11.4g %11.4g %-8s %7.2f %-13s %5.2f %-11s %s' % (
        r['row'], r['chainlite'], r['numpy'], r['unit'], r['ratio'],
        '(%.2f-%.2f)' % (r['ratio_min'], r['ratio_max']), r['ratio_best'], verdict, torch)


if __name__ == '__main__':
    sys.exit(main())
