"""Optimizers: what updates a model's parameters from their gradients.

An :class:`Optimizer` walks its target link's parameters. A :class:`GradientMethod` gives every
parameter an :class:`UpdateRule` (``param.update_rule``), which holds that parameter's state
(moving averages and the like) and does the arithmetic in place. Each rule's
:class:`Hyperparameter` falls back to the optimizer's, so ``optimizer.lr = 0.1`` changes every
rule while ``param.update_rule.hyperparam.lr = 0.1`` overrides one.
"""
from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any, Callable, Optional, Self, cast

import numpy

from chainlite import backend
from chainlite import link as link_module
from chainlite import variable
from chainlite.serializers import serializer as serializer_module

if TYPE_CHECKING:
    from chainlite.types import DTypeSpec

_TIMINGS = ('pre', 'post', 'auto')


class Hyperparameter:
    """A set of hyperparameter entries that falls back to a parent set.

    Reading an entry that this object does not hold reads it from the parent, so one
    optimizer-wide set can be shared by every update rule while each rule may override
    entries of its own.

    Args:
        parent: The Hyperparameter to read missing entries from, or None.

    Example:
        >>> from chainlite.optimizer import Hyperparameter
        >>> base = Hyperparameter()
        >>> base.lr = 0.01
        >>> mine = Hyperparameter(base)
        >>> mine.lr
        0.01
        >>> mine.lr = 0.1
        >>> mine.lr, base.lr
        (0.1, 0.01)
    """

    def __init__(self, parent: Optional['Hyperparameter'] = None, owner: str = '') -> None:
        self._parent = parent
        self._owner = owner  # the optimizer or rule named in error messages

    def __setattr__(self, name: str, value: Any) -> None:
        # Strings are the one mistake worth catching here (Adam(alpha="0.1") from a config
        # file): they would only fail at the first update, far from the cause.
        if isinstance(value, (str, bytes)) and not name.startswith('_'):
            raise TypeError('%s: hyperparameter %s must be a number, got %r (a %s)'
                            % (self.__dict__.get('_owner') or 'Hyperparameter', name, value,
                               type(value).__name__))
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Only called for entries this object lacks (on every update: keep it short).
        try:
            parent = self.__dict__['_parent']
        except KeyError:  # copy and pickle probe objects before __init__ ran
            raise AttributeError(name) from None
        if parent is None:
            raise AttributeError('Hyperparameter has no entry %r' % name)
        return getattr(parent, name)

    def __repr__(self) -> str:
        d = self.get_dict()
        return 'Hyperparameter(%s)' % ', '.join('%s=%s' % (k, d[k]) for k in sorted(d))

    @property
    def parent(self) -> Optional['Hyperparameter']:
        """The Hyperparameter that missing entries are read from, or None."""
        return self._parent

    def get_dict(self) -> dict[str, Any]:
        """Returns every entry visible from here (own entries over the parent's) as a dict."""
        d: dict[str, Any] = {} if self._parent is None else self._parent.get_dict()
        d.update((k, v) for k, v in self.__dict__.items() if not k.startswith('_'))
        return d


def _resolved(hp: Hyperparameter) -> Hyperparameter:
    # The first set up the chain that holds entries of its own: an update rule's set is
    # usually empty, and reading through it costs a failed lookup and a __getattr__ call per
    # entry on every update. Reading from the resolved set gives the same values.
    d = hp.__dict__
    while len(d) == 2:  # only _parent and _owner: no entries of its own
        parent = d.get('_parent')
        if parent is None:
            break
        hp = parent
        d = hp.__dict__
    return hp


_coefficients: dict[tuple[Any, Any], Any] = {}


def _coefficient(value: Any, dtype: numpy.dtype) -> Any:
    # A Python number as a cached read-only 0-d array of the dtype of the array it is applied
    # to: NumPy applies that about half a microsecond faster than a Python number, and rounds
    # the number to the array's dtype just as NumPy 2 does a Python scalar, so the result is
    # the same to the bit. NumPy scalars (whose dtype takes part in promotion) and zeros
    # (0.0 == -0.0 as keys) are returned as they are.
    cls = value.__class__
    if (cls is not float and cls is not int) or value == 0:
        return value
    key = (value, dtype)
    a = _coefficients.get(key)
    if a is None:
        if len(_coefficients) >= 4096:  # a schedule makes new values at every step
            _coefficients.clear()
        try:
            a = numpy.array(value, dtype)
        except OverflowError:
            return value
        a.flags.writeable = False
        _coefficients[key] = a
    return a


