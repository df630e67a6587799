"""PlotReport: plots observed values over training into an image file (needs matplotlib)."""
from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Union

from chainlite import reporter
from chainlite import serializer as serializer_module
from chainlite.serializers import _atomic
from chainlite.training import extension
from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer
    from chainlite.training.triggers import TriggerSpec

_MISSING_MATPLOTLIB = ('%s: matplotlib is not installed, so no plot will be drawn '
                       '(training is not affected); to get plots, install matplotlib '
                       '(pip install matplotlib, or the extra: '
                       'pip install "chainlite-dl[plot]")')
_noted: set = set()  # the extensions that said so already


def _matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


# Chainer's cache of the probe: None until _try_import_matplotlib runs.
_available: Optional[bool] = None


def _try_import_matplotlib() -> None:
    """Chainer's probe: sets the module's ``_available`` to whether matplotlib imports."""
    global _available
    _available = _matplotlib_available()


def _check_available() -> None:
    """Chainer's check: probes once, then says (once) that nothing is plotted without
    matplotlib (a note on standard error, as :func:`plotting_available`)."""
    if _available is None:
        _try_import_matplotlib()
    if not _available:
        extension.note_missing_once(_noted, 'PlotReport', _MISSING_MATPLOTLIB)


def plotting_available(extension_name: str) -> bool:
    """Whether matplotlib can be imported; if not, says so once per extension and process.

    A note on stderr rather than a warning: a missing optional plot is not a fault of the
    script, and a warning would turn into a crash under ``python -W error``.
    """
    if _matplotlib_available():
        return True
    extension.note_missing_once(_noted, extension_name, _MISSING_MATPLOTLIB)
    return False


class PlotReport(extension.Extension):
    """Plots the means of observed values against the iteration (or epoch) into an image.

    Like :class:`LogReport`, it averages the observations of ``y_keys`` over each interval of
    ``trigger``; at the end of each interval it adds a point per key and redraws the whole
    figure into ``trainer.out/filename`` (written under a temporary name, then renamed). It
    draws with matplotlib's object API (no ``pyplot`` state, no display needed).

    Drawing a figure costs tens of milliseconds, as much as a whole epoch of a small model,
    so the redraws are kept to about 5% of the training's time: after a redraw that took
    ``d`` seconds, the points of the next ``19 d`` seconds are added without redrawing
    (:attr:`time_share` sets the share). No point is lost: the next redraw shows them, and
    :meth:`finalize` (called by the Trainer when training ends) draws whatever is pending.

    Without matplotlib (``pip install matplotlib``, or the extra
    ``pip install "chainlite-dl[plot]"``) it prints a note to standard error
    once per process (not a warning, so ``python -W error`` still runs) and does nothing.

    Args:
        y_keys: The observation key(s) to plot, one line each.
        x_key: The horizontal axis: ``'iteration'``, ``'epoch'`` (or one of ``y_keys``).
        trigger: When to add points and redraw: a trigger or ``(period, unit)``.
        postprocess: Called as ``postprocess(figure, axes, summary)`` before saving, to edit
            the figure.
        filename: The image file name in ``trainer.out``; its extension picks the format.
            None falls back to ``file_name``.
        marker: The matplotlib marker of the points (None for lines only).
        grid: Whether to draw a grid.
        file_name: Chainer's older name of ``filename`` (keyword only); ``'plot.png'`` by
            default.

    Example:
        >>> from chainlite.training import extensions
        >>> ext = extensions.PlotReport(['main/loss', 'validation/main/loss'], 'epoch',
        ...                             filename='loss.png')  # doctest: +SKIP
    """

    #: The largest share of the wall-clock time that redrawing may take (1.0 redraws at
    #: every firing of the trigger, as Chainer did).
    time_share = 0.05

    def __init__(self, y_keys: Union[str, Iterable[str]], x_key: str = 'iteration',
                 trigger: TriggerSpec = (1, 'epoch'),
                 postprocess: Optional[Callable[..., Any]] = None,
                 filename: Optional[str] = None, marker: Optional[str] = 'x',
                 grid: bool = True, *, file_name: str = 'plot.png') -> None:
        self._available = plotting_available('PlotReport')
        if isinstance(y_keys, str):
            y_keys = (y_keys,)
        self._y_keys = tuple(y_keys)
        if x_key not in ('iteration', 'epoch') and x_key not in self._y_keys:
            raise ValueError("PlotReport: x_key must be 'iteration', 'epoch' or one of y_keys, "
                             "got %r" % (x_key,))
        self._x_key = x_key
        self._trigger = triggers.get_trigger(trigger)
        self._file_name = file_name if filename is None else filename
        self._marker = marker
        self._grid = grid
        self._postprocess = postprocess
        self._summary = reporter.DictSummary()
        self._data: dict = {k: [] for k in self._y_keys}
        self._out: Optional[str] = None   # where the pending points are to be drawn
        self._next_draw = 0.0             # time.perf_counter() before which redraws wait

    @staticmethod
    def available() -> bool:
        """Whether matplotlib can be imported (says so once on standard error if not)."""
        return plotting_available('PlotReport')

    def __call__(self, trainer: Trainer) -> None:
        """Adds the observed values; adds points and redraws when the trigger fires."""
        if not self._available:
            return
        observation = trainer.observation
        self._summary.add({k: observation[k] for k in self._y_keys if k in observation})
        if getattr(trainer, 'is_before_training', False) or self._trigger(trainer):
            means = {name: float(v) for name, v in self._summary.compute_mean().items()}
            means['epoch'] = trainer.updater.epoch
            means['iteration'] = trainer.updater.iteration
            x = means.get(self._x_key)
            for key in self._y_keys:
                if key in means and x is not None:
                    self._data[key].append((x, means[key]))
            self._out = trainer.out
            if time.perf_counter() >= self._next_draw:
                self._redraw()
            self._summary = reporter.DictSummary()

    def finalize(self) -> None:
        """Draws the points added since the last redraw, if any."""
        if self._available and self._out is not None:
            self._redraw()

    def _redraw(self) -> None:
        out, self._out = self._out, None
        if out is None:
            return
        start = time.perf_counter()
        self._draw(out)
        took = time.perf_counter() - start
        self._next_draw = start + took / min(max(self.time_share, 1e-6), 1.0)

    def _draw(self, out: str) -> None:
        from matplotlib.backends import backend_agg
        from matplotlib import figure as figure_module

        fig = figure_module.Figure()
        backend_agg.FigureCanvasAgg(fig)
        axes = fig.add_subplot(111)
        axes.set_xlabel(self._x_key)
        if self._grid:
            axes.grid()
        for key in self._y_keys:
            points = self._data[key]
            if points:
                xs, ys = zip(*points)
                axes.plot(xs, ys, marker=self._marker, label=key)
        if not axes.has_data():
            return
        if self._postprocess is not None:
            self._postprocess(fig, axes, self._summary)
        legend = axes.legend(bbox_to_anchor=(1.05, 1), loc=2, borderaxespad=0.)
        path = os.path.join(out, self._file_name)
        image_format = os.path.splitext(path)[1][1:] or 'png'
        with _atomic.replacing(path) as tmp:
            fig.savefig(tmp, format=image_format, bbox_extra_artists=(legend,),
                        bbox_inches='tight')

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the plotted points (JSON text under ``_plot_<filename>``)."""
        key = '_plot_%s' % self._file_name
        if isinstance(serializer, serializer_module.Serializer):
            serializer(key, json.dumps(self._data))
        else:
            data = json.loads(serializer(key, ''))
            self._data = {k: [tuple(p) for p in data.get(k, [])] for k in self._y_keys}
