import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite.links.normalization.group_normalization import GroupNormalization


def _data(k):
    # The same (2, 3, 2, 2) batch Chainer 7.8.1 normalized for the reference value below.
    x = np.sin(np.arange(24) * 0.7 + k) * 3 + np.arange(24) % 3
    return x.astype(np.float32).reshape(2, 3, 2, 2)


def _reference(x, groups, gamma, beta, eps):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    g = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return g.reshape(x.shape) * gamma.reshape(shape) + beta.reshape(shape)


def test_defaults_and_output_equal_chainers():
    gn = GroupNormalization(3)
    assert gn.groups == 3 and gn.eps == 1e-5
    assert gn.gamma.array is None
    y = gn(_data(1))
    np.testing.assert_allclose(y.array[1, :, 1, 0], [0.15392031, 0.14468415, -0.7153133],
                               rtol=1e-5)
    assert gn.gamma.shape == gn.beta.shape == (3,)
    assert {name for name, _ in gn.namedparams()} == {'/gamma', '/beta'}


@pytest.mark.parametrize('groups', [1, 2])
def test_output_matches_numpy(groups):
    x = np.sin(np.arange(48, dtype=np.float32)).reshape(2, 4, 6) * 2
    gamma = np.array([1.0, 2.0, 0.5, -1.0], np.float32)
    beta = np.array([0.0, 1.0, 2.0, 3.0], np.float32)
    gn = GroupNormalization(groups, 4, eps=1e-3, initial_gamma=gamma, initial_beta=beta)
    np.testing.assert_allclose(gn(x).array, _reference(x, groups, gamma, beta, 1e-3),
                               rtol=1e-4, atol=1e-5)


def test_size_creates_parameters_at_once():
    gn = GroupNormalization(2, 4)
    np.testing.assert_array_equal(gn.gamma.array, np.ones(4, np.float32))
    np.testing.assert_array_equal(gn.beta.array, np.zeros(4, np.float32))


def test_backward_reaches_parameters():
    gn = GroupNormalization(3)
    x = chainlite.Variable(_data(0))
    y = gn(x)
    gn.cleargrads()
    F.sum(y).backward()
    np.testing.assert_allclose(gn.beta.grad, [8.0, 8.0, 8.0])
    assert gn.gamma.grad.dtype == np.float32
    assert x.grad.shape == x.shape


def test_parameters_follow_config_dtype_and_stay_float32_under_mixed16():
    with chainlite.using_config('dtype', np.float64):
        assert GroupNormalization(1, 3).gamma.dtype == np.float64
    with chainlite.using_config('dtype', chainlite.mixed16):
        assert GroupNormalization(1, 3).gamma.dtype == np.float32


def test_mixed16_link_normalizes_float16_data_with_float32_parameters():
    with chainlite.using_config('dtype', chainlite.mixed16):
        gn = GroupNormalization(3)
    x = chainlite.Variable(_data(1).astype(np.float16))
    y = gn(x)
    assert y.dtype == np.float16 and gn.gamma.dtype == np.float32
    np.testing.assert_allclose(y.array, _reference(x.array.astype(np.float32), 3,
                                                   np.ones(3), np.zeros(3), 1e-5),
                               atol=1e-2, rtol=1e-2)
    F.sum(y).backward()
    assert x.grad.dtype == np.float16 and gn.gamma.grad.dtype == np.float32


def test_input_without_channel_axis_raises():
    gn = GroupNormalization(1)
    with pytest.raises(ValueError, match='GroupNormalization: the input must have a batch axis'):
        gn(np.ones(3, np.float32))


def test_groups_must_divide_channels():
    gn = GroupNormalization(2)
    with pytest.raises((ValueError, chainlite.utils.type_check.InvalidType)):
        gn(_data(0))
