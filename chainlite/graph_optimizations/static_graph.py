"""``static_graph``: record a chain's forward once, then replay it without building a graph.

The first call of a decorated forward runs define-by-run while a recorder watches every
:class:`~chainlite.FunctionNode` forward (and every :func:`static_code` call): which function
ran, on which arrays, giving which arrays. The arrays become numbered slots: the call's
inputs, the parameters, the results of earlier steps, and constants (arrays that came from
elsewhere, kept by reference). Later calls with inputs of the same shapes and dtypes, under
the same configuration, replay that schedule: each recorded function's ``forward`` runs again
on the current arrays, with no Variable, no graph node, no type check and none of the links'
Python code in between.

The whole replay is one node of the caller's graph, :class:`StaticScheduleFunction`. When
every recorded function has an array-level twin of its backward (``_backward_arrays``: the
same arithmetic as the nodes its ``backward`` applies), the node's backward runs those on the
replay's arrays in reverse recorded order. Otherwise it runs the ordinary backward walk over
the graph recorded on the first call, whose retained arrays each replay refreshes. Either way
the gradients are the ones define-by-run computes, bit for bit. Functions that draw random
numbers in forward (dropout) draw them again on every replay, in the recorded order, from the
same NumPy random state.

On a GPU (CuPy inputs, or parameters on a GPU) the decorated forward runs define-by-run,
unrecorded: the replay's buffers and fused steps are NumPy's.

Threads: a schedule's replay writes into buffers it owns, so one call replays it at a time
(the call claims it; another thread's call meanwhile replays another schedule of the chain,
records one, or runs define-by-run). Recordings run one at a time, and record the forwards of
their own thread only; the recorded graph is linked to the schedule's own stand-ins for the
parameters' nodes after the forward, so the parameters themselves never change.
"""
from __future__ import annotations

import functools
import itertools
import operator
import threading
import warnings
import weakref
from typing import Any, Callable, Optional

import numpy

from chainlite import backprop
from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.backends import cuda
from chainlite.graph_optimizations import _static_ops

_config = configuration.config
_Variable = variable.Variable
_ndarray = numpy.ndarray
_new_variable = variable._new_variable
_object_new = object.__new__
_ref = weakref.ref
_get_ident = threading.get_ident
_leaf_walk = backprop._leaf_walk  # (per thread)
_VariableNode = variable.VariableNode
_is = operator.is_
_getitem = operator.getitem
_data_of = operator.attrgetter('_data')
_requires_grad_of = operator.attrgetter('_requires_grad')
_rank_of = operator.attrgetter('rank')
_node_of = operator.attrgetter('_node')
_grad_var_of = operator.attrgetter('grad_var')
_grad_hooks_of = operator.attrgetter('_grad_hooks')
_post_hooks_of = operator.attrgetter('_post_hooks')
_creator_of = operator.attrgetter('creator_node')
_repeat = itertools.repeat

# Schedules kept per input signature and per chain before new signatures run define-by-run.
MAX_SCHEDULES_PER_KEY = 4
MAX_KEYS = 16


def _busy() -> bool:
    # A schedule's owner while a call replays it: not free, and no backward to wait for.
    return True


# Schedules are chosen and claimed under _lock: a replay writes into buffers its schedule
# owns, so one call at a time replays it. Recordings run one at a time under _record_lock:
# function_node._recorder is one global (it records the forwards of its own thread only).
# (Reentrant: a function hook may call a static chain while a first call is handed over.)
_lock = threading.Lock()
_record_lock = threading.RLock()
# What a call does (chosen by _choose).
_REPLAY, _RECORD, _DEFINE_BY_RUN = 'replay', 'record', 'define-by-run'


class _CodeStep:
    # A static_code call as a schedule step: forward() calls it again with the current inputs.

    def __init__(self, func: Callable, name: Optional[str], args: tuple, kwargs: dict) -> None:
        self.func = func
        self.name: str = name if name else getattr(func, '__qualname__', repr(func))
        self.args = args
        self.kwargs = kwargs

    def forward(self, inputs: tuple) -> tuple:
        kwargs = self.kwargs
        if 'inputs' in kwargs:
            kwargs = dict(kwargs, inputs=list(inputs))
        return _result_tuple(self.func(*self.args, **kwargs), self.name)


def _result_tuple(ret: Any, name: str) -> tuple:
    if ret is None:
        return ()
    if isinstance(ret, _ndarray):
        return ret,
    if isinstance(ret, (tuple, list)) and all(isinstance(a, _ndarray) for a in ret):
        return tuple(ret)
    raise TypeError('static_code function %s must return None, an array or a tuple of '
                    'arrays, got %s' % (name, type(ret).__name__))


class _Recorder:
    """Watches the forwards of a static chain's first call and numbers their arrays."""

    def __init__(self) -> None:
        self.thread = _get_ident()  # other threads' forwards are not recorded
        self.depth = 0          # > 0 inside a recorded forward: nested applies are not steps
        self.steps: list = []   # [function, state before forward, input slots, output slots]
        self.slots: dict = {}   # id(array) -> slot
        self.values: list = []  # slot -> the array seen while recording (keeps ids unique)
        # id(array) -> the first slot it got: an op may return its input itself (a cast to
        # the same dtype), and a parameter must feed the slot the first reader took it from.
        self.first: dict = {}

    def slot(self, a: Any) -> int:
        s = self.slots.get(id(a))
        if s is None:
            s = self.new_slot(a)  # an array from elsewhere: a constant
        return s

    def new_slot(self, a: Any) -> int:
        s = len(self.values)
        self.values.append(a)
        self.slots[id(a)] = s
        self.first.setdefault(id(a), s)
        return s

    def record(self, fn: Any, in_data: tuple) -> tuple:
        if self.depth or self.thread != _get_ident():
            return fn._forward_hooked(in_data)
        # Attributes set before forward are restored before each replayed forward, so state
        # that forward fills in on first use (a dropout mask) is computed again every time.
        state = dict(fn.__dict__) or None
        self.depth += 1
        try:
            outputs = fn._forward_hooked(in_data)
        finally:
            self.depth -= 1
        outputs = _normalize(fn, outputs)
        ins = [self.slot(a) for a in in_data]
        outs = [self.new_slot(y) for y in outputs]
        self.steps.append([fn, state, ins, outs])
        return outputs

    def record_code(self, func: Callable, name: Optional[str], args: tuple,
                    kwargs: dict) -> Any:
        if self.thread != _get_ident():
            return func(*args, **kwargs)  # another thread's call: not part of this schedule
        step = _CodeStep(func, name, args, kwargs)
        inputs = kwargs.get('inputs', ())
        self.depth += 1
        try:
            ret = func(*args, **kwargs)
        finally:
            self.depth -= 1
        outputs = _result_tuple(ret, step.name)
        ins = [self.slot(a) for a in inputs]
        outs = [self.new_slot(y) for y in outputs]
        self.steps.append([step, None, ins, outs])
        return ret


