"""``export``: runs a model once, walks the recorded graph and writes an ONNX model."""
from __future__ import annotations

import collections
import copy
import functools
import numbers
import os
import warnings
from typing import IO, Any, Mapping, Optional, Sequence

import numpy

from chainlite import _version
from chainlite import configuration
from chainlite import function_hook
from chainlite import link_hook
from chainlite import variable
from chainlite.backends import cuda
from chainlite.onnx import _deps
from chainlite.onnx import _scaled_run
from chainlite.onnx import context as context_module
from chainlite.onnx import graph as graph_module
from chainlite.onnx import onnx_helper

MINIMUM_OPSET_VERSION = 9


def __getattr__(name: str) -> Any:
    if name == 'MAXIMUM_OPSET_VERSION':
        # The newest opset the installed onnx and ONNX Runtime share: known only on demand.
        return default_opset_version()
    raise AttributeError('module %r has no attribute %r' % (__name__, name))


class _FunctionInputs(function_hook.FunctionHook):
    """Hands the input arrays of every function applied to a :class:`RetainInputHook`."""

    def __init__(self, owner: RetainInputHook) -> None:
        self.owner = owner
        self.name = 'chainlite.onnx._FunctionInputs_%d' % id(self)  # several may be active

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self.owner.in_data[id(function)] = in_data
        self.owner.retain_inputs.append((function, in_data))  # keeps the id valid


class RetainInputHook(link_hook.LinkHook):
    """Keeps the input arrays of every function applied inside the block.

    A function holds its inputs as nodes, and a node keeps its array only when backward
    needs it: constants (arrays given to functions, or computed without a graph) would
    otherwise be lost before the exporter reads them. Used as a context manager; the
    exporter runs the model inside one.

    Attributes:
        in_data: ``id(function) -> tuple of its input arrays``, for each function applied.
        retain_inputs: ``(function, input arrays)`` in the order they were applied; it
            keeps both alive, so the ids stay valid while the hook lives.
        link_inputs: The ids of the Variables given to the link being called (as
            onnx_chainer's hook tracks them); empty between calls.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> with RetainInputHook() as hook:
        ...     y = F.relu(F.exp(chainlite.Variable(np.zeros(2, np.float32))))
        >>> [type(f).__name__ for f, _ in hook.retain_inputs]
        ['Exp', 'ReLU']
        >>> hook.in_data[id(y.creator)][0].tolist()
        [1.0, 1.0]
    """

    def __init__(self) -> None:
        self.name = 'RetainInputHook_%d' % id(self)  # an export may run inside another hook
        self.in_data: dict = {}
        self.retain_inputs: list = []
        self.link_inputs: set = set()
        self._function_hook = _FunctionInputs(self)

    def forward_preprocess(self, args: Any) -> None:
        self.link_inputs |= _variable_ids(args.args) | _variable_ids(args.kwargs)

    def forward_postprocess(self, args: Any) -> None:
        self.link_inputs.clear()

    def __enter__(self) -> RetainInputHook:
        self._function_hook.__enter__()
        try:
            return super().__enter__()
        except BaseException:
            self._function_hook.__exit__(None, None, None)
            raise

    def __exit__(self, *exc: Any) -> None:
        try:
            super().__exit__(*exc)
        finally:
            self._function_hook.__exit__(*exc)


