"""One rank stops, or falls out of step, in a 2-process job (run by test_stopping.py).

Each case must end the whole job, with a message that names the rank and what it did,
instead of leaving the other rank waiting forever.

Usage: stop_cases.py CASE
"""
import os
import resource
import signal
import sys
import time

import numpy as np

import chainlite as C
import chainlite.links as L
from chainlite import distributed as D
from chainlite import training

comm = D.create_communicator('naive')
rank = comm.rank


def _optimizer(model):
    return D.create_multi_node_optimizer(C.optimizers.SGD(lr=0.1), comm).setup(model)


def _trained():
    np.random.seed(0)
    model = L.Classifier(L.Linear(4, 3))
    return model, _optimizer(model)


def _batch(i):
    rng = np.random.RandomState(i)
    return rng.randn(8, 4).astype(np.float32), rng.randint(0, 3, 8).astype(np.int32)


def sys_exit_mid_training():
    model, opt = _trained()
    for i in range(20):
        if rank == 1 and i == 3:
            sys.exit(0)
        opt.update(model, *_batch(i))


def sys_exit_nonzero():
    model, opt = _trained()
    for i in range(20):
        if rank == 1 and i == 3:
            sys.exit(3)
        opt.update(model, *_batch(i))


def skip_update():
    # Rank 1 catches an exception raised before its update, and skips that update.
    model, opt = _trained()
    for i in range(10):
        try:
            if rank == 1 and i == 3:
                raise ValueError('a bad batch')
            opt.update(model, *_batch(i))
        except ValueError:
            continue


def raise_inside_update():
    # Rank 1's loss raises inside update() (before the exchange); it catches and goes on.
    model, opt = _trained()

    def loss(x, t, i):
        if rank == 1 and i == 3:
            raise FloatingPointError('the loss is not finite')
        return model(x, t)

    for i in range(10):
        try:
            opt.update(loss, *_batch(i), i)
        except FloatingPointError:
            pass


def uneven_epoch():
    # 1001 examples split 501 / 500: an epoch of batch 10 is 51 iterations on rank 0 and
    # 50 on rank 1.
    data = None
    if rank == 0:
        rng = np.random.RandomState(0)
        data = C.datasets.TupleDataset(rng.randn(1001, 4).astype(np.float32),
                                       rng.randint(0, 3, 1001).astype(np.int32))
    data = D.scatter_dataset(data, comm, force_equal_length=False)
    model, opt = _trained()
    updater = training.updaters.StandardUpdater(C.iterators.SerialIterator(data, 10), opt)
    training.Trainer(updater, (1, 'epoch'), out=os.environ.get('TMPDIR', '/tmp')).run()


def transposed_weights():
    model = L.Linear(4, 6, nobias=True) if rank == 0 else L.Linear(6, 4, nobias=True)
    _optimizer(model)


def float16_on_rank_0():
    model = L.Linear(4, 6)
    if rank == 0:
        for p in model.params():
            p.array = p.array.astype(np.float16)
    _optimizer(model)


def extra_parameter_on_rank_1():
    model = L.Linear(4, 6, nobias=(rank == 0))
    _optimizer(model)


def out_of_step():
    # Rank 0 broadcasts while rank 1 reduces: the collectives do not match.
    if rank == 0:
        comm.bcast_obj('hello')
    else:
        comm.allreduce_obj(1)


def sigterm():
    model, opt = _trained()
    for i in range(20):
        if rank == 1 and i == 3:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)
        opt.update(model, *_batch(i))


def sigterm_while_blocked():
    # Rank 1 is blocked inside an MPI call that chainlite does not watch when it is
    # terminated; rank 0 then blocks in one too.
    pids = comm.mpi_comm.allgather(os.getpid())
    if rank == 0:
        time.sleep(1.0)
        os.kill(pids[1], signal.SIGTERM)
    comm.mpi_comm.Barrier()
    comm.mpi_comm.Barrier()


def sigint():
    model, opt = _trained()
    for i in range(20):
        if rank == 1 and i == 3:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(30)
        opt.update(model, *_batch(i))


def normal_end_while_peer_in_raw_mpi():
    # Rank 1 ends; rank 0 waits for it in a barrier that chainlite does not watch.
    if rank == 0:
        comm.mpi_comm.Barrier()


def wait_then_end_apart():
    # Rank 0 waits 2 s in update() for rank 1 (how much CPU does that cost it?), then works
    # alone for 2 s after rank 1 has ended: neither is an error.
    model, opt = _trained()
    opt.update(model, *_batch(0))
    if rank == 1:
        time.sleep(2)
    t0, r0 = time.time(), resource.getrusage(resource.RUSAGE_SELF)
    opt.update(model, *_batch(1))
    t1, r1 = time.time(), resource.getrusage(resource.RUSAGE_SELF)
    if rank == 0:
        print('WAIT wall %.2f cpu %.2f' % (t1 - t0, (r1.ru_utime - r0.ru_utime)
                                           + (r1.ru_stime - r0.ru_stime)), flush=True)
        time.sleep(2)
    print('rank %d finished' % rank, flush=True)


if __name__ == '__main__':
    globals()[sys.argv[1]]()
