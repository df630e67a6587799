"""Data-parallel optimizers: every rank's gradients are averaged before each update."""
from __future__ import annotations

import atexit
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy

from chainlite import optimizer as optimizer_module
from chainlite import serializer as serializer_module
from chainlite.distributed.communicators import _packing

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer
    from chainlite.link import Link
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


# The ranks meet under this name before each exchange of gradients, with the update's
# number: a rank that is a call behind or ahead is found there (see _stopping.Watch.sync).
_UPDATE = 'update of the multi-node optimizer'


def _param_layout(target: Any) -> list:
    return [(name, p.array is not None) for name, p in sorted(target.namedparams())]


class _MultiNodeOptimizer:
    """Wraps an optimizer: averages gradients over the ranks, then lets it update.

    Every attribute not defined here is the wrapped optimizer's (read and written through).
    """

    def __init__(self, actual_optimizer: Optimizer, communicator: CommunicatorBase,
                 zero_fill: bool) -> None:
        object.__setattr__(self, 'communicator', communicator)
        object.__setattr__(self, 'actual_optimizer', actual_optimizer)
        object.__setattr__(self, 'zero_fill', zero_fill)
        object.__setattr__(self, 'target_params', [])
        object.__setattr__(self, '_updates', 0)
        if getattr(actual_optimizer, 'target', None) is not None:
            self._broadcast(actual_optimizer.target)

    def setup(self, link: Link) -> '_MultiNodeOptimizer':
        """Sets up the wrapped optimizer on ``link`` and gives every rank rank 0's parameters.

        Args:
            link: The model (the same architecture on every rank).

        Returns:
            This optimizer.
        """
        self.actual_optimizer.setup(link)
        self._broadcast(link)
        return self

    def _broadcast(self, target: Any) -> None:
        self.communicator.bcast_data(target)
        object.__setattr__(self, 'target_params', _param_layout(target))

    def _next_update(self) -> tuple:
        # Counts a call of update() (one that raises too) and describes it for messages.
        n = self._updates + 1
        object.__setattr__(self, '_updates', n)
        opt = self.actual_optimizer
        return n, lambda: 'update %d of the multi-node optimizer (t=%s, epoch %s)' % (
            n, getattr(opt, 't', '?'), getattr(opt, 'epoch', '?'))

    def update(self, lossfun: Optional[Callable[..., Any]] = None, *args: Any, **kwds: Any) -> None:
        """Computes the gradients (if ``lossfun`` is given), averages them, and updates.

        If parameters were initialized since the last call (lazily sized links), rank 0's
        values are broadcast instead and this update is skipped: the gradients were computed
        from each rank's own initial values.

        Every rank must call it as many times: the ranks compare the number of the update
        before exchanging gradients, so one that is behind or ahead (it skipped a call, or
        caught an exception raised inside one) is an error on every rank that names them.

        Args:
            lossfun: A callable returning the loss, or None when the gradients are set.
            args: Arguments of ``lossfun``.
            kwds: Keyword arguments of ``lossfun``.
        """
        n, describe = self._next_update()
        if self._backward(lossfun, args, kwds):
            self.communicator._mean_grad(self.target, self.zero_fill, _UPDATE, n, describe)
            self.actual_optimizer.update(None, *args, **kwds)

    def _backward(self, lossfun: Optional[Callable[..., Any]], args: tuple, kwds: dict) -> bool:
        # Computes the gradients if asked; False (after broadcasting rank 0's parameters)
        # when parameters were initialized since the last call, so this update is skipped.
        target = self.target
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(self.actual_optimizer, '_use_cleargrads', True):
                target.cleargrads()
            else:
                target.zerograds()
            loss.backward(loss_scale=self.actual_optimizer._loss_scale)
            del loss
        if _param_layout(target) != self.target_params:
            self._broadcast(target)
            return False
        return True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.actual_optimizer, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.actual_optimizer, name, value)


