"""The categorical distribution over one-hot vectors."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy

from chainlite import backend
from chainlite import distribution
from chainlite import functions as F
from chainlite import variable
from chainlite.distributions import utils

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray


class OneHotCategorical(distribution.Distribution):
    """Categorical distribution whose draws are one-hot vectors of length ``K``.

    Args:
        p: Class probabilities, shape ``batch_shape + (K,)``.

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> d = D.OneHotCategorical(np.array([0.25, 0.75]))
        >>> round(float(d.log_prob(np.array([0.0, 1.0])).array), 4)
        -0.2877
    """

    def __init__(self, p: VariableOrArray) -> None:
        self.__p = p

    @functools.cached_property
    def p(self) -> variable.Variable:
        """The class probabilities."""
        return variable.as_variable(self.__p)

    @functools.cached_property
    def log_p(self) -> variable.Variable:
        """The logarithm of the class probabilities."""
        with numpy.errstate(divide='ignore'):
            return F.log(self.p)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.p.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self.p.shape[-1:]

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'p': self.p}

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.p

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return self.p * (1 - self.p)

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return F.sqrt(self.variance)

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        return -F.sum(utils._modified_xlogx(self.p), axis=-1)

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        return F.sum(self.log_p * x, axis=-1)

    def sample_n(self, n: int) -> variable.Variable:
        p = utils._values(self.p)
        xp = backend.get_array_module(p)
        k = p.shape[-1]
        rows = p.reshape(-1, k).astype(numpy.float64)
        rows = rows / rows.sum(axis=-1, keepdims=True)
        index = xp.stack([xp.random.choice(k, size=n, p=row) for row in rows], axis=1)
        eye = xp.eye(k, dtype=utils._random_dtype(p.dtype))
        return variable.Variable(eye[index.reshape((n,) + self.batch_shape)])


@distribution.register_kl(OneHotCategorical, OneHotCategorical)
def _kl_one_hot_categorical_one_hot_categorical(
        dist1: OneHotCategorical, dist2: OneHotCategorical) -> variable.Variable:
    return F.sum(dist1.p * (dist1.log_p - dist2.log_p), axis=-1)
