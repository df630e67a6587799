"""Saving and loading models, optimizers and trainers (``chainlite.serializers``).

Objects describe their state in ``serialize(serializer)``; :func:`save_npz` and
:func:`load_npz` move it to and from NPZ files that Chainer reads and writes too. HDF5
(:func:`save_hdf5`, :func:`load_hdf5`) needs h5py
(``pip install h5py``, or the extra ``pip install "chainlite-dl[hdf5]"``).

Example:
    >>> import io, numpy as np
    >>> from chainlite import serializers
    >>> class Counter:
    ...     def __init__(self, n):
    ...         self.n = n
    ...         self.history = np.full(2, n, np.float32)
    ...     def serialize(self, serializer):
    ...         self.n = serializer('n', self.n)
    ...         serializer('history', self.history)
    >>> buf = io.BytesIO()
    >>> serializers.save_npz(buf, Counter(5))
    >>> c = Counter(0)
    >>> serializers.load_npz(io.BytesIO(buf.getvalue()), c)
    >>> c.n, c.history
    (5, array([5., 5.], dtype=float32))
"""
from chainlite.serializers.serializer import AbstractSerializer  # noqa: F401
from chainlite.serializers.serializer import Deserializer  # noqa: F401
from chainlite.serializers.serializer import Serializer  # noqa: F401
from chainlite.serializers.npz import DictionarySerializer  # noqa: F401
from chainlite.serializers.npz import load_npz  # noqa: F401
from chainlite.serializers.npz import NpzDeserializer  # noqa: F401
from chainlite.serializers.npz import save_npz  # noqa: F401
from chainlite.serializers.hdf5 import HDF5Deserializer  # noqa: F401
from chainlite.serializers.hdf5 import HDF5Serializer  # noqa: F401
from chainlite.serializers.hdf5 import load_hdf5  # noqa: F401
from chainlite.serializers.hdf5 import save_hdf5  # noqa: F401
