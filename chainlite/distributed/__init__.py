"""Distributed training on MPI: ChainerMN's API (``import chainermn`` under chainlite.compat).

Processes started by ``mpiexec`` train one model together. A communicator
(:func:`create_communicator`) connects them; :func:`create_multi_node_optimizer` averages the
gradients of every rank before each update (data parallelism);
:func:`scatter_dataset` gives each rank its share of the data;
:func:`create_multi_node_evaluator` averages the evaluation; the differentiable
communication in :mod:`chainlite.distributed.functions` and :class:`MultiNodeChainList`
split one model over ranks (model parallelism).

Everything runs on mpi4py, imported only when a communicator is created: without it,
``import chainlite.distributed`` works and :func:`create_communicator` says how to install
it (``pip install -e '.[mpi]'``).
"""
from chainlite._version import __version__  # noqa: F401
from chainlite.distributed import communicators  # noqa: F401
from chainlite.distributed import datasets  # noqa: F401
from chainlite.distributed import extensions  # noqa: F401
from chainlite.distributed import functions  # noqa: F401
from chainlite.distributed import global_except_hook  # noqa: F401
from chainlite.distributed import iterators  # noqa: F401
from chainlite.distributed import links  # noqa: F401
from chainlite.distributed import optimizers  # noqa: F401
from chainlite.distributed.communicators import CommunicatorBase  # noqa: F401
from chainlite.distributed.communicators import create_communicator  # noqa: F401
from chainlite.distributed.datasets import DataSizeError  # noqa: F401
from chainlite.distributed.datasets import create_empty_dataset  # noqa: F401
from chainlite.distributed.datasets import scatter_dataset  # noqa: F401
from chainlite.distributed.datasets import scatter_index  # noqa: F401
from chainlite.distributed.extensions import create_multi_node_checkpointer  # noqa: F401
from chainlite.distributed.extensions import create_multi_node_evaluator  # noqa: F401
from chainlite.distributed.iterators import create_multi_node_iterator  # noqa: F401
from chainlite.distributed.iterators import create_synchronized_iterator  # noqa: F401
from chainlite.distributed.links import MultiNodeChainList  # noqa: F401
from chainlite.distributed.optimizers import create_multi_node_optimizer  # noqa: F401

global_except_hook._add_hook_if_enabled()