def _as_is(value: Any, dtype: Any) -> Any:
    # _coefficient's counterpart for GPU arrays (see _coefficient_for).
    return value


def _coefficient_for(array: Any) -> Callable[[Any, Any], Any]:
    # _coefficient for a NumPy array. A GPU array takes Python and NumPy scalars but no NumPy
    # arrays, and CuPy rounds a Python number to the array's dtype as NumPy 2 does (each
    # coefficient's dtype is that of the array it meets): there the number goes as it is.
    return _coefficient if array.__class__ is numpy.ndarray else _as_is


def _same_device(a: Any, b: Any) -> bool:
    # Whether two arrays live on one device (two NumPy arrays, or CuPy arrays of one GPU).
    cls = a.__class__
    if cls is not b.__class__:
        return False
    return cls is numpy.ndarray or a.device.id == b.device.id


class HyperparameterProxy:
    """A class attribute that reads and writes one entry of ``self.hyperparam``.

    Optimizers declare one per hyperparameter, so ``optimizer.lr`` and ``optimizer.lr = 0.1``
    read and change the entry every update rule falls back to.

    Args:
        attr_name: The entry's name.

    Example:
        >>> from chainlite import optimizers
        >>> opt = optimizers.SGD(lr=0.1)
        >>> opt.lr = 0.5
        >>> opt.hyperparam.lr
        0.5
    """

    def __init__(self, attr_name: str) -> None:
        self._attr_name = attr_name
        self.__doc__ = 'Alias of ``self.hyperparam.%s``.' % attr_name

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return getattr(obj.hyperparam, self._attr_name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.hyperparam, self._attr_name, value)


