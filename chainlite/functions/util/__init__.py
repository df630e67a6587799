"""Chainer's ``chainer.functions.util`` package: :mod:`.forget`."""
