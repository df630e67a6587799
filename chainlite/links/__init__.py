"""Links: layers with parameters (``chainlite.links as L``).

The Link/Chain machinery and the link library are being built (see the project's issues);
this package is importable already so that scripts and benchmarks can ``import`` it.
"""
