"""CUDA source text of N-d max pooling, as ``chainer.functions.pooling.max_pooling_nd_kernel``.

Chainer compiles these on the GPU; chainlite pools with NumPy and never does. ``generate(ndim)``
gives ``(in_params, out_params, operation, name)`` of the elementwise kernels, for code that
builds on them (see :mod:`~chainlite.functions.pooling.pooling_nd_kernel`). An argmax index is
the position inside the window, in C order over the window's axes.

Example:
    >>> from chainlite.functions.pooling import max_pooling_nd_kernel as k
    >>> in_params, out_params, operation, name = k.MaxPoolingNDKernelForward.generate(2)
    >>> name, out_params
    ('max_pool_2d_fwd', 'T out, S indexes')
"""
from __future__ import annotations

from chainlite.functions.pooling import pooling_nd_kernel
from chainlite.utils import conv_nd_kernel


def _offsets(ndim: int, positions: list[str]) -> list[str]:
    # The row-major flat index into `in` of the input position `positions` of channel c0:
    # "int offset_j = d_{j+1} * (pos_j + offset_{j-1});", the last one the full index.
    ds = conv_nd_kernel.vars('d', ndim)[1:] + ['1']
    offsets = conv_nd_kernel.vars('offset', ndim)
    outers = ['d_0 * c0'] + offsets[:-1]
    return ['int {} = {} * ({} + {});'.format(o, d, p, outer)
            for o, d, p, outer in zip(offsets, ds, positions, outers)]


class MaxPoolingNDKernelForward(pooling_nd_kernel.PoolingNDKernelForward):
    """The forward kernel: each window's maximum and the position of its first occurrence."""

    def name(self) -> str:
        """Returns ``'max'``."""
        return 'max'

    def out_params(self) -> list[str]:
        """The argmax output, ``S indexes``."""
        return ['S indexes']

    def before(self) -> str:
        """Starts the maximum at minus infinity and the argmax at 0 on every axis."""
        self.argmaxs = conv_nd_kernel.vars('argmax', self.ndim)
        return '\n'.join(['T maxval = (T)-(1.0/0.0);'] +
                         ['int {} = 0;'.format(a) for a in self.argmaxs])

    def main(self, offset: str, xs: list[str]) -> str:
        """Keeps the input at ``offset`` (position ``xs``) if it beats the maximum so far."""
        w = conv_nd_kernel.Writer()
        w.write('T v = in[{}];'.format(offset))
        w.write('if (maxval < v) {', 'inc')
        w.write('maxval = v;')
        for argmax, x in zip(self.argmaxs, xs):
            w.write('{} = {};'.format(argmax, x))
        w.write('}', 'dec')
        return w.get()

    def after(self, out_xs: list[str]) -> str:
        """Writes the maximum and its position inside the window, flattened in C order."""
        argmax_ks = conv_nd_kernel.vars('argmax_k', self.ndim)
        lines = ['out = maxval;']
        # The argmax relative to the window's first (padded) position.
        lines += ['int {} = {} + {} - {} * {};'.format(ak, a, p, ox, s) for ak, a, p, ox, s
                  in zip(argmax_ks, self.argmaxs, self.ps, out_xs, self.ss)]
        lines.append('indexes = {};'.format(
            conv_nd_kernel.muladdexp(self.ks[1:], argmax_ks[1:], argmax_ks[0])))
        return '\n'.join(lines)


class MaxPoolingNDKernelBackward(pooling_nd_kernel.PoolingNDKernelBackward):
    """The backward kernel: sums ``gy`` of the windows whose argmax is this input."""

    def name(self) -> str:
        """Returns ``'max'``."""
        return 'max'

    def in_params(self) -> tuple[list[str], list[str]]:
        """The forward's argmax, ``raw S indexes``."""
        return ['raw S indexes'], []

    def before(self) -> str:
        """Starts the sum."""
        return 'T val = 0;'

    def main(self, offset: str, xs: list[str], out_xs: list[str]) -> str:
        """Adds ``gy`` at ``offset`` if that window's argmax is this input's position."""
        rel = ['{} - {} * {}'.format(x, ox, s) for x, ox, s in zip(xs, out_xs, self.ss)]
        w = conv_nd_kernel.Writer()
        w.write('int kx = {};'.format(conv_nd_kernel.muladdexp(self.ks, rel, '0')))
        w.write('if (indexes[{}] == kx) {{'.format(offset), 'inc')
        w.write('val = val + gy[{}];'.format(offset))
        w.write('}', 'dec')
        return w.get()

    def after(self, xs: list[str]) -> str:
        """Writes the sum."""
        return 'gx = val;'


class MaxPoolingNDKernelForwardWithIndexes(pooling_nd_kernel.PoolingNDKernelForward):
    """Max pooling with given argmax indexes: each output reads the input there."""

    def name(self) -> str:
        """Returns ``'max_index'``."""
        return 'max_index'

    def in_params(self) -> list[str]:
        """The argmax to read at, ``raw S indexes``."""
        return ['raw S indexes']

    def out_params(self) -> list[str]:
        """No extra outputs."""
        return []

    def _operation(self) -> str:
        out_xs = conv_nd_kernel.vars('out_x', self.ndim)
        maxs = conv_nd_kernel.vars('max', self.ndim)
        lines = ['int c0 = i / ({});'.format(conv_nd_kernel.mulexp(self.outs))]
        for out_x, rest in zip(out_xs, conv_nd_kernel.succ_sublists(self.outs)):
            lines.append(pooling_nd_kernel._coordinate(out_x, rest))
        lines.append('int index = indexes[i];')
        # The argmax's coordinate on each axis, from the flat in-window index.
        for m, ox, s, p, ks in zip(maxs, out_xs, self.ss, self.ps,
                                   conv_nd_kernel.succ_sublists(self.ks)):
            pos = 'index / ({}) % {}'.format(conv_nd_kernel.mulexp(ks[1:]), ks[0]) \
                if len(ks) > 1 else 'index % {}'.format(ks[0])
            lines.append('int {} = max(0, {} * {} - {} + {});'.format(m, ox, s, p, pos))
        lines += _offsets(self.ndim, maxs)
        lines.append('out = in[offset_{}];'.format(self.ndim - 1))
        return '\n'.join(lines)


class MaxPoolingNDKernelForwardWithIndexes1(MaxPoolingNDKernelForward):
    """Max pooling whose output reads ``ggx`` at the argmax of ``in`` (double backprop)."""

    def name(self) -> str:
        """Returns ``'max_index1'``."""
        return 'max_index1'

    def in_params(self) -> list[str]:
        """The array read at the argmax, ``raw T ggx``."""
        return ['raw T ggx']

    def out_params(self) -> list[str]:
        """No extra outputs."""
        return []

    def after(self, out_xs: list[str]) -> str:
        """Reads ``ggx`` at the argmax found in the loop."""
        return '\n'.join(_offsets(self.ndim, self.argmaxs) +
                         ['out = ggx[offset_{}];'.format(self.ndim - 1)])
