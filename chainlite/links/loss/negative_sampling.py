"""The negative sampling loss layer, with its sampler built from word counts."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import configuration
from chainlite import link
from chainlite import variable
from chainlite.functions.loss import negative_sampling
from chainlite.utils import walker_alias

if TYPE_CHECKING:
    from chainlite.device_resident import DeviceResidentsVisitor
    from chainlite.types import DTypeSpec, VariableOrArray


class NegativeSampling(link.Link):
    """Negative sampling loss layer (:func:`~chainlite.functions.negative_sampling`).

    Holds the class vectors ``W`` ``(len(counts), in_size)``, initialised to zeros as in
    Chainer, and a :class:`~chainlite.utils.WalkerAlias` sampler that draws negative classes
    with probability proportional to ``counts ** power``.

    Args:
        in_size (int): The size of the input vectors.
        counts: The frequency of each class (word).
        sample_size (int): The number of negative samples per example.
        power (float): The exponent applied to the counts.
        dtype: The dtype of ``W`` (None: ``chainlite.config.dtype``).

    Attributes:
        W: The class-vector Parameter.
        sampler: The :class:`~chainlite.utils.WalkerAlias` sampler.
        sample_size: The number of negative samples.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> layer = L.NegativeSampling(3, [10, 5, 2, 5, 2], sample_size=2)
        >>> layer.W.shape
        (5, 3)
        >>> loss = layer(np.ones((4, 3), np.float32), np.array([0, 1, 2, 3], np.int32))
        >>> round(float(loss.array), 4)  # W is zero: 4 rows * 3 terms * log(2)
        8.3178
    """

    def __init__(self, in_size: int, counts: Sequence[int] | numpy.ndarray, sample_size: int,
                 power: float = 0.75, dtype: DTypeSpec = None) -> None:
        super().__init__()
        dtype = configuration.get_dtype(dtype)
        self.sample_size = sample_size
        p = numpy.array(counts, dtype)
        numpy.power(p, dtype.type(power), out=p)
        self.sampler = walker_alias.WalkerAlias(p)
        with self.init_scope():
            self.W = variable.Parameter(0, (len(counts), in_size))
        if self.W.dtype != dtype:
            self.W.array = self.W.array.astype(dtype)

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Lets a device visitor move ``W`` and the sampler's tables (as in Chainer, so
        ``to_device`` moves both).

        Args:
            visitor: A :class:`~chainlite.device_resident.DeviceResidentsVisitor`.
        """
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)

    def forward(self, x: VariableOrArray, t: VariableOrArray, reduce: str = 'sum', *,
                return_samples: bool = False) -> Any:
        """Computes the loss of the inputs ``x`` ``(B, in_size)`` for the labels ``t`` ``(B,)``.

        Args:
            x: The inputs.
            t: The ``int32`` labels, ``-1`` for rows to ignore.
            reduce (str): ``'sum'`` or ``'no'``.
            return_samples (bool): Also return the ``(B, sample_size + 1)`` classes used.

        Returns:
            The loss Variable, or ``(loss, samples)`` with ``return_samples``.
        """
        return negative_sampling.negative_sampling(
            x, t, self.W, self.sampler.sample, self.sample_size, reduce=reduce,
            return_samples=return_samples)
