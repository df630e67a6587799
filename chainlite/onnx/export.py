"""``export``: runs a model once, walks the recorded graph and writes an ONNX model."""
from __future__ import annotations

import collections
import functools
import numbers
import os
import warnings
from typing import IO, Any, Mapping, Optional, Sequence

import numpy

from chainlite import _version
from chainlite import configuration
from chainlite import function_hook
from chainlite import variable
from chainlite.onnx import _deps
from chainlite.onnx import context as context_module
from chainlite.onnx import converter as converter_module
from chainlite.onnx import onnx_helper

MINIMUM_OPSET_VERSION = 9


class _RetainInputs(function_hook.FunctionHook):
    """Keeps the input arrays of every function applied during the export's forward pass.

    A function holds its inputs as nodes, and a node keeps its array only when backward
    needs it: constants (arrays given to functions, or computed without a graph) would
    otherwise be lost.
    """

    name = 'chainlite.onnx._RetainInputs'

    def __init__(self) -> None:
        self.in_data: dict = {}
        self._functions: list = []

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self.in_data[id(function)] = in_data
        self._functions.append(function)  # keeps the id valid


def _probe_runtime_opset(ort: Any, onnx: Any, high: int) -> int:
    # ONNX Runtime refuses a model whose opset is newer than it knows: try an Identity model
    # at each opset from the newest down.
    helper = onnx.helper
    value = helper.make_tensor_value_info('x', onnx.TensorProto.FLOAT, [1])
    out = helper.make_tensor_value_info('y', onnx.TensorProto.FLOAT, [1])
    graph = helper.make_graph([helper.make_node('Identity', ['x'], ['y'])], 'probe',
                              [value], [out])
    options = ort.SessionOptions()
    options.log_severity_level = 3
    for opset in range(high, MINIMUM_OPSET_VERSION - 1, -1):
        model = helper.make_model(graph, opset_imports=[helper.make_operatorsetid('', opset)])
        model.ir_version = _ir_version(onnx, opset)
        try:
            ort.InferenceSession(model.SerializeToString(), options,
                                 providers=['CPUExecutionProvider'])
        except Exception:
            continue
        return opset
    return MINIMUM_OPSET_VERSION


def _ir_version(onnx: Any, opset: int) -> int:
    try:
        return onnx.helper.find_min_ir_version_for(
            [onnx.helper.make_operatorsetid('', opset)], ignore_unknown=True)
    except (TypeError, ValueError):
        return onnx.IR_VERSION


@functools.lru_cache(maxsize=None)
def default_opset_version() -> int:
    """The newest opset that both the installed ``onnx`` and ONNX Runtime support.

    Without ONNX Runtime installed, the newest that ``onnx`` supports.

    Example:
        >>> from chainlite import onnx as ox
        >>> ox.default_opset_version() >= 9
        True
    """
    onnx = _deps.onnx()
    newest = int(onnx.defs.onnx_opset_version())
    ort = _deps.onnxruntime()
    if ort is None:
        return newest
    return _probe_runtime_opset(ort, onnx, newest)


def convert_parameter(parameter: Any, context: context_module.Context) -> Any:
    """Returns ``parameter`` (a Parameter, Variable or array) as a named ``TensorProto``.

    Args:
        parameter: The value.
        context: The export's context, which names it.
    """
    if isinstance(parameter, variable.Variable):
        array = parameter.array
    elif isinstance(parameter, numpy.ndarray):
        array = parameter
    else:
        raise ValueError('convert_parameter: a Parameter, Variable or numpy.ndarray is '
                         'expected, got %s' % type(parameter).__name__)
    return _deps.onnx().numpy_helper.from_array(numpy.asarray(array),
                                                context.get_name(parameter))


