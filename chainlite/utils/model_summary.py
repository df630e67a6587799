"""``summary``: the output shape, parameter count and dtype of each link, from one forward."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy

from chainlite import configuration
from chainlite import link_hook
from chainlite import variable

if TYPE_CHECKING:
    from chainlite.link import Link


class SummaryRow(NamedTuple):
    """One call of one link during the summary's forward.

    Attributes:
        name: The link's path in the model (``'/'`` for the model, ``'/conv1'``, ...).
        type: The link's class name.
        output_shape: The output's shape (a tuple of shapes for several outputs, None for an
            output without a shape).
        dtype: The output's dtype (a tuple for several outputs, None without one).
        params: The number of parameter elements of the link and its children.
        depth: How deep the link is in the model (0 for the model).
    """
    name: str
    type: str
    output_shape: Any
    dtype: Any
    params: int
    depth: int


def _describe(out: Any, attr: str) -> Any:
    if isinstance(out, (tuple, list)):
        return tuple(_describe(o, attr) for o in out)
    value = getattr(out, attr, None)
    return str(value) if attr == 'dtype' and value is not None else value


def _count(link: Link) -> int:
    return sum(p.array.size for p in link.params() if p.array is not None)


class Summary:
    """What :func:`summary` returns: rows, totals, and a table when printed.

    Attributes:
        rows: A list of :class:`SummaryRow`, one per link call, in call order (a link called
            twice has two rows).
        total_params: The number of parameter elements of the model.
        param_bytes: Their size in bytes.
        param_dtypes: The dtypes of the parameters, sorted by name.
    """

    def __init__(self, rows: list[SummaryRow], total_params: int, param_bytes: int,
                 param_dtypes: list[str]) -> None:
        self.rows = rows
        self.total_params = total_params
        self.param_bytes = param_bytes
        self.param_dtypes = param_dtypes

    def __str__(self) -> str:
        header = ('Link (type)', 'Output shape', 'Dtype', 'Params')
        cells = [('  ' * r.depth + '%s (%s)' % (r.name, r.type), str(r.output_shape),
                  str(r.dtype), '{:,}'.format(r.params)) for r in self.rows]
        widths = [max(len(c[i]) for c in [header] + cells) for i in range(4)]

        def line(c: tuple) -> str:
            return '  '.join([c[0].ljust(widths[0]), c[1].ljust(widths[1]),
                              c[2].ljust(widths[2]), c[3].rjust(widths[3])]).rstrip()

        rule = '-' * len(line(header))
        lines = [line(header), rule] + [line(c) for c in cells] + [rule]
        lines.append('Total params: {:,} ({:,} bytes, {})'.format(
            self.total_params, self.param_bytes, ', '.join(self.param_dtypes) or 'none'))
        return '\n'.join(lines)

    __repr__ = __str__


class _Recorder(link_hook.LinkHook):
    name = '_SummaryRecorder'

    def __init__(self, paths: dict[int, str]) -> None:
        self.paths = paths
        self.calls: list[list[Any]] = []
        self.open: list[list[Any]] = []

    def forward_preprocess(self, args: Any) -> None:
        call = [args.link, None]
        self.calls.append(call)
        self.open.append(call)

    def forward_postprocess(self, args: Any) -> None:
        self.open.pop()[1] = args.out


def summary(model: Link, *inputs: Any, **kwargs: Any) -> Summary:
    """Runs one forward of ``model`` and describes each link's output and parameters.

    The forward runs in test mode (``train=False``) without building a graph, and the
    model is left as it was: persistent values (BatchNormalization's running statistics)
    are put back, and parameters that were uninitialised (``L.Linear(None, n)``) are
    initialised for the pass, counted, then made uninitialised again, with NumPy's global
    random state restored, so that their real initialisation later gives the same values.
    Links called outside a link's ``__call__`` (a function applied to a link's parameter)
    do not appear.

    Args:
        model: The link to describe.
        *inputs: Sample inputs for its forward (a batch).
        **kwargs: Keyword arguments for its forward.

    Returns:
        A :class:`Summary`: ``str()`` of it is a table; ``rows`` and ``total_params`` hold
        the numbers.

    Example:
        >>> import numpy as np, chainlite, chainlite.links as L
        >>> from chainlite.utils import summary
        >>> model = chainlite.Sequential(L.Linear(None, 3), L.Linear(3, 2))
        >>> s = summary(model, np.zeros((4, 5), np.float32))
        >>> print(s)
        Link (type)     Output shape  Dtype    Params
        ---------------------------------------------
        / (Sequential)  (4, 2)        float32      26
          /0 (Linear)   (4, 3)        float32      18
          /1 (Linear)   (4, 2)        float32       8
        ---------------------------------------------
        Total params: 26 (104 bytes, float32)
        >>> s.rows[1].output_shape, model[0].W.array is None
        ((4, 3), True)
    """
    paths = {id(link): path for path, link in model.namedlinks()}
    lazy = [p for p in model.params() if p.array is None]
    saved_params = [(p, dict(vars(p)), p._node.grad_var if p._node is not None else None)
                    for p in lazy]
    saved_persistents = [(link, name, _copy(getattr(link, name)))
                         for link in model.links() for name in link._persistent]
    random_state = numpy.random.get_state()
    recorder = _Recorder(paths)
    try:
        with configuration.using_config('train', False), \
                configuration.no_backprop_mode(), recorder:
            model(*inputs, **kwargs)
        rows = []
        for link, out in recorder.calls:
            path = paths.get(id(link), '?')
            rows.append(SummaryRow(path, type(link).__name__, _describe(out, 'shape'),
                                   _describe(out, 'dtype'), _count(link),
                                   0 if path == '/' else path.count('/')))
        arrays = [p.array for p in model.params() if p.array is not None]
        result = Summary(rows, sum(a.size for a in arrays), sum(a.nbytes for a in arrays),
                         sorted({str(a.dtype) for a in arrays}))
    finally:
        numpy.random.set_state(random_state)
        for link, name, value in saved_persistents:
            setattr(link, name, value)
        for p, state, grad_var in saved_params:
            p.array = None  # also in the copies that share its slot
            vars(p).clear()
            vars(p).update(state)
            if p._node is not None:
                p._node.grad_var = grad_var
    return result


def _copy(value: Any) -> Any:
    # A persistent array (NumPy or GPU) is restored from a copy on its device.
    return value.copy() if variable._is_array(value) else value
