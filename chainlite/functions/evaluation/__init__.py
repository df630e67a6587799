"""Evaluation functions (accuracy and friends)."""
from __future__ import annotations
