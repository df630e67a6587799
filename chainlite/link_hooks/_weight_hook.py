"""What the hooks that rewrite a link's weight for each forward share."""
from typing import Any, NoReturn


class NotAContextManagerError(TypeError, NotImplementedError):
    """Raised by ``with hook:`` for a hook that only works on one link (also a
    NotImplementedError, as Chainer raises)."""


def refuse_context(hook: Any) -> NoReturn:
    raise NotAContextManagerError(
        '%s is registered on one link with link.add_hook(hook); it cannot be used as a '
        'context manager' % type(hook).__name__)


def check_weight(hook: Any, link: Any) -> None:
    if link is None:
        refuse_context(hook)
    if not hasattr(link, hook.weight_name):
        raise ValueError('%s: the link %s has no weight %r' % (
            type(hook).__name__, type(link).__name__, hook.weight_name))


def initialize_lazily(hook: Any, link: Any, args: tuple) -> None:
    # A lazily initialised weight gets its shape from the first input, as the link would.
    if getattr(link, hook.weight_name).array is None:
        if not args or args[0] is None:
            raise ValueError('%s: the weight %r of %s is not initialized and there is no input '
                             'to infer its shape' % (type(hook).__name__, hook.weight_name,
                                                      type(link).__name__))
        link._initialize_params(args[0].shape[1])
