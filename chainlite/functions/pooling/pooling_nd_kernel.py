"""CUDA source text for N-dimensional pooling, as ``chainer.functions.pooling.pooling_nd_kernel``.

Chainer builds the elementwise kernels of its N-d max and average pooling on the GPU from these
templates; chainlite pools with NumPy and never compiles them. The base classes are kept so that
code subclassing them works and gets the same text as in Chainer: a subclass names the pooling
(:meth:`PoolingNDKernelForward.name`) and writes the C fragments that run before the window
loop, inside it and after it; ``generate(ndim)`` assembles ``(in_params, out_params, operation,
name)``, cached per class and ``ndim``.

Example:
    >>> from chainlite.functions.pooling import pooling_nd_kernel
    >>> class SumPoolingForward(pooling_nd_kernel.PoolingNDKernelForward):
    ...     def name(self):
    ...         return 'sum'
    ...     def before(self):
    ...         return 'T val = 0;'
    ...     def main(self, offset, xs):
    ...         return 'val = val + in[{}];'.format(offset)
    ...     def after(self, out_xs):
    ...         return 'out = val;'
    >>> in_params, out_params, operation, name = SumPoolingForward.generate(1)
    >>> name, in_params
    ('sum_pool_1d_fwd', 'raw T in, int32 d_0, int32 out_0, int32 k_0, int32 s_0, int32 p_0')
    >>> print(operation)
    int c0 = i / (out_0);
    int out_x_0 = i % out_0;
    int in_x0_0 = max(0, out_x_0 * s_0 - p_0);
    int in_x1_0 = min(d_0, out_x_0 * s_0 + k_0 - p_0);
    T val = 0;
    for (int x_0 = in_x0_0; x_0 < in_x1_0; ++x_0) {
      int offset_0 = 1 * (x_0 + d_0 * c0);
      val = val + in[offset_0];
    }
    out = val;
"""
from __future__ import annotations

import abc
from typing import Any, Sequence

from chainlite.backends import cuda
from chainlite.utils import conv_nd_kernel


def _split_in_params(params: Any) -> tuple[list[str], list[str]]:
    # A subclass's in_params() is a list of scalar parameters, or (raw arrays, scalars).
    if type(params) is tuple:
        return list(params[0]), list(params[1])
    return [], list(params)


class _PoolingNDKernel(abc.ABC):
    """What the forward and backward templates share; subclasses set the class attributes."""

    _array_param = ''      # the raw input array: 'raw T in' / 'raw T gy'
    _result_param = ''     # the kernel's output: 'T out' / 'T gx'
    _direction = ''        # 'fwd' / 'bwd'

    ndim: int
    ds: list[str]
    outs: list[str]
    ks: list[str]
    ss: list[str]
    ps: list[str]

    def name(self) -> str:
        """Returns the pooling's name, the stem of the kernel's name (``'max'``)."""
        raise NotImplementedError('%s must implement name()' % type(self).__name__)

    def in_params(self) -> Any:
        """Returns the extra input parameters: a list, or ``(raw arrays, scalars)``."""
        return []

    def out_params(self) -> list[str]:
        """Returns the extra output parameters (after the result)."""
        return []

    def before(self) -> str:
        """Returns the C code that runs before the loop over the window."""
        raise NotImplementedError('%s must implement before()' % type(self).__name__)

    def _generate(self, ndim: int) -> tuple[str, str, str, str]:
        self.ndim = ndim
        self.ds, self.outs, self.ks, self.ss, self.ps = (
            conv_nd_kernel.vars(prefix, ndim) for prefix in ('d', 'out', 'k', 's', 'p'))
        raws, scalars = _split_in_params(self.in_params())
        sizes = ['int32 {}'.format(v) for v in self.ds + self.outs + self.ks + self.ss + self.ps]
        in_params = ', '.join([self._array_param] + raws + sizes + scalars)
        out_params = ', '.join([self._result_param] + self.out_params())
        name = '{}_pool_{}d_{}'.format(self.name(), ndim, self._direction)
        return in_params, out_params, self._operation(), name

    @abc.abstractmethod
    def _operation(self) -> str:
        """Returns the kernel's body (each direction writes its own)."""

    def _loops(self, counters: Sequence[str], lows: Sequence[str], highs: Sequence[str],
               extents: Sequence[str], body: str) -> str:
        # Nested loops over the window with a running row-major offset:
        # "for (int c_j = lo_j; c_j < hi_j; ++c_j) {", "int offset_j = e_{j+1} * (c_j + outer);".
        w = conv_nd_kernel.Writer()
        offsets = conv_nd_kernel.vars('offset', self.ndim)
        outers = ['{} * c0'.format(extents[0])] + offsets[:-1]
        strides = list(extents[1:]) + ['1']
        for counter, low, high, offset, outer, stride in zip(
                counters, lows, highs, offsets, outers, strides):
            w.write('for (int {0} = {1}; {0} < {2}; ++{0}) {{'.format(counter, low, high), 'inc')
            w.write('int {} = {} * ({} + {});'.format(offset, stride, counter, outer))
        for line in body.split('\n'):
            w.write(line)
        for _ in counters:
            w.write('}', 'dec')
        return w.get()

    @classmethod
    @cuda.memoize()
    def generate(cls, ndim: int) -> tuple[str, str, str, str]:
        """Returns ``(in_params, out_params, operation, name)`` for ``ndim`` spatial axes.

        Args:
            ndim: The number of spatial dimensions.

        Returns:
            The four strings of a CuPy elementwise kernel (cached per class and ``ndim``).
        """
        return cls()._generate(ndim)


