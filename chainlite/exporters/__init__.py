"""Exporters of chainlite models to other frameworks' formats (``chainlite.exporters.caffe``).

The ONNX exporter lives in :mod:`chainlite.onnx`, with onnx_chainer's API.
"""
from chainlite import _lazy

__getattr__, __dir__, __all__ = _lazy.attach(__name__, {'caffe': '.caffe'})
