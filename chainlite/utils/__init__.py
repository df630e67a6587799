"""Utilities, as ``chainer.utils``: type checking and sparse matrices."""
from chainlite.utils import sparse  # noqa: F401
from chainlite.utils import type_check  # noqa: F401
from chainlite.utils.sparse import CooMatrix  # noqa: F401
from chainlite.utils.sparse import get_order  # noqa: F401
from chainlite.utils.sparse import to_coo  # noqa: F401
from chainlite.utils.walker_alias import WalkerAlias  # noqa: F401
