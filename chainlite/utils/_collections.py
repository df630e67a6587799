"""Chainer's ``chainer.utils._collections``: ``OrderedDict`` is :class:`collections.OrderedDict`.

(Chainer replaced it only on Python 2.)
"""
from collections import OrderedDict as OrderedDict  # noqa: F401
