"""FunctionNode: one differentiable operation, and the graph edge it leaves behind.

:meth:`FunctionNode.apply` is the hot path of the whole framework. It unwraps the inputs,
runs :meth:`forward` on arrays, wraps the outputs, and only when backprop is enabled and an
input requires a gradient does it link the graph: inputs held as nodes, outputs held by weak
reference, nothing retained unless :meth:`retain_inputs` / :meth:`retain_outputs` asked.
"""
from __future__ import annotations

import traceback
import weakref
from typing import Any, Iterable, Optional, Sequence

import numpy

from chainlite import _lazy
from chainlite.backends import cuda as _cuda
from chainlite import configuration
from chainlite import variable
from chainlite.utils import type_check

_config = configuration.config
# The number of function hooks registered anywhere (chainlite.function_hook keeps it): while
# it is 0, apply() and backward skip the hook machinery with this one check.
_hooks_active = 0
_ndarray = numpy.ndarray
_Variable = variable.Variable
_VariableNode = variable.VariableNode
_new_variable = variable._new_variable
_object_new = object.__new__
_ref = weakref.ref
# The static-graph recorder while a static chain's first call runs (else None); see
# chainlite.graph_optimizations.static_graph. It raises _hooks_active while set.
_recorder: Any = None


class NonFiniteError(RuntimeError):
    """NaN or inf found by debug mode (``chainlite.config.debug``) in a function's result.

    The message is Chainer's (``NaN is detected on forward computation of ...``), plus the
    function whose backward pass ran this one, when it ran inside one.

    Attributes:
        kind: ``'NaN'`` or ``'inf'``.
        phase: ``'forward'`` (an output) or ``'backward'`` (a gradient).
        label: The function whose result it is.
        backward_of: The function whose backward pass ran it, if it ran inside one (a
            ``_ / _`` inside the backward of ``sqrt``, say), else None.
    """

    def __init__(self, kind: str, phase: str, label: str, stack: Any = None,
                 backward_of: Any = None) -> None:
        self.kind, self.phase, self.label, self.backward_of = kind, phase, label, backward_of
        message = '%s is detected on %s computation of %s (debug mode): in the %s' % (
            kind, phase, label, 'output' if phase == 'forward' else 'gradient')
        if backward_of is not None:
            message += ', in the backward pass of %s' % backward_of.label
            stack = backward_of.stack
        message += '.'
        if stack:
            message += '\nThe function%s was applied at:\n%s' % (
                '' if backward_of is None else ' ' + backward_of.label,
                ''.join(traceback.format_list(stack[-5:])))
        super().__init__(message)


