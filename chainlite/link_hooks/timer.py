"""``TimerHook`` for links: wall-clock time spent in each link's forward."""
from __future__ import annotations

import sys
import time
from typing import Any, Optional, TextIO

from chainlite import backend
from chainlite import link_hook
from chainlite.function_hooks.timer import summarize
from chainlite.function_hooks.timer import write_time_table


class TimerHook(link_hook.LinkHook):
    """Measures the time each link spends in its forward, keyed by the link's class name.

    A chain's time includes its children's (which are recorded too, under their own names);
    :meth:`total_time` counts only the outermost calls, so nothing is counted twice.

    Attributes:
        call_history: ``(class name, seconds)`` per finished call, in the order they ended.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> from chainlite.link_hooks import TimerHook
        >>> layer = L.Linear(3, 2)
        >>> with TimerHook() as hook:
        ...     _ = layer(np.zeros((4, 3), np.float32))
        ...     _ = layer(np.zeros((4, 3), np.float32))
        >>> hook.summary()['Linear']['occurrence']
        2
    """

    name = 'TimerHook'

    def __init__(self) -> None:
        self.call_history: list = []
        self._running: list = []
        self._total_time = 0.0

    def forward_preprocess(self, args: link_hook.ForwardPreprocessCallbackArgs) -> None:
        """Starts the clock (after the link's GPU, if it is on one, has finished its work)."""
        _synchronize(args.link)
        self._running.append(time.perf_counter())

    def forward_postprocess(self, args: link_hook.ForwardPostprocessCallbackArgs) -> None:
        """Stops the clock, once the forward's GPU kernels have run, and records its time."""
        _synchronize(args.link)
        elapsed = time.perf_counter() - self._running.pop()
        self.call_history.append((type(args.link).__name__, elapsed))
        if not self._running:
            self._total_time += elapsed

    def total_time(self) -> float:
        """The seconds spent in all the (outermost) hooked calls."""
        return self._total_time

    def summary(self) -> dict:
        """Times per link class.

        Returns:
            An ordered dict, class name -> ``{'elapsed_time': seconds, 'occurrence': calls}``,
            in order of first completion.
        """
        return summarize(self.call_history)

    def print_report(self, unit: str = 'auto', file: Optional[TextIO] = None) -> None:
        """Prints the summary as a table: LinkName, ElapsedTime, Occurrence.

        Args:
            unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``, ``'auto'`` (the unit that suits the
                largest time, for all rows) or ``'auto_foreach'`` (a unit per row).
            file: Where to print (``sys.stdout`` by default).
        """
        write_time_table(self.summary(), 'LinkName', unit, sys.stdout if file is None else file)


def _synchronize(link: Any) -> None:
    # GPU kernels run asynchronously: the wall clock measures them only once they are done.
    device = link.device
    if isinstance(device, backend.GpuDevice):
        device.device.synchronize()
