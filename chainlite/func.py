"""Function transforms: ``grad``, ``jacrev``, ``jacfwd``, ``hvp``, ``vmap`` and friends.

Chainer has no such module; the names mirror ``jax`` and ``torch.func``. Each transform
takes a plain function of Variables (built from chainlite functions) and returns a new
function, or evaluates one directly (``hvp``, ``vhp``, ``jvp``, ``vjp``).

Return types follow one rule everywhere, "Variables in, Variables out": when backprop is
enabled and some differentiated argument is a Variable that requires a gradient, results are
Variables linked to that argument's graph; otherwise they are NumPy arrays. Called on
arrays, a transform returns arrays; called by another transform (which always passes
Variables that require a gradient), it returns Variables that the outer transform can
differentiate again, so ``grad(grad(f))``, ``jacfwd(jacrev(f))`` and the like compose.

Example:
    >>> import numpy as np, chainlite.functions as F
    >>> from chainlite import func
    >>> d3 = func.grad(func.grad(func.grad(F.sin)))
    >>> bool(np.allclose(d3(np.array(0.5)), -np.cos(0.5)))
    True
"""
from __future__ import annotations

from typing import Any, Callable, Sequence, Union

import numpy

from chainlite import backend
from chainlite import forward_mode
from chainlite import functions
from chainlite import variable
from chainlite.forward_mode import jvp  # noqa: F401  (re-exported)
from chainlite.forward_mode import vjp  # noqa: F401  (re-exported)
from chainlite._vmap import vmap  # noqa: F401  (re-exported)

_Variable = variable.Variable
Argnums = Union[int, Sequence[int]]


def _nums(argnums: Argnums, n_args: int) -> tuple:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise ValueError('argnums must name at least one argument')
    for i in nums:
        if not isinstance(i, int) or not -n_args <= i < n_args:
            raise ValueError('argnums %r out of range for %d positional arguments'
                             % (argnums, n_args))
    return tuple(i % n_args for i in nums)


def _partial(f: Callable, args: tuple, nums: tuple) -> Callable:
    # f as a function of the arguments named by nums only, the others held fixed.
    def g(*xs):
        full = list(args)
        for i, x in zip(nums, xs):
            full[i] = x
        return f(*full)
    return g


def _pick(values: Sequence, argnums: Argnums) -> Any:
    return values[0] if isinstance(argnums, int) else tuple(values)


def _finish_tree(v: Any, nested: bool) -> Any:
    if isinstance(v, (tuple, list)):
        return type(v)(_finish_tree(a, nested) for a in v)
    return forward_mode._finish(v, nested)