class _DoubleBufferingOptimizer(_MultiNodeOptimizer):
    """Averages the gradients in the background while the next ones are computed.

    Each update applies the averaged gradients of the previous step (so the first update
    only starts averaging) while this step's gradients travel with a non-blocking
    ``MPI_Iallreduce``: communication overlaps the next forward and backward.
    """

    def __init__(self, actual_optimizer: Optimizer, communicator: CommunicatorBase,
                 zero_fill: bool) -> None:
        object.__setattr__(self, '_pending', None)
        object.__setattr__(self, '_buffers', [_packing.Buffers(), _packing.Buffers()])
        object.__setattr__(self, '_device_buffers', _packing.Buffers())
        super().__init__(actual_optimizer, communicator, zero_fill)
        # An averaging still in flight when the program ends must finish before MPI does
        # (mpi4py finalizes MPI at exit; handlers registered later run first).
        atexit.register(self.wait)

    def _broadcast(self, target: Any) -> None:
        self.wait()
        object.__setattr__(self, '_pending', None)
        super()._broadcast(target)

    def update(self, lossfun: Optional[Callable[..., Any]] = None, *args: Any, **kwds: Any) -> None:
        """Like the plain multi-node optimizer's update, one step behind (see the class)."""
        n, describe = self._next_update()
        target = self.target
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            target.cleargrads()
            loss.backward(loss_scale=self.actual_optimizer._loss_scale)
            del loss
        if _param_layout(target) != self.target_params:
            self._broadcast(target)
            return
        params = _packing.grad_params(target, self.zero_fill)
        self.communicator._sync_grads(target, params, _UPDATE, n, describe)
        grads = [p.grad for p in params]
        # MPI sums no float16 (pure_nccl may transfer in it): such buffers go in float32.
        dtype = _packing.wire_dtype(self.communicator._transfer_dtype(grads[0].dtype)) \
            if grads else numpy.float32
        buffers = self._buffers[0]
        buf = buffers.get(dtype, sum(g.size for g in grads))
        # Gradients on a GPU are packed there and averaged in host memory.
        device = _packing.device_of(grads, 'update')
        if device is None:
            _packing.pack(grads, buf)
        else:
            _packing.pack_to_host(grads, buf, self._device_buffers, device)
        previous = self._pending
        if previous is not None:
            previous.Wait()
            if previous.buf.size != buf.size or previous.buf.dtype != buf.dtype:
                raise ValueError('double buffering: the gradients changed size between two '
                                 'updates (%d, then %d elements); pass zero_fill=True'
                                 % (previous.buf.size, buf.size))
            if device is None:
                _packing.unpack(previous.buf, grads)
            else:
                _packing.unpack_from_host(previous.buf, grads, self._device_buffers, device)
        object.__setattr__(self, '_pending', self.communicator._start_reduce_mean(buf))
        # The two buffers alternate: the one in flight is never packed into.
        self._buffers.reverse()
        if previous is not None:
            self.actual_optimizer.update(None, *args, **kwds)

    def wait(self) -> None:
        """Waits for the averaging in flight, if any (its result is then discarded)."""
        if self._pending is not None:
            self._pending.Wait()
            object.__setattr__(self, '_pending', None)


def _adopt(params: list, views: list) -> None:
    # Makes each parameter's array its view (copying the values in where it is not yet).
    for p, v in zip(params, views):
        a = p.array
        if a is not v:
            v[...] = a
            p.array = v


