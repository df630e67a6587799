"""What a recorded op keeps alive: a regression bound on the graph's memory per op."""
import gc
import tracemalloc

import numpy

import chainlite


def _bytes_per_op(n_ops):
    x = chainlite.Variable(numpy.array([1.0], dtype=numpy.float32))
    y = x * 1.0001 + 0.0  # warm the constant cache and the op classes
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        y = x
        for _ in range(n_ops // 2):
            y = y * 1.0001 + 0.0
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert y.creator is not None
    return (after - before) / n_ops


def test_chain_of_constant_ops_keeps_under_1000_bytes_per_op():
    # About 380 bytes in a fresh CPython 3.11 (function, output node, weak reference, rank;
    # the target is 500), up to 600 after other tests (attributes set on nodes elsewhere
    # cost the shared instance dictionaries): the bound is generous; it catches gross
    # regressions, such as every op keeping its input array and Variable alive.
    assert _bytes_per_op(6000) < 1000


def test_graph_is_freed_with_its_output():
    x = chainlite.Variable(numpy.array([1.0], dtype=numpy.float32))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        y = x
        for _ in range(2000):
            y = y * 1.0001 + 0.0
        y = None
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # Freed by reference counting alone (no cycles), without a gc.collect().
    assert after - before < 10000
