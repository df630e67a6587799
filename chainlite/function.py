"""Old-style functions (``chainer.Function``): forward and backward on arrays.

For users' code written for Chainer 1/2, such as the classic Legendre-polynomial example.
The library's own ops are all :class:`~chainlite.FunctionNode`; an old-style function is run
through an adapter node. Its backward works on arrays, so it can be differentiated once;
differentiating its gradient again raises a clear error.

As in Chainer, ``no_backprop_mode``, ``force_backprop_mode`` (from
:mod:`chainlite.configuration`) and :class:`~chainlite.FunctionHook` can be imported from here.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

import numpy

from chainlite import configuration
from chainlite import function_node
# Chainer kept these in chainer.function too (old code imports them from there).
from chainlite.configuration import force_backprop_mode as force_backprop_mode
from chainlite.configuration import no_backprop_mode as no_backprop_mode
from chainlite.function_hook import FunctionHook as FunctionHook


class Function:
    """Base class of old-style functions.

    Implement ``forward(inputs)`` and ``backward(inputs, grad_outputs)`` on tuples of arrays
    (or ``forward_cpu`` / ``backward_cpu``). All inputs are retained for backward unless
    :meth:`retain_inputs` says otherwise; outputs only if :meth:`retain_outputs` asks.

    Example:
        >>> import numpy as np, chainlite
        >>> class Legendre3(chainlite.Function):
        ...     def forward(self, inputs):
        ...         x, = inputs
        ...         return (5 * x ** 3 - 3 * x) / 2,
        ...     def backward(self, inputs, grad_outputs):
        ...         x, = inputs
        ...         gy, = grad_outputs
        ...         return gy * (15 * x ** 2 - 3) / 2,
        >>> x = chainlite.Variable(np.array([1.0]))
        >>> y = Legendre3()(x)
        >>> y.backward()
        >>> y.array, x.grad
        (array([1.]), array([6.]))
    """

    _node: Optional[FunctionAdapter] = None

    def __call__(self, *inputs: Any) -> Any:
        """Applies the function to Variables or arrays.

        Returns:
            One Variable if there is one output, else a tuple of Variables.
        """
        node = self._node
        if node is None or node._applied:
            # A fresh node per application (a Function object may be called again); the
            # hooks registered on this Function move along to it.
            old = node
            node = self._node = FunctionAdapter(self)
            if old is not None:
                for name, hook in list(old.local_function_hooks.items()):
                    old.delete_hook(name)
                    node.add_hook(hook, name)
        ret = node.apply(inputs)
        retained = node._output_indexes_to_retain
        if retained and node._retained_output_data:
            # As Chainer, the nodes of retained outputs hold their arrays (``y.node.data``).
            for i in retained:
                ret[i].node.retain_data(ret[i].array)
        return ret[0] if len(ret) == 1 else ret

    @property
    def node(self) -> 'FunctionAdapter':
        """The :class:`FunctionAdapter` that represents this call in the graph."""
        if self._node is None:
            self._node = FunctionAdapter(self)
        return self._node

    @property
    def label(self) -> str:
        """A short name for messages (the class name by default)."""
        return type(self).__name__

    @property
    def local_function_hooks(self) -> dict:
        """The hooks registered on this function only (see :meth:`add_hook`)."""
        return self.node.local_function_hooks

    def add_hook(self, hook: Any, name: Optional[str] = None) -> None:
        """Registers a :class:`~chainlite.FunctionHook` on this function only.

        It sees this function's forward (if registered before the call) and backward.

        Args:
            hook: The hook.
            name: Its key (the hook's ``name`` by default).
        """
        self.node.add_hook(hook, name)

    def delete_hook(self, name: str) -> None:
        """Unregisters the hook registered under ``name`` on this function."""
        self.node.delete_hook(name)

    @property
    def inputs(self) -> Optional[tuple[Any, ...]]:
        """The input nodes of the last call."""
        return self.node.inputs

    @property
    def outputs(self) -> Optional[tuple[Any, ...]]:
        """Weak references to the output nodes of the last call."""
        return self.node.outputs

    def unchain(self) -> None:
        """Removes the last call's node from the graph (:meth:`FunctionNode.unchain`).

        Its outputs lose their creator and it drops its inputs.
        """
        self.node.unchain()

    @property
    def rank(self) -> int:
        """The rank of the last call in the graph."""
        return self.node.rank

    @property
    def stack(self) -> Any:
        """Where the last call happened (debug mode only)."""
        return self.node.stack

    @property
    def output_data(self) -> tuple[Any, ...]:
        """The retained output arrays (None where not retained)."""
        return self.node.output_data

    def check_type_forward(self, in_types: Any) -> None:
        """Checks input types with :mod:`chainlite.utils.type_check`; accepts all by default."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes outputs from input arrays (defaults to :meth:`forward_cpu`)."""
        return self.forward_cpu(inputs)

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """The NumPy forward; override it or :meth:`forward`."""
        raise NotImplementedError('%s must implement forward (or forward_cpu)' % self.label)

    def backward(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> Sequence[Any]:
        """Computes input gradients as arrays (defaults to :meth:`backward_cpu`)."""
        return self.backward_cpu(inputs, grad_outputs)

    def backward_cpu(self, inputs: tuple[Any, ...],
                     grad_outputs: tuple[Any, ...]) -> Sequence[Any]:
        """The NumPy backward; by default no input gets a gradient."""
        return tuple(None for _ in inputs)

    def retain_inputs(self, indexes: Iterable[int]) -> None:
        """Inside forward: keep only these inputs for backward (others arrive as None)."""
        self.node.retain_inputs(indexes)

    def retain_outputs(self, indexes: Iterable[int], retain_after_backward: bool = False) -> None:
        """Inside forward: keep these outputs, readable as :attr:`output_data` in backward."""
        self.node.retain_outputs(indexes)


class FunctionAdapter(function_node.FunctionNode):
    """The :class:`~chainlite.FunctionNode` that runs an old-style :class:`Function`."""

    _function: Function
    _applied = False  # forward ran: a new call of the Function needs a new node

    def __init__(self, function: Function) -> None:
        self._function = function

    @property
    def function(self) -> Function:
        """The wrapped old-style function."""
        return self._function

    @property
    def label(self) -> str:
        return self._function.label

    def check_type_forward(self, in_types: Any) -> None:
        self._function.check_type_forward(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._applied = True
        self.retain_inputs(range(len(inputs)))
        outputs = self._function.forward(inputs)
        if isinstance(outputs, list):
            outputs = tuple(outputs)
        if not isinstance(outputs, tuple):
            raise TypeError('%s.forward must return a tuple of arrays, got %s'
                            % (self.label, type(outputs).__name__))
        self._output_info = tuple(None if y is None else (numpy.shape(y), numpy.result_type(y))
                                  for y in outputs)
        return outputs

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        retained = set(self._input_indexes_to_retain or ())
        nodes = self.inputs or ()
        in_data = tuple(n.data if i in retained else None for i, n in enumerate(nodes))
        # Old-style backward methods expect arrays, so unused float outputs get zeros; an
        # output that cannot have a gradient (an integer one, or None) gets None, as in
        # Chainer.
        from chainlite import backend
        xp = backend.get_array_module(*[g.array for g in grad_outputs if g is not None])
        gys = tuple(g.array if g is not None else
                    None if info is None or info[1].kind not in 'fc' else
                    xp.zeros(info[0], info[1])
                    for g, info in zip(grad_outputs, self._output_info))
        raw = self._function.backward(in_data, gys)
        if not isinstance(raw, (tuple, list)):
            raise TypeError('%s.backward must return a tuple of arrays, got %s'
                            % (self.label, type(raw).__name__))
        if len(raw) != len(nodes):
            raise ValueError('%s.backward returned %d gradients for %d inputs'
                             % (self.label, len(raw), len(nodes)))
        gxs = [self._checked_grad(i, raw[i]) for i in indexes]
        if not configuration.config.enable_backprop:
            from chainlite import variable
            return tuple(None if g is None else variable.Variable(g, requires_grad=False)
                         for g in gxs)
        # Double backprop: the gradients hang from a node that refuses to be differentiated.
        sources = [g for g in grad_outputs if g is not None] + list(
            self.get_retained_inputs())
        outs = _NotTwiceDifferentiable(self.label, gxs).apply(sources)
        it = iter(outs)
        return tuple(None if g is None else next(it) for g in gxs)


    def _checked_grad(self, i: int, gx: Any) -> Optional[numpy.ndarray]:
        # As Chainer's check of old-style gradients: a wrong type or dtype is a TypeError, a
        # wrong shape a ValueError, each naming the function (and, in debug mode, where it
        # was applied). NumPy scalars (what 0-d arithmetic returns) become 0-d arrays.
        if gx is None:
            return None
        if isinstance(gx, numpy.generic):
            gx = numpy.asarray(gx)
        x = self.inputs[i]  # type: ignore[index]  # (linked: backward runs)
        error: type[Exception]
        from chainlite import variable
        if not variable._is_array(gx):
            error, msg = TypeError, ('Type of grad is invalid:\nExpected: Any of (%s,)\n'
                                     'Actual: %s' % (numpy.ndarray, type(gx)))
        elif gx.dtype != x.dtype:
            error, msg = TypeError, ('Dtype of data and grad mismatch\ngrad: %s != data: %s'
                                     % (gx.dtype, x.dtype))
        elif gx.shape != x.shape:
            error, msg = ValueError, ('Shape of data and grad mismatch\ngrad: %s != data: %s'
                                      % (gx.shape, x.shape))
        else:
            return gx
        # (In debug mode, backprop adds where the function was applied.)
        raise error('Function `%s` (%s) has a bug: gradient %d of its backward is wrong.\n%s'
                    % (type(self._function).__name__, self.label, i, msg))


class _NotTwiceDifferentiable(function_node.FunctionNode):
    # Returns precomputed gradients; differentiating them is what old-style code cannot do.

    def __init__(self, label: str, gxs: list[Any]) -> None:
        self._label = self._old_style_label = label
        self._gxs = [g for g in gxs if g is not None]

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(self._gxs)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise RuntimeError(
            'cannot twice-differentiate an old style Function "%s": its backward works on '
            'arrays. Rewrite it as a chainlite.FunctionNode whose backward uses Variables '
            '(see docs/custom_functions.md).' % self._label)
