"""Optimizer hooks (``chainlite.optimizer_hooks``): regularizers and gradient transforms.

Each hook is added with ``optimizer.add_hook(hook)`` (for every parameter) or
``param.update_rule.add_hook(hook)`` (for one), and runs before the update by default.

Example:
    >>> from chainlite import optimizer_hooks
    >>> hook = optimizer_hooks.WeightDecay(1e-4)
    >>> hook.name, hook.timing, hook.call_for_each_param
    ('WeightDecay', 'pre', True)
"""
from chainlite.optimizer_hooks.gradient_clipping import GradientClipping  # noqa: F401
from chainlite.optimizer_hooks.gradient_hard_clipping import GradientHardClipping  # noqa: F401
from chainlite.optimizer_hooks.gradient_lars import GradientLARS  # noqa: F401
from chainlite.optimizer_hooks.gradient_noise import GradientNoise  # noqa: F401
from chainlite.optimizer_hooks.lasso import Lasso  # noqa: F401
from chainlite.optimizer_hooks.weight_decay import WeightDecay  # noqa: F401
