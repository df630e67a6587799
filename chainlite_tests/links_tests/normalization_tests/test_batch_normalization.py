import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import initializers
from chainlite.links.normalization.batch_normalization import BatchNormalization


def _data(k):
    # Deterministic (N, C, H, W) = (2, 3, 2, 2) batches, different for each k; the same
    # formula produced the Chainer 7.8.1 reference values below.
    x = np.sin(np.arange(24) * 0.7 + k) * 3 + np.arange(24) % 3
    return x.astype(np.float32).reshape(2, 3, 2, 2)


class _Saver:
    def __init__(self, target, prefix=''):
        self.target, self.prefix = target, prefix

    def __getitem__(self, key):
        return _Saver(self.target, self.prefix + key + '/')

    def __call__(self, key, value):
        self.target[self.prefix + key] = value
        return value


class _Loader:
    def __init__(self, source, prefix=''):
        self.source, self.prefix = source, prefix

    def __getitem__(self, key):
        return _Loader(self.source, self.prefix + key + '/')

    def __call__(self, key, value):
        loaded = self.source[self.prefix + key]
        if isinstance(value, np.ndarray):
            np.copyto(value, loaded)
            return value
        return loaded


# -- Chainer 7.8.1 reference values ----------------------------------------------------------

def test_running_averages_after_three_training_calls_equal_chainers():
    bn = BatchNormalization(3)
    for k in range(3):
        bn(_data(k))
    np.testing.assert_allclose(bn.avg_mean, [0.19294883, 0.21407785, 0.45631778], rtol=1e-5)
    np.testing.assert_allclose(bn.avg_var, [2.1186075, 2.0227327, 2.0757625], rtol=1e-5)
    assert bn.N == 0
    assert bn.avg_mean.dtype == bn.avg_var.dtype == np.float32


def test_test_mode_output_equals_chainers():
    bn = BatchNormalization(3)
    for k in range(3):
        bn(_data(k))
    with chainlite.using_config('train', False):
        y = bn(_data(5))
    np.testing.assert_allclose(y.array[0, :, 0, 0], [-2.1089764, 2.6588798, -0.8500001],
                               rtol=1e-5)


def test_finetuning_averages_equal_chainers():
    bn = BatchNormalization(3)
    for k in range(3):
        bn(_data(k), finetune=True)
    np.testing.assert_allclose(bn.avg_mean, [0.77431595, 0.7317215, 1.73124], rtol=1e-5)
    np.testing.assert_allclose(bn.avg_var, [5.158502, 4.744528, 4.8936787], rtol=1e-5)
    assert bn.N == 3
    bn.start_finetuning()
    assert bn.N == 0


def test_finetuning_gives_the_exact_mean_over_batches():
    bn = BatchNormalization(3)
    batches = [_data(k) for k in range(4)]
    for x in batches:
        bn(x, finetune=True)
    means = [x.mean(axis=(0, 2, 3)) for x in batches]
    unbiased = [x.var(axis=(0, 2, 3), ddof=1) for x in batches]
    np.testing.assert_allclose(bn.avg_mean, np.mean(means, axis=0), rtol=1e-5)
    np.testing.assert_allclose(bn.avg_var, np.mean(unbiased, axis=0), rtol=1e-5)


def test_lazy_size_with_axis_and_decay_equal_chainers():
    bn = BatchNormalization(axis=(0, 2, 3), decay=0.5)
    assert bn.avg_mean is None and bn.avg_var is None
    assert bn.gamma.array is None and bn.beta.array is None
    for k in range(3):
        bn(_data(k))
    assert bn.gamma.shape == bn.beta.shape == (3,)
    np.testing.assert_allclose(bn.avg_mean, [0.34359014, 0.95796907, 1.2500594], rtol=1e-5)
    np.testing.assert_allclose(bn.avg_var, [4.429453, 4.406496, 4.8157372], rtol=1e-5)


