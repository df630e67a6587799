"""chainlite: a small, fast, Chainer-compatible define-by-run deep-learning framework.

Code written for Chainer 7 runs after ``import chainlite as chainer``.

``import chainlite`` loads the core (configuration, Variable, FunctionNode and the
Variable operators); everything else (``chainlite.functions``, ``links``, ``optimizers``,
``training``, ...) is imported on first use, so that a script pays only for what it touches.
"""
from typing import TYPE_CHECKING, Any, Iterable

from chainlite import _lazy
from chainlite._version import __version__  # noqa: F401
from chainlite._blas import get_blas_threads, set_blas_threads  # noqa: F401
from chainlite.configuration import config  # noqa: F401
from chainlite.configuration import mixed16  # noqa: F401
from chainlite.variable import Parameter  # noqa: F401
from chainlite.variable import Variable  # noqa: F401
from chainlite.function_node import FunctionNode  # noqa: F401
from chainlite.functions.math import basic_math as _basic_math

_basic_math.install_variable_arithmetics()
# Set True to silence the FutureWarning of chainlite.utils.experimental (as in Chainer).
disable_experimental_feature_warning = False


class _FallbackType:
    """The type of :data:`Fallback`: one instance, shown as ``Fallback``."""

    def __repr__(self) -> str:
        return 'Fallback'


#: What Chainer's ``FunctionNode.forward_chainerx`` returns to ask for the NumPy/CuPy
#: ``forward`` instead; chainlite has no ChainerX, so only code written for Chainer uses it.
Fallback = _FallbackType()


def get_compute_mode() -> Any:
    """Returns ``config.compute_mode``, the compute mode Chainer code may set (None by default).

    Returns:
        The value of ``chainlite.config.compute_mode``.

    Example:
        >>> import chainlite
        >>> chainlite.get_compute_mode() is None
        True
    """
    return config.compute_mode


def get_array_types() -> tuple:
    """Returns the array types chainlite computes with: ``(numpy.ndarray,)``."""
    import numpy
    return (numpy.ndarray,)


def get_cpu_array_types() -> tuple:
    """Returns the CPU array types: ``(numpy.ndarray,)``."""
    return get_array_types()


def is_arrays_compatible(arrays: Iterable[Any]) -> bool:
    """Returns whether the arrays (None skipped) are all of one backend: all NumPy here."""
    types = get_array_types()
    return all(isinstance(a, types) for a in arrays if a is not None)


_EXPORTS = {
    'backend': '.backend',
    'get_device': '.backend',
    'using_device': '.backend',
    'backends': '.backends',
    'should_use_cudnn': '.backends.cuda',
    'should_use_cudnn_tensor_core': '.backends.cuda',
    'backprop': '.backprop',
    'backward': '.backprop',
    'grad': '.backprop',
    'computational_graph': '.computational_graph',
    'DebugMode': '.configuration',
    'configuration': '.configuration',
    'force_backprop_mode': '.configuration',
    'get_dtype': '.configuration',
    'global_config': '.configuration',
    'is_debug': '.configuration',
    'no_backprop_mode': '.configuration',
    'set_debug': '.configuration',
    'using_config': '.configuration',
    'dataset': '.dataset',
    'datasets': '.datasets',
    'DeviceResident': '.device_resident',
    'device_resident': '.device_resident',
    'Distribution': '.distribution',
    'cross_entropy': '.distribution',
    'distribution': '.distribution',
    'kl_divergence': '.distribution',
    'register_kl': '.distribution',
    'distributions': '.distributions',
    'forward_mode': '.forward_mode',
    'jvp': '.forward_mode',
    'vjp': '.forward_mode',
    'func': '.func',
    'Function': '.function',
    'FunctionAdapter': '.function',
    'function': '.function',
    'FunctionHook': '.function_hook',
    'function_hook': '.function_hook',
    'get_function_hooks': '.function_hook',
    'function_hooks': '.function_hooks',
    'function_node': '.function_node',
    'functions': '.functions',
    'gradient_check': '.gradient_check',
    'graph_optimizations': '.graph_optimizations',
    'static_graph': '.graph_optimizations.static_graph',
    'static_code': '.graph_optimizations.static_graph_utilities',
    'Initializer': '.initializer',
    'initializer': '.initializer',
    'initializers': '.initializers',
    'iterators': '.iterators',
    'Chain': '.link',
    'ChainList': '.link',
    'Link': '.link',
    'Sequential': '.link',
    'link': '.link',
    'LinkHook': '.link_hook',
    'link_hook': '.link_hook',
    'link_hooks': '.link_hooks',
    'links': '.links',
    'memory_layouts': '.memory_layouts',
    'GradientMethod': '.optimizer',
    'Optimizer': '.optimizer',
    'UpdateRule': '.optimizer',
    'optimizer': '.optimizer',
    'optimizer_hooks': '.optimizer_hooks',
    'optimizers': '.optimizers',
    'print_runtime_info': '._runtime_info',
    'DictSummary': '.reporter',
    'Reporter': '.reporter',
    'Summary': '.reporter',
    'get_current_reporter': '.reporter',
    'report': '.reporter',
    'report_scope': '.reporter',
    'reporter': '.reporter',
    'AbstractSerializer': '.serializer',
    'Deserializer': '.serializer',
    'Serializer': '.serializer',
    'serializer': '.serializer',
    'serializers': '.serializers',
    'testing': '.testing',
    'training': '.training',
    'type_check': '.utils',
    'types': '.types',
    'checkpoint': '.utils.checkpoint',
    'VariableNode': '.variable',
    'as_array': '.variable',
    'as_variable': '.variable',
    'variable': '.variable',
}
__getattr__, __dir__, __all__ = _lazy.attach(__name__, _EXPORTS)

