"""Ready-made link hooks (Chainer's ``chainer.link_hooks``).

- :class:`TimerHook`: time spent in each link's forward.
- :class:`SpectralNormalization`: a weight divided by its largest singular value.
- :class:`WeightStandardization`: each output unit's weights standardized.
"""
from chainlite.link_hooks.spectral_normalization import SpectralNormalization  # noqa: F401
from chainlite.link_hooks.timer import TimerHook  # noqa: F401
from chainlite.link_hooks.weight_standardization import WeightStandardization  # noqa: F401
