"""Links: building blocks with parameters (``Link``), and their containers (``Chain``,
``ChainList``, ``Sequential``).

Parameters, persistent values and child links are registered in one place,
``Link.__setattr__`` inside ``init_scope()``, in declaration order; everything else (paths,
copies, serialization, gradients) walks those registries. The walks are loops over the
tree, never recursion over the computational graph.
"""
from __future__ import annotations

import contextlib
import copy
import inspect
import warnings
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Self

import numpy

from chainlite import backend
from chainlite import device_resident
from chainlite import initializers
from chainlite import link_hook
from chainlite import variable

if TYPE_CHECKING:
    from chainlite.serializer import AbstractSerializer


_CPU = backend.CpuDevice()


class _OrderedNames(set):
    """A set of attribute names that iterates in insertion order.

    Links keep the names of their parameters, persistents and children in these: a set, as in
    Chainer (constant-time membership), whose iteration follows the declaration order (see
    the migration guide on parameter order).
    """

    def __init__(self, names: Any = ()) -> None:
        super().__init__()
        self._order: list = []
        for name in names:
            self.add(name)

    def add(self, name: Any) -> None:
        if name not in self:
            set.add(self, name)
            self._order.append(name)

    def discard(self, name: Any) -> None:
        if name in self:
            set.discard(self, name)
            self._order.remove(name)

    def remove(self, name: Any) -> None:
        if name not in self:
            raise KeyError(name)
        self.discard(name)

    def pop(self) -> Any:
        if not self._order:
            raise KeyError('pop from an empty set')
        name = self._order[-1]
        self.discard(name)
        return name

    def clear(self) -> None:
        set.clear(self)
        self._order.clear()

    def update(self, *others: Any) -> None:
        for other in others:
            for name in other:
                self.add(name)

    def difference_update(self, *others: Any) -> None:
        for other in others:
            for name in list(other):
                self.discard(name)

    def intersection_update(self, *others: Any) -> None:
        for name in list(self._order):
            if not all(name in other for other in others):
                self.discard(name)

    def symmetric_difference_update(self, other: Any) -> None:
        for name in set(other):
            if name in self:
                self.discard(name)
            else:
                self.add(name)

    def __ior__(self, other: Any) -> '_OrderedNames':  # type: ignore[misc]
        self.update(other)
        return self

    def __isub__(self, other: Any) -> '_OrderedNames':  # type: ignore[misc]
        self.difference_update(other)
        return self

    def __iand__(self, other: Any) -> '_OrderedNames':  # type: ignore[misc]
        self.intersection_update(other)
        return self

    def __ixor__(self, other: Any) -> '_OrderedNames':  # type: ignore[misc]
        self.symmetric_difference_update(other)
        return self

    def __iter__(self) -> Iterator:
        return iter(self._order)

    def __reversed__(self) -> Iterator:
        return reversed(self._order)

    def copy(self) -> '_OrderedNames':
        return _OrderedNames(self._order)

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> '_OrderedNames':
        return _OrderedNames(copy.deepcopy(self._order, memo))

    def __reduce__(self) -> Any:
        return _OrderedNames, (list(self._order),)

    def __repr__(self) -> str:
        return '{%s}' % ', '.join(map(repr, self._order)) if self._order else 'set()'