def _flatten_args(args: Any) -> tuple:
    # -> (how to call the model, ordered mapping key -> input Variable)
    def wrap(a, where):
        if isinstance(a, variable.Variable):
            if a.array is None:
                raise ValueError('export: %s is a Variable without data' % where)
            return variable.Variable(a.array)
        if isinstance(a, numpy.ndarray):
            return variable.Variable(a)
        raise ValueError("export: 'args' must be a list, tuple, dict, numpy.ndarray or "
                         'Variable (or a collection of them); %s is a %s'
                         % (where, type(a).__name__))

    if isinstance(args, (list, tuple)):
        inputs = collections.OrderedDict(
            (i, wrap(a, 'args[%d]' % i)) for i, a in enumerate(args))
        return 'list', inputs
    if isinstance(args, dict):
        inputs = collections.OrderedDict(
            (k, wrap(a, 'args[%r]' % (k,))) for k, a in args.items())
        return 'dict', inputs
    return 'single', collections.OrderedDict([(0, wrap(args, 'args'))])


def _names(given: Any, keys: list, prefix: str, what: str) -> list:
    if given is None:
        return ['%s_%d' % (prefix, i) for i in range(len(keys))]
    if isinstance(given, str):
        given = [given]
    if isinstance(given, dict):
        missing = [k for k in keys if k not in given]
        if missing or len(given) != len(keys):
            raise ValueError('export: %s must name every %s (keys %r), got keys %r'
                             % (what + '_names', what, keys, list(given)))
        return [given[k] for k in keys]
    given = list(given)
    if len(given) != len(keys):
        raise ValueError('export: %d %s_names given for %d %ss'
                         % (len(given), what, len(keys), what))
    return given


def _declared_shapes(input_shapes: Any, inputs: collections.OrderedDict) -> list:
    # The shapes the graph declares for its inputs: the examples', or input_shapes in
    # onnx_chainer's forms (a tuple for a single input; else a list in the inputs' order, or
    # a dict keyed like the inputs). A size is an int (the example's), a string (a symbolic
    # size: ONNX's dim_param, one size wherever the same string is used) or None (unknown).
    keys = list(inputs)
    if input_shapes is None:
        return [tuple(v.shape) for v in inputs.values()]
    if isinstance(input_shapes, tuple):
        if len(keys) != 1:
            raise ValueError('export: input_shapes is one shape (a tuple) but there are %d '
                             'inputs; give a list or a dict of %d shapes'
                             % (len(keys), len(keys)))
        given = [input_shapes]
    elif isinstance(input_shapes, list):
        for i, shape in enumerate(input_shapes):
            if not isinstance(shape, (tuple, list)):
                raise ValueError('export: input_shapes[%d] must be a shape (a tuple or list of '
                                 'sizes), got %r; the shape of a single input is a tuple'
                                 % (i, shape))
        if len(input_shapes) != len(keys):
            raise ValueError('export: %d input_shapes given for %d inputs'
                             % (len(input_shapes), len(keys)))
        given = list(input_shapes)
    elif isinstance(input_shapes, dict):
        if set(input_shapes) != set(keys):
            raise ValueError('export: input_shapes must have the keys of the inputs, %r; '
                             'got %r' % (keys, list(input_shapes)))
        given = [input_shapes[k] for k in keys]
    else:
        raise ValueError('export: input_shapes must be a tuple (the shape of the single '
                         'input), a list or a dict of shapes; got %s'
                         % type(input_shapes).__name__)
    shapes = []
    for key, shape, var in zip(keys, given, inputs.values()):
        if not isinstance(shape, (tuple, list)):
            raise ValueError('export: input_shapes[%r] must be a shape (a tuple or list of '
                             'sizes), got %r' % (key, shape))
        if len(shape) != var.ndim:
            raise ValueError('export: input_shapes[%r] has %d axes (shape %s) but the example '
                             'input has %d (shape %s)'
                             % (key, len(shape), tuple(shape), var.ndim, tuple(var.shape)))
        for axis, (size, actual) in enumerate(zip(shape, var.shape)):
            if size is None or (isinstance(size, str) and size):
                continue
            if not isinstance(size, numbers.Integral) or isinstance(size, bool):
                raise ValueError('export: input_shapes[%r] axis %d is %r; a size is an int, '
                                 'a name (a symbolic size) or None' % (key, axis, size))
            if int(size) != actual:
                raise ValueError('export: input_shapes[%r] fixes axis %d to %d (shape %s) but '
                                 'the example input has %d there (shape %s); a symbolic size '
                                 'is a string or None'
                                 % (key, axis, size, tuple(shape), actual, tuple(var.shape)))
        shapes.append(tuple(s if s is None or isinstance(s, str) else int(s) for s in shape))
    return shapes


