"""Variables: arrays that remember how they were computed.

A :class:`Variable` is the user-facing half: it holds the array. Its :class:`VariableNode` is
the graph-side half: creator, rank, gradient, and the array only when a function retains it
for backward. Functions hold their input *nodes*, so an activation that no backward needs is
freed as soon as the user drops its Variable, while the graph stays walkable.
"""
from __future__ import annotations

import importlib
import sys
import warnings
import weakref
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Optional, cast, overload

import numpy

from chainlite import configuration
from chainlite import initializers

if TYPE_CHECKING:
    from chainlite import backend
    from chainlite import function
    from chainlite import function_node
    from chainlite import optimizer
    from chainlite.types import DeviceSpec, InitializerSpec, ShapeSpec

_ndarray = numpy.ndarray
# Set once any variable asks for retain_grad() or registers a gradient hook: until then
# backward skips the per-node test for intermediate gradients.
intermediate_grad_checks = False


def _enable_intermediate_grad_checks() -> None:
    global intermediate_grad_checks
    intermediate_grad_checks = True


class VariableNode:
    """The node of a variable in the computational graph.

    Several :class:`Variable` objects may share one node (e.g. the Variable a backward method
    gets from ``get_retained_inputs``); the node, not the Variable, is the graph's identity,
    and the gradient lives here.

    Attributes:
        creator_node: The :class:`~chainlite.FunctionNode` that produced it, or None (a leaf).
        rank: Its depth in the graph: 0 for leaves, creator's rank + 1 otherwise.
        requires_grad: Whether gradients are computed for it.
        data: The array, kept only while a function retains it for backward (else None).
        grad_var: The gradient as a :class:`Variable`, or None.
        name: An optional name, shown in reprs and graph dumps.
        shape: The array's shape, kept even when ``data`` is not.
        dtype: The array's dtype, kept even when ``data`` is not.
    """

    # Class-level defaults instead of __slots__: the hot path creates a node with four stores
    # and no __init__ frame (see FunctionNode.apply); CPython 3.11 keeps attributes inline.
    creator_node: Optional[function_node.FunctionNode] = None
    rank: int = 0
    requires_grad: bool = True
    data: Optional[numpy.ndarray] = None
    grad_var: Optional[Variable] = None
    name: Optional[str] = None
    shape: Any = None  # a tuple of ints, or None while the variable has no array
    dtype: Any = None  # a numpy.dtype, or None likewise
    retain_grad_flag: bool = False
    _loss_scale: Optional[float] = None
    _grad_hooks: Optional[list[Any]] = None  # called with each gradient for this node
    # Chainer's private name of the rank, which its tests set directly.
    _rank = property(lambda self: self.rank, lambda self, value: setattr(self, 'rank', value))
    _requires_grad = property(lambda self: self.requires_grad,
                              lambda self, value: setattr(self, 'requires_grad', value))
    _post_hooks: Optional[list[Any]] = None  # called after a gradient reaches a leaf's grad

    def __init__(self, shape: Any = None, dtype: Any = None, requires_grad: bool = True,
                 name: Optional[str] = None, creator_node: Any = None, rank: int = 0) -> None:
        self.creator_node = creator_node
        self.rank = rank
        self.requires_grad = requires_grad
        self.data = None
        self.grad_var = None
        self.name = name
        self.shape = shape
        self.dtype = dtype
        self.retain_grad_flag = False
        self._loss_scale = None

    @property
    def creator(self) -> Any:
        """The creator as users wrote it: the old-style Function if it was one."""
        node = self.creator_node
        if node is None:
            return None
        f = node._function
        return node if f is None else f

    @property
    def grad(self) -> Optional[numpy.ndarray]:
        """The gradient array, or None."""
        gv = self.grad_var
        return None if gv is None else gv._data

    @property
    def label(self) -> str:
        """A short text for graph dumps: shape and dtype."""
        if self.shape == ():
            return str(self.dtype)
        return '(%s), %s' % (', '.join(map(str, self.shape)), self.dtype)

    def set_creator_node(self, creator_node: function_node.FunctionNode) -> None:
        """Sets the creator and derives the rank from it."""
        self.creator_node = creator_node
        self.rank = creator_node.rank + 1

    def retain_data(self, data: Optional[numpy.ndarray]) -> None:
        """Keeps ``data`` on the node so backward can read it after its Variable is gone."""
        self.data = data

    def unchain(self) -> None:
        """Forgets the creator: backward stops at this node."""
        self.creator_node = None

    def get_variable(self) -> 'Variable':
        """A Variable over this node and its retained data (for backward methods)."""
        v = _new_variable(self.data, self, self.requires_grad)
        return v


def _new_variable(data: Any, node: Optional[VariableNode], requires_grad: bool) -> Variable:
    # The hot path's constructor: no validation, the caller guarantees the types.
    v = _object_new(Variable)
    v._data = data
    v._node = node
    v._requires_grad = requires_grad
    return v


_object_new = object.__new__


def _imported(name: str) -> Any:
    # A module that imports this one, so cannot be imported at its top: found in sys.modules
    # after the first call (an import statement in a method costs ~4,000 instructions a call).
    module = sys.modules.get(name)
    return importlib.import_module(name) if module is None else module