def test_lazy_size_with_int_axis_equal_chainers():
    bn = BatchNormalization(axis=0)
    assert bn.axis == (0,)
    for k in range(3):
        bn(_data(k))
    assert bn.avg_mean.shape == bn.gamma.shape == (3, 2, 2)
    np.testing.assert_allclose(bn.avg_mean[0, 0], [0.2329977, 0.35245717], rtol=1e-5)
    np.testing.assert_allclose(bn.avg_var[0, 0], [2.62326, 2.7359824], rtol=1e-5)


def test_negative_axis_infers_the_size_from_the_other_axes():
    bn = BatchNormalization(axis=-1)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) ** 2
    y = bn(x)
    assert bn.gamma.shape == (2,)
    np.testing.assert_allclose(y.array.mean(axis=1), 0, atol=1e-6)


def test_names_of_params_and_persistents_equal_chainers():
    bn = BatchNormalization(3)
    assert {name for name, _ in bn.namedparams()} == {'/beta', '/gamma'}
    assert set(bn._persistent) == {'N', 'avg_mean', 'avg_var'}
    saved = {}
    bn.serialize(_Saver(saved))
    assert sorted(saved) == ['N', 'avg_mean', 'avg_var', 'beta', 'gamma']


def test_without_gamma_and_beta():
    bn = BatchNormalization(3, use_gamma=False, use_beta=False)
    assert bn.gamma is None and bn.beta is None
    assert list(bn.namedparams()) == []
    x = _data(0)
    y = bn(x)
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    var = x.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y.array, (x - mean) / np.sqrt(var + 2e-5), rtol=1e-4, atol=1e-5)
    only_beta = BatchNormalization(3, use_gamma=False)
    assert [name for name, _ in only_beta.namedparams()] == ['/beta']


def test_str_equals_chainers():
    assert str(BatchNormalization(3)) == ('BatchNormalization(size=3, decay=0.9, eps=2e-05, '
                                          'dtype=float32, use_gamma=True, use_beta=True)')
    assert 'use_gamma=False' in str(BatchNormalization(3, use_gamma=False))


# -- forward and backward -----------------------------------------------------------------------

def test_training_forward_normalizes_with_batch_statistics_and_backprops():
    bn = BatchNormalization(3, initial_gamma=2.0, initial_beta=np.array([0.0, 1.0, -1.0]))
    x = chainlite.Variable(_data(1))
    y = bn(x)
    mean = _data(1).mean(axis=(0, 2, 3), keepdims=True)
    var = _data(1).var(axis=(0, 2, 3), keepdims=True)
    expected = 2 * (_data(1) - mean) / np.sqrt(var + 2e-5) + np.array([0, 1, -1])[:, None, None]
    np.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)
    bn.cleargrads()
    F.sum(y * y).backward()
    assert bn.gamma.grad.dtype == np.float32 and bn.gamma.grad.shape == (3,)
    assert bn.beta.grad.shape == (3,)
    assert x.grad.shape == x.shape


