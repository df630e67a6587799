"""Recording any Python function as one node of the exported graph (onnx_chainer's API).

A function that leaves the graph (it computes on arrays, or calls NumPy or SciPy) cuts
the exported model in two. :func:`as_funcnode` and :func:`fake_as_funcnode` wrap it in a
:class:`WrappedFunctionNode` named as you choose; a converter given to
:func:`~chainlite.onnx.export` under that name in ``external_converters`` turns it into
ONNX nodes. Its arguments that are not Variables become attributes of the node, for the
converter to read.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Sequence

from chainlite import backprop
from chainlite import function_node
from chainlite import variable


def _is_var(x: Any) -> bool:
    return isinstance(x, variable.Variable)


def _flatten(x: Any) -> list:
    # Nested lists and tuples, flattened depth first (arrays and Variables are leaves).
    out, todo = [], [x]
    while todo:
        item = todo.pop()
        if isinstance(item, (list, tuple)):
            todo.extend(reversed(item))
        else:
            out.append(item)
    return out


class WrappedFunctionNode(function_node.FunctionNode):
    """A Python function applied as one FunctionNode.

    Args:
        name: The node's name, the key of its converter.
        func: The function.
        args: Its positional arguments.
        kwargs: Its keyword arguments.
        arg_vars: The Variables among the arguments, the node's inputs.
        attributes: Names and values set as attributes of the node.
    """

    def __init__(self, name: str, func: Callable, args: Sequence, kwargs: dict,
                 arg_vars: list, attributes: Optional[dict] = None) -> None:
        self.custom_function_node_name = name
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.arg_vars = arg_vars
        self.internal_results = None
        self.skeleton = None
        for key, value in (attributes or {}).items():
            setattr(self, key, value)

    @property
    def label(self) -> str:
        """The name given to the node."""
        return self.custom_function_node_name

    def forward(self, inputs: tuple) -> tuple:
        results = self.func(*self.args, **self.kwargs)
        self.skeleton, flat = self._skeletonize(results)
        if flat and all(_is_var(r) for r in flat):
            self.internal_results = flat
        arrays = tuple(r.array if _is_var(r) else r for r in flat)
        for a in arrays:
            if not hasattr(a, 'dtype') or not hasattr(a, 'shape'):
                raise ValueError('%s: a function wrapped by as_funcnode must return arrays or '
                                 'Variables, got %s' % (self.label, type(a).__name__))
        return arrays

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        if self.internal_results is None:
            raise ValueError('%s: the wrapped function returned arrays, so no gradient flows '
                             'through it' % self.label)
        grads = backprop.grad(self.internal_results, self.arg_vars,
                              grad_outputs=list(grad_outputs))
        return tuple(grads[i] for i in indexes)

    def _skeletonize(self, x: Any) -> tuple:
        flat: list = []

        def walk(r):
            if isinstance(r, tuple):
                return tuple(walk(e) for e in r)
            if isinstance(r, list):
                return [walk(e) for e in r]
            if isinstance(r, dict):
                return {k: walk(v) for k, v in r.items()}
            flat.append(r)
            return len(flat) - 1

        return walk(x), flat

    def reconstruct_return_value(self, outputs: Sequence) -> Any:
        """Puts ``outputs`` (one per returned array) back into the function's structure."""
        def build(s):
            if isinstance(s, tuple):
                return tuple(build(e) for e in s)
            if isinstance(s, list):
                return [build(e) for e in s]
            if isinstance(s, dict):
                return {k: build(v) for k, v in s.items()}
            return outputs[s]
        return build(self.skeleton)


def fake_as_funcnode(alt_func: Callable, name: str,
                     rename_attributes: Optional[Sequence] = None,
                     experimental_warning: bool = True) -> Callable:
    """Returns ``alt_func`` wrapped so that each call records one :class:`WrappedFunctionNode`.

    The Variables among the arguments (also inside lists and tuples) are the node's inputs;
    every other argument, defaults included, becomes an attribute of the node, named after
    the parameter (positional ones ``arg<i>``) unless ``rename_attributes`` renames it.

    Args:
        alt_func: The function; it must take at least one Variable and return arrays or
            Variables (possibly in lists, tuples or dicts, which the wrapper rebuilds).
        name: The name of the node (the key of its converter).
        rename_attributes: ``(index or keyword, attribute name)`` pairs.
        experimental_warning: Accepted for onnx_chainer compatibility; nothing is warned.

    Returns:
        The wrapping function.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite.onnx.replace_func import fake_as_funcnode
        >>> plus = fake_as_funcnode(lambda x, value=1: x.array + value, 'PlusConst')
        >>> y = plus(chainlite.Variable(np.zeros(2, np.float32)), value=3)
        >>> y.creator.label, y.creator.value, y.array
        ('PlusConst', 3, array([3., 3.], dtype=float32))
    """
    renames = {key: new for key, new in (rename_attributes or ())}
    signature = inspect.signature(alt_func)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        inputs: list = []
        attributes: dict = {}
        for position, (key, value) in enumerate(bound.arguments.items()):
            param = signature.parameters[key]
            if param.kind is inspect.Parameter.VAR_POSITIONAL:
                items: list[tuple[int | str, Any]] = [(position + i, v)
                                                      for i, v in enumerate(value)]
            elif param.kind is inspect.Parameter.VAR_KEYWORD:
                items = list(value.items())
            else:
                items = [(position if position < len(args) else key, value)]
            for k, v in items:
                flat = _flatten(v) if isinstance(v, (list, tuple)) else [v]
                is_var = [_is_var(e) for e in flat]
                if flat and all(is_var):
                    inputs.extend(flat)
                elif any(is_var):
                    raise ValueError('%s: an argument mixes Variables and other values'
                                     % name)
                else:
                    default = k if isinstance(k, str) else 'arg%d' % k
                    attributes[renames.get(k, default)] = v
        if not inputs:
            raise ValueError('%s: a function wrapped by as_funcnode needs at least one '
                             'Variable argument' % name)
        node = WrappedFunctionNode(name, alt_func, args, kwargs, inputs, attributes)
        outputs = node.apply(inputs)
        return node.reconstruct_return_value(outputs)

    return wrapper


def as_funcnode(name: str, rename_attributes: Optional[Sequence] = None) -> Callable:
    """A decorator form of :func:`fake_as_funcnode`.

    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite.onnx.replace_func import as_funcnode
        >>> @as_funcnode('Halve')
        ... def halve(x):
        ...     return x.array / 2
        >>> halve(chainlite.Variable(np.ones(1, np.float32))).creator.label
        'Halve'
    """
    def decorate(fn: Callable) -> Callable:
        return fake_as_funcnode(fn, name, rename_attributes=rename_attributes)
    return decorate
