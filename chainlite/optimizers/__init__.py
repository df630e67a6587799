"""Optimizers (``chainlite.optimizers``): one GradientMethod and its UpdateRule per module.

Example:
    >>> from chainlite import optimizers
    >>> opt = optimizers.MomentumSGD(lr=0.1)
    >>> opt.lr, opt.momentum
    (0.1, 0.9)
"""
from chainlite.optimizers.ada_delta import AdaDelta  # noqa: F401
from chainlite.optimizers.ada_grad import AdaGrad  # noqa: F401
from chainlite.optimizers.adam import AdaBound  # noqa: F401
from chainlite.optimizers.adam import Adam  # noqa: F401
from chainlite.optimizers.adam import AdamW  # noqa: F401
from chainlite.optimizers.adam import AMSBound  # noqa: F401
from chainlite.optimizers.adam import AMSGrad  # noqa: F401
from chainlite.optimizers.corrected_momentum_sgd import CorrectedMomentumSGD  # noqa: F401
from chainlite.optimizers.momentum_sgd import MomentumSGD  # noqa: F401
from chainlite.optimizers.msvag import MSVAG  # noqa: F401
from chainlite.optimizers.nesterov_ag import NesterovAG  # noqa: F401
from chainlite.optimizers.rmsprop import RMSprop  # noqa: F401
from chainlite.optimizers.rmsprop_graves import RMSpropGraves  # noqa: F401
from chainlite.optimizers.sgd import SGD  # noqa: F401
from chainlite.optimizers.smorms3 import SMORMS3  # noqa: F401
