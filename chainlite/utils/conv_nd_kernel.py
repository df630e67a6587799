"""CUDA source text for N-dimensional im2col / col2im, as ``chainer.utils.conv_nd_kernel``.

Chainer feeds these strings to ``cupy.ElementwiseKernel`` for its N-d convolutions on the GPU.
chainlite runs on NumPy and never compiles them: the module exists so that code importing it
keeps working, and its generators return the same text as Chainer's. Each ``generate(ndim)``
returns ``(in_params, out_params, operation, name)``, the four arguments of an elementwise
kernel, and is cached per ``ndim`` (:func:`chainlite.backends.cuda.clear_memo` empties the
cache).

Example:
    >>> from chainlite.utils import conv_nd_kernel
    >>> in_params, out_params, operation, name = conv_nd_kernel.Im2colNDKernel.generate(2)
    >>> name, out_params
    ('im2col_2d', 'T col')
    >>> operation.splitlines()[0]
    'int c0 = i / (k_0 * k_1 * out_0 * out_1);'
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from chainlite.backends import cuda


def mulexp(xs: Iterable[str], init: str | None = None) -> str:
    """Returns the C product of the terms ``xs`` (after ``init`` when given).

    Args:
        xs: C expressions.
        init: An expression to put first.

    Returns:
        ``'init * x0 * x1 ...'``.

    Example:
        >>> mulexp(['a', 'b'], 'c')
        'c * a * b'
    """
    return _join(' * ', xs, init)


def andexp(xs: Iterable[str], init: str | None = None) -> str:
    """Returns the C conjunction of the conditions ``xs`` (after ``init`` when given).

    Args:
        xs: C conditions.
        init: A condition to put first.

    Returns:
        ``'init && x0 && x1 ...'``.

    Example:
        >>> andexp(['a < 1', 'b < 2'])
        'a < 1 && b < 2'
    """
    return _join(' && ', xs, init)


def _join(operator: str, xs: Iterable[str], init: str | None) -> str:
    terms = list(xs) if init is None else [init, *xs]
    if not terms:
        raise TypeError('conv_nd_kernel: an expression needs at least one term')
    return operator.join(terms)


def muladdexp(xs: Sequence[str], ys: Sequence[str], init: str | None = None) -> str:
    """Returns a row-major index in Horner form: ``(y_n + x_n * ... (y_0 + x_0 * init))``.

    Each ``(x, y)`` pair wraps the expression so far as ``(y + x * expr)``. Without ``init``
    the first ``y`` is the innermost expression.

    Args:
        xs: Extents (multipliers), outermost first.
        ys: Offsets, paired with ``xs``.
        init: The innermost expression.

    Returns:
        The expression.

    Example:
        >>> muladdexp(['n_0', 'n_1'], ['i_0', 'i_1'], 'c')
        '(i_1 + n_1 * (i_0 + n_0 * c))'
    """
    pairs = list(zip(xs, ys))
    if init is None:
        if not pairs:
            raise TypeError('muladdexp: an expression needs at least one term')
        init = pairs.pop(0)[1]
    expression = init
    for x, y in pairs:
        expression = '({} + {} * {})'.format(y, x, expression)
    return expression


def map_(fn: Callable[..., Any], *lst: Iterable[Any]) -> list[Any]:
    """Returns ``list(map(fn, *lst))``.

    Args:
        fn: The function.
        *lst: The iterables mapped in parallel.

    Returns:
        A list.

    Example:
        >>> map_(str.upper, ['a', 'b'])
        ['A', 'B']
    """
    return list(map(fn, *lst))


def succ_sublists(xs: Sequence[Any]) -> list[Sequence[Any]]:
    """Returns the suffixes of ``xs``, longest first: ``[xs[0:], xs[1:], ..., xs[-1:]]``.

    Args:
        xs: A sequence.

    Returns:
        A list of ``len(xs)`` slices.

    Example:
        >>> succ_sublists([1, 2, 3])
        [[1, 2, 3], [2, 3], [3]]
    """
    return [xs[i:] for i in range(len(xs))]


def vars(prefix: str, n: int) -> list[str]:
    """Returns the C variable names ``prefix_0`` ... ``prefix_{n-1}``.

    Args:
        prefix: The name's stem.
        n: How many.

    Returns:
        A list of names.

    Example:
        >>> vars('k', 3)
        ['k_0', 'k_1', 'k_2']
    """
    return ['{}_{}'.format(prefix, i) for i in range(n)]


class Writer:
    """Collects lines of C source, indented two spaces per open block.

    Example:
        >>> w = Writer()
        >>> w.write('if (a) {', indent='inc')
        >>> w.write('b = 1;')
        >>> w.write('}', indent='dec')
        >>> print(w.get())
        if (a) {
          b = 1;
        }
    """

    def __init__(self) -> None:
        self._indent = 0
        self._lines: list[str] = []

    def write(self, line: str, indent: str | None = None) -> None:
        """Appends a line.

        Args:
            line: The text.
            indent: ``'inc'`` indents the lines after this one, ``'dec'`` dedents this line
                and those after it, ``'decinc'`` dedents this line only (``} else {``).
        """
        if indent in ('dec', 'decinc'):
            self._indent -= 1
        self._lines.append('  ' * self._indent + line)
        if indent in ('inc', 'decinc'):
            self._indent += 1

    def get(self) -> str:
        """Returns the lines written, joined by newlines."""
        return '\n'.join(self._lines)


def _int_params(names: Iterable[str]) -> list[str]:
    return ['int32 {}'.format(name) for name in names]


def _unravel(targets: Sequence[str], extents: Sequence[str], trailing: Sequence[str] = ()
             ) -> list[str]:
    # The coordinate along each extent of the flat index i, row-major, with ``trailing`` extents
    # below the last one: "int t_0 = i / (e_1 * ...) % e_0;" ... "int t_n = i % e_n;".
    lines = []
    for target, rest in zip(targets, succ_sublists(extents)):
        below = list(rest[1:]) + list(trailing)
        if below:
            lines.append('int {} = i / ({}) % {};'.format(target, mulexp(below), rest[0]))
        else:
            lines.append('int {} = i % {};'.format(target, rest[0]))
    return lines


def _names(ndim: int) -> tuple[list[str], ...]:
    # Input extents, output extents, kernel sizes, strides, pads, dilations.
    return tuple(vars(prefix, ndim) for prefix in ('d', 'out', 'k', 's', 'p', 'di'))


class Im2colNDKernel:
    """Generates the CUDA elementwise kernel that unfolds an N-d image into columns.

    The kernel runs once per column element ``i`` (channel, kernel offsets, output position)
    and reads the image element under it, zero outside the padded border.
    """

    def _generate(self, ndim: int) -> tuple[str, str, str, str]:
        ds, outs, ks, ss, ps, dis = _names(ndim)
        kxs, out_xs, ins, idxs = (vars(prefix, ndim) for prefix in ('kx', 'out_x', 'in', 'idx'))
        in_params = ', '.join(['raw T img'] + _int_params(ds + outs + ks + ss + ps + dis))
        lines = ['int c0 = i / ({});'.format(mulexp(ks + outs))]
        lines += _unravel(kxs, ks, outs)
        lines += _unravel(out_xs, outs)
        w = Writer()
        for in_, kx, di, out_x, s, p in zip(ins, kxs, dis, out_xs, ss, ps):
            w.write('int {} = {} * {} + {} * {} - {};'.format(in_, kx, di, out_x, s, p))
        inside = andexp('0 <= {0} && {0} < {1}'.format(in_, d) for in_, d in zip(ins, ds))
        w.write('if ({}) {{'.format(inside), indent='inc')
        for idx, in_, d, outer in zip(idxs, ins, ds, ['c0'] + idxs[:-1]):
            w.write('int {} = {} + {} * {};'.format(idx, in_, d, outer))
        w.write('col = img[{}];'.format(idxs[-1]))
        w.write('} else {', indent='decinc')
        w.write('col = (T)0;')
        w.write('}', indent='dec')
        lines.append(w.get())
        return in_params, 'T col', '\n'.join(lines), 'im2col_{}d'.format(ndim)

    @staticmethod
    @cuda.memoize()
    def generate(ndim: int) -> tuple[str, str, str, str]:
        """Returns ``(in_params, out_params, operation, name)`` for ``ndim`` spatial axes.

        Args:
            ndim: The number of spatial dimensions.

        Returns:
            The four strings of a CuPy elementwise kernel (cached per ``ndim``).
        """
        return _im2col_nd_kernel._generate(ndim)


_im2col_nd_kernel = Im2colNDKernel()


class Col2imNDKernel:
    """Generates the CUDA elementwise kernel that folds columns back into an N-d image.

    The kernel runs once per image element ``i`` and sums the column elements that were read
    from it (the adjoint of :class:`Im2colNDKernel`).
    """

    def _generate(self, ndim: int) -> tuple[str, str, str, str]:
        ds, outs, ks, ss, ps, dis = _names(ndim)
        xs, kxs, out_xs = (vars(prefix, ndim) for prefix in ('x', 'kx', 'out_x'))
        in_params = ', '.join(['raw T col'] + _int_params(ds + outs + ks + ss + ps + dis))
        lines = ['int c0 = i / ({});'.format(mulexp(ds))]
        lines += _unravel(xs, ds)
        lines.append('T val = 0;')
        w = Writer()
        for kx, k, out_x, x, p, di, out, s in zip(kxs, ks, out_xs, xs, ps, dis, outs, ss):
            w.write('for (int {0} = 0; {0} < {1}; ++{0}) {{'.format(kx, k), indent='inc')
            w.write('int {} = {} + {} - {} * {};'.format(out_x, x, p, kx, di))
            w.write('if (0 > {0} || {0} >= {1} * {2}) continue;'.format(out_x, out, s))
            w.write('if ({} % {} != 0) continue;'.format(out_x, s))
            w.write('{} /= {};'.format(out_x, s))
        index = muladdexp(outs, out_xs, muladdexp(ks, kxs, 'c0'))
        w.write('val = val + col[{}];'.format(index))
        for _ in range(ndim):
            w.write('}', indent='dec')
        lines.append(w.get())
        lines.append('img = val;')
        return in_params, 'T img', '\n'.join(lines), 'col2im_{}d'.format(ndim)

    @staticmethod
    @cuda.memoize()
    def generate(ndim: int) -> tuple[str, str, str, str]:
        """Returns ``(in_params, out_params, operation, name)`` for ``ndim`` spatial axes.

        Args:
            ndim: The number of spatial dimensions.

        Returns:
            The four strings of a CuPy elementwise kernel (cached per ``ndim``).
        """
        return _col2im_nd_kernel._generate(ndim)


_col2im_nd_kernel = Col2imNDKernel()