def _flatten_outputs(outputs: Any) -> collections.OrderedDict:
    if isinstance(outputs, variable.Variable):
        flat = collections.OrderedDict([(0, outputs)])
    elif isinstance(outputs, (list, tuple)):
        flat = collections.OrderedDict(enumerate(outputs))
    elif isinstance(outputs, dict):
        flat = collections.OrderedDict(outputs.items())
    else:
        raise ValueError('export: the model returned a %s; a Variable, or a list, tuple or '
                         'dict of Variables is expected' % type(outputs).__name__)
    for k, v in flat.items():
        if not isinstance(v, variable.Variable):
            raise ValueError('export: every output of the model must be a Variable; output '
                             '%r is a %s' % (k, type(v).__name__))
    return flat


def _function_name(func: Any) -> str:
    return getattr(func, 'custom_function_node_name', None) or type(func).__name__


def _collect_functions(output_nodes: list, stop: set) -> list:
    # Every function between the inputs and the outputs, parents before children. Ranks
    # grow along every edge, so sorting by rank orders them; the walk is a loop, not a
    # recursion, so deep graphs (long RNN unrolls) are fine.
    found: dict = {}
    todo = [n.creator_node for n in output_nodes
            if n.creator_node is not None and id(n) not in stop]
    while todo:
        f = todo.pop()
        if id(f) in found:
            continue
        found[id(f)] = f
        for n in f.inputs:
            c = n.creator_node
            if c is not None and id(n) not in stop and id(c) not in found:
                todo.append(c)
    return sorted(found.values(), key=lambda f: f.rank)


def _lookup_converter(func: Any, name: str, external: dict) -> Any:
    from chainlite.onnx import functions
    if name in external:
        return external[name]
    if type(func) in external:
        return external[type(func)]
    conv = functions.converters.get(type(func))
    if conv is None and getattr(func, 'custom_function_node_name', None):
        # A node wrapped by replace_func under a built-in function's name (as onnx_chainer
        # keys its converters by name): that converter, reading the node's attributes.
        conv = functions.converters_by_name().get(name)
    if conv is None:
        raise ValueError(
            'chainlite.onnx cannot export the function %s (%s.%s): no converter for it. '
            'Pass one with export(..., external_converters={%r: converter}), where '
            'converter(params) returns the ONNX nodes (see docs/onnx.md).'
            % (name, type(func).__module__, type(func).__qualname__, name))
    return conv


