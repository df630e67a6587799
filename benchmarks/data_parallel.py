#!/usr/bin/env python3
"""Data-parallel throughput: the mlp_step model trained by 1 and by 2 MPI processes.

The model is the shared yardstick's ``mlp_step``: an MLP 784-1000-1000-10 with ReLU in
``L.Classifier``, Adam, a global batch of 100 (synthetic data, so only compute and
communication are timed). With N processes each rank takes 100 / N examples and
``create_multi_node_optimizer`` averages the gradients (one packed ``MPI_Allreduce`` of
1.8 M float32 values per step). Every process runs one BLAS thread.

    python benchmarks/data_parallel.py                 # 1 and 2 processes
    python benchmarks/data_parallel.py --steps 50 --processes 1,2,4
    python benchmarks/data_parallel.py --weak          # each process on a batch of 100

With ``--weak`` every process takes the whole batch (ChainerMN's examples keep the batch per
process: ``--batchsize`` is per worker), so N processes train N times more examples per step.
The table shows examples per second, the speedup over one process, and the share of each
step spent in the gradient allreduce (packing, ``MPI_Allreduce``, unpacking).
"""
import os
import sys

for _name in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS',
              'VECLIB_MAXIMUM_THREADS', 'NUMEXPR_NUM_THREADS'):
    os.environ[_name] = '1'

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def worker(args) -> None:
    import numpy as np

    sys.path.insert(0, ROOT)
    import chainlite
    import chainlite.functions as F
    import chainlite.links as L
    from chainlite import distributed

    comm = distributed.create_communicator(args.communicator)
    model = L.Classifier(chainlite.Sequential(
        L.Linear(784, 1000), F.relu, L.Linear(1000, 1000), F.relu, L.Linear(1000, 10)))
    optimizer = distributed.create_multi_node_optimizer(
        chainlite.optimizers.Adam(), comm, double_buffering=args.double_buffering)
    optimizer.setup(model)
    # Strong scaling splits the global batch over the ranks; weak scaling (--weak) gives every
    # rank the whole batch, so N ranks train on N times more examples per step.
    local = args.batch if args.weak else args.batch // comm.size
    rng = np.random.RandomState(comm.rank)
    x = rng.rand(local, 784).astype(np.float32)
    t = rng.randint(0, 10, local).astype(np.int32)

    spent = [0.0]
    mean_grad = comm.multi_node_mean_grad

    def timed_mean_grad(*a, **k):
        start = time.perf_counter()
        mean_grad(*a, **k)
        spent[0] += time.perf_counter() - start

    comm.multi_node_mean_grad = timed_mean_grad
    for _ in range(3):
        optimizer.update(model, x, t)
    samples = []
    for _ in range(args.rounds):
        spent[0] = 0.0
        comm.mpi_comm.Barrier()
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(args.steps):
            optimizer.update(model, x, t)
        cpu = time.process_time() - cpu
        comm.mpi_comm.Barrier()
        samples.append((time.perf_counter() - start, spent[0], cpu))
    # The median round; for double buffering the averaging happens inside update.
    wall, reduce_time, cpu = sorted(samples)[len(samples) // 2]
    # CPU time per step of the busiest rank: on a machine that other jobs share, what each
    # process would take with a core of its own (MPI waits spin, so they count).
    cpu = max(comm.allreduce_obj([cpu]))
    batch = local * comm.size
    result = {'processes': comm.size, 'batch': batch, 'step_ms': 1e3 * wall / args.steps,
              'examples_per_s': batch * args.steps / wall,
              'cpu_step_ms': 1e3 * cpu / args.steps,
              'allreduce_share': reduce_time / wall,
              'double_buffering': args.double_buffering}
    if comm.rank == 0:
        print(json.dumps(result), flush=True)


def run(n: int, args, double_buffering: bool = False) -> dict:
    command = ['mpiexec', '-n', str(n), '--oversubscribe']
    if hasattr(os, 'geteuid') and os.geteuid() == 0:
        command.append('--allow-run-as-root')
    command += [sys.executable, os.path.abspath(__file__), '--worker', '--steps',
                str(args.steps), '--rounds', str(args.rounds), '--batch', str(args.batch),
                '--communicator', args.communicator]
    if args.weak:
        command.append('--weak')
    if double_buffering:
        command.append('--double-buffering')
    proc = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    lines = [line for line in proc.stdout.splitlines() if line.startswith('{')]
    if proc.returncode != 0 or not lines:
        raise SystemExit('%d processes failed:\n%s' % (n, proc.stderr[-3000:]))
    return json.loads(lines[-1])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--processes', default='1,2', help='process counts (default 1,2)')
    p.add_argument('--steps', type=int, default=20, help='steps per timed round')
    p.add_argument('--rounds', type=int, default=3, help='timed rounds (the median is shown)')
    p.add_argument('--batch', type=int, default=100,
                   help='global batch size (per process with --weak)')
    p.add_argument('--weak', action='store_true',
                   help='weak scaling: every process takes --batch examples per step')
    p.add_argument('--communicator', default='naive')
    p.add_argument('--double-buffering', action='store_true',
                   help='also time 2+ processes with double_buffering=True')
    p.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args)
        return 0
    counts = [int(c) for c in args.processes.split(',')]
    print('| processes | global batch | step (wall) | examples/s | speedup | allreduce share '
          '| CPU per step (busiest rank) | speedup by CPU time |')
    print('|---|---|---|---|---|---|---|---|')
    base = base_cpu = None
    for n in counts:
        variants = [False] + ([True] if args.double_buffering and n > 1 else [])
        for db in variants:
            r = run(n, args, db)
            base = base or r['examples_per_s']
            base_cpu = base_cpu or r['cpu_step_ms']
            label = '%d%s' % (n, ' (double buffering)' if db else '')
            # With double buffering the averaging runs inside update: no share to show.
            share = '-' if db else '%.0f%%' % (100 * r['allreduce_share'])
            print('| %s | %d | %.1f ms | %.0f | %.2fx | %s | %.1f ms | %.2fx |' % (
                label, r['batch'], r['step_ms'], r['examples_per_s'],
                r['examples_per_s'] / base, share, r['cpu_step_ms'],
                base_cpu / r['cpu_step_ms']), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
