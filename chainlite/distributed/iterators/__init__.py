"""Iterators that keep the ranks' batches in step."""
from chainlite.distributed.iterators.multi_node_iterator import create_multi_node_iterator  # noqa: F401,E501
from chainlite.distributed.iterators.synchronized_iterator import create_synchronized_iterator  # noqa: F401,E501