def _export_impl(model, args, filename, export_params, graph_name, save_text, opset_version,
                 input_names, output_names, train, return_named_inout, external_converters,
                 external_opset_imports, input_shapes):
    onnx = _deps.onnx()
    from chainlite.onnx.functions import _recorded
    newest = int(onnx.defs.onnx_opset_version())
    if opset_version is None:
        opset_version = default_opset_version()
    elif not isinstance(opset_version, (int, numpy.integer)) or \
            not MINIMUM_OPSET_VERSION <= opset_version <= newest:
        raise ValueError('export: opset_version must be an int from %d to %d (the newest the '
                         'installed onnx %s knows), got %r'
                         % (MINIMUM_OPSET_VERSION, newest, onnx.__version__, opset_version))
    opset_version = int(opset_version)
    external = dict(external_converters or {})

    call, inputs = _flatten_args(args)
    in_names = _names(input_names, list(inputs), 'Input', 'input')
    shapes = _declared_shapes(input_shapes, inputs)
    hook = _RetainInputs()
    with configuration.using_config('train', bool(train)), \
            configuration.using_config('enable_backprop', True), \
            _recorded.recorded_functions(), hook:
        if call == 'dict':
            outputs = model(**inputs)
        else:
            outputs = model(*inputs.values())
    outputs = _flatten_outputs(outputs)

    context = context_module.Context(model)
    stop = set()
    for (key, var), name in zip(inputs.items(), in_names):
        context.set_name(var.node, name, pinned=True)
        stop.add(id(var.node))

    params = {}  # id(node) -> (name, Parameter)
    persistents = {}  # id(array) -> name
    if hasattr(model, 'namedparams'):
        for path, p in model.namedparams():
            node = getattr(p, '_node', None)
            if node is not None and p.array is not None:
                params[id(node)] = (onnx_helper.cleanse_param_name(path), p)
        for path, link in model.namedlinks():
            for attr in getattr(link, '_persistent', ()):
                value = getattr(link, attr, None)
                if isinstance(value, numpy.ndarray):
                    persistents[id(value)] = onnx_helper.cleanse_param_name(
                        path.rstrip('/') + '/' + attr)

    out_keys = list(outputs)
    pinned_out = None if output_names is None else _names(output_names, out_keys, 'Output',
                                                          'output')
    out_nodes = [outputs[k].node for k in out_keys]
    if pinned_out is not None:
        for node, name in zip(out_nodes, pinned_out):
            context.set_name(node, name, pinned=True)

    functions = _collect_functions(out_nodes, stop)
    nodes: list = []
    initializers: dict = {}  # name -> (array, is_state)
    counts: dict = collections.defaultdict(int)

    def leaf_name(node, func, index):
        entry = params.get(id(node))
        if entry is not None:
            name, p = entry
            context.set_name(node, name)
            initializers[name] = (p.array, True)
            return name
        data = hook.in_data.get(id(func), (None,) * (index + 1))[index]
        if data is None:
            data = node.data
        if data is None:
            raise ValueError('export: the value of input %d of %s is unknown (it was computed '
                             'before export ran the model)' % (index, _function_name(func)))
        if context.has_name(data):
            name = context.get_name(data)
        elif id(data) in persistents:
            name = context.set_name(data, context.unique_name(persistents[id(data)]))
            initializers[name] = (data, True)
        else:
            name = context.set_name(data, context.unique_name('Constant_%d' % len(initializers)))
            initializers[name] = (data, False)
        context.set_name(node, name)
        return name

    for func in functions:
        real = func._function if func._function is not None else func
        fname = _function_name(real)
        base = '%s_%d' % (fname, counts[fname])
        counts[fname] += 1
        in_nodes = func.inputs
        input_names_f = []
        consts: list[Any] = []
        for i, n in enumerate(in_nodes):
            if context.has_name(n):
                input_names_f.append(context.get_name(n))
                consts.append(None)
                continue
            if n.creator_node is not None and id(n) not in stop:
                raise RuntimeError('export: %s reads a value computed by a function that was '
                                   'not converted before it' % fname)
            name = leaf_name(n, func, i)
            input_names_f.append(name)
            consts.append(None if initializers.get(name, (None, True))[1]
                          else initializers[name][0])
        out_refs = func.outputs
        output_names_f = []
        out_shapes: list[Any] = []
        out_dtypes: list[Any] = []
        for i, ref in enumerate(out_refs):
            n = ref()
            default = base if len(out_refs) == 1 else '%s_%d' % (base, i)
            if n is None:
                output_names_f.append(context.unique_name(default))
                out_shapes.append(None)
                out_dtypes.append(None)
                continue
            name = context.set_name(n, context.unique_name(default))
            output_names_f.append(name)
            out_shapes.append(n.shape)
            out_dtypes.append(n.dtype)
        conv = _lookup_converter(real, fname, external)
        onnx_helper.set_func_name(base)
        p = converter_module.FunctionConverterParams(
            real, opset_version, input_names_f, output_names_f, context,
            tuple(n.shape for n in in_nodes), tuple(n.dtype for n in in_nodes),
            tuple(out_shapes), tuple(out_dtypes), tuple(consts))
        made = list(conv(p))
        nodes.extend(context.constants)
        context.constants.clear()
        nodes.extend(made)

    graph_outputs: list[Any] = []
    for k, node, var in zip(out_keys, out_nodes, [outputs[k] for k in out_keys]):
        if node.creator_node is None or id(node) in stop:
            # An output that is an input or a parameter passes through an Identity.
            if id(node) in params:
                src = params[id(node)][0]
                initializers[src] = (params[id(node)][1].array, True)
            elif context.has_name(node):
                src = context.get_name(node)
            else:
                raise ValueError('export: output %r is a constant, not computed from the '
                                 'inputs' % (k,))
            name = context.unique_name('Output_%d' % len(graph_outputs)) \
                if pinned_out is None else pinned_out[len(graph_outputs)]
            onnx_helper.set_func_name('Identity_output_%d' % len(graph_outputs))
            nodes.append(onnx_helper.make_node('Identity', [src], [name]))
            graph_outputs.append((name, var))
            continue
        graph_outputs.append((context.get_name(node), var))
    for name, arr in context.parameters:
        initializers[name] = (arr, False)

    helper = onnx.helper
    numpy_helper = onnx.numpy_helper

    def value_info(name, dtype, shape):
        return helper.make_tensor_value_info(
            name, helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype)), shape)

    input_infos = [value_info(name, var.dtype, shape)
                   for name, var, shape in zip(in_names, inputs.values(), shapes)]
    init_protos = []
    for name, (arr, is_state) in initializers.items():
        arr = numpy.asarray(arr)
        if is_state and not export_params:
            input_infos.append(value_info(name, arr.dtype, arr.shape))
        else:
            init_protos.append(numpy_helper.from_array(arr, name))
    output_infos = [value_info(name, var.dtype, var.shape) for name, var in graph_outputs]
    graph = helper.make_graph(nodes, graph_name, input_infos, output_infos,
                              initializer=init_protos)
    opset_imports = [helper.make_operatorsetid('', opset_version)]
    for domain, version in (external_opset_imports or {}).items():
        opset_imports.append(helper.make_operatorsetid(domain, version))
    onnx_model = helper.make_model(graph, producer_name='chainlite',
                                   producer_version=_version.__version__,
                                   opset_imports=opset_imports)
    onnx_model.ir_version = _ir_version(onnx, opset_version)
    _check(onnx, onnx_model, external_converters, external_opset_imports)
    if input_shapes is not None:
        for out in onnx_model.graph.output:
            out.type.tensor_type.ClearField('shape')
        onnx_model = onnx.shape_inference.infer_shapes(onnx_model)
        _check(onnx, onnx_model, external_converters, external_opset_imports)

    if filename is not None:
        data = onnx_model.SerializeToString()
        if hasattr(filename, 'write'):
            filename.write(data)
        else:
            onnx_helper.write_bytes(filename, data)
            if save_text:
                onnx_helper.write_bytes(str(filename) + '.txt', str(onnx_model).encode())
    if return_named_inout:
        named_in = collections.OrderedDict(zip(in_names, inputs.values()))
        named_out = collections.OrderedDict(graph_outputs)
        return onnx_model, named_in, named_out
    return onnx_model


