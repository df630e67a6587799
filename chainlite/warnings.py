"""Chainer's warning categories: :class:`PerformanceWarning`."""


class PerformanceWarning(RuntimeWarning):
    """Warns that something runs, but slower than it could (as ``chainer.warnings``'s).

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as w:
        ...     warnings.simplefilter('always')
        ...     warnings.warn('slow path', PerformanceWarning)
        >>> w[0].category.__name__
        'PerformanceWarning'
    """
