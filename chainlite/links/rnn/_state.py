"""What the RNN links share: their state Variables move with them between devices, and a zero
state is made on the link's device."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy

if TYPE_CHECKING:
    from chainlite import link
    from chainlite import variable
    from chainlite.device_resident import DeviceResidentsVisitor


def visit(visitor: DeviceResidentsVisitor, *states: Optional[variable.Variable]) -> None:
    """Hands each state that is set to ``visitor`` (a link's ``device_resident_accept``)."""
    for state in states:
        if state is not None:
            visitor.visit_variable(state)


def to_link_device(owner: link.Link, state: variable.Variable) -> None:
    """Sends a state given to ``set_state`` to the link's device, as Chainer does."""
    device = owner.device
    data = state.array
    if data is not None and not device.is_array_supported(data):
        state.to_device(device)


def zeros(owner: link.Link, shape: tuple, dtype: Any) -> Any:
    """A zero array for a state, on the link's device (made current for the allocation, since
    CuPy allocates on the current GPU, which need not be the link's)."""
    device = owner.device
    if device.xp is numpy:
        return numpy.zeros(shape, dtype)
    with device:
        return device.xp.zeros(shape, dtype)
