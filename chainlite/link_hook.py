"""Link hooks: callbacks around every link's forward (Chainer 7's API).

A hook is active for every link called in the current thread inside ``with hook:``, or for
one link after ``link.add_hook(hook)``. While no link hook is registered anywhere,
``Link.__call__`` pays a single check per call for this feature.
"""
from __future__ import annotations

import collections
import threading
from typing import Any, Optional, Self

from chainlite import _hook_registry

_state = threading.local()

# The number of link hooks registered anywhere; Link.__call__ reads it on its fast path.
_hooks_active = 0


def get_link_hooks() -> collections.OrderedDict[str, LinkHook]:
    """The link hooks active in this thread (a name -> hook ordered dict)."""
    return _hook_registry.get_hooks(_state)


def _count(delta: int) -> None:
    global _hooks_active
    _hooks_active += delta


class LocalHooks(collections.OrderedDict):
    """The hooks registered on one link (``link.local_link_hooks``).

    It keeps the global count of registered hooks exact however its entries come and go:
    added or removed, copied with the link (``copy``, ``deepcopy``, pickling all refill it
    entry by entry), or collected with it. A leaked count would send every link call down
    the slow path for the rest of the process.
    """

    def __setitem__(self, key: Any, value: Any) -> None:
        if key not in self:
            _count(1)
        super().__setitem__(key, value)

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        _count(-1)

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            _count(-1)
        return super().pop(key, *default)

    def popitem(self, last: bool = True) -> tuple:
        item = super().popitem(last)
        _count(-1)
        return item

    def clear(self) -> None:
        _count(-len(self))
        super().clear()

    def __del__(self) -> None:
        if _count is not None:  # None while the interpreter shuts down
            _count(-len(self))


class ForwardPreprocessCallbackArgs:
    """What :meth:`LinkHook.forward_preprocess` receives.

    Attributes:
        link: The link being called.
        forward_name: The name of the method being run (``'forward'``).
        args: Its positional arguments.
        kwargs: Its keyword arguments.
    """

    def __init__(self, link: Any, forward_name: str, args: tuple, kwargs: dict) -> None:
        self.link = link
        self.forward_name = forward_name
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        return '<ForwardPreprocessCallbackArgs link=%s forward_name=%s>' % (
            type(self.link).__name__, self.forward_name)


class ForwardPostprocessCallbackArgs(ForwardPreprocessCallbackArgs):
    """What :meth:`LinkHook.forward_postprocess` receives: the same, plus ``out``.

    Attributes:
        out: What the forward returned.
    """

    def __init__(self, link: Any, forward_name: str, args: tuple, kwargs: dict,
                 out: Any) -> None:
        super().__init__(link, forward_name, args, kwargs)
        self.out = out

    def __repr__(self) -> str:
        return '<ForwardPostprocessCallbackArgs link=%s forward_name=%s>' % (
            type(self.link).__name__, self.forward_name)


class LinkHook:
    """Base class of link hooks.

    Override any of :meth:`forward_preprocess`, :meth:`forward_postprocess`, :meth:`added`,
    :meth:`deleted`. Use it as a context manager to hook every link called inside the block,
    or register it on one link with ``Link.add_hook`` (which hooks that link only, not its
    children).

    Attributes:
        name: The key of the hook in the registries (the class name by default).

    Example:
        >>> import numpy as np, chainlite, chainlite.links as L
        >>> class Shapes(chainlite.link_hook.LinkHook):
        ...     name = 'Shapes'
        ...     def __init__(self):
        ...         self.seen = []
        ...     def forward_postprocess(self, args):
        ...         self.seen.append((type(args.link).__name__, args.out.shape))
        >>> with Shapes() as hook:
        ...     _ = L.Linear(3, 2)(np.zeros((4, 3), np.float32))
        >>> hook.seen
        [('Linear', (4, 2))]
    """

    name = 'LinkHook'

    def __enter__(self) -> Self:
        return _hook_registry.enter(get_link_hooks(), self, _count)

    def __exit__(self, *exc: Any) -> None:
        _hook_registry.exit(get_link_hooks(), self, _count)

    def added(self, link: Optional[Any] = None) -> None:
        """Called when the hook is registered (``link`` is None for a global hook)."""

    def deleted(self, link: Optional[Any] = None) -> None:
        """Called when the hook is unregistered (``link`` is None for a global hook)."""

    def forward_preprocess(self, args: Any) -> None:
        """Called before the link's forward, with ``link``, ``forward_name``, ``args``,
        ``kwargs``."""

    def forward_postprocess(self, args: Any) -> None:
        """Called after the link's forward, with the same fields plus ``out``."""


def call_with_hooks(link: Any, forward: Any, args: tuple, kwargs: dict) -> Any:
    """Runs ``forward(*args, **kwargs)`` of ``link`` between its hooks' callbacks.

    The hooks are the thread's global ones, then the link's own, in that order for both
    callbacks (as Chainer).
    """
    hooks = list(get_link_hooks().values())
    local = link.__dict__.get('_local_link_hooks')
    if local:
        hooks.extend(local.values())
    if not hooks:
        return forward(*args, **kwargs)
    pre = ForwardPreprocessCallbackArgs(link, 'forward', args, kwargs)
    for hook in hooks:
        hook.forward_preprocess(pre)
    out = forward(*args, **kwargs)
    post = ForwardPostprocessCallbackArgs(link, 'forward', args, kwargs, out)
    for hook in hooks:
        hook.forward_postprocess(post)
    return out
