"""What the connection links share: initializer arguments turned into Parameters (with errors
that name the link and the argument), per-axis tuples, and channel-count checks."""
import numbers
from typing import Any

from chainlite import initializers
from chainlite import variable


class InitialValueShapeError(ValueError, AssertionError):
    """An initial array of the wrong shape: a ValueError, and the AssertionError of Chainer."""


class InputCountError(TypeError, AssertionError):
    """A forward given the wrong number of inputs: a TypeError, and the AssertionError that
    Chainer's debug-mode check raises."""


def pair(x: Any) -> Any:
    """``x`` itself if it is indexable (a tuple, a list), else ``(x, x)``: Chainer's ``_pair``."""
    return x if hasattr(x, '__getitem__') else (x, x)


def initializer(link: Any, argname: str, spec: Any) -> Any:
    """The initializer ``spec`` stands for (None: LeCunNormal); errors name the argument."""
    try:
        return initializers._get_initializer(spec)
    except (ValueError, TypeError) as e:
        raise type(e)('%s: invalid %s: %s' % (type(link).__name__, argname, e)) from None


def initialize(link: Any, argname: str, param: variable.Parameter, shape: tuple) -> None:
    """Initializes ``param`` with the given shape; a mismatch names the link's argument."""
    try:
        param.initialize(shape)
    except ValueError as e:
        raise InitialValueShapeError('%s: %s cannot initialize a parameter of shape %s: %s'
                                     % (type(link).__name__, argname, shape, e)) from None


def bias(link: Any, nobias: bool, initial_bias: Any, size: Any) -> Any:
    """The bias Parameter of ``size`` elements (zeros by default), or None if ``nobias``."""
    if nobias:
        return None
    b = variable.Parameter(initializer(link, 'initial_bias',
                                       0 if initial_bias is None else initial_bias))
    if size is not None:
        initialize(link, 'initial_bias', b, (size,))
    return b


def check_size(link: Any, argname: str, value: Any, minimum: int = 0,
               optional: bool = True) -> None:
    """Raises unless ``value`` is an int of at least ``minimum`` (or None where ``optional``)."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError('%s: %s must be an int%s, got %r (a %s)'
                        % (type(link).__name__, argname, ' or None' if optional else '',
                           value, type(value).__name__))
    if value < minimum:
        raise ValueError('%s: %s must be at least %d, got %d'
                         % (type(link).__name__, argname, minimum, value))


# The smallest value each per-axis argument may take: no zero-sized kernels or steps.
_AXIS_MINIMUM = {'ksize': 1, 'stride': 1, 'dilate': 1, 'pad': 0, 'outsize': 0}


def as_tuple(link: Any, argname: str, value: Any, ndim: int) -> tuple:
    """``value`` as a tuple of ``ndim`` entries: an int is repeated, a sequence checked."""
    if isinstance(value, (tuple, list)):
        if len(value) != ndim:
            raise ValueError('%s: %s must be an int or %d ints, got %r'
                             % (type(link).__name__, argname, ndim, value))
        values = tuple(value)
    else:
        values = (value,) * ndim
    for v in values:
        check_size(link, argname, v, _AXIS_MINIMUM.get(argname, 0), optional=False)
    return values


def channels_of(link: Any, x: Any) -> int:
    """The channel count (axis 1) of the input ``x`` of a lazily initialized link."""
    if x.ndim < 2:
        raise ValueError('%s: the input must have a batch axis and a channel axis, got shape %s'
                         % (type(link).__name__, x.shape))
    return x.shape[1]


def check_groups(link: Any, in_channels: int, out_channels: int, groups: int) -> None:
    """Raises ValueError unless both channel counts are multiples of a positive ``groups``."""
    if groups < 1:
        raise ValueError('%s: groups must be positive, got %d' % (type(link).__name__, groups))
    for name, n in (('out_channels', out_channels), ('in_channels', in_channels)):
        if n % groups:
            raise ValueError('%s: %s=%d is not divisible by groups=%d'
                             % (type(link).__name__, name, n, groups))


def init_nd(link: Any, ndim: int, in_channels: Any, out_channels: Any, ksize: Any, stride: Any,
            pad: Any, nobias: bool, initialW: Any, initial_bias: Any, dilate: Any,
            groups: int) -> None:
    """Sets up an N-d (de)convolution link: its attributes, ``W`` and ``b``.

    The short form ``(in_channels=out_channels, out_channels=ksize, ksize=None)`` infers the
    input channels; ``W`` is initialized now through ``link._initialize_params`` if they are
    known, else at the first forward.
    """
    if ksize is None:
        in_channels, out_channels, ksize = None, in_channels, out_channels
    check_size(link, 'in_channels', in_channels)
    check_size(link, 'out_channels', out_channels, optional=False)
    link.out_channels = out_channels
    link.ksize = as_tuple(link, 'ksize', ksize, ndim)
    as_tuple(link, 'stride', stride, ndim)  # checked now, kept as given
    as_tuple(link, 'pad', pad, ndim)
    link.stride = stride
    link.pad = pad
    link.dilate = as_tuple(link, 'dilate', dilate, ndim)
    link.groups = int(groups)
    with link.init_scope():
        link.W = variable.Parameter(initializer(link, 'initialW', initialW))
        if in_channels is not None:
            link._initialize_params(in_channels)
        link.b = bias(link, nobias, initial_bias, out_channels)
