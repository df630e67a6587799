"""Noise injection functions."""
