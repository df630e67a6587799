"""Backend modules, as in Chainer: ``chainlite.backends.cuda``, ``chainlite.backends.cpu`` and
``chainlite.backends.intel64`` (iDeep, never available)."""
from chainlite.backends import cpu  # noqa: F401
from chainlite.backends import cuda  # noqa: F401
from chainlite.backends import intel64  # noqa: F401