def _variable_ids(args: Any) -> set:
    if isinstance(args, variable.Variable):
        return {id(args)}
    if isinstance(args, (list, tuple)):
        return set().union(*map(_variable_ids, args)) if args else set()
    if isinstance(args, dict):
        return _variable_ids(list(args.values()))
    return set()


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
    # A copy of the model as it is before it runs, for a second run at larger symbolic sizes.
    pristine = _scaled_run.twin(model) if any(_scaled_run.symbolic_factors(shapes)) else None

    def run(model, inputs, hook):
        with configuration.using_config('train', bool(train)), \
                configuration.using_config('enable_backprop', True), \
                _recorded.recorded_functions(), hook:
            if call == 'dict':
                return model(**inputs)
            return model(*inputs.values())

    hook = RetainInputHook()
    outputs = _flatten_outputs(run(model, inputs, hook))

    context = context_module.Context(model)
    if pristine is not None:
        # Which recorded sizes follow the symbolic ones: the second run, each symbol
        # enlarged by its own factor or, if the model needs them equal, all by the same.
        for common in (False, True):
            larger = _scaled_run.enlarged(inputs, _scaled_run.symbolic_factors(shapes, common))
            second = RetainInputHook()
            try:
                kept = run(_scaled_run.twin(pristine), collections.OrderedDict(
                    (k, variable.Variable(a)) for k, a in larger.items()), second)
                break
            except Exception as e:
                if common:
                    raise ValueError(
                        'export: input_shapes declares symbolic sizes, so the model is run a '
                        'second time with larger ones (inputs %s) to see which sizes follow '
                        'them, and that run failed: %s: %s. A model that runs only at the '
                        'example\'s sizes cannot be exported with symbolic sizes'
                        % (', '.join('%s -> %s' % (tuple(v.shape), a.shape)
                                     for v, a in zip(inputs.values(), larger.values())),
                           type(e).__name__, e)) from e
        context.shapes_at_other_size = _scaled_run.pair_shapes(
            hook.retain_inputs, second.retain_inputs, inputs, larger)
        context.symbolic_inputs = [
            (name, tuple(var.shape), tuple(a.shape))
            for name, var, a in zip(in_names, inputs.values(), larger.values())
            if var.shape != a.shape]
        del kept
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

    initializers: dict = {}  # name -> (array, is_state)

    def leaf(node, func, index):
        # -> (name, constant or None) of an input that no converted function computes.
        entry = params.get(id(node))
        if entry is not None:
            name, p = entry
            context.set_name(node, name)
            initializers[name] = (p.array, True)
            return name, None
        data = hook.in_data.get(id(func), (None,) * (index + 1))[index]
        if data is None:
            data = node.data
        if data is None:
            raise ValueError('export: the value of input %d of %s is unknown (it was computed '
                             'before export ran the model)'
                             % (index, graph_module.function_name(func)))
        if context.has_name(data):
            name = context.get_name(data)
        elif id(data) in persistents:
            name = context.set_name(data, context.unique_name(persistents[id(data)]))
            initializers[name] = (data, True)
        else:
            name = context.set_name(data, context.unique_name('Constant_%d' % len(initializers)))
            initializers[name] = (data, False)
        context.set_name(node, name)
        return name, (None if initializers.get(name, (None, True))[1]
                      else initializers[name][0])

    onnx_graph = graph_module.Graph(
        context, external, opset_version, in_names,
        collections.OrderedDict(zip(out_keys, outputs.values())), leaf)
    onnx_graph.to_onnx_graph()
    nodes = onnx_graph.graph

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
    check_onnx_model(onnx_model, external_converters, external_opset_imports)
    if input_shapes is not None:
        for out in onnx_model.graph.output:
            out.type.tensor_type.ClearField('shape')
        onnx_model = onnx.shape_inference.infer_shapes(onnx_model)
        check_onnx_model(onnx_model, external_converters, external_opset_imports)

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


def check_onnx_model(onnx_model: Any, external_converters: Optional[dict],
                     external_opset_imports: Optional[dict]) -> None:
    """Runs the ONNX checker on an exported model, as :func:`export` does.

    A model made with ``external_converters`` but without ``external_opset_imports`` may
    use operators the checker does not know: there a rejection only warns. Otherwise it
    raises.

    Args:
        onnx_model: The ``onnx.ModelProto``.
        external_converters: The ``external_converters`` given to :func:`export` (None if
            none were).
        external_opset_imports: The ``external_opset_imports`` given to :func:`export`.

    Raises:
        onnx.checker.ValidationError: If the checker rejects the model and it was made
            without external converters, or with external opset imports.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> from chainlite import onnx as ox
        >>> check_onnx_model(ox.export(F.relu, np.zeros(2, np.float32)), None, None)
    """
    onnx = _deps.onnx()
    try:
        onnx.checker.check_model(onnx_model)
    except onnx.checker.ValidationError as e:
        if external_converters is None or external_opset_imports:
            raise
        warnings.warn('The ONNX checker rejected the model, which uses external_converters; '
                      'the error is ignored (pass external_opset_imports to name the custom '
                      'domain and keep the check):\n%s' % e, UserWarning)