def test_test_mode_uses_running_averages_and_leaves_them_alone():
    bn = BatchNormalization(3, initial_avg_mean=np.array([1.0, 2.0, 3.0]), initial_avg_var=4.0,
                            eps=0.0)
    x = _data(2)
    with chainlite.using_config('train', False):
        y = bn(x)
    expected = (x - np.array([1.0, 2.0, 3.0])[:, None, None]) / 2.0
    np.testing.assert_allclose(y.array, expected, rtol=1e-6)
    np.testing.assert_array_equal(bn.avg_mean, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(bn.avg_var, [4.0, 4.0, 4.0])


def test_default_running_averages_are_zero_and_one():
    bn = BatchNormalization((2, 3))
    np.testing.assert_array_equal(bn.avg_mean, np.zeros((2, 3)))
    np.testing.assert_array_equal(bn.avg_var, np.ones((2, 3)))
    np.testing.assert_array_equal(bn.gamma.array, np.ones((2, 3)))
    np.testing.assert_array_equal(bn.beta.array, np.zeros((2, 3)))


def test_recomputing_updates_nothing():
    bn = BatchNormalization(3)
    with chainlite.using_config('in_recomputing', True):
        bn(_data(0), finetune=True)
    assert bn.N == 0
    np.testing.assert_array_equal(bn.avg_mean, np.zeros(3))


# -- dtypes -------------------------------------------------------------------------------------

def test_dtype_argument_sets_parameters_and_statistics():
    bn = BatchNormalization(3, dtype=np.float64)
    assert bn.gamma.dtype == bn.beta.dtype == np.float64
    assert bn.avg_mean.dtype == bn.avg_var.dtype == np.float64
    y = bn(_data(0).astype(np.float64))
    assert y.dtype == np.float64


def test_config_dtype_and_mixed16():
    with chainlite.using_config('dtype', np.float64):
        assert BatchNormalization(3).avg_mean.dtype == np.float64
    with chainlite.using_config('dtype', chainlite.mixed16):
        bn = BatchNormalization(3)
    assert bn.gamma.dtype == bn.avg_mean.dtype == np.float32


@pytest.mark.parametrize('dtype', [np.float16, np.float64])
def test_input_dtype_other_than_the_links(dtype):
    # As in Chainer: the output has the input's dtype, the parameters keep the link's.
    bn = BatchNormalization(3)
    x = chainlite.Variable(_data(0).astype(dtype))
    y = bn(x)
    assert y.dtype == dtype
    bn.cleargrads()
    F.sum(y).backward()
    assert bn.gamma.grad.dtype == bn.beta.grad.dtype == np.float32
    assert bn.avg_mean.dtype == np.float32
    with chainlite.using_config('train', False):
        assert bn(x).dtype == dtype


def test_given_initializer_is_not_modified():
    init = initializers.Constant(3.0)
    bn = BatchNormalization(3, dtype=np.float64, initial_gamma=init)
    assert init.dtype is None
    assert bn.gamma.dtype == np.float64
    np.testing.assert_array_equal(bn.gamma.array, [3.0, 3.0, 3.0])


# -- errors, copies, serialization ---------------------------------------------------------------

def test_size_or_axis_is_required():
    with pytest.raises(RuntimeError, match='BatchNormalization: size or axis is required'):
        BatchNormalization()


def test_test_argument_and_unknown_keywords():
    bn = BatchNormalization(3)
    with pytest.raises(ValueError, match="using_config\\('train', False\\)"):
        bn(_data(0), test=True)
    with pytest.raises(TypeError, match='BatchNormalization.forward.*bogus'):
        bn(_data(0), bogus=1)


def test_finetune_is_keyword_only_and_size_must_be_a_shape():
    # As in Chainer: a positional finetune flag and a size that is not a shape are TypeErrors.
    bn = BatchNormalization(3)
    with pytest.raises(TypeError):
        bn(_data(0), True)
    for size in ({}, 'abc', 2.0, (3, None)):
        with pytest.raises(TypeError, match='size must be an int or a tuple of ints'):
            BatchNormalization(size)
    assert BatchNormalization([3, 2]).avg_mean.shape == (3, 2)


def test_wrong_channel_count_raises_invalid_type():
    bn = BatchNormalization(4)
    with pytest.raises(chainlite.utils.type_check.InvalidType):
        bn(_data(0))


def test_loading_into_a_lazy_link_sets_statistics_and_parameters():
    src = BatchNormalization(3)
    for k in range(2):
        src(_data(k), finetune=True)
    saved = {}
    src.serialize(_Saver(saved))
    dst = BatchNormalization(axis=(0, 2, 3))
    dst.serialize(_Loader(saved))
    assert dst.N == 2
    np.testing.assert_array_equal(dst.avg_mean, src.avg_mean)
    np.testing.assert_array_equal(dst.avg_var, src.avg_var)
    assert dst.gamma.shape == (3,)


def test_copy_keeps_statistics_independent():
    bn = BatchNormalization(3)
    clone = bn.copy('copy')
    bn(_data(0))
    np.testing.assert_array_equal(clone.avg_mean, np.zeros(3))
    assert not np.array_equal(bn.avg_mean, np.zeros(3))
