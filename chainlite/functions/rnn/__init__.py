"""Recurrent neural-network functions."""
