"""Einstein summation over any number of operands."""
from __future__ import annotations

import string
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable

_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # sublist ints index this
_ELLIPSIS = '@'  # one character for '...' while parsing

#: The subscript letters, in the order the ints of a sublist index them (Chainer's name).
einsum_symbols = _LETTERS
#: The same letters as a set.
einsum_symbols_set = set(einsum_symbols)


def _sublist_term(sub):
    term = ''
    for s in sub:
        if s is Ellipsis:
            term += _ELLIPSIS
        elif isinstance(s, (int, numpy.integer)) and 0 <= s < len(_LETTERS):
            term += _LETTERS[s]
        else:
            raise TypeError('einsum: a sublist holds Ellipsis and ints in [0, 52), got %r'
                            % (s,))
    return term


def _parse(operands):
    # Returns the input terms, the output term (None when implicit) and the operands.
    if not operands:
        raise ValueError('einsum: no operands')
    if isinstance(operands[0], str):
        subscripts = operands[0].replace(' ', '')
        operands = operands[1:]
        for c in subscripts:
            if c not in _LETTERS and c not in '.,->':
                raise ValueError('einsum: invalid character %r in subscripts' % c)
        out = None
        if '-' in subscripts or '>' in subscripts:
            if subscripts.count('->') != 1 or subscripts.count('-') != 1 or \
                    subscripts.count('>') != 1:
                raise ValueError("einsum: subscripts can contain only one '->'")
            subscripts, out = subscripts.split('->')
        subscripts = subscripts.replace('...', _ELLIPSIS)
        if out is not None:
            out = out.replace('...', _ELLIPSIS)
        if '.' in subscripts or (out is not None and ('.' in out or ',' in out)):
            raise ValueError("einsum: invalid ellipsis or ',' in subscripts")
        terms = subscripts.split(',')
    else:
        rest = list(operands)
        operands, terms = rest[0:len(rest) - len(rest) % 2:2], rest[1::2]
        out = _sublist_term(rest[-1]) if len(rest) % 2 else None
        terms = [_sublist_term(t) for t in terms]
    if len(terms) != len(operands):
        raise ValueError('einsum: %d terms in the subscripts for %d operands'
                         % (len(terms), len(operands)))
    if out is None:
        letters = ''.join(terms).replace(_ELLIPSIS, '')
        out = (_ELLIPSIS if any(_ELLIPSIS in t for t in terms) else '') + ''.join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    else:
        for c in out:
            if c not in ''.join(terms):
                raise ValueError('einsum: output subscript %r does not appear in the inputs'
                                 % ('...' if c == _ELLIPSIS else c))
            if out.count(c) > 1:
                raise ValueError('einsum: output subscript %r appears more than once' % c)
    return terms, out, operands


def _parse_einsum_input(operands: tuple) -> tuple[str, str, list]:
    # Chainer's parser: ``(input subscripts joined by ',', output subscripts, operands)``,
    # with '...' written '@' and the implicit output made explicit.
    terms, out, operands = _parse(operands)
    return ','.join(terms), out, list(operands)


def _enumerate_axes(subscripts: str) -> Any:
    # (axis, letter) for each letter of one operand's subscripts: the letters after '@'
    # count from the end, and '@' itself gets the slice of axes it stands for.
    if _ELLIPSIS not in subscripts:
        yield from enumerate(subscripts)
        return
    left, right = subscripts.split(_ELLIPSIS)
    yield from enumerate(left)
    yield slice(len(left), -len(right) or None), _ELLIPSIS
    for i, c in enumerate(right):
        yield i - len(right), c