def format_customized_shapes(args: Any, shapes: Any) -> list:
    """The shapes ``input_shapes`` declares, one per input in the order of ``args``.

    Args:
        args: The example inputs as given to :func:`export`: an array or Variable, or a
            list, tuple or dict of them.
        shapes: ``input_shapes`` as given to :func:`export`: a tuple for a single input,
            else a list in the inputs' order or a dict keyed like ``args``. A size is an
            int (the example's), a string (a symbolic size) or None.

    Returns:
        The list of shapes (tuples), one per input.

    Raises:
        ValueError: If the shapes do not fit the inputs: another count, keys or number of
            axes, or an int size other than the example's.

    Example:
        >>> import numpy as np
        >>> format_customized_shapes({'x': np.zeros((2, 3))}, [('N', 3)])
        [('N', 3)]
    """
    _, inputs = _flatten_args(args)
    if isinstance(args, dict) and isinstance(shapes, list):
        shapes = dict(zip(args, shapes)) if len(shapes) == len(args) else shapes
    if not isinstance(args, (list, tuple, dict)) and isinstance(shapes, list):
        if len(shapes) != 1:
            raise ValueError('format_customized_shapes: one input, but %d shapes given'
                             % len(shapes))
        shapes = tuple(shapes[0])
    return _declared_shapes(shapes, inputs)


def rename_variable_name(context: context_module.Context, variables: Any, named_vars: dict,
                         new_names: Any, prefix: str = 'Input') -> None:
    """Renames the inputs (or outputs) of a graph being exported, as onnx_chainer's does.

    Each Variable of ``variables`` is keyed in ``named_vars`` by its name in ``context``;
    the key becomes its new name and the context pins that name.

    Args:
        context: The export's :class:`~chainlite.onnx.context.Context`.
        variables: A Variable, or a list, tuple or dict of them.
        named_vars: The mapping from current name to Variable to update in place.
        new_names: The new names: a list (or for a dict, a dict with its keys); a string
            for a single Variable; None for ``<prefix>_0``, ``<prefix>_1``...
        prefix: The stem of the default names.

    Raises:
        ValueError: If the names do not match the variables in count, keys or type.

    Example:
        >>> import collections, numpy as np, chainlite
        >>> from chainlite.onnx import context as context_module
        >>> ctx = context_module.Context(None)
        >>> x = chainlite.Variable(np.zeros(2, np.float32))
        >>> named = collections.OrderedDict([(ctx.get_name(x), x)])
        >>> rename_variable_name(ctx, [x], named, ['image'])
        >>> list(named), ctx.get_name(x)
        (['image'], 'image')
    """
    if isinstance(variables, (list, tuple)):
        if new_names is None:
            new_names = ['%s_%d' % (prefix, i) for i in range(len(named_vars))]
        if not isinstance(new_names, (list, tuple)) or len(new_names) != len(variables):
            raise ValueError('rename_variable_name: %d variables, but the new names are %r'
                             % (len(variables), new_names))
        pairs = list(zip(variables, new_names))
    elif isinstance(variables, dict):
        if new_names is None:
            new_names = {k: '%s_%d' % (prefix, i) for i, k in enumerate(variables)}
        if not isinstance(new_names, (list, tuple, dict)) or len(new_names) != len(variables):
            raise ValueError('rename_variable_name: %d variables, but the new names are %r'
                             % (len(variables), new_names))
        if not isinstance(new_names, dict):
            new_names = dict(zip(variables, new_names))
        missing = [k for k in variables if k not in new_names]
        if missing:
            raise ValueError('rename_variable_name: no new name for the keys %r' % missing)
        pairs = [(v, new_names[k]) for k, v in variables.items()]
    elif isinstance(variables, variable.Variable):
        if not new_names:
            new_names = prefix + '_0'
        if isinstance(new_names, (list, tuple)):
            if len(new_names) != 1:
                raise ValueError('rename_variable_name: one variable, but %d new names'
                                 % len(new_names))
            new_names = new_names[0]
        if not isinstance(new_names, str):
            raise ValueError('rename_variable_name: the new name of a single variable is a '
                             'string, got %s' % type(new_names).__name__)
        pairs = [(variables, new_names)]
    else:
        raise ValueError('rename_variable_name: variables must be a Variable, or a list, '
                         'tuple or dict of them, got %s' % type(variables).__name__)
    for var, name in pairs:
        del named_vars[context.get_name(var)]
        named_vars[name] = var
        context.name_list.pop(id(var), None)  # a pinned name gives way to the new one
        context.set_name(var, name, pinned=True)


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
            otherwise. A model whose parameters are on a GPU, and GPU inputs, are exported
            from host copies (each parameter copied to the host once; the forward runs on
            NumPy, so the initializers are host arrays, as onnx_chainer writes them); the
            model itself stays on its GPU, unchanged.
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
            symbolic batch axis (docs/onnx.md, "Dynamic batch size"); to see which
            recorded sizes follow it, the model runs a second time, on a copy of it, with
            the symbolic axes of the inputs made larger.
        no_testcase: Accepted for onnx_chainer compatibility; it changes nothing.

    Returns:
        The ``onnx.ModelProto``; with ``return_named_inout``, the tuple
        ``(model, inputs, outputs)`` where the last two map names to Variables.

    Raises:
        ImportError: If the ``onnx`` package is not installed.
        ValueError: For a function without converter, or arguments that do not fit; with
            symbolic sizes, for a reshape whose sizes cannot be written from its input's
            shape, or a model that fails or applies other functions at the larger sizes.

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
    model, args = _on_host(model, args)
    return _export_impl(model, args, filename, export_params, graph_name, save_text,
                        opset_version, input_names, output_names, train, return_named_inout,
                        external_converters, external_opset_imports, input_shapes)


