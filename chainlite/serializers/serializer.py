"""The serialization protocol: objects save and load themselves through a serializer.

An object that can be saved defines ``serialize(serializer)`` and, for each value it owns,
writes ``self.x = serializer('x', self.x)``; for each child object it calls
``child.serialize(serializer['child'])``. The same method then both saves (a
:class:`Serializer` stores the value and returns it unchanged) and loads (a
:class:`Deserializer` returns the stored value, copying arrays in place).
"""
from __future__ import annotations

from typing import Any


class AbstractSerializer:
    """The base class of serializers and deserializers: a view on one path of a hierarchy.

    Subclasses implement ``__getitem__`` (the child serializer at ``key``, its path extended
    by ``key + '/'``) and ``__call__`` (save or load the value named ``key``).

    When *saving*, ``serializer(key, value)`` stores ``value`` (an array, a scalar, a string
    or None) and returns it unchanged. When *loading*, it returns the stored value: an array
    ``value`` is filled in place and returned; for a scalar or string ``value``, only its type
    is used and the stored value is returned converted to it; a ``value`` of None returns the
    stored array as it is; and a stored None is returned as None, leaving ``value`` untouched.

    Example:
        >>> from chainlite import serializers
        >>> s = serializers.DictionarySerializer()
        >>> isinstance(s, serializers.AbstractSerializer)
        True
    """

    def __getitem__(self, key: str) -> 'AbstractSerializer':
        """Returns the child serializer named ``key``.

        Args:
            key: The child's name; its path is this path followed by ``key + '/'``.

        Returns:
            A serializer of the same kind.
        """
        raise NotImplementedError(
            '%s must implement __getitem__ (the child serializer)' % type(self).__name__)

    def __call__(self, key: str, value: Any) -> Any:
        """Saves or loads the value named ``key``.

        Args:
            key: The value's name under this serializer's path.
            value: The value to save, or the object (array, scalar or None) to load into.

        Returns:
            The value (saving) or the loaded value (loading).
        """
        raise NotImplementedError(
            '%s must implement __call__ (save or load one value)' % type(self).__name__)


class Serializer(AbstractSerializer):
    """The base class of serializers, which save objects.

    Example:
        >>> from chainlite import serializers
        >>> class Counter:
        ...     count = 3
        ...     def serialize(self, serializer):
        ...         self.count = serializer('count', self.count)
        >>> s = serializers.DictionarySerializer()
        >>> s.save(Counter())
        >>> s.target
        {'count': array(3)}
    """

    def save(self, obj: Any) -> None:
        """Saves ``obj`` by calling ``obj.serialize(self)``.

        Args:
            obj: An object with a ``serialize(serializer)`` method.
        """
        obj.serialize(self)


class Deserializer(AbstractSerializer):
    """The base class of deserializers, which load objects.

    Example:
        >>> import numpy as np
        >>> from chainlite import serializers
        >>> class Counter:
        ...     count = 0
        ...     def serialize(self, serializer):
        ...         self.count = serializer('count', self.count)
        >>> c = Counter()
        >>> serializers.NpzDeserializer({'count': np.array(7)}).load(c)
        >>> c.count
        7
    """

    def load(self, obj: Any) -> None:
        """Loads ``obj`` by calling ``obj.serialize(self)``.

        Args:
            obj: An object with a ``serialize(serializer)`` method.
        """
        obj.serialize(self)
