"""Caffe model support: :class:`CaffeFunction` runs a ``.caffemodel`` as a chainlite Chain.

Importing this package needs nothing beyond chainlite; loading a model needs the
``protobuf`` package (``pip install protobuf``). Models are written in Caffe's format by
:func:`chainlite.exporters.caffe.export`.
"""
from chainlite.links.caffe.caffe_function import CaffeFunction  # noqa: F401

__all__ = ['CaffeFunction']
