"""How many threads NumPy's BLAS uses: one for small products, the free cores for large ones.

OpenBLAS (NumPy's BLAS) starts one thread per core and splits every matrix product among
them. On small matrices the split costs more than it saves, and the threads spin while they
wait for work, so that a core kept busy by another process slows every training step down
by a factor; a large product, on the other hand, runs up to twice as fast on two idle cores
as on one. The policy (docs/performance.md, "BLAS threads"):

- At chainlite's first matrix product the BLAS libraries that threadpoolctl finds are set
  to one thread, unless an environment variable of :data:`ENV_VARS` is set: then chainlite
  never changes the thread count.
- A product of chainlite's functions (linear, matmul, batch_matmul, EmbedID, the
  convolutions and deconvolutions, tensordot) of at least :data:`BIG_PRODUCT_FLOPS` runs on
  the usable cores that other processes leave idle, at most one thread per
  :data:`FLOPS_PER_THREAD`; one of at least :data:`HUGE_PRODUCT_FLOPS` on all usable cores;
  the count goes back to one afterwards. Smaller products pay one comparison.
- :func:`set_blas_threads` fixes the count for every product instead.
"""
from __future__ import annotations

import math
import os
import threading
import time
from typing import Any, Callable, Sequence

import numpy

#: Set by the user, any of these fixes the thread count: chainlite then leaves it alone.
ENV_VARS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS',
            'GOTO_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS')

#: Each BLAS thread of a product gets at least this many floating-point operations (2 m k n
#: for an (m, k) by (k, n) product): on two idle cores, two threads win from 2-4e6 (some tens
#: of microseconds on one thread; raising and restoring the count costs about 2).
FLOPS_PER_THREAD = 2e6

#: Products of fewer operations run on one thread; larger ones on the cores that other
#: processes leave idle (``FLOPS_PER_THREAD`` each at least).
BIG_PRODUCT_FLOPS = 2 * FLOPS_PER_THREAD

#: Products of at least this many operations run on every usable core even when other
#: processes keep them busy: with two busy processes on two cores, two threads lose 2.5-7x
#: up to 5e8 flops, break even at about 1e10 (0.1 s on one thread) and win 1.4x above.
HUGE_PRODUCT_FLOPS = 1e10

# How often, at most, the other processes' use of the cores is measured (seconds).
_SAMPLE_SECONDS = 0.25

_lock = threading.Lock()
_configured = False
_libs: list[Any] = []          # threadpoolctl's controllers of the BLAS libraries found
_initial: list[int] = []       # their thread counts before chainlite changed any
_setting: int | None = None    # set_blas_threads's argument
_big = math.inf                # the threshold in force, in flops: inf while nothing is raised
_big_macs = math.inf           # the same in multiply-adds (m k n), for the hot path
# (time, other processes' CPU seconds, free cores, usable cores) at the last sample
_sample: tuple[float, float, int, int] | None = None


def set_blas_threads(n: int | None) -> None:
    """Fixes the number of BLAS threads for every matrix product, or restores the default.

    chainlite runs small products on one BLAS thread and large ones on the idle cores
    (docs/performance.md, "BLAS threads"). This replaces that policy, for the whole process,
    like ``OPENBLAS_NUM_THREADS`` but at any time; it wins over that variable too.

    Args:
        n: The number of threads, or None for chainlite's default (which leaves the count
            alone where ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` or
            ``MKL_NUM_THREADS`` is set).

    Example:
        >>> import chainlite
        >>> chainlite.set_blas_threads(1)     # one thread for every product
        >>> chainlite.get_blas_threads()
        1
        >>> chainlite.set_blas_threads(None)  # back to the default policy
    """
    global _setting
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError('set_blas_threads: n must be a positive int or None, got %r' % (n,))
    with _lock:
        _setting = n
        _configure()


def get_blas_threads() -> int | None:
    """Returns the thread count fixed by :func:`set_blas_threads`; None under the default."""
    return _setting


def threads() -> list[int]:
    """Returns the thread count of each BLAS library chainlite controls (empty if none)."""
    if not _configured:
        with _lock:
            _configure()
    return [lib.get_num_threads() for lib in _libs]


def _configure() -> None:
    # Finds the BLAS libraries once, then applies the setting; called with _lock held.
    global _configured, _libs, _initial, _big, _big_macs, matmul
    if not _configured:
        try:
            import threadpoolctl
            _libs = [lib for lib in threadpoolctl.ThreadpoolController().lib_controllers
                     if lib.user_api == 'blas']
        except Exception:   # threadpoolctl missing or failing: leave the BLAS as it is
            _libs = []
        _initial = [lib.get_num_threads() for lib in _libs]
        _configured = True
    automatic = _setting is None and not ENV_VARS & os.environ.keys()
    if _setting is not None:
        counts = [_setting] * len(_libs)
    else:
        counts = [1] * len(_libs) if automatic else _initial
    for lib, count in zip(_libs, counts):
        lib.set_num_threads(count)
    _big = BIG_PRODUCT_FLOPS if automatic and _libs and _usable_cores() > 1 else math.inf
    _big_macs = _big / 2
    matmul = _matmul if _big < math.inf else _plain_matmul


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        return os.cpu_count() or 1


