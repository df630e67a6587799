"""Rank 1 dies of an exception while rank 0 waits in a barrier: the job must abort."""
from chainlite import distributed as D

comm = D.create_communicator('naive')
if comm.rank == 1:
    raise ValueError('boom on rank 1')
comm.mpi_comm.Barrier()      # without the except hook this would wait forever