class FunctionNode:
    """Base class of differentiable functions (Chainer's new-style functions).

    Subclasses implement :meth:`forward` on arrays and :meth:`backward` on Variables, so the
    backward pass is itself built from differentiable functions and supports double backprop.

    Attributes:
        inputs: Tuple of the input :class:`~chainlite.variable.VariableNode` objects (set when
            the graph is linked).
        outputs: Tuple of weak references to the output nodes (a property).
        rank: The maximum rank of the inputs; backward visits higher ranks first.
        stack: The traceback where the function was applied (debug mode only).

    Example:
        >>> import numpy as np, chainlite
        >>> class Square(chainlite.FunctionNode):
        ...     def forward(self, inputs):
        ...         x, = inputs
        ...         self.retain_inputs((0,))
        ...         return x * x,
        ...     def backward(self, indexes, grad_outputs):
        ...         x, = self.get_retained_inputs()
        ...         gy, = grad_outputs
        ...         return 2 * x * gy,
        >>> x = chainlite.Variable(np.array([3.0]))
        >>> y, = Square().apply((x,))
        >>> y.backward()
        >>> x.grad
        array([6.])
    """

    # One input node (one output weak reference) is held bare, several in a tuple: a graph of
    # unary ops then leaves two objects less per op for Python's cyclic GC to scan.
    _ins: Any = None
    _outs: Any = None
    rank: int = 0
    stack: Any = None
    # What retain_inputs/retain_outputs were given (any iterable until the graph is linked).
    _input_indexes_to_retain: Any = None
    _output_indexes_to_retain: Any = None
    _retained_output_data: Optional[tuple[Any, ...]] = None
    _checks_types = False
    _check_mode = 0  # 0: no checks, 1: float inputs only, 2: run _run_checks
    _accumulates = False  # the class overrides backward_accumulate (backprop then calls it)
    # Declarative checks that apply() runs cheaply, so ops need no check_type_forward for them:
    # all inputs floating point; all inputs of one dtype and broadcastable shapes.
    _float_inputs = False
    _elementwise = False
    _arg_names: Optional[tuple[str, ...]] = None  # names for the inputs in error messages
    _function: Any = None  # the old-style Function when this node is its adapter
    _none_output = False  # forward returned None for an output (see _output_array)
    # An optional second form of backward, on arrays: ``_backward_arrays(indexes,
    # grad_outputs, inputs, outputs)`` gets the output gradients and the retained input and
    # output arrays (None where nothing was retained; it must read only what forward
    # retained) and returns one array (or None) per target index, computed as backward()
    # computes them but with no Variable and no graph node in between. Backprop without
    # double backprop calls it instead of backward(), and so does a replayed static graph.
    # None: backward() on Variables only.
    _backward_arrays: Any = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Decided once per class, so apply() skips type checking for ops that define none.
        cls._checks_types = cls.check_type_forward is not FunctionNode.check_type_forward
        cls._accumulates = cls.backward_accumulate is not FunctionNode.backward_accumulate
        only_float = cls._float_inputs and not (cls._checks_types or cls._elementwise)
        cls._check_mode = 1 if only_float else 2 if (
            cls._checks_types or cls._float_inputs or cls._elementwise) else 0

    @property
    def inputs(self) -> Optional[tuple[Any, ...]]:
        """Tuple of the input :class:`~chainlite.variable.VariableNode` objects."""
        i = self._ins
        if i is None or i.__class__ is tuple:
            return i
        return (i,)

    @inputs.setter
    def inputs(self, nodes: Optional[Iterable[Any]]) -> None:
        if nodes is not None:
            nodes = tuple(nodes)
            if len(nodes) == 1:
                nodes = nodes[0]
        self._ins = nodes

    @property
    def outputs(self) -> Optional[tuple[Any, ...]]:
        """Tuple of weak references to the output nodes (None before the graph is linked)."""
        o = self._outs
        if o is None or o.__class__ is tuple:
            return o
        return (o,)

    @outputs.setter
    def outputs(self, refs: Optional[Iterable[Any]]) -> None:
        if refs is not None:
            refs = tuple(refs)
            if len(refs) == 1:
                refs = refs[0]
        self._outs = refs

    @property
    def label(self) -> str:
        """A short name for messages and graph dumps (the class name by default)."""
        return type(self).__name__

    @property
    def _impl_name(self) -> str:
        # Chainer's name of the implementing class (the wrapped one for an old-style Function).
        f = self._function
        return type(self if f is None else f).__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            'A function class object (%s) which is derived from chainlite.FunctionNode has '
            'been called as if it were a callable. Use apply() method instead.'
            % type(self).__name__)

    @property
    def local_function_hooks(self) -> dict[str, Any]:
        """Hooks registered on this function only (kept for Chainer compatibility)."""
        hooks = self.__dict__.get('_local_function_hooks')
        if hooks is None:
            hooks = {}
            self._local_function_hooks: dict[str, Any] = hooks
        return hooks

    # -- forward -------------------------------------------------------------------------------

    def apply(self, inputs: Sequence[Any]) -> tuple[variable.Variable, ...]:
        """Computes the outputs and, if backprop is enabled, records this function in the graph.

        Args:
            inputs: Variables or arrays.

        Returns:
            A tuple of output Variables.
        """
        try:
            if len(inputs) == 1:
                x = inputs[0]
                in_data: tuple[Any, ...] = (x._data,)
                requires_grad = x._requires_grad
            elif len(inputs) == 2:
                x, x1 = inputs
                in_data = (x._data, x1._data)
                requires_grad = x._requires_grad or x1._requires_grad
            else:
                in_data = tuple([x._data for x in inputs])
                requires_grad = any([x._requires_grad for x in inputs])
        except (AttributeError, TypeError):
            # Arrays, or an iterator (which must not be consumed twice), take the slow road.
            inputs = tuple([x if isinstance(x, _Variable) else self._wrap_input(x, i)
                            for i, x in enumerate(tuple(inputs))])
            in_data = tuple([x._data for x in inputs])
            requires_grad = any([x._requires_grad for x in inputs])
        cfg = _config
        checks = self._check_mode
        try:
            if checks:
                if checks == 1:  # float inputs only: the common case, inline
                    for a in in_data:
                        if a.dtype.kind != 'f':
                            self._float_input_error(in_data)
                else:
                    self._run_checks(in_data, cfg)

            if _cuda._gpu_types and (device := _other_gpu(in_data)) is not None:
                outputs = self._forward_on_gpu(in_data, device)
            elif _hooks_active:
                outputs = self._forward_with_hooks(in_data)
            else:
                outputs = self.forward(in_data)
        except (AttributeError, TypeError):
            self._missing_data_error(in_data)
            raise
        return self._wrap_outputs(inputs, in_data, outputs, requires_grad, cfg)

    def _forward_on_gpu(self, in_data: tuple, device: Any) -> Any:
        # As Chainer: the forward runs with the inputs' GPU current (CuPy refuses kernels on
        # arrays of another GPU where the two cannot reach each other's memory).
        with device:
            if _hooks_active:
                return self._forward_with_hooks(in_data)
            return self.forward(in_data)

    def _apply1(self, x: Any, record: Optional[bool] = None) -> _Variable:
        """``apply((x,))[0]`` for a one-input, one-output op: the library's unary hot path.

        The common case (a Variable in, one array out, no debug, no hooks) is handled inline;
        anything else goes through the same :meth:`_wrap_outputs` as :meth:`apply`. A caller
        that already knows whether the graph is recorded (``x.requires_grad and
        config.enable_backprop``) passes it as ``record``: one configuration read less.
        """
        try:
            d = x._data
            requires_grad = x._requires_grad
        except AttributeError:
            return self.apply((x,))[0]
        in_data = (d,)
        cfg = _config
        checks = self._check_mode
        try:
            if checks:
                if checks == 1:
                    if d.dtype.kind != 'f':
                        self._float_input_error(in_data)
                else:
                    self._run_checks(in_data, cfg)
            if _cuda._gpu_types and (device := _other_gpu(in_data)) is not None:
                outputs = self._forward_on_gpu(in_data, device)
            elif _hooks_active:
                outputs = self._forward_with_hooks(in_data)
            else:
                outputs = self.forward(in_data)
        except (AttributeError, TypeError):
            self._missing_data_error(in_data)
            raise
        if outputs.__class__ is not tuple or len(outputs) != 1 or (
                configuration.debug_was_set and cfg.debug) or \
                outputs[0].__class__ is not _ndarray:
            return self._wrap_outputs((x,), in_data, outputs, requires_grad, cfg)[0]
        y = outputs[0]
        if record is None:
            record = requires_grad and cfg.enable_backprop
        if not record:
            v = _object_new(_Variable)
            v._data = y
            if not requires_grad:
                v._requires_grad = False
            return v
        n = x._node or x._make_node()
        self._ins = n
        self.rank = rank = n.rank
        # Retention for one input and one output, inline (see _retain for the general case).
        if self._input_indexes_to_retain:
            n.data = d
        if self._output_indexes_to_retain is not None:
            idx = self._output_indexes_to_retain = tuple(self._output_indexes_to_retain)
            self._retained_output_data = outputs if idx else ()
        o = _object_new(_VariableNode)
        o.creator_node = self
        o.rank = rank + 1
        # An elementwise op shares its input's shape tuple: one object less per graph op to
        # keep (48 bytes) and for the cyclic GC to visit.
        shape = y.shape
        o.shape = n.shape if shape == n.shape else shape
        o.dtype = y.dtype
        self._outs = _ref(o)
        v = _object_new(_Variable)
        v._data = y
        v._node = o
        return v

    def _wrap_outputs(self, inputs: Sequence[Any], in_data: tuple[Any, ...], outputs: Any,
                      requires_grad: bool, cfg: Any) -> tuple[variable.Variable, ...]:
        # Everything after forward: arrays for 0-d results, debug checks, and either plain
        # outputs or the graph's links (input nodes, rank, retained data, weak outputs).
        debug = configuration.debug_was_set and cfg.debug
        if outputs.__class__ is not tuple:
            outputs = self._output_tuple(outputs)
        if len(outputs) == 1:
            y = outputs[0]
            if y.__class__ is not _ndarray:
                # NumPy turns 0-d results into scalars; the graph wants arrays everywhere.
                y = self._output_array(y, outputs)
                outputs = (y,)
                if y is None:
                    return self._wrap_outputs_with_none(inputs, in_data, outputs,
                                                        requires_grad, cfg)
            if debug:
                self._debug_check(outputs, 'forward')
            if not (requires_grad and cfg.enable_backprop):
                v = _object_new(_Variable)
                v._data = y
                if not requires_grad:
                    v._requires_grad = False
                return v,
        else:
            outputs = tuple([y if y.__class__ is _ndarray else self._output_array(y, outputs)
                             for y in outputs])
            if self._none_output:
                return self._wrap_outputs_with_none(inputs, in_data, outputs, requires_grad,
                                                    cfg)
            if debug:
                self._debug_check(outputs, 'forward')
            if not (requires_grad and cfg.enable_backprop):
                return tuple([_new_variable(y, None, requires_grad) for y in outputs])

        if len(inputs) == 1:
            n = inputs[0]._node or inputs[0]._make_node()
            rank = n.rank
            nodes: tuple[Any, ...] = (n,)
            self._ins = n
        else:
            rank = 0
            node_list = []
            for x in inputs:
                n = x._node or x._make_node()
                if n.rank > rank:
                    rank = n.rank
                node_list.append(n)
            nodes = self._ins = tuple(node_list)
        self.rank = rank
        if debug:
            # Drop the framework's own frames: the last one shown is the caller's.
            self.stack = [f for f in traceback.extract_stack() if f.filename != __file__]
        if self._input_indexes_to_retain is not None or \
                self._output_indexes_to_retain is not None:
            self._retain(nodes, in_data, outputs)

        rank += 1
        if len(outputs) == 1:
            y = outputs[0]
            shape = y.shape
            if shape == nodes[0].shape:
                shape = nodes[0].shape  # (shared, as in _apply1)
            n = _object_new(_VariableNode)
            n.creator_node = self
            n.rank = rank
            n.shape = shape
            n.dtype = y.dtype
            self._outs = _ref(n)
            v = _object_new(_Variable)
            v._data = y
            v._node = n
            return v,
        ret = []
        refs = []
        for y in outputs:
            n = _VariableNode(y.shape, y.dtype, True, None, self, rank)
            refs.append(_ref(n))
            ret.append(_new_variable(y, n, True))
        self._outs = tuple(refs)
        return tuple(ret)

    def _retain(self, nodes: tuple, in_data: tuple, outputs: tuple) -> None:
        # What retain_inputs/retain_outputs declared in forward is kept for backward.
        idx = self._input_indexes_to_retain
        if idx is not None:
            idx = self._input_indexes_to_retain = tuple(idx)
            for i in idx:
                nodes[i].data = in_data[i]
        idx = self._output_indexes_to_retain
        if idx is not None:
            idx = self._output_indexes_to_retain = tuple(idx)
            # Retaining every output (the usual case) keeps forward's own tuple.
            self._retained_output_data = outputs if len(idx) == len(outputs) and all(
                [i == j for j, i in enumerate(idx)]) else tuple([outputs[i] for i in idx])

    def _run_checks(self, in_data: tuple[Any, ...], cfg: Any) -> None:
        if self._float_inputs:
            for a in in_data:
                if a.dtype.kind != 'f':
                    self._float_input_error(in_data)
        if self._elementwise:
            a = in_data[0]
            for b in in_data:
                if b.dtype != a.dtype or b.shape != a.shape:
                    self._check_elementwise(in_data)
                    break
        if self._checks_types and cfg.type_check:
            self._check_data_type_forward(in_data)

    def _forward_with_hooks(self, in_data: tuple) -> tuple:
        # A static graph being recorded (chainlite.static_graph) counts as a hook: it sees
        # every forward, so it can replay them later without this method.
        if _recorder is not None:
            return _recorder.record(self, in_data)
        return self._forward_hooked(in_data)

    def _forward_hooked(self, in_data: tuple) -> tuple:
        from chainlite import function_hook
        hooks = function_hook.hooks_for(self)
        for hook in hooks:
            hook.forward_preprocess(self, in_data)
        outputs = self.forward(in_data)
        for hook in hooks:
            hook.forward_postprocess(self, in_data)
        return outputs

    def add_hook(self, hook: Any, name: Optional[str] = None) -> None:
        """Registers a :class:`~chainlite.FunctionHook` on this function only.

        Args:
            hook: The hook.
            name: Its key (the hook's ``name`` by default).
        """
        from chainlite import function_hook
        if not isinstance(hook, function_hook.FunctionHook):
            raise TypeError('Hook must be of type FunctionHook, got %s' % type(hook).__name__)
        name = hook.name if name is None else name
        hooks = self.local_function_hooks
        if name in hooks:
            raise KeyError('Hook %s already exists' % name)
        hooks[name] = hook
        function_hook._count(1)
        hook.added(self)

    def delete_hook(self, name: str) -> None:
        """Unregisters the hook registered under ``name`` on this function."""
        from chainlite import function_hook
        hooks = self.local_function_hooks
        if name not in hooks:
            raise KeyError('Hook %s does not exist' % name)
        hook = hooks.pop(name)
        function_hook._count(-1)
        hook.deleted(self)

    def _check_elementwise(self, in_data: tuple) -> None:
        # Slow path, reached only when dtypes or shapes differ: broadcasting is fine,
        # anything else gets type_check's message.
        in_types = type_check.get_types(in_data, 'in_types', False)
        if self._arg_names is not None:
            type_check._argname(in_types, self._arg_names)
        try:
            type_check.expect(*[in_types[0].dtype == t.dtype for t in in_types[1:]])
            type_check.expect_broadcast_shapes(*[t.shape for t in in_types])
        except type_check.InvalidType as e:
            msg = 'Invalid operation is performed in: %s (Forward)\n\n%s' % (self.label, e)
            raise type_check.InvalidType(e.expect, e.actual, msg=msg) from None

    def _missing_data_error(self, in_data: tuple) -> None:
        # Called when checks or forward failed on an attribute: a Variable(None) input is the
        # usual cause, and deserves a message naming this function rather than NoneType.
        for i, a in enumerate(in_data):
            if a is None:
                name = self._arg_name(i)
                raise TypeError('%s: input %d%s is a Variable without data (Variable(None)); '
                                'set its array before using it'
                                % (self.label, i, '' if name.startswith('in_types') else
                                   ' (%s)' % name)) from None

    def _float_input_error(self, in_data: tuple) -> None:
        # Same message as a check_type_forward would give, for ops that only need floats.
        for i, a in enumerate(in_data):
            if a.dtype.kind != 'f':
                name = self._arg_name(i)
                raise type_check.InvalidType(
                    '%s.dtype.kind == f' % name, '%s != f' % a.dtype.kind,
                    msg='Invalid operation is performed in: %s (Forward)\n\n'
                        'Expect: %s.dtype.kind == f\nActual: %s != f'
                        % (self.label, name, a.dtype.kind))

    def _arg_name(self, i: int) -> str:
        names = self._arg_names
        return names[i] if names is not None and i < len(names) else 'in_types[%d]' % i

    def _wrap_input(self, x: Any, index: int) -> _Variable:
        if isinstance(x, _ndarray) or x is None:
            # (None, as in Chainer: a Variable without data, for functions that accept it)
            return _new_variable(x, None, False)
        if isinstance(x, (numpy.generic, float, int)) and not isinstance(x, bool):
            # A 0-d array keeps NumPy's scalar dtype (a Python float becomes float64).
            return _new_variable(numpy.asarray(x), None, False)
        if variable._is_array(x):  # a GPU (CuPy) array
            return _new_variable(x, None, False)
        raise TypeError('%s: input %d must be a Variable or a numpy.ndarray, got %s'
                        % (self.label, index, type(x).__name__))

    def _wrap_outputs_with_none(self, inputs: Sequence[Any], in_data: tuple, outputs: tuple,
                                requires_grad: bool, cfg: Any) -> tuple:
        # As Chainer, forward may return None for an output: it becomes a Variable without
        # data, which no gradient reaches. Rare, so kept off _wrap_outputs' road.
        if cfg.debug:
            self._debug_check(outputs, 'forward')
        if not (requires_grad and cfg.enable_backprop):
            return tuple([_new_variable(y, None, requires_grad) for y in outputs])
        nodes = tuple([x._node or x._make_node() for x in inputs])
        self._ins = nodes[0] if len(nodes) == 1 else nodes
        self.rank = rank = max([n.rank for n in nodes]) if nodes else 0
        if cfg.debug:
            self.stack = [f for f in traceback.extract_stack() if f.filename != __file__]
        if self._input_indexes_to_retain is not None or \
                self._output_indexes_to_retain is not None:
            self._retain(nodes, in_data, outputs)
        ret = []
        refs = []
        for y in outputs:
            if y is None:
                n = _VariableNode(None, None, True, None, self, rank + 1)
            else:
                n = _VariableNode(y.shape, y.dtype, True, None, self, rank + 1)
            refs.append(_ref(n))
            ret.append(_new_variable(y, n, True))
        self._outs = refs[0] if len(refs) == 1 else tuple(refs)
        return tuple(ret)

    def _output_array(self, y: Any, outputs: tuple) -> Optional[_ndarray]:
        # An ndarray subclass or a NumPy scalar is fine, and None (a Variable without data,
        # as in Chainer); anything else is forward's bug.
        if y is None:
            self._none_output = True
            return None
        if isinstance(y, (_ndarray, numpy.generic)):
            return numpy.asarray(y)
        if variable._is_array(y):  # a GPU (CuPy) array
            return y
        raise TypeError('forward output must be a tuple of ndarrays.\nFunction: %s\n'
                        'Actual output types: %s'
                        % (self.label, tuple([type(a) for a in outputs])))

    def _output_tuple(self, outputs: Any) -> tuple[Any, ...]:
        if isinstance(outputs, list):
            return tuple(outputs)
        raise TypeError('%s.forward must return a tuple of arrays, got %s (write `return y,`)'
                        % (self.label, type(outputs).__name__))

    def _check_data_type_forward(self, in_data: tuple) -> None:
        # Cheap first: arrays stand in for type expressions and expect() only checks truth.
        try:
            self.check_type_forward(type_check.get_light_types(in_data))
            return
        except (type_check.InvalidType, IndexError, AttributeError):
            # (arrays raise IndexError where expressions would just fail the check)
            pass
        # Then slowly, with expression objects, for a message that shows what was expected.
        in_types = type_check.get_types(in_data, 'in_types', False)
        try:
            self.check_type_forward(in_types)
        except type_check.InvalidType as e:
            msg = 'Invalid operation is performed in: %s (Forward)\n\n%s' % (self.label, e)
            raise type(e)(e.expect, e.actual, msg=msg) from None  # keeps type_check._also's mix

    def _debug_check(self, arrays: Iterable[Any], phase: str) -> None:
        for a in arrays:
            if a is None:
                continue
            a = getattr(a, '_data', a)
            if a.dtype.kind in 'fc' and not numpy.isfinite(a).all():
                raise NonFiniteError('NaN' if numpy.isnan(a).any() else 'inf', phase,
                                     self.label, self.stack)

    def check_type_forward(self, in_types: Any) -> None:
        """Checks the input types with :func:`chainlite.utils.type_check.expect`.

        Override it to validate shapes and dtypes; the default accepts everything.

        Args:
            in_types: A tuple of type information, one per input (``.shape``, ``.ndim``,
                ``.dtype``, ``.size``).
        """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the outputs from input arrays. Subclasses override it (or forward_cpu).

        Args:
            inputs: A tuple of arrays.

        Returns:
            A tuple of arrays.
        """
        return self.forward_cpu(inputs)

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """The NumPy implementation, used when :meth:`forward` is not overridden."""
        raise NotImplementedError(
            '%s must implement forward (or forward_cpu)' % type(self).__name__)

    def retain_inputs(self, indexes: Iterable[int]) -> None:
        """Declares, inside :meth:`forward`, which inputs :meth:`backward` will need.

        Args:
            indexes: A tuple (or any iterable) of input indexes.
        """
        # Stored as given: converting costs time on every call, even without backprop.
        self._input_indexes_to_retain = indexes

    def retain_outputs(self, indexes: Iterable[int]) -> None:
        """Declares, inside :meth:`forward`, which outputs :meth:`backward` will need.

        Args:
            indexes: A tuple (or any iterable) of output indexes.
        """
        self._output_indexes_to_retain = indexes

    # -- backward ------------------------------------------------------------------------------

    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> Sequence[Any]:
        """Computes gradients with respect to the inputs, as Variables.

        Args:
            target_input_indexes: Sorted indexes of the inputs that need a gradient.
            grad_outputs: One Variable (or None, for an unused output) per output.

        Returns:
            A tuple with a Variable (or None) for every input, or for every target index.
            This default, for a node that defines no backward, returns None for every
            target, as Chainer's does: no gradient flows through the node to its inputs.
        """
        return (None,) * len(target_input_indexes)

    def backward_accumulate(self, target_input_indexes: tuple[int, ...],
                            grad_outputs: tuple[Any, ...],
                            grad_inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Like :meth:`backward`, but adds ``grad_inputs`` (existing gradients) to the result.

        Override it only when fusing the addition into the computation saves work: backprop
        then calls it, with the gradients the target inputs have received so far (None where
        there are none), and its results replace them.
        """
        gxs = self.backward(target_input_indexes, grad_outputs)
        if len(gxs) != len(target_input_indexes):
            gxs = tuple(gxs[i] for i in target_input_indexes)
        return tuple(gx if g is None else (g if gx is None else g + gx)
                     for gx, g in zip(gxs, grad_inputs))

    def get_retained_inputs(self) -> tuple[Any, ...]:
        """The inputs declared by :meth:`retain_inputs`, as Variables (inside backward)."""
        inputs = self._ins
        if inputs.__class__ is not tuple:
            if not self._input_indexes_to_retain:
                return ()
            if inputs.data is None:
                return None,  # the input was None (see _wrap_input)
            v = _object_new(_Variable)
            v._data = inputs.data
            v._node = inputs
            if not inputs.requires_grad:
                v._requires_grad = False
            return v,
        ret = []
        for i in self._input_indexes_to_retain or ():
            n = inputs[i]
            # (a retained input without data was None)
            ret.append(None if n.data is None else _new_variable(n.data, n, n.requires_grad))
        return tuple(ret)

    def get_retained_outputs(self) -> tuple[Any, ...]:
        """The outputs declared by :meth:`retain_outputs`, as Variables (inside backward).

        An output whose Variable was already dropped is recreated and re-linked to this
        function, so gradients through it (double backprop) still reach the inputs.
        """
        outs = self._outs
        if outs.__class__ is not tuple and self._retained_output_data:
            y, = self._retained_output_data
            n = outs()
            if n is None:
                n = _VariableNode(y.shape, y.dtype, True, None, self, self.rank + 1)
                self._outs = _ref(n)
            v = _object_new(_Variable)
            v._data = y
            v._node = n
            return v,
        if not self._retained_output_data:
            return ()
        outputs = self.outputs or ()
        ret: list = []
        new_outputs = None
        for i, y in zip(self._output_indexes_to_retain, self._retained_output_data):
            if y is None:
                ret.append(None)  # forward returned None for it
                continue
            n = outputs[i]()
            if n is None:
                n = _VariableNode(y.shape, y.dtype)
                n.creator_node = self
                n.rank = self.rank + 1
                if new_outputs is None:
                    new_outputs = list(outputs)
                new_outputs[i] = _ref(n)
            ret.append(_new_variable(y, n, True))
        if new_outputs is not None:
            self.outputs = tuple(new_outputs)
        return tuple(ret)

    @property
    def output_data(self) -> tuple[Any, ...]:
        """The retained output arrays (None for outputs that were not retained)."""
        data: list[Any] = [None] * len(self.outputs or ())
        for i, y in zip(self._output_indexes_to_retain or (), self._retained_output_data or ()):
            data[i] = y
        return tuple(data)

    def unchain(self) -> None:
        """Disconnects this function from its inputs and outputs."""
        for r in self.outputs or ():
            n = r()
            if n is not None:
                n.creator_node = None
        self._ins = None


