"""VariableStatisticsPlot: plots statistics of parameters and their gradients over training."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

import numpy

from chainlite import backend
from chainlite.backends import cuda
from chainlite import link as link_module
from chainlite import variable
from chainlite.serializers import _atomic
from chainlite.training import extension
from chainlite.training.extensions import plot_report
from chainlite.training import triggers

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.link import Link
    from chainlite.training.trainer import Trainer
    from chainlite.training.triggers import TriggerSpec

_COLOR = (0.12156862745098039, 0.4666666666666667, 0.7058823529411765, 1.0)  # matplotlib's C0
_COLOR_TRANSPARENT = _COLOR[:3] + (0.2,)


# Chainer's cache of the probe: None until _try_import_matplotlib runs.
_available: Optional[bool] = None


def _try_import_matplotlib() -> None:
    """Chainer's probe: sets the module's ``_available`` to whether matplotlib imports."""
    global _available
    _available = plot_report._matplotlib_available()


def _check_available() -> None:
    """Chainer's check: probes once, then says (once) that nothing is plotted without
    matplotlib (a note on standard error)."""
    if _available is None:
        _try_import_matplotlib()
    if not _available:
        extension.note_missing_once(plot_report._noted, 'VariableStatisticsPlot',
                                    plot_report._MISSING_MATPLOTLIB)


def _unpack_variables(x: Any) -> tuple:
    if isinstance(x, variable.Variable):
        return (x,)
    if isinstance(x, link_module.Link):
        return tuple(x.params(include_uninit=True))
    if isinstance(x, (list, tuple)):
        out: tuple = ()
        for xi in x:
            out += _unpack_variables(xi)
        return out
    return ()


class Reservoir:
    """A fixed-size uniform random sample of a stream (reservoir sampling).

    Args:
        size: The number of items kept.
        data_shape: The shape of one item.
        dtype: The dtype of the stored items.

    Example:
        >>> import numpy as np
        >>> r = Reservoir(3, (2,))
        >>> for i in range(10):
        ...     r.add(np.full(2, i), idx=i)
        >>> idxs, data = r.get_data()
        >>> len(idxs), bool(np.all(np.diff(idxs) > 0)), data.shape
        (3, True, (3, 2))
    """

    def __init__(self, size: int, data_shape: tuple, dtype: Any = numpy.float32) -> None:
        self.size = size
        self.data = numpy.zeros((size,) + tuple(data_shape), dtype=dtype)
        self.idxs = numpy.zeros((size,), dtype=numpy.int32)
        self.counter = 0

    def add(self, x: Any, idx: Optional[int] = None) -> None:
        """Offers the item ``x`` (tagged ``idx``, by default its position in the stream)."""
        tag = self.counter if idx is None else idx
        if self.counter < self.size:
            self.data[self.counter] = x
            self.idxs[self.counter] = tag
        elif numpy.random.random() < self.size / float(self.counter + 1):
            # Each of the first counter + 1 items stays with probability size / (counter + 1).
            i = numpy.random.randint(self.size)
            self.data[i] = x
            self.idxs[i] = tag
        self.counter += 1

    def get_data(self) -> tuple:
        """Returns ``(idxs, data)`` of the kept items, sorted by tag."""
        n = min(self.counter, self.size)
        order = numpy.argsort(self.idxs[:n], kind='stable')
        return self.idxs[:n][order], self.data[:n][order]


class Statistician:
    """Computes the mean, standard deviation and percentiles of an array.

    Args:
        collect_mean: Whether to compute the mean.
        collect_std: Whether to compute the standard deviation.
        percentile_sigmas: Percentiles in ``[0, 100]`` (a number or a sequence; empty or 0
            for none).

    Example:
        >>> import numpy as np
        >>> s = Statistician(True, False, (0, 100))
        >>> out = s(np.array([[1.0, 2.0], [3.0, 6.0]]), axis=None)
        >>> float(out['mean']), out['percentile'].tolist()
        (3.0, [1.0, 6.0])
    """

    def __init__(self, collect_mean: bool, collect_std: bool,
                 percentile_sigmas: Union[float, Sequence[float]]) -> None:
        self.collect_mean = collect_mean
        self.collect_std = collect_std
        self.percentile_sigmas = percentile_sigmas

    def __call__(self, x: Any, axis: Any = 0, dtype: Any = None, xp: Any = None) -> dict:
        """Returns a dict with ``'mean'``, ``'std'`` and ``'percentile'`` as requested."""
        if axis is None:
            axis = tuple(range(x.ndim))
        elif not isinstance(axis, (tuple, list)):
            axis = (axis,)
        return self.collect(x, tuple(axis))

    def collect(self, x: Any, axis: tuple) -> dict:
        """The statistics of ``x`` over ``axis``, in ``x``'s dtype."""
        out = {}
        if self.collect_mean:
            out['mean'] = x.mean(axis=axis)
        if self.collect_std:
            out['std'] = x.std(axis=axis)
        if self.percentile_sigmas is not None and numpy.size(self.percentile_sigmas):
            xp = backend.get_array_module(x)
            out['percentile'] = xp.percentile(x, self.percentile_sigmas, axis=axis).astype(
                x.dtype, copy=False)
        return out


