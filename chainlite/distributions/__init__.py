"""Probability distributions (Chainer's ``chainer.distributions``).

Each distribution holds its parameters as Variables; statistics, densities and
:func:`kl_divergence` are built from chainlite functions, so they are differentiable with
respect to the parameters, and sampling is reparameterized where Chainer's is (Normal,
LogNormal, MultivariateNormal, Laplace, Cauchy, Gumbel, Exponential, Uniform, the scale of
Gamma and Pareto).

Example:
    >>> import numpy as np
    >>> import chainlite
    >>> from chainlite import distributions as D
    >>> loc = chainlite.Variable(np.zeros(3, np.float32))
    >>> q = D.Normal(loc, log_scale=np.zeros(3, np.float32))
    >>> p = D.Normal(np.ones(3, np.float32), np.ones(3, np.float32))
    >>> kl = chainlite.functions.sum(chainlite.kl_divergence(q, p))
    >>> kl.backward()
    >>> loc.grad
    array([-1., -1., -1.], dtype=float32)
"""
from chainlite.distribution import cross_entropy  # noqa: F401
from chainlite.distribution import Distribution  # noqa: F401
from chainlite.distribution import kl_divergence  # noqa: F401
from chainlite.distribution import register_kl  # noqa: F401
from chainlite.distributions.bernoulli import Bernoulli  # noqa: F401
from chainlite.distributions.beta import Beta  # noqa: F401
from chainlite.distributions.categorical import Categorical  # noqa: F401
from chainlite.distributions.cauchy import Cauchy  # noqa: F401
from chainlite.distributions.chisquare import Chisquare  # noqa: F401
from chainlite.distributions.dirichlet import Dirichlet  # noqa: F401
from chainlite.distributions.exponential import Exponential  # noqa: F401
from chainlite.distributions.gamma import Gamma  # noqa: F401
from chainlite.distributions.geometric import Geometric  # noqa: F401
from chainlite.distributions.gumbel import Gumbel  # noqa: F401
from chainlite.distributions.independent import Independent  # noqa: F401
from chainlite.distributions.laplace import Laplace  # noqa: F401
from chainlite.distributions.log_normal import LogNormal  # noqa: F401
from chainlite.distributions.multivariate_normal import MultivariateNormal  # noqa: F401
from chainlite.distributions.normal import Normal  # noqa: F401
from chainlite.distributions.one_hot_categorical import OneHotCategorical  # noqa: F401
from chainlite.distributions.pareto import Pareto  # noqa: F401
from chainlite.distributions.poisson import Poisson  # noqa: F401
from chainlite.distributions.uniform import Uniform  # noqa: F401