class UfuncNode(FunctionNode):
    """A one-input op on float arrays whose forward is the NumPy ufunc ``_ufunc``.

    Subclasses set ``_ufunc`` (and what they retain, as class attributes) and are applied by
    :func:`apply_ufunc`, which can then run the ufunc without the node when nothing is
    recorded: the same arithmetic as this forward, by construction.
    """

    _float_inputs = True
    _ufunc: Any  # numpy.sin, numpy.exp, ...

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._ufunc(inputs[0]),


def apply_ufunc(cls: type[UfuncNode], x: Any) -> _Variable:
    """``cls()._apply1(x)`` for a :class:`UfuncNode` subclass.

    When nothing is recorded (backprop disabled, or an input that needs no gradient), no
    function hook is registered and debug mode was never switched on, the ufunc runs on the
    array directly: no node, no forward call, no tuples, and the same result, bit for bit.
    Otherwise, or for anything but a float ndarray, it is ``cls()._apply1(x)``.
    """
    try:
        d = x._data
        requires_grad = x._requires_grad
    except AttributeError:
        return cls()._apply1(x)
    record = requires_grad and _config.enable_backprop
    if record or _hooks_active or configuration.debug_was_set or d.__class__ is not _ndarray \
            or d.dtype.kind != 'f':
        return cls()._apply1(x, record)
    return _plain_variable(cls._ufunc(d), requires_grad)


