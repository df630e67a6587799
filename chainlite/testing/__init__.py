"""Testing helpers for chainlite and for users' own functions and links."""
from chainlite.testing.array import assert_allclose  # noqa: F401
from chainlite.testing.gradients import check_grads  # noqa: F401