def _normalize(fn: Any, outputs: Any) -> tuple:
    # What FunctionNode._wrap_outputs would do, done first so that the arrays recorded are
    # the very arrays the output Variables hold.
    if outputs.__class__ is not tuple:
        outputs = fn._output_tuple(outputs)
    if any([y.__class__ is not _ndarray for y in outputs]):
        outputs = tuple([y if y.__class__ is _ndarray else numpy.asarray(y)
                         for y in outputs])
    return outputs


class _Schedule:
    """One recorded forward: its steps over slots, and the graph recorded with it."""

    # Set by _record once the schedule is built: how outputs nest, the parameters used with
    # their (shape, dtype) when recorded, and where the chain holds them (see _param_paths).
    spec: Any
    params: list[Any]
    param_sig: list[tuple[Any, Any]]
    param_arrays: list[Any]
    holders: list[Any]
    keys: list[Any]
    held: list[Any]
    # Whether backward's gradients for the inputs and parameters are new arrays of their own.
    fresh_grads = False

    def __init__(self, recorder: _Recorder, in_slots: list, out_slots: list,
                 out_nodes: list, leaves: list) -> None:
        steps = []
        for fn, state, ins, outs in recorder.steps:
            nodes = None
            if isinstance(fn, function_node.FunctionNode) and fn._ins is not None and (
                    fn._input_indexes_to_retain is not None or
                    fn._output_indexes_to_retain is not None):
                nodes = fn.inputs  # the step refreshes what backward reads
            steps.append((fn, state, tuple(ins), tuple(outs), nodes))
        self.steps = tuple(steps)
        values = recorder.values
        produced = set(in_slots)
        for step in steps:
            produced.update(step[3])
        # Only constants stay in the template: every other slot is filled by each call.
        self.template = [None if i in produced else a for i, a in enumerate(values)]
        self.in_slots = tuple(in_slots)
        self.out_slots = tuple(out_slots)
        self.out_nodes = out_nodes
        self.leaves = leaves
        # Whether the replay must refresh the recorded graph's retained arrays when its
        # backward walks that graph (a schedule recorded without backprop has none).
        self.has_graph = any(step[4] is not None for step in steps)
        self.owner: Any = None   # weak reference to the StaticScheduleFunction still using it
        self.generation = 0      # replays so far: a stale backward is detected
        self.first_outputs = tuple(values[s] for s in out_slots)
        self.first_values: Any = values
        self.back_steps = self._array_backward_plan(steps)
        self.ops, self.back_ops = self._compile(values)

    def _array_backward_plan(self, steps: list) -> Optional[tuple]:
        # When every function that backward runs has an array-level twin of its backward
        # (_backward_arrays, or a step in _static_ops) and no array gets gradients from more
        # than two places (two summands add up the same in either order), backward runs on
        # the arrays, in reverse recorded order, with no graph. Otherwise (None) it walks the
        # graph.
        plan = []
        readers: dict = {}
        for s in self.out_slots:
            readers[s] = readers.get(s, 0) + 1
        for fn, _, ins, outs, _ in steps:
            if not isinstance(fn, function_node.FunctionNode) or fn._ins is None:
                continue  # outside the graph: backward never reaches it
            if getattr(type(fn), '_backward_arrays', None) is None and \
                    _static_ops.builders(fn)[1] is None:
                return None
            nodes = fn.inputs or ()
            idx = tuple([i for i, n in enumerate(nodes) if n.requires_grad])
            for i in idx:
                readers[ins[i]] = readers.get(ins[i], 0) + 1
            plan.append((fn, ins, outs, idx))
        if any(n > 2 for n in readers.values()):
            return None
        self.readers = readers
        plan.reverse()
        return tuple(plan)

    def _compile(self, values: list) -> tuple[list, Optional[list]]:
        # The steps of a replay that keeps no graph: NumPy calls for the functions
        # _static_ops knows, the recorded forward for the others. A result that only such
        # steps read, and that is not an output of the chain, lives in a buffer reused by
        # every call: nothing outside the schedule ever sees it.
        steps = self.steps
        fwd = [_static_ops.builders(fn)[0] if isinstance(fn, function_node.FunctionNode)
               else None for fn, _, _, _, _ in steps]
        compiled = [False] * len(steps)
        producer: dict = {}
        for k, (fn, _, ins, outs, _) in enumerate(steps):
            for o in outs:
                producer[o] = k
        # First pass: which steps can be compiled at all (without buffers).
        for k, (fn, _, ins, outs, _) in enumerate(steps):
            build = fwd[k]
            compiled[k] = build is not None and build(fn, ins, outs, values, {}) is not None
        internal = set(producer) - set(self.out_slots) - set(self.in_slots)
        for k, (fn, _, ins, outs, _) in enumerate(steps):
            if not compiled[k]:
                internal.difference_update(outs)
                internal.difference_update(ins)
        buffers = {s: numpy.empty_like(values[s]) for s in internal
                   if compiled[producer[s]]}
        ops: list = []
        for k, (fn, state, ins, outs, _) in enumerate(steps):
            build = fwd[k]
            op = build(fn, ins, outs, values, buffers) if build and compiled[k] else None
            ops.append(op if op is not None else _generic_step(fn, state, ins, outs))
        back_ops = None
        if self.back_steps is not None:
            # A gradient with one contribution, of a result held in a buffer, gets a buffer.
            readers = self.readers
            gbufs = {s: numpy.empty_like(values[s]) for s in buffers if readers.get(s) == 1}
            back_ops = []
            fresh = not set(self.out_slots) & set(self.in_slots)
            for fn, ins, outs, idx in self.back_steps:
                build = _static_ops.builders(fn)[1]
                op = None if build is None else build(fn, ins, outs, idx, values, gbufs)
                if op is None:
                    fresh = False
                    op = _generic_backward_step(fn, ins, outs, idx)
                back_ops.append(op)
            # The steps of _static_ops give an input or a parameter a new array of its own
            # (buffers are for results inside the schedule): backward hands them over as
            # they are. Another function's backward may return its output gradient itself
            # (an identity) or a read-only view, which backward copies, as the walk does.
            self.fresh_grads = fresh
        return ops, back_ops

    def free(self) -> bool:
        owner = self.owner
        return owner is None or owner() is None

    def replay(self, arrays: tuple) -> list:
        """Replays the forward on ``arrays`` (the inputs, then the parameters), keeping no
        graph; returns every slot's array."""
        self.generation += 1
        b = self.template.copy()
        any(map(b.__setitem__, self.in_slots, arrays))  # (None each: runs them all)
        for op in self.ops:
            op(b)
        return b

    def run(self, arrays: tuple, retain: bool) -> tuple:
        """Replays the forward on ``arrays`` (the inputs, then the parameters).

        Returns the outputs and every slot's array. ``retain`` refreshes what the recorded
        graph keeps for its backward.
        """
        self.generation += 1
        bufs = self.template.copy()
        for s, a in zip(self.in_slots, arrays):
            bufs[s] = a
        for fn, state, ins, outs, nodes in self.steps:
            if state is not None:
                fn.__dict__.update(state)
            in_data = tuple([bufs[i] for i in ins])
            ys = fn.forward(in_data)
            if ys.__class__ is not tuple or len(ys) != 1 or ys[0].__class__ is not _ndarray:
                ys = _normalize(fn, ys)
            if len(outs) == 1:
                bufs[outs[0]] = ys[0]
            else:
                for i, y in zip(outs, ys):
                    bufs[i] = y
            if nodes is not None and retain:
                fn._retain(nodes, in_data, ys)
        return tuple([bufs[s] for s in self.out_slots]), bufs