def _einsum(xp: Any, dtype: Any, in_subscripts: str, out_subscript: str, *inputs: Any,
            check_undefined_ellipsis_sum: bool = False) -> Any:
    # The einsum of arrays in '@' subscripts, as an array of ``dtype``. An output without
    # '@' sums over the axes of '...' (NumPy refuses that); check_undefined_ellipsis_sum
    # makes that a ValueError where '...' stands for some axes.
    subscripts = (in_subscripts + '->' + out_subscript).replace(_ELLIPSIS, '...')
    sum_ellipsis = _ELLIPSIS in in_subscripts and _ELLIPSIS not in out_subscript
    if sum_ellipsis:
        subscripts = in_subscripts.replace(_ELLIPSIS, '...') + '->...' + out_subscript
    y = xp.einsum(subscripts, *inputs, optimize=len(inputs) >= 3)
    if sum_ellipsis:
        n = y.ndim - len(out_subscript)
        if check_undefined_ellipsis_sum and n > 0:
            raise ValueError("einsum: summing over the axes of '...' (the output %r leaves "
                             "them out) is not supported, as in Chainer" % out_subscript)
        y = y.sum(axis=tuple(range(n)))
    return xp.asarray(y, dtype)


def _invalid(expect, actual):
    return type_check.InvalidType(
        expect, actual, msg='Invalid operation is performed in: EinSum (Forward)\n\n'
                            'Expect: %s\nActual: %s' % (expect, actual))


def _expand_ellipsis(terms, out, ndims):
    # '...' becomes fresh letters, right-aligned across the operands as NumPy broadcasts;
    # leaving them out of the output sums over them (as Chainer allows).
    counts = []
    for i, (t, ndim) in enumerate(zip(terms, ndims)):
        n = len(t) - (_ELLIPSIS in t)
        if ndim < n or (_ELLIPSIS not in t and ndim != n):
            raise _invalid('x%d.ndim == %d (subscripts %r)' % (i, n, t.replace('@', '...')),
                           'x%d.ndim = %d' % (i, ndim))
        counts.append(ndim - n if _ELLIPSIS in t else 0)
    spans = {c for t, c in zip(terms, counts) if _ELLIPSIS in t}
    if len(spans) > 1:
        # '...' stands for the same axes everywhere: no broadcasting, as in Chainer.
        raise _invalid("the same number of axes for '...' in every operand",
                       ', '.join('x%d: %d' % (i, c) for i, (t, c) in
                                 enumerate(zip(terms, counts)) if _ELLIPSIS in t))
    k = max(counts, default=0)
    if k and _ELLIPSIS not in out:
        raise ValueError("einsum: summing over the axes of '...' (the output %r leaves "
                         "them out) is not supported, as in Chainer" % out)
    fresh = ''.join([c for c in _LETTERS if c not in ''.join(terms)][:k])
    if len(fresh) < k:
        raise ValueError('einsum: too many axes for the 52 subscript letters')
    terms = tuple(t.replace(_ELLIPSIS, fresh[k - n:]) for t, n in zip(terms, counts))
    return terms, out.replace(_ELLIPSIS, fresh)


