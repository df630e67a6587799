import numpy
import pytest

from chainlite import serializers


class _Recorder:
    """An object whose serialize records which serializer it was given."""

    def __init__(self):
        self.seen = []

    def serialize(self, serializer):
        self.seen.append(serializer)


def test_abstract_serializer_methods_name_the_class():
    class Half(serializers.AbstractSerializer):
        pass

    s = Half()
    with pytest.raises(NotImplementedError, match='Half must implement __getitem__'):
        s['child']
    with pytest.raises(NotImplementedError, match='Half must implement __call__'):
        s('key', 1)


def test_save_and_load_call_serialize_with_self():
    obj = _Recorder()
    s = serializers.DictionarySerializer()
    d = serializers.NpzDeserializer({})
    s.save(obj)
    d.load(obj)
    assert obj.seen == [s, d]


def test_class_hierarchy():
    assert issubclass(serializers.Serializer, serializers.AbstractSerializer)
    assert issubclass(serializers.Deserializer, serializers.AbstractSerializer)
    assert isinstance(serializers.DictionarySerializer(), serializers.Serializer)
    d = serializers.NpzDeserializer({})
    assert isinstance(d, serializers.Deserializer)
    assert not isinstance(d, serializers.Serializer)
    assert issubclass(serializers.HDF5Serializer, serializers.Serializer)
    assert issubclass(serializers.HDF5Deserializer, serializers.Deserializer)


def test_one_serialize_method_saves_and_loads():
    class Counter:
        def __init__(self, n):
            self.n = n
            self.a = numpy.full(3, n, numpy.float32)

        def serialize(self, serializer):
            self.n = serializer('n', self.n)
            serializer('a', self.a)

    s = serializers.DictionarySerializer()
    s.save(Counter(4))
    c = Counter(0)
    a = c.a
    serializers.NpzDeserializer(s.target).load(c)
    assert c.n == 4 and type(c.n) is int
    assert c.a is a
    numpy.testing.assert_array_equal(a, [4, 4, 4])
