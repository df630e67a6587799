"""Stacked RNNs whose states pass between ranks."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import link
from chainlite.distributed.functions.pseudo_connect import pseudo_connect
from chainlite.distributed.functions.recv import recv
from chainlite.distributed.functions.send import send
from chainlite.links.rnn import n_step_rnn

if TYPE_CHECKING:
    from chainlite.link import Link
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


class MultiNodeNStepRNN(link.Chain):
    """An ``NStep*`` RNN link whose initial states come from, and final states go to, ranks.

    Calling it receives the initial states (``h``, and ``c`` for LSTMs) from ``rank_in``
    (zeros if None), runs the RNN, and sends the final states to ``rank_out`` (if not None).
    It returns the RNN's outputs plus one more element: the delegate variable of the sends
    (None when nothing is sent), from which the backward pass starts.

    Args:
        link: An ``NStepRNNTanh``, ``NStepRNNReLU``, ``NStepGRU``, ``NStepLSTM`` or a
            bidirectional one.
        communicator: A communicator.
        rank_in: The rank sending the initial states, or None.
        rank_out: The rank receiving the final states, or None.

    Attributes:
        actual_rnn: The wrapped link.
    """

    def __init__(self, link: Link, communicator: CommunicatorBase, rank_in: Optional[int] = None,
                 rank_out: Optional[int] = None) -> None:
        if not isinstance(link, n_step_rnn.NStepRNNBase):
            raise ValueError('create_multi_node_n_step_rnn: link must be an NStep RNN link '
                             '(NStepLSTM, NStepGRU, ...), got %s' % type(link).__name__)
        super().__init__()
        with self.init_scope():
            self.actual_rnn = link
        self.communicator = communicator
        self.rank_in = rank_in
        self.rank_out = rank_out
        self.n_cells = link.n_cells

    def forward(self, *inputs: Any) -> tuple:
        """Runs the RNN on ``inputs`` (the sequences) between the two communications.

        Returns:
            The RNN's outputs (final states, then the output sequences), then the delegate.
        """
        cells: list = [None] * self.n_cells
        if self.rank_in is not None:
            # Each receive hangs on the previous one, so backward sends the gradients back
            # in the reverse order, which is the order the sender's backward receives them.
            previous: Any = None  # a Variable (one state is received per call)
            for i in range(self.n_cells):
                previous = cells[i] = recv(self.communicator, rank=self.rank_in,
                                           delegate_variable=previous)
        outputs = self.actual_rnn(*(tuple(cells) + inputs))
        states = outputs[:-1]
        delegate = None
        if self.rank_out is not None:
            state = states[0]
            for i in range(self.n_cells):
                delegate = send(state, self.communicator, rank=self.rank_out)
                if i < self.n_cells - 1:
                    state, = pseudo_connect(delegate, states[i + 1])
        return tuple(outputs) + (delegate,)


def create_multi_node_n_step_rnn(actual_link: Link, communicator: CommunicatorBase,
                                 rank_in: Optional[int] = None,
                                 rank_out: Optional[int] = None) -> MultiNodeNStepRNN:
    """Wraps an ``NStep*`` RNN link as a :class:`MultiNodeNStepRNN`.

    Args:
        actual_link: The RNN link.
        communicator: A communicator.
        rank_in: The rank sending the initial states, or None.
        rank_out: The rank receiving the final states, or None.

    Returns:
        The wrapping link.

    Example:
        An encoder on rank 0 hands its final states to a decoder on rank 1::

            enc = create_multi_node_n_step_rnn(L.NStepLSTM(1, 8, 8, 0.0), comm, rank_out=1)
            hy, cy, ys, delegate = enc(xs)
            delegate.backward()
    """
    return MultiNodeNStepRNN(actual_link, communicator, rank_in, rank_out)
