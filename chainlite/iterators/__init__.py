"""Iterators over datasets."""
from chainlite.iterators.dali_iterator import DaliIterator  # noqa: F401
from chainlite.iterators.multiprocess_iterator import MultiprocessIterator  # noqa: F401
from chainlite.iterators.multithread_iterator import MultithreadIterator  # noqa: F401
from chainlite.iterators.order_samplers import OrderSampler  # noqa: F401
from chainlite.iterators.order_samplers import ShuffleOrderSampler  # noqa: F401
from chainlite.iterators.serial_iterator import SerialIterator  # noqa: F401
