"""Marks an API as experimental, as ``chainer.utils.experimental``."""
from __future__ import annotations

import warnings


def experimental(api_name: str) -> None:
    """Warns FutureWarning that ``api_name`` is experimental (its interface may change).

    Setting ``chainlite.disable_experimental_feature_warning = True`` silences it.

    Args:
        api_name: The name of the experimental API, shown in the warning.

    Example:
        >>> import warnings
        >>> import chainlite
        >>> from chainlite import utils
        >>> with warnings.catch_warnings(record=True) as w:
        ...     warnings.simplefilter('always')
        ...     utils.experimental('mylib.f')
        >>> str(w[0].message)
        'mylib.f is experimental. The interface can change in the future.'
    """
    import chainlite
    if not getattr(chainlite, 'disable_experimental_feature_warning', False):
        warnings.warn('%s is experimental. The interface can change in the future.' % api_name,
                      FutureWarning, stacklevel=2)
