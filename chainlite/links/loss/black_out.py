"""The BlackOut loss layer, with its sampler built from word counts."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy

from chainlite import link
from chainlite import variable
from chainlite.functions.loss import black_out
from chainlite.utils import walker_alias

if TYPE_CHECKING:
    from chainlite.device_resident import DeviceResidentsVisitor
    from chainlite.types import VariableOrArray


class BlackOut(link.Link):
    """BlackOut loss layer (:func:`~chainlite.functions.black_out`).

    Holds the class vectors ``W`` ``(len(counts), in_size)`` and a
    :class:`~chainlite.utils.WalkerAlias` sampler drawing negatives in proportion to
    ``counts``. As in Chainer, ``W`` has no initializer (it holds NaN): set ``W.array``
    before use.

    Args:
        in_size (int): The size of the input vectors.
        counts: The frequency of each class.
        sample_size (int): The number of negative samples per example.

    Attributes:
        W: The class-vector Parameter.
        sampler: The sampler.
        sample_size: The number of negative samples.
        sample_data: None to draw samples at each call, or an integer array
            ``(B, sample_size)`` of samples to use instead (for testing).

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.BlackOut(2, [3, 2, 1], sample_size=2)
        >>> layer.W.array[...] = 1
        >>> layer.sample_data = np.array([[1, 2]], np.int32)
        >>> round(float(layer(np.zeros((1, 2), np.float32), np.array([0])).array), 4)
        1.9095
    """

    sample_data = None

    def __init__(self, in_size: int, counts: Sequence[int] | numpy.ndarray,
                 sample_size: int) -> None:
        super().__init__()
        self.sampler = walker_alias.WalkerAlias(numpy.array(counts, numpy.float32))
        self.sample_size = sample_size
        with self.init_scope():
            self.W = variable.Parameter(shape=(len(counts), in_size))

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Lets a device visitor move ``W`` and the sampler's tables (as in Chainer, so
        ``to_device`` moves both).

        Args:
            visitor: A :class:`~chainlite.device_resident.DeviceResidentsVisitor`.
        """
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)

    def forward(self, x: VariableOrArray, t: VariableOrArray) -> variable.Variable:
        """The mean BlackOut loss of the inputs ``x`` ``(B, in_size)`` for labels ``t``.

        Args:
            x: The inputs.
            t: The integer labels ``(B,)``.

        Returns:
            A scalar Variable.
        """
        if self.sample_data is not None:
            samples = self.sample_data
        else:
            samples = self.sampler.sample((x.shape[0], self.sample_size))
        return black_out.black_out(x, t, self.W, samples)
