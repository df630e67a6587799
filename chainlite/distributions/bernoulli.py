"""The Bernoulli distribution."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Optional

import numpy

from chainlite import backend
from chainlite import distribution
from chainlite import function_node
from chainlite import functions as F
from chainlite import variable
from chainlite.distributions import utils

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray


class BernoulliLogProb(function_node.FunctionNode):
    """``log p(x; logit)`` of a Bernoulli distribution, stable for large ``|logit|``."""

    def __init__(self, binary_check: bool = False) -> None:
        self.binary_check = binary_check

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        logit, x = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(logit)
        # x * logit - softplus(logit), with softplus written to never overflow.
        softplus = xp.maximum(logit, 0) + xp.log1p(xp.exp(-xp.abs(logit)))
        with numpy.errstate(invalid='ignore', divide='ignore'):
            y = x * logit - softplus
            # An infinite logit is a certain outcome: log x or log(1 - x).
            self.logit_inf = xp.isinf(logit)
            if utils._needs_fix(self.logit_inf):
                y = xp.where(self.logit_inf & (logit > 0), xp.log(x), y)
                y = xp.where(self.logit_inf & (logit < 0), xp.log(1 - x), y)
        y = xp.asarray(y, dtype=logit.dtype)
        if self.binary_check:
            self.invalid = (x != 0) & (x != 1)
            y = xp.where(self.invalid, xp.asarray(-xp.inf, dtype=y.dtype), y)
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        logit, x = self.get_retained_inputs()
        gy, = grad_outputs
        xp = backend.get_array_module(logit.array)
        dlogit = x - F.sigmoid(logit)
        undefined = xp.broadcast_to(self.logit_inf, dlogit.shape)
        if self.binary_check:
            undefined = undefined | self.invalid
        if utils._needs_fix(undefined):
            dlogit = F.where(undefined, xp.full(dlogit.shape, xp.nan, dlogit.dtype), dlogit)
        return F.sum_to(gy * dlogit, logit.shape), None


def _bernoulli_log_prob(logit: Any, x: Any, binary_check: bool = False) -> variable.Variable:
    x = utils._array(x)
    logit_dtype = utils._array(logit).dtype
    return BernoulliLogProb(binary_check).apply((logit, x.astype(logit_dtype, copy=False)))[0]


class Bernoulli(distribution.Distribution):
    """Bernoulli distribution over ``{0, 1}``.

    Args:
        p: The probability of 1. Give either ``p`` or ``logit``.
        logit: ``log(p / (1 - p))``.
        binary_check: If True, ``log_prob`` and ``prob`` of a value other than 0 or 1 are
            ``-inf`` and 0 (otherwise they are the continuous extension).

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> d = D.Bernoulli(logit=np.array([0.0, 2.0]))
        >>> d.log_prob(np.array([1.0, 0.0])).array.round(4)
        array([-0.6931, -2.1269])
    """

    def __init__(self, p: Optional[VariableOrArray] = None,
                 logit: Optional[VariableOrArray] = None, binary_check: bool = False) -> None:
        if (p is None) == (logit is None):
            raise ValueError('Bernoulli: either `p` or `logit` (not both) must have a value.')
        self.__p = p
        self.__logit = logit
        self.binary_check = binary_check

    @functools.cached_property
    def p(self) -> variable.Variable:
        """The probability of 1."""
        if self.__p is not None:
            return variable.as_variable(self.__p)
        return F.sigmoid(self.logit)

    @functools.cached_property
    def logit(self) -> variable.Variable:
        """The log-odds of 1."""
        if self.__logit is not None:
            return variable.as_variable(self.__logit)
        return F.log(self.p) - F.log1p(-self.p)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.p.shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {'logit': self.logit}

    @property
    def support(self) -> str:
        return '{0, 1}'

    @functools.cached_property
    def mean(self) -> variable.Variable:
        return self.p

    @functools.cached_property
    def variance(self) -> variable.Variable:
        return self.p * (1 - self.p)

    @functools.cached_property
    def stddev(self) -> variable.Variable:
        return self.variance ** 0.5

    @functools.cached_property
    def entropy(self) -> variable.Variable:
        p = self.p
        return -utils._modified_xlogx(p) - utils._modified_xlogx(1 - p)

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        return _bernoulli_log_prob(self.logit, x, self.binary_check)

    def prob(self, x: VariableOrArray) -> variable.Variable:
        x = variable.as_variable(utils._like(x, self.p))
        prob = x * self.p + (1 - x) * (1 - self.p)
        if self.binary_check:
            values = utils._values(x)
            valid = (values == 0) | (values == 1)
            prob = prob * valid.astype(prob.dtype)
        return prob

    def sample_n(self, n: int) -> variable.Variable:
        p = utils._values(self.p)
        xp = backend.get_array_module(p)
        eps = xp.random.binomial(1, p, size=(n,) + p.shape)
        return variable.Variable(eps.astype(utils._random_dtype(p.dtype)))


@distribution.register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(dist1: Bernoulli, dist2: Bernoulli) -> variable.Variable:
    # sum_x p(x) (log p(x) - log q(x)), each log term as x * logit - softplus(logit).
    return ((dist1.logit - dist2.logit) * dist1.p
            - F.softplus(dist1.logit) + F.softplus(dist2.logit))
