"""Ready-made link hooks (Chainer's ``chainer.link_hooks``).

- :class:`TimerHook`: time spent in each link's forward.
"""
from chainlite.link_hooks.timer import TimerHook  # noqa: F401
