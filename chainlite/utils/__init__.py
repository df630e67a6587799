"""Utilities, as ``chainer.utils``: type checking and sparse matrices."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from chainlite.utils import sparse  # noqa: F401
from chainlite.utils import type_check  # noqa: F401
from chainlite.utils.sparse import CooMatrix  # noqa: F401
from chainlite.utils.sparse import get_order  # noqa: F401
from chainlite.utils.sparse import to_coo  # noqa: F401
from chainlite.utils.walker_alias import WalkerAlias  # noqa: F401
# Chainer's chainer.utils helpers that scripts and tests import.
import collections.abc as collections_abc  # noqa: F401,E402
import contextlib as _contextlib  # noqa: E402
import shutil as _shutil  # noqa: E402
import tempfile as _tempfile  # noqa: E402

import numpy as _numpy  # noqa: E402

from chainlite.utils import argument  # noqa: F401,E402
from chainlite.utils import array  # noqa: F401,E402
from chainlite.utils import conv  # noqa: F401,E402
from chainlite.utils import conv_nd  # noqa: F401,E402
from chainlite.utils.array import size_of_shape  # noqa: F401,E402
from chainlite.utils.array import sum_to  # noqa: F401,E402
from chainlite.utils.conv import get_conv_outsize  # noqa: F401,E402
from chainlite.utils.conv import get_deconv_outsize  # noqa: F401,E402
from chainlite.utils.experimental import experimental  # noqa: F401,E402
from chainlite.utils.meta import enable_final  # noqa: F401,E402
from chainlite.utils.meta import final  # noqa: F401,E402
from chainlite.utils.model_summary import Summary  # noqa: F401,E402
from chainlite.utils.model_summary import SummaryRow  # noqa: F401,E402
from chainlite.utils.model_summary import summary  # noqa: F401,E402
from chainlite.utils.nondeterministic import nondeterministic  # noqa: F401,E402

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec


def force_array(x: Any, dtype: DTypeSpec = None) -> _numpy.ndarray:
    """Returns ``x`` as an ndarray: a NumPy scalar becomes a 0-d array.

    NumPy operations on 0-d arrays return scalars; a function's ``forward`` must return
    arrays, so it wraps such results with this.

    Args:
        x: An array or a scalar.
        dtype: If given, the result's dtype (cast without copying where possible).

    Returns:
        An ndarray.

    Example:
        >>> import numpy
        >>> from chainlite.utils import force_array
        >>> force_array(numpy.float32(2) * 3)
        array(6., dtype=float32)
    """
    if _numpy.isscalar(x):
        return _numpy.array(x) if dtype is None else _numpy.array(x, dtype)
    return x if dtype is None else x.astype(dtype, copy=False)


def force_type(dtype: _numpy.dtype, value: Any) -> Any:
    """Returns ``value`` (a scalar or an array) in ``dtype``.

    Args:
        dtype: A :class:`numpy.dtype`.
        value: A scalar or an array.

    Returns:
        ``dtype.type(value)`` for a scalar, else the array cast to ``dtype`` if needed.

    Example:
        >>> import numpy
        >>> from chainlite.utils import force_type
        >>> force_type(numpy.dtype(numpy.float16), 1.5)
        np.float16(1.5)
    """
    if _numpy.isscalar(value):
        return dtype.type(value)
    return value if value.dtype == dtype else value.astype(dtype, copy=False)


@_contextlib.contextmanager
def tempdir(**kwargs: Any) -> Iterator[str]:
    """A context manager giving a temporary folder, removed with its contents on exit.

    Args:
        **kwargs: Passed to :func:`tempfile.mkdtemp` (``prefix``, ``dir``, ...).

    Yields:
        The folder's path.

    Example:
        >>> import os
        >>> from chainlite.utils import tempdir
        >>> with tempdir() as d:
        ...     os.path.isdir(d)
        True
    """
    path = _tempfile.mkdtemp(**kwargs)
    try:
        yield path
    finally:
        _shutil.rmtree(path, ignore_errors=True)
