"""Discriminative margin-based clustering loss for instance segmentation embeddings."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy

from chainlite import backend
from chainlite import variable
from chainlite.functions.activation import relu as relu_mod
from chainlite.functions.math import absolute as absolute_mod
from chainlite.functions.math import sqrt as sqrt_mod
from chainlite.functions.math import sum as sum_mod

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _l1(x, axis):
    return sum_mod.sum(absolute_mod.absolute(x), axis=axis)


def _l2(x, axis):
    # sqrt with a zero gradient at 0 (a masked-out pixel), where sqrt's own is infinite.
    sq = sum_mod.sum(x * x, axis=axis)
    positive = sq.array > 0
    safe = sqrt_mod.sqrt(sq * positive + (~positive).astype(sq.dtype))
    return safe * positive.astype(sq.dtype)


class DiscriminativeMarginBasedClusteringLoss:
    """The loss of :func:`discriminative_margin_based_clustering_loss`, with its settings.

    Args:
        delta_v (float): The distance to its cluster's mean within which a pixel costs
            nothing.
        delta_d (float): Cluster means farther apart than ``2 * delta_d`` cost nothing.
        max_embedding_dim (int): The number of clusters (instance labels ``1..K``), which
            is also the number of embedding channels.
        norm (int): 1 or 2, the norm of the distances.
        alpha (float): The weight of the variance term.
        beta (float): The weight of the distance term.
        gamma (float): The weight of the regularisation term.

    Raises:
        ValueError: For a non-positive ``max_embedding_dim`` or a ``norm`` other than 1 or 2.
    """

    def __init__(self, delta_v: float = 0.5, delta_d: float = 1.5, max_embedding_dim: int = 10,
                 norm: int = 1, alpha: float = 1.0, beta: float = 1.0,
                 gamma: float = 0.001) -> None:
        if max_embedding_dim <= 0:
            raise ValueError('discriminative_margin_based_clustering_loss: max_embedding_dim '
                             'must be positive, got %r' % (max_embedding_dim,))
        if norm not in (1, 2):
            raise ValueError('discriminative_margin_based_clustering_loss: norm must be 1 or '
                             '2, got %r' % (norm,))
        self.delta_v = delta_v
        self.delta_d = delta_d
        self.max_embedding_dim = max_embedding_dim
        self.norm = _l1 if norm == 1 else _l2
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma

    def __call__(self, embeddings: VariableOrArray,
                 labels: VariableOrArray) -> tuple[Variable, Variable, Variable]:
        """Returns ``(alpha * variance, beta * distance, gamma * regularisation)``.

        Args:
            embeddings: Float embeddings ``(B, K, H, W)`` with ``K = max_embedding_dim``.
            labels: Integer instance labels ``(B, H, W)``; label ``k`` in ``1..K`` is
                cluster ``k - 1``, others (such as 0, the background) belong to none.
        """
        n_cluster = self.max_embedding_dim
        if embeddings.ndim != 4 or embeddings.shape[1] != n_cluster:
            raise ValueError('discriminative_margin_based_clustering_loss: embeddings must be '
                             '(B, %d, H, W), got shape %s' % (n_cluster, embeddings.shape))
        labels = variable.as_array(labels)
        if labels.shape != embeddings.shape[:1] + embeddings.shape[2:]:
            raise ValueError('discriminative_margin_based_clustering_loss: labels must be '
                             '(B, H, W) = %s, got shape %s'
                             % (embeddings.shape[:1] + embeddings.shape[2:], labels.shape))
        emb = variable.as_variable(embeddings)
        xp = backend.get_array_module(emb.array)
        dtype = emb.dtype
        batch = emb.shape[0]
        # masks[k, b, 0, y, x]: pixel (y, x) of sample b belongs to cluster k.
        masks = (labels[None] == xp.arange(1, n_cluster + 1).reshape(-1, 1, 1, 1))[:, :, None]
        masks = masks.astype(dtype)
        emb = emb[None]  # (1, B, C, H, W), broadcast over the clusters
        sizes = masks.sum(axis=(2, 3, 4))  # (K, B)
        means = sum_mod.sum(emb * masks, axis=(3, 4)) / numpy.maximum(sizes, 1)[:, :, None]

        l_reg = sum_mod.sum(self.norm(means, (1, 2))) / dtype.type(n_cluster * batch)

        dist = self.norm((means[:, :, :, None, None] - emb) * masks, 2)  # (K, B, H, W)
        l_var = relu_mod.relu(dist - dtype.type(self.delta_v)) ** 2
        l_var = sum_mod.sum(l_var, axis=(1, 2, 3)) / numpy.maximum(sizes.sum(axis=1), 1)
        l_var = sum_mod.sum(l_var) / dtype.type(n_cluster)

        a, b = xp.triu_indices(n_cluster, 1)
        if len(a):
            pair = self.norm(means[a] - means[b], 2)  # (pairs, B)
            l_dist = sum_mod.sum(relu_mod.relu(dtype.type(2 * self.delta_d) - pair) ** 2)
            l_dist = l_dist / dtype.type(len(a) * batch)
        else:
            l_dist = variable.Variable(xp.zeros((), dtype))
        return (l_var * dtype.type(self.alpha), l_dist * dtype.type(self.beta),
                l_reg * dtype.type(self.gamma))


def discriminative_margin_based_clustering_loss(
        embeddings: VariableOrArray, labels: VariableOrArray, delta_v: float, delta_d: float,
        max_embedding_dim: int, norm: int = 1, alpha: float = 1.0, beta: float = 1.0,
        gamma: float = 0.001) -> tuple[Variable, Variable, Variable]:
    """Discriminative margin-based clustering loss (De Brabandere et al., 2017).

    Pixel embeddings of one instance are pulled towards their mean (the variance term, for
    pixels farther than ``delta_v``), the means of different instances are pushed apart
    (the distance term, for means closer than ``2 * delta_d``), and the means are kept small
    (the regularisation term). A composition of differentiable functions.

    Args:
        embeddings: Float embeddings ``(B, K, H, W)`` with ``K = max_embedding_dim``.
        labels: Integer instance labels ``(B, H, W)``; label ``k`` in ``1..K`` is cluster
            ``k - 1``; other values (0: background) belong to no cluster.
        delta_v (float): The pull margin.
        delta_d (float): The push margin.
        max_embedding_dim (int): The number of clusters and of embedding channels.
        norm (int): 1 or 2.
        alpha (float): The weight of the variance term.
        beta (float): The weight of the distance term.
        gamma (float): The weight of the regularisation term.

    Returns:
        A tuple of three scalar Variables: ``alpha * variance``, ``beta * distance`` and
        ``gamma * regularisation``, in that order (as Chainer returns them).

    Raises:
        ValueError: For bad settings or shapes.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> emb = np.zeros((1, 2, 2, 2))
        >>> emb[0, :, 0, 0] = 3.0  # the one pixel of instance 2 sits far from instance 1
        >>> labels = np.array([[[2, 1], [1, 1]]])
        >>> [round(float(v.array), 4) for v in
        ...  F.discriminative_margin_based_clustering_loss(emb, labels, 0.5, 1.5, 2)]
        [0.0, 0.0, 0.003]
    """
    loss = DiscriminativeMarginBasedClusteringLoss(delta_v, delta_d, max_embedding_dim, norm,
                                                   alpha, beta, gamma)
    return loss(embeddings, labels)
