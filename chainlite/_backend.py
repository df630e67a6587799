"""``chainer._backend``: where Chainer defines the base class of its devices.

chainlite's :class:`~chainlite.backend.Device` is that base class; this module gives it under
Chainer's module name.

Example:
    >>> from chainlite import _backend, backend
    >>> _backend.Device is backend.Device
    True
"""
from chainlite.backend import Device  # noqa: F401
