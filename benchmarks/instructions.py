#!/usr/bin/env python
"""Counts the instructions a benchmark row costs, chainlite and NumPy, with callgrind.

On a shared machine the wall-clock ratios of ``run.py`` swing by 20-40% from one run to the
next; the number of instructions a step executes does not (a few percent, with code layout).
This script runs each row's chainlite and NumPy closures under valgrind's callgrind in
fresh processes, ``N1`` and ``N2`` times after a warm-up, and reports the difference per
call, which leaves out the interpreter's start and the imports::

    python benchmarks/instructions.py
    python benchmarks/instructions.py --cases op_overhead,lstm_lm_step --calls 2,12

Instructions are not time: NumPy's vectorized loops do more per instruction than the
interpreter does, so the wall-clock ratio of an overhead-bound row runs 10-40% above its
instruction ratio. They are what to steer a change by (``benchmarks/README.md`` lists what
each step bought). Needs valgrind (``apt install valgrind``); the garbage collector stays on,
as in a real run; one BLAS thread.
"""
import os
import sys

# One thread, set before numpy is first imported (as run.py does).
for _name in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ[_name] = '1'

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CASES = ('op_overhead', 'double_backward', 'static_mlp', 'lstm_lm_step')
_COLLECTED = re.compile(r'Collected : (\d+)')


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cases', default=','.join(DEFAULT_CASES),
                        help='comma-separated case names (default: %(default)s)')
    parser.add_argument('--calls', default='2,7',
                        help='N1,N2: calls of each closure in the two runs (default 2,7)')
    parser.add_argument('--child', nargs=4, metavar=('CASE', 'ROW', 'SIDE', 'N'),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        case, row, side, n = args.child
        run_closure(case, row, side, int(n))
        return 0
    if shutil.which('valgrind') is None:
        print('instructions.py needs valgrind: install it (e.g. apt install valgrind)')
        return 2
    n1, n2 = parse_calls(args.calls)
    print('%-28s %16s %16s %7s' % ('row', 'chainlite', 'NumPy', 'ratio'))
    for case in args.cases.split(','):
        for row in rows_of(case):
            counts = [per_call(case, row, side, n1, n2) for side in ('chainlite', 'numpy')]
            print(format_row(row, *counts))
    print('(instructions per call of the row\'s closure: a step, or N_OPS ops for op_overhead)')
    return 0


def parse_calls(text: str) -> tuple:
    """``'2,7'`` -> ``(2, 7)``; the second count must exceed the first."""
    try:
        n1, n2 = (int(v) for v in text.split(','))
    except ValueError:
        raise SystemExit('--calls must be two integers N1,N2 (e.g. 2,7), got %r' % text)
    if not 0 <= n1 < n2:
        raise SystemExit('--calls N1,N2 needs 0 <= N1 < N2, got %r' % text)
    return n1, n2


def rows_of(case: str) -> list:
    """The rows a case defines (its chainlite and NumPy closures share these names)."""
    return list(_case_module(case).TARGETS)


def per_call(case: str, row: str, side: str, n1: int, n2: int) -> float:
    """Instructions per call: the difference of a run with n2 calls and one with n1."""
    counts = [count_instructions(case, row, side, n) for n in (n1, n2)]
    return (counts[1] - counts[0]) / (n2 - n1)


def count_instructions(case: str, row: str, side: str, n: int) -> int:
    """The instructions callgrind counts for a child process that calls the closure n times."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ['valgrind', '--tool=callgrind',
               '--callgrind-out-file=' + os.path.join(tmp, 'callgrind.out'),
               sys.executable, os.path.abspath(__file__), '--child', case, row, side, str(n)]
        env = dict(os.environ, PYTHONHASHSEED='0')
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError('%s/%s (%s) failed under valgrind:\n%s'
                           % (case, row, side, proc.stderr[-2000:]))
    return collected(proc.stderr)


def collected(valgrind_stderr: str) -> int:
    """The total from callgrind's ``Collected : N`` line."""
    match = _COLLECTED.search(valgrind_stderr)
    if match is None:
        raise RuntimeError('no "Collected :" line in valgrind\'s output:\n'
                           + valgrind_stderr[-2000:])
    return int(match.group(1))


def run_closure(case: str, row: str, side: str, n: int) -> None:
    """(In the child) builds the row's closure, warms it up, then calls it n times."""
    mod = _case_module(case)
    closures = mod.chainlite_case() if side == 'chainlite' else mod.numpy_case()
    fn = closures[row]
    for _ in range(3):
        fn()
    gc.collect()
    for _ in range(n):
        fn()


def format_row(row: str, ours: float, ref: float) -> str:
    ratio = '%7.2f' % (ours / ref) if ref > 0 else '%7s' % '-'
    return '%-28s %16s %16s %s' % (row, '{:,.0f}'.format(ours), '{:,.0f}'.format(ref), ratio)


def _case_module(case: str):
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    return importlib.import_module('cases.' + case)


if __name__ == '__main__':
    sys.exit(main())
