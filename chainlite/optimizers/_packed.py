"""Packed updates: an optimizer's small plain parameters share each NumPy call of the update."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

from chainlite import optimizer

if TYPE_CHECKING:
    from chainlite import link as link_module
    from chainlite import variable


class PackedUpdates(optimizer.GradientMethod):
    """A gradient method whose plain parameters update together through packed state.

    A subclass names two things:

    - ``_packable(params, hyperparam)``: the parameters that may share the update (small,
      with plain rules: no hooks, overrides or variants), ``{id(param): (param, ...)}``;
    - ``_pack``: the class of the packed state, made from that dict, with
      ``holds(params, hyperparam)`` (whether it still stands for exactly these parameters
      and settings) and ``update(hyperparam)``.

    The other parameters update one by one, through their rules, as the base class does.
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
            packed.update(self.hyperparam)
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
            packed = self._packed = self._pack(packable)
        packed.update(self.hyperparam)