class Link(device_resident.DeviceResident):
    """A building block of models: a set of parameters and a ``forward`` that uses them.

    Register parameters (and, in a :class:`Chain`, child links) by assigning them inside
    ``with self.init_scope():``; calling the link runs :meth:`forward`.

    Args:
        **params: Chainer's old style of declaring parameters, ``name=shape`` or
            ``name=(shape, dtype)``; prefer ``init_scope``.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> class Affine(chainlite.Link):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.W = chainlite.Parameter(np.eye(2, dtype=np.float32))
        ...     def forward(self, x):
        ...         return F.matmul(x, self.W)
        >>> [name for name, _ in Affine().namedparams()]
        ['/W']
    """

    # Set by __init__: a subclass whose __init__ forgets super().__init__() is told so at
    # its first init_scope, add_param or call (as Chainer does).
    _init_done = False

    def __init__(self, **params: Any) -> None:
        self._params: _OrderedNames = _OrderedNames()
        self._persistent: _OrderedNames = _OrderedNames()
        self.name: Optional[str] = None
        self._init_done = True
        for name, value in params.items():
            # A shape (None, an int or a sequence of ints), or a (shape, dtype) pair.
            shape, dtype = (value, numpy.float32) if _is_shape(value) else value
            self.add_param(name, shape, dtype=dtype)

    # -- registration --------------------------------------------------------------------------

    _within_init_scope = False  # (a class default: __setattr__ reads it on every assignment)

    @property
    def within_init_scope(self) -> bool:
        """True inside ``with self.init_scope():``, where assignments register."""
        return self._within_init_scope

    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """A scope in which assigned Parameters (and child Links) are registered."""
        self._check_init_done()
        old = self.within_init_scope
        self._within_init_scope = True
        try:
            yield
        finally:
            self._within_init_scope = old

    def __setattr__(self, name: str, value: Any) -> None:
        if self._within_init_scope and isinstance(value, variable.Parameter):
            self._params.add(name)
            self._persistent.discard(name)
            value.name = name
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._params.discard(name)
        self._persistent.discard(name)
        super().__delattr__(name)

    def _check_init_done(self) -> None:
        if not self._init_done:
            raise RuntimeError('Link.__init__() has not been called.')

    def _check_new_name(self, name: str, what: str) -> None:
        if name in self.__dict__:
            raise AttributeError('cannot register a new %s %s: attribute exists'
                                 % (what, name))

    def add_param(self, name: str, shape: Any = None, dtype: Any = numpy.float32,
                  initializer: Any = None) -> None:
        """Registers a new parameter (Chainer's older alternative to ``init_scope``).

        Args:
            name: The attribute name.
            shape: Its shape; None leaves it uninitialised until ``initialize``.
            dtype: Its dtype when ``initializer`` gives none.
            initializer: An initializer, array or scalar; NaN-filled if None.
        """
        self._check_init_done()
        self._check_new_name(name, 'parameter')
        if initializer is None:
            initializer = initializers.NaN(dtype)
        with self.init_scope():
            setattr(self, name, variable.Parameter(initializer, shape))

    def add_persistent(self, name: str, value: Any) -> None:
        """Registers a persistent value: an array or scalar that is serialized but not learned.

        Args:
            name: The attribute name.
            value: Its initial value.
        """
        self._check_new_name(name, 'persistent value')
        self._persistent.add(name)
        setattr(self, name, value)

    def register_persistent(self, name: str) -> None:
        """Marks an existing attribute as persistent."""
        if not hasattr(self, name):
            raise AttributeError('cannot register non-existent attribute %s as a persistent '
                                 'value' % name)
        self._persistent.add(name)

    # -- calling -------------------------------------------------------------------------------

    if TYPE_CHECKING:
        # Links define forward; the base class has none at run time (calling a link without
        # one raises the TypeError below), so this declaration is for type checkers only.
        def forward(self, *args: Any, **kwargs: Any) -> Any: ...

        # Children and parameters are attributes set at run time (init_scope, add_link,
        # add_param), which a type checker cannot follow through a variable typed as a base
        # class (`classifier.predictor.conv1`): they are Any, as torch.nn.Module's are.
        def __getattr__(self, name: str) -> Any: ...

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        forward = getattr(self, 'forward', None)
        if forward is None or not self._init_done:
            forward = self._forward_or_error()
        if link_hook._hooks_active:
            return link_hook.call_with_hooks(self, forward, args, kwargs)
        return forward(*args, **kwargs)

    def _forward_or_error(self) -> Callable:
        # The rare cases of __call__, kept out of its way: a forgotten Link.__init__(), and a
        # class whose __call__ comes from a mixin after Link (Chainer calls that one).
        self._check_init_done()
        injected = getattr(super(), '__call__', None)
        if injected is not None:
            return injected
        forward = getattr(self, 'forward', None)
        if forward is None:
            raise AttributeError('%s has no forward method: define forward(self, ...) to '
                                 'compute its output' % type(self).__name__)
        return forward

    @property
    def local_link_hooks(self) -> dict[str, Any]:
        """The hooks registered on this link only (a name -> hook ordered dict)."""
        hooks = self.__dict__.get('_local_link_hooks')
        if hooks is None:
            hooks = self.__dict__['_local_link_hooks'] = link_hook.LocalHooks()
        return hooks

    def add_hook(self, hook: Any, name: Optional[str] = None) -> Self:
        """Registers a link hook on this link only (not on its children).

        Args:
            hook: A :class:`chainlite.link_hook.LinkHook`.
            name: Its key (the hook's ``name`` by default).

        Returns:
            This link.
        """
        if not isinstance(hook, link_hook.LinkHook):
            raise TypeError('Hook must be of type LinkHook, got %s' % type(hook).__name__)
        name = hook.name if name is None else name
        hooks = self.local_link_hooks
        if name in hooks:
            raise KeyError('hook %s already exists' % name)
        hooks[name] = hook
        hook.added(self)
        return self

    def delete_hook(self, name: str) -> None:
        """Unregisters the hook registered under ``name`` on this link."""
        hooks = self.local_link_hooks
        if name not in hooks:
            raise KeyError('no hook %s is registered' % name)
        hook = hooks.pop(name)
        hook.deleted(self)

    # -- walking the tree ----------------------------------------------------------------------

    def _own_params(self, include_uninit: bool) -> Iterator[tuple[str, variable.Parameter]]:
        d = self.__dict__
        for name in self._params:
            p = d[name]
            if include_uninit or p.is_initialized:
                yield name, p

    def children(self) -> Iterator['Link']:
        """The child links (none for a plain Link)."""
        return iter(())

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        return iter(())

    def params(self, include_uninit: bool = True) -> Iterator[variable.Parameter]:
        """All parameters of this link and its descendants, in registration order."""
        params = self._param_list()
        if include_uninit:
            return iter(params)
        return iter([p for p in params if p._data is not None])

    def _param_list(self) -> list[variable.Parameter]:
        # params() as a list, walked without building paths: cleargrads and the optimizers
        # walk it at every step. The order is namedparams' (own parameters, then children).
        out: list[variable.Parameter] = []
        stack: list[Link] = [self]
        while stack:
            link = stack.pop()
            d = link.__dict__
            # (the names' own list: iterating the set subclass runs a Python __iter__)
            out += [d[name] for name in link._params._order]
            children = link._child_list()
            if children:
                children.reverse()
                stack += children
        return out

    def _child_list(self) -> list[Link]:
        # The child links as a new list, in order (none for a plain Link).
        return []

    def namedparams(self, include_uninit: bool = True
                    ) -> Iterator[tuple[str, variable.Parameter]]:
        """``(path, Parameter)`` pairs, with paths like ``/l1/W`` (``/0/W`` in a ChainList)."""
        stack: list[tuple[str, Link]] = [('', self)]
        while stack:
            prefix, link = stack.pop()
            for name, p in link._own_params(include_uninit):
                yield prefix + '/' + name, p
            stack.extend([(prefix + '/' + name, child)
                          for name, child in link._named_children()][::-1])

    def links(self, skipself: bool = False) -> Iterator['Link']:
        """This link (unless ``skipself``) and all its descendants."""
        for _, link in self.namedlinks(skipself):
            yield link

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        """``(path, Link)`` pairs: ``('/', self)`` first, then ``/l1``, ``/l1/sub``, ..."""
        if not skipself:
            yield '/', self
        # Depth first, children in order: a stack with each level pushed in reverse.
        stack = [('/' + name, child) for name, child in self._named_children()][::-1]
        while stack:
            path, link = stack.pop()
            yield path, link
            stack.extend([(path + '/' + name, child)
                          for name, child in link._named_children()][::-1])

    # -- gradients and updates -----------------------------------------------------------------

    def cleargrads(self) -> None:
        """Sets every parameter's gradient to None (call before each ``backward``)."""
        for p in self._param_list():
            p.cleargrad()

    def zerograds(self) -> None:
        """Fills every gradient with zeros. Deprecated in Chainer: use :meth:`cleargrads`."""
        warnings.warn('Link.zerograds is deprecated. Use Link.cleargrads instead.',
                      DeprecationWarning, stacklevel=2)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            for p in self.params():
                p.zerograd()

    def addgrads(self, link: 'Link') -> None:
        """Adds the gradients of another link with the same structure to this link's."""
        theirs = dict(link.namedparams())
        for path, p in self.namedparams():
            p.addgrad(theirs[path])

    def enable_update(self) -> None:
        """Lets optimizers update every parameter of this link (and descendants)."""
        self._set_update(True)

    def disable_update(self) -> None:
        """Freezes every parameter of this link (and descendants) for optimizers."""
        self._set_update(False)

    def _set_update(self, enabled: bool) -> None:
        for p in self.params():
            rule = p.update_rule
            if rule is not None:
                rule.enabled = enabled

    @property
    def update_enabled(self) -> bool:
        """True if some parameter would be updated by its optimizer."""
        for p in self.params():
            rule = p.update_rule
            if rule is not None and rule.enabled:
                return True
        return False

    def count_params(self) -> int:
        """The number of scalars in all initialised parameters (uninitialised ones warn)."""
        n = 0
        for path, p in self.namedparams():
            if p.is_initialized:
                n += p.size
            else:
                warnings.warn('Parameter \'%s\' has not been initialized, so the resulting count '
                              'will not include the number of parameters in it.' % path)
        return n

    # -- copies --------------------------------------------------------------------------------

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        device = state.get('_device')
        if isinstance(device, backend.GpuDevice):
            # CuPy unpickles arrays onto the current GPU: a link (and its parameters) saved
            # on another GPU has them put back there.
            for name in self._params:
                p = state[name]
                if p._data is not None and not device.is_array_supported(p._data):
                    p.to_device(device)
            for name in self._persistent:
                value = state[name]
                if variable._is_array(value) and not device.is_array_supported(value):
                    self.__dict__[name] = device.send(value)

    def copy(self, mode: str = 'share') -> Self:
        """A copy of this link.

        Args:
            mode: ``'share'``: new Parameter objects sharing the arrays (gradients not
                shared); ``'copy'``: a deep copy; ``'init'``: a deep copy whose parameters are
                re-initialised with their initializers.

        Returns:
            The copy (with ``name`` None in share mode; as in Chainer, the deep copies keep
            the name).
        """
        if mode == 'share':
            ret = copy.copy(self)
            ret._params = _OrderedNames(self._params)
            ret._persistent = _OrderedNames(self._persistent)
            ret.name = None
            d = ret.__dict__
            for name in ret._params:
                p = copy.copy(d[name])
                p.cleargrad()
                d[name] = p
            ret._copy_children(mode)
        elif mode == 'copy':
            ret = copy.deepcopy(self)
        elif mode == 'init':
            ret = copy.deepcopy(self)
            for p in ret.params(include_uninit=False):
                p.initialize(p.shape)
        else:
            raise ValueError("Link.copy: mode must be 'share', 'copy' or 'init', got %r"
                             % (mode,))
        return ret

    def _copy_children(self, mode: str) -> None:
        pass

    def copyparams(self, link: 'Link', copy_persistent: bool = True) -> None:
        """Copies the parameter values (and persistents) of another link into this one."""
        theirs = dict(link.namedparams())
        for path, p in self.namedparams():
            p.copydata(theirs[path])
        if copy_persistent:
            their_links = dict(link.namedlinks())
            for path, mine in self.namedlinks():
                other = their_links[path]
                for name in mine._persistent:
                    value = getattr(other, name)
                    current = getattr(mine, name)
                    if variable._is_array(current) and variable._is_array(value):
                        backend.copyto(current, value)  # (across devices if need be)
                    else:
                        setattr(mine, name, copy.copy(value))

    def repeat(self, n_repeat: int, mode: str = 'init') -> 'Sequential':
        """A :class:`Sequential` of ``n_repeat`` copies of this link (see :meth:`copy`)."""
        ret = Sequential()
        ret._device = self.device  # (the copies' device, a GPU's included)
        for _ in range(max(n_repeat, 0)):
            ret.append(self.copy(mode))
        return ret

    # -- devices and serialization -------------------------------------------------------------

    @property
    def xp(self) -> Any:
        """The array module of the parameters: ``numpy``, or ``cupy`` on a GPU."""
        device = self.__dict__.get('_device')  # (links read it in forward: kept short)
        return numpy if device is None else device.xp

    @property
    def device(self) -> backend.Device:
        """The device holding the parameters: the one last given to :meth:`to_device`.

        The CPU until the link (or a link holding it) is sent elsewhere.
        """
        return self.__dict__.get('_device') or _CPU

    @property
    def _device_id(self) -> Optional[int]:
        """Deprecated as in Chainer (warns): the CUDA device id, None on the CPU.

        Chainer kept it for old code (ChainerRL's ``NoisyLinear`` reads it): the GPU's id
        (an int) on a GPU, None on the CPU. Use :attr:`device` instead.

        Example:
            >>> import warnings, chainlite.links as L
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter('ignore')
            ...     print(L.Linear(2, 3)._device_id)
            None
        """
        warnings.warn('Link._device_id is deprecated and kept for old code; use Link.device '
                      'instead.', DeprecationWarning, stacklevel=2)
        device = self.device
        return device.device.id if isinstance(device, backend.GpuDevice) else None

    def to_cpu(self) -> Self:
        """Deprecated as in Chainer 7 (warns): ``to_device('@numpy')``. Returns self."""
        warnings.warn("to_cpu is deprecated. Please use to_device('@numpy') instead.",
                      DeprecationWarning, stacklevel=2)
        return self._move_to(backend.get_device('@numpy'), self)

    def to_gpu(self, device: Any = None) -> Self:
        """Deprecated as in Chainer 7 (warns): moves the parameters and persistent arrays to a
        GPU, as ``to_device('@cupy:N')`` does, except for arrays already on a GPU.

        As in Chainer, an array already on another GPU stays there (with a RuntimeWarning):
        :meth:`to_device` moves arrays between GPUs.

        Args:
            device: The GPU's id or ``cupy.cuda.Device``; None for the current one.

        Returns:
            This link.

        Raises:
            RuntimeError: No GPU can be used (the message says whether CuPy, a driver or a
                device is missing).
        """
        from chainlite.backends import cuda
        cuda.check_cuda_available()
        warnings.warn("to_gpu is deprecated. Please use to_device('@cupy:N') instead.",
                      DeprecationWarning, stacklevel=2)
        dev = backend.GpuDevice(cuda._get_device_or_current(device))
        return self._move_to(dev, self, keep_gpu=True)

    def to_intel64(self) -> Self:
        """Deprecated as in Chainer 7; raises, since iDeep is not available to chainlite."""
        warnings.warn("to_intel64 is deprecated. Please use to_device('@intel64') instead.",
                      DeprecationWarning, stacklevel=2)
        from chainlite.backends import intel64
        intel64.check_ideep_available()
        return self  # pragma: no cover

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ('to_device', 'to_chx', 'from_chx'):
            if name in cls.__dict__:
                # Final in Chainer 7: a link moves what it holds beyond its parameters and
                # persistent values by overriding device_resident_accept.
                raise TypeError(
                    '%s.%s: Link.%s cannot be overridden (as in Chainer); override '
                    'device_resident_accept(visitor) to move other arrays with the link'
                    % (cls.__qualname__, name, name))
        for name in ('to_cpu', 'to_gpu', 'to_intel64'):
            if name in cls.__dict__:
                # As Chainer 7. (An overridden to_cpu is still called by to_device.)
                warnings.warn('Overriding %s is deprecated (%s.%s): move what is not a '
                              'parameter or a persistent value in to_device() instead.'
                              % (name, cls.__qualname__, name), DeprecationWarning,
                              stacklevel=2)

    def to_device(self, device: Any) -> Self:
        """Moves parameters and persistent arrays to ``device``. Returns self."""
        return self._move_to(backend.get_device(device), None)

    def astype(self, dtype: Any) -> Self:
        """Casts the float parameters, gradients and persistent arrays of the hierarchy.

        PyTorch's ``Module.to(dtype)`` (``double()``, ``half()``). Uninitialised parameters
        will be created in ``dtype``; integer persistents (BatchNormalization's ``N``) stay.
        The state of update rules already set up (momentum, Adam's moments) is cast too, so
        training goes on; ``optimizer.setup(model)`` again starts fresh state in ``dtype``.

        Args:
            dtype: ``numpy.float16``, ``float32`` or ``float64`` (or its name).

        Returns:
            This link.

        Example:
            >>> import numpy as np, chainlite.links as L
            >>> layer = L.Linear(3, 2).astype(np.float64)
            >>> layer.W.dtype, layer(np.ones((1, 3))).dtype
            (dtype('float64'), dtype('float64'))
        """
        dtype = numpy.dtype(dtype)
        if dtype.kind != 'f':
            raise TypeError('Link.astype: a float dtype is needed, got %s' % dtype)

        def cast_float(a: Any) -> Any:
            is_float = variable._is_array(a) and a.dtype.kind == 'f'
            return a.astype(dtype) if is_float and a.dtype != dtype else a

        for p in self.params():
            if p.array is None:
                if hasattr(p.initializer, 'dtype'):
                    p.initializer = copy.copy(p.initializer)
                    p.initializer.dtype = dtype
                continue
            grad = p.grad
            p.array = cast_float(p.array)
            if grad is not None:
                p.grad = cast_float(grad)
            state = p.update_rule.state if p.update_rule is not None else None
            if state:
                for key in state:
                    state[key] = cast_float(state[key])
        for link in self.links():
            d = link.__dict__
            for name in link._persistent:
                d[name] = cast_float(d[name])
        return self

    def device_resident_accept(self, visitor: device_resident.DeviceResidentsVisitor) -> None:
        """Applies ``visitor`` to this link, its parameters, persistent arrays and children.

        Args:
            visitor: A :class:`~chainlite.device_resident.DeviceResidentsVisitor`.
        """
        visitor.visit_device_resident(self)
        d = self.__dict__
        for name in self._params:
            visitor.visit_variable(d[name])
        for name in self._persistent:
            if variable._is_array(d[name]):
                d[name] = visitor.visit_array(d[name])
        for child in self.children():
            child.device_resident_accept(visitor)

    def _move_to(self, dev: backend.Device, start: Optional['Link'],
                 keep_gpu: bool = False) -> Self:
        # keep_gpu: to_gpu's rule, an array already on a GPU stays where it is.
        if dev.xp is numpy:
            # As Chainer: a descendant that still overrides the deprecated to_cpu (to_gpu)
            # has it called (not on `start`, the link whose own method brought us here).
            for link in self.links():
                if link is not start and type(link).to_cpu is not Link.to_cpu:
                    link.to_cpu()
        elif isinstance(dev, backend.GpuDevice):
            for link in self.links():
                if link is not start and type(link).to_gpu is not Link.to_gpu:
                    link.to_gpu(dev.device.id)
        visitor = device_resident._ToDeviceVisitor(dev, keep_gpu)
        for p in self.params():
            visitor.visit_variable(p)
        for link in self.links():
            d = link.__dict__
            d['_device'] = dev
            for name in link._persistent:
                if variable._is_array(d[name]):
                    d[name] = visitor.visit_array(d[name])
        if any(type(link).device_resident_accept is not Link.device_resident_accept
               for link in self.links()):
            # Chainer's way for a link to move what it holds outside its parameters (an
            # LSTM's state, a sampler's tables): its device_resident_accept is visited.
            self.device_resident_accept(visitor)
        return self

    def serialize(self, serializer: AbstractSerializer) -> None:
        """Saves or loads parameters, persistents and children through ``serializer``.

        Loading into an uninitialised parameter initialises it with the loaded shape.
        """
        d = self.__dict__
        for name in self._params:
            p = d[name]
            data = serializer(name, p.array)
            if p.array is None and data is not None:
                p.initialize(data.shape)  # (on the link's device)
                backend.copyto(p.array, data)
        for name in self._persistent:
            d[name] = serializer(name, d[name])
        for name, child in self._named_children():
            child.serialize(serializer[name])

    # -- text ----------------------------------------------------------------------------------

    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """``(name, value)`` pairs shown by ``str(link)``; links override it."""
        return iter(())

    def __str__(self) -> str:
        specs: Any = self.printable_specs
        if callable(specs):
            specs = specs()  # chainlite's links define a method; Chainer's a property
        text = ', '.join('%s=%s' % (k, v) for k, v in specs)
        return '%s(%s)' % (type(self).__name__, text)

    def __repr__(self) -> str:
        # The layer tree of str(), so that a model shown at the interactive prompt or in a
        # notebook says what it is made of (Chainer's repr was object.__repr__).
        return str(self)


