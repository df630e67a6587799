"""Child processes that end with their parent, however the parent ends.

A child process started by chainlite (a :class:`MultiprocessIterator` worker, a snapshot
writer's process) calls :func:`die_with_parent` first, with what :func:`token` said in the
parent when it started the child. From then on:

- on Linux, the kernel kills the child (SIGKILL) the moment its parent exits, even while
  the child is deep in a dataset's ``__getitem__`` (``prctl(PR_SET_PDEATHSIG)``; only
  when the parent started the child from its main thread, since the signal follows the
  thread that started it);
- everywhere, a daemon thread of the child watches the parent (``multiprocessing``'s parent
  sentinel, a pipe whose other end only the parent holds, and ``os.getppid()``) and ends the
  child with ``os._exit`` once the parent is gone.

:func:`parent_alive` lets the child check, right before an action only a live parent wants
(deleting old snapshots), that the parent still exists.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from multiprocessing import connection
from typing import Any, Optional

# How often the watching thread checks the parent's pid (seconds); the sentinel wakes it at
# once.
_POLL_S = 0.2
# prctl's option: the signal the child gets when its parent (thread) exits.
_PR_SET_PDEATHSIG = 1
# The exit status of a child that ends because its parent is gone.
ORPHAN_EXIT = 70

# In a child that called die_with_parent: (the parent's pid, the parent's sentinel or None,
# the child's pid: a process it forks inherits this, but watches nothing).
_watched: Optional[tuple[int, Any, int]] = None


def token(context: Any = None) -> tuple[Optional[int], bool]:
    """What a child started now needs to know about this process (called in the parent).

    Args:
        context: The ``multiprocessing`` context that starts the child (the default one if
            None).

    Returns:
        ``(pid, main_thread)``: the pid the child's parent will have (None when a fork server
        starts it), and whether the child is started from the main thread.
    """
    method = (context or multiprocessing).get_start_method()
    pid = None if method == 'forkserver' else os.getpid()
    return pid, threading.current_thread() is threading.main_thread()


def die_with_parent(parent: tuple[Optional[int], bool]) -> None:
    """Makes this (child) process end when its parent ends; see the module's docstring.

    Args:
        parent: What :func:`token` returned in the parent.
    """
    global _watched
    pid, main_thread = parent
    if main_thread:
        _set_pdeathsig()
    process = multiprocessing.parent_process()
    sentinel = None if process is None else process.sentinel
    if pid is None:
        pid = os.getppid()  # the fork server, which exits with the parent
    _watched = (pid, sentinel, os.getpid())
    if not parent_alive():  # gone before the signal was set up
        os._exit(ORPHAN_EXIT)
    threading.Thread(target=_watch, args=(pid, sentinel), name='chainlite-parent-watch',
                     daemon=True).start()


def parent_alive() -> bool:
    """Whether the parent of this process still exists (True outside such a child).

    Returns:
        False in a process that called :func:`die_with_parent` once its parent is gone.
    """
    watched = _watched
    if watched is None or watched[2] != os.getpid():
        return True
    pid, sentinel, _ = watched
    if os.getppid() != pid:
        return False  # adopted by another process: the parent exited
    return sentinel is None or not connection.wait([sentinel], 0)


def _set_pdeathsig() -> bool:
    # Linux only: ask the kernel for SIGKILL when the parent exits.
    if not sys.platform.startswith('linux'):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(pid: int, sentinel: Any) -> None:
    # The daemon thread: ends the process once the parent is gone.
    while True:
        if sentinel is not None:
            try:
                if connection.wait([sentinel], _POLL_S):
                    break  # the parent's end of the pipe is closed: it exited
            except OSError:
                sentinel = None
        else:
            threading.Event().wait(_POLL_S)
        if os.getppid() != pid:
            break
    os._exit(ORPHAN_EXIT)
