"""Differentiable functions on Variables and arrays (``chainlite.functions as F``).

Each function lives in its own module under a category folder, as in Chainer; this package
re-exports the public names.
"""
from chainlite.functions.activation.tanh import tanh  # noqa: F401
from chainlite.functions.array.broadcast import broadcast_to  # noqa: F401
from chainlite.functions.array.get_item import get_item  # noqa: F401
from chainlite.functions.array.reshape import reshape  # noqa: F401
from chainlite.functions.array.sum_to import sum_to  # noqa: F401
from chainlite.functions.array.transpose import transpose  # noqa: F401
from chainlite.functions.math.absolute import absolute  # noqa: F401
from chainlite.functions.math.add import add  # noqa: F401
from chainlite.functions.math.cos import cos  # noqa: F401
from chainlite.functions.math.exp import exp  # noqa: F401
from chainlite.functions.math.floor import floor  # noqa: F401
from chainlite.functions.math.log import log  # noqa: F401
from chainlite.functions.math.matmul import matmul  # noqa: F401
from chainlite.functions.math.sin import sin  # noqa: F401
from chainlite.functions.math.sum import sum  # noqa: F401
