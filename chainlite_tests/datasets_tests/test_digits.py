import importlib.resources

import numpy
import pytest

from chainlite import configuration
from chainlite.datasets import digits
from chainlite.datasets import get_digits
from chainlite.datasets import TupleDataset


def _arrays(dataset):
    xs, ts = zip(*(dataset[i] for i in range(len(dataset))))
    return numpy.stack(xs), numpy.array(ts)


def _rows(images):
    return sorted(map(tuple, images.astype(int).tolist()))


def test_default_split_shapes_dtypes_ranges():
    train, test = get_digits()
    assert isinstance(train, TupleDataset) and isinstance(test, TupleDataset)
    assert (len(train), len(test)) == (1438, 359)
    x, t = _arrays(train)
    assert x.shape == (1438, 64) and x.dtype == numpy.float32
    assert t.dtype == numpy.int32
    assert x.min() == 0 and x.max() == 1
    # pixels are multiples of 1/16
    numpy.testing.assert_array_equal(x * 16, numpy.round(x * 16))
    _, t_test = _arrays(test)
    assert set(t.tolist()) == set(t_test.tolist()) == set(range(10))


def test_split_is_a_partition_of_the_shipped_file():
    train, test = get_digits(withlabel=False, scale=16., dtype=numpy.float64)
    everything = numpy.concatenate([train, test])
    assert everything.shape == (1797, 64)
    raw, _ = digits._load()
    assert _rows(everything) == _rows(raw)


def test_deterministic_and_seeded():
    a_train, a_test = get_digits(withlabel=False)
    b_train, b_test = get_digits(withlabel=False)
    numpy.testing.assert_array_equal(a_train, b_train)
    numpy.testing.assert_array_equal(a_test, b_test)
    c_train, _ = get_digits(withlabel=False, seed=1)
    assert c_train.shape == a_train.shape and not numpy.array_equal(c_train, a_train)


def test_returned_arrays_are_fresh_copies():
    train, _ = get_digits(withlabel=False)
    train[:] = -1
    again, _ = get_digits(withlabel=False)
    assert again.min() == 0


@pytest.mark.parametrize('ndim, rgb_format, shape', [
    (1, False, (64,)), (2, False, (8, 8)), (3, False, (1, 8, 8)), (3, True, (3, 8, 8)),
])
def test_ndim(ndim, rgb_format, shape):
    flat, _ = get_digits(withlabel=False)
    train, _ = get_digits(ndim=ndim, rgb_format=rgb_format)
    x, _ = train[5]
    assert x.shape == shape
    for channel in x.reshape(-1, 64):
        numpy.testing.assert_array_equal(channel, flat[5])


def test_withlabel_false_scale_dtype_label_dtype():
    train, test = get_digits(withlabel=False, scale=255., dtype=numpy.float64)
    assert isinstance(train, numpy.ndarray) and train.dtype == numpy.float64
    assert train.max() == 255. and test.shape == (359, 64)
    labelled, _ = get_digits(label_dtype=numpy.uint8)
    assert labelled[0][1].dtype == numpy.uint8


def test_dtype_follows_config():
    with configuration.using_config('dtype', numpy.float16):
        train, _ = get_digits(withlabel=False)
    assert train.dtype == numpy.float16


def test_test_ratio():
    train, test = get_digits(test_ratio=0.5)
    assert (len(train), len(test)) == (899, 898)  # round half to even: 898.5 -> 898


@pytest.mark.parametrize('kwargs, message', [
    ({'ndim': 0}, 'get_digits: ndim must be one of 1, 2, 3, got 0'),
    ({'test_ratio': 1.0}, r'get_digits: test_ratio must be in \(0, 1\), got 1.0'),
    ({'test_ratio': 0}, r'get_digits: test_ratio must be in \(0, 1\), got 0'),
])
def test_invalid_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        get_digits(**kwargs)


def test_attribution_ships_beside_the_data():
    data = importlib.resources.files('chainlite.datasets').joinpath('data')
    assert data.joinpath('digits.csv.gz').is_file()
    readme = data.joinpath('README.md').read_text(encoding='utf-8')
    for needle in ('Alpaydin', 'Kaynak', 'https://archive.ics.uci.edu/dataset/80', 'CC BY 4.0'):
        assert needle in readme
