"""A rank that stops, for any reason, stops the whole job with a message, never a hang.

MPI itself does not notice a peer that has left while the others wait for it in a
collective call: they wait forever, busy-polling a core each. This module closes the gaps:

- every communicator of more than one process gets a :class:`Watch` on a duplicate of its
  MPI communicator. Before each of its collective calls the ranks meet there (``sync``):
  a tiny ``MPI_Iallreduce`` of what each rank is about to do (which call, an update
  number, a checksum of the arrays' layout). It is waited on by polling with short sleeps,
  so a waiting rank costs almost no CPU; calls that do not match are reported with what
  every rank was doing, instead of pairing wrongly or waiting forever;
- a rank that leaves the program normally (its end, ``sys.exit(0)``) tells the others so
  (a message on each watch) and waits for theirs: a rank waiting for it in a watched call
  aborts the job at once, naming it; if some rank has not ended within
  ``CHAINLITE_DISTRIBUTED_EXIT_TIMEOUT`` seconds (it may be blocked in an MPI call that
  chainlite does not watch), the job is aborted;
- ``sys.exit`` with a nonzero code aborts the job at once (uncaught exceptions already do,
  through :mod:`~chainlite.distributed.global_except_hook`), as does ``SIGTERM`` (a thread
  notices it even while the main thread is blocked inside MPI).
"""
from __future__ import annotations

import atexit
import hashlib
import os
import signal
import sys
import threading
import time
import warnings
import zlib
from typing import Any, Callable, Optional

import numpy

from chainlite.distributed import _mpi

TIMEOUT_VARIABLE = 'CHAINLITE_DISTRIBUTED_EXIT_TIMEOUT'
DEFAULT_EXIT_TIMEOUT = 300.0
# A wait polls without pause for _SPIN seconds, then yields the CPU between polls until
# _YIELD, then sleeps between polls (at most _MAX_SLEEP): ranks that arrive close together
# lose nothing, and a rank waiting for long costs almost no CPU.
_SPIN = 2e-4
_YIELD = 0.02
_MAX_SLEEP = 1e-3
_GRACE = 0.5        # a rank that has left may have sent data still to arrive
_EXIT_TAG = 0x5e7    # the tag of "I have left" messages on a watch's communicator
_ABORT_TAG = 0x5e8   # "I am aborting the job (and said why)"

HINT = ('Every rank must make the same collective calls in the same order. What breaks '
        'that: a rank that skips an update (or catches an exception raised inside one and '
        'goes on), datasets of different lengths (scatter_dataset(..., '
        'force_equal_length=False) gives the ranks different numbers of iterations per '
        'epoch; the default, True, does not), and communicating extensions added on some '
        'ranks only.')


_CODES: dict = {}     # the CRC-32 of each call's name
_yield = getattr(os, 'sched_yield', None) or (lambda: time.sleep(0))


class _State:
    pid = 0                  # the process that installed the handlers (not a forked child)
    watches: list = []       # every Watch of the process, kept to the end
    exit_note: Optional[tuple] = None    # (status, 'sys.exit(0) at file.py:12')
    abort_lock = threading.RLock()   # (a signal handler may abort again in that thread)
    signal_pipe: Optional[tuple] = None


def _text(describe: Any) -> str:
    return describe() if callable(describe) else str(describe)


def _who() -> str:
    world = _mpi.mpi().COMM_WORLD
    return 'rank %d of %d' % (world.Get_rank(), world.Get_size())


def abort(message: str, code: int = 1) -> None:
    """Prints ``message`` and aborts the whole job (other threads calling it wait)."""
    if not _State.abort_lock.acquire(blocking=False):
        while True:          # another thread is aborting the job
            time.sleep(1)
    try:
        sys.stderr.write('\nchainlite.distributed: %s\n' % message)
        sys.stderr.flush()
        for watch in _State.watches:
            watch.tell_aborting()
    finally:
        try:
            _mpi.mpi().COMM_WORLD.Abort(code)
        finally:
            os._exit(code)


def _rank_list(ranks: list) -> str:
    return ('rank %d' % ranks[0] if len(ranks) == 1
            else 'ranks %s' % ', '.join(map(str, ranks)))


def _grouped(values: dict) -> list:
    # [(ranks, value)] for a {rank: value}, ranks of equal values together, by first rank.
    groups: dict = {}
    for r in sorted(values):
        groups.setdefault(values[r], []).append(r)
    return sorted(((rs, v) for v, rs in groups.items()), key=lambda g: g[0][0])


