"""Backend modules, as in Chainer: ``chainlite.backends.cuda`` and ``chainlite.backends.cpu``."""
from chainlite.backends import cpu  # noqa: F401
from chainlite.backends import cuda  # noqa: F401
