"""What function hooks and link hooks share: the thread's registry of global hooks, and
registering a hook there with ``with hook:``."""
from __future__ import annotations

import collections
import threading
from typing import Any, Callable


def get_hooks(state: threading.local) -> 'collections.OrderedDict':
    """The hooks registered in ``state`` for this thread (a name -> hook ordered dict)."""
    hooks = getattr(state, 'hooks', None)
    if hooks is None:
        hooks = state.hooks = collections.OrderedDict()
    return hooks


def enter(hooks: 'collections.OrderedDict', hook: Any, count: Callable[[int], None]) -> Any:
    """Registers ``hook`` under its name, or raises KeyError if the name is taken."""
    if hook.name in hooks:
        raise KeyError('hook %s already exists' % hook.name)
    hooks[hook.name] = hook
    count(1)
    hook.added(None)
    return hook


def exit(hooks: 'collections.OrderedDict', hook: Any, count: Callable[[int], None]) -> None:
    """Unregisters ``hook`` (if it is still the one under its name) and tells it."""
    name = hook.name
    if hooks.get(name) is hook:
        del hooks[name]
        count(-1)
    hook.deleted(None)