def _check(onnx: Any, model: Any, external_converters: Any, external_opset_imports: Any) -> None:
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError as e:
        if not external_converters or external_opset_imports:
            raise
        warnings.warn('The ONNX checker rejected the model, which uses external_converters; '
                      'the error is ignored (pass external_opset_imports to name the custom '
                      'domain and keep the check):\n%s' % e, UserWarning)


def export(model: Any, args: Any,
           filename: str | bytes | os.PathLike[Any] | IO[bytes] | None = None,
           export_params: bool = True, graph_name: str = 'Graph', save_text: bool = False,
           opset_version: Optional[int] = None,
           input_names: str | Sequence[str] | Mapping[str, str] | None = None,
           output_names: str | Sequence[str] | Mapping[str, str] | None = None,
           train: bool = False, return_named_inout: bool = False,
           external_converters: Optional[dict] = None,
           external_opset_imports: Optional[dict] = None, input_shapes: Any = None,
           no_testcase: bool = False) -> Any:
    """Exports a model to ONNX by running it once and converting the recorded graph.

    ``model(*args)`` (``model(**args)`` for a dict, ``model(args)`` for a single array or
    Variable) runs in test mode (``chainlite.config.train`` False) unless ``train``. The
    graph recorded from the inputs to the outputs is walked, each function becomes ONNX
    nodes through its converter, and the parameters become initializers named after their
    path in the model (``/l1/W`` is ``param_l1_W``); persistent arrays (batch
    normalization's running statistics) likewise, and other constants as ``Constant_<k>``.

    Args:
        model: A :class:`~chainlite.Link` or any callable returning a Variable, or a list,
            tuple or dict of Variables.
        args: The example inputs: a numpy.ndarray or Variable, or a list, tuple or dict of
            them. The graph's inputs have their shapes unless ``input_shapes`` says
            otherwise.
        filename: A path or a writable binary file to save the model to (None: don't save).
        export_params: Store the parameters in the model. If False, they become graph
            inputs instead.
        graph_name: The name of the ONNX graph.
        save_text: Also write the model as text to ``filename + '.txt'``.
        opset_version: The ONNX opset, from 9 up; None for
            :func:`default_opset_version`.
        input_names: Names for the inputs (a list, a dict keyed like ``args``, or a string
            for one input); default ``Input_0``, ``Input_1``...
        output_names: Names for the outputs, likewise; default: the name of the function
            computing each (``LinearFunction_1``).
        train: Run and export the model in training mode.
        return_named_inout: Also return the named inputs and outputs.
        external_converters: Converters that take precedence over the built-in ones, keyed
            by function class name (or class): ``converter(params)`` gets a
            :class:`~chainlite.onnx.converter.FunctionConverterParams` and returns ONNX
            nodes.
        external_opset_imports: ``{domain: version}`` for the custom operators that
            ``external_converters`` emit.
        input_shapes: Shapes to declare for the inputs instead of the examples': a tuple
            for a single input, else a list in the inputs' order or a dict keyed like
            ``args``. A size is an int (the example's own), a string (a symbolic size,
            ONNX's ``dim_param``: ``('N', 3)`` runs on any batch size) or None (unknown).
            Reshapes, LSTM states and the other shapes the converters write follow a
            symbolic batch axis (docs/onnx.md, "Dynamic batch size").
        no_testcase: Accepted for onnx_chainer compatibility; it changes nothing.

    Returns:
        The ``onnx.ModelProto``; with ``return_named_inout``, the tuple
        ``(model, inputs, outputs)`` where the last two map names to Variables.

    Raises:
        ImportError: If the ``onnx`` package is not installed.
        ValueError: For a function without converter, or arguments that do not fit.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> from chainlite import onnx as ox
        >>> m = ox.export(L.Linear(3, 2), np.zeros((1, 3), np.float32))
        >>> [n.op_type for n in m.graph.node], [i.name for i in m.graph.initializer]
        (['Gemm'], ['param_W', 'param_b'])
    """
    if filename is not None and not hasattr(filename, 'write') and not isinstance(
            filename, (str, bytes)) and not hasattr(filename, '__fspath__'):
        raise ValueError('export: filename must be a path or a writable file, got %s'
                         % type(filename).__name__)
    return _export_impl(model, args, filename, export_params, graph_name, save_text,
                        opset_version, input_names, output_names, train, return_named_inout,
                        external_converters, external_opset_imports, input_shapes)


