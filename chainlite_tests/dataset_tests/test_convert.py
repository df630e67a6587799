import inspect

import numpy
import pytest

import chainlite
from chainlite import backend
from chainlite.dataset import concat_examples
from chainlite.dataset import convert
from chainlite.dataset import converter
from chainlite.dataset import Converter
from chainlite.dataset import to_device


def test_arrays():
    batch = [numpy.full((2, 3), i, dtype=numpy.float32) for i in range(4)]
    out = concat_examples(batch)
    assert out.shape == (4, 2, 3)
    assert out.dtype == numpy.float32
    numpy.testing.assert_array_equal(out[2], batch[2])
    out[0, 0, 0] = 9  # a new array, not a view of an example
    assert batch[0][0, 0] == 0


def test_scalar_arrays():
    out = concat_examples([numpy.array(1.5, numpy.float32), numpy.array(2.5, numpy.float32)])
    numpy.testing.assert_array_equal(out, [1.5, 2.5])
    assert out.dtype == numpy.float32


def test_tuples():
    batch = [(numpy.array([1, 2]), 0), (numpy.array([3, 4]), 1), (numpy.array([5, 6]), 2)]
    x, t = concat_examples(batch)
    numpy.testing.assert_array_equal(x, [[1, 2], [3, 4], [5, 6]])
    numpy.testing.assert_array_equal(t, [0, 1, 2])
    assert type(concat_examples(batch)) is tuple


def test_dicts():
    batch = [{'x': numpy.array([1.0, 2.0]), 't': 0}, {'x': numpy.array([3.0, 4.0]), 't': 1}]
    out = concat_examples(batch)
    assert list(out) == ['x', 't']
    numpy.testing.assert_array_equal(out['x'], [[1, 2], [3, 4]])
    numpy.testing.assert_array_equal(out['t'], [0, 1])


def test_python_values_become_numpy_arrays():
    # Chainer: numpy.asarray of the whole batch (int64 for ints, float64 when mixed).
    assert concat_examples([1, 2, 3]).dtype == numpy.int64
    assert concat_examples([1.0, 2, 3]).dtype == numpy.float64
    numpy.testing.assert_array_equal(concat_examples([[1, 2], [3, 4]]), [[1, 2], [3, 4]])
    assert concat_examples([numpy.float32(1), numpy.float32(2)]).dtype == numpy.float32
    x, _ = concat_examples([([0.5], 1), ([1.5], 2)])
    assert x.dtype == numpy.float64 and x.shape == (2, 1)


def test_dtypes_promote_without_padding():
    out = concat_examples([numpy.zeros(2, numpy.float32), numpy.zeros(2, numpy.float64)])
    assert out.dtype == numpy.float64


def test_padding_scalar():
    batch = [(numpy.array([1, 2]), 0), (numpy.array([3]), 1), (numpy.array([], int), 2)]
    x, t = concat_examples(batch, padding=100)
    numpy.testing.assert_array_equal(x, [[1, 2], [3, 100], [100, 100]])
    numpy.testing.assert_array_equal(t, [0, 1, 2])


def test_padding_tuple():
    batch = [(numpy.array([1, 2]), numpy.array([0])),
             (numpy.array([3]), numpy.array([], int)),
             (numpy.array([], int), numpy.array([2]))]
    x, t = concat_examples(batch, padding=(100, 200))
    numpy.testing.assert_array_equal(x, [[1, 2], [3, 100], [100, 100]])
    numpy.testing.assert_array_equal(t, [[0], [200], [2]])


def test_padding_tuple_with_none_keeps_that_position_unpadded():
    batch = [(numpy.array([1, 2]), 0), (numpy.array([3]), 1)]
    x, t = concat_examples(batch, padding=(-1, None))
    numpy.testing.assert_array_equal(x, [[1, 2], [3, -1]])
    numpy.testing.assert_array_equal(t, [0, 1])


def test_padding_tuple_of_wrong_length():
    with pytest.raises(ValueError, match='padding has 3 values for examples of 2'):
        concat_examples([(1, 2)], padding=(0, 0, 0))


def test_padding_dict():
    batch = [{'a': numpy.zeros(2), 'b': 1}, {'a': numpy.ones(1), 'b': 2}]
    out = concat_examples(batch, padding={'a': 5, 'b': 0})
    numpy.testing.assert_array_equal(out['a'], [[0, 0], [1, 5]])
    numpy.testing.assert_array_equal(out['b'], [1, 2])
    # A key missing from the padding dict is not padded.
    out = concat_examples([{'a': numpy.zeros(2), 'b': 1}], padding={'a': 5})
    numpy.testing.assert_array_equal(out['b'], [1])


def test_padding_scalar_for_dicts():
    batch = [{'a': numpy.array([1, 2])}, {'a': numpy.array([3])}]
    numpy.testing.assert_array_equal(concat_examples(batch, padding=0)['a'], [[1, 2], [3, 0]])


def test_padding_multidimensional_and_dtype_of_the_first_example():
    # Chainer: the padded array takes the first example's dtype.
    batch = [numpy.zeros((1, 3), numpy.float32), numpy.ones((2, 2))]
    out = concat_examples(batch, padding=-1)
    assert out.dtype == numpy.float32
    numpy.testing.assert_array_equal(
        out, [[[0, 0, 0], [-1, -1, -1]], [[1, 1, -1], [1, 1, -1]]])


def test_padding_python_lists():
    out = concat_examples([[1, 2, 3], [4]], padding=0)
    numpy.testing.assert_array_equal(out, [[1, 2, 3], [4, 0, 0]])
    out = concat_examples([[1, 2], [0.5, 1]], padding=0)
    assert out.dtype == numpy.float64


