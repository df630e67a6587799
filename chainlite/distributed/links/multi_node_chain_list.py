"""A model split over ranks: components joined by sends and receives."""
from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any, Sequence

from chainlite import link
from chainlite.distributed.functions.pseudo_connect import pseudo_connect
from chainlite.distributed.functions.recv import recv
from chainlite.distributed.functions.send import send

if TYPE_CHECKING:
    from chainlite.link import Link
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


def _ranks(value: Any) -> Any:
    return [value] if isinstance(value, int) else (None if value is None else list(value))


class MultiNodeChainList(link.ChainList):
    """A ChainList whose components exchange their inputs and outputs with other ranks.

    Each component is added with :meth:`add_link`, with the ranks it receives its inputs
    from (``rank_in``; None: the model's own inputs) and sends its outputs to
    (``rank_out``; None: the component's output is the model's output). Calling the model
    runs the components in order, receiving and sending as declared; the delegate
    variables of the sends are threaded through with
    :func:`~chainlite.distributed.functions.pseudo_connect`, so one ``backward()`` from the
    returned variable runs every component's backward in reverse order, exchanging the
    gradients. Each rank builds its own MultiNodeChainList; the sends and receives of all
    ranks must match.

    Args:
        comm: A communicator.

    Example:
        Two ranks splitting an MLP (rank 0 holds the first layer and the loss)::

            class Model0(MultiNodeChainList):
                def __init__(self, comm):
                    super().__init__(comm)
                    self.add_link(L.Linear(784, 100), rank_in=None, rank_out=1)
                    self.add_link(L.Linear(100, 10), rank_in=1, rank_out=None)

            class Model1(MultiNodeChainList):
                def __init__(self, comm):
                    super().__init__(comm)
                    self.add_link(L.Linear(100, 100), rank_in=0, rank_out=0)
    """

    def __init__(self, comm: CommunicatorBase) -> None:
        super().__init__()
        self._comm = comm
        self._rank_inouts: list = []

    def add_link(self, link: Link, rank_in: int | Sequence[int] | None = None,
                 rank_out: int | Sequence[int] | None = None) -> None:
        """Adds a component.

        Args:
            link: The component (a link or chain).
            rank_in: The rank (or list of ranks) its inputs come from, in order; None for
                the model's inputs.
            rank_out: The rank (or list of ranks) its output goes to; None if its output is
                the model's output (at most one component).
        """
        rank_in, rank_out = _ranks(rank_in), _ranks(rank_out)
        if rank_out is None and any(out is None for _, out in self._rank_inouts):
            raise ValueError('MultiNodeChainList.add_link: only one component may have '
                             'rank_out=None (the model output)')
        super().add_link(link)
        self._rank_inouts.append((rank_in, rank_out))

    def forward(self, *inputs: Any) -> Any:
        """Runs the components, with their communication; returns the model output.

        Returns:
            The output of the component with ``rank_out=None`` (joined to the delegates of
            the later sends), or, if there is none, the last delegate variable: call its
            ``backward()``.
        """
        comm = self._comm
        own: collections.deque[Any] = collections.deque()  # outputs this rank sends to itself
        y = None
        delegate = None
        for i, (f, (rank_in, rank_out)) in enumerate(zip(self._children, self._rank_inouts)):
            if rank_in is None:
                if i == 0:
                    x = f(*inputs)
                else:
                    # Backward must still reach the earlier components.
                    connected = pseudo_connect(delegate, *inputs)
                    x = f(*connected)
            else:
                xs = []
                for r in rank_in:
                    if r == comm.rank:
                        v = own.popleft()
                        if delegate is not None:
                            v, = pseudo_connect(delegate, v)
                    else:
                        v = recv(comm, r, delegate_variable=delegate)
                    xs.append(v)
                    delegate = v
                # Each edge's backward runs once: the next component starts afresh.
                delegate = None
                x = f(*xs)
            if rank_out is None:
                y = x
                delegate = y
                continue
            for j, r in enumerate(rank_out):
                if r == comm.rank:
                    if delegate is not None:
                        x, = pseudo_connect(delegate, x)
                    own.append(x)
                    delegate = x
                else:
                    if j > 0 and delegate is not None:
                        # Several sends: their backwards run in reverse order.
                        x, = pseudo_connect(delegate, x)
                    delegate = send(x, comm, rank=r)
        if own:
            raise ValueError('MultiNodeChainList: %d output(s) sent to this rank itself were '
                             'never received; check that rank_in and rank_out match'
                             % len(own))
        if y is delegate:
            return y
        if y is not None:
            y, = pseudo_connect(delegate, y)
            return y
        return delegate
