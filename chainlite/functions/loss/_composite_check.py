"""Type checks for the loss functions that are compositions of other functions.

Such a function has no FunctionNode of its own to run ``check_type_forward``; it calls
:func:`check` first, so that bad input fails with the function's name and the argument's
name, as a FunctionNode's check does.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from chainlite import variable
from chainlite.utils import type_check


def check(label: str, names: Sequence[str], values: Sequence[Any],
          condition: Callable[[Any], None]) -> None:
    """Runs ``condition(in_types)`` on the arrays of ``values`` under ``names``.

    Args:
        label: The name of the function, for the message.
        names: One argument name per value.
        values: Variables or arrays.
        condition: A callable that calls ``type_check.expect`` on the named types.

    Raises:
        InvalidType: Naming ``label``, the argument and what was seen.
    """
    arrays = [v.array if isinstance(v, variable.Variable) else v for v in values]
    in_types = type_check.get_types(arrays, 'in_types', False)
    try:
        type_check.argname(in_types, names)
        condition(in_types)
    except type_check.InvalidType as e:
        msg = 'Invalid operation is performed in: %s (Forward)\n\n%s' % (label, e)
        raise type_check.InvalidType(e.expect, e.actual, msg=msg) from None
