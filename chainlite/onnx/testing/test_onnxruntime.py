"""``check_model_expect``: run an exported test case in ONNX Runtime and compare outputs."""
from __future__ import annotations

import glob
import importlib.util
import os
from typing import Any, Optional

import numpy

from chainlite.onnx import _deps

#: Whether ONNX Runtime is installed (found without importing it).
ONNXRUNTIME_AVAILABLE = importlib.util.find_spec('onnxruntime') is not None


def load_test_data(data_dir: str, input_names: list, output_names: list) -> tuple:
    """``(inputs, outputs)``: dicts from value name to array, read from the ``.pb`` files.

    A tensor whose name is not among the given names takes the next unused one.
    """
    onnx = _deps.onnx()
    result = []
    for kind, names in (('input', input_names), ('output', output_names)):
        names = list(names)
        values = {}
        for pb in sorted(glob.glob(os.path.join(data_dir, '%s_*.pb' % kind))):
            tensor = onnx.load_tensor(pb)
            name = tensor.name if tensor.name in names else names[0]
            names.remove(name)
            values[name] = onnx.numpy_helper.to_array(tensor)
        result.append(values)
    return tuple(result)


def check_model_expect(test_path: str, input_names: Optional[list] = None,
                       rtol: float = 1e-5, atol: float = 1e-5) -> Any:
    """Runs ``test_path/model.onnx`` on each ``test_data_set_*`` and compares the outputs.

    Args:
        test_path: A folder written by :func:`~chainlite.onnx.export_testcase`.
        input_names: If given, the model's inputs must be exactly these.
        rtol: Relative tolerance.
        atol: Absolute tolerance.
    """
    onnx = _deps.onnx()
    ort = _deps.onnxruntime()
    if ort is None:
        raise ImportError('check_model_expect needs ONNX Runtime: pip install onnxruntime')
    model = onnx.load_model(os.path.join(test_path, 'model.onnx'))
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=['CPUExecutionProvider'])
    rt_inputs = [v.name for v in session.get_inputs()]
    rt_outputs = [v.name for v in session.get_outputs()]
    if input_names is not None:
        assert sorted(input_names) == sorted(rt_inputs), (input_names, rt_inputs)
    for folder in sorted(p for p in os.listdir(test_path) if p.startswith('test_data_set_')):
        inputs, outputs = load_test_data(os.path.join(test_path, folder), rt_inputs,
                                         rt_outputs)
        got = session.run(list(outputs), inputs)
        for expected, actual in zip(outputs.values(), got):
            numpy.testing.assert_allclose(expected, actual, rtol=rtol, atol=atol)
