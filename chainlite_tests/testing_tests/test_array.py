"""Tests of chainlite.testing.assert_allclose."""

import numpy
import pytest

import chainlite
from chainlite import testing


def test_passes_within_tolerance():
    x = numpy.array([1.0, 2.0, -3.0])
    testing.assert_allclose(x, x + 1e-6)
    testing.assert_allclose(x, x * (1 + 5e-5), atol=0)


def test_default_tolerances():
    # |x - y| <= 1e-5 + 1e-4 * |y|
    testing.assert_allclose(numpy.array([100.0]), numpy.array([100.0095]))
    with pytest.raises(AssertionError):
        testing.assert_allclose(numpy.array([100.0]), numpy.array([100.0105]))


def test_accepts_variables_and_scalars():
    v = chainlite.Variable(numpy.array([0.5, 1.5], numpy.float32))
    testing.assert_allclose(v, numpy.array([0.5, 1.5]))
    testing.assert_allclose(numpy.array([0.5, 1.5]), v)
    testing.assert_allclose(chainlite.Variable(numpy.array(2.0)), 2.0)
    testing.assert_allclose(numpy.full((2, 2), 3.0), 3.0)


def test_compares_in_float64():
    # float16 has no exact 0.1; compared in float64 the rounding error is visible.
    x = numpy.array([0.1], numpy.float16)
    with pytest.raises(AssertionError):
        testing.assert_allclose(x, numpy.array([0.1]), atol=1e-6, rtol=0)
    testing.assert_allclose(x, numpy.array([0.1]), atol=1e-4, rtol=0)


def test_integer_arrays():
    testing.assert_allclose(numpy.array([1, 2, 3]), numpy.array([1.0, 2.0, 3.0]))


def test_nan_in_both_is_equal():
    testing.assert_allclose(numpy.array([numpy.nan, 1.0]), numpy.array([numpy.nan, 1.0]))
    with pytest.raises(AssertionError, match=r'worst at index \(0,\)'):
        testing.assert_allclose(numpy.array([numpy.nan, 1.0]), numpy.array([0.0, 1.0]))


def test_message_names_worst_element_and_indexes():
    x = numpy.zeros((2, 3))
    y = x.copy()
    y[0, 1] = 1.0
    y[1, 2] = 5.0
    with pytest.raises(AssertionError) as info:
        testing.assert_allclose(x, y)
    message = str(info.value)
    assert '2 / 6 elements differ' in message
    assert 'worst at index (1, 2): x=0.0, y=5.0' in message
    assert 'absolute error: 5' in message
    assert 'offending indexes: (0, 1), (1, 2)' in message
    assert 'dtype: x float64, y float64' in message
    assert '\nx: ' in message and '\ny: ' in message


def test_message_limits_listed_indexes():
    with pytest.raises(AssertionError, match='and 15 more'):
        testing.assert_allclose(numpy.zeros(25), numpy.ones(25))


def test_message_relative_error_when_expected_is_zero():
    with pytest.raises(AssertionError, match='relative error: inf'):
        testing.assert_allclose(numpy.array([1.0]), numpy.array([0.0]))


def test_not_verbose_omits_arrays():
    with pytest.raises(AssertionError) as info:
        testing.assert_allclose(numpy.array([1.0, 2.0]), numpy.array([1.0, 3.0]), verbose=False)
    message = str(info.value)
    assert 'worst at index (1,)' in message
    assert '\nx: ' not in message


def test_keeps_original_dtypes_in_message():
    with pytest.raises(AssertionError, match='dtype: x float32, y int64'):
        testing.assert_allclose(numpy.array([1.0], numpy.float32), numpy.array([2]))


def test_shape_mismatch_raises():
    with pytest.raises(AssertionError, match=r'shapes \(2,\) and \(3,\)'):
        testing.assert_allclose(numpy.zeros(2), numpy.zeros(3))
