"""Optimizers (``chainlite.optimizers``).

The optimizer library is being built (see the project's issues); this package is importable
already so that scripts and benchmarks can ``import`` it.
"""