def layout_check(items: list) -> int:
    """A 56-bit checksum of a list of picklable-repr items (names, shapes, dtypes)."""
    return int.from_bytes(hashlib.blake2b(repr(items).encode(), digest_size=7).digest(),
                          'little')


def explain_layouts(infos: list, what: str, note: str = '') -> str:
    """Says which arrays differ between the ranks, from their ``(name, shape, dtype)`` lists.

    Args:
        infos: ``[(rank, [(name, shape or None, dtype name or None), ...]), ...]``.
        what: What the arrays are, e.g. "the ranks' models".
        note: Said after "differ", e.g. " (every rank must build the same model)".

    Returns:
        "<what> differ<note>: <name>: rank 0 (6, 4) float32, rank 1 (4, 6) float32; ...".
    """
    tables = {rank: {name: (shape, dtype) for name, shape, dtype in detail}
              for rank, detail in infos}
    names = sorted(set().union(*tables.values()))
    lines = []
    for name in names:
        values = {r: t.get(name) for r, t in tables.items()}
        if len(set(values.values())) == 1:
            continue
        parts, missing = [], []
        for ranks, value in _grouped(values):
            if value is None:
                missing += ranks
            elif value[0] is None:
                parts.append('%s uninitialized' % _rank_list(ranks))
            else:
                parts.append('%s %s %s' % (_rank_list(ranks), tuple(value[0]), value[1]))
        if missing:
            parts.append('missing on %s' % _rank_list(sorted(missing)))
        lines.append('%s: %s' % (name, ', '.join(parts)))
    more = '; and %d more' % (len(lines) - 10) if len(lines) > 10 else ''
    return '%s differ%s: %s%s' % (what, note, '; '.join(lines[:10]), more)


