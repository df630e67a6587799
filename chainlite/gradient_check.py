"""Numerical gradient checking (being written)."""