class _ShardedUpdateOptimizer(_MultiNodeOptimizer):
    """Each rank updates its share of the parameters (``shard_update=True``).

    The parameters are dealt out to the ranks whole, largest first, each to the rank with the
    fewest elements so far. At each update the gradients are reduce-scattered (each rank
    receives the sums of its own parameters' gradients only; two processes send each other
    the arrays directly, more go round a ring), each rank's update rules run on its own
    parameters, and the updated parameters are gathered by every rank (an allgather into
    the flat buffer the parameters' arrays are views of): the same traffic as one
    allreduce, and each rank does 1 / N of the optimizer's arithmetic.

    An update rule touches only its own parameter (Chainer's update rules and per-parameter
    hooks do), so the result is the plain multi-node optimizer's. What differs: after an
    update, the gradients of parameters that other ranks update are this rank's own, not
    the average; and the rules' state (Adam's moments...) of those parameters is stale on
    this rank until :meth:`_gather_state` brings it over, which saving the optimizer does.
    Whenever that would not be exact, the plain update runs instead (after gathering the
    state): an optimizer hook that sees all gradients at once (``GradientClipping``),
    dynamic loss scaling, parameters of several dtypes or in float16, or a single process.
    """

    def __init__(self, actual_optimizer: Optimizer, communicator: CommunicatorBase,
                 zero_fill: bool) -> None:
        object.__setattr__(self, '_plan', None)
        object.__setattr__(self, '_stale', False)
        super().__init__(actual_optimizer, communicator, zero_fill)

    def _broadcast(self, target: Any) -> None:
        self._gather_state()
        object.__setattr__(self, '_plan', None)
        super()._broadcast(target)

    def update(self, lossfun: Optional[Callable[..., Any]] = None, *args: Any, **kwds: Any) -> None:
        """Like the plain multi-node optimizer's update, each rank updating its share."""
        n, describe = self._next_update()
        if not self._backward(lossfun, args, kwds):
            return
        params = _packing.grad_params(self.target, True)
        comm = self.communicator
        if not self._can_shard(params):
            self._gather_state()
            comm._mean_grad(self.target, self.zero_fill, _UPDATE, n, describe)
            self.actual_optimizer.update(None, *args, **kwds)
            return
        comm._sync_grads(self.target, params, _UPDATE, n, describe)
        plan = self._plan
        if plan is None or plan[0] != [id(p) for p in params]:
            self._gather_state()
            plan = self._make_plan(params)
        _, order, counts, bounds, values, views = plan
        lo, hi = bounds[comm.rank]
        ordered = [params[i] for i in order]
        # The parameters' arrays are views into one flat buffer, so the allgather writes
        # them in place; an array replaced since (loading, a rule that rebinds) is copied in.
        _adopt(ordered, views)
        grads = [p.grad for p in ordered]
        scale = comm._reduce_scatter_arrays([grads[a:b] for a, b in bounds])
        if scale != 1.0:
            scale = values.dtype.type(scale)
            for g in grads[lo:hi]:
                g *= scale
        others = ordered[:lo] + ordered[hi:]
        # Their rules sit this update out, then count it as run (Chainer counts an update
        # even without a gradient), so t stays the same on every rank.
        paused = [p.update_rule for p in others if p.update_rule.enabled]
        for rule in paused:
            rule.enabled = False
        try:
            self.actual_optimizer.update(None, *args, **kwds)
        finally:
            for rule in paused:
                rule.enabled = True
        for rule in paused:
            rule.t += 1
        for p in others:
            p.node._loss_scale = None   # consumed, as the rule would have
        object.__setattr__(self, '_stale', True)
        _adopt(ordered[lo:hi], views[lo:hi])
        comm._allgather_segments(values, counts)
        for p, v in zip(ordered, views):
            if p.array is not v:
                p.array = v

    def _can_shard(self, params: list) -> bool:
        opt = self.actual_optimizer
        if self.communicator.size == 1 or not params or \
                not isinstance(opt, optimizer_module.GradientMethod) or \
                opt._loss_scaling_is_dynamic:
            return False
        hooks = opt._check_set_up()
        for timing in ('pre', 'post'):
            for hook in hooks.get(timing).values():
                if not getattr(hook, 'call_for_each_param', False):
                    return False
        dtype = params[0].array.dtype
        if dtype not in (numpy.float32, numpy.float64) or \
                self.communicator._transfer_dtype(dtype) != dtype:
            return False
        for p in params:
            if p.array.dtype != dtype or p.grad.dtype != dtype or p.update_rule is None:
                return False
            if not isinstance(p.array, numpy.ndarray):
                return False   # on a GPU: the plain update (see docs/distributed.md)
        return True

    def _make_plan(self, params: list) -> tuple:
        # Deals the parameters out (largest first, to the least loaded rank; the same on
        # every rank), then lists them rank by rank, by name within a rank.
        n = self.communicator.size
        load = [0] * n
        owner = [0] * len(params)
        for i in sorted(range(len(params)), key=lambda i: -params[i].array.size):
            k = load.index(min(load))
            owner[i] = k
            load[k] += params[i].array.size
        order = sorted(range(len(params)), key=lambda i: owner[i])
        bounds, lo = [], 0
        for k in range(n):
            bounds.append((lo, lo + owner.count(k)))
            lo += owner.count(k)
        values = numpy.empty(sum(load), params[0].array.dtype)
        views, o = [], 0
        for i in order:
            a = params[i].array
            views.append(values[o:o + a.size].reshape(a.shape))
            o += a.size
        plan = ([id(p) for p in params], order, load, bounds, values, views)
        object.__setattr__(self, '_plan', plan)
        object.__setattr__(self, '_owners', [(params[i], owner[i]) for i in order])
        return plan

    def _gather_state(self) -> None:
        """Brings every rank the current state of every update rule (a collective call).

        Each rank's rules are current only for the parameters it updates; after this call
        all are, so the optimizer serializes (and could update unsharded) as the plain one.
        """
        if not self._stale:
            return
        comm = self.communicator
        owners = self._owners
        mine = [(i, sorted((key, a.shape, a.dtype.str)
                           for key, a in p.update_rule.state.items()))
                for i, (p, owner) in enumerate(owners)
                if owner == comm.rank and p.update_rule.state is not None]
        described = dict(comm.allreduce_obj(mine))
        for root in range(comm.size):
            arrays = []
            for i, (p, k) in enumerate(owners):
                if k != root or i not in described:
                    continue
                rule = p.update_rule
                if rule._state is None:
                    rule._state = {}
                for key, shape, dtype in described[i]:
                    a = rule._state.get(key)
                    if a is None or a.shape != shape or a.dtype != numpy.dtype(dtype):
                        a = rule._state[key] = numpy.empty(shape, dtype)
                    arrays.append(a)
            if arrays:
                comm._bcast_arrays(arrays, root)
        object.__setattr__(self, '_stale', False)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the wrapped optimizer; saving first gathers the rules' state.

        Saving is therefore a collective call: every rank must save at the same time (the
        checkpointer and ``multi_node_snapshot`` do).

        Args:
            serializer: A serializer or deserializer.
        """
        if not isinstance(serializer, serializer_module.Deserializer):
            self._gather_state()
        self.actual_optimizer.serialize(serializer)
        if isinstance(serializer, serializer_module.Deserializer):
            object.__setattr__(self, '_stale', False)


def create_multi_node_optimizer(actual_optimizer: Optimizer, communicator: CommunicatorBase,
                                double_buffering: bool = False,
                                zero_fill: bool = True, *, shard_update: bool = False) -> Any:
    """Wraps an optimizer for data-parallel training over the ranks of ``communicator``.

    At ``setup`` rank 0's parameters are broadcast, so every rank starts from the same model;
    then each ``update`` averages the gradients over the ranks (one packed ``MPI_Allreduce``)
    before the wrapped optimizer's update. With every rank on ``B / N`` examples, the result
    equals one process on the whole batch of ``B``.

    Args:
        actual_optimizer: A chainlite (Chainer) optimizer, e.g. ``optimizers.Adam()``.
        communicator: A communicator from :func:`create_communicator`.
        double_buffering: If True, each step's gradients are averaged in the background and
            applied at the next step (communication overlaps computation; the update uses
            gradients one step old, which may change convergence).
        zero_fill: If True, parameters unused in a step (no gradient) take part with zero
            gradients; if False they are skipped, and must then be unused on every rank.
        shard_update: If True (a chainlite extension; ChainerMN has no such option), each
            rank runs the optimizer's update on its share of the parameters only: the
            gradients are reduce-scattered and the updated parameters allgathered (the same
            traffic as the allreduce), so each of N ranks does 1 / N of the update's work.
            The parameters, ``t`` and the saved state equal the plain optimizer's; after an
            update, the gradients of parameters another rank updates are this rank's own,
            not averaged, and saving the optimizer is a collective call. It falls back to
            the plain update where sharding would change the result (see
            docs/distributed.md). Not combined with ``double_buffering``.

    Returns:
        The wrapped optimizer: use it as the original (``setup``, ``update``, ``serialize``,
        hyperparameters).

    Example:
        ::

            comm = chainlite.distributed.create_communicator('naive')
            optimizer = chainlite.distributed.create_multi_node_optimizer(
                chainlite.optimizers.Adam(), comm)
            optimizer.setup(model)
    """
    if shard_update:
        if double_buffering:
            raise ValueError('create_multi_node_optimizer: shard_update and double_buffering '
                             'cannot be combined')
        return _ShardedUpdateOptimizer(actual_optimizer, communicator, zero_fill)
    cls = _DoubleBufferingOptimizer if double_buffering else _MultiNodeOptimizer
    return cls(actual_optimizer, communicator, zero_fill)