def test_padding_of_equal_shapes_is_plain_stacking():
    batch = [numpy.array([1, 2]), numpy.array([3, 4])]
    numpy.testing.assert_array_equal(concat_examples(batch, padding=0), [[1, 2], [3, 4]])


def test_different_shapes_without_padding_raise():
    with pytest.raises(ValueError, match='example 1 has shape'):
        concat_examples([numpy.zeros(2), numpy.zeros(3)])
    with pytest.raises(ValueError):
        concat_examples([(numpy.zeros(2), 0), (numpy.zeros(3), 1)])


def test_different_ndim_with_padding_raise():
    with pytest.raises(ValueError, match='dimensions'):
        concat_examples([numpy.zeros(2), numpy.zeros((3, 1))], padding=0)


def test_empty_batch_raises():
    with pytest.raises(ValueError, match='batch is empty'):
        concat_examples([])


@pytest.mark.parametrize('device', [None, -1, '@numpy', backend.CpuDevice(), numpy])
def test_devices(device):
    x, t = concat_examples([(numpy.zeros(2, numpy.float32), 1)], device)
    assert isinstance(x, numpy.ndarray) and x.dtype == numpy.float32
    x, t = concat_examples([(numpy.zeros(2, numpy.float32), 1)], device=device)
    assert isinstance(t, numpy.ndarray)


def test_gpu_device_raises():
    with pytest.raises(RuntimeError, match='CUDA'):
        concat_examples([numpy.zeros(2)], 0)


def test_concat_examples_is_a_converter():
    assert isinstance(concat_examples, Converter)
    assert list(inspect.signature(concat_examples).parameters) == ['batch', 'device', 'padding']
    assert 'padding' in concat_examples.__doc__


def test_to_device():
    x = numpy.arange(3)
    assert to_device(None, x) is x
    assert to_device(-1, x) is x
    assert to_device('@numpy', x) is x
    assert to_device(None, 3) == 3
    out = to_device(-1, [1.0, (2.0,)])
    assert isinstance(out, list) and isinstance(out[0], numpy.ndarray)
    out = to_device('@numpy', {'a': [1, 2]})
    numpy.testing.assert_array_equal(out['a'], [1, 2])
    with pytest.raises(RuntimeError, match='CUDA'):
        to_device(0, x)
    with pytest.raises(ValueError, match='invalid device'):
        to_device('@tpu', x)


def test_converter_decorator_normalizes_the_device():
    received = []

    @converter()
    def record(batch, device=None, scale=1):
        received.append(device)
        return [b * scale for b in batch]

    assert isinstance(record, Converter)
    assert record([1, 2], -1) == [1, 2]
    assert record([1, 2], device='@numpy', scale=2) == [2, 4]
    assert record([1], None) == [1]
    assert record([1]) == [1]  # the device argument is the function's business
    assert received == [chainlite.get_device('@numpy'), backend.CpuDevice(), None, None]
    assert isinstance(received[0], backend.CpuDevice)
    assert record.__name__ == 'record'


def test_converter_decorator_needs_a_callable():
    with pytest.raises(TypeError, match='callable'):
        converter()(3)


def test_converter_base_class():
    with pytest.raises(NotImplementedError, match='Converter must implement __call__'):
        Converter()([], None)

    class Sum(Converter):
        def __call__(self, batch, device):
            return to_device(device, numpy.sum(batch))

    assert Sum()([1, 2, 3], None) == 6


def test_call_converter_new_and_old_style():
    calls = []

    def old_style(batch, device):
        calls.append(device)
        return batch

    @converter()
    def new_style(batch, device):
        calls.append(device)
        return batch

    cpu = backend.CpuDevice()
    convert._call_converter(old_style, [1], cpu)
    convert._call_converter(old_style, [1], None)
    convert._call_converter(new_style, [1], cpu)
    convert._call_converter(new_style, [1], -1)
    assert calls == [-1, None, cpu, cpu]
    assert isinstance(calls[-1], backend.CpuDevice)


def test_concat_with_async_transfer_concatenates_like_concat_examples():
    convert_ = chainlite.dataset.ConcatWithAsyncTransfer()
    a, b = numpy.arange(6.0).reshape(2, 3), numpy.ones((2, 3))
    out = convert_([(a, 1), (b, 2)], -1)
    assert isinstance(out, tuple) and len(out) == 2
    numpy.testing.assert_array_equal(out[0], numpy.stack([a, b]))
    numpy.testing.assert_array_equal(out[1], [1, 2])
    out = convert_([{'x': a}, {'x': b[:1]}], -1, padding=-1)
    assert out['x'].shape == (2, 2, 3)
    numpy.testing.assert_array_equal(out['x'][1, 1], [-1, -1, -1])
    numpy.testing.assert_array_equal(convert_([a, b], '@numpy'), numpy.stack([a, b]))


def test_concat_with_async_transfer_device_is_fixed_by_first_call():
    import pickle
    convert_ = chainlite.dataset.ConcatWithAsyncTransfer()
    x = [numpy.zeros(2), numpy.ones(2)]
    assert convert_(x).shape == (2, 2)  # device None: the arrays stay where they are
    with pytest.raises(ValueError, match='device is different'):
        convert_(x, -1)
    again = pickle.loads(pickle.dumps(convert_))
    assert again(x).shape == (2, 2)
    with pytest.raises(ValueError, match='batch is empty'):
        convert_([])
    # A stream serves GPU copies only: on the CPU the batch is concatenated as usual.
    with_stream = chainlite.dataset.ConcatWithAsyncTransfer(stream=object())
    numpy.testing.assert_array_equal(with_stream(x, -1), numpy.stack(x))
