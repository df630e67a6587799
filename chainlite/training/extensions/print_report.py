"""PrintReport: the entries of a LogReport's log as the rows of a table."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Optional, Sequence, TextIO, Union

from chainlite.training import extension
from chainlite.training.extensions import _progress
from chainlite.training.extensions import log_report as log_report_module

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer


class PrintReport(extension.Extension):
    """Prints selected entries of a :class:`LogReport`'s log, one row per logged interval.

    The header is printed on the first call; each new log entry then gives a row, each column
    at least 10 characters wide, numbers in ``'g'`` format, a missing entry left blank::

        epoch       main/loss   validation/main/loss
        1           0.31        0.25

    On a terminal each row is preceded by an "erase below" escape, so that a
    :class:`ProgressBar` drawn there is cleared first; elsewhere no control characters are
    written.

    Args:
        entries: The observation keys to print, in column order.
        log_report: The name of the trainer's :class:`LogReport` extension, or a LogReport
            instance, which this extension then calls itself.
        out: The stream to print to; None (the default) is ``sys.stdout`` at each call.

    Raises:
        TypeError: When called, if ``log_report`` is neither a name nor a LogReport.

    Example:
        >>> from types import SimpleNamespace
        >>> from chainlite.training import extensions
        >>> log = SimpleNamespace(log=[{'epoch': 1, 'main/loss': 0.3125},
        ...                            {'epoch': 2, 'main/loss': 0.25}])
        >>> trainer = SimpleNamespace(get_extension=lambda name: log)
        >>> extensions.PrintReport(['epoch', 'main/loss', 'main/accuracy'])(trainer)
        epoch       main/loss   main/accuracy
        1           0.3125
        2           0.25
    """

    def __init__(self, entries: Sequence[str],
                 log_report: Union[str, log_report_module.LogReport] = 'LogReport',
                 out: Optional[TextIO] = None) -> None:
        self._entries = list(entries)
        self._log_report = log_report
        self._out = out
        self._log_len = 0  # how many log entries were printed
        widths = [max(10, len(entry)) for entry in self._entries]
        self._header: Optional[str] = '  '.join(
            entry.ljust(width) for entry, width in zip(self._entries, widths)) + '\n'
        self._widths = widths

    def __call__(self, trainer: Trainer) -> None:
        """Prints the header (first call) and a row for each new log entry."""
        out = sys.stdout if self._out is None else self._out
        if self._header is not None:
            out.write(self._header)
            self._header = None
        log_report = self._log_report
        if isinstance(log_report, str):
            log_report = trainer.get_extension(log_report)
        elif isinstance(log_report, log_report_module.LogReport):
            log_report(trainer)
        else:
            raise TypeError('PrintReport: log_report must be the name of a LogReport extension '
                            'or a LogReport, got %s' % type(log_report).__name__)
        log = log_report.log
        terminal = _progress.is_terminal(out)
        while self._log_len < len(log):
            if terminal:
                out.write(_progress.ERASE_BELOW)
            out.write(self._format_row(log[self._log_len]))
            self._log_len += 1
        _progress.flush(out)

    def _format_row(self, observation: dict) -> str:
        cells = []
        for entry, width in zip(self._entries, self._widths):
            if entry not in observation:
                cells.append(' ' * (width + 2))
                continue
            value = observation[entry]
            try:
                text = format(value, '<%dg' % width)
            except (TypeError, ValueError):  # not a number: printed as it is
                text = format(str(value), '<%d' % width)
            cells.append(text + '  ')
        return ''.join(cells) + '\n'

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the state of an own LogReport instance (nothing for a name)."""
        if isinstance(self._log_report, log_report_module.LogReport):
            self._log_report.serialize(serializer['_log_report'])