if TYPE_CHECKING:  # generated by python -m chainlite._lazy; keep in sync
    from chainlite import backend as backend
    from chainlite import backends as backends
    from chainlite import backprop as backprop
    from chainlite import computational_graph as computational_graph
    from chainlite import configuration as configuration
    from chainlite import dataset as dataset
    from chainlite import datasets as datasets
    from chainlite import device_resident as device_resident
    from chainlite import distribution as distribution
    from chainlite import distributions as distributions
    from chainlite import forward_mode as forward_mode
    from chainlite import func as func
    from chainlite import function as function
    from chainlite import function_hook as function_hook
    from chainlite import function_hooks as function_hooks
    from chainlite import function_node as function_node
    from chainlite import functions as functions
    from chainlite import gradient_check as gradient_check
    from chainlite import graph_optimizations as graph_optimizations
    from chainlite import initializer as initializer
    from chainlite import initializers as initializers
    from chainlite import iterators as iterators
    from chainlite import link as link
    from chainlite import link_hook as link_hook
    from chainlite import link_hooks as link_hooks
    from chainlite import links as links
    from chainlite import memory_layouts as memory_layouts
    from chainlite import optimizer as optimizer
    from chainlite import optimizer_hooks as optimizer_hooks
    from chainlite import optimizers as optimizers
    from chainlite import reporter as reporter
    from chainlite import serializer as serializer
    from chainlite import serializers as serializers
    from chainlite import testing as testing
    from chainlite import training as training
    from chainlite import types as types
    from chainlite import variable as variable
    from chainlite._runtime_info import print_runtime_info as print_runtime_info
    from chainlite.backend import get_device as get_device
    from chainlite.backend import using_device as using_device
    from chainlite.backends.cuda import should_use_cudnn as should_use_cudnn
    from chainlite.backends.cuda import should_use_cudnn_tensor_core as should_use_cudnn_tensor_core
    from chainlite.backprop import backward as backward
    from chainlite.backprop import grad as grad
    from chainlite.configuration import DebugMode as DebugMode
    from chainlite.configuration import force_backprop_mode as force_backprop_mode
    from chainlite.configuration import get_dtype as get_dtype
    from chainlite.configuration import global_config as global_config
    from chainlite.configuration import is_debug as is_debug
    from chainlite.configuration import no_backprop_mode as no_backprop_mode
    from chainlite.configuration import set_debug as set_debug
    from chainlite.configuration import using_config as using_config
    from chainlite.device_resident import DeviceResident as DeviceResident
    from chainlite.distribution import Distribution as Distribution
    from chainlite.distribution import cross_entropy as cross_entropy
    from chainlite.distribution import kl_divergence as kl_divergence
    from chainlite.distribution import register_kl as register_kl
    from chainlite.forward_mode import jvp as jvp
    from chainlite.forward_mode import vjp as vjp
    from chainlite.function import Function as Function
    from chainlite.function import FunctionAdapter as FunctionAdapter
    from chainlite.function_hook import FunctionHook as FunctionHook
    from chainlite.function_hook import get_function_hooks as get_function_hooks
    from chainlite.graph_optimizations.static_graph import static_graph as static_graph
    from chainlite.graph_optimizations.static_graph_utilities import static_code as static_code
    from chainlite.initializer import Initializer as Initializer
    from chainlite.link import Chain as Chain
    from chainlite.link import ChainList as ChainList
    from chainlite.link import Link as Link
    from chainlite.link import Sequential as Sequential
    from chainlite.link_hook import LinkHook as LinkHook
    from chainlite.optimizer import GradientMethod as GradientMethod
    from chainlite.optimizer import Optimizer as Optimizer
    from chainlite.optimizer import UpdateRule as UpdateRule
    from chainlite.reporter import DictSummary as DictSummary
    from chainlite.reporter import Reporter as Reporter
    from chainlite.reporter import Summary as Summary
    from chainlite.reporter import get_current_reporter as get_current_reporter
    from chainlite.reporter import report as report
    from chainlite.reporter import report_scope as report_scope
    from chainlite.serializer import AbstractSerializer as AbstractSerializer
    from chainlite.serializer import Deserializer as Deserializer
    from chainlite.serializer import Serializer as Serializer
    from chainlite.utils import type_check as type_check
    from chainlite.utils.checkpoint import checkpoint as checkpoint
    from chainlite.variable import VariableNode as VariableNode
    from chainlite.variable import as_array as as_array
    from chainlite.variable import as_variable as as_variable
