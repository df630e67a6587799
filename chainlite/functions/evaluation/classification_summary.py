"""Per-class precision, recall, F-beta score and support (not differentiable)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray



def _fbeta_score(precision: numpy.ndarray, recall: numpy.ndarray,
                 beta: float) -> numpy.ndarray:
    # The weighted harmonic mean of precision and recall, in precision's dtype.
    b2 = beta * beta
    return ((1 + b2) * precision * recall / (b2 * precision + recall)).astype(
        precision.dtype, copy=False)

class ClassificationSummary(function_node.FunctionNode):

    def __init__(self, label_num: int | None, beta: float, ignore_label: int) -> None:
        self.label_num = label_num
        self.beta = beta
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('y', 't'))
        y, t = in_types
        type_check.expect(y.dtype.kind == 'f', t.dtype.kind == 'i')
        t_ndim = type_check.eval(t.ndim)
        type_check.expect(y.ndim >= t.ndim + 1, y.shape[0] == t.shape[0],
                          y.shape[2:t_ndim + 1] == t.shape[1:])
        for i in range(t_ndim + 1, type_check.eval(y.ndim)):
            type_check.expect(y.shape[i] == 1)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        t = t.ravel()
        pred = y.argmax(axis=1).ravel()
        valid = t != self.ignore_label
        n = self.label_num
        if n is None:
            n = int(t[valid].max()) + 1 if valid.any() else 0
        if valid.any() and not (t[valid].min() >= 0 and t[valid].max() < n):
            raise ValueError('classification_summary: each label t must satisfy '
                             '0 <= t < label_num = %d or t == ignore_label' % n)
        # Ignored instances and predictions past label_num land in an extra bin, dropped.
        true = xp.where(valid, t, n)
        pred = xp.where(valid & (pred < n), pred, n)
        support = xp.bincount(true, minlength=n + 1)[:n]
        relevant = xp.bincount(pred, minlength=n + 1)[:n]
        tp = xp.bincount(xp.where(pred == true, true, n), minlength=n + 1)[:n]
        # A class never predicted (or never present) has an undefined score: NaN.
        with numpy.errstate(divide='ignore', invalid='ignore'):
            precision = (tp / relevant).astype(y.dtype)
            recall = (tp / support).astype(y.dtype)
            fbeta = _fbeta_score(precision, recall, self.beta)
        return precision, recall, fbeta, support


def _summary(y: VariableOrArray, t: VariableOrArray, label_num: int | None, beta: float,
             ignore_label: int) -> tuple[Variable, Variable, Variable, Variable]:
    with configuration.no_backprop_mode():
        outs = ClassificationSummary(label_num, beta, ignore_label).apply((y, t))
    p, r, f, s = (variable.Variable(o.array, requires_grad=False) for o in outs)
    return p, r, f, s


def classification_summary(y: VariableOrArray, t: VariableOrArray, label_num: int | None = None,
                           beta: float = 1.0, ignore_label: int = -1
                           ) -> tuple[Variable, Variable, Variable, Variable]:
    """Precision, recall, F-beta score and support of each class.

    The prediction of an instance is the argmax of ``y`` over axis 1. For each class,
    precision is ``tp / (tp + fp)``, recall ``tp / (tp + fn)``, the F-beta score their
    weighted harmonic mean ``(1 + beta^2) p r / (beta^2 p + r)``, and support the number
    of instances with that label. A score whose denominator is 0 is NaN. Not
    differentiable: the results are Variables outside the graph (``requires_grad=False``).

    Args:
        y: A float Variable or array of scores, ``(N, C, ...)``.
        t: An integer Variable or array of labels, ``(N, ...)``.
        label_num: The number of classes; by default the largest label plus one.
        beta: The weight of recall against precision in the F-beta score.
        ignore_label: Instances with this label are left out (-1 by default, so that all
            valid labels count).

    Returns:
        A tuple of four Variables of shape ``(label_num,)``: precision, recall and F-beta
        score (of the dtype of ``y``), and support (an integer count).

    Raises:
        ValueError: If a label (other than ``ignore_label``) is not in
            ``[0, label_num)``.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
        >>> p, r, f, s = F.classification_summary(y, np.array([0, 1, 1]))
        >>> p.array, r.array, s.array
        (array([0.5, 1. ]), array([1. , 0.5]), array([1, 2]))
    """
    return _summary(y, t, label_num, beta, ignore_label)


def precision(y: VariableOrArray, t: VariableOrArray, label_num: int | None = None,
              ignore_label: int = -1) -> tuple[Variable, Variable]:
    """Precision of each class, and its support (see :func:`classification_summary`).

    Args:
        y: Scores of shape ``(N, label_num, ...)``; the predicted label is the argmax over
            axis 1.
        t: Integer labels of shape ``(N, ...)``.
        label_num: The number of classes (inferred from ``y`` and ``t`` if None).
        ignore_label: Labels equal to it are not counted.

    Returns:
        A tuple of two Variables of shape ``(label_num,)``: precision and support.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
        >>> F.precision(y, np.array([0, 1, 1]))[0].array
        array([0.5, 1. ])
    """
    ret = _summary(y, t, label_num, 1.0, ignore_label)
    return ret[0], ret[3]


def recall(y: VariableOrArray, t: VariableOrArray, label_num: int | None = None,
           ignore_label: int = -1) -> tuple[Variable, Variable]:
    """Recall of each class, and its support (see :func:`classification_summary`).

    Args:
        y: Scores of shape ``(N, label_num, ...)``; the predicted label is the argmax over
            axis 1.
        t: Integer labels of shape ``(N, ...)``.
        label_num: The number of classes (inferred from ``y`` and ``t`` if None).
        ignore_label: Labels equal to it are not counted.

    Returns:
        A tuple of two Variables of shape ``(label_num,)``: recall and support.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
        >>> F.recall(y, np.array([0, 1, 1]))[0].array
        array([1. , 0.5])
    """
    ret = _summary(y, t, label_num, 1.0, ignore_label)
    return ret[1], ret[3]


def fbeta_score(y: VariableOrArray, t: VariableOrArray, label_num: int | None = None,
                beta: float = 1.0, ignore_label: int = -1) -> tuple[Variable, Variable]:
    """F-beta score of each class, and its support (see :func:`classification_summary`).

    Args:
        y: Scores of shape ``(N, label_num, ...)``; the predicted label is the argmax over
            axis 1.
        t: Integer labels of shape ``(N, ...)``.
        label_num: The number of classes (inferred from ``y`` and ``t`` if None).
        beta: The weight of recall against precision.
        ignore_label: Labels equal to it are not counted.

    Returns:
        A tuple of two Variables of shape ``(label_num,)``: F-beta score and support.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
        >>> F.fbeta_score(y, np.array([0, 1, 1]), beta=2.0)[0].array
        array([0.83333333, 0.55555556])
    """
    ret = _summary(y, t, label_num, beta, ignore_label)
    return ret[2], ret[3]


def f1_score(y: VariableOrArray, t: VariableOrArray, label_num: int | None = None,
             ignore_label: int = -1) -> tuple[Variable, Variable]:
    """F1 score of each class, and its support (see :func:`classification_summary`).

    Args:
        y: Scores of shape ``(N, label_num, ...)``; the predicted label is the argmax over
            axis 1.
        t: Integer labels of shape ``(N, ...)``.
        label_num: The number of classes (inferred from ``y`` and ``t`` if None).
        ignore_label: Labels equal to it are not counted.

    Returns:
        A tuple of two Variables of shape ``(label_num,)``: F1 score and support.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
        >>> F.f1_score(y, np.array([0, 1, 1]))[0].array
        array([0.66666667, 0.66666667])
    """
    ret = _summary(y, t, label_num, 1.0, ignore_label)
    return ret[2], ret[3]
