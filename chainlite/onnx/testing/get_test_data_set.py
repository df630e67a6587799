"""``gen_test_data_set``: one exported test case per opset, under ``out/opset<N>/<name>``."""
from __future__ import annotations

import os
from typing import Any

import numpy

TEST_OUT_DIR = 'out'


def gen_test_data_set(model: Any, args: Any, name: str, opset_version: int,
                      **kwargs: Any) -> str:
    """Writes :func:`~chainlite.onnx.export_testcase` at ``out/opset<N>/<name>``.

    NumPy's global random generator is seeded (42) first, so random functions repeat.

    Returns:
        The folder written.
    """
    from chainlite.onnx import export_testcase
    numpy.random.seed(42)
    path = os.path.join(TEST_OUT_DIR, 'opset%d' % opset_version, name)
    export_testcase(model, args, path, opset_version=opset_version, **kwargs)
    return path
