"""The initializer of a normalization link's parameter, in the link's own dtype."""
from __future__ import annotations

import copy
from typing import Any

import numpy

from chainlite import initializers


def initializer(spec: Any, default: Any, dtype: numpy.dtype) -> Any:
    """The initializer ``spec`` (``default`` if None) stands for, with ``dtype``.

    A copy, so that giving it the link's dtype leaves the caller's initializer untouched.
    """
    init = copy.copy(initializers._get_initializer(default if spec is None else spec))
    init.dtype = dtype
    return init
