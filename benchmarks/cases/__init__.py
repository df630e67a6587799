"""Benchmark cases: one module each, run by ``benchmarks/run.py``.

A case module defines:

- ``UNIT`` and ``SCALE``: the unit of the table and the factor from seconds per call to it;
- ``TARGETS``: the rows it measures, mapped to the ratio to reach (None: no target);
- ``chainlite_case()`` and ``numpy_case()``: each returns ``{row: closure}``. A closure does
  one unit of work and returns the arrays it computed (the result and the gradients), which
  the runner compares between the two versions before timing them.
"""