class _Hooks:
    """Named hooks called before ('pre') or after ('post') an update, in registration order."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.pre: dict[str, Callable[..., Any]] = {}
        self.post: dict[str, Callable[..., Any]] = {}

    def add(self, hook: Callable[..., Any], name: Optional[str], timing: str) -> None:
        if not callable(hook):
            raise TypeError('%s.add_hook: hook must be callable, got %s'
                            % (self.owner, type(hook).__name__))
        if timing not in _TIMINGS:
            raise ValueError("%s.add_hook: timing must be one of 'pre', 'post', 'auto', got %r"
                             % (self.owner, timing))
        if timing == 'auto':
            timing = getattr(hook, 'timing', 'pre')
            if timing not in ('pre', 'post'):
                warnings.warn("%s.add_hook: the hook's timing attribute %r is neither 'pre' nor "
                              "'post'; using 'pre'." % (self.owner, timing))
                timing = 'pre'
        if name is None:
            name = getattr(hook, 'name', getattr(hook, '__name__', None))
            if name is None:
                raise ValueError('%s.add_hook: the hook has no name attribute; pass name=...'
                                 % self.owner)
        if name in self.pre or name in self.post:
            raise KeyError('hook "%s" already exists' % name)
        (self.pre if timing == 'pre' else self.post)[name] = hook

    def remove(self, name: str) -> None:
        if name in self.pre:
            del self.pre[name]
        elif name in self.post:
            del self.post[name]
        else:
            raise KeyError('%s.remove_hook: no hook named "%s"' % (self.owner, name))

    def get(self, timing: str) -> dict[str, Callable[..., Any]]:
        if timing == 'pre':
            return self.pre
        if timing == 'post':
            return self.post
        raise ValueError("timing must be either 'pre' or 'post', got %r" % (timing,))


class UpdateRule:
    """How one parameter is updated from its gradient: the state and the arithmetic.

    A subclass implements :meth:`update_core` (or, as in Chainer, :meth:`update_core_cpu`) and,
    if it keeps state, :meth:`init_state`. The state is a dict of arrays created at the first
    update, so it is serialized by name (``m``, ``v``, ...); scratch arrays that only save
    allocations live outside it.

    Args:
        parent_hyperparam: The Hyperparameter that this rule's own one falls back to.

    Attributes:
        hyperparam (Hyperparameter): The rule's hyperparameters.
        enabled (bool): If False, :meth:`update` leaves the parameter alone.
        t (int): The number of updates made by this rule.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> rule = optimizers.SGD(lr=0.1).create_update_rule()
        >>> p = chainlite.Parameter(np.array([1.0, 2.0], np.float32))
        >>> p.grad = np.array([1.0, -1.0], np.float32)
        >>> rule.update(p)
        >>> p.array, rule.t
        (array([0.9, 2.1], dtype=float32), 1)
    """

    is_elementwise = False
    # The array class of the parameter whose device the state was last checked against
    # (None: check at the next update), and its GPU's id (None on the CPU). On the CPU the
    # check is this one comparison.
    _state_on: Any = None
    _state_device: Optional[int] = None

    def __init__(self, parent_hyperparam: Optional[Hyperparameter] = None) -> None:
        self._state: Optional[dict[str, Any]] = None
        self.enabled = True
        self.hyperparam = Hyperparameter(parent_hyperparam, type(self).__name__)
        self.t = 0
        self._use_fp32_update = False
        self._fp32_param: Optional[variable.Parameter] = None
        self._hooks = _Hooks(type(self).__name__)
        self._scratch: list[Any] = []

    @property
    def state(self) -> Optional[dict[str, Any]]:
        """The state dict (None until the first update or a load creates it)."""
        return self._state

    def add_hook(self, hook: Callable[..., Any], name: Optional[str] = None,
                 timing: str = 'auto') -> None:
        """Adds a hook called as ``hook(rule, param)`` before or after each update.

        Args:
            hook: The callable.
            name: Its name; ``hook.name`` (or ``__name__``) if None.
            timing: ``'pre'``, ``'post'``, or ``'auto'`` (the hook's ``timing`` attribute,
                ``'pre'`` if it has none).
        """
        self._hooks.add(hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Removes the hook registered under ``name`` (KeyError if there is none)."""
        self._hooks.remove(name)

    def init_state(self, param: variable.Variable) -> None:
        """Fills :attr:`state` for ``param`` (called once, before the first update).

        Args:
            param: The parameter, whose array gives the shape and dtype of the state.
        """

    def update(self, param: variable.Variable) -> None:
        """Updates ``param`` in place from its gradient, calling the hooks around it.

        Does nothing if the rule is disabled, and (after counting the step, as Chainer does)
        nothing if the parameter has no array or no gradient yet. A gradient that was scaled by
        ``backward(loss_scale=...)`` is divided back first.

        Args:
            param: The parameter (a Variable) to update.
        """
        if not self.enabled:
            return
        self.t += 1
        # (the array's dtype: an uninitialised parameter may not know its dtype yet)
        data = param._data
        if data is None:
            return
        if data.__class__ is not numpy.ndarray:
            self._update_gpu(param, data)
        elif self._use_fp32_update and data.dtype == numpy.float16:
            self._update_fp32(param)
        else:
            self._update(param)

    def _update_gpu(self, param: variable.Variable, data: Any) -> None:
        # The parameter's GPU is the current device during its update (several GPUs).
        with data.device:
            if self._use_fp32_update and data.dtype == numpy.float16:
                self._update_fp32(param)
            else:
                self._update(param)

    def _update(self, param: variable.Variable) -> None:
        # The steps of update() once the parameter has an array: the hot path of every step.
        node = param._node
        if node is None:
            return
        gv = node.grad_var
        data = param._data
        if gv is None or data is None:
            return
        if getattr(param, '_grad_never_cleared', False):
            cast(variable.Parameter, param).check_grad_for_update()
        if self._state is None:
            self._state = {}
            self.init_state(param)
            self._state_on = data.__class__
        else:
            on = self._state_on
            if on is not data.__class__ or on is not numpy.ndarray:
                self._follow(data)
        if node._loss_scale is not None:
            gv._data /= node._loss_scale
            # Consumed: a later update must not divide again, nor a per-rule hook rescale.
            node._loss_scale = None
        hooks = self._hooks
        if hooks.pre:
            for hook in tuple(hooks.pre.values()):
                hook(self, param)
        self.update_core(param)
        if hooks.post:
            for hook in tuple(hooks.post.values()):
                hook(self, param)

    def _follow(self, data: Any) -> None:
        # As Chainer 7 at every update: the state goes to the device of the parameter's array
        # (after model.to_device, or a load that gave host arrays to a GPU parameter). The
        # work arrays are dropped rather than moved.
        cls = data.__class__
        device_id = None if cls is numpy.ndarray else data.device.id
        if cls is self._state_on and device_id == self._state_device:
            return  # (a GPU parameter that stayed on its GPU: the common case there)
        state = self._state
        assert state is not None
        for key, value in state.items():
            if variable._is_array(value) and not _same_device(value, data):
                state[key] = backend.get_device_from_array(data).send(value)
        self._drop_scratch()
        self._state_on = cls
        self._state_device = device_id

    def _drop_scratch(self) -> None:
        # Forgets the work arrays of scratch() (they may be on another device now).
        self._scratch = []

    def _update_fp32(self, param: variable.Variable) -> None:
        if param.array is None:
            return
        grad = param.grad
        if grad is None:
            return
        if isinstance(param, variable.Parameter):
            param.check_grad_for_update()
        fp32 = self._fp32_param
        if fp32 is not None and not _same_device(fp32._data, param.array):
            # The parameter moved (model.to_device): its float32 copy follows.
            fp32.to_device(backend.get_device_from_array(param.array))
        if fp32 is None:
            fp32 = self._fp32_param = variable.Parameter(
                param.array.astype(numpy.float32), name=param.name)
        fp32.grad = grad.astype(numpy.float32)
        fp32.node._loss_scale, param.node._loss_scale = param.node._loss_scale, None
        self._update(fp32)
        numpy.copyto(param.array, fp32.array, casting='same_kind')
        fp32.cleargrad()

    def update_core(self, param: variable.Variable) -> None:
        """Does the arithmetic of one update.

        chainlite's own rules override it with arithmetic that runs on any device. The
        default, for rules written against Chainer's API, calls :meth:`update_core_cpu` for a
        parameter on the CPU and :meth:`update_core_gpu` for one on a GPU, as Chainer does.

        Args:
            param: The parameter; its gradient is not None.
        """
        data = param._data
        if data is None or data.__class__ is numpy.ndarray:
            self.update_core_cpu(param)
        else:
            self.update_core_gpu(param)

    def update_core_cpu(self, param: variable.Variable) -> None:
        """The update on NumPy arrays, for rules written against Chainer's API."""
        raise NotImplementedError('%s implements neither update_core nor update_core_cpu'
                                  % type(self).__name__)

    def update_core_gpu(self, param: variable.Variable) -> None:
        """The update on CuPy arrays, for rules written against Chainer's API.

        The default calls :meth:`update_core_cpu` (Chainer's raises NotImplementedError): a
        rule whose arithmetic asks the array module of its arrays runs on both devices.
        """
        self.update_core_cpu(param)

    def update_core_chainerx(self, param: variable.Variable) -> None:
        """Chainer's update for ChainerX arrays: here :meth:`update_core_cpu`.

        chainlite holds NumPy arrays only; Chainer's default likewise runs the NumPy update
        (on a view of the ChainerX array).
        """
        self.update_core_cpu(param)

    def scratch(self, like: numpy.ndarray, index: int = 0,
                dtype: DTypeSpec = None) -> numpy.ndarray:
        """A work array shaped like ``like``, kept by the rule and reused across updates.

        It spares a rule the temporary arrays NumPy would allocate and free at every step;
        it is not part of :attr:`state` and is never serialized. Its contents are garbage.

        Args:
            like: The array whose shape (and, unless ``dtype`` is given, dtype) it takes.
            index: Which of the rule's work arrays (a rule may need several at once).
            dtype: The dtype, if it differs from ``like``'s.

        Returns:
            An uninitialised array.
        """
        dtype = like.dtype if dtype is None else numpy.dtype(dtype)
        work = self._scratch
        if index < len(work):
            a = work[index]
            if a is not None and a.shape == like.shape and a.dtype == dtype:
                return a
        while len(work) <= index:
            work.append(None)
        a = work[index] = backend.get_array_module(like).empty(like.shape, dtype)
        return a

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``t`` and the state (as ``t``, then one entry per state key).

        A rule that has not updated yet has no state: saving then writes ``t`` only, and
        loading creates the state from the entries found. As in Chainer, a file written
        before any update therefore lacks the state entries, and loading it into a stateful
        rule raises ``KeyError`` unless the deserializer is not strict (``strict=False``).

        Args:
            serializer: A serializer or deserializer.
        """
        self.t = serializer('t', self.t)
        self._state_on = None  # a load may give host arrays to a GPU parameter
        if self._state is not None:
            for key in self._state:
                self._state[key] = serializer(key, self._state[key])
            return
        if not isinstance(serializer, serializer_module.Deserializer):
            return
        # Which keys the state has: let init_state fill it for a dummy one-element parameter.
        self._state = {}
        dummy = numpy.zeros(1, numpy.float32)
        self.init_state(variable.Variable(dummy, grad=dummy))
        for key in list(self._state):
            try:
                value = serializer(key, None)
            except KeyError:
                value = None
                if self.enabled:
                    self._state = None
                    raise
            if value is None:
                # Not in the snapshot: the first update will create the state.
                self._state = None
                return
            self._state[key] = value

    def use_fp32_update(self, flag: bool = True) -> None:
        """Updates float16 parameters through a float32 copy (Chainer's mixed precision).

        The gradient is cast to float32, the float32 copy updated, and the parameter set to
        its value cast back to float16.

        Args:
            flag: Whether to use it.
        """
        self._use_fp32_update = flag


class Optimizer:
    """Base class of the optimizers: it updates the parameters of a target link.

    Subclasses implement :meth:`update`. Hooks added with :meth:`add_hook` run before or after
    each update: a hook with ``call_for_each_param = True`` is called as
    ``hook(param.update_rule, param)`` for every parameter, others as ``hook(optimizer)``.

    Attributes:
        target: The link set by :meth:`setup`.
        t (int): The number of updates.
        epoch (int): The epoch count, advanced by :meth:`new_epoch`.
        use_auto_new_epoch (bool): True when an updater calls ``new_epoch(auto=True)``.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> from chainlite import optimizers
        >>> model = chainlite.Link()
        >>> with model.init_scope():
        ...     model.W = chainlite.Parameter(np.array([1.0, -2.0], np.float32))
        >>> opt = optimizers.SGD(lr=0.25).setup(model)
        >>> opt.update(lambda: F.sum(model.W * model.W))   # the gradient is 2 * W
        >>> model.W.array, opt.t
        (array([ 0.5, -1. ], dtype=float32), 1)
    """

    target: Optional[link_module.Link] = None
    t: int = 0
    epoch: int = 0
    use_auto_new_epoch: bool = False
    _hooks: Optional[_Hooks] = None
    _loss_scale: Optional[float] = None
    _loss_scale_max = 65504  # the largest float16
    _loss_scaling_is_dynamic = False
    _loss_scaling_isnan = False

    def setup(self, link: link_module.Link) -> Self:
        """Sets the target link, resets ``t``, ``epoch`` and the hooks, and returns self.

        Args:
            link: The link whose parameters to optimize.

        Returns:
            This optimizer, so that ``opt = SGD().setup(model)`` works.
        """
        if not isinstance(link, link_module.Link):
            raise TypeError('%s.setup: optimization target must be a link, got %s'
                            % (type(self).__name__, type(link).__name__))
        self.target = link
        self.t = 0
        self.epoch = 0
        self._hooks = _Hooks(type(self).__name__)
        return self

    def update(self, lossfun: Optional[Callable[..., Any]] = None, *args: Any,
               **kwds: Any) -> None:
        """Updates the parameters (implemented by subclasses).

        Args:
            lossfun: A callable returning the loss Variable; if None, the gradients are
                assumed computed already.
            *args: Positional arguments of ``lossfun``.
            **kwds: Keyword arguments of ``lossfun``.
        """
        raise NotImplementedError

    def new_epoch(self, auto: bool = False) -> None:
        """Advances :attr:`epoch` by one.

        Args:
            auto: True when an updater calls it; then :attr:`use_auto_new_epoch` must be set,
                and when it is set nobody else may call it.
        """
        if auto and not self.use_auto_new_epoch:
            raise RuntimeError('invalid new_epoch call with auto=True.\nFix the updater to set '
                               'optimizer.use_auto_new_epoch = True.')
        if not auto and self.use_auto_new_epoch:
            raise RuntimeError('duplicated new_epoch with the updater.\nPass '
                               'auto_new_epoch=False to the updater or stop calling new_epoch '
                               'outside the updater.')
        self.epoch += 1

    def _check_set_up(self) -> _Hooks:
        hooks = self._hooks
        if hooks is None:
            raise RuntimeError('%s is not set up. Call `setup` method.' % type(self).__name__)
        return hooks

    def _target(self) -> link_module.Link:
        # The target link, for methods that need one (a clear error before setup).
        target = self.target
        if target is None:
            raise RuntimeError('%s is not set up. Call `setup` method.' % type(self).__name__)
        return target

    def add_hook(self, hook: Callable[..., Any], name: Optional[str] = None,
                 timing: str = 'auto') -> None:
        """Registers a hook called at every update.

        Args:
            hook: The callable; see the class docstring for how it is called.
            name: Its name; ``hook.name`` (or ``__name__``) if None.
            timing: ``'pre'`` (before the parameters are updated), ``'post'`` (after), or
                ``'auto'``: the hook's ``timing`` attribute, ``'pre'`` if it has none.
        """
        self._check_set_up().add(hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Removes the hook registered under ``name`` (KeyError if there is none)."""
        self._check_set_up().remove(name)

    def call_hooks(self, timing: str = 'pre') -> None:
        """Calls the hooks of ``timing`` (``'pre'`` or ``'post'``) in registration order."""
        for hook in tuple(self._check_set_up().get(timing).values()):
            self.call_hook(hook)

    def call_hook(self, hook: Callable[..., Any]) -> None:
        """Calls one hook: per parameter if ``hook.call_for_each_param``, else with self."""
        if getattr(hook, 'call_for_each_param', False):
            # (an uninitialised parameter has nothing to update, nor a gradient to read)
            for param in self._target().params(include_uninit=False):
                data = param._data
                if data.__class__ is numpy.ndarray:
                    hook(param.update_rule, param)
                else:  # on the parameter's GPU, as its update
                    with data.device:
                        hook(param.update_rule, param)
        else:
            hook(self)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``t``, ``epoch`` and each update rule (not the parameters).

        Each rule is stored under its parameter's path, e.g. ``predictor/l1/W/m``.

        Args:
            serializer: A serializer or deserializer.
        """
        self.t = serializer('t', self.t)
        self.epoch = serializer('epoch', self.epoch)
        for name, param in self._target().namedparams():
            rule = getattr(param, 'update_rule', None)
            if rule is not None:
                rule.serialize(serializer[name.lstrip('/')])

    def loss_scaling(self, interval: int = 1000, scale: Optional[float] = None) -> None:
        """Turns on loss scaling (for float16 training).

        With ``scale`` given the loss is always multiplied by it. Without, the scale is
        dynamic: it starts at 1, doubles every update until a gradient overflows, then halves
        at each overflow (skipping that update) and grows by ``2 ** (1 / interval)`` per update
        otherwise.

        Args:
            interval: Updates for the dynamic scale to double after an overflow was seen.
            scale: A static scale, or None for a dynamic one.
        """
        if scale is None:
            if interval < 1:
                raise ValueError('%s.loss_scaling: interval must be greater than or equal to '
                                 '1. Actual: %s' % (type(self).__name__, interval))
            self._loss_scaling_is_dynamic = True
            self._loss_scale = 1.0
            self._loss_scaling_multiplier = math.pow(2.0, 1.0 / interval)
            self._loss_scaling_isnan_ever = False
        else:
            if scale <= 0:
                raise ValueError('%s.loss_scaling: loss_scale must be a positive number. '
                                 'Actual: %s' % (type(self).__name__, scale))
            self._loss_scale = scale

    def set_loss_scale(self, loss_scale: float) -> None:
        """Sets a static loss scale (``loss_scaling(scale=loss_scale)``)."""
        self.loss_scaling(scale=loss_scale)

    def check_nan_in_grads(self) -> None:
        """Notes (and warns) whether a gradient is not finite, under dynamic loss scaling."""
        self._loss_scaling_isnan = False
        if not self._loss_scaling_is_dynamic:
            return
        for name, finite in _finite_grads(self._target()):
            if not finite:
                self._loss_scaling_isnan = True
                self._loss_scaling_isnan_ever = True
                warnings.warn('Non finite number found in param.grad of %s (iteration: %d, '
                              'loss_scale: %s)' % (name, self.t, self._loss_scale))

    def is_safe_to_update(self) -> bool:
        """False when dynamic loss scaling found a non-finite gradient in this update."""
        return not self._loss_scaling_isnan

    def update_loss_scale(self) -> None:
        """Grows or shrinks the dynamic loss scale after an update."""
        if not self._loss_scaling_is_dynamic:
            return
        if self._loss_scaling_isnan:
            multiplier = 0.5
        elif self._loss_scaling_isnan_ever:
            multiplier = self._loss_scaling_multiplier
        else:
            multiplier = 2.0
        scale = cast(float, self._loss_scale)  # set by loss_scaling when dynamic
        self._loss_scale = max(1, min(self._loss_scale_max, scale * multiplier))


def _zeros_like(data: Any) -> Any:
    # A zero gradient for `data`, on its device (CuPy allocates on the current GPU).
    if data.__class__ is numpy.ndarray:
        return numpy.zeros_like(data)
    with data.device:
        return backend.get_array_module(data).zeros_like(data)


def _finite_grads(target: link_module.Link) -> list[tuple[str, bool]]:
    # Whether each gradient of the target is all finite, by parameter path. The GPU
    # gradients' answers come to the host together, one transfer per device, rather than
    # one wait per parameter.
    found: list[tuple[str, Any]] = []
    pending: dict[int, list[int]] = {}
    for name, param in target.namedparams(include_uninit=False):
        g: Any = param.grad  # (a NumPy or GPU array)
        if g is None:
            continue
        if g.__class__ is numpy.ndarray:
            found.append((name, bool(numpy.isfinite(g).all())))
            continue
        with g.device:
            pending.setdefault(g.device.id, []).append(len(found))
            found.append((name, numpy.isfinite(g).all()))
    for indexes in pending.values():
        first = found[indexes[0]][1]
        with first.device:
            stacked = backend.get_array_module(first).stack([found[i][1] for i in indexes])
        for i, value in zip(indexes, backend.CpuDevice().send(stacked).tolist()):
            found[i] = (found[i][0], value)
    return found


def _path_of(target: link_module.Link, param: variable.Parameter) -> Optional[str]:
    # The parameter's path in the target (e.g. /l1/W), for error messages only.
    for name, p in target.namedparams():
        if p is param:
            return name
    return None


class GradientMethod(Optimizer):
    """Base class of the first-order optimizers: one :class:`UpdateRule` per parameter.

    A subclass implements :meth:`create_update_rule`. :meth:`setup` gives every parameter of
    the target a rule; a parameter added to the target later gets one at its first update
    (Chainer leaves it without one, silently never updated).

    Attributes:
        hyperparam (Hyperparameter): The entries every rule falls back to.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite import optimizers
        >>> model = chainlite.Link()
        >>> with model.init_scope():
        ...     model.W = chainlite.Parameter(np.zeros(2, np.float32))
        >>> opt = optimizers.MomentumSGD().setup(model)
        >>> type(model.W.update_rule).__name__, model.W.update_rule.hyperparam.lr
        ('MomentumSGDRule', 0.01)
    """

    def __init__(self) -> None:
        self.hyperparam = Hyperparameter(owner=type(self).__name__)
        self._use_fp32_update = False

    def setup(self, link: link_module.Link) -> Self:
        """Sets the target link and gives each of its parameters a fresh update rule.

        Args:
            link: The link whose parameters to optimize.

        Returns:
            This optimizer.
        """
        super().setup(link)
        for param in link.params():
            self._new_rule(param)
        return self

    def _new_rule(self, param: variable.Parameter) -> UpdateRule:
        rule = param.update_rule = self.create_update_rule()
        if self._use_fp32_update:
            rule.use_fp32_update()
        return rule

    def create_update_rule(self) -> UpdateRule:
        """Returns a new update rule whose hyperparameters fall back to :attr:`hyperparam`."""
        raise NotImplementedError

    def reallocate_cleared_grads(self) -> None:
        """Gives every initialised parameter whose gradient is None a gradient of zeros."""
        for _, param in self._target().namedparams(False):
            if param.grad is None:
                param.grad = _zeros_like(param.array)

    def call_hook(self, hook: Callable[..., Any]) -> None:
        """Calls one hook, then gives zero gradients to parameters left without one."""
        super().call_hook(hook)
        self.reallocate_cleared_grads()

    def _params(self) -> list[variable.Parameter]:
        # The update's parameters: each has a rule, and a gradient safe to update with.
        target = self._target()
        params = list(target.params())  # (a Link's params() is a list already: cheap)
        for param in params:
            if param.update_rule is None:
                self._new_rule(param)
            data = param._data
            if data is not None:
                node = param._node or param._make_node()
                if node.grad_var is None:
                    param.grad = _zeros_like(data)
                elif param._grad_never_cleared:
                    param.check_grad_for_update(_path_of(target, param))
        return params

    def update(self, lossfun: Optional[Callable[..., Any]] = None, *args: Any,
               **kwds: Any) -> None:
        """Updates every parameter from its gradient, computing the gradients first if asked.

        With ``lossfun``: ``loss = lossfun(*args, **kwds)``, the target's gradients are
        cleared, and ``loss.backward()`` computes new ones. Then the 'pre' hooks run, each
        parameter's rule updates it, and the 'post' hooks run.

        Args:
            lossfun: A callable returning the loss Variable, or None if the gradients are
                computed already.
            *args: Positional arguments of ``lossfun``.
            **kwds: Keyword arguments of ``lossfun``.
        """
        hooks = self._check_set_up()
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(self, '_use_cleargrads', True):
                self._target().cleargrads()
            else:
                self._target().zerograds()
            loss.backward(loss_scale=self._loss_scale)
            del loss
        params = self._params()
        self.check_nan_in_grads()
        if hooks.pre:
            self.call_hooks('pre')
        self.t += 1
        if self.is_safe_to_update():
            self._update_params(params)
        else:
            for param in params:
                param.node._loss_scale = None
        for param in params:
            data = param._data
            if data is not None:
                node = param._node
                if node is None or node.grad_var is None:
                    param.grad = _zeros_like(data)
        if hooks.post:
            self.call_hooks('post')
        self.update_loss_scale()

    def _update_params(self, params: list[variable.Parameter]) -> None:
        # Each parameter's rule updates it (optimizers may update several in one go).
        for param in params:
            rule = param.update_rule
            if rule is not None:  # _params gave every parameter one
                rule.update(param)

    def use_cleargrads(self, use: bool = True) -> None:
        """Chooses ``cleargrads`` (default) or ``zerograds`` in :meth:`update` (deprecated)."""
        warnings.warn('GradientMethod.use_cleargrads is deprecated.', DeprecationWarning,
                      stacklevel=2)
        self._use_cleargrads = use

    def use_fp32_update(self, flag: bool = True) -> None:
        """Updates float16 parameters through float32 copies (see
        :meth:`UpdateRule.use_fp32_update`), for the present rules and those created later."""
        self._use_fp32_update = flag
        if self.target is not None:
            for param in self.target.params():
                if param.update_rule is not None:
                    param.update_rule.use_fp32_update(flag)


_DEPRECATED_HOOKS = ('WeightDecay', 'Lasso', 'GradientClipping', 'GradientNoise',
                     'GradientHardClipping')


def __getattr__(name: str) -> Any:
    # Chainer 3's spelling chainer.optimizer.WeightDecay (and the other hooks) still works.
    if name in _DEPRECATED_HOOKS:
        warnings.warn('chainer.optimizer.{0} is deprecated from v4. Use '
                      'chainer.optimizer_hooks.{0} instead.'.format(name), DeprecationWarning,
                      stacklevel=2)
        from chainlite import optimizer_hooks
        return getattr(optimizer_hooks, name)
    raise AttributeError('module %r has no attribute %r' % (__name__, name))


def make_deprecation_message(module_name: str) -> str:
    """Returns the warning Chainer gave for an optimizer hook reached through ``optimizer``.

    Chainer 4 moved ``chainer.optimizer.WeightDecay`` (and the other hooks) to
    ``chainer.optimizer_hooks``; old hooks of libraries build their warning with this.

    Args:
        module_name: The hook's name, such as ``'WeightDecay'``.

    Returns:
        The message.

    Example:
        >>> make_deprecation_message('Lasso')
        'chainer.optimizer.Lasso is deprecated from v4. Use chainer.optimizer_hooks.Lasso instead.'
    """
    return ('chainer.optimizer.{0} is deprecated from v4. Use chainer.optimizer_hooks.{0} '
            'instead.'.format(module_name))
