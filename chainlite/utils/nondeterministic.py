"""Warns, when ``config.warn_nondeterministic`` is set, that nondeterministic code runs."""
from __future__ import annotations

import warnings

from chainlite import configuration


def nondeterministic(f_name: str) -> None:
    """Warns that ``f_name`` may give different results from run to run, if asked to.

    Chainer's GPU kernels that add atomically call it. chainlite's NumPy code is deterministic
    for a given BLAS thread count, so nothing in chainlite calls it; libraries may.

    Args:
        f_name: The name of the nondeterministic function, put in the message.

    Example:
        >>> import warnings, chainlite
        >>> with chainlite.using_config('warn_nondeterministic', True):
        ...     with warnings.catch_warnings(record=True) as w:
        ...         warnings.simplefilter('always')
        ...         nondeterministic('F.my_scatter_add')
        >>> 'F.my_scatter_add' in str(w[0].message)
        True
    """
    if getattr(configuration.config, 'warn_nondeterministic', False):
        warnings.warn('Potentially non-deterministic code is being executed while '
                      'config.warn_nondeterministic is set. Source: ' + f_name,
                      stacklevel=2)
