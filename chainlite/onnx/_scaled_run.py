"""A second run of the model, at larger symbolic sizes, for an export with ``input_shapes``.

One run cannot tell which recorded sizes follow a symbolic input size: the 2 of a shape
``(2, 5, 3)`` may be the batch or a constant of the model. So when ``input_shapes``
declares a symbolic size, :func:`~chainlite.onnx.export` runs the model a second time, on
a copy of it, with every symbolic axis of the inputs made larger (each symbol multiplied
by its own prime: the first by 2, the next by 3...), and pairs the functions of both runs
in the order they were applied. A size that differs between the runs follows the symbolic
sizes; converters that write shapes (Reshape) read the paired shapes from
:attr:`Context.shapes_at_other_size <chainlite.onnx.context.Context>`.
"""
from __future__ import annotations

import collections
import copy
from typing import Any

import numpy


def symbolic_factors(shapes: list, common: bool = False) -> list:
    """For each input, ``{axis: factor}``: how much the second run enlarges its symbolic axes.

    Args:
        shapes: The declared shapes (a size is an int, a name or None).
        common: Enlarge every symbolic axis by 2, for a model that needs sizes of
            different names to be equal (it adds an ``('N', 3)`` input to an ``('M', 3)``).

    Returns:
        A list of dicts, one per input; every dict empty when no size is symbolic. Axes of
        one name share a factor; so do all None axes.

    Example:
        >>> symbolic_factors([('N', 3), ('N', 'T'), (None, 2)])
        [{0: 2}, {0: 2, 1: 3}, {0: 5}]
    """
    primes = _primes() if not common else iter(lambda: 2, None)
    factors: dict = {}
    result = []
    for shape in shapes:
        axes = {}
        for axis, size in enumerate(shape):
            if size is None or isinstance(size, str):
                if size not in factors:
                    factors[size] = next(primes)
                axes[axis] = factors[size]
        result.append(axes)
    return result


def _primes():
    n = 2
    while True:
        if all(n % p for p in range(2, int(n ** 0.5) + 1)):
            yield n
        n += 1


def twin(model: Any) -> Any:
    """A copy of ``model`` for the second run, sharing the parameters' arrays.

    The copy keeps the model's state (an LSTM link's ``h``, batch normalization's running
    averages) apart, so the second run neither sees the first's nor leaves its own behind.
    A model that cannot be copied is run itself.
    """
    memo: dict = {}
    if hasattr(model, 'params'):
        for p in model.params():
            # (an uninitialised parameter has no gradient to read)
            for array in () if p.array is None else (p.array, p.grad):
                if array is not None:
                    memo[id(array)] = array  # not written by forward: shared, not copied
    try:
        return copy.deepcopy(model, memo)
    except Exception:
        return model


def enlarged(inputs: collections.OrderedDict, factors: list) -> collections.OrderedDict:
    """The example inputs with each symbolic axis repeated ``factor`` times (tiled)."""
    result = collections.OrderedDict()
    for (key, var), axes in zip(inputs.items(), factors):
        a = var.array
        for axis, factor in axes.items():
            a = numpy.concatenate([a] * factor, axis=axis)
        result[key] = a
    return result


def pair_shapes(first: list, second: list, inputs: collections.OrderedDict,
                enlarged_inputs: collections.OrderedDict) -> dict:
    """``id(function) -> (input shapes, output shapes)`` of its twin in the second run.

    Args:
        first: ``(function, input arrays)`` of the export's run, in the order applied (a
            :class:`~chainlite.onnx.export.RetainInputHook`'s ``retain_inputs``).
        second: The same for the second run (its outputs still alive).
        inputs: The example inputs (for the error message).
        enlarged_inputs: The second run's inputs (likewise).

    Raises:
        ValueError: If the runs applied other functions: the model's graph depends on the
            symbolic sizes, so no single ONNX graph fits them.
    """
    mismatch = len(first) != len(second)
    for k, ((f1, _), (f2, _)) in enumerate(zip(first, second)):
        if type(f1) is not type(f2) or len(f1.outputs or ()) != len(f2.outputs or ()):
            mismatch = True
            break
    if mismatch:
        shapes = ', '.join('%s -> %s' % (tuple(v.shape), tuple(a.shape))
                           for v, a in zip(inputs.values(), enlarged_inputs.values()))
        names1 = [type(f).__name__ for f, _ in first]
        names2 = [type(f).__name__ for f, _ in second]
        k = next((i for i, (a, b) in enumerate(zip(names1, names2)) if a != b),
                 min(len(names1), len(names2)))
        raise ValueError(
            'export: input_shapes declares symbolic sizes, so the model was run a second time '
            'with larger ones (inputs %s) to see which sizes follow them, and it applied other '
            'functions then (%d functions against %d; function %d is %s against %s): a model '
            'whose graph depends on those sizes cannot be exported with them symbolic'
            % (shapes, len(names1), len(names2), k,
               names1[k] if k < len(names1) else 'none', names2[k] if k < len(names2) else 'none'))
    pairs = {}
    for (f1, _), (f2, in_data) in zip(first, second):
        outs = [ref() for ref in f2.outputs or ()]
        pairs[id(f1)] = (tuple(tuple(numpy.shape(a)) for a in in_data),
                         tuple(None if n is None else tuple(n.shape) for n in outs))
    return pairs
