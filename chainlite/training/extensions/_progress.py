"""Showing progress on a terminal (redrawn in place) or in a log file (plain lines).

Used by :class:`~chainlite.training.extensions.ProgressBar` and by the evaluator's progress
bar. On a terminal the block of lines is redrawn with ANSI escapes (erase below, cursor up);
anywhere else (a file, a pipe, a notebook capture) one plain line is appended per update,
with no control characters.
"""
from __future__ import annotations

import collections
import datetime
import sys
import time
from typing import Any, Optional, TextIO

ERASE_BELOW = '\033[J'


def is_terminal(out: Any) -> bool:
    """Whether ``out`` is an interactive terminal (``out.isatty()``; False if it cannot say)."""
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def bar(rate: float, length: int) -> str:
    """``'[####......]'``, filled in proportion to ``rate`` (clipped to [0, 1])."""
    rate = min(max(rate, 0.0), 1.0)
    marks = '#' * int(rate * length)
    return '[%s%s]' % (marks, '.' * (length - len(marks)))


def format_eta(seconds: Optional[float]) -> str:
    """Remaining time as ``H:MM:SS`` (whole seconds), or ``'unknown'``."""
    if seconds is None:
        return 'unknown'
    return str(datetime.timedelta(seconds=round(max(seconds, 0.0))))


class Display:
    """Writes progress to a stream: redrawn in place on a terminal, appended elsewhere.

    Args:
        out: The stream; None means the current ``sys.stdout`` at each write.
    """

    def __init__(self, out: Optional[TextIO] = None) -> None:
        self._out = out
        self._drawn = False

    @property
    def out(self) -> TextIO:
        """The stream written to."""
        return sys.stdout if self._out is None else self._out

    def is_terminal(self) -> bool:
        """Whether the stream is a terminal."""
        return is_terminal(self.out)

    def show(self, lines: list, line: str) -> None:
        """Shows ``lines`` (each ending with a newline) on a terminal, else appends ``line``."""
        out = self.out
        if is_terminal(out):
            out.write(ERASE_BELOW)
            out.write(''.join(lines))
            # Back to the first line, so that the next update (or other output) overwrites it.
            out.write('\033[%dA' % len(lines))
            self._drawn = True
        else:
            out.write(line)
        flush(out)

    def close(self) -> None:
        """Erases what was drawn on a terminal."""
        if self._drawn:
            out = self.out
            out.write(ERASE_BELOW)
            flush(out)
            self._drawn = False


def flush(out: Any) -> None:
    """Flushes ``out`` if it can be flushed."""
    if hasattr(out, 'flush'):
        out.flush()


class Speed:
    """Iterations and epochs per second over the last ``window`` samples.

    Args:
        window: How many recent ``(iteration, epoch_detail, time)`` samples to keep.
    """

    def __init__(self, window: int = 100) -> None:
        self._samples: collections.deque = collections.deque(maxlen=window)

    def add(self, iteration: float, epoch_detail: float, now: Optional[float] = None) -> None:
        """Records the position at time ``now`` (``time.time()`` by default)."""
        self._samples.append((iteration, epoch_detail, time.time() if now is None else now))

    def rates(self) -> tuple:
        """``(iterations per second, epochs per second)``; None for both if unknown yet."""
        if len(self._samples) < 2:
            return None, None
        (it0, ep0, t0), (it1, ep1, t1) = self._samples[0], self._samples[-1]
        span = t1 - t0
        if span <= 0:
            return None, None
        return (it1 - it0) / span, (ep1 - ep0) / span
