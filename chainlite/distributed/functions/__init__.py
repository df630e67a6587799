"""Differentiable communication: model parallelism across ranks."""
from chainlite.distributed.functions.allgather import allgather  # noqa: F401
from chainlite.distributed.functions.alltoall import alltoall  # noqa: F401
from chainlite.distributed.functions.batch_normalization import multi_node_batch_normalization  # noqa: F401,E501
from chainlite.distributed.functions.bcast import bcast  # noqa: F401
from chainlite.distributed.functions.gather import gather  # noqa: F401
from chainlite.distributed.functions.pseudo_connect import pseudo_connect  # noqa: F401
from chainlite.distributed.functions.recv import recv  # noqa: F401
from chainlite.distributed.functions.scatter import scatter  # noqa: F401
from chainlite.distributed.functions.send import send  # noqa: F401