class Watch:
    """The stop-and-step watch of one communicator (see the module's docstring).

    Args:
        mpi_comm: The communicator's ``mpi4py.MPI.Comm`` (every rank of it constructs its
            watch together: this duplicates it).
    """

    def __init__(self, mpi_comm: Any) -> None:
        MPI = _mpi.mpi()
        install()
        self.control = mpi_comm.Dup()
        self.rank, self.size = mpi_comm.Get_rank(), mpi_comm.Get_size()
        self.world = MPI.Group.Translate_ranks(mpi_comm.Get_group(), list(range(self.size)),
                                               MPI.COMM_WORLD.Get_group())
        self.calls = 0
        self.last: Any = None            # what the last sync was (text or a callable)
        self.departed: dict = {}         # rank -> its "I have left" message
        self.sends: list = []
        _State.watches.append(self)

    def _name(self, rank: int) -> str:
        world = self.world[rank]
        extra = '' if world == rank else ' (rank %d of the whole job)' % world
        return 'rank %d of %d%s' % (rank, self.size, extra)

    # -- meeting before a collective call ----------------------------------------------

    def sync(self, what: str, key: int = 0, check: int = 0, describe: Any = None,
             detail: Optional[Callable[[], Any]] = None,
             explain: Optional[Callable[[list], str]] = None,
             error: type = RuntimeError) -> None:
        """Waits until every rank makes the same call, or raises ``error`` saying who differs.

        Args:
            what: The call (ranks must agree).
            key: A number the ranks must agree on (an update number, a root).
            check: A checksum the ranks must agree on (of the arrays' layout).
            describe: Text (or a callable giving it) of this rank's call, for messages.
            detail: Gives this rank's details when ``check`` differs (for ``explain``).
            explain: Makes the message from ``[(rank, detail)]`` when only ``check``
                differs.
            error: The exception raised on every rank when the ranks differ.
        """
        MPI = _mpi.mpi()
        _State.exit_note = None     # the program went on: a caught sys.exit is no exit
        code = _CODES.get(what)
        if code is None:
            code = _CODES[what] = zlib.crc32(what.encode())
        mine = (code, key, check, self.calls)
        buf = numpy.array(mine + (-code, -key, -check, -self.calls), numpy.int64)
        request = self.control.Iallreduce(MPI.IN_PLACE, buf, op=MPI.MIN)
        describe = what if describe is None else describe
        self.wait(request.Test, describe)
        self.calls += 1
        self.last = describe
        low, high = buf[:4], -buf[4:]
        if (low == high).all():
            return
        if (low[[0, 1, 3]] == high[[0, 1, 3]]).all() and detail is not None:
            infos = self.control.allgather((self.rank, detail()))
            message = explain(infos) if explain is not None else str(infos)
            raise error('%s: %s' % (what, message))
        infos = self.control.allgather((self.rank, _text(describe), self.calls))
        texts = {r: t for r, t, _ in infos}
        if len(set(texts.values())) == 1:
            texts = {r: '%s (collective call %d on this communicator)' % (t, c)
                     for r, t, c in infos}
        parts = ['%s is in %s' % (_rank_list(rs), t) for rs, t in _grouped(texts)]
        raise error('the ranks are out of step: %s. %s' % ('; '.join(parts), HINT))

    # -- waiting ------------------------------------------------------------------------

    def wait(self, test: Callable[[], bool], describe: Any,
             sources: Optional[set] = None) -> None:
        """Polls ``test`` until it is true: briefly without pause, then yielding the CPU
        between polls, then sleeping between them (see ``_SPIN``).

        While it waits, a rank that has left the program aborts the job: any rank for a
        collective call (``sources`` None), else the last of ``sources`` to leave.
        """
        if test():
            return
        start = time.perf_counter()
        while time.perf_counter() - start < _SPIN:
            if test():
                return
        while time.perf_counter() - start < _YIELD:
            _yield()            # a busy machine runs the rank we wait for meanwhile
            if test():
                return
        delay, deadline = 2e-5, None
        while not test():
            self.receive_notices()
            gone = set(self.departed)
            if gone and (sources is None or sources <= gone):
                # What a rank sent before leaving may still be on its way: a moment's grace.
                if deadline is None:
                    deadline = time.monotonic() + _GRACE
                elif time.monotonic() > deadline:
                    self._abort_departed(sorted(gone if sources is None else sources),
                                         describe)
            time.sleep(delay)
            delay = min(2 * delay, _MAX_SLEEP)

    def _abort_departed(self, ranks: list, describe: Any) -> None:
        notices = [self.departed[r] for r in ranks]
        left = '; '.join('%s exited (%s%s)' % (
            self._name(n['rank']), n['reason'],
            ', after %s' % n['last'] if n['last'] else '') for n in notices)
        abort('%s while rank %d waits for %s in %s; aborting the job. %s'
              % (left, self.rank, 'it' if len(ranks) == 1 else 'them', _text(describe), HINT))

    # -- leaving ------------------------------------------------------------------------

    def receive_notices(self) -> None:
        """Takes in every "I have left" message that has arrived."""
        MPI = _mpi.mpi()
        while self.control.Iprobe(source=MPI.ANY_SOURCE, tag=_EXIT_TAG):
            notice = self.control.recv(source=MPI.ANY_SOURCE, tag=_EXIT_TAG)
            self.departed[notice['rank']] = notice

    def announce(self, reason: str) -> None:
        """Tells every other rank that this one has left (``reason`` says how)."""
        notice = {'rank': self.rank, 'reason': reason,
                  'last': None if self.last is None else _text(self.last)}
        self.sends = [self.control.isend(notice, dest=r, tag=_EXIT_TAG)
                      for r in range(self.size) if r != self.rank]

    def tell_aborting(self) -> None:
        """Tells every other rank that this one is aborting the job, having said why."""
        try:
            for r in range(self.size):
                if r != self.rank:
                    self.control.isend(None, dest=r, tag=_ABORT_TAG)
        except Exception:   # MPI is broken: the abort says enough
            pass

    def peer_aborting(self) -> bool:
        """Whether another rank has said it is aborting the job."""
        try:
            return self.control.Iprobe(source=_mpi.mpi().ANY_SOURCE, tag=_ABORT_TAG)
        except Exception:
            return False

    def missing(self) -> list:
        """The ranks (of the whole job) not yet known to have left."""
        self.receive_notices()
        return [self.world[r] for r in range(self.size)
                if r != self.rank and r not in self.departed]


def _exit_timeout() -> float:
    value = os.environ.get(TIMEOUT_VARIABLE)
    if not value:
        return DEFAULT_EXIT_TIMEOUT
    try:
        return float(value)
    except ValueError:
        warnings.warn('%s=%r is not a number of seconds; using %g'
                      % (TIMEOUT_VARIABLE, value, DEFAULT_EXIT_TIMEOUT))
        return DEFAULT_EXIT_TIMEOUT


