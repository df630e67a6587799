"""Aborting the whole MPI job when one process dies of an uncaught exception.

Without it, the other processes wait forever in their next collective call for a peer
that has gone: MPI often does not notice a Python process ending abnormally. The hook
prints the traceback as Python would, says which rank failed, and calls ``MPI_Abort``.
"""
from __future__ import annotations

import os
import sys
import warnings
from typing import Any

from chainlite.distributed import _mpi
from chainlite.distributed import _stopping

_orig_except_hook: Any = None


def _global_except_hook(exctype: type, value: BaseException, traceback: Any) -> None:
    try:
        (_orig_except_hook or sys.__excepthook__)(exctype, value, traceback)
    finally:
        rank, size = '?', '?'
        try:
            MPI = _mpi.mpi()
            rank, size = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
        except Exception:  # MPI itself is broken: still say what happened
            MPI = None
        sys.stderr.write('\n******************************************\n'
                         'chainlite.distributed:\n'
                         '   Uncaught exception on rank %s.\n'
                         '   Calling MPI_Abort() to shut down MPI...\n'
                         '******************************************\n\n' % rank)
        sys.stderr.flush()
        if MPI is not None:
            _stopping.abort('rank %s of %s exited (exception %s); aborting the job'
                            % (rank, size, _cause(exctype, value)), 1)


def _cause(exctype: type, value: BaseException) -> str:
    text = str(value).strip().split('\n')[0]
    if len(text) > 200:
        text = text[:200] + '...'
    cause = exctype.__name__ + (': ' + text if text else '')
    if issubclass(exctype, KeyboardInterrupt):
        cause += ', from SIGINT or Ctrl-C'
    return cause


def add_hook() -> None:
    """Installs the hook: an uncaught exception prints its traceback, then aborts the job.

    :func:`~chainlite.distributed.create_communicator` installs it for jobs of more than one
    process; so does importing ``chainlite.distributed`` with the environment variable
    ``CHAINERMN_FORCE_ABORT_ON_EXCEPTION`` set (as ChainerMN). A second call warns and does
    nothing.

    Example:
        >>> import sys
        >>> from chainlite.distributed import global_except_hook
        >>> before = sys.excepthook
        >>> global_except_hook.add_hook()
        >>> sys.excepthook is not before
        True
        >>> global_except_hook.remove_hook()
        >>> sys.excepthook is before
        True
    """
    global _orig_except_hook
    if _orig_except_hook is not None:
        warnings.warn('chainlite.distributed.global_except_hook.add_hook() was called more '
                      'than once; ignoring this call', stacklevel=2)
        return
    _orig_except_hook = sys.excepthook
    sys.excepthook = _global_except_hook


def remove_hook() -> None:
    """Restores the ``sys.excepthook`` that :func:`add_hook` replaced (if it did)."""
    global _orig_except_hook
    if _orig_except_hook is not None:
        sys.excepthook = _orig_except_hook
        _orig_except_hook = None


def _add_hook_once() -> None:
    if _orig_except_hook is None:
        add_hook()


def _add_hook_if_enabled() -> None:
    if os.environ.get('CHAINERMN_FORCE_ABORT_ON_EXCEPTION'):
        _add_hook_once()