def _other_gpu(arrays: Sequence[Any]) -> Any:
    """The ``cupy.cuda.Device`` of the first GPU array if it is not the current GPU, else
    None (also when the arrays are NumPy's). Called only while CuPy is in use."""
    gpu = _cuda._gpu_types
    for a in arrays:
        if isinstance(a, gpu):
            device = a.device
            return device if device.id != _cuda.cupy.cuda.get_device_id() else None
    return None


def _plain_variable(y: Any, requires_grad: bool) -> _Variable:
    # An op's result outside the graph, as _apply1 makes it (a 0-d result stays an array).
    v = _object_new(_Variable)
    v._data = numpy.asarray(y) if isinstance(y, numpy.generic) else y
    if not requires_grad:
        v._requires_grad = False
    return v


class _InstanceCheckTypeForward:
    """``FunctionNode.check_type_forward``, replaceable on one instance.

    Whether ``apply`` type-checks is decided once per class (see ``__init_subclass__``), so
    that ops without a check pay nothing. Assigning ``f.check_type_forward = callable`` on an
    instance of such a class (as Chainer's tests do with a mock) goes through this descriptor,
    which turns the checks on for that instance alone.
    """

    def __init__(self, default: Any) -> None:
        self.default = default
        self.__doc__ = default.__doc__

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        if obj is None:
            return self.default
        override = obj.__dict__.get('_check_type_forward_override')
        return self.default.__get__(obj, cls) if override is None else override

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__['_check_type_forward_override'] = value
        obj._checks_types = True
        obj._check_mode = 2

    def __delete__(self, obj: Any) -> None:
        obj.__dict__.pop('_check_type_forward_override', None)
        for name in ('_checks_types', '_check_mode'):
            obj.__dict__.pop(name, None)


FunctionNode.check_type_forward = _InstanceCheckTypeForward(  # type: ignore[assignment]
    FunctionNode.__dict__['check_type_forward'])


# Chainer defines grad in this module; chainlite keeps it in chainlite.backprop (which imports
# this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(__name__, {'grad': 'chainlite.backprop'})[:2]
