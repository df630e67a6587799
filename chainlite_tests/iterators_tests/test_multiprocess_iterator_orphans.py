"""MultiprocessIterator's workers never outlive the main process, and never stall it forever."""
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from chainlite import iterators
from chainlite.iterators import _lifeline

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARKER = 'CHAINLITE_ORPHAN_TEST'
linux_only = pytest.mark.skipif(not os.path.isdir('/proc/self'), reason='needs /proc')


def marked_processes(marker):
    """The live processes (not zombies) whose environment holds MARKER=marker."""
    needle = ('%s=%s' % (MARKER, marker)).encode()
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/environ' % entry, 'rb') as f:
                if needle not in f.read().split(b'\0'):
                    continue
            with open('/proc/%s/stat' % entry) as f:
                state = f.read().rsplit(')', 1)[1].split()[0]
        except OSError:
            continue  # gone, or not ours
        if state not in ('Z', 'X'):
            found.append(int(entry))
    return found


def start_parent(script, *args):
    """Starts ``script`` in a Python process marked by a fresh MARKER; returns (proc, marker)."""
    marker = uuid.uuid4().hex
    env = dict(os.environ, PYTHONPATH=ROOT, **{MARKER: marker})
    proc = subprocess.Popen([sys.executable, '-c', textwrap.dedent(script)] + list(args),
                            env=env, stdin=subprocess.DEVNULL)
    return proc, marker


def wait_for(condition, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def kill_and_check_no_orphans(proc, marker, children, timeout=5.0):
    """SIGKILLs the parent; asserts that its children (at least ``children``) end soon."""
    try:
        assert len([p for p in marked_processes(marker) if p != proc.pid]) >= children
        start = time.monotonic()
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert wait_for(lambda: not marked_processes(marker), timeout), (
            'processes outlived their SIGKILLed parent: %s' % marked_processes(marker))
        return time.monotonic() - start
    finally:
        for pid in marked_processes(marker):  # a failed test leaves nothing behind
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


PARENT = '''
    import os, sys, threading, time
    from chainlite.iterators import MultiprocessIterator

    flags, in_thread = sys.argv[1], sys.argv[2] == 'thread'

    class Slow:
        def __len__(self):
            return 100

        def __getitem__(self, i):
            open(os.path.join(flags, str(os.getpid())), 'w').close()  # inside __getitem__
            time.sleep(30)
            return i

    it = MultiprocessIterator(Slow(), 6, n_processes=3, shared_mem=0, dataset_timeout=None)
    if in_thread:  # workers started from another thread: no PR_SET_PDEATHSIG, the watcher
        threading.Thread(target=next, args=(it,), daemon=True).start()
        time.sleep(60)
    else:
        next(it)
'''


@linux_only
@pytest.mark.parametrize('started_from', ['main', 'thread'])
def test_workers_die_with_a_sigkilled_parent(tmp_path, started_from):
    proc, marker = start_parent(PARENT, str(tmp_path), started_from)
    # Every worker is inside a slow __getitem__ when the parent is killed.
    assert wait_for(lambda: len(os.listdir(tmp_path)) >= 3, 20), 'the workers did not start'
    seconds = kill_and_check_no_orphans(proc, marker, children=3)
    assert seconds < 5


class Stuck:
    def __len__(self):
        return 8

    def __getitem__(self, i):
        time.sleep(3600)  # never returns


def test_a_stuck_worker_gives_a_clear_error_after_dataset_error_timeout():
    it = iterators.MultiprocessIterator(Stuck(), 2, n_processes=1, shared_mem=0,
                                        dataset_timeout=0.2, dataset_error_timeout=1.0)
    try:
        start = time.monotonic()
        with pytest.warns(iterators.MultiprocessIterator.TimeoutWarning):
            with pytest.raises(TimeoutError, match='dataset_error_timeout') as info:
                next(it)
        assert time.monotonic() - start < 5
        message = str(info.value)
        assert '__getitem__' in message
        # The stuck worker was stopped (the message names it); a new call starts fresh ones.
        assert it._pool is None
        pids = [int(p) for p in re.search(r'processes \[([\d, ]+)\]', message).group(1).split(',')]
        assert len(pids) == 1
        assert _zombie_or_gone(pids[0])
    finally:
        it.finalize()


def _zombie_or_gone(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] in ('Z', 'X')
    except OSError:
        return True


def test_dataset_error_timeout_is_checked():
    with pytest.raises(ValueError, match='dataset_error_timeout'):
        iterators.MultiprocessIterator([1, 2], 1, dataset_error_timeout=0)
    it = iterators.MultiprocessIterator([1, 2], 1, n_processes=1, dataset_error_timeout=None)
    assert it.dataset_error_timeout is None
    it.finalize()


def test_parent_alive_outside_a_child():
    assert _lifeline.parent_alive()