def _is_array(data: Any) -> bool:
    # A NumPy array, or a GPU (CuPy) array; CuPy is loaded when one first arrives.
    if isinstance(data, _ndarray):
        return True
    cuda = _imported('chainlite.backends.cuda')
    if not cuda._gpu_types and type(data).__module__.startswith('cupy'):
        cuda._load()
    return cuda.is_gpu_array(data)


def _check_array(data: Any, where: str) -> None:
    if data is not None and not _is_array(data):
        raise TypeError(
            '%s: numpy.ndarray (or None) is expected. Actual: %s. Wrap Python numbers and '
            'lists with numpy.asarray(value, dtype=numpy.float32) first.'
            % (where, type(data)))


def _check_grad(data: Any, grad: Any, where: str) -> None:
    if grad is None:
        return
    if not _is_array(grad):
        raise TypeError('%s: Type of grad is invalid:\nExpected: Any of (%s,)\nActual: %s'
                        % (where, _ndarray, type(grad)))
    if data is None:
        return
    if type(grad) is not type(data):
        raise TypeError('%s: data and grad are on different devices\ngrad: %s != data: %s'
                        % (where, type(grad), type(data)))
    if grad.dtype != data.dtype:
        raise TypeError('%s: Dtype of data and grad mismatch\ngrad: %s != data: %s'
                        % (where, grad.dtype, data.dtype))
    if grad.shape != data.shape:
        raise ValueError('%s: Shape of data and grad mismatch\ngrad: %s != data: %s'
                         % (where, grad.shape, data.shape))


