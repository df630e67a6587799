"""Reverse-mode differentiation over the graph: ``Variable.backward``, ``backward`` and ``grad``.

Functions are popped from a heap keyed by rank, highest first, so every function runs after
all the functions that consume its outputs, and the walk is a loop, never a recursion: a
chain of a million ops backpropagates in constant stack depth. Gradients that reach one node
along several paths are summed before that node's creator runs.
"""
from __future__ import annotations

import heapq
import operator
import threading
import warnings
from typing import Any, Optional, Sequence

import numpy

from chainlite import configuration
from chainlite import function_node
from chainlite.backends import cuda as _cuda
from chainlite import variable

_config = configuration.config
_new_variable = variable._new_variable
_Variable = variable.Variable
_ndarray = numpy.ndarray
_ZERO = (0,)
_UNSET = object()
# Per thread, while a backward() walk on arrays runs: its loss_scale in a one-item tuple (None
# inside grad() and with double backprop). A function that hands its leaf inputs' gradients
# over itself reads it (a replayed static chain, which stores them as _store_leaf_grads would).
_leaf_walk = threading.local()


def backward_from_variable(y: variable.Variable, retain_grad: bool,
                           enable_double_backprop: bool, loss_scale: Optional[float]) -> None:
    """Implements :meth:`Variable.backward` (see there)."""
    node = y.node
    seed = node.grad_var
    if seed is None and y._data is not None and y._data.size == 1:
        # As Chainer: only this default seed is multiplied by loss_scale; a gradient the
        # user set is taken as it is.
        seed = _new_variable(_ones_like(y._data), None, False)
        if loss_scale is not None:
            seed._data *= loss_scale
    if node.creator_node is None:
        # A leaf: nothing to walk; its gradient is the seed.
        if seed is not None:
            node.grad_var = seed
            node._loss_scale = loss_scale
        return
    if seed is None:
        _require_scalar(y, 'Variable.backward')
    # As Chainer: the output's own grad is consumed, and kept only with retain_grad.
    node.grad_var = None
    _backprop([node], [seed], None, retain_grad, enable_double_backprop, loss_scale)


