"""The probability distribution base class and the KL divergence registry.

A :class:`Distribution` holds its parameters as Variables, so every statistic it computes
(``log_prob``, ``entropy``, ``mean``, :func:`kl_divergence`, ...) is built from chainlite
functions and can be differentiated with respect to the parameters. The concrete
distributions live in :mod:`chainlite.distributions`.

Example:
    >>> import numpy as np
    >>> from chainlite import distributions as D
    >>> p = D.Normal(np.zeros(2, np.float32), np.ones(2, np.float32))
    >>> q = D.Normal(np.ones(2, np.float32), np.ones(2, np.float32))
    >>> kl_divergence(p, q).array
    array([0.5, 0.5], dtype=float32)
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from chainlite import backend
from chainlite import variable

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec
    from chainlite.types import VariableOrArray

_D = TypeVar('_D', bound='Distribution')

__all__ = ['Distribution', 'register_kl', 'kl_divergence', 'cross_entropy']


def _undefined(dist: Any, what: str) -> NotImplementedError:
    return NotImplementedError('%s does not define %s' % (type(dist).__name__, what))


class Distribution:
    """Base class of probability distributions (Chainer's ``chainer.Distribution``).

    A distribution has a ``batch_shape`` (independent distributions computed together) and
    an ``event_shape`` (the shape of one draw). Methods that take a realization ``x`` accept
    an array or Variable of shape ``sample_shape + batch_shape + event_shape`` and return a
    Variable of shape ``sample_shape + batch_shape``.

    Subclasses override the members they support; the others raise NotImplementedError
    naming the distribution and the member, as in Chainer. Sampling is implemented by
    overriding :meth:`sample_n`; :meth:`sample` reshapes its result.

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> d = D.Normal(np.zeros((4, 3), np.float32), np.ones((4, 3), np.float32))
        >>> d.batch_shape, d.event_shape, d.sample((6, 5)).shape
        ((4, 3), (), (6, 5, 4, 3))
    """

    def _copy_to(self, target: _D) -> _D:
        target.__dict__ = copy.copy(self.__dict__)
        return target

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """The shape of the batch of distributions this object holds."""
        raise _undefined(self, 'batch_shape')

    @property
    def event_shape(self) -> tuple[int, ...]:
        """The shape of one draw from one distribution of the batch."""
        raise _undefined(self, 'event_shape')

    @property
    def params(self) -> dict[str, variable.Variable]:
        """The parameters of the distribution, by name (Variables)."""
        raise _undefined(self, 'params')

    @property
    def mean(self) -> variable.Variable:
        """The mean of the distribution."""
        raise _undefined(self, 'mean')

    @property
    def mode(self) -> variable.Variable:
        """The mode of the distribution."""
        raise _undefined(self, 'mode')

    @property
    def variance(self) -> variable.Variable:
        """The variance of the distribution."""
        raise _undefined(self, 'variance')

    @property
    def stddev(self) -> variable.Variable:
        """The standard deviation of the distribution."""
        raise _undefined(self, 'stddev')

    @property
    def covariance(self) -> variable.Variable:
        """The covariance matrix of a multivariate distribution."""
        raise _undefined(self, 'covariance')

    @property
    def entropy(self) -> variable.Variable:
        """The (differential) entropy of the distribution."""
        raise _undefined(self, 'entropy')

    @property
    def support(self) -> str:
        """A string describing the set of values the distribution takes."""
        raise _undefined(self, 'support')

    @property
    def xp(self) -> Any:
        """The array module of the parameters (NumPy on a CPU)."""
        return backend.get_array_module(*self.params.values())

    def log_prob(self, x: VariableOrArray) -> variable.Variable:
        """Logarithm of the probability (density or mass) of ``x``."""
        raise _undefined(self, 'log_prob')

    def prob(self, x: VariableOrArray) -> variable.Variable:
        """Probability (density or mass) of ``x``: ``exp(log_prob(x))`` unless overridden."""
        from chainlite.functions.math import exp
        return exp.exp(self.log_prob(x))

    def cdf(self, x: VariableOrArray) -> variable.Variable:
        """Cumulative distribution function at ``x``."""
        raise _undefined(self, 'cdf')

    def log_cdf(self, x: VariableOrArray) -> variable.Variable:
        """Logarithm of the cumulative distribution function at ``x``."""
        raise _undefined(self, 'log_cdf')

    def icdf(self, x: VariableOrArray) -> variable.Variable:
        """Inverse cumulative distribution function (quantile function) at ``x``."""
        raise _undefined(self, 'icdf')

    def survival_function(self, x: VariableOrArray) -> variable.Variable:
        """Survival function ``1 - cdf(x)``."""
        raise _undefined(self, 'survival_function')

    def log_survival_function(self, x: VariableOrArray) -> variable.Variable:
        """Logarithm of the survival function."""
        raise _undefined(self, 'log_survival_function')

    def perplexity(self, x: VariableOrArray) -> variable.Variable:
        """Perplexity of ``x``: ``exp(-log_prob(x))`` unless overridden."""
        from chainlite.functions.math import exp
        return exp.exp(-self.log_prob(x))

    def sample(self, sample_shape: ShapeSpec = ()) -> variable.Variable:
        """Draws samples of shape ``sample_shape + batch_shape + event_shape``.

        Args:
            sample_shape: An int or a tuple of ints.

        Returns:
            A Variable. Distributions whose samples are a differentiable function of the
            parameters (Normal, Gamma's scale, ...) return samples linked to them
            (reparameterization).
        """
        final_shape = self.batch_shape + self.event_shape
        if isinstance(sample_shape, int):
            n = sample_shape
            final_shape = (n,) + final_shape
        else:
            shape = tuple(sample_shape)
            n = 1
            for s in shape:
                n *= s
            final_shape = shape + final_shape
        return self.sample_n(n).reshape(final_shape)

    def sample_n(self, n: int) -> variable.Variable:
        """Draws ``n`` samples: a Variable of shape ``(n,) + batch_shape + event_shape``."""
        raise _undefined(self, 'sample_n')


_KL = Callable[[Any, Any], variable.Variable]
_KLDIVERGENCE: dict[tuple[type, type], _KL] = {}
_F = TypeVar('_F', bound=_KL)


def register_kl(Dist1: type[Distribution], Dist2: type[Distribution]) -> Callable[[_F], _F]:
    """Decorator registering the KL divergence between two distribution classes.

    Args:
        Dist1: The class of the first (left) argument of :func:`kl_divergence`.
        Dist2: The class of the second (right) argument.

    Returns:
        A decorator; the decorated function takes a ``Dist1`` and a ``Dist2`` and returns
        the KL divergence (a Variable). The function itself is returned unchanged.

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> @register_kl(D.Exponential, D.Gamma)
        ... def _kl_exp_gamma(p, q):
        ...     return kl_divergence(D.Gamma(np.ones_like(p.lam.array), 1 / p.lam), q)
        >>> p, q = D.Exponential(np.array(2.0)), D.Gamma(np.array(2.0), np.array(1.0))
        >>> round(float(kl_divergence(p, q).array), 4)
        1.4635
        >>> del _KLDIVERGENCE[D.Exponential, D.Gamma]
    """
    def register(kl: _F) -> _F:
        _KLDIVERGENCE[Dist1, Dist2] = kl
        return kl
    return register


def _lookup(type1: type, type2: type) -> _KL | None:
    # The exact pair first; then the closest registered pair along both classes' MROs.
    best: _KL | None = None
    best_rank: int | None = None
    for i, t1 in enumerate(type1.__mro__):
        for j, t2 in enumerate(type2.__mro__):
            kl = _KLDIVERGENCE.get((t1, t2))
            if kl is not None and (best_rank is None or i + j < best_rank):
                best, best_rank = kl, i + j
    return best


def kl_divergence(dist1: Distribution, dist2: Distribution) -> variable.Variable:
    """Kullback-Leibler divergence ``KL(dist1 || dist2)``.

    The function registered with :func:`register_kl` for the two classes computes it (for
    subclasses, the registration of the nearest base classes).

    Args:
        dist1: The distribution ``p``.
        dist2: The distribution ``q``.

    Returns:
        A Variable of shape ``batch_shape``: ``E_p[log p(x) - log q(x)]``.

    Raises:
        TypeError: When no KL divergence is registered for the two classes.

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> p = D.Bernoulli(p=np.array([0.5]))
        >>> q = D.Bernoulli(p=np.array([0.25]))
        >>> kl_divergence(p, q).array.round(4)
        array([0.1438])
    """
    kl = _lookup(type(dist1), type(dist2))
    if kl is None:
        raise TypeError('kl_divergence: no KL divergence is registered between %s and %s '
                        '(register one with register_kl)'
                        % (type(dist1).__name__, type(dist2).__name__))
    return kl(dist1, dist2)


def cross_entropy(dist1: Distribution, dist2: Distribution) -> variable.Variable:
    """Cross entropy ``H(dist1, dist2) = entropy(dist1) + KL(dist1 || dist2)``.

    Args:
        dist1: The distribution ``p``; it must define ``entropy``.
        dist2: The distribution ``q``.

    Returns:
        A Variable of shape ``batch_shape``: ``-E_p[log q(x)]``.

    Example:
        >>> import numpy as np
        >>> from chainlite import distributions as D
        >>> p = D.Categorical(np.array([0.5, 0.5]))
        >>> float(cross_entropy(p, p).array) == float(np.log(2))
        True
    """
    return dist1.entropy + kl_divergence(dist1, dist2)
