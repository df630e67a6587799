"""chainlite: a small, fast, Chainer-compatible define-by-run deep-learning framework.

Code written for Chainer 7 runs after ``import chainlite as chainer``.

``import chainlite`` loads the core (configuration, Variable, FunctionNode and the
Variable operators); everything else (``chainlite.functions``, ``links``, ``optimizers``,
``training``, ...) is imported on first use, so that a script pays only for what it touches.
"""
from chainlite import _lazy
from chainlite._version import __version__  # noqa: F401
from chainlite.configuration import config  # noqa: F401
from chainlite.configuration import mixed16  # noqa: F401
from chainlite.variable import Parameter  # noqa: F401
from chainlite.variable import Variable  # noqa: F401
from chainlite.function_node import FunctionNode  # noqa: F401
from chainlite.functions.math import basic_math as _basic_math

_basic_math.install_variable_arithmetics()
# Set True to silence the FutureWarning of chainlite.utils.experimental (as in Chainer).
disable_experimental_feature_warning = False


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


__getattr__, __dir__, __all__ = _lazy.attach(__name__, {
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
    'checkpoint': '.utils.checkpoint',
    'VariableNode': '.variable',
    'as_array': '.variable',
    'as_variable': '.variable',
    'variable': '.variable',
})
