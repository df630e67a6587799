"""Exporting chainlite models to ONNX, with onnx_chainer's API.

``chainlite.onnx`` is also importable as ``onnx_chainer`` under
:mod:`chainlite.compat`. Importing it needs nothing beyond chainlite; exporting needs the
``onnx`` package (``pip install -e '.[onnx]'``), and :func:`default_opset_version` also
asks ONNX Runtime, if installed, which opsets it runs.

Example:
    >>> import numpy as np, chainlite.links as L
    >>> from chainlite import onnx as onnx_chainer
    >>> model = onnx_chainer.export(L.Linear(4, 2), np.zeros((1, 4), np.float32))
    >>> model.graph.output[0].name
    'LinearFunction_0'
"""
from chainlite.onnx.export import MINIMUM_OPSET_VERSION  # noqa: F401
from chainlite.onnx.export import convert_parameter  # noqa: F401
from chainlite.onnx.export import default_opset_version  # noqa: F401
from chainlite.onnx.export import export  # noqa: F401
from chainlite.onnx.export_testcase import export_testcase  # noqa: F401


def __getattr__(name):
    if name == 'MAXIMUM_OPSET_VERSION':
        # The newest opset the installed onnx and ONNX Runtime share: known only on demand.
        return default_opset_version()
    raise AttributeError('module %r has no attribute %r' % (__name__, name))