def _generic_step(fn: Any, state: Optional[dict], ins: tuple, outs: tuple) -> Callable:
    # A function _static_ops does not know: its own forward on the current arrays, its
    # attributes first reset to what they were before the recorded forward.
    if len(outs) == 1:
        o = outs[0]

        def step1(b: list) -> None:
            if state is not None:
                fn.__dict__.update(state)
            ys = fn.forward(tuple([b[i] for i in ins]))
            if ys.__class__ is not tuple or len(ys) != 1 or ys[0].__class__ is not _ndarray:
                ys = _normalize(fn, ys)
            b[o] = ys[0]
        return step1

    def step(b: list) -> None:
        if state is not None:
            fn.__dict__.update(state)
        ys = _normalize(fn, fn.forward(tuple([b[i] for i in ins])))
        for i, y in zip(outs, ys):
            b[i] = y
    return step


def _generic_backward_step(fn: Any, ins: tuple, outs: tuple, idx: tuple) -> Callable:
    # The function's own array-level twin of its backward (_backward_arrays).
    acc = _static_ops.accumulate

    def back(b: list, g: list) -> None:
        gys = tuple([g[o] for o in outs])
        if all([gy is None for gy in gys]):
            return
        gxs = fn._backward_arrays(idx, gys, [b[i] for i in ins], [b[o] for o in outs])
        for i, gx in zip(idx, gxs):
            if gx is not None:
                acc(g, ins[i], gx if gx.__class__ is _ndarray else numpy.asarray(gx))
    return back


