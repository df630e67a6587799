"""Evaluation functions (accuracy and friends)."""
