"""UpsamplingDeconvFilter and DownsamplingConvFilter."""
import numpy as np
import pytest

from chainlite import initializers

_K3 = [[0.25, 0.5, 0.25], [0.5, 1., 0.5], [0.25, 0.5, 0.25]]


def test_upsampling_per_channel():
    # The same array Chainer 7.8.1 makes for (2, 2, 3, 3).
    a = initializers.generate_array(initializers.UpsamplingDeconvFilter(), (2, 2, 3, 3), np)
    expected = np.zeros((2, 2, 3, 3), np.float32)
    expected[0, 0] = expected[1, 1] = _K3
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, expected)


def test_downsampling_single_output_channel():
    a = initializers.generate_array(initializers.DownsamplingConvFilter(), (2, 1, 3, 3), np,
                                    dtype=np.float64)
    expected = np.array([_K3, _K3])[:, None] / 4
    np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize('k, line', [
    (1, [1.]), (2, [0.5, 0.5]), (4, [0.25, 0.75, 0.75, 0.25]),
    (5, [1 / 3, 2 / 3, 1., 2 / 3, 1 / 3])])
def test_kernel_lines(k, line):
    init = initializers.UpsamplingDeconvFilter(dtype=np.float64)
    a = initializers.generate_array(init, (1, 1, k), np)
    np.testing.assert_allclose(a[0, 0], line, rtol=1e-15)


@pytest.mark.parametrize('shape', [(3, 3, 4, 4, 4), (2, 1, 5, 5)])
def test_downsampling_sums_to_one(shape):
    a = initializers.generate_array(initializers.DownsamplingConvFilter(), shape, np,
                                    dtype=np.float64)
    sums = a.reshape(shape[0], shape[1], -1).sum(axis=2)
    expected = np.eye(shape[0], shape[1]) if shape[1] > 1 else np.ones((shape[0], 1))
    np.testing.assert_allclose(sums, expected, rtol=1e-14)


def test_upsampling_3d_is_separable():
    a = initializers.generate_array(initializers.UpsamplingDeconvFilter(), (1, 1, 4, 4, 4), np)
    line = np.array([0.25, 0.75, 0.75, 0.25])
    np.testing.assert_allclose(a[0, 0], np.einsum('i,j,k->ijk', line, line, line), rtol=1e-6)


@pytest.mark.parametrize('cls', [initializers.UpsamplingDeconvFilter,
                                 initializers.DownsamplingConvFilter])
def test_errors(cls):
    with pytest.raises(ValueError, match=cls.__name__ + '.*interpolation'):
        cls('cubic')
    with pytest.raises(ValueError, match=cls.__name__ + '.*out_channels'):
        cls()(np.empty((3, 2, 3, 3), np.float32))
    with pytest.raises(ValueError, match=cls.__name__ + '.*same size'):
        cls()(np.empty((2, 2, 3, 4), np.float32))
    with pytest.raises(ValueError, match=cls.__name__ + '.*in_channels, out_channels'):
        cls()(np.empty((2, 2), np.float32))
