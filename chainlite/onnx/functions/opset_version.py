"""onnx_chainer's ``support``: run a converter at the opset its operators were defined in."""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional, Sequence


def support(opset_versions: Optional[Sequence[int]]) -> Callable[[Callable[..., Any]],
                                                                   Callable[..., Any]]:
    """Decorates a converter of ``(func, opset_version, ...)`` with the opsets it knows.

    An ONNX operator changes at some opsets and keeps its form in between. The decorated
    converter is called with the newest of ``opset_versions`` not above the requested
    opset, so it only needs a branch per listed opset. An opset below all of them raises.

    Args:
        opset_versions: The opsets the converter has a form for; None passes the opset
            through unchanged.

    Returns:
        The decorator.

    Raises:
        RuntimeError: (from the decorated converter) If the requested opset is older than
            every one of ``opset_versions``.

    Example:
        >>> @support((6, 8))
        ... def convert_Mine(func, opset_version, *rest):
        ...     return opset_version
        >>> [convert_Mine(None, v) for v in (6, 7, 8, 13)]
        [6, 6, 8, 8]
    """
    def decorator(convert: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(convert)
        def converter(func: Any, opset_version: int, *args: Any, **kwargs: Any) -> Any:
            if opset_versions is None:
                return convert(func, opset_version, *args, **kwargs)
            usable = [v for v in opset_versions if v <= opset_version]
            if not usable:
                raise RuntimeError(
                    '%s cannot convert %s at opset_version %d: it knows opsets %s'
                    % (convert.__name__, type(func).__name__, opset_version,
                       sorted(opset_versions)))
            return convert(func, max(usable), *args, **kwargs)
        return converter
    return decorator
