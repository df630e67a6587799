"""Normalization links: batch, layer and group normalization with learnable scale and shift.

Each is a thin wrapper around its function in :mod:`chainlite.functions`; batch normalization
also keeps the running statistics it uses at test time.
"""