class PoolingNDKernelForward(_PoolingNDKernel):
    """Template of the forward pooling kernel: one thread per output element.

    The kernel's flat index ``i`` gives the channel ``c0`` and the output position
    ``out_x_*``; the loop visits the input positions ``x_*`` of the window clipped to the
    image, with ``offset_{ndim-1}`` the flat index of ``in`` there. Subclasses implement
    :meth:`name`, :meth:`before`, :meth:`main` and :meth:`after`, and may add parameters with
    :meth:`in_params` / :meth:`out_params`.
    """

    _array_param = 'raw T in'
    _result_param = 'T out'
    _direction = 'fwd'

    def main(self, offset: str, xs: list[str]) -> str:
        """Returns the C code run for each input position of the window.

        Args:
            offset: The flat index into ``in`` of the position.
            xs: The names of its coordinates.
        """
        raise NotImplementedError('%s must implement main()' % type(self).__name__)

    def after(self, out_xs: list[str]) -> str:
        """Returns the C code run after the window's loop (it sets ``out``).

        Args:
            out_xs: The names of the output position's coordinates.
        """
        raise NotImplementedError('%s must implement after()' % type(self).__name__)

    def _operation(self) -> str:
        out_xs = conv_nd_kernel.vars('out_x', self.ndim)
        lows = conv_nd_kernel.vars('in_x0', self.ndim)
        highs = conv_nd_kernel.vars('in_x1', self.ndim)
        lines = ['int c0 = i / ({});'.format(conv_nd_kernel.mulexp(self.outs))]
        for out_x, rest in zip(out_xs, conv_nd_kernel.succ_sublists(self.outs)):
            lines.append(_coordinate(out_x, rest))
        for low, high, d, out_x, k, s, p in zip(
                lows, highs, self.ds, out_xs, self.ks, self.ss, self.ps):
            lines.append('int {} = max(0, {} * {} - {});'.format(low, out_x, s, p))
            lines.append('int {} = min({}, {} * {} + {} - {});'.format(high, d, out_x, s, k, p))
        lines.append(self.before())
        xs = conv_nd_kernel.vars('x', self.ndim)
        body = self.main(conv_nd_kernel.vars('offset', self.ndim)[-1], xs)
        lines.append(self._loops(xs, lows, highs, self.ds, body))
        lines.append(self.after(out_xs))
        return '\n'.join(lines)


class PoolingNDKernelBackward(_PoolingNDKernel):
    """Template of the backward pooling kernel: one thread per input element.

    The kernel's flat index ``i`` gives the channel ``c0`` and the padded input position
    ``x_*``; the loop visits the output positions ``out_x_*`` whose windows cover it, with
    ``offset_{ndim-1}`` the flat index of ``gy`` there. Subclasses implement :meth:`name`,
    :meth:`before`, :meth:`main` and :meth:`after`.
    """

    _array_param = 'raw T gy'
    _result_param = 'T gx'
    _direction = 'bwd'

    def main(self, offset: str, xs: list[str], out_xs: list[str]) -> str:
        """Returns the C code run for each output position whose window covers the input.

        Args:
            offset: The flat index into ``gy`` of the output position.
            xs: The names of the input position's (padded) coordinates.
            out_xs: The names of the output position's coordinates.
        """
        raise NotImplementedError('%s must implement main()' % type(self).__name__)

    def after(self, xs: list[str]) -> str:
        """Returns the C code run after the loop (it sets ``gx``).

        Args:
            xs: The names of the input position's (padded) coordinates.
        """
        raise NotImplementedError('%s must implement after()' % type(self).__name__)

    def _operation(self) -> str:
        xs = conv_nd_kernel.vars('x', self.ndim)
        lows = conv_nd_kernel.vars('out_x0', self.ndim)
        highs = conv_nd_kernel.vars('out_x1', self.ndim)
        lines = ['int c0  = i / ({});'.format(conv_nd_kernel.mulexp(self.ds))]
        for x, rest, p in zip(xs, conv_nd_kernel.succ_sublists(self.ds), self.ps):
            lines.append(_coordinate(x, rest, p))
        for low, high, x, out, k, s in zip(lows, highs, xs, self.outs, self.ks, self.ss):
            lines.append('int {} = max(0, ({} - {} + {}) / {});'.format(low, x, k, s, s))
            lines.append('int {} = min({}, ({} + {}) / {});'.format(high, out, x, s, s))
        lines.append(self.before())
        out_xs = conv_nd_kernel.vars('out_x', self.ndim)
        body = self.main(conv_nd_kernel.vars('offset', self.ndim)[-1], xs, out_xs)
        lines.append(self._loops(out_xs, lows, highs, self.outs, body))
        lines.append(self.after(xs))
        return '\n'.join(lines)


def _coordinate(target: str, extents: Sequence[str], shift: str | None = None) -> str:
    # "int t = i / (e_1 * e_2) % e_0;" (or "i % e_0" for the last axis), plus an optional shift.
    if len(extents) > 1:
        value = 'i / ({}) % {}'.format(conv_nd_kernel.mulexp(extents[1:]), extents[0])
    else:
        value = 'i % {}'.format(extents[0])
    if shift is not None:
        value += ' + {}'.format(shift)
    return 'int {} = {};'.format(target, value)
