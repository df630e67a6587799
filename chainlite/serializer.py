"""The serializer base classes under Chainer's module path, ``chainer.serializer``."""
from chainlite.serializers.serializer import AbstractSerializer  # noqa: F401
from chainlite.serializers.serializer import Deserializer  # noqa: F401
from chainlite.serializers.serializer import Serializer  # noqa: F401