def _at_exit() -> None:
    # The program is ending without an uncaught exception (those abort in the except hook).
    if os.getpid() != _State.pid or not _State.watches:
        return
    MPI = _mpi.mpi()
    if MPI.Is_finalized():
        return
    failure = getattr(sys, 'last_value', None)   # uncaught, and no except hook aborted
    if failure is not None:
        abort('%s exited (exception %s); aborting the job'
              % (_who(), type(failure).__name__), 1)
    note = _State.exit_note
    if note is not None and note[0] not in (None, 0):
        code = note[0] if isinstance(note[0], int) and 0 < note[0] < 256 else 1
        abort('%s exited (%s); aborting the job' % (_who(), note[1]), code)
    left = 'exited (%s)' % note[1] if note is not None else 'reached the end of its program'
    reason = note[1] if note is not None else 'the end of its program'
    for watch in _State.watches:
        watch.announce(reason)
    timeout = _exit_timeout()
    deadline = time.monotonic() + timeout
    delay = 1e-4
    while True:
        missing = sorted({r for w in _State.watches for r in w.missing()})
        if not missing:
            break
        if time.monotonic() > deadline:
            abort('%s %s, but %s did not within %g s: it may be blocked in an MPI call that '
                  'chainlite does not watch (a call on comm.mpi_comm), or still working '
                  'alone; aborting the job (set %s to the seconds to wait, or inf)'
                  % (_who(), left, _rank_list(missing), timeout, TIMEOUT_VARIABLE))
        time.sleep(delay)
        delay = min(2 * delay, 0.01)
    for watch in _State.watches:
        MPI.Request.Waitall(watch.sends)


def _recording_exit(status: Any = None) -> None:
    # sys.exit, noting how the program is leaving (in another thread it only ends that one).
    if threading.current_thread() is threading.main_thread():
        frame = sys._getframe(1)
        where = '%s:%d' % (os.path.basename(frame.f_code.co_filename), frame.f_lineno)
        _State.exit_note = (status, 'sys.exit(%r) at %s' % (status, where))
    _original_exit(status)


_original_exit = sys.exit


def _abort_for_signal(signum: int) -> None:
    if any(w.peer_aborting() for w in _State.watches):
        os._exit(128 + signum)      # mpiexec ends the job another rank aborted, saying why
    abort('%s got signal %s; aborting the job' % (_who(), signal.Signals(signum).name),
          128 + signum)


def _on_signal(signum: int, frame: Any) -> None:
    if os.getpid() != _State.pid:       # a forked child: die as it would have
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    _abort_for_signal(signum)


def _watch_signals(fd: int) -> None:
    # Python runs signal handlers in the main thread, between bytecodes: never while it is
    # blocked in an MPI call. Its C handler writes the signal number to the wakeup fd at
    # once, though; this thread reads it and aborts (MPI calls release the GIL).
    while True:
        try:
            data = os.read(fd, 64)
        except OSError:
            return
        if not data:
            return
        if signal.SIGTERM in data and signal.getsignal(signal.SIGTERM) is _on_signal \
                and os.getpid() == _State.pid:
            _abort_for_signal(signal.SIGTERM)


def _after_fork_in_child() -> None:
    if signal.getsignal(signal.SIGTERM) is _on_signal:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if _State.signal_pipe is not None:
        r, w = _State.signal_pipe
        _State.signal_pipe = None
        try:
            if signal.set_wakeup_fd(-1) != w:
                signal.set_wakeup_fd(w)  # not ours (any more): put it back
        except ValueError:
            pass
        for fd in (r, w):
            try:
                os.close(fd)
            except OSError:
                pass


def _install_signal_handler() -> None:
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return      # the program handles SIGTERM itself
    signal.signal(signal.SIGTERM, _on_signal)
    r, w = os.pipe()
    try:
        os.set_blocking(w, False)
        previous = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    except (ValueError, OSError):       # a platform without it: the handler alone
        previous = None
    if previous != -1:                  # in use (an event loop): leave it
        if previous is not None:
            signal.set_wakeup_fd(previous)
        os.close(r)
        os.close(w)
        return
    _State.signal_pipe = (r, w)
    threading.Thread(target=_watch_signals, args=(r,), daemon=True,
                     name='chainlite.distributed signal watch').start()


def install() -> None:
    """Installs the exit handshake, ``sys.exit`` recording and the ``SIGTERM`` handler (once).
    """
    global _original_exit
    if _State.pid == os.getpid():
        return
    _State.pid = os.getpid()
    atexit.register(_at_exit)
    if sys.exit is not _recording_exit:
        _original_exit = sys.exit
        setattr(sys, 'exit', _recording_exit)
    _install_signal_handler()
    if hasattr(os, 'register_at_fork'):
        os.register_at_fork(after_in_child=_after_fork_in_child)
