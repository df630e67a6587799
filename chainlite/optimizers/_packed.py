"""Packed updates: an optimizer's small plain parameters share each NumPy call of the update.

On a GPU the same holds with GPU buffers, where it saves kernel launches: the parameters of
one device are packed into buffers on that device. The arithmetic is elementwise, so each
element gets the same operations packed or not, and the results are the same bits.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Self

import numpy

from chainlite import backend
from chainlite import optimizer
from chainlite.backends import cuda

if TYPE_CHECKING:
    from chainlite import link as link_module
    from chainlite import variable


def buffers(first: Any, total: int, count: int) -> tuple[list[Any], Optional[int]]:
    """Work buffers for a packed update, on the device of the parameters' arrays.

    Args:
        first: The array of one of the parameters (all are on its device and of its dtype).
        total: The number of elements of each buffer.
        count: How many buffers.

    Returns:
        The uninitialised 1-d buffers, and the id of their GPU (None on the CPU), which the
        packed state compares the parameters' device with (the model may move).
    """
    device = backend.get_device_from_array(first)
    with device:
        arrays = [device.xp.empty(total, first.dtype) for _ in range(count)]
    return arrays, None if first.__class__ is numpy.ndarray else first.device.id


class PackedUpdates(optimizer.GradientMethod):
    """A gradient method whose plain parameters update together through packed state.

    A subclass names two things:

    - ``_packable(params, hyperparam)``: the parameters that may share the update (small,
      with plain rules: no hooks, overrides or variants), ``{id(param): (param, ...)}``;
    - ``_pack``: the class of the packed state, made from that dict, with
      ``holds(params, hyperparam)`` (whether it still stands for exactly these parameters
      and settings) and ``update(hyperparam)``.

    The other parameters update one by one, through their rules, as the base class does.
    All packed parameters live on one device (``_packable`` refuses a mix), in buffers made
    by :func:`buffers` on it; ``holds`` fails once a parameter has moved (``to_device``), and
    the buffers are built anew from the rules' state there.
    """

    _packable: Any   # a staticmethod
    _pack: Any       # a class
    _packed: Any = None

    def setup(self, link: link_module.Link) -> Self:
        """Sets the target link and gives each of its parameters a fresh update rule.

        Args:
            link: The link whose parameters to optimize.

        Returns:
            This optimizer.
        """
        self._packed = None  # (it holds the previous target's parameters)
        return super().setup(link)

    def _update_params(self, params: list[variable.Parameter]) -> None:
        packed = self._packed
        if packed is not None and packed.holds(params, self.hyperparam):
            if packed.device_id is None:
                packed.update(self.hyperparam)
            else:
                _update_on_gpu(packed, self.hyperparam)
            return
        packable = self._packable(params, self.hyperparam)
        if not packable:
            super()._update_params(params)
            return
        for param in params:
            if id(param) not in packable:
                rule = param.update_rule
                if rule is not None:
                    rule.update(param)
        packed = self._packed
        if packed is None or not packed.holds([entry[0] for entry in packable.values()],
                                              self.hyperparam):
            # (on the parameters' device: the buffers and their views are made there)
            with backend.get_device_from_array(next(iter(packable.values()))[0]._data):
                packed = self._packed = self._pack(packable)
        if packed.device_id is None:
            packed.update(self.hyperparam)
        else:
            _update_on_gpu(packed, self.hyperparam)


def _update_on_gpu(packed: Any, hp: optimizer.Hyperparameter) -> None:
    # The buffers' GPU is the current device during the update (several GPUs).
    with cuda.get_device_from_id(packed.device_id):
        packed.update(hp)