def _on_host(model: Any, args: Any) -> tuple[Any, Any]:
    """The model and example inputs to export, on the host.

    A model whose parameters are on a GPU is exported from a copy on the host: each
    parameter is copied to the host once (the GPU holds no second copy), the rest of the
    link (persistent arrays such as batch normalization's running statistics) is sent there,
    and the model itself is left as it is. GPU inputs are copied to the host. The forward
    then runs define-by-run on NumPy, so the initializers are host arrays, as onnx_chainer
    writes them, and the graph is the one the model builds on the GPU (for code that does
    not branch on the device). Without GPU arrays both come back unchanged.

    Args:
        model: The model (a Link, or a callable that holds no GPU arrays of its own).
        args: The example inputs: arrays or Variables, possibly in lists, tuples or dicts.

    Returns:
        ``(model, args)`` ready for the export.

    """
    params = list(model.params()) if hasattr(model, 'params') else []
    gpu_params = [p for p in params if cuda.is_gpu_array(p.array)]
    if gpu_params:
        memo: dict = {}
        for p in gpu_params:
            for array in (p.array, p.grad):
                if array is not None:
                    memo[id(array)] = cuda.to_cpu(array)  # copied straight to the host
        model = copy.deepcopy(model, memo)
        model.to_device('@numpy')
    if gpu_params or _holds_gpu_array(args):
        args = _args_on_host(args)
    return model, args


def _holds_gpu_array(args: Any) -> bool:
    if isinstance(args, (list, tuple)):
        return any(_holds_gpu_array(a) for a in args)
    if isinstance(args, dict):
        return any(_holds_gpu_array(a) for a in args.values())
    return cuda.is_gpu_array(args.array if isinstance(args, variable.Variable) else args)


def _args_on_host(args: Any) -> Any:
    if isinstance(args, (list, tuple)):
        return type(args)(_args_on_host(a) for a in args)
    if isinstance(args, dict):
        return {k: _args_on_host(a) for k, a in args.items()}
    if isinstance(args, variable.Variable) and cuda.is_gpu_array(args.array):
        return variable.Variable(cuda.to_cpu(args.array), requires_grad=args.requires_grad)
    return cuda.to_cpu(args) if cuda.is_gpu_array(args) else args


