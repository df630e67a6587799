"""Turning a model's batch normalization layers into multi-node ones."""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from chainlite import link as link_module
from chainlite.distributed.links import batch_normalization as mnbn_link
from chainlite.links.normalization import batch_normalization as bn_link

if TYPE_CHECKING:
    from chainlite.link import Link
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


def create_mnbn_model(link: Link, comm: CommunicatorBase,
                      communication_backend: str = 'auto') -> Any:
    """Returns a copy of ``link`` whose BatchNormalization layers are multi-node ones.

    Every :class:`~chainlite.links.BatchNormalization` (at any depth of Chains, ChainLists
    and Sequentials) becomes a :class:`MultiNodeBatchNormalization` with the same
    parameters, statistics and settings; everything else is deep-copied.

    Args:
        link: The model.
        comm: A communicator.
        communication_backend: Passed to :class:`MultiNodeBatchNormalization`.

    Returns:
        The new model (``link`` is not changed).

    Example:
        ::

            model = create_mnbn_model(L.Classifier(ResNet()), comm)
    """
    if isinstance(link, bn_link.BatchNormalization):
        return _convert(link, comm, communication_backend)
    new = copy.deepcopy(link)
    _replace_children(new, comm, communication_backend)
    return new


def _convert(bn: Any, comm: CommunicatorBase, backend: str) -> Any:
    if bn.avg_mean is None:
        raise ValueError('create_mnbn_model: a BatchNormalization without a size (not yet '
                         'initialized) cannot be converted; give it a size')
    mnbn = mnbn_link.MultiNodeBatchNormalization(
        bn.avg_mean.shape, comm, decay=bn.decay, eps=bn.eps, dtype=bn.avg_mean.dtype,
        use_gamma=bn.gamma is not None, use_beta=bn.beta is not None,
        communication_backend=backend)
    mnbn.copyparams(bn)
    mnbn.name = bn.name
    return mnbn


def _replace_children(parent: Any, comm: CommunicatorBase, backend: str) -> None:
    # Links nest a few levels deep at most: a worklist, not recursion.
    work = [parent]
    while work:
        p = work.pop()
        if isinstance(p, link_module.Sequential):
            for i, child in enumerate(list(p)):
                if isinstance(child, bn_link.BatchNormalization):
                    p.pop(i)
                    p.insert(i, _convert(child, comm, backend))
                elif isinstance(child, link_module.Link):
                    work.append(child)
        elif isinstance(p, link_module.ChainList):
            for i, child in enumerate(p._children):
                if isinstance(child, bn_link.BatchNormalization):
                    p._children[i] = _convert(child, comm, backend)
                else:
                    work.append(child)
        elif isinstance(p, link_module.Chain):
            for name in list(p._children):
                child = p.__dict__[name]
                if isinstance(child, bn_link.BatchNormalization):
                    p.__dict__[name] = _convert(child, comm, backend)
                else:
                    work.append(child)
