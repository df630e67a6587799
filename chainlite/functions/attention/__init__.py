"""Attention functions."""
from __future__ import annotations
