"""Helpers for testing converters, as ``onnx_chainer.testing``: inputs, test cases, a check.

- :mod:`~chainlite.onnx.testing.input_generator`: deterministic test inputs.
- :mod:`~chainlite.onnx.testing.get_test_data_set`: ``gen_test_data_set`` writes a test case
  per opset.
- :mod:`~chainlite.onnx.testing.test_onnxruntime`: ``check_model_expect`` runs a test case in
  ONNX Runtime and compares the outputs.
"""
from chainlite.onnx.testing import input_generator  # noqa: F401
