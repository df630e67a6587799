"""The naming context shared by the exporter and the converters of one export."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlite.onnx import _deps
from chainlite.onnx import onnx_helper


class Context:
    """Names of the values of the ONNX graph being built, and the tensors converters add.

    Values are keyed by the identity of the object they stand for: a
    :class:`~chainlite.variable.VariableNode`, a :class:`~chainlite.Parameter` or an
    array. The context keeps every keyed object alive until the export ends, so an
    identity is never reused for another object meanwhile.

    Args:
        model: The exported :class:`~chainlite.Link` (or any callable; a non-Link has no
            parameter names).

    Attributes:
        parameters: ``(name, array)`` pairs that converters added with :meth:`add_param`;
            they become initializers.
        constants: ``Constant`` nodes that converters added with :meth:`add_const`; the
            exporter puts them before the nodes of the function being converted.
        shapes_at_other_size: For an export whose ``input_shapes`` declares symbolic sizes,
            ``id(function) -> (input shapes, output shapes)`` of the same function in a
            second run of the model at larger symbolic sizes (a size that differs follows
            them); empty otherwise.
        symbolic_inputs: For such an export, ``(name, shape, shape in the second run)`` of
            each graph input with a symbolic size; empty otherwise.
    """

    def __init__(self, model: Any) -> None:
        self.name_list: dict = {}
        self._keep: list = []
        self._used: set = set()
        self.parameters: list = []
        self.constants: list = []
        self.shapes_at_other_size: dict = {}
        self.symbolic_inputs: list = []
        self.param_to_link: dict = {}
        if hasattr(model, 'namedlinks'):
            links = dict(model.namedlinks())
            for path, param in model.namedparams():
                owner = path[:path.rindex('/')] or '/'
                if owner in links:
                    self.param_to_link[id(param)] = (
                        onnx_helper.cleanse_param_name(owner.rstrip('/')), links[owner])

    def get_name(self, obj: Any) -> str:
        """The name of ``obj``'s value, giving it a fresh one (``v<N>``) if it has none."""
        entry = self.name_list.get(id(obj))
        if entry is not None:
            return entry[0]
        return self.set_name(obj, self.unique_name('v%d' % len(self.name_list)))

    def has_name(self, obj: Any) -> bool:
        """Whether ``obj`` has been given a name."""
        return id(obj) in self.name_list

    def set_name(self, obj: Any, name: str, pinned: bool = False) -> str:
        """Gives ``obj`` the name ``name`` (``pinned`` names are never replaced).

        Returns:
            The name now in effect (the pinned one if ``obj`` already had one).
        """
        entry = self.name_list.get(id(obj))
        if entry is not None and entry[1]:
            return entry[0]
        self.name_list[id(obj)] = (name, pinned)
        self._keep.append(obj)
        self._used.add(name)
        return name

    def is_pinned(self, obj: Any) -> bool:
        """Whether ``obj``'s name was pinned (an input or output name chosen by the user)."""
        entry = self.name_list.get(id(obj))
        return entry is not None and entry[1]

    def unique_name(self, name: str) -> str:
        """``name``, or ``name_<k>`` with the smallest ``k`` that no value uses yet."""
        if name not in self._used:
            return name
        k = 1
        while '%s_%d' % (name, k) in self._used:
            k += 1
        return '%s_%d' % (name, k)

    def add_param(self, array: numpy.ndarray, name: str,
                  use_original_name: bool = False) -> str:
        """Adds ``array`` as an initializer and returns its name.

        Args:
            array: The value.
            name: Its name; unless ``use_original_name``, it is prefixed with the name of the
                function being converted (``Linear_0_param_W`` for ``'W'``).
            use_original_name: Use ``name`` exactly.
        """
        if not use_original_name:
            name = '%s_%s' % (onnx_helper.get_func_name(),
                              onnx_helper.cleanse_param_name('/' + name.lstrip('/')))
        name = self.set_name(array, self.unique_name(name))
        self.parameters.append((name, numpy.asarray(array)))
        return name

    def add_const(self, array: Any, name: str) -> str:
        """Adds a ``Constant`` node holding ``array`` and returns its output name.

        Args:
            array: The value (an array or a scalar).
            name: A short name; the node's output is ``<function>_const_<name>``.
        """
        if '/' in name:
            raise ValueError('Context.add_const: name must not contain "/", got %r' % name)
        array = numpy.asarray(array)
        name = self.unique_name('%s_const_%s' % (onnx_helper.get_func_name(), name))
        self.set_name(array, name)
        onnx = _deps.onnx()
        tensor = onnx.numpy_helper.from_array(array, name + '_value')
        self.constants.append(onnx.helper.make_node('Constant', [], [name], value=tensor,
                                                    name=name))
        return name

    def get_link(self, param: Any) -> Optional[tuple]:
        """``(name, link)`` of the link that owns ``param``, or None."""
        return self.param_to_link.get(id(param))
