"""The CPU backend (NumPy), as ``chainer.backends.cpu``."""
from chainlite.backend import CpuDevice  # noqa: F401

