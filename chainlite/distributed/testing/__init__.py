"""Helpers for testing distributed code (ChainerMN's ``chainermn.testing``)."""
from chainlite.distributed.testing.device import get_device  # noqa: F401
