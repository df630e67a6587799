"""The Initializer base class and get_fans."""
import numpy as np
import pytest

import chainlite
from chainlite import initializer
from chainlite import initializers


class _Twos(initializer.Initializer):

    def __call__(self, array):
        self._check_dtype(array)
        array[...] = 2


@pytest.mark.parametrize('shape, fans', [
    ((3, 4), (4, 3)),  # Linear: (out_size, in_size)
    ((10, 3, 5, 5), (75, 250)),  # Convolution2D: (out, in, kh, kw)
    ((2, 6, 3, 3, 3), (162, 54)),  # Convolution3D
    ((7, 5, 1), (5, 7)),
    ((4, 0), (0, 4)),
])
def test_get_fans(shape, fans):
    assert initializer.get_fans(shape) == fans
    assert initializers.get_fans is initializer.get_fans


@pytest.mark.parametrize('shape', [(), (5,)])
def test_get_fans_needs_two_dimensions(shape):
    with pytest.raises(ValueError, match='at least 2 dimensions'):
        initializer.get_fans(shape)


def test_get_fans_needs_a_tuple():
    with pytest.raises(ValueError, match='tuple'):
        initializer.get_fans([3, 4])


def test_base_call_is_abstract():
    init = initializer.Initializer()
    assert init.dtype is None
    with pytest.raises(NotImplementedError, match='Initializer'):
        init(np.empty(2, np.float32))


def test_subclass_keeps_dtype_and_fills():
    init = _Twos(np.float16)
    assert init.dtype == np.float16
    a = initializers.generate_array(init, (2, 2), np)
    assert a.dtype == np.float16
    np.testing.assert_array_equal(a, np.full((2, 2), 2, np.float16))


def test_check_dtype_names_the_class():
    with pytest.raises(ValueError, match='_Twos.*float64.*float32'):
        _Twos(np.float32)(np.empty(2, np.float64))
    _Twos()(np.empty(2, np.float64))  # no dtype of its own: any array
    _Twos('f')(np.empty(2, np.float32))  # dtype specifiers are normalized


def test_check_dtype_understands_mixed16():
    _Twos(chainlite.mixed16)(np.empty(2, np.float16))


def test_subclass_works_as_parameter_initializer():
    p = chainlite.Parameter(_Twos(np.float64))
    assert p.dtype == np.float64 and not p.is_initialized
    p.initialize((3,))
    np.testing.assert_array_equal(p.array, [2., 2., 2.])
    assert p.array.dtype == np.float64
