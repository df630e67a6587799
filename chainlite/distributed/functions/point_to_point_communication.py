"""ChainerMN's ``chainermn.functions.point_to_point_communication``: :func:`send`, :func:`recv`.

chainlite keeps them in :mod:`.send` and :mod:`.recv`; this module gathers them under
ChainerMN's name.
"""
from chainlite.distributed.functions.recv import Recv as Recv  # noqa: F401
from chainlite.distributed.functions.recv import recv as recv  # noqa: F401
from chainlite.distributed.functions.send import Send as Send  # noqa: F401
from chainlite.distributed.functions.send import send as send  # noqa: F401