class Variable:
    """An array with a gradient and a link to the function that computed it.

    Args:
        data: The initial array (``numpy.ndarray``), or None for an empty variable.
        name: An optional name, shown in ``repr`` and graph dumps.
        grad: An initial gradient array (same shape and dtype as ``data``).
        requires_grad: Whether backward computes a gradient for this variable.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> x = chainlite.Variable(np.array([0.0, 1.0], np.float32))
        >>> y = F.sum(x * x)
        >>> y.backward()
        >>> x.grad
        array([0., 2.], dtype=float32)
    """

    # No __slots__: like Chainer's, a Variable takes user attributes, and CPython 3.11 keeps
    # instance attributes inline anyway. The defaults below spare the hot path two stores.
    _node: Optional[VariableNode] = None
    _requires_grad: bool = True
    # The array (Optional[numpy.ndarray]). Typed Any: shape, dtype and the other array
    # properties read it unchecked, as Chainer's do (a Variable(None) raises AttributeError).
    _data: Any
    _device: Any = None  # the device given to to_device (None: the data's own device)
    # NumPy defers to our reflected operators (ndarray + Variable -> Variable.__radd__).
    __array_priority__ = 200
    # Chainer's flag for a ChainerX-backed variable, which chainlite never has.
    _has_chainerx_array = False

    def __init__(self, data: Optional[numpy.ndarray] = None, *, name: Optional[str] = None,
                 grad: Optional[numpy.ndarray] = None, requires_grad: bool = True,
                 **kwargs: Any) -> None:
        if kwargs:
            if 'volatile' in kwargs:
                raise ValueError('volatile argument is not supported anymore. '
                                 'Use chainlite.no_backprop_mode() instead.')
            raise TypeError('Variable() got unexpected keyword arguments %s' % sorted(kwargs))
        _check_array(data, 'Variable(data=...)')
        self._data = data
        self._requires_grad = requires_grad
        if data is None:
            self._node = VariableNode(None, None, requires_grad, name)
        else:
            self._node = VariableNode(data.shape, data.dtype, requires_grad, name)
        if grad is not None:
            self.grad = grad

    @staticmethod
    def _init_unchecked(data: Any = None, device: Any = None, name: Optional[str] = None,
                        grad: Any = None, grad_valid: bool = True, requires_grad: bool = True,
                        is_chainerx_array: Any = None, node: Any = None,
                        layout: Any = None) -> 'Variable':
        """Chainer's constructor without validation, for callers that know their arguments.

        ``data`` and ``grad`` must be arrays (or None); ``node`` an existing
        :class:`VariableNode` to share, if any. ``device``, ``grad_valid``,
        ``is_chainerx_array`` and ``layout`` are accepted for Chainer's signature (a NumPy
        array knows its device; there are no ChainerX arrays nor other layouts here).
        """
        if is_chainerx_array or layout is not None:
            raise ValueError('Variable._init_unchecked: ChainerX arrays and memory layouts '
                             'are not supported by chainlite')
        v = _new_variable(data, node, requires_grad)
        node = v.node  # (made here if not given)
        if name is not None:
            node.name = name
        if grad is not None:
            node.grad_var = _new_variable(grad, None, True)
        return v

    # -- the array -----------------------------------------------------------------------------

    @property
    def array(self) -> numpy.ndarray:
        """The underlying array (also available as ``data``).

        None only for a variable made without data (an uninitialised parameter); the
        annotation says ``numpy.ndarray`` so that ``loss.array.item()`` type-checks without a
        None test in every script (Chainer's says ``Optional``).
        """
        return self._data

    @array.setter
    def array(self, d: Optional[numpy.ndarray]) -> None:
        _check_array(d, 'Variable.array')
        self._data = d
        node = self._node
        if node is not None:
            if node.data is not None:
                node.data = d
            if d is not None:
                node.shape, node.dtype = d.shape, d.dtype

    data = array

    @property
    def node(self) -> VariableNode:
        """The graph-side :class:`VariableNode` (created on first use)."""
        node = self._node
        if node is None:
            node = self._node = self._make_node()
        return node

    def _make_node(self) -> VariableNode:
        # VariableNode(shape, dtype, requires_grad) with the class defaults for the rest, and
        # no __init__ frame: every leaf and seed gets its node here on first use.
        node = _object_new(VariableNode)
        d = self._data
        if d is not None:
            node.shape = d.shape
            node.dtype = d.dtype
        if not self._requires_grad:
            node.requires_grad = False
        self._node = node
        return node

    @property
    def shape(self) -> tuple[int, ...]:
        """The array's shape."""
        return self._data.shape

    @property
    def ndim(self) -> int:
        """The array's number of dimensions."""
        return self._data.ndim

    @property
    def size(self) -> int:
        """The array's number of elements."""
        return self._data.size

    @property
    def dtype(self) -> numpy.dtype:
        """The array's dtype."""
        return self._data.dtype

    @property
    def T(self) -> 'Variable':
        """The transpose (a differentiable view)."""
        return _imported('chainlite.functions.array.transpose').transpose(self)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError('len() of a 0-dimensional Variable')
        return len(self._data)

    @property
    def xp(self) -> Any:
        """The array module of the data (``numpy``, or ``cupy`` on a GPU)."""
        from chainlite import backend
        return backend.get_array_module(self._data)

    @property
    def device(self) -> backend.Device:
        """The device holding the data: the one last given to :meth:`to_device`, if any.

        As in Chainer, a variable remembers the device it was sent to, even without data (an
        uninitialized parameter), so a :class:`~chainlite.backend.Device` subclass of the
        user's is reported as such. Otherwise it is the data's device (the CPU).
        """
        if self._device is not None:
            return self._device
        from chainlite import backend
        return backend.get_device_from_array(self._data)

    def item(self) -> Any:
        """The value of a one-element variable as a Python scalar."""
        return self._data.item()

    # -- graph ---------------------------------------------------------------------------------

    @property
    def creator(self) -> Any:
        """The function that created this variable (the old-style Function if it was one)."""
        node = self._node
        return None if node is None else node.creator

    @creator.setter
    def creator(self, func: Any) -> None:
        self.creator_node = getattr(func, 'node', func)

    @property
    def creator_node(self) -> Optional[function_node.FunctionNode]:
        """The :class:`~chainlite.FunctionNode` that created this variable, or None."""
        node = self._node
        return None if node is None else node.creator_node

    @creator_node.setter
    def creator_node(self, func: Optional[function_node.FunctionNode]) -> None:
        if func is None:
            # As Chainer: the rank stays (it orders this node among the others).
            self.node.creator_node = None
        else:
            self.node.set_creator_node(func)

    def set_creator(self, gen_func: function.Function | function_node.FunctionNode) -> None:
        """Sets the creator (Chainer's method form of the ``creator`` setter)."""
        self.creator = gen_func

    def set_creator_node(self, fnode: Optional[function_node.FunctionNode]) -> None:
        """Sets the creator node (Chainer's method form of ``creator_node``)."""
        self.creator_node = fnode

    @property
    def rank(self) -> int:
        """Depth in the graph: 0 for a leaf, creator's rank + 1 otherwise."""
        node = self._node
        return 0 if node is None else node.rank

    @property
    def name(self) -> Optional[str]:
        """An optional name."""
        node = self._node
        return None if node is None else node.name

    @name.setter
    def name(self, n: Optional[str]) -> None:
        self.node.name = n

    @property
    def label(self) -> str:
        """A short text for graph dumps: shape and dtype."""
        if self._data is None:
            return 'None'
        return self.node.label

    @property
    def requires_grad(self) -> bool:
        """Whether backward computes a gradient for this variable."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._requires_grad = value
        self.node.requires_grad = value

    def retain_data(self) -> None:
        """Keeps the array on the graph node (as functions do for what backward needs)."""
        self.node.data = self._data

    # -- gradients -----------------------------------------------------------------------------

    @property
    def grad(self) -> Optional[numpy.ndarray]:
        """The gradient array, or None. Setting it checks shape and dtype against the data."""
        node = self._node
        if node is None:
            return None
        gv = node.grad_var
        return None if gv is None else gv._data

    @grad.setter
    def grad(self, g: Optional[numpy.ndarray]) -> None:
        _check_grad(self._data, g, 'Variable.grad')
        self._set_grad_var(None if g is None else _new_variable(g, None, True))

    @property
    def _grad(self) -> Optional[numpy.ndarray]:
        # Chainer's private name of the gradient array (read without Parameter's check).
        node = self._node
        gv = None if node is None else node.grad_var
        return None if gv is None else gv._data

    @property
    def grad_var(self) -> Optional['Variable']:
        """The gradient as a Variable (it has a graph after double backprop), or None."""
        node = self._node
        return None if node is None else node.grad_var

    @grad_var.setter
    def grad_var(self, g: Optional['Variable']) -> None:
        if g is not None:
            _check_grad(self._data, g._data, 'Variable.grad_var')
        self._set_grad_var(g)

    def _set_grad_var(self, g: Optional['Variable']) -> None:
        # Parameter overrides this to note that its NaN-initialised grad was replaced.
        self.node.grad_var = g

    @property
    def _loss_scale(self) -> Optional[float]:
        # Chainer keeps the loss scale of the last backward on the Variable, where optimizers
        # (and Chainer's tests) read and set it; here it lives on the node, with the gradient.
        node = self._node
        return None if node is None else node._loss_scale

    @_loss_scale.setter
    def _loss_scale(self, value: Optional[float]) -> None:
        self.node._loss_scale = value

    def cleargrad(self) -> None:
        """Sets the gradient to None (the next backward writes a fresh one)."""
        self._set_grad_var(None)

    def zerograd(self) -> None:
        """Fills the gradient with zeros. Deprecated in Chainer: use :meth:`cleargrad`."""
        warnings.warn('Variable.zerograd is deprecated. Use Variable.cleargrad instead.',
                      DeprecationWarning, stacklevel=2)
        if self._data is None:
            return
        gv = self.grad_var
        if gv is None:
            self._set_grad_var(_new_variable(numpy.zeros_like(self._data), None, False))
        else:
            # Zeros have no history: the gradient leaves any graph it was part of.
            gv.unchain()
            gv.array.fill(0)  # (a gradient has data)
            self._set_grad_var(gv)

    def addgrad(self, var: 'Variable') -> None:
        """Adds the gradient of ``var`` to this variable's gradient.

        Args:
            var: A Variable of the same shape and dtype whose ``grad`` is added.
        """
        src = var.grad_var
        if src is None:
            return
        if self._data is None and isinstance(self, Parameter):
            self.initialize(src.shape)
        g = src._data
        if g.__class__ is not _ndarray or self._data.__class__ is not _ndarray:
            # As Chainer: a gradient on another device is sent to this variable's first.
            device = _imported('chainlite.backend').get_device_from_array(self._data)
            if not device.is_array_supported(g):
                g = device.send(g)
        _check_grad(self._data, g, 'Variable.addgrad')
        dst = self.grad_var
        self._set_grad_var(_new_variable(g.copy(), None, False) if dst is None else
                           _new_variable(dst._data + g, None, False))

    def retain_grad(self) -> None:
        """Keeps this (intermediate) variable's gradient after backward.

        Beyond Chainer, whose only switch is ``backward(retain_grad=True)`` for every variable.
        """
        _enable_intermediate_grad_checks()
        self.node.retain_grad_flag = True

    def register_hook(self, hook: Callable[[Variable], Any]) -> _HookHandle:
        """Calls ``hook(grad)`` with each gradient backward computes for this variable.

        Beyond Chainer (PyTorch's ``Tensor.register_hook``). The hook gets the gradient as a
        Variable, before it reaches this variable's creator (or, for a leaf, before it is
        added to ``grad``); if it returns a Variable or an array, that replaces the gradient.

        Args:
            hook: A callable taking a Variable.

        Returns:
            A handle whose ``remove()`` unregisters the hook.

        Example:
            >>> import numpy as np, chainlite
            >>> x = chainlite.Variable(np.array([1.0, 2.0]))
            >>> handle = x.register_hook(lambda g: g * 10)
            >>> y = chainlite.functions.sum(x * 3)
            >>> y.backward()
            >>> x.grad
            array([30., 30.])
        """
        _enable_intermediate_grad_checks()
        node = self.node
        if node._grad_hooks is None:
            node._grad_hooks = []
        node._grad_hooks.append(hook)
        return _HookHandle(node._grad_hooks, hook)

    def backward(self, retain_grad: bool = False, enable_double_backprop: bool = False,
                 loss_scale: Optional[float] = None) -> None:
        """Computes gradients of this variable with respect to every leaf that needs one.

        The initial gradient is ``self.grad``; for a one-element variable whose grad is None
        it is 1. Leaf gradients are *added* to existing ones: call ``cleargrad`` (or
        ``Link.cleargrads``) between iterations.

        Args:
            retain_grad: Keep the gradients of intermediate variables too.
            enable_double_backprop: Record the backward computation, so that the gradients
                are themselves differentiable.
            loss_scale: Multiply the default initial gradient 1 by this factor (for float16
                training; as in Chainer, a ``grad`` set by the user is taken as it is); the
                leaves remember it and optimizers divide it out again.

        Raises:
            ValueError: If the variable has more than one element and no ``grad`` was set.
        """
        _imported('chainlite.backprop').backward_from_variable(
            self, retain_grad, enable_double_backprop, loss_scale)

    # -- graph surgery and copies --------------------------------------------------------------

    def unchain(self) -> None:
        """Forgets the creator: backward stops at this variable."""
        node = self._node
        if node is not None:
            node.creator_node = None

    def unchain_backward(self) -> None:
        """Removes every reference from this variable back through the graph.

        Walks the graph iteratively (no recursion), cutting each function from its inputs and
        outputs so that the memory of the whole history can be released.
        """
        node = self._node
        if node is None:
            return
        stack = [node]
        while stack:
            n = stack.pop()
            func = n.creator_node
            if func is None:
                continue
            n.creator_node = None
            stack.extend(x for x in func.inputs or () if x.creator_node is not None)
            func.unchain()

    def detach(self) -> 'Variable':
        """A new Variable sharing the array but with no creator and no gradient (beyond Chainer).

        Returns:
            A leaf Variable with ``requires_grad=False``.
        """
        return Variable(self._data, requires_grad=False)

    def copydata(self, var: 'Variable') -> None:
        """Copies the array of ``var`` into this variable's array (in place).

        An uninitialised Parameter on either side is first initialised with the other side's
        shape; if both are uninitialised nothing happens.
        """
        src, dst = var._data, self._data
        if src is None:
            if dst is None:
                return
            if not isinstance(var, Parameter):
                raise ValueError('copydata: the source variable has no data')
            var.initialize(dst.shape)
            src = var._data
        elif dst is None:
            if isinstance(self, Parameter):
                self.initialize(src.shape)
            else:
                self.array = src.copy()
                return
            dst = self._data
        # (both initialised by now; across devices if need be)
        _imported('chainlite.backend').copyto(dst, src)

    def to_cpu(self) -> 'Variable':
        """Moves the data and the gradient to the CPU (NumPy arrays). Returns self."""
        return self.to_device(_imported('chainlite.backend').CpuDevice())

    def to_device(self, device: DeviceSpec) -> Variable:
        """Moves the data (and grad) to ``device`` (see :func:`chainlite.get_device`)."""
        from chainlite import backend
        dev = backend.get_device(device)
        if self._data is not None:
            self._data = dev.send(self._data)
        gv = self.grad_var
        if gv is not None and gv._data is not None:
            gv._data = dev.send(gv._data)
        self._device = dev
        return self

    def to_gpu(self, device: Any = None) -> Variable:
        """Moves the data and the gradient to a GPU (CuPy arrays). Returns self.

        Args:
            device: The GPU's id or ``cupy.cuda.Device``; None for the current one.

        Raises:
            RuntimeError: No GPU can be used (the message says why).
        """
        from chainlite.backends import cuda
        cp = cuda._cupy()
        dev = cp.cuda.Device() if device is None else cuda._get_device_or_current(device)
        return self.to_device(_imported('chainlite.backend').GpuDevice(dev))

    # -- shape helpers (differentiable) --------------------------------------------------------

    def reshape(self, *shape: Any) -> Variable:
        """Differentiable reshape; accepts ``reshape(2, 3)`` or ``reshape((2, 3))``."""
        dims: Any = shape
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            dims = shape[0]
        return _imported('chainlite.functions.array.reshape').reshape(self, tuple(dims))

    def mean(self, axis: Any = None, *, weights: Any = None,
             keepdims: bool = False) -> 'Variable':
        """Differentiable (weighted) mean over ``axis``, as Chainer's ``Variable.mean``.

        See :func:`chainlite.functions.average`.
        """
        return _imported('chainlite.functions.math.average').average(self, axis, weights,
                                                                     keepdims)

    def transpose(self, *axes: Any) -> Variable:
        """Differentiable transpose; accepts ``transpose(1, 0)`` or ``transpose((1, 0))``."""
        order: Any = axes
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            order = axes[0]
        return _imported('chainlite.functions.array.transpose').transpose(self, order or None)

    def __getitem__(self, slices: Any) -> Variable:
        return _imported('chainlite.functions.array.get_item').get_item(self, slices)

    # -- text ----------------------------------------------------------------------------------

    def __repr__(self) -> str:
        return _format(self, ', ', True)

    def __str__(self) -> str:
        return _format(self, ' ', False)

    def summary(self) -> str:
        """A one-line name: ``<variable NAME>``, or ``<variable at 0x...>`` when unnamed."""
        if self.name:
            return '<variable %s>' % self.name
        return '<variable at 0x%x>' % id(self)

    def debug_print(self) -> str:
        """A multi-line description: summary, device, shape, dtype, statistics, gradient."""
        d = self._data
        lines = [self.summary()]
        if d is None:
            lines += ['- device: None', '- backend: None', '- shape: None', '- dtype: None',
                      '- statistics: None']
        else:
            where = 'CPU' if isinstance(d, _ndarray) else '<CUDA Device %d>' % d.device.id
            lines += ['- device: ' + where, '- backend: %s' % type(d), '- shape: %s' % (d.shape,),
                      '- dtype: %s' % d.dtype, '- statistics: ' + _stats(d)]
        g = self._grad
        lines.append('- grad: None' if g is None else '- grad: ' + _stats(g, True))
        return '\n'.join(lines)

    # Variables are not values: comparing or hashing them would silently compare identities.
    def __eq__(self, other: object) -> NoReturn:
        raise _no_operator('==')

    def __ne__(self, other: object) -> NoReturn:
        raise _no_operator('!=')

    def __lt__(self, other: Any) -> NoReturn:
        raise _no_operator('<')

    def __le__(self, other: Any) -> NoReturn:
        raise _no_operator('<=')

    def __gt__(self, other: Any) -> NoReturn:
        raise _no_operator('>')

    def __ge__(self, other: Any) -> NoReturn:
        raise _no_operator('>=')

    def __bool__(self) -> NoReturn:
        raise TypeError('Variables cannot be evaluated as Python bool. '
                        'Use bool(x.array) or x.item() instead.')

    def __pos__(self) -> 'Variable':
        return self

    # Unhashable, like Chainer's (typeshed spells it the same way for list and dict).
    __hash__ = None  # type: ignore[assignment]

    if TYPE_CHECKING:
        # The arithmetic operators are installed at import time by
        # chainlite.functions.math.basic_math (which needs chainlite.functions, a higher
        # layer); these declarations tell type checkers that they return Variables.
        def __add__(self, other: Any) -> Variable: ...
        def __radd__(self, other: Any) -> Variable: ...
        def __sub__(self, other: Any) -> Variable: ...
        def __rsub__(self, other: Any) -> Variable: ...
        def __mul__(self, other: Any) -> Variable: ...
        def __rmul__(self, other: Any) -> Variable: ...
        def __truediv__(self, other: Any) -> Variable: ...
        def __rtruediv__(self, other: Any) -> Variable: ...
        def __floordiv__(self, other: Any) -> Variable: ...
        def __rfloordiv__(self, other: Any) -> Variable: ...
        def __pow__(self, other: Any) -> Variable: ...
        def __rpow__(self, other: Any) -> Variable: ...
        def __matmul__(self, other: Any) -> Variable: ...
        def __rmatmul__(self, other: Any) -> Variable: ...
        def __neg__(self) -> Variable: ...
        def __abs__(self) -> Variable: ...


class _HookHandle:
    """Returned by ``register_hook``: ``remove()`` unregisters the hook."""

    def __init__(self, hooks: list[Any], hook: Any) -> None:
        self._hooks = hooks
        self._hook = hook

    def remove(self) -> None:
        """Unregisters the hook (again is harmless)."""
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def _run_grad_hooks(node: VariableNode, g: 'Variable') -> 'Variable':
    # A hook may return a replacement gradient (a Variable or an array) or None.
    for hook in list(node._grad_hooks or ()):
        out = hook(g)
        if out is not None:
            g = out if isinstance(out, Variable) else _new_variable(out, None, False)
    return g


def _no_operator(op: str) -> TypeError:
    return TypeError('Variables do not support %s operator. You could use `array` attribute '
                     'instead.' % op)


def _stats(a: numpy.ndarray, zero_as_0: bool = False) -> str:
    if zero_as_0 and a.size and not a.any():
        return '0'
    return 'mean={0:.8f}, std={1:.8f}'.format(float(a.mean()), float(a.std()))


def _format(v: Variable, separator: str, show_shape: bool) -> str:
    prefix = 'variable' if not v.name else 'variable ' + v.name
    d = v._data
    if d is None:
        return prefix + '(None)'
    host = d if isinstance(d, _ndarray) else d.get()
    text = numpy.array2string(host, separator=separator, prefix=prefix + '(')
    if show_shape and d.size == 0 and d.shape != (0,):
        return '%s(%s, shape=%s)' % (prefix, text, d.shape)
    return '%s(%s)' % (prefix, text)


def variable_repr(var: Variable) -> str:
    """Returns ``repr(var)``: ``variable NAME([...])`` with items separated by commas.

    Args:
        var: The Variable.

    Returns:
        The text; an empty array of a shape other than ``(0,)`` also shows its shape.

    Example:
        >>> import numpy as np
        >>> variable_repr(Variable(np.array([1.0, 2.0]), name='x'))
        'variable x([1., 2.])'
    """
    return _format(var, ', ', True)


def variable_str(var: Variable) -> str:
    """Returns ``str(var)``: ``variable NAME([...])`` with items separated by spaces.

    Args:
        var: The Variable.

    Returns:
        The text.

    Example:
        >>> import numpy as np
        >>> variable_str(Variable(np.array([1.0, 2.0])))
        'variable([1. 2.])'
    """
    return _format(var, ' ', False)


def as_variable(obj: Variable | numpy.ndarray) -> Variable:
    """Returns ``obj`` if it is a Variable, else a Variable with ``requires_grad=False``.

    Args:
        obj: A Variable or an array.

    Returns:
        A Variable.
    """
    if isinstance(obj, Variable):
        return obj
    return Variable(obj, requires_grad=False)


@overload
def as_array(obj: None) -> None: ...


@overload
def as_array(obj: Variable | numpy.ndarray) -> numpy.ndarray: ...


def as_array(obj: Variable | numpy.ndarray | None) -> numpy.ndarray | None:
    """Returns the array of a Variable, or ``obj`` itself if it is already an array (or None)."""
    if isinstance(obj, Variable):
        return obj._data
    return obj


def _generate_array(initializer: Any, shape: tuple[int, ...], device: Any = None) -> Any:
    # An initial array (Parameter(array) keeps it as its initializer) or an initializer; on
    # the device given (default: the CPU, or the initial array's device).
    if _is_array(initializer):
        if initializer.shape != tuple(shape):
            raise ValueError('Parameter: the initial array has shape %s, expected %s'
                             % (initializer.shape, tuple(shape)))
        dtype = configuration.get_dtype(getattr(initializer, 'dtype', None))
        array = initializer.astype(dtype, copy=True)
        return array if device is None else device.send(array)
    return initializers.generate_array(initializer, shape,
                                       numpy if device is None else device.xp)


# Variable's own array setter, which Parameter's extends to the copies sharing its slot.
_set_array: Callable[[Variable, Optional[numpy.ndarray]], None] = \
    vars(Variable)['array'].fset


class Parameter(Variable):
    """A learnable Variable, initialised eagerly or lazily (when its shape is first known).

    Args:
        initializer: An array (used as the data), a scalar (filled everywhere), a callable
            initializer from :mod:`chainlite.initializers`, or None (NaN until set).
        shape: The shape; if None (and ``initializer`` is not an array), the parameter stays
            uninitialised until :meth:`initialize` is called (links do this at their first
            forward).
        name: An optional name.

    As in Chainer, the gradient of a parameter initialised from an initializer is filled with
    NaN until ``cleargrad()`` (or ``Link.cleargrads()``) is called, so a forgotten
    ``cleargrads`` shows up as NaN instead of silently summed gradients; optimizers then
    explain the cause.

    Example:
        >>> import numpy as np, chainlite
        >>> p = chainlite.Parameter(np.zeros((2, 3), np.float32))
        >>> p.shape, p.grad is None
        ((2, 3), True)
        >>> q = chainlite.Parameter(0.5, (2,))
        >>> q.array, q.grad
        (array([0.5, 0.5], dtype=float32), array([nan, nan], dtype=float32))
    """


    def __init__(self, initializer: InitializerSpec = None, shape: Optional[ShapeSpec] = None,
                 name: Optional[str] = None) -> None:
        if initializer is None:
            initializer = initializers.NaN()
        elif isinstance(initializer, (int, float, numpy.number)) and not isinstance(
                initializer, bool):
            initializer = initializers.Constant(initializer)
        self.initializer = initializer
        self.update_rule: Optional[optimizer.UpdateRule] = None
        # The gradient that initialize() gives: as in Chainer, only a parameter created
        # uninitialised has one (NaN until cleargrad/zerograd); one created with an array or
        # a shape gets None when it is initialised again.
        self._grad_init: Optional[str] = None
        self._grad_never_cleared = False
        if _is_array(initializer):
            super().__init__(cast(Any, initializer), name=name)
        elif shape is None:
            super().__init__(None, name=name)
            self._grad_init = 'nan'
        else:
            if isinstance(shape, (int, numpy.integer)):
                shape = (shape,)
            super().__init__(_generate_array(initializer, tuple(shape)), name=name)
            self._init_grad('nan')

    def _init_grad(self, mode: Optional[str]) -> None:
        if mode is None:
            g = None
        else:
            g = numpy.full_like(self._data, numpy.nan if mode == 'nan' else 0)
        self.node.grad_var = None if g is None else _new_variable(g, None, False)
        self._grad_never_cleared = mode == 'nan'

    def _set_grad_var(self, g: Optional[Variable]) -> None:
        self.node.grad_var = g
        self._grad_never_cleared = False

    @property
    def grad(self) -> Optional[numpy.ndarray]:
        """The gradient array, or None.

        As in Chainer, reading it raises ``RuntimeError`` while the parameter is
        uninitialised and its gradient was never cleared (``cleargrad``), zeroed or set: it
        has no defined value yet.
        """
        gv = self.node.grad_var
        if gv is None:
            if self._data is None and self._grad_init == 'nan':
                raise RuntimeError(
                    'Cannot retrieve the gradient of parameter %s: it is uninitialised and '
                    'its gradient was never set. Call cleargrad() (or Link.cleargrads()) '
                    'first, or initialize the parameter.' % (self.name or '(unnamed)'))
            return None
        return gv._data

    @grad.setter
    def grad(self, g: Optional[numpy.ndarray]) -> None:
        _check_grad(self._data, g, 'Parameter.grad')
        self._set_grad_var(None if g is None else _new_variable(g, None, True))

    def check_grad_for_update(self, name: Optional[str] = None) -> None:
        """Raises a clear error if the gradient holds NaN because it was never cleared.

        Optimizers call it before updating. Chainer fills a new parameter's gradient with NaN
        and ``backward`` *adds* to it, so forgetting ``model.cleargrads()`` before the first
        ``loss.backward()`` silently turns every parameter into NaN; here it is explained.

        Args:
            name: The parameter's path in its model (e.g. ``/l1/W``), for the message.

        Raises:
            RuntimeError: If the gradient contains NaN and was never cleared or set.
        """
        g = self.grad
        if not self._grad_never_cleared or g is None or not numpy.isnan(g).any():
            return
        raise RuntimeError(
            'The gradient of parameter %s is NaN because it was never cleared: a new '
            'parameter\'s gradient starts as NaN and backward() adds to it. Call '
            'model.cleargrads() before loss.backward(), or let the optimizer do it with '
            'optimizer.update(lossfun, *args).' % (name or self.name or '(unnamed)'))

    def register_post_accumulate_grad_hook(self, hook: Callable[[_ParameterWithGrad], Any]
                                           ) -> _HookHandle:
        """Calls ``hook(param)`` after backward has accumulated a gradient into ``grad``.

        Beyond Chainer (PyTorch's hook of the same name): e.g. to update or clip a parameter
        as soon as its gradient is ready.

        Args:
            hook: A callable taking this Parameter.

        Returns:
            A handle whose ``remove()`` unregisters the hook.
        """
        node = self.node
        if node._post_hooks is None:
            node._post_hooks = []
        ref = weakref.ref(self)
        entry = (hook, ref)
        node._post_hooks.append(entry)
        return _HookHandle(node._post_hooks, entry)

    def update(self) -> None:
        """Updates the parameter with its update rule (set by an optimizer's ``setup``)."""
        if self.update_rule is not None:
            self.update_rule.update(self)

    @property
    def is_initialized(self) -> bool:
        """Whether the data has been created."""
        return self._data is not None

    @property
    def dtype(self) -> numpy.dtype:
        """The dtype of the data, or the initializer's (or config's) dtype before that."""
        if self._data is not None:
            return self._data.dtype
        initializer = self.initializer
        if not hasattr(initializer, 'dtype'):
            # A plain callable: the dtype is decided by the config when it is initialised.
            raise RuntimeError(
                'The dtype of parameter %s is not determined yet: it is uninitialised and its '
                'initializer %r does not give a dtype' % (self.name or '(unnamed)', initializer))
        return configuration.get_dtype(initializer.dtype)

    def initialize(self, shape: ShapeSpec) -> None:
        """Creates the data of the given shape with the initializer, and its gradient.

        For a parameter created uninitialised, the gradient is NaN-filled, or None if
        :meth:`cleargrad` was called before, or zeros if :meth:`zerograd` was; a parameter
        created with an array or a shape gets None, as in Chainer.

        Args:
            shape: The shape of the parameter.
        """
        dims = (shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
        dev = self._device
        if dev is None or dev.xp is numpy or dev.xp is None:
            self.array = _generate_array(self.initializer, dims)  # copies get it too
        else:  # a parameter sent to a GPU before it had data: drawn there
            with dev:  # (its gradient too: CuPy's *_like allocate on the current GPU)
                self.array = _generate_array(self.initializer, dims, dev)
                self._init_grad(self._grad_init)
            return
        self._init_grad(self._grad_init)

    @property
    def array(self) -> numpy.ndarray:
        """The underlying array (also available as ``data``).

        Copies made by ``copy.copy`` (and so by ``Link.copy()``'s share mode) hold one array
        slot with the original, as in Chainer: assigning the array of one of them, or
        initialising it, assigns it in all (their gradients stay their own).
        """
        return self._data

    @array.setter
    def array(self, d: Optional[numpy.ndarray]) -> None:
        _set_array(self, d)
        copies = self.__dict__.get('_copies')
        if copies is not None:
            for ref in copies:
                p = ref()
                if p is not None and p is not self:
                    _set_array(p, d)

    data = array

    def cleargrad(self) -> None:
        """Sets the gradient to None (also the gradient a lazy parameter will start with)."""
        # _set_grad_var(None), inline: Link.cleargrads runs this for every parameter at
        # every step.
        (self._node or self.node).grad_var = None
        self._grad_never_cleared = False
        if self._data is None:
            self._grad_init = None

    def zerograd(self) -> None:
        """Fills the gradient with zeros (deprecated in Chainer: use :meth:`cleargrad`)."""
        warnings.warn('Parameter.zerograd is deprecated. Use Parameter.cleargrad instead.',
                      DeprecationWarning, stacklevel=2)
        if self._data is None:
            self._grad_init = 'zero'
            return
        g = self.grad
        if g is None:
            g = numpy.zeros_like(self._data)
        else:
            g.fill(0)
        self._set_grad_var(_new_variable(g, None, False))

    def __getstate__(self) -> dict:
        # Deep copies and pickles share nothing with the original (see __copy__), and, as
        # in Chainer (which rebuilds them as uninitialised parameters), initialising them
        # again gives a NaN gradient. (An uninitialised one keeps its state: whether its
        # gradient may be read, and is None, after cleargrad.)
        state = self.__dict__.copy()
        state.pop('_copies', None)
        if self._data is not None:
            state['_grad_init'] = 'nan'
        return state

    def __copy__(self) -> 'Parameter':
        # A copy shares the arrays but not the graph node (so grads are set independently).
        p = Parameter.__new__(Parameter)
        for k in ('_data', '_requires_grad', 'initializer', 'update_rule', '_grad_init',
                  '_grad_never_cleared', '_device'):
            setattr(p, k, getattr(self, k))
        node = self.node
        p._node = VariableNode(node.shape, node.dtype, node.requires_grad, node.name)
        p._node.grad_var = node.grad_var
        # The two share the array: whichever is (re)initialised gives the other its new one.
        copies = self.__dict__.get('_copies')
        if copies is None:
            copies = self._copies = [weakref.ref(self)]
        else:
            copies[:] = [r for r in copies if r() is not None]
        copies.append(weakref.ref(p))
        p._copies = copies
        return p


if TYPE_CHECKING:
    class _ParameterWithGrad(Parameter):
        """A Parameter as a post-accumulate-grad hook gets it: its gradient is an array.

        For type checkers only (at run time the hook gets the Parameter itself), so that
        ``p.register_post_accumulate_grad_hook(lambda q: q.grad.clip(-1, 1, out=q.grad))``
        needs no None test: backward has just stored a gradient.
        """

        @property
        def grad(self) -> numpy.ndarray: ...

        @grad.setter
        def grad(self, g: Optional[numpy.ndarray]) -> None: ...
