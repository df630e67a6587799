"""Utility modules of chainlite."""