class VariableStatisticsPlot(extension.Extension):
    """Plots the mean, standard deviation and percentiles of parameters and their gradients.

    Each call computes the statistics of all values of the target Variables (of
    ``data``, ``grad`` or both), keeps them in a reservoir sample of at most
    ``max_sample_size`` points, and when ``trigger`` fires draws them against the iteration
    into ``trainer.out/filename`` (written under a temporary name, then renamed).

    Without matplotlib it says so once per process on standard error and does nothing, as
    :class:`PlotReport`.

    Args:
        targets: A Variable, a Link (its parameters), or a list of them.
        max_sample_size: The size of the reservoir of points.
        report_data: Whether to plot the statistics of the values.
        report_grad: Whether to plot the statistics of the gradients.
        plot_mean: Whether to plot the mean.
        plot_std: Whether to plot the standard deviation.
        percentile_sigmas: The percentiles to plot (bands between symmetric pairs).
        trigger: When to draw the image: a trigger or ``(period, unit)``.
        filename: The image file name in ``trainer.out``; None falls back to ``file_name``.
        figsize: The matplotlib figure size.
        marker: The matplotlib marker of the points.
        grid: Whether to draw grids.
        file_name: Chainer's older name of ``filename`` (keyword only).

    Example:
        >>> from chainlite import links as L
        >>> from chainlite.training import extensions
        >>> ext = extensions.VariableStatisticsPlot(L.Linear(3, 2))  # doctest: +SKIP
    """

    def __init__(self, targets: Variable | Link | Sequence[Variable | Link],
                 max_sample_size: int = 1000, report_data: bool = True,
                 report_grad: bool = True, plot_mean: bool = True, plot_std: bool = True,
                 percentile_sigmas: Union[float, Sequence[float]] = (
                     0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100),
                 trigger: TriggerSpec = (1, 'epoch'), filename: Optional[str] = None,
                 figsize: Optional[tuple] = None, marker: Optional[str] = None,
                 grid: bool = True, *, file_name: str = 'statistics.png') -> None:
        self._vars = _unpack_variables(targets)
        if not self._vars:
            raise ValueError('VariableStatisticsPlot: targets must hold at least one Variable '
                             '(a Variable, a Link or a list of them), got %r' % (targets,))
        plot_percentile = percentile_sigmas is not None and bool(numpy.size(percentile_sigmas))
        if not (plot_mean or plot_std or plot_percentile):
            raise ValueError('VariableStatisticsPlot: nothing to plot (plot_mean, plot_std and '
                             'percentile_sigmas are all off)')
        self._keys = [k for k, on in (('data', report_data), ('grad', report_grad)) if on]
        self._statistician = Statistician(plot_mean, plot_std, percentile_sigmas)
        self._plot_mean = plot_mean
        self._plot_std = plot_std
        self._plot_percentile = plot_percentile
        self._trigger = triggers.get_trigger(trigger)
        self._filename = file_name if filename is None else filename
        self._figsize = figsize
        self._marker = marker
        self._grid = grid
        n_percentile = int(numpy.size(percentile_sigmas)) if plot_percentile else 0
        self._data_shape = (len(self._keys), int(plot_mean) + int(plot_std) + n_percentile)
        self._samples = Reservoir(max_sample_size, data_shape=self._data_shape)

    @staticmethod
    def available() -> bool:
        """Whether matplotlib can be imported (says so once on standard error if not)."""
        return plot_report.plotting_available('VariableStatisticsPlot')

    def __call__(self, trainer: Trainer) -> None:
        """Adds a point of statistics; draws the image when the trigger fires."""
        if not self.available():
            return
        stats = numpy.zeros(self._data_shape, dtype=numpy.float32)
        for i, key in enumerate(self._keys):
            xs = [getattr(v, key).ravel() for v in self._vars
                  if getattr(v, key, None) is not None]
            if not xs:
                continue
            # The statistics are computed where the arrays live; only they reach the host.
            xp = backend.get_array_module(*xs)
            stat = self._statistician(xp.concatenate(xs), axis=0)
            row = []
            if self._plot_mean:
                row.append(xp.atleast_1d(stat['mean']))
            if self._plot_std:
                row.append(xp.atleast_1d(stat['std']))
            if self._plot_percentile:
                row.append(xp.atleast_1d(stat['percentile']))
            stats[i] = cuda.to_cpu(xp.concatenate(row))
        self._samples.add(stats, idx=trainer.updater.iteration)
        if self._trigger(trainer):
            self.save_plot(os.path.join(trainer.out, self._filename))

    def save_plot(self, file_path: str) -> None:
        """Draws the collected statistics into ``file_path`` (atomically)."""
        from matplotlib.backends import backend_agg
        from matplotlib import figure as figure_module

        nrows = int(self._plot_mean or self._plot_std) + int(self._plot_percentile)
        ncols = len(self._keys)
        fig = figure_module.Figure(figsize=self._figsize)
        backend_agg.FigureCanvasAgg(fig)
        axes = numpy.asarray(fig.subplots(nrows, ncols, sharex=True, squeeze=False))
        idxs, data = self._samples.get_data()
        offset = int(self._plot_mean) + int(self._plot_std)
        n_percentile = data.shape[-1] - offset
        for col, key in enumerate(self._keys):
            row = 0
            axes[row, col].set_title(key)
            if self._plot_mean or self._plot_std:
                ax = axes[row, col]
                if self._plot_mean and self._plot_std:
                    ax.errorbar(idxs, data[:, col, 0], data[:, col, 1], color=_COLOR,
                                ecolor=_COLOR_TRANSPARENT, label='mean, std',
                                marker=self._marker)
                else:
                    ax.plot(idxs, data[:, col, 0], color=_COLOR,
                            label='mean' if self._plot_mean else 'std', marker=self._marker)
                row += 1
            if self._plot_percentile:
                ax = axes[row, col]
                # Bands between the i-th lowest and i-th highest percentiles; the middle one
                # of an odd count is a line.
                for i in range((n_percentile + 1) // 2):
                    lo, hi = data[:, col, offset + i], data[:, col, -i - 1]
                    last = i == (n_percentile + 1) // 2 - 1
                    label = 'percentile' if last else '_nolegend_'
                    if n_percentile % 2 == 1 and last:
                        ax.plot(idxs, lo, color=_COLOR, label=label, marker=self._marker)
                    else:
                        ax.fill_between(idxs, lo, hi, label=label, alpha=0.2, linewidth=0,
                                        color=_COLOR_TRANSPARENT)
                ax.set_xlabel('iteration')
        for ax in axes.ravel():
            ax.legend()
            if self._grid:
                ax.grid()
                ax.set_axisbelow(True)
        image_format = os.path.splitext(file_path)[1][1:] or 'png'
        with _atomic.replacing(file_path) as tmp:
            fig.savefig(tmp, format=image_format)
