"""The categorical distribution over class indices."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Optional

import numpy

from chainlite import backend
from chainlite import distribution
from chainlite import functions as F
from chainlite import variable
from chainlite.distributions import utils

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray


class Categorical(distribution.Distribution):
    """Categorical distribution over ``{0, ..., K-1}``; the last axis of ``p`` is the class.

    Args:
        p: Class probabilities, shape ``batch_shape + (K,)``. Give either ``p`` or
            ``logit``.
        logit: Unnormalized log-probabilities (keyword only).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> d = D.Categorical(logit=np.log(np.array([[0.2, 0.8]])))
        >>> d.log_prob(np.array([1])).array.round(4)
        array([-0.2231])
    """

    def __init__(self, p: Optional[VariableOrArray] = None, **kwargs: Any) -> None:
        logit = kwargs.pop('logit', None)
        if kwargs:
            raise TypeError('Categorical: unexpected keyword argument(s) %s' % sorted(kwargs))
        if (p is None) == (logit is None):
            raise ValueError('Categorical: either `p` or `logit` (not both) must have a '
                             'value.')
        self.__p = p
        self.__logit = logit

    @functools.cached_property
    def p(self) -> variable.Variable:
        """The class probabilities."""
        if self.__p is not None:
            return variable.as_variable(self.__p)
        return F.exp(self.log_p)

    @functools.cached_property
    def log_p(self) -> variable.Variable:
        """The logarithm of the class probabilities."""
        if self.__p is not None:
            with numpy.errstate(divide='ignore'):
                return F.log(self.__p)
        return F.log_softmax(self.__logit, axis=-1)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.p.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'p': self.p}

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return -F.sum(utils._modified_xlogx(self.p), axis=-1)

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        x = utils._array(x).astype(numpy.intp)
        batch = self.batch_shape
        if x.shape[x.ndim - len(batch):] != batch:
            raise ValueError('Categorical.log_prob: x of shape %s does not end with the batch '
                             'shape %s' % (x.shape, batch))
        log_p = F.broadcast_to(self.log_p, x.shape + self.log_p.shape[-1:])
        flat = F.reshape(log_p, (-1, log_p.shape[-1]))
        return F.reshape(F.select_item(flat, x.reshape(-1)), x.shape)

    def sample_n(self, n: int) -> variable.Variable:
        p = utils._values(self.p)
        xp = backend.get_array_module(p)
        rows = p.reshape(-1, p.shape[-1]).astype(numpy.float64)
        rows = rows / rows.sum(axis=-1, keepdims=True)
        eps = xp.stack([xp.random.choice(len(row), size=n, p=row) for row in rows], axis=1)
        return variable.Variable(eps.reshape((n,) + self.batch_shape))


@distribution.register_kl(Categorical, Categorical)
def _kl_categorical_categorical(dist1: Categorical, dist2: Categorical) -> variable.Variable:
    return F.sum(dist1.p * (dist1.log_p - dist2.log_p), axis=-1)