def backward(outputs: Sequence[variable.Variable],
             grad_outputs: Optional[Sequence[Any]] = None, **kwargs: Any) -> None:
    """Runs backpropagation from several outputs at once.

    Args:
        outputs: Output Variables.
        grad_outputs: Their initial gradients (arrays or Variables); None entries use the
            output's ``grad``, or 1 for a one-element output.
        **kwargs: ``retain_grad``, ``enable_double_backprop`` and ``loss_scale`` as in
            :meth:`Variable.backward`.
    """
    unknown = set(kwargs) - {'retain_grad', 'enable_double_backprop', 'loss_scale'}
    if unknown:
        raise TypeError('backward() got unexpected keyword arguments %s' % sorted(unknown))
    if not isinstance(outputs, (tuple, list)):
        raise TypeError('backward(): outputs must be a tuple or a list of Variables, not %s'
                        % type(outputs).__name__)
    for y in outputs:
        if not isinstance(y, variable.Variable):
            raise TypeError('backward(): each output must be a Variable, not %s'
                            % type(y).__name__)
    if grad_outputs is not None and not isinstance(grad_outputs, (tuple, list)):
        raise TypeError('backward(): grad_outputs must be None, a tuple or a list, not %s'
                        % type(grad_outputs).__name__)
    outputs = list(outputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError('backward(): %d outputs but %d grad_outputs'
                         % (len(outputs), len(grad_outputs)))
    nodes, seeds = [], []
    loss_scale = kwargs.get('loss_scale')
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            if y.node in nodes:
                # Its gradient was consumed by its first occurrence: Chainer warns and uses
                # it once (a default seed here would be added to it).
                warnings.warn('backward(): an output appears more than once in outputs; its '
                              'gradient is used only once', RuntimeWarning, stacklevel=2)
                continue
            gy = y.grad_var
            if gy is None:
                _require_scalar(y, 'chainlite.backward')
                gy = _ones_like(y._data)
            y.node.grad_var = None  # consumed, as in Chainer
        gy = variable.as_variable(gy)
        nodes.append(y.node)
        seeds.append(gy if loss_scale is None else gy * loss_scale)
    _backprop(nodes, seeds, None, kwargs.get('retain_grad', False),
              kwargs.get('enable_double_backprop', False), loss_scale)


def grad(outputs: Sequence[variable.Variable], inputs: Sequence[variable.Variable],
         grad_outputs: Optional[Sequence[Any]] = None,
         grad_inputs: Optional[Sequence[Any]] = None,
         set_grad: bool = False, retain_grad: bool = False,
         enable_double_backprop: bool = False,
         loss_scale: Optional[float] = None) -> list[Optional[variable.Variable]]:
    """Computes the gradients of ``outputs`` with respect to ``inputs`` only.

    Unlike :meth:`Variable.backward`, it walks only the functions on paths from the outputs to
    the inputs, and by default leaves every variable's ``grad`` untouched.

    Args:
        outputs: Output Variables.
        inputs: The Variables to differentiate with respect to.
        grad_outputs: Initial output gradients; None (or None entries) means ones of the
            output's shape.
        grad_inputs: Initial gradients of the inputs (None entries allowed). Each is added to
            its input's gradient and, as in Chainer, flows on like any gradient: an input
            above another receives the other's initial gradient too.
        set_grad: Also store each result in the input's ``grad_var``.
        retain_grad: Keep the gradients of the intermediate variables the walk reaches (and
            of the inputs whose creator it runs).
        enable_double_backprop: Record the computation so the results can be differentiated.
        loss_scale: Multiply the initial gradients by this factor.

    Returns:
        A list with a gradient Variable (or None where no path exists) per input.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> x = chainlite.Variable(np.array([0.5]))
        >>> gx, = chainlite.grad([F.sin(x)], [x], enable_double_backprop=True)
        >>> ggx, = chainlite.grad([gx], [x])
        >>> bool(np.allclose(ggx.array, -np.sin(0.5)))
        True
    """
    _check_sequence(outputs, 'outputs')
    _check_sequence(inputs, 'inputs')
    outputs, inputs = list(outputs), list(inputs)
    for y in outputs:
        label = getattr(y.creator_node, '_old_style_label', None)
        if label is not None:
            # As Chainer, at once: the gradient of an old-style Function was computed on
            # arrays, so what it depends on is unknown.
            raise RuntimeError('cannot twice-differentiate an old style Function "%s": an '
                               'output given to grad() is a gradient its backward computed '
                               'on arrays' % label)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    else:
        _check_sequence(grad_outputs, 'grad_outputs')
        if len(grad_outputs) != len(outputs):
            raise ValueError('grad(): grad_outputs must be as long as outputs: %d outputs but '
                             '%d grad_outputs' % (len(outputs), len(grad_outputs)))
    if grad_inputs is not None:
        _check_sequence(grad_inputs, 'grad_inputs')
        if len(grad_inputs) != len(inputs):
            raise ValueError('grad(): grad_inputs must be as long as inputs: %d inputs but '
                             '%d grad_inputs' % (len(inputs), len(grad_inputs)))
    seeds = []
    for y, gy in zip(outputs, grad_outputs):
        if gy is None:
            # As Chainer: a missing initial gradient is ones, whatever the output's shape,
            # and only these default seeds are multiplied by loss_scale.
            gy = _ones_like(y._data)
            if loss_scale is not None:
                gy *= loss_scale
            seeds.append(_new_variable(gy, None, False))
        else:
            seeds.append(variable.as_variable(gy))
    in_nodes = [x.node for x in inputs]
    initial = None
    if grad_inputs is not None:
        # The initial input gradients join the walk as Chainer's do: an input that is an
        # ancestor of another passes its initial gradient on, with the rest of its gradient.
        initial = [(n, variable.as_variable(g)) for n, g in zip(in_nodes, grad_inputs)
                   if g is not None]
    grads = _backprop([y.node for y in outputs], seeds, in_nodes, retain_grad,
                      enable_double_backprop, loss_scale, initial)
    ret = [grads.get(n) for n in in_nodes]
    if set_grad:
        for x, g in zip(inputs, ret):
            x.grad_var = g
    return ret


def _ones_like(a: Any) -> Any:
    # numpy.ones_like's result with half its overhead (it runs once per backward() call).
    if a.__class__ is not numpy.ndarray and _cuda.is_gpu_array(a):
        with a.device:  # on the output's GPU, whichever is current
            return _cuda.cupy.ones_like(a)
    g = numpy.empty_like(a)
    g.fill(1)
    return g


def _check_sequence(seq: Any, name: str) -> None:
    if not isinstance(seq, (tuple, list)):
        raise TypeError('grad(): %s must be a tuple or a list, not %s'
                        % (name, type(seq).__name__))


def _add(a: numpy.ndarray, b: numpy.ndarray) -> numpy.ndarray:
    # NumPy returns a scalar for the sum of two 0-d arrays; gradients must stay arrays.
    c = a + b
    return numpy.asarray(c) if isinstance(c, numpy.generic) else c


def _require_scalar(y: variable.Variable, where: str) -> None:
    if y._data is None or y._data.size != 1:
        shape = None if y._data is None else y._data.shape
        raise ValueError(
            '%s: the output has shape %s, so its initial gradient is ambiguous. Reduce it to '
            'a scalar first (e.g. F.sum(y)), or set y.grad = numpy.ones_like(y.array) to '
            'backpropagate a gradient of ones.' % (where, shape))


def functions_between(out_nodes: Sequence[variable.VariableNode],
                      in_nodes: Sequence[variable.VariableNode]
                      ) -> list[function_node.FunctionNode]:
    """The functions on some path from the ``in_nodes`` up to the ``out_nodes``, by rising rank.

    Found without recursion: collect every function above the outputs, then sweep them in
    rank order, keeping those with an input that is a target or made by a kept function.
    """
    targets = set(in_nodes)
    funcs: dict[int, function_node.FunctionNode] = {}
    stack = [n.creator_node for n in out_nodes if n.creator_node is not None]
    while stack:
        f = stack.pop()
        if id(f) in funcs:
            continue
        funcs[id(f)] = f
        for x in _input_nodes(f):
            if x.creator_node is not None:
                stack.append(x.creator_node)
    found = list(funcs.values())
    if len(found) > 1:
        found.sort(key=_rank_of)
    kept: list[function_node.FunctionNode] = []
    ids: set[int] = set()
    for f in found:
        for x in _input_nodes(f):
            if x in targets or id(x.creator_node) in ids:
                ids.add(id(f))
                kept.append(f)
                break
    return kept


_rank_of = operator.attrgetter('rank')


def _input_nodes(f: Any) -> tuple[Any, ...]:
    # f.inputs without the property: one input node is held bare (see FunctionNode._ins).
    ins = f._ins
    if ins.__class__ is tuple:
        return ins
    return () if ins is None else (ins,)


def _reaching_functions(out_nodes: Sequence[variable.VariableNode],
                        in_nodes: Sequence[variable.VariableNode]) -> set[int]:
    return {id(f) for f in functions_between(out_nodes, in_nodes)}


def _backprop(out_nodes: list[Any], seeds: list[Any], in_nodes: Optional[list[Any]],
              retain_grad: bool, double: bool, loss_scale: Optional[float],
              initial: Optional[list[Any]] = None) -> dict[Any, Any]:
    if not _cuda._gpu_types:
        return _walk(out_nodes, seeds, in_nodes, retain_grad, double, loss_scale, initial)
    current = _cuda.cupy.cuda.get_device_id()  # the walk switches GPUs; set back after
    try:
        return _walk(out_nodes, seeds, in_nodes, retain_grad, double, loss_scale, initial)
    finally:
        if _cuda.cupy.cuda.get_device_id() != current:
            _cuda.cupy.cuda.Device(current).use()


def _use_gpu_of(gys: tuple, arrays: bool) -> None:
    # Makes the GPU of the first GPU gradient current (backward and the sums run there).
    device = function_node._other_gpu(
        gys if arrays else [None if g is None else g._data for g in gys])
    if device is not None:
        device.use()


def _walk(out_nodes: list[Any], seeds: list[Any], in_nodes: Optional[list[Any]],
          retain_grad: bool, double: bool, loss_scale: Optional[float],
          initial: Optional[list[Any]]) -> dict[Any, Any]:
    """Backpropagates ``seeds`` from ``out_nodes``.

    With ``in_nodes`` None it is ``backward``: every leaf that requires a gradient gets one,
    accumulated into its ``grad_var``. Otherwise it is ``grad``: only paths reaching
    ``in_nodes`` are walked and their gradients are returned in a dict, nothing is stored
    (unless ``retain_grad``). ``initial`` holds (node, gradient) pairs that start in the
    table beside the seeds: ``grad``'s ``grad_inputs``, which flow on like any gradient.

    Without double backprop the table holds bare arrays: a function that defines
    ``_backward_arrays`` computes on them directly, any other gets them wrapped as Variables
    for its ``backward`` (Chainer's API), and only what leaves the walk (leaf gradients,
    retained ones, ``grad``'s results) becomes a Variable again. With double backprop it
    holds Variables, so that the gradients are recorded in the graph.
    """
    reaching = None if in_nodes is None else _reaching_functions(out_nodes, in_nodes)
    targets = set() if in_nodes is None else set(in_nodes)
    arrays = not double
    grads: dict[Any, Any] = {}
    for n, g in (zip(out_nodes, seeds) if initial is None else
                 list(zip(out_nodes, seeds)) + initial):
        if arrays:
            g = g._data
        old = grads.get(n)
        grads[n] = g if old is None else (_add(old, g) if arrays else old + g)
    # Backward runs with enable_backprop set to `double` (as using_config would, minus the
    # context object: this is per call of grad() and backward()).
    cfg = _config
    switch = cfg.enable_backprop is not double
    if switch:
        # (in this thread's own dict: setattr would run LocalConfig's key watcher)
        thread_values = cfg.__dict__
        old_mode = thread_values.get('enable_backprop', _UNSET)
        thread_values['enable_backprop'] = double
    walk = _leaf_walk.__dict__
    outer_walk = walk.get('scale')
    walk['scale'] = (loss_scale,) if in_nodes is None and arrays else None
    try:
        heap: list[Any] = []
        seen: set[Any] = set()
        push = heapq.heappush
        pop = heapq.heappop
        count = 0
        first = []
        for n in out_nodes:
            f = n.creator_node
            if f is not None and f not in seen and (reaching is None or id(f) in reaching):
                seen.add(f)
                first.append(f)
        # The one pending function is kept out of the heap (a chain's common case).
        nxt = first[0] if len(first) == 1 else None
        if nxt is None:
            for f in first:
                count -= 1
                push(heap, (-f.rank, count, f))
        found: dict[Any, Any] = {}
        # Whether any output gradient may have to be kept (else one test per function).
        keep = bool(targets) or retain_grad or variable.intermediate_grad_checks
        # Where gradients must leave the walk as Variables, from an array table: the seeds'
        # own Variables (a retained output gradient stays the object it was), else new ones.
        wrapped = {n: s for n, s in zip(out_nodes, seeds)} if arrays and keep else None
        debug = configuration.debug_was_set and _config.debug
        while True:
            if nxt is not None:
                f = nxt
                nxt = None
            elif heap:
                f = pop(heap)[2]
            else:
                break
            outputs = f._outs
            if outputs.__class__ is not tuple:
                n = outputs()
                g = None if n is None else grads.pop(n, None)
                if g is None:
                    continue
                if keep:
                    g = _output_grad(n, g, targets, found, retain_grad, wrapped)
                gys: Any = (g,)
            else:
                gys = []
                for r in outputs:
                    n = r()
                    if n is None:
                        gys.append(None)
                        continue
                    g = grads.pop(n, None)
                    if g is None:
                        if reaching is None:
                            # As Chainer's backward: an output that no gradient reached
                            # contributes the grad it holds (set by the user, or kept by
                            # an earlier retain_grad), which is consumed.
                            g = n.grad_var
                            if g is not None:
                                n.grad_var = None
                                if arrays:
                                    if wrapped is not None:
                                        wrapped[n] = g  # kept as it was, if retained
                                    g = g._data
                        elif retain_grad:
                            n.grad_var = None
                    if g is not None and keep:
                        g = _output_grad(n, g, targets, found, retain_grad, wrapped)
                    gys.append(g)
                if all(g is None for g in gys):
                    continue
                gys = tuple(gys)
            inputs = f._ins
            if inputs.__class__ is not tuple:
                inputs = (inputs,)
            if reaching is not None:
                indexes = tuple([i for i, x in enumerate(inputs) if x.requires_grad and (
                    x in targets or id(x.creator_node) in reaching)])
            elif len(inputs) == 1:
                indexes = _ZERO if inputs[0].requires_grad else ()
            else:
                indexes = tuple([i for i, x in enumerate(inputs) if x.requires_grad])
            if not indexes:
                continue
            if _cuda._gpu_types:
                # As Chainer: backward runs with the gradients' GPU current (CuPy refuses
                # kernels on another GPU's arrays without peer access); set back at the end.
                _use_gpu_of(gys, arrays)
            try:
                if arrays and f._backward_arrays is not None and not (
                        function_node._hooks_active or debug):
                    ys = f._retained_output_data
                    if ys is None or len(ys) != len(gys):
                        ys = f.output_data if ys else (None,) * len(gys)
                    gxs = f._backward_arrays(
                        indexes, gys, (inputs[0].data,) if len(inputs) == 1 else
                        tuple([x.data for x in inputs]), ys)
                else:
                    gxs = _backward_variables(f, indexes, gys, grads, arrays, debug)
            except Exception as e:
                _annotate(e, f, debug)
                raise
            for i, gx in zip(indexes, gxs):
                x = inputs[i]
                if gx is None:
                    # Nothing to add; but a gradient already waiting here (grad's
                    # grad_inputs) still flows on, as in Chainer.
                    if x not in grads:
                        continue
                else:
                    # (the table's kind: backward() may return arrays, rules NumPy scalars)
                    if arrays:
                        d = gx if gx.__class__ is _ndarray else _as_grad_array(f, gx)
                        gx = d
                    else:
                        if gx.__class__ is not _Variable:
                            gx = _as_grad_variable(f, gx)
                        d = gx._data
                    dtype = d.dtype
                    if d.shape != x.shape or (dtype is not x.dtype and dtype != x.dtype):
                        _bad_grad(f, i, x, d)
                    old = grads.get(x)
                    if old is None:
                        grads[x] = gx
                    elif arrays:
                        grads[x] = _add(old, d)
                    else:
                        grads[x] = old + gx
                c = x.creator_node
                if c is not None and c not in seen and (reaching is None or id(c) in reaching):
                    seen.add(c)
                    if nxt is None and not heap:
                        nxt = c  # the only pending function: no ordering needed
                        continue
                    if nxt is not None:
                        count -= 1
                        push(heap, (-nxt.rank, count, nxt))
                        nxt = None
                    count -= 1
                    push(heap, (-c.rank, count, c))
    finally:
        walk['scale'] = outer_walk
        if switch:
            if old_mode is _UNSET:
                del thread_values['enable_backprop']
            else:
                thread_values['enable_backprop'] = old_mode
    if in_nodes is not None:
        if arrays:
            grads = {n: _new_variable(g, None, False) for n, g in grads.items()}
        if retain_grad:
            # Chainer also runs the creators of the outputs and of the inputs that lead to
            # no input (this walk skips them), and so keeps those nodes' gradients too.
            # (An input's creator runs there when a function that was run consumes it.)
            consumed = {x for f in seen for x in (f.inputs or ())}
            outs = set(out_nodes)
            ran = {n.creator_node for n in out_nodes + in_nodes
                   if n.creator_node is not None and id(n.creator_node) not in (reaching or ())
                   and (n in outs or n in consumed)}
            for c in ran:
                for n in c.outputs:
                    n = n()
                    if n is not None:
                        n.grad_var = grads.get(n)
        grads.update(found)
        for n in in_nodes:
            # Leaf inputs never pass through _output_grad: their hooks run here.
            if n._grad_hooks and n not in found and grads.get(n) is not None:
                grads[n] = variable._run_grad_hooks(n, grads[n])
        return grads
    _store_leaf_grads(grads, seeds, double, loss_scale)
    return grads


def _backward_variables(f: Any, indexes: tuple[int, ...], gys: tuple[Any, ...],
                        grads: dict[Any, Any], arrays: bool, debug: bool) -> tuple[Any, ...]:
    # backward() on Variables, Chainer's API: gradients from an array table are wrapped for
    # it (the walk unwraps its results). Function hooks and backward_accumulate run here too.
    if arrays:
        gys = tuple([None if g is None else _new_variable(g, None, False) for g in gys])
    if function_node._hooks_active or f._accumulates:
        gxs = _backward_slow(f, indexes, gys, grads, arrays)
    else:
        gxs = f.backward(indexes, gys)
    if gxs.__class__ is not tuple or len(gxs) != len(indexes) or debug:
        gxs = _normalize_grads(f, indexes, gxs, debug)
    return gxs


def _output_grad(n: Any, g: Any, targets: set[Any], found: dict[Any, Any],
                 retain_grad: bool, wrapped: Optional[dict[Any, Any]]) -> Any:
    # The final gradient of a node whose creator is about to run: hooks may replace it, and
    # grad() targets or retained variables keep it, as Variables. `wrapped` is None when the
    # walk's table holds Variables; else `g` is an array, returned as one, and `wrapped` holds
    # the seeds' Variables, which the outputs keep as they were given.
    if not (n._grad_hooks or n in targets or retain_grad or n.retain_grad_flag):
        return g
    v = g
    if wrapped is not None:
        seed = wrapped.get(n)
        v = seed if seed is not None and seed._data is g else _new_variable(g, None, False)
    if n._grad_hooks:
        v = variable._run_grad_hooks(n, v)
    if n in targets:
        found[n] = v
    if retain_grad or n.retain_grad_flag:
        n.grad_var = v
    return v if wrapped is None else v._data


def _backward_slow(f: Any, indexes: tuple[int, ...], gys: tuple[Any, ...],
                   grads: dict[Any, Any], arrays: bool) -> Any:
    # Function hooks around backward, and backward_accumulate for classes that override it
    # (the gradients received so far are handed over and replaced by its results).
    from chainlite import function_hook
    hooks = function_hook.hooks_for(f) if function_node._hooks_active else ()
    if hooks:
        in_data = tuple(x.data for x in f.inputs)
        out_grad = tuple(None if g is None else g._data for g in gys)
        for hook in hooks:
            hook.backward_preprocess(f, in_data, out_grad)
    if f._accumulates:
        inputs = f.inputs
        grad_inputs = tuple(grads.pop(inputs[i], None) for i in indexes)
        if arrays:
            grad_inputs = tuple(None if g is None else _new_variable(g, None, False)
                                for g in grad_inputs)
        gxs = f.backward_accumulate(indexes, gys, grad_inputs)
    else:
        gxs = f.backward(indexes, gys)
    for hook in hooks:
        hook.backward_postprocess(f, in_data, out_grad)
    return gxs


def _annotate(e: Exception, f: Any, debug: bool) -> None:
    if isinstance(e, function_node.NonFiniteError) and e.backward_of is None and \
            e.phase == 'forward':
        # A function run by f's backward made it: name f, which the user applied.
        raise function_node.NonFiniteError(e.kind, e.phase, e.label, backward_of=f) from None
    if debug and f.stack:
        import traceback
        note = 'Stacktrace of the function %s (where it was applied) is below:\n%s' % (
            f.label, ''.join(traceback.format_list(f.stack[-5:])))
        if len(e.args) == 1 and isinstance(e.args[0], str) and not isinstance(e, KeyError):
            # As Chainer: in the message itself, so that it shows wherever the error is
            # printed or matched (a FloatingPointError from NumPy, say).
            e.args = ('%s\n%s' % (e.args[0], note),)
        else:
            e.add_note(note)


def _normalize_grads(f: Any, indexes: tuple[int, ...], gxs: Any,
                     debug: bool) -> tuple[Any, ...]:
    """Accepts a list, or one gradient per input, and arrays; checks NaN in debug mode."""
    if gxs.__class__ is not tuple:
        if not isinstance(gxs, (tuple, list)):
            if debug:  # Chainer's check and wording in debug mode
                raise ValueError('%s.backward: type of gradients returned from backward is '
                                 'incorrect: a tuple of Variables is expected, got %s'
                                 % (f.label, type(gxs).__name__))
            raise TypeError('%s.backward must return a tuple of Variables, got %s'
                            % (f.label, type(gxs).__name__))
        gxs = tuple(gxs)
    n_in = len(f.inputs)
    if len(gxs) != len(indexes):
        if len(gxs) != n_in:
            raise ValueError('number of gradients returned from backward is incorrect: '
                             '%s.backward returned %d gradients; expected %d (one per input) '
                             'or %d (one per target index)'
                             % (f.label, len(gxs), n_in, len(indexes)))
        gxs = tuple([gxs[i] for i in indexes])
    for gx in gxs:
        if gx is not None and not isinstance(gx, variable.Variable):
            if debug:
                # Arrays are accepted (and wrapped), except in debug mode, as in Chainer.
                raise ValueError('%s.backward: type of gradients returned from backward is '
                                 'incorrect: %s != expected Variable'
                                 % (f.label, type(gx).__name__))
            if not variable._is_array(gx):
                raise TypeError('%s.backward must return Variables (or None), got %s'
                                % (f.label, type(gx).__name__))
            gxs = tuple([g if g is None or isinstance(g, variable.Variable)
                         else _new_variable(g, None, False) for g in gxs])
            break
    if debug:
        f._debug_check(gxs, 'backward')
    return gxs


def _as_grad_variable(f: Any, gx: Any) -> variable.Variable:
    # Chainer's backward must return Variables; arrays are accepted and wrapped.
    if isinstance(gx, variable.Variable):
        return gx
    if variable._is_array(gx):
        return _new_variable(gx, None, False)
    raise TypeError('%s.backward must return Variables (or None), got %s'
                    % (f.label, type(gx).__name__))


def _as_grad_array(f: Any, gx: Any) -> numpy.ndarray:
    # For an array table: backward() returns Variables (or arrays), _backward_arrays may
    # return NumPy scalars (ufuncs on 0-d arrays do).
    if isinstance(gx, numpy.generic):
        return numpy.asarray(gx)
    if gx.__class__ is numpy.ndarray or variable._is_array(gx):
        return gx
    return _as_grad_variable(f, gx)._data


def _bad_grad(f: Any, i: int, x: Any, gx: Any) -> None:
    # gx: the gradient's array
    what = 'shape' if gx.shape != x.shape else 'dtype'
    raise ValueError('%s of gradients returned from backward is incorrect: %s.backward returned '
                     'a gradient of shape %s and dtype %s for input %d, whose shape is %s and '
                     'dtype %s' % (what, f.label, gx.shape, gx.dtype, i, x.shape, x.dtype))


def _store_leaf_grads(grads: dict[Any, Any], seeds: list[Any], double: bool,
                      loss_scale: Optional[float]) -> None:
    # What is left in `grads` belongs to nodes without a (walked) creator: the leaves. Their
    # gradients are Variables, or arrays from a walk without double backprop.
    stored = {id(s._data) for s in seeds}
    for x, g in grads.items():
        if x.creator_node is not None or not x.requires_grad:
            continue
        # As Chainer: every leaf reached records this pass's scale (None clears an old one).
        x._loss_scale = loss_scale
        if not isinstance(g, variable.Variable):
            g = _new_variable(g, None, False)
        if x._grad_hooks:
            g = variable._run_grad_hooks(x, g)
        old = x.grad_var
        if old is not None:
            x.grad_var = old + g if double else _new_variable(_add(old._data, g._data), None,
                                                              False)
            _run_post_hooks(x)
            continue
        a = g._data
        # Two leaves (or a leaf and a seed) must not share one array, nor get a read-only
        # view: optimizers and hooks update gradients in place.
        if id(a) in stored or not a.flags.writeable:
            g = _new_variable(a.copy(), g._node, g._requires_grad)
        stored.add(id(g._data))
        x.grad_var = g
        if x._post_hooks:
            _run_post_hooks(x)


def _run_post_hooks(x: Any) -> None:
    if x._post_hooks:
        for hook, ref in list(x._post_hooks):
            param = ref()
            if param is not None:
                hook(param)
