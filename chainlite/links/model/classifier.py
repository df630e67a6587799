"""A classifier: a predictor plus a loss (and accuracy) that it reports."""
from __future__ import annotations

from typing import Any, Callable

from chainlite import link
from chainlite import reporter
from chainlite import variable
from chainlite.functions.evaluation import accuracy
from chainlite.functions.loss import softmax_cross_entropy


class Classifier(link.Chain):
    """Wraps a predictor into a link that returns the classification loss.

    Calling it with ``(*inputs, t)`` runs ``y = predictor(*inputs)``, computes
    ``lossfun(y, t)`` and, if ``compute_accuracy`` is True, ``accfun(y, t)``; both are
    reported (as ``'loss'`` and ``'accuracy'``) to the current
    :class:`~chainlite.Reporter` with the classifier as observer, so a trainer logs them as
    ``main/loss`` and ``main/accuracy``.

    Args:
        predictor: The link (or callable link) mapping inputs to class scores.
        lossfun: The loss function ``lossfun(y, t)``.
        accfun: The accuracy function ``accfun(y, t)``.
        label_key: Where the labels are among the call's arguments: an int indexes the
            positional arguments (the last one by default), a str names a keyword argument.

    Attributes:
        predictor: The predictor link.
        lossfun: The loss function.
        accfun: The accuracy function.
        label_key: Where the labels are found.
        compute_accuracy: Whether to compute and report the accuracy (True by default).
        y: The prediction of the last call.
        loss: The loss of the last call.
        accuracy: The accuracy of the last call (None if not computed).

    Raises:
        TypeError: If ``label_key`` is neither an int nor a str.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> from chainlite.links.model.classifier import Classifier
        >>> class Identity(chainlite.Link):
        ...     def forward(self, x):
        ...         return F.identity(x)
        >>> model = Classifier(Identity())
        >>> x = np.array([[2.0, 0.0], [0.0, 2.0]], np.float32)
        >>> loss = model(x, np.array([0, 0], np.int32))
        >>> float(model.accuracy.array)
        0.5
    """

    compute_accuracy = True

    def __init__(self, predictor: link.Link,
                 lossfun: Callable = softmax_cross_entropy.softmax_cross_entropy,
                 accfun: Callable = accuracy.accuracy, label_key: int | str = -1) -> None:
        if not isinstance(label_key, (int, str)):
            raise TypeError('Classifier: label_key must be int or str, but is %s'
                            % type(label_key).__name__)
        super().__init__()
        self.lossfun = lossfun
        self.accfun = accfun
        self.y: Any = None
        self.loss: Any = None
        self.accuracy: Any = None
        self.label_key = label_key
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args: Any, **kwargs: Any) -> variable.Variable:
        """Computes the loss of the predictor's output against the labels.

        Args:
            *args: The predictor's positional inputs and, if ``label_key`` is an int, the
                labels among them.
            **kwargs: The predictor's keyword inputs and, if ``label_key`` is a str, the
                labels among them.

        Returns:
            The loss.

        Raises:
            ValueError: If the labels are not found where ``label_key`` says.
        """
        key = self.label_key
        if isinstance(key, int):
            if not -len(args) <= key < len(args):
                raise ValueError('Classifier: Label key %d (label_key) is out of bounds for %d '
                                 'positional arguments' % (key, len(args)))
            t = args[key]
            index = key % len(args)
            args = args[:index] + args[index + 1:]
        else:
            if key not in kwargs:
                raise ValueError('Classifier: Label key "%s" (label_key) is not found among the '
                                 'keyword arguments' % key)
            kwargs = dict(kwargs)
            t = kwargs.pop(key)
        self.y = None
        self.loss = None
        self.accuracy = None
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, t)
        reporter.report({'loss': self.loss}, self)
        if self.compute_accuracy:
            self.accuracy = self.accfun(self.y, t)
            reporter.report({'accuracy': self.accuracy}, self)
        return self.loss