class StaticScheduleFunction(function_node.FunctionNode):
    """The node a static chain's call leaves in the caller's graph.

    Its inputs are the call's inputs and the chain's parameters; its forward replays the
    recorded schedule (or hands over the first call's results); its backward runs the
    schedule's backward steps on the replay's arrays, or walks the graph recorded on the
    first call, so every gradient equals define-by-run's.
    """

    def __init__(self, schedule: _Schedule, first: bool) -> None:
        self.schedule = schedule
        self._first = first
        self.generation = -1
        self._bufs: Any = None  # the replay's arrays, while backward may run on them

    @property
    def label(self) -> str:
        return 'StaticScheduleFunction'

    def forward(self, inputs: tuple) -> tuple:
        sched = self.schedule
        # Backward runs on arrays when it can and nothing (hooks, debug) wants the graph.
        on_arrays = sched.back_ops is not None and not function_node._hooks_active and \
            _config.enable_backprop
        if self._first:
            self._first = False
            outputs = sched.first_outputs
            sched.first_outputs = ()
            sched.generation += 1
            if on_arrays:
                self._bufs = sched.first_values
            sched.first_values = None
        elif on_arrays or not sched.has_graph:
            b = sched.replay(inputs)
            if on_arrays:
                self._bufs = b
            outputs = tuple([b[s] for s in sched.out_slots])
        else:
            outputs, _ = sched.run(inputs, True)
        self.generation = sched.generation
        return outputs

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        sched = self.schedule
        if _config.enable_backprop:
            raise RuntimeError(
                'static_graph: a static chain cannot be differentiated twice (double '
                'backprop); decorate its forward with static_graph(enable_double_backprop='
                'True) to run it define-by-run instead')
        self._check_generation()
        if self._bufs is not None:
            gxs = self._backward_on_arrays(
                indexes, tuple([None if g is None else g._data for g in grad_outputs]))
            return tuple([None if g is None else _new_variable(g, None, False) for g in gxs])
        out_nodes, seeds = [], []
        for n, g in zip(sched.out_nodes, grad_outputs):
            if n is not None and g is not None:
                out_nodes.append(n)
                seeds.append(g)
        leaves = sched.leaves
        for i in indexes:
            leaves[i].grad_var = None
        if out_nodes:
            backprop._backprop(out_nodes, seeds, None, False, False, None)
        ret = []
        for i in indexes:
            n = leaves[i]
            ret.append(n.grad_var)
            n.grad_var = None
        sched.owner = None  # backward is done: the next call may replay this schedule
        return tuple(ret)

    def _backward_arrays(self, indexes: tuple, grad_outputs: tuple, inputs: tuple,
                         outputs: tuple) -> tuple:
        # The walk's array form (no hooks, no debug mode, no double backprop): the replay's
        # backward steps take the output gradients as they are and hand back the arrays, with
        # no Variable on either side.
        if self._bufs is None:
            gxs = self.backward(indexes, tuple([
                None if g is None else _new_variable(g, None, False) for g in grad_outputs]))
            return tuple([None if g is None else g._data for g in gxs])
        self._check_generation()
        gxs = self._backward_on_arrays(indexes, grad_outputs)
        walk = getattr(_leaf_walk, 'scale', None)
        if walk is None or not self.schedule.fresh_grads:
            return gxs
        return self._store_parameter_grads(indexes, gxs, walk[0])

    def _store_parameter_grads(self, indexes: tuple, gxs: tuple, loss_scale: Any) -> tuple:
        # Inside backward() (not grad()): a parameter whose gradient is still None, with no
        # hook, gets its gradient here, as _store_leaf_grads would give it at the end of the
        # walk, and the walk gets None for it. Any other gradient from elsewhere in the walk
        # is added to it then: two summands, the same sum in either order. A parameter with
        # a gradient already (no cleargrads) is left to the walk, which adds the walk's sum
        # to it, as define-by-run does.
        nodes = self._ins
        n = len(self.schedule.params)
        n_inputs = len(nodes) - n
        if n and len(indexes) >= n and indexes[-n] == n_inputs:
            # Every parameter needs a gradient (the usual case): the tests run over all of
            # them inside map() (C).
            pn, gp = nodes[n_inputs:], gxs[-n:]
            if not (any(map(_is, gp, _repeat(None))) or
                    not all(map(_is, map(_grad_var_of, pn), _repeat(None))) or
                    any(map(_grad_hooks_of, pn)) or any(map(_post_hooks_of, pn)) or
                    not all(map(_is, map(_creator_of, pn), _repeat(None)))):
                list(map(setattr, pn, _repeat('_loss_scale'), _repeat(loss_scale)))
                list(map(setattr, pn, _repeat('grad_var'),
                         map(_new_variable, gp, _repeat(None), _repeat(False))))
                return gxs[:-n] + (None,) * n
        ret = list(gxs)
        for k, i in enumerate(indexes):
            gx = ret[k]
            if i < n_inputs or gx is None:
                continue
            x = nodes[i]
            if x.grad_var is not None or x._grad_hooks or x._post_hooks or \
                    x.creator_node is not None:
                continue
            x._loss_scale = loss_scale
            x.grad_var = _new_variable(gx, None, False)
            ret[k] = None
        return tuple(ret)

    def _check_generation(self) -> None:
        if self.generation != self.schedule.generation:
            raise RuntimeError(
                'static_graph: the static chain was called again (and its schedule replayed) '
                'before the backward of an earlier call; run backward before the next call, '
                'or keep the graphs of several calls by calling the chain again only after '
                'backward')

    def _backward_on_arrays(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        # grad_outputs and the results are arrays (None where there is none).
        sched = self.schedule
        b = self._bufs
        self._bufs = None
        g: list = [None] * len(b)
        out_slots = sched.out_slots
        if len(out_slots) == 1:
            g[out_slots[0]] = grad_outputs[0]
        else:
            for s, gy in zip(out_slots, grad_outputs):
                if gy is not None:
                    _static_ops.accumulate(g, s, gy)
        for op in sched.back_ops or ():
            op(b, g)
        in_slots = sched.in_slots
        if sched.fresh_grads:
            sched.owner = None
            return tuple(map(g.__getitem__, map(in_slots.__getitem__, indexes)))
        seeds = {id(gy) for gy in grad_outputs if gy is not None}
        ret = []
        for i in indexes:
            gx = g[in_slots[i]]
            if gx is not None:
                # As the walk over the graph: a leaf gets its own writeable array.
                if id(gx) in seeds or not gx.flags.writeable:
                    gx = gx.copy()
                seeds.add(id(gx))
            ret.append(gx)
        sched.owner = None
        return tuple(ret)


class ScheduleManager:
    """The schedules of one static chain, keyed by input signature and configuration.

    Args:
        chain: The chain.
        minimize_cache_size: Drop every schedule when ``config.train`` changes.
        verbosity_level: 0 silent, 1 says when schedules are recorded, 2 also each call.
    """

    def __init__(self, chain: Any, minimize_cache_size: bool = False,
                 verbosity_level: int = 0) -> None:
        self.chain_ref = weakref.ref(chain)
        self.minimize_cache_size = minimize_cache_size
        self.verbosity_level = verbosity_level
        self.schedules: dict = {}
        self.prev_train: Optional[bool] = None
        self._warned_full = False

    def end_forward(self) -> None:
        """Marks every schedule free for the next call (Chainer's custom-loop API).

        Needed only when a chain is called several times with no backward in between and
        the earlier results are no longer needed.
        """
        with _lock:
            for scheds in self.schedules.values():
                for s in scheds:
                    if s.owner is not _busy:  # a replay running in another thread keeps it
                        s.owner = None

    def clear(self) -> None:
        """Forgets every schedule: the next call records again."""
        with _lock:
            self.schedules.clear()

    def __repr__(self) -> str:
        lines = ['ScheduleManager:']
        for key, scheds in self.schedules.items():
            lines.append('  %s: %d schedule(s) of %d steps' % (
                _describe_key(key), len(scheds), len(scheds[0].steps) if scheds else 0))
        return '\n'.join(lines)


def _describe_key(key: tuple) -> str:
    train, backprop_on, sig = key[0], key[1], key[2:]
    shapes = ', '.join('%s %s' % (s[0], s[1]) if isinstance(s, tuple) and len(s) == 3
                       else repr(s) for s in sig)
    return '%s%s (%s)' % ('train' if train else 'test',
                          '' if backprop_on else ', no backprop', shapes)


def _on_gpu(args: Any) -> bool:
    # Whether a GPU array (or a Variable holding one) is among the arguments.
    for a in args:
        if isinstance(a, (tuple, list)):
            if _on_gpu(a):
                return True
        elif cuda.is_gpu_array(a._data if isinstance(a, _Variable) else a):
            return True
    return False


def _flatten(args: Any, flat: list, sig: list) -> bool:
    # Arrays and Variables (possibly in nested lists and tuples) are the schedule's inputs;
    # hashable plain values become part of the key. False when something cannot be keyed.
    for a in args:
        if isinstance(a, _Variable):
            d = a._data
            if d is None:
                return False
            flat.append(a)
            sig.append((d.shape, d.dtype, a._requires_grad))
        elif isinstance(a, _ndarray):
            flat.append(a)
            sig.append((a.shape, a.dtype, False))
        elif isinstance(a, (tuple, list)):
            sig.append(('(' if isinstance(a, tuple) else '[', len(a)))
            if not _flatten(a, flat, sig):
                return False
        elif a is None or isinstance(a, (bool, int, float, str)):
            sig.append(('const', a))
        else:
            return False
    return True


def _rebuild(args: Any, it: Any) -> Any:
    out = []
    for a in args:
        if isinstance(a, (_Variable, _ndarray)):
            out.append(next(it))
        elif isinstance(a, (tuple, list)):
            out.append(type(a)(_rebuild(a, it)))
        else:
            out.append(a)
    return out


def _flatten_outputs(ret: Any, flat: list) -> Any:
    # The structure of what forward returned, with its arrays and Variables taken out.
    if isinstance(ret, _Variable):
        flat.append(ret)
        return 'v'
    if isinstance(ret, _ndarray):
        flat.append(ret)
        return 'a'
    if isinstance(ret, (tuple, list)):
        return (type(ret), [_flatten_outputs(r, flat) for r in ret])
    if isinstance(ret, dict):
        return (dict, [(k, _flatten_outputs(r, flat)) for k, r in ret.items()])
    return ('const', ret)


def _unflatten_outputs(spec: Any, it: Any) -> Any:
    if spec == 'v':
        return next(it)
    if spec == 'a':
        return next(it)._data
    kind, items = spec
    if kind == 'const':
        return items
    if kind is dict:
        return {k: _unflatten_outputs(s, it) for k, s in items}
    return kind([_unflatten_outputs(s, it) for s in items])


def _record(func: Callable, chain: Any, args: tuple, flat: list, mgr: ScheduleManager,
            key: tuple) -> Any:
    recorder = _Recorder()
    # The inputs as the forward will see them: arrays as given, Variables as fresh leaves
    # over the same arrays, so the recorded graph ends at leaves this schedule owns.
    seen = set()
    inner: list[Any] = []
    leaves: list[Any] = []
    for x in flat:
        a = x._data if isinstance(x, _Variable) else x
        if id(a) in seen:
            return None  # one array passed twice: its slots would merge
        seen.add(id(a))
        recorder.new_slot(a)
        if isinstance(x, _Variable):
            v = _Variable(a, requires_grad=x._requires_grad)
            inner.append(v)
            leaves.append(v.node)
        else:
            inner.append(a)
            leaves.append(None)
    params = list(chain.params())
    if any(p._data is not None and p._data.__class__ is not _ndarray for p in params):
        return None  # a chain on a GPU runs define-by-run (see static_graph)
    prev = function_node._recorder
    function_node._recorder = recorder
    function_node._hooks_active += 1
    try:
        ret = func(chain, *_rebuild(args, iter(inner)))
    finally:
        function_node._hooks_active -= 1
        function_node._recorder = prev
    in_slots = list(range(len(flat)))
    wrapper_inputs = [x if isinstance(x, _Variable) else _new_variable(x, None, False)
                      for x in flat]
    used = []
    # The parameters' nodes in the recorded graph are replaced by stand-ins of this
    # schedule, so gradients reach its backward (which returns them), not the parameters.
    stand_ins: dict = {}
    for p in params:
        d = p._data
        s = None if d is None else recorder.first.get(id(d))
        if s is None:
            continue  # not used by this forward
        if s in in_slots:
            continue
        proxy = variable.VariableNode(d.shape, d.dtype, p._requires_grad)
        if p._node is not None:
            stand_ins[id(p._node)] = proxy
        in_slots.append(s)
        wrapper_inputs.append(p)
        used.append(p)
        leaves.append(proxy)
    _link_stand_ins(recorder.steps, stand_ins)
    out_flat: list[Any] = []
    spec = _flatten_outputs(ret, out_flat)
    out_slots, out_nodes = [], []
    for o in out_flat:
        a = o._data if isinstance(o, _Variable) else o
        out_slots.append(recorder.slot(a))
        n = o._node if isinstance(o, _Variable) else None
        out_nodes.append(stand_ins.get(id(n), n))
    sched = _Schedule(recorder, in_slots, out_slots, out_nodes, leaves)
    sched.spec = spec
    sched.params = used
    sched.param_sig = [(p._data.shape, p._data.dtype) for p in used]
    sched.param_arrays = [p._data for p in used]
    sched.holders, sched.keys, sched.held = _param_paths(chain, used)
    sched.owner = _busy  # until the first call's results are handed over
    with _lock:
        scheds = mgr.schedules.get(key)
        if scheds is None and len(mgr.schedules) < MAX_KEYS or \
                scheds is not None and len(scheds) < MAX_SCHEDULES_PER_KEY:
            mgr.schedules.setdefault(key, []).append(sched)
    chain.__dict__['static_schedule'] = sched
    if mgr.verbosity_level >= 1:
        print('static_graph: recorded a schedule of %d steps for %s.%s, %s'
              % (len(sched.steps), type(chain).__name__, func.__name__, _describe_key(key)))
    return _call_schedule(sched, wrapper_inputs, True)


def _link_stand_ins(steps: list, stand_ins: dict) -> None:
    # Points the recorded functions' inputs at the stand-ins (id(node) -> stand-in) and moves
    # the data they retained from those inputs there. Nothing else in a forward's graph refers
    # to an input's node, and the parameters' own nodes stay as they were.
    if not stand_ins:
        return
    for step in steps:
        fn = step[0]
        nodes = getattr(fn, '_ins', None)  # (a static_code step has none)
        if nodes is None:
            continue
        nodes = nodes if nodes.__class__ is tuple else (nodes,)
        if not any([id(n) in stand_ins for n in nodes]):
            continue
        new = tuple([stand_ins.get(id(n), n) for n in nodes])
        for i in fn._input_indexes_to_retain or ():
            if new[i] is not nodes[i]:
                new[i].data = nodes[i].data
        fn._ins = new if len(new) > 1 else new[0]


def _replay_call(sched: _Schedule, flat: list, cfg: Any) -> Any:
    # A replay: the schedule's node applied to the call's inputs and the parameters, with
    # apply's work done here for this one known case unless hooks want to see it.
    if function_node._hooks_active:
        inputs = [x if isinstance(x, _Variable) else _new_variable(x, None, False)
                  for x in flat]
        inputs.extend(sched.params)
        return _call_schedule(sched, inputs, False)
    fn = _object_new(StaticScheduleFunction)
    fn.schedule = sched
    fn._first = False
    params = sched.params
    if len(flat) == 1 and sched.spec == 'v' and sched.back_ops is not None and \
            cfg.enable_backprop:
        v = _replay_one(fn, sched, flat[0], params)
        if v is not None:
            return v
    fn._bufs = None
    inputs = []
    in_data = []
    requires_grad = False
    for x in flat:
        if x.__class__ is _ndarray:
            inputs.append(_new_variable(x, None, False))
            in_data.append(x)
        else:
            inputs.append(x)
            in_data.append(x._data)
            requires_grad = requires_grad or x._requires_grad
    if params:
        inputs.extend(params)
        in_data.extend(sched.param_arrays)
        if not requires_grad:
            requires_grad = any(map(_requires_grad_of, params))
    data = tuple(in_data)
    ys = fn.forward(data)
    spec = sched.spec
    if spec == 'v' and requires_grad and cfg.enable_backprop:
        # One output to link (a chain's common case): what _wrap_outputs does for it. The
        # replay's outputs are arrays already, and the node retains nothing.
        y = ys[0]
        nodes = tuple([x._node or x._make_node() for x in inputs])
        fn._ins = nodes if len(nodes) > 1 else nodes[0]
        fn.rank = rank = max(map(_rank_of, nodes))
        return _linked_output(fn, sched, y, rank)
    outs = fn._wrap_outputs(inputs, data, ys, requires_grad, cfg)
    # Busy until its backward ran (or its graph is freed); else free now.
    sched.owner = None if fn._ins is None else _ref(fn)
    if spec == 'v':
        return outs[0]
    return _unflatten_outputs(spec, iter(outs))


def _replay_one(fn: StaticScheduleFunction, sched: _Schedule, x: Any, params: list) -> Any:
    # A training call's replay (one input, one output, backward on arrays): the node's
    # forward and the linking of its inputs and output done here in one go. None when
    # nothing requires a gradient (the general path then leaves the output unlinked).
    if x.__class__ is _ndarray:
        a = x
        node = _object_new(_VariableNode)  # what _make_node gives a wrapped array
        node.shape = a.shape
        node.dtype = a.dtype
        node.requires_grad = False
        if not any(map(_requires_grad_of, params)):
            return None
    else:
        a = x._data
        node = x._node or x._make_node()
        if not x._requires_grad and not any(map(_requires_grad_of, params)):
            return None
    b = sched.replay((a, *sched.param_arrays))
    fn._bufs = b
    fn.generation = sched.generation
    y = b[sched.out_slots[0]]
    if params:
        nodes = (node, *map(_node_of, params))
        if None in nodes:  # (a parameter's node is made with it; a subclass may differ)
            nodes = (node, *[p._node or p._make_node() for p in params])
        fn._ins = nodes
        fn.rank = rank = max(map(_rank_of, nodes))
    else:
        fn._ins = node
        fn.rank = rank = node.rank
    return _linked_output(fn, sched, y, rank)


def _linked_output(fn: StaticScheduleFunction, sched: _Schedule, y: Any, rank: int) -> Any:
    # The Variable of the replay's one output y, made fn's output (what _wrap_outputs does
    # for one array), with fn's inputs linked and its rank set by the caller.
    n = _object_new(_VariableNode)
    n.creator_node = fn
    n.rank = rank + 1
    n.shape = y.shape
    n.dtype = y.dtype
    fn._outs = _ref(n)
    sched.owner = _ref(fn)  # busy until its backward ran (or its graph is freed)
    v = _object_new(_Variable)
    v._data = y
    v._node = n
    return v


def _call_schedule(sched: _Schedule, inputs: list, first: bool) -> Any:
    fn = StaticScheduleFunction(sched, first)
    outs = fn.apply(inputs)
    # Busy until its backward ran (or its graph is freed); else free now.
    sched.owner = None if fn._ins is None else _ref(fn)
    return _unflatten_outputs(sched.spec, iter(outs))


def static_graph(*args: Any, **kwargs: Any) -> Callable:
    """Decorates a chain's forward so that it is recorded once and replayed afterwards.

    The first call (for each input signature and configuration) runs the forward
    define-by-run and records the array operations it performs; later calls whose inputs
    have the same shapes, dtypes and ``requires_grad``, under the same ``config.train`` and
    ``config.enable_backprop``, replay them without building Variables or graph nodes, and
    without running the links' Python code. Results and gradients are the define-by-run
    ones, bit for bit. A call with a new signature is recorded again (define-by-run, with a
    warning when the chain already had a schedule for that mode).

    The forward must be static: the same functions on arrays of the same shapes each call,
    with no Python-side state or data-dependent control flow (code that must run every call
    goes into a :func:`static_code` function). Functions that draw random numbers in forward
    (``F.dropout``) draw again on every replay. Parameters may be updated in place by
    optimizers; arrays reached otherwise (a link's persistent state) are kept by reference.

    Several threads may call the chain at once: each call replays a schedule no other call
    is using (recording another when all are in use), and recordings run one at a time.

    On a GPU (CuPy arrays as inputs, or a chain whose parameters are on a GPU) the forward
    runs define-by-run on every call, without recording: the schedule's replay and its
    array-level backward are written for NumPy (buffers, in-place ufuncs, fused steps), and
    define-by-run gives the same results there. The chain's schedules for CPU arrays are kept
    and still replayed.

    Usable bare (``@static_graph``) or with options (``@static_graph(verbosity_level=1)``).

    Args:
        force_test_define_by_run (bool): Run define-by-run whenever ``config.train`` is
            False.
        minimize_cache_size (bool): Drop the recorded schedules whenever ``config.train``
            changes.
        verbosity_level (int): 1 prints when schedules are recorded, 2 also each call.
        enable_double_backprop (bool): Run define-by-run always, so that results can be
            differentiated twice (a replayed schedule supports first-order backward only).

    Returns:
        The decorated forward.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F, chainlite.links as L
        >>> class MLP(chainlite.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.l1 = L.Linear(4, 8)
        ...             self.l2 = L.Linear(8, 2)
        ...     @chainlite.static_graph
        ...     def forward(self, x):
        ...         return self.l2(F.relu(self.l1(x)))
        >>> model = MLP()
        >>> x = np.ones((3, 4), np.float32)
        >>> y1 = model(x)                 # recorded
        >>> y2 = model(x)                 # replayed
        >>> bool((y1.array == y2.array).all())
        True
    """
    options: dict[str, Any] = {'force_test_define_by_run': False, 'minimize_cache_size': False,
               'verbosity_level': 0, 'enable_double_backprop': False}
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _decorate(args[0], **options)
    if args:
        raise TypeError('static_graph takes keyword options only (%s), got %d positional '
                        'arguments' % (', '.join(options), len(args)))
    unknown = set(kwargs) - set(options)
    if unknown:
        raise TypeError('static_graph got unexpected keyword arguments %s; its options are %s'
                        % (sorted(unknown), ', '.join(options)))
    options.update(kwargs)
    return lambda func: _decorate(func, **options)


def _decorate(func: Callable, force_test_define_by_run: bool, minimize_cache_size: bool,
              verbosity_level: int, enable_double_backprop: bool) -> Callable:

    @functools.wraps(func)
    def wrapped(chain: Any, *args: Any, **kwargs: Any) -> Any:
        cfg = _config
        recorder = function_node._recorder
        if recorder is not None and recorder.thread == _get_ident():
            # Inside another static chain's recording the ops are recorded there.
            return func(chain, *args, **kwargs)
        if kwargs or enable_double_backprop or not cfg.use_static_graph or cfg.debug or \
                (force_test_define_by_run and not cfg.train):
            return func(chain, *args, **kwargs)
        # The key: the mode, then each argument's shape, dtype and requires_grad.
        train = bool(cfg.train)
        flat: list[Any] = []
        sig: list[Any] = [train, bool(cfg.enable_backprop)]
        for a in args:
            c = a.__class__
            if c is _ndarray:
                flat.append(a)
                sig.append((a.shape, a.dtype, False))
            elif c is _Variable and a._data.__class__ is _ndarray:
                flat.append(a)
                d = a._data
                sig.append((d.shape, d.dtype, a._requires_grad))
            else:
                # Nested lists and tuples, plain values and subclasses: the general walk.
                if _on_gpu(args):
                    return func(chain, *args, **kwargs)
                flat, sig = [], sig[:2]
                if not _flatten(args, flat, sig):
                    warnings.warn('static_graph: %s.%s got an argument that is neither an '
                                  'array, a Variable nor a plain value; running define-by-run'
                                  % (type(chain).__name__, func.__name__), stacklevel=2)
                    return func(chain, *args, **kwargs)
                break
        key = tuple(sig)
        with _lock:
            mgr = chain.__dict__.get('schedule_manager')
            if mgr is None or mgr.chain_ref() is not chain:
                mgr = ScheduleManager(chain, minimize_cache_size, verbosity_level)
                chain.__dict__['schedule_manager'] = mgr
            action, sched, message = _choose(mgr, key, train)
        if message:
            warnings.warn(message % (type(chain).__name__, func.__name__), stacklevel=2)
        if action is _REPLAY:
            if verbosity_level >= 2:
                print('static_graph: replaying %s.%s, %s'
                      % (type(chain).__name__, func.__name__, _describe_key(key)))
            chain.__dict__['static_schedule'] = sched  # as Chainer, the last used
            try:
                return _replay_call(sched, flat, cfg)
            except BaseException:
                sched.owner = None
                raise
        if action is _DEFINE_BY_RUN:
            return func(chain, *args, **kwargs)
        with _record_lock:
            ret = _record(func, chain, args, flat, mgr, key)
        if ret is None:  # a call that cannot be recorded
            return func(chain, *args, **kwargs)
        return ret

    # The undecorated forward, reachable from the decorated one.
    setattr(wrapped, '_static_graph_func', func)
    return wrapped


def _choose(mgr: ScheduleManager, key: tuple, train: bool) -> tuple[str, Any, str]:
    # With _lock held: what a call with this key does, the schedule it claimed
    # for a replay, and a warning to give (formatted with the chain's and forward's names).
    if mgr.prev_train is not train:
        if mgr.minimize_cache_size and mgr.prev_train is not None:
            mgr.schedules.clear()
        mgr.prev_train = train
    scheds = mgr.schedules.get(key)
    if scheds is not None:
        for sched in scheds:
            if sched.params and not _params_match(sched):
                # A parameter changed shape or dtype: the Python side may differ too.
                scheds.remove(sched)
                break
            owner = sched.owner
            if owner is None or owner() is None:
                sched.owner = _busy  # this call's, until its forward (or backward) is done
                return _REPLAY, sched, ''
        if len(scheds) >= MAX_SCHEDULES_PER_KEY:
            # Every schedule still awaits its backward: run this call define-by-run.
            return _DEFINE_BY_RUN, None, ''
        return _RECORD, None, ''
    if len(mgr.schedules) >= MAX_KEYS:
        if not mgr._warned_full:
            mgr._warned_full = True
            return _DEFINE_BY_RUN, None, (
                'static_graph: %%s.%%s has been called with %d different input signatures; '
                'new ones run define-by-run without recording' % MAX_KEYS)
        return _DEFINE_BY_RUN, None, ''
    if any(k[0] == key[0] and k[1] == key[1] for k in mgr.schedules):
        return _RECORD, None, (
            'static_graph: %%s.%%s called with inputs of new shapes or dtypes (%s); this '
            'call runs define-by-run and records a new schedule'
            % _describe_key(key).replace('%', '%%'))
    return _RECORD, None, ''


def _param_paths(chain: Any, used: list) -> tuple[list, list, list]:
    # Where the chain holds each parameter a schedule uses, as (container, key, object)
    # triples along the path from the chain: a link's __dict__ and an attribute name, or a
    # ChainList's list of children and an index. A parameter or link replaced on the way
    # (a new Parameter for l1.W, a new child link l1) changes one of them.
    paths = {id(p): path for path, p in chain.namedparams()}
    holders: list = []
    keys: list = []
    held: list = []
    seen: set = set()
    for p in used:
        link = chain
        names = paths.get(id(p), '').split('/')[1:]
        for name in names:
            d = link.__dict__
            if name in d:
                container, key = d, name
            elif isinstance(d.get('_children'), list) and name.isdigit():
                container, key = d['_children'], int(name)  # a ChainList's child
                if (id(d), '_children') not in seen:  # (the list itself may be replaced)
                    seen.add((id(d), '_children'))
                    holders.append(d)
                    keys.append('_children')
                    held.append(container)
            else:
                break  # held some other way: not watched
            obj = container[key]
            if (id(container), key) not in seen:
                seen.add((id(container), key))
                holders.append(container)
                keys.append(key)
                held.append(obj)
            link = obj
    return holders, keys, held


def _params_match(sched: _Schedule) -> bool:
    # Every parameter still held where it was recorded, and the arrays seen last time; a
    # new array must have the recorded shape and dtype.
    try:
        if not all(map(_is, map(_getitem, sched.holders, sched.keys), sched.held)):
            return False
    except (KeyError, IndexError):  # an attribute deleted, a ChainList shortened
        return False
    arrays = sched.param_arrays
    if all(map(_is, map(_data_of, sched.params), arrays)):
        return True
    for k, p in enumerate(sched.params):
        d = p._data
        if d is not arrays[k]:
            shape, dtype = sched.param_sig[k]
            if d is None or d.shape != shape or d.dtype != dtype:
                return False
            arrays[k] = d
    return True


class ScheduleInfo:
    """One call of Chainer's static schedule: a function, its arguments and array bookkeeping.

    chainlite's schedules keep their steps as plain lists (see the module's description);
    this class is Chainer's record of a step, for code that builds or inspects one. Calling
    it points the listed arguments at their master arrays in ``unique_arrays``, calls
    ``func(*args, **kwargs)``, then releases those references and stores the arrays it
    returned.

    Args:
        func: The function to call.
        args: Its positional arguments.
        kwargs: Its keyword arguments; ``kwargs['inputs']`` and ``kwargs['outputs']`` are the
            lists the hooks below update.
        inputs_hooks: ``(index in inputs, index in unique_arrays)`` pairs.
        outputs_hooks: ``(index in outputs, index in unique_arrays)`` pairs.
        return_hooks: ``(index in the returned arrays, index in unique_arrays)`` pairs.
        delete_hooks: Indexes of ``unique_arrays`` to release before the call.
        unique_arrays: The master list of the schedule's arrays.
        array_infos: One :class:`ArrayInfo` per entry of ``unique_arrays``; a retained
            array is updated in place rather than replaced.
        func_name: A name for messages.

    Example:
        >>> import numpy as np
        >>> arrays = [np.ones(2), None]
        >>> infos = [ArrayInfo(arrays[0]), ArrayInfo(np.zeros(2))]
        >>> step = ScheduleInfo(lambda inputs: (inputs[0] * 3,), (), {'inputs': [None]},
        ...                     [(0, 0)], [], [(0, 1)], [], arrays, infos)
        >>> step()
        >>> arrays[1]
        array([3., 3.])
    """

    def __init__(self, func: Callable, args: tuple, kwargs: dict, inputs_hooks: list,
                 outputs_hooks: list, return_hooks: list, delete_hooks: list,
                 unique_arrays: list, array_infos: list, func_name: Optional[str] = None
                 ) -> None:
        if len(array_infos) != len(unique_arrays):
            raise ValueError('ScheduleInfo: %d array_infos for %d unique_arrays'
                             % (len(array_infos), len(unique_arrays)))
        self.func, self.args, self.kwargs = func, args, kwargs
        self.inputs_hooks, self.outputs_hooks = inputs_hooks, outputs_hooks
        self.return_hooks, self.delete_hooks = return_hooks, delete_hooks
        self.unique_arrays, self.array_infos = unique_arrays, array_infos
        self.func_name = func_name
        self.in_list: Any = kwargs['inputs'] if inputs_hooks else None
        self.out_list: Any = kwargs['outputs'] if outputs_hooks else None
        # The FunctionNode whose forward this step wraps, if it is the first argument.
        self.function_node = args[0] if args and isinstance(
            args[0], function_node.FunctionNode) else None

    def run_pre_hooks(self) -> None:
        """Points the listed inputs and outputs at their master arrays; releases others."""
        for index, unique in self.inputs_hooks:
            self.in_list[index] = self.unique_arrays[unique]
        for index, unique in self.outputs_hooks:
            self.out_list[index] = self.unique_arrays[unique]
        for unique in self.delete_hooks:
            self.unique_arrays[unique] = None

    def run_post_hooks(self, return_arrays: Any) -> None:
        """Drops the argument references and stores the returned arrays as masters.

        Args:
            return_arrays: What the function returned (indexed by ``return_hooks``).
        """
        for index, _ in self.inputs_hooks:
            self.in_list[index] = None
        for index, _ in self.outputs_hooks:
            self.out_list[index] = None
        for ret_index, unique in self.return_hooks:
            if self.array_infos[unique].retain:
                # A retained array may be read by reference elsewhere: copy into it.
                self.unique_arrays[unique][...] = return_arrays[ret_index]
            else:
                self.unique_arrays[unique] = return_arrays[ret_index]

    def __call__(self) -> None:
        self.run_pre_hooks()
        ret = self.func(*self.args, **self.kwargs)
        self.run_post_hooks(ret)

    def __repr__(self) -> str:
        return 'function: %s\nname: %s\nargs: %s\nkwargs: %s\n' % (
            self.func, self.func_name, self.args, self.kwargs)


class ArrayInfo:
    """What Chainer's static schedule records about one array of the define-by-run run.

    Args:
        array: The array; it is held by weak reference.

    Attributes:
        weak_ref: A weak reference to the array.
        id: ``id(array)``.
        shape: Its shape.
        dtype: Its dtype.
        ndarray_module: Its array module (NumPy).
        device: ``-1``: the CPU.
        retain: Whether a function retains the array (set later by the scheduler).

    Example:
        >>> import numpy as np
        >>> a = np.ones((2, 3), np.float32)
        >>> info = ArrayInfo(a)
        >>> info.get_new_empty_array().shape, info.was_deleted()
        ((2, 3), False)
    """

    def __init__(self, array: Any) -> None:
        self.weak_ref = weakref.ref(array)
        self.id = id(array)
        self.array = None  # the schedule's own array, made when needed
        self.shape = array.shape
        self.dtype = array.dtype
        from chainlite import backend
        self.ndarray_module = backend.get_array_module(array)
        self.device = -1
        # Where the array came from and went, in the schedule (pass depth, index).
        self.in_var_index: Any = None
        self.out_var_index: Any = None
        self.dynamically_allocated = False
        self.dynamic_allocation_index: Any = None
        self.dynamic_allocation_pass_depth: Any = None
        self.dynamic_deletion_index: Any = None
        self.dynamic_deletion_pass_depth: Any = None
        self.static_allocation_index: Any = None
        self.retain = False

    def was_deleted(self) -> bool:
        """Returns whether the array no longer exists."""
        return self.weak_ref() is None

    def get_new_empty_array(self) -> Any:
        """Returns a new uninitialized array of the recorded shape and dtype."""
        return self.ndarray_module.empty(self.shape, dtype=self.dtype)

    def __repr__(self) -> str:
        lines = ['shape: {}'.format(self.shape),
                 'Weak reference: %s' % ('dead' if self.was_deleted() else 'alive')]
        if self.retain:
            lines.append('Retained with retain_inputs()/retain_outputs().')
        if self.dynamically_allocated:
            lines += ['Dynamically allocated at',
                      '  pass_depth: {}'.format(self.dynamic_allocation_pass_depth),
                      '  sched_index: {}'.format(self.dynamic_allocation_index)]
        lines.append('array id: {}'.format(self.id))
        return '\n'.join(lines)