class EinSum(function_node.FunctionNode):

    def __init__(self, in_terms: tuple[str, ...] | str, out_term: str,
                 out_shape: tuple[int, ...] | None = None) -> None:
        # out_shape is needed only when out_term repeats a letter (a diagonal is written)
        # or has letters no input has (broadcast): both happen in gradients only. Chainer's
        # EinSum(in_subs, out_sub) gives the terms as one string, '...' written '@'.
        if isinstance(in_terms, str):
            in_terms = tuple(in_terms.split(','))
        self.in_terms = in_terms
        self.out_term = out_term
        self.out_shape = out_shape

    def _expand(self, ndims):
        # Chainer's '@' terms become letters once the operands' ndims are known.
        if any(_ELLIPSIS in t for t in self.in_terms + (self.out_term,)):
            self.in_terms, self.out_term = _expand_ellipsis(self.in_terms, self.out_term,
                                                            ndims)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, tuple('x%d' % i for i in range(len(in_types))))
        type_check.expect(in_types.size() == len(self.in_terms))
        self._expand([type_check.eval(x.ndim) for x in in_types])
        first: dict[str, tuple[int, int]] = {}
        for i, (x, term) in enumerate(zip(in_types, self.in_terms)):
            type_check.expect(x.dtype.kind == 'f', x.dtype == in_types[0].dtype,
                              x.ndim == len(term))
            for axis, c in enumerate(term):
                if c in first:
                    j, other = first[c]
                    type_check.expect(x.shape[axis] == in_types[j].shape[other])
                else:
                    first[c] = (i, axis)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        self._expand([x.ndim for x in inputs])
        ins = ''.join(self.in_terms)
        out = self.out_term
        direct = ''.join(dict.fromkeys(c for c in out if c in ins))
        z = numpy.einsum(','.join(self.in_terms) + '->' + direct, *inputs,
                         optimize=len(inputs) > 1)
        if direct == out:
            return z,
        # Write z onto the diagonals of zeros (repeated letters), broadcast along the
        # letters no input has: one assignment through broadcasting index arrays.
        xp = backend.get_array_module(inputs[0])
        assert self.out_shape is not None  # given whenever the output is not direct
        size = dict(zip(out, self.out_shape))
        unique = direct + ''.join(dict.fromkeys(c for c in out if c not in ins))
        index = tuple(xp.arange(size[c]).reshape([-1 if u == c else 1 for u in unique])
                      for c in out)
        y = xp.zeros(self.out_shape, z.dtype)
        y[index] = xp.asarray(z).reshape(z.shape + (1,) * (len(unique) - len(direct)))
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        xs = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            # Linear in each operand: the gradient is the einsum with gy in x_i's place,
            # written back into x_i's subscripts.
            terms = self.in_terms[:i] + (self.out_term,) + self.in_terms[i + 1:]
            ops = xs[:i] + (gy,) + xs[i + 1:]
            ret.append(DiagEinSum(','.join(terms), self.in_terms[i],
                                  xs[i].shape).apply(ops)[0])
        return tuple(ret)


class DiagEinSum(EinSum):
    """The einsum of a gradient: its output may write a diagonal or broadcast.

    Its output subscripts may repeat a letter (the gradient of ``'ii->'`` is ``'->ii'``, a
    diagonal in zeros) or hold letters no input has (the gradient of ``'ij->i'`` is
    ``'i->ij'``, broadcast along ``j``), so the output shape is given.

    Args:
        in_subs: The input subscripts joined by commas (``'i,jk'``; ``''`` for a 0-d input).
        out_sub: The output subscripts.
        out_shape: The output shape.
    """

    def __init__(self, in_subs: str, out_sub: str, out_shape: tuple) -> None:
        super().__init__(tuple(in_subs.split(',')), out_sub, tuple(out_shape))


def einsum(*operands: Any) -> Variable:
    """Einstein summation, as :func:`numpy.einsum`.

    Two calling conventions, as in Chainer and NumPy: ``einsum(subscripts, x0, x1, ...)``
    with subscripts such as ``'ij,jk->ik'``, or ``einsum(x0, sublist0, x1, sublist1, ...,
    [sublist_out])`` with lists of ints in ``[0, 52)`` and ``Ellipsis``. Without an output
    (``->``) the output has the letters that appear once, in alphabetical order, after the
    ``...`` axes. An input term may repeat a letter (a diagonal, as in ``'ii->'``); ``...``
    stands for the same axes in every operand (their number and sizes must be equal: no
    broadcasting), and an explicit output must keep them (summing over ``...`` raises
    ``ValueError`` unless it stands for no axis), as in Chainer.

    Args:
        *operands: The subscripts and float Variables or arrays of one dtype, in one of the
            two conventions.

    Returns:
        A Variable.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.einsum('ij,jk->ik', np.ones((2, 3)), np.ones((3, 4))).shape
        (2, 4)
        >>> F.einsum('ii', np.array([[1.0, 2.0], [3.0, 4.0]])).array
        array(5.)
        >>> F.einsum(np.ones((5, 2, 3)), [Ellipsis, 0, 1], np.ones(3), [1]).shape
        (5, 2)
    """
    terms, out, operands = _parse(operands)
    ndims = []
    for i, x in enumerate(operands):
        ndim = getattr(x, 'ndim', None)
        if ndim is None:
            raise TypeError('einsum: operand %d must be a Variable or an array, got %s'
                            % (i, type(x).__name__))
        ndims.append(ndim)
    terms, out = _expand_ellipsis(terms, out, ndims)
    return EinSum(terms, out).apply(tuple(operands))[0]
