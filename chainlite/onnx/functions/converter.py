"""onnx_chainer's ``functions.converter``: the params a converter gets and the adapter.

Both live in :mod:`chainlite.onnx.converter`; this module gives them onnx_chainer's path.
"""
from chainlite.onnx.converter import FunctionConverter  # noqa: F401
from chainlite.onnx.converter import FunctionConverterParams  # noqa: F401
