#!/usr/bin/env python
"""How long ``import chainlite`` takes, next to ``import numpy`` (which it needs anyway).

Each import runs in a fresh interpreter, timed from inside (interpreter start-up excluded);
the best of ``--rounds`` runs counts. The first run of all compiles the bytecode, so what is
reported is the import of an installed package. Target (issue 16): chainlite at most 0.1 s
above NumPy.

    python benchmarks/import_time.py --rounds 5
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_TIMED = 'import time; t = time.perf_counter(); import %s; print(time.perf_counter() - t)'


def import_seconds(module, rounds):
    """Best wall time of ``import module`` in ``rounds`` fresh interpreters."""
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    times = []
    for _ in range(rounds + 1):   # the first run writes the bytecode
        out = subprocess.run([sys.executable, '-c', _TIMED % module], env=env, check=True,
                             capture_output=True, text=True).stdout
        times.append(float(out))
    return min(times[1:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rounds', type=int, default=5)
    args = parser.parse_args()
    numpy_s = import_seconds('numpy', args.rounds)
    chainlite_s = import_seconds('chainlite', args.rounds)
    print('import numpy      %6.3f s' % numpy_s)
    print('import chainlite  %6.3f s  (numpy included; %.3f s above numpy, target <= 0.100)'
          % (chainlite_s, chainlite_s - numpy_s))


if __name__ == '__main__':
    main()
