"""Averaging a model's persistent values (batch-norm statistics) over the ranks."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy

from chainlite.backends import cuda
from chainlite.training import extension

if TYPE_CHECKING:
    from chainlite.link import Link
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase
    from chainlite.training.trainer import Trainer


def _namedpersistents(model: Any) -> list:
    out = []
    for path, link in model.namedlinks():
        for name in link._persistent:
            out.append((path + '/' + name, link.__dict__[name]))
    return sorted(out, key=lambda item: item[0])


class AllreducePersistent(extension.Extension):
    """Trainer extension that replaces each float persistent array by its mean over ranks.

    Batch normalization's running mean and variance are computed from each rank's own
    batches; averaging them before evaluating or saving gives statistics of all the data.
    Integer and scalar persistents (such as ``N``) are left alone; arrays on a GPU are
    averaged in place there.

    Args:
        model: The link whose persistents are averaged.
        comm: A communicator.

    Attributes:
        trigger: ``(1, 'epoch')``.
        priority: Just above ``PRIORITY_WRITER``: it runs before evaluators and snapshots.
    """

    trigger = 1, 'epoch'
    priority = extension.PRIORITY_WRITER + 1

    def __init__(self, model: Link, comm: CommunicatorBase) -> None:
        self.model = model
        self.comm = comm

    def __call__(self, trainer: Trainer | None = None) -> None:
        """Averages the persistents (every rank must call it)."""
        for _, value in _namedpersistents(self.model):
            if (isinstance(value, numpy.ndarray) or cuda.is_gpu_array(value)) and \
                    value.dtype.kind == 'f':
                # In place; every communicator create_communicator makes is MPI based.
                cast(Any, self.comm)._multi_node_mean(None, value)
