"""ChainerMN's ``chainermn.functions.collective_communication``: the collective functions.

chainlite keeps one module per function (:mod:`.allgather`, :mod:`.alltoall`, :mod:`.bcast`,
:mod:`.gather`, :mod:`.scatter`); this module gathers them under ChainerMN's name.
"""
from chainlite.distributed.functions.allgather import AllGather as AllGather  # noqa: F401
from chainlite.distributed.functions.allgather import allgather as allgather  # noqa: F401
from chainlite.distributed.functions.alltoall import AllToAll as AllToAll  # noqa: F401
from chainlite.distributed.functions.alltoall import alltoall as alltoall  # noqa: F401
from chainlite.distributed.functions.bcast import Bcast as Bcast  # noqa: F401
from chainlite.distributed.functions.bcast import bcast as bcast  # noqa: F401
from chainlite.distributed.functions.gather import Gather as Gather  # noqa: F401
from chainlite.distributed.functions.gather import gather as gather  # noqa: F401
from chainlite.distributed.functions.scatter import Scatter as Scatter  # noqa: F401
from chainlite.distributed.functions.scatter import scatter as scatter  # noqa: F401
