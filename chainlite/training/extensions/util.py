"""``chainer.training.extensions.util``: Chainer's base class of terminal progress bars.

:class:`ProgressBar` redraws a block of lines in place with ANSI escapes (erase below, then
move the cursor back up), as Chainer's does on every platform but Windows (whose console
calls chainlite leaves out: Windows terminals read these escapes today). A subclass says what
to draw in :meth:`ProgressBar.get_lines`. chainlite's own
:class:`~chainlite.training.extensions.ProgressBar` extension also writes plain lines when its
output is not a terminal; this class always draws, as Chainer's does.
"""
from __future__ import annotations

import abc
import collections
import datetime
import sys
import time
from typing import Any, Optional, TextIO


class ProgressBar(abc.ABC):
    """A block of progress lines redrawn in place on a terminal.

    Args:
        bar_length: The width of a bar in characters (50 if None).
        out: The stream (``sys.stdout`` if None).

    Example:
        >>> import io
        >>> class Fixed(ProgressBar):
        ...     def get_lines(self):
        ...         return ['half %s\\n' % bar_text(0.5, 4)]
        >>> out = io.StringIO()
        >>> Fixed(out=out).update()
        >>> out.getvalue()
        '\\x1b[Jhalf [##..]\\n\\x1b[1A'
    """

    def __init__(self, bar_length: Optional[int] = None, out: Optional[TextIO] = None) -> None:
        self._bar_length = 50 if bar_length is None else bar_length
        self._out = sys.stdout if out is None else out
        self._recent_timing: collections.deque = collections.deque([], maxlen=100)

    def update_speed(self, iteration: float, epoch_detail: float) -> tuple[float, float]:
        """Records the position now and returns the speed over the last 100 records.

        Args:
            iteration: The iteration count.
            epoch_detail: The (fractional) epoch.

        Returns:
            ``(iterations per second, epochs per second)``; ``inf`` for both while no time
            has passed since the oldest record.
        """
        now = time.time()
        self._recent_timing.append((iteration, epoch_detail, now))
        old_t, old_e, old_sec = self._recent_timing[0]
        span = now - old_sec
        if span == 0:
            return float('inf'), float('inf')
        return (iteration - old_t) / span, (epoch_detail - old_e) / span

    @abc.abstractmethod
    def get_lines(self) -> list:
        """Returns the lines to draw, each ending with a newline."""

    def update(self) -> None:
        """Erases the previous drawing and draws :meth:`get_lines`, leaving the cursor above."""
        self.erase_console()
        lines = self.get_lines()
        for line in lines:
            self._out.write(line)
        self.move_cursor_up(len(lines))
        self.flush()

    def close(self) -> None:
        """Erases the drawing."""
        self.erase_console()
        self.flush()

    def erase_console(self) -> None:
        """Erases from the cursor to the end of the screen."""
        self._out.write('\033[J')

    def move_cursor_up(self, n: int) -> None:
        """Moves the cursor ``n`` lines up (to the first line of the drawing).

        Args:
            n: The number of lines.
        """
        self._out.write('\033[{:d}A'.format(n))

    def flush(self) -> None:
        """Flushes the stream, if it can be flushed."""
        if hasattr(self._out, 'flush'):
            self._out.flush()


def bar_text(rate: float, length: int) -> str:
    """``'[##..]'``: ``length`` characters, ``#`` for the part ``rate`` has reached."""
    marks = '#' * int(rate * length)
    return '[%s%s]' % (marks, '.' * (length - len(marks)))


def eta_text(remaining: float, speed: float) -> str:
    """The time to finish as Chainer prints it (``timedelta``), or ``'unknown'`` at speed 0."""
    if speed == 0:
        return 'unknown'
    return str(datetime.timedelta(seconds=max(remaining / speed, 0.0)))


def _status_line(speed_t: float, remaining: float, speed: Any) -> str:
    return '{:10.5g} iters/sec. Estimated time to finish: {}.\n'.format(
        speed_t, eta_text(remaining, speed))
