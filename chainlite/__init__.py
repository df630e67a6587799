"""chainlite: a small, fast, Chainer-compatible define-by-run deep-learning framework.

Code written for Chainer 7 runs after ``import chainlite as chainer``.
"""
from chainlite._version import __version__  # noqa: F401
from chainlite import configuration
from chainlite.configuration import config  # noqa: F401
from chainlite.configuration import DebugMode  # noqa: F401
from chainlite.configuration import force_backprop_mode  # noqa: F401
from chainlite.configuration import get_dtype  # noqa: F401
from chainlite.configuration import global_config  # noqa: F401
from chainlite.configuration import is_debug  # noqa: F401
from chainlite.configuration import no_backprop_mode  # noqa: F401
from chainlite.configuration import set_debug  # noqa: F401
from chainlite.configuration import using_config  # noqa: F401
from chainlite import backend  # noqa: F401
from chainlite.backend import get_device  # noqa: F401
from chainlite.backend import using_device  # noqa: F401
from chainlite import backends  # noqa: F401
from chainlite.backends.cuda import should_use_cudnn  # noqa: F401
from chainlite.backends.cuda import should_use_cudnn_tensor_core  # noqa: F401
from chainlite.utils import type_check  # noqa: F401
from chainlite import variable  # noqa: F401
from chainlite.variable import as_array  # noqa: F401
from chainlite.variable import as_variable  # noqa: F401
from chainlite.variable import Parameter  # noqa: F401
from chainlite.variable import Variable  # noqa: F401
from chainlite.variable import VariableNode  # noqa: F401
from chainlite import function_node  # noqa: F401
from chainlite.function_node import FunctionNode  # noqa: F401
from chainlite import function_hook  # noqa: F401
from chainlite.function_hook import FunctionHook  # noqa: F401
from chainlite.function_hook import get_function_hooks  # noqa: F401
from chainlite import function  # noqa: F401
from chainlite.function import Function  # noqa: F401
from chainlite.function import FunctionAdapter  # noqa: F401
from chainlite import backprop  # noqa: F401
from chainlite.backprop import backward  # noqa: F401
from chainlite.backprop import grad  # noqa: F401
from chainlite import functions  # noqa: F401
from chainlite import forward_mode  # noqa: F401
from chainlite.forward_mode import jvp  # noqa: F401
from chainlite.forward_mode import vjp  # noqa: F401
from chainlite import func  # noqa: F401
from chainlite import distribution  # noqa: F401
from chainlite.distribution import cross_entropy  # noqa: F401
from chainlite.distribution import Distribution  # noqa: F401
from chainlite.distribution import kl_divergence  # noqa: F401
from chainlite.distribution import register_kl  # noqa: F401
from chainlite import distributions  # noqa: F401
from chainlite.functions.math import basic_math as _basic_math
from chainlite import gradient_check  # noqa: F401
from chainlite import initializer  # noqa: F401
from chainlite.initializer import Initializer  # noqa: F401
from chainlite import initializers  # noqa: F401
from chainlite import reporter  # noqa: F401
from chainlite.reporter import DictSummary  # noqa: F401
from chainlite.reporter import get_current_reporter  # noqa: F401
from chainlite.reporter import report  # noqa: F401
from chainlite.reporter import report_scope  # noqa: F401
from chainlite.reporter import Reporter  # noqa: F401
from chainlite.reporter import Summary  # noqa: F401
from chainlite import serializer  # noqa: F401
from chainlite.serializer import AbstractSerializer  # noqa: F401
from chainlite.serializer import Deserializer  # noqa: F401
from chainlite.serializer import Serializer  # noqa: F401
from chainlite import serializers  # noqa: F401
from chainlite import optimizer  # noqa: F401
from chainlite import graph_optimizations  # noqa: F401
from chainlite.graph_optimizations.static_graph import static_graph  # noqa: F401
from chainlite.graph_optimizations.static_graph_utilities import static_code  # noqa: F401
from chainlite.optimizer import GradientMethod  # noqa: F401
from chainlite.optimizer import Optimizer  # noqa: F401
from chainlite.optimizer import UpdateRule  # noqa: F401
from chainlite import optimizer_hooks  # noqa: F401
from chainlite import dataset  # noqa: F401
from chainlite import datasets  # noqa: F401
from chainlite import computational_graph  # noqa: F401
from chainlite import iterators  # noqa: F401
from chainlite import training  # noqa: F401
from chainlite import function_hooks  # noqa: F401
from chainlite import link_hook  # noqa: F401
from chainlite.link_hook import LinkHook  # noqa: F401
from chainlite import link_hooks  # noqa: F401
from chainlite import memory_layouts  # noqa: F401
from chainlite.utils.checkpoint import checkpoint  # noqa: F401
from chainlite import link  # noqa: F401
from chainlite.link import Chain  # noqa: F401
from chainlite.link import ChainList  # noqa: F401
from chainlite.link import Link  # noqa: F401
from chainlite.link import Sequential  # noqa: F401
from chainlite import testing  # noqa: F401
from chainlite import links  # noqa: F401
from chainlite import optimizers  # noqa: F401

_basic_math.install_variable_arithmetics()
mixed16 = configuration.mixed16


def get_array_types() -> tuple:
    """Returns the array types chainlite computes with: ``(numpy.ndarray,)``."""
    import numpy
    return (numpy.ndarray,)


def get_cpu_array_types() -> tuple:
    """Returns the CPU array types: ``(numpy.ndarray,)``."""
    return get_array_types()


def is_arrays_compatible(arrays) -> bool:
    """Returns whether the arrays (None skipped) are all of one backend: all NumPy here."""
    types = get_array_types()
    return all(isinstance(a, types) for a in arrays if a is not None)
# Set True to silence the FutureWarning of chainlite.utils.experimental (as in Chainer).
disable_experimental_feature_warning = False
del configuration