def _others_cpu_seconds(cores: set[int] | None) -> float | None:
    # CPU time spent so far on ``cores`` (all if None) by every process but this one, from
    # /proc/stat; None where there is no /proc/stat.
    try:
        with open('/proc/stat', 'rb') as f:
            text = f.read()
    except OSError:
        return None
    ticks = 0
    for line in text.split(b'\n'):
        if not line.startswith(b'cpu') or line.startswith(b'cpu '):
            continue
        name, *fields = line.split()
        if cores is None or int(name[3:]) in cores:
            # user nice system idle iowait irq softirq steal: all but idle and iowait
            ticks += sum(int(v) for v in fields[:8]) - int(fields[3]) - int(fields[4])
    own = os.times()
    return ticks / os.sysconf('SC_CLK_TCK') - own.user - own.system


def _running_others() -> int:
    # How many threads of other processes are runnable now (/proc/loadavg), 0 if unknown.
    try:
        with open('/proc/loadavg', 'rb') as f:
            running = int(f.read().split()[3].split(b'/')[0])
    except (OSError, ValueError, IndexError):
        return 0
    return max(running - 1, 0)   # this thread, reading, is one of them


def _cores() -> tuple[int, int]:
    # (free, usable): the usable cores, and those of them that other processes left idle
    # since the last sample (at the first, those not taken by a runnable thread now); a core
    # counts as busy once others used more than a quarter of it. Sampled at most every
    # _SAMPLE_SECONDS.
    global _sample
    now = time.monotonic()
    if _sample is not None and now - _sample[0] < _SAMPLE_SECONDS:
        return _sample[2], _sample[3]
    try:
        cores: set[int] | None = os.sched_getaffinity(0)
    except AttributeError:
        cores = None
    usable = len(cores) if cores is not None else (os.cpu_count() or 1)
    others_s = _others_cpu_seconds(cores)
    if _sample is None or others_s is None:
        busy = float(_running_others())
    else:
        busy = (others_s - _sample[1]) / (now - _sample[0])
    free = max(1, min(usable, usable - math.ceil(busy - 0.25)))
    _sample = (now, others_s if others_s is not None else 0.0, free, usable)
    return free, usable


def _threaded(flops: float, f: Callable[..., Any], *args: Any) -> Any:
    # f(*args), a product of at least BIG_PRODUCT_FLOPS, on the free cores, FLOPS_PER_THREAD
    # each at least (on all usable ones from HUGE_PRODUCT_FLOPS), then back to one thread;
    # unless the count was changed behind chainlite's back (threadpoolctl's
    # threadpool_limits, say).
    free, usable = _cores()
    n = usable if flops >= HUGE_PRODUCT_FLOPS else min(free, int(flops // FLOPS_PER_THREAD))
    libs = _libs
    if n <= 1 or any(lib.get_num_threads() != 1 for lib in libs):
        return f(*args)
    for lib in libs:
        lib.set_num_threads(n)
    try:
        return f(*args)
    finally:
        for lib in libs:
            lib.set_num_threads(1)


def _matmul(a: Any, b: Any) -> Any:
    # matmul under the default policy, on the hot path: one product and one comparison
    # (m k n, a's batch dimensions included; b's broadcast ones are not, and keep such a
    # product on one thread).
    macs = a.size * b.shape[-1]
    if macs < _big_macs or a.__class__ is not numpy.ndarray:
        return numpy.matmul(a, b)  # (a GPU product: CuPy's, no CPU threads to choose)
    return _threaded(2 * macs, numpy.matmul, a, b)


def _plain_matmul(a: Any, b: Any) -> Any:
    # matmul where chainlite leaves the count alone (numpy.matmul looked up at each call, as
    # the functions did before, so that a test may replace it).
    return numpy.matmul(a, b)


def _first_matmul(a: Any, b: Any) -> Any:
    with _lock:
        if not _configured:
            _configure()
    return matmul(a, b)


#: ``numpy.matmul(a, b)`` for 2-d or stacked operands, on the threads the policy chooses.
matmul: Callable[[Any, Any], Any] = _first_matmul


def tensordot(a: Any, b: Any, axes: tuple[Sequence[int], Sequence[int]]) -> Any:
    """``numpy.tensordot(a, b, axes)`` on the threads the policy chooses."""
    if not _configured:
        with _lock:
            _configure()
    flops = 2 * a.size * (b.size // max(math.prod(a.shape[i] for i in axes[0]), 1))
    if flops < _big or a.__class__ is not numpy.ndarray:
        return numpy.tensordot(a, b, axes)  # (a GPU product: CuPy's)
    return _threaded(flops, numpy.tensordot, a, b, axes)
