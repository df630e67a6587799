"""Small helpers for writing converters: a node builder and the naming rules.

A converter turns one recorded :class:`~chainlite.FunctionNode` into ONNX nodes. Most of
them build a short chain of nodes with :class:`GraphBuilder`, whose intermediate values get
names derived from the function being converted, so they never collide.
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Sequence

import numpy

from chainlite.backends import cuda
from chainlite.onnx import _deps
from chainlite.serializers import _atomic

_func_name: Optional[str] = None


def set_func_name(func_name: str) -> None:
    """Sets the name of the function being converted (the prefix of its node names).

    Args:
        func_name: A name unique in the graph, such as ``'ReLU_0'``.
    """
    global _func_name
    _func_name = func_name


def get_func_name() -> str:
    """Returns the name of the function being converted (set by the exporter)."""
    if _func_name is None:
        raise RuntimeError('get_func_name() is only meaningful while a function is converted')
    return _func_name


def make_node(op_type: str, inputs: Sequence[str], outputs: Sequence[str],
              **attributes: Any) -> Any:
    """``onnx.helper.make_node`` with the node named after the function being converted.

    Args:
        op_type: The ONNX operator, e.g. ``'Relu'``.
        inputs: The input value names.
        outputs: The output value names.
        **attributes: The node's attributes (``domain=`` sets its operator domain).

    Returns:
        An ``onnx.NodeProto``.
    """
    return _deps.onnx().helper.make_node(op_type, list(inputs), list(outputs),
                                         name=get_func_name(), **attributes)


class GraphBuilder:
    """Builds a chain of ONNX nodes for one converter and names their outputs.

    Example:
        >>> from chainlite.onnx import onnx_helper
        >>> onnx_helper.set_func_name('Softplus_0')
        >>> gb = onnx_helper.GraphBuilder()
        >>> e = gb.op('Exp', ['x'])
        >>> _ = gb.op_output_named('Log', [gb.op('Add', [e, 'one'])], ['y'])
        >>> [n.op_type for n in gb.nodes()], e
        (['Exp', 'Add', 'Log'], 'Softplus_0_tmp_0')
    """

    def __init__(self) -> None:
        self._nodes: list = []
        self._func_name = get_func_name()
        self._count = 0

    def node_name(self) -> str:
        """The name of the next node (also the stem of its output names)."""
        return '%s_tmp_%d' % (self._func_name, self._count)

    def op(self, op_type: str, input_names: Sequence[str], num_outputs: int = 1,
           **attributes: Any) -> Any:
        """Adds a node with fresh output names.

        Args:
            op_type: The ONNX operator.
            input_names: The input value names (a list, never a bare string).
            num_outputs: How many outputs the node has.
            **attributes: The node's attributes.

        Returns:
            The output name, or a tuple of them when ``num_outputs`` is not 1.
        """
        stem = self.node_name()
        if num_outputs == 1:
            outputs = [stem]
        else:
            outputs = ['%s_%d' % (stem, i) for i in range(num_outputs)]
        return self.op_output_named(op_type, input_names, outputs, **attributes)

    def op_output_named(self, op_type: str, input_names: Sequence[str],
                        output_names: Sequence[str], **attributes: Any) -> Any:
        """Adds a node whose outputs have the given names.

        Returns:
            The output name, or a tuple of them when there are several.
        """
        if isinstance(input_names, str):
            raise TypeError('GraphBuilder: input_names must be a list of names, got the '
                            'string %r' % input_names)
        node = _deps.onnx().helper.make_node(op_type, list(input_names), list(output_names),
                                             name=self.node_name(), **attributes)
        self._count += 1
        self._nodes.append(node)
        return node.output[0] if len(node.output) == 1 else tuple(node.output)

    def const(self, value: Any, dtype: Any = None) -> str:
        """Adds a ``Constant`` node holding ``value`` and returns its output name."""
        array = numpy.asarray(value, dtype=dtype)
        name = self.node_name()
        tensor = _deps.onnx().numpy_helper.from_array(array, name + '_value')
        return self.op_output_named('Constant', [], [name], value=tensor)

    def nodes(self, output_names: Optional[Iterable[str]] = None) -> tuple:
        """Returns the nodes built so far.

        Args:
            output_names: If given, the outputs of the last node are renamed to these.
        """
        if output_names is not None:
            output_names = list(output_names)
            last = self._nodes[-1]
            if len(last.output) != len(output_names):
                raise ValueError('GraphBuilder.nodes: the last node has %d outputs, %d names '
                                 'given' % (len(last.output), len(output_names)))
            last.output[:] = output_names
        return tuple(self._nodes)


def cleanse_param_name(name: str) -> str:
    """Turns a parameter path into an ONNX name: ``'/l1/W'`` becomes ``'param_l1_W'``.

    Example:
        >>> cleanse_param_name('/conv/b')
        'param_conv_b'
    """
    return 'param' + name.replace('/', '_')


def write_tensor_pb(filename: str, name: str, value: numpy.ndarray) -> None:
    """Writes ``value`` as a serialized ``onnx.TensorProto`` named ``name``.

    Args:
        filename: The file to write (replaced atomically).
        name: The tensor name (an input or output of the model).
        value: The array (a GPU array is copied to the host, as onnx_chainer does).
    """
    if cuda.is_gpu_array(value):
        value = cuda.to_cpu(value)
    tensor = _deps.onnx().numpy_helper.from_array(numpy.asarray(value), name)
    write_bytes(filename, tensor.SerializeToString())


def write_bytes(filename: str, data: bytes) -> None:
    """Writes ``data`` to ``filename``, replacing the file atomically."""
    with _atomic.replacing(os.fspath(filename)) as tmp:
        with open(tmp, 'wb') as f:
            f.write(data)


def is_support_non_standard_domain() -> bool:
    """Whether the installed ``onnx`` checker skips operators of custom domains (1.5 on).

    Returns:
        True from onnx 1.5: its checker leaves the schema of an operator in a domain other
        than ONNX's own unchecked.

    Raises:
        RuntimeError: If ``onnx.__version__`` has no numeric major and minor version.

    Example:
        >>> is_support_non_standard_domain()
        True
    """
    version = _deps.onnx().__version__
    parts = version.split('.')
    if len(parts) < 2 or not parts[0].isdecimal() or not parts[1].isdecimal():
        raise RuntimeError('is_support_non_standard_domain: cannot read the major and minor '
                           'version of onnx from %r' % version)
    return (int(parts[0]), int(parts[1])) >= (1, 5)
