"""Weight standardization of a link's weight (a link hook)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import backend
from chainlite import link_hook
from chainlite.functions.normalization import group_normalization
from chainlite.link_hooks import _weight_hook

if TYPE_CHECKING:
    from chainlite.link import Link


class WeightStandardization(link_hook.LinkHook):
    """Standardizes a link's weight before each forward (Qiao et al., 2019,
    https://arxiv.org/abs/1903.10520).

    During the forward the link sees, instead of its weight ``W``, ``W`` with each output
    unit's filter (``W[i]``) shifted to zero mean and scaled to unit variance
    (``(W[i] - mean) / sqrt(var + eps)``), computed by
    :func:`~chainlite.functions.group_normalization` with one group, so gradients reach the
    Parameter. Afterwards the Parameter is put back. Register it on one link with
    ``link.add_hook(hook)``; it cannot be used as a context manager.

    Args:
        eps (float): Added to the variance (keyword only).
        weight_name (str): The name of the weight Parameter (keyword only).
        name (str): The hook's name (``'WeightStandardization'`` by default).

    Raises:
        ValueError: At ``add_hook``, if the link has no such weight.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> from chainlite.link_hooks import WeightStandardization
        >>> conv = L.Convolution2D(2, 3, 2, nobias=True).add_hook(WeightStandardization())
        >>> y = conv(np.ones((1, 2, 2, 2), np.float32))   # each filter sums to 0 now
        >>> bool(np.allclose(y.array, 0, atol=1e-5))
        True
        >>> conv.delete_hook('WeightStandardization')
    """

    name = 'WeightStandardization'

    def __init__(self, *, eps: float = 1e-5, weight_name: str = 'W',
                 name: Optional[str] = None) -> None:
        self.eps = eps
        self.weight_name = weight_name
        self._initialized = False
        if name is not None:
            self.name = name

    def __enter__(self) -> 'WeightStandardization':
        _weight_hook.refuse_context(self)

    def __exit__(self, *exc: Any) -> None:
        _weight_hook.refuse_context(self)

    def added(self, link: Optional[Link] = None) -> None:
        """Checks that the link has the weight."""
        _weight_hook.check_weight(self, link)
        if getattr(link, self.weight_name).array is not None:
            self._initialized = True

    def forward_preprocess(self, cb_args: Any) -> None:
        """Puts the standardized weight in place of the Parameter."""
        link = cb_args.link
        if not self._initialized:
            _weight_hook.initialize_lazily(self, link, cb_args.args)
            self._initialized = True
        W = getattr(link, self.weight_name)
        xp = backend.get_array_module(W.array)
        with link.device:  # (on the link's GPU, which need not be the current one)
            gamma = xp.ones((W.shape[1],), W.dtype)
            beta = xp.zeros((W.shape[1],), W.dtype)
        self.original_weight = W
        setattr(link, self.weight_name,
                group_normalization.group_normalization(W, 1, gamma, beta, eps=self.eps))

    def forward_postprocess(self, cb_args: Any) -> None:
        """Puts the Parameter back."""
        setattr(cb_args.link, self.weight_name, self.original_weight)