class Chain(Link):
    """A link made of child links (and possibly parameters of its own).

    Child links assigned inside ``init_scope()`` are registered, in order, and their
    parameters appear under their attribute names (``/l1/W``).

    Args:
        **links: Chainer's older way of adding children (``Chain(l1=L.Linear(3, 4))``).

    Example:
        >>> import numpy as np, chainlite
        >>> class MLP(chainlite.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.l1 = chainlite.Link()
        ...             with self.l1.init_scope():
        ...                 self.l1.W = chainlite.Parameter(np.zeros((2, 3), np.float32))
        >>> [path for path, _ in MLP().namedparams()]
        ['/l1/W']
    """

    def __init__(self, **links: Link) -> None:
        super().__init__()
        self._children: _OrderedNames = _OrderedNames()
        for name, link in links.items():
            self.add_link(name, link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._within_init_scope and isinstance(value, Link):
            if name in self.__dict__ and name not in self._children:
                raise AttributeError('cannot register a new link %s: attribute exists' % name)
            value.name = name
            self._children.add(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._children.discard(name)
        super().__delattr__(name)

    def __getitem__(self, name: str) -> Any:
        """The attribute ``name`` (Chainer's ``chain['l1']``)."""
        return getattr(self, name)

    def add_link(self, name: str, link: Link) -> None:
        """Registers a child link (Chainer's older alternative to ``init_scope``)."""
        if name in self.__dict__:
            raise AttributeError('cannot register a new link %s: attribute exists' % name)
        if not isinstance(link, Link):
            raise TypeError('cannot register a non-link object as a child')
        with self.init_scope():
            setattr(self, name, link)

    def children(self) -> Iterator[Link]:
        """The child links, in registration order."""
        d = self.__dict__
        for name in self._children:
            yield d[name]

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        d = self.__dict__
        for name in self._children:
            yield name, d[name]

    def _child_list(self) -> list[Link]:
        d = self.__dict__
        return [d[name] for name in self._children._order]

    def _copy_children(self, mode: str) -> None:
        self._children = _OrderedNames(self._children)
        d = self.__dict__
        for name in self._children:
            child = d[name].copy(mode)
            child.name = name
            d[name] = child

    def __str__(self) -> str:
        if not self._children:
            return Link.__str__(self)
        lines = ['%s(' % type(self).__name__]
        for name, child in self._named_children():
            text = str(child).replace('\n', '\n  ')
            lines.append('  (%s): %s,' % (name, text))
        lines.append(')')
        return '\n'.join(lines)


class ChainList(Link):
    """A link holding child links in a list: ``namedparams`` paths are ``/0/W``, ``/1/W``...

    Args:
        *links: The initial children.

    Example:
        >>> import chainlite
        >>> layers = chainlite.ChainList(chainlite.Link(), chainlite.Link())
        >>> len(layers), layers[1].name
        (2, '1')
    """

    def __init__(self, *links: Link) -> None:
        super().__init__()
        self._children: list[Any] = []
        for link in links:
            self.add_link(link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._within_init_scope and isinstance(value, Link):
            raise TypeError('cannot register a new link within a "with chainlist.init_scope():" '
                            'block: use append() instead')
        super().__setattr__(name, value)

    def __getitem__(self, index: Any) -> Any:
        return self._children[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        """Replaces the child at ``index`` (or the children in a slice, by an iterable)."""
        if isinstance(index, slice):
            value = list(value)
            for link in value:
                _check_link(link)
        elif isinstance(index, (int, numpy.integer)):
            _check_link(value)
        else:
            raise TypeError('ChainList indices must be integers or slices, not %s'
                            % type(index).__name__)
        self._children[index] = value
        self._rename()

    def __delitem__(self, index: Any) -> None:
        del self._children[index]
        self._rename()

    def insert(self, index: int, link: Link) -> None:
        """Inserts a child link before ``index`` (the names follow the new positions)."""
        _check_link(link)
        self._children.insert(index, link)
        self._rename()

    def _rename(self) -> None:
        for i, child in enumerate(self._children):
            child.name = str(i)

    def __iter__(self) -> Iterator[Link]:
        return iter(self._children)

    def __len__(self) -> int:
        return len(self._children)

    # The rest of Python's list interface, as Chainer's ChainList (a MutableSequence) has it;
    # written with indexing, insert and del only, so Sequential inherits what it does not
    # define itself.

    def __contains__(self, link: Any) -> bool:
        return any(child is link or child == link for child in self)

    def __reversed__(self) -> Iterator[Any]:
        for i in range(len(self) - 1, -1, -1):
            yield self[i]

    def __iadd__(self, links: Any) -> 'ChainList':
        self.extend(links)
        return self

    def extend(self, links: Any) -> None:
        """Appends every link of ``links`` (another ChainList, a list, ...)."""
        for link in list(links):
            self.append(link)

    def pop(self, index: int = -1) -> Any:
        """Removes and returns the child at ``index`` (the last by default)."""
        link = self[index]
        del self[index]
        return link

    def remove(self, link: Any) -> None:
        """Removes the first occurrence of ``link``."""
        del self[self.index(link)]

    def reverse(self) -> None:
        """Reverses the order of the children in place."""
        n = len(self)
        for i in range(n // 2):
            self[i], self[n - i - 1] = self[n - i - 1], self[i]

    def index(self, link: Any, start: int = 0, stop: Optional[int] = None) -> int:
        """The position of the first occurrence of ``link`` at or after ``start``."""
        n = len(self)
        stop = n if stop is None else stop
        if start < 0:
            start = max(n + start, 0)
        if stop < 0:
            stop += n
        for i in range(start, min(stop, n)):
            child = self[i]
            if child is link or child == link:
                return i
        raise ValueError('%r is not in the %s' % (link, type(self).__name__))

    def count(self, link: Any) -> int:
        """How many times ``link`` appears."""
        return sum(1 for child in self if child is link or child == link)

    def append(self, link: Link) -> None:
        """Adds a child link at the end."""
        self.add_link(link)

    def add_link(self, link: Link) -> None:
        """Adds a child link at the end (its name becomes its index)."""
        _check_link(link)
        link.name = str(len(self._children))
        self._children.append(link)

    def children(self) -> Iterator[Link]:
        """The child links, in order."""
        return iter(list(self._children))

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        for i, child in enumerate(self._children):
            yield str(i), child

    def _child_list(self) -> list[Link]:
        return list(self._children)

    def _copy_children(self, mode: str) -> None:
        children = []
        for i, child in enumerate(self._children):
            c = child.copy(mode)
            c.name = str(i)
            children.append(c)
        self._children = children

    def __str__(self) -> str:
        if not self._children:
            return '%s()' % type(self).__name__
        lines = ['%s(' % type(self).__name__]
        for name, child in self._named_children():
            lines.append('  (%s): %s,' % (name, str(child).replace('\n', '\n  ')))
        lines.append(')')
        return '\n'.join(lines)


class Sequential(ChainList):
    """Layers applied one after the other: links and plain functions (e.g. ``F.relu``).

    A layer's tuple output is passed to the next layer as separate arguments.

    Args:
        *layers: Links or callables.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> model = chainlite.Sequential(F.relu, lambda x: x * 2)
        >>> model(np.array([-1.0, 3.0])).array
        array([0., 6.])
    """

    def __init__(self, *layers: Any) -> None:
        super().__init__()
        self._layers: list = []
        for layer in layers:
            self.append(layer)

    def append(self, layer: Any) -> None:
        """Adds a layer (a Link or a callable) at the end."""
        self.insert(len(self._layers), layer)

    def extend(self, layers: Any) -> None:
        """Adds several layers at the end."""
        for layer in layers:
            self.append(layer)

    def insert(self, index: int, layer: Any) -> None:
        """Inserts a layer at ``index`` (``-len(self) <= index <= len(self)``).

        Raises:
            IndexError: If ``index`` is out of that range.
            ValueError: If ``layer`` is not callable (as in Chainer).
        """
        n = len(self._layers)
        if not -n <= index <= n:
            raise IndexError('Sequential.insert: index %r out of range for %d layers'
                             % (index, n))
        if not callable(layer):
            raise ValueError('Sequential: every layer must be callable (a Link or a '
                             'function), got %r' % (layer,))
        self._layers.insert(index, layer)
        self._relink()

    def remove(self, layer: Any) -> None:
        """Removes the first occurrence of ``layer``.

        Raises:
            ValueError: If ``layer`` is not in the Sequential.
        """
        if layer not in self._layers:
            raise ValueError('Sequential.remove: %r is not a layer of this Sequential'
                             % (layer,))
        self._layers.remove(layer)
        self._relink()

    def pop(self, index: int = -1) -> Any:
        """Removes and returns the layer at ``index``."""
        layer = self._layers.pop(index)
        self._relink()
        return layer

    def clear(self) -> None:
        """Removes every layer."""
        self._layers = []
        self._relink()

    def index(self, layer: Any, start: Any = None, end: Any = None) -> int:
        """The position of ``layer`` within ``self[start:end]`` (counted from ``start``, as
        Chainer does)."""
        return self._layers[start:end].index(layer)

    def count(self, layer: Any) -> int:
        """How many times ``layer`` appears."""
        return self._layers.count(layer)

    def count_by_layer_type(self, type_name: str) -> int:
        """How many layers have the class (or function) name ``type_name``."""
        return sum(1 for layer in self._layers if _layer_name(layer) == type_name)

    def remove_by_layer_type(self, type_name: str) -> None:
        """Removes every layer whose class (or function) name is ``type_name``."""
        self._layers = [layer for layer in self._layers if _layer_name(layer) != type_name]
        self._relink()

    def flatten(self) -> 'Sequential':
        """A Sequential whose nested Sequentials are expanded in place."""
        ret = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                ret.extend(layer.flatten()._layers)
            else:
                ret.append(layer)
        return ret

    def _relink(self) -> None:
        # Parameter paths follow the positions of the links among the layers.
        self._children = []
        for layer in self._layers:
            if isinstance(layer, Link):
                ChainList.add_link(self, layer)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return Sequential(*self._layers[index])
        return self._layers[index]

    def __setitem__(self, index: int, layer: Any) -> None:
        if index >= len(self._layers):
            raise ValueError('Sequential: index %d should be less than %d'
                             % (index, len(self._layers)))
        if not callable(layer):
            raise ValueError('Sequential: every layer must be callable (a Link or a '
                             'function), got %r' % (layer,))
        if self._layers[index] is not layer:
            self._layers[index] = layer
            self._relink()

    def __delitem__(self, index: Any) -> None:
        del self._layers[index]
        self._relink()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._layers)

    def __reversed__(self) -> Iterator[Any]:
        return reversed(self._layers)

    def __contains__(self, layer: Any) -> bool:
        return layer in self._layers

    def __len__(self) -> int:
        return len(self._layers)

    def __add__(self, other: Any) -> 'Sequential':
        if not isinstance(other, Sequential):
            raise ValueError('Sequential: + takes another Sequential, got %s'
                             % type(other).__name__)
        return Sequential(*(self._layers + other._layers))

    def __iadd__(self, other: Any) -> 'Sequential':
        if not isinstance(other, Sequential):
            raise ValueError('Sequential: += takes another Sequential, got %s'
                             % type(other).__name__)
        self.extend(list(other._layers))
        return self

    def __reduce__(self) -> Any:
        if any(getattr(layer, '__name__', None) == '<lambda>' for layer in self._layers):
            raise ValueError('Sequential: a lambda layer cannot be pickled; use a named '
                             'function or functools.partial instead')
        return super().__reduce__()

    def __mul__(self, n: int) -> 'Sequential':
        return self.repeat(n)

    def forward(self, *x: Any) -> Any:
        """Applies the layers in order.

        Raises:
            RuntimeError: If there is no layer.
        """
        if not self._layers:
            raise RuntimeError('Sequential: there is no layer to apply')
        for layer in self._layers:
            x = layer(*x) if isinstance(x, tuple) else layer(x)
        return x

    def _copy_children(self, mode: str) -> None:
        layers = [layer.copy(mode) if isinstance(layer, Link) else layer
                  for layer in self._layers]
        self._layers = layers
        self._relink()

    def __str__(self) -> str:
        if not self._layers:
            return '%s()' % type(self).__name__
        lines = ['%s(' % type(self).__name__]
        for i, layer in enumerate(self._layers):
            text = str(layer) if isinstance(layer, Link) else _layer_text(layer)
            lines.append('  (%d): %s,' % (i, text.replace('\n', '\n  ')))
        lines.append(')')
        return '\n'.join(lines)


def _layer_text(layer: Any) -> str:
    # A lambda shows its source (as in Chainer), a function its name, any other callable
    # (functools.partial, an object) its str.
    if getattr(layer, '__name__', None) == '<lambda>':
        try:
            return inspect.getsource(layer).strip().rstrip(',')
        except (OSError, TypeError):
            pass
    if inspect.isroutine(layer):
        return _layer_name(layer)
    return str(layer)


def _check_link(link: Any) -> None:
    if not isinstance(link, Link):
        raise TypeError('ChainList: a child must be a Link, got %s' % type(link).__name__)


def _is_shape(value: Any) -> bool:
    # As Chainer's Link(**params): None, an int or a sequence of ints is a shape.
    if value is None:
        return True
    try:
        if isinstance(value, (tuple, list)):
            return all(isinstance(int(n), int) for n in value)
        int(value)
        return True
    except TypeError:
        return False


def _layer_name(layer: Any) -> str:
    return getattr(layer, '__name__', type(layer).__name__)