def value_and_grad(f: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """Transforms ``f`` into a function returning its value and its gradient.

    Args:
        f: A function returning a one-element floating point Variable (or, with
            ``has_aux``, a pair ``(value, aux)``).
        argnums: The position of the argument to differentiate, or a tuple of positions.
        has_aux: Whether ``f`` returns ``(value, aux)``; ``aux`` is passed through, its
            Variables turned into arrays unless the results are Variables.

    Returns:
        A function with ``f``'s arguments returning ``(value, gradient)`` (or
        ``((value, aux), gradient)``). The gradient has the argument's shape, and is a tuple
        of gradients when ``argnums`` is a tuple. Arrays or Variables as the module
        docstring says.

    Raises:
        ValueError: If ``f`` does not return a one-element floating point Variable.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> from chainlite import func
        >>> v, g = func.value_and_grad(lambda x: F.sum(x * x))(np.array([1.0, 2.0]))
        >>> float(v), g
        (5.0, array([2., 4.]))
    """
    def wrapped(*args):
        nums = _nums(argnums, len(args))
        aux = []

        def g(*xs):
            out = f(*_argsub(args, nums, xs))
            if has_aux:
                if not (isinstance(out, (tuple, list)) and len(out) == 2):
                    raise ValueError('with has_aux=True, f must return a pair (value, aux)')
                out, a = out
                aux.append(a)
            if not isinstance(out, _Variable) or out.size != 1 or out.dtype.kind != 'f':
                raise ValueError(
                    'grad needs f to return a one-element floating point Variable (a scalar '
                    'loss); got %s. Reduce the output first (e.g. F.sum(y)), or use jacrev or '
                    'vjp for a non-scalar output.' % _describe(out))
            return out

        lin = forward_mode._linearize(g, [args[i] for i in nums])
        value = lin.outputs[0]
        grads = lin.pull(numpy.ones_like(value.array))
        value = forward_mode._finish(value, lin.nested)
        if has_aux:
            value = (value, _finish_tree(aux[0], lin.nested))
        return value, _pick(grads, argnums)

    return wrapped


def _argsub(args: tuple, nums: tuple, xs: tuple) -> list:
    full = list(args)
    for i, x in zip(nums, xs):
        full[i] = x
    return full


def _describe(out: Any) -> str:
    if isinstance(out, _Variable):
        return 'a Variable of shape %s and dtype %s' % (out.shape, out.dtype)
    return 'a %s' % type(out).__name__


def grad(f: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """Transforms a scalar function ``f`` into the function computing its gradient.

    Args:
        f: A function returning a one-element floating point Variable (or, with
            ``has_aux``, ``(value, aux)``).
        argnums: The position of the argument to differentiate, or a tuple of positions.
        has_aux: Whether ``f`` returns ``(value, aux)``.

    Returns:
        A function with ``f``'s arguments returning the gradient (a tuple of them for a tuple
        ``argnums``; ``(gradient, aux)`` with ``has_aux``). Arrays, or Variables when called
        on Variables that require a gradient, so ``grad(grad(f))`` works.

    Raises:
        ValueError: If ``f`` does not return a one-element floating point Variable.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> from chainlite import func
        >>> func.grad(lambda x: F.sum(x ** 3))(np.array([1.0, 2.0]))
        array([ 3., 12.])
    """
    vg = value_and_grad(f, argnums, has_aux)

    def wrapped(*args):
        value, g = vg(*args)
        return (g, value[1]) if has_aux else g

    return wrapped


def _stack(rows: list, shape: tuple, like: Any, nested: bool) -> Any:
    # rows: one result per output element, each shaped like the argument (like).
    if not rows:
        z = backend.get_array_module(like.array).zeros(shape, dtype=like.dtype)
        return _Variable(z, requires_grad=False) if nested else z
    if nested:
        return functions.reshape(functions.stack(rows), shape)
    return numpy.stack(rows).reshape(shape)


def jacrev(f: Callable, argnums: Argnums = 0) -> Callable:
    """Transforms ``f`` into the function computing its Jacobian by reverse mode.

    One vector-Jacobian product per output element: the better choice when outputs are
    fewer than inputs.

    Args:
        f: A function returning a Variable or a tuple of Variables.
        argnums: The position of the argument to differentiate, or a tuple of positions.

    Returns:
        A function with ``f``'s arguments returning the Jacobian, of shape
        ``output.shape + argument.shape``. For a tuple of outputs it returns a tuple (one per
        output); for a tuple ``argnums`` each entry is a tuple (one per argument). Arrays or
        Variables as the module docstring says.

    Example:
        >>> import numpy as np
        >>> from chainlite import func
        >>> func.jacrev(lambda x: x * x)(np.array([1.0, 2.0]))
        array([[2., 0.],
               [0., 4.]])
    """
    def wrapped(*args):
        nums = _nums(argnums, len(args))
        lin = forward_mode._linearize(_partial(f, args, nums), [args[i] for i in nums])
        outs = lin.outputs
        jacs: list[Any] = []
        for k, y in enumerate(outs):
            cols: list[list[Any]] = [[] for _ in nums]
            if k in lin.y_index:
                xp = backend.get_array_module(y.array)  # the unit cotangents on y's device
                for e in range(y.size):
                    u = xp.zeros(y.size, dtype=y.dtype)
                    u[e] = 1
                    cots: list[Any] = [None] * len(outs)
                    cots[k] = u.reshape(y.shape)
                    for j, g in enumerate(lin.pull(lin.pack(cots))):
                        cols[j].append(g)
            per_arg = [_stack(c, tuple(y.shape) + tuple(lin.xs[j].shape), lin.xs[j],
                              lin.nested) for j, c in enumerate(cols)]
            jacs.append(_pick(per_arg, argnums))
        return lin.pack(jacs)

    return wrapped


jacobian = jacrev


def jacfwd(f: Callable, argnums: Argnums = 0) -> Callable:
    """Transforms ``f`` into the function computing its Jacobian by forward mode.

    One Jacobian-vector product per argument element (after one shared evaluation and
    linearization, see :mod:`chainlite.forward_mode`): the better choice when inputs are
    fewer than outputs.

    Args:
        f: A function returning a Variable or a tuple of Variables.
        argnums: The position of the argument to differentiate, or a tuple of positions.

    Returns:
        The same Jacobians, shapes and types as :func:`jacrev`.

    Example:
        >>> import numpy as np
        >>> from chainlite import func
        >>> func.jacfwd(lambda x: x * x)(np.array([1.0, 2.0]))
        array([[2., 0.],
               [0., 4.]])
    """
    def wrapped(*args):
        nums = _nums(argnums, len(args))
        lin = forward_mode._linearize(_partial(f, args, nums), [args[i] for i in nums])
        outs = lin.outputs
        # columns[j][k]: the J v results for argument j, output k, one per element of x_j.
        columns = []
        for j, x in enumerate(lin.xs):
            per_out: list[list[Any]] = [[] for _ in outs]
            xp = backend.get_array_module(x.array)  # the unit tangents on x's device
            for e in range(x.size):
                v = xp.zeros(x.size, dtype=x.dtype)
                v[e] = 1
                tangents: list[Any] = [None] * len(nums)
                tangents[j] = v.reshape(x.shape)
                res = lin.push(tangents)
                for k, t in enumerate((res,) if lin.single else res):
                    per_out[k].append(t)
            columns.append(per_out)
        jacs: list[Any] = []
        for k, y in enumerate(outs):
            if k not in lin.y_index:
                jacs.append(None)
                continue
            per_arg = []
            for j, x in enumerate(lin.xs):
                cols = columns[j][k]
                shape = tuple(x.shape) + tuple(y.shape)
                # cols stack along x's elements; the Jacobian puts y's axes first.
                jac = _stack(cols, shape, y, lin.nested)
                axes = tuple(range(x.ndim, x.ndim + y.ndim)) + tuple(range(x.ndim))
                per_arg.append(functions.transpose(jac, axes) if lin.nested
                               else jac.transpose(axes))
            jacs.append(_pick(per_arg, argnums))
        return lin.pack(jacs)

    return wrapped


def hessian(f: Callable, argnums: Argnums = 0) -> Callable:
    """Transforms a scalar function ``f`` into the function computing its Hessian.

    It is ``jacfwd(jacrev(f, argnums), argnums)``: forward over reverse.

    Args:
        f: A function returning a one-element floating point Variable.
        argnums: The position of the argument, or a tuple of positions (then the result is a
            tuple of tuples of blocks).

    Returns:
        A function with ``f``'s arguments returning the Hessian, of shape
        ``output.shape + argument.shape + argument.shape``.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> from chainlite import func
        >>> func.hessian(lambda x: F.sum(x ** 3))(np.array([1.0, 2.0]))
        array([[ 6.,  0.],
               [ 0., 12.]])
    """
    return jacfwd(jacrev(f, argnums), argnums)


def _every(primals: Sequence) -> tuple:
    return tuple(range(len(primals)))


def hvp(f: Callable, primals: Sequence, tangents: Sequence) -> tuple:
    """Hessian-vector product of a scalar function, by forward over reverse mode.

    Args:
        f: A function returning a one-element floating point Variable.
        primals: A tuple or list of its arguments (all floating point), or a single array
            or Variable, which is ``f``'s one argument (as in ``torch.autograd.functional``).
        tangents: A tuple or list of vectors, one per primal, each of the primal's shape
            (a single array when ``primals`` is one).

    Returns:
        ``(value, hvp)``: ``f(*primals)`` and a tuple with one entry per primal of
        ``H · tangents`` (a single value when ``primals`` is a single array). Arrays or
        Variables as the module docstring says.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> from chainlite import func
        >>> value, (hv,) = func.hvp(lambda x: F.sum(x ** 3), (np.array([1.0, 2.0]),),
        ...                         (np.array([1.0, 1.0]),))
        >>> hv
        array([ 6., 12.])
    """
    primals, single = forward_mode._as_primals(primals, 'hvp')
    tangents = forward_mode._as_tangents(tangents, single)
    box = []

    def g(*xs):
        value, grads = value_and_grad(f, _every(primals))(*xs)
        box.append(value)
        return tuple(grads)

    _, hv = forward_mode.jvp(g, primals, tangents)
    nested = forward_mode._wants_graph(primals)
    return forward_mode._finish(box[0], nested), hv[0] if single else tuple(hv)


def vhp(f: Callable, primals: Sequence, tangents: Sequence) -> tuple:
    """Vector-Hessian product of a scalar function, by reverse over reverse mode.

    For a twice continuously differentiable ``f`` the Hessian is symmetric, so this equals
    :func:`hvp`; it costs two backward passes instead of :func:`hvp`'s three.

    Args:
        f: A function returning a one-element floating point Variable.
        primals: A tuple or list of its arguments (all floating point), or a single array
            or Variable, which is ``f``'s one argument (as in ``torch.autograd.functional``).
        tangents: A tuple or list of vectors, one per primal, each of the primal's shape
            (a single array when ``primals`` is one).

    Returns:
        ``(value, vhp)``: ``f(*primals)`` and a tuple with one entry per primal of
        ``tangents^T · H`` (a single value when ``primals`` is a single array).

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> from chainlite import func
        >>> value, (vh,) = func.vhp(lambda x: F.sum(x ** 3), (np.array([1.0, 2.0]),),
        ...                         (np.array([1.0, 1.0]),))
        >>> vh
        array([ 6., 12.])
    """
    primals, single = forward_mode._as_primals(primals, 'vhp')
    tangents = forward_mode._as_tangents(tangents, single)
    box = []

    def g(*xs):
        value, grads = value_and_grad(f, _every(primals))(*xs)
        box.append(value)
        return tuple(grads)

    _, pull = forward_mode.vjp(g, primals)
    vh = pull(tuple(tangents))
    nested = forward_mode._wants_graph(primals)
    return forward_mode._finish(box[0], nested), vh[0] if single else vh
