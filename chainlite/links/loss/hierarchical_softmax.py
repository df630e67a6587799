"""Hierarchical softmax over a binary tree (word2vec's cheap softmax)."""
from __future__ import annotations

import copy
import heapq

import numpy
from typing import TYPE_CHECKING, Any

from chainlite import configuration
from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.functions.loss import hierarchical_softmax as hsm_function
from chainlite.functions.loss.hierarchical_softmax import BinaryHierarchicalSoftmaxFunction

if TYPE_CHECKING:
    from chainlite.device_resident import DeviceResidentsVisitor
    from chainlite.types import DTypeSpec, VariableOrArray

__all__ = ['BinaryHierarchicalSoftmax', 'BinaryHierarchicalSoftmaxFunction']


class TreeParser:
    """Finds each leaf's path of internal nodes in a binary tree, and the turns taken.

    Internal nodes are numbered in pre-order from 0; a turn to the left child is coded
    ``+1``, to the right ``-1``.

    Args:
        dtype: The dtype of the codes.

    Attributes:
        paths: After :meth:`parse`, leaf -> the ``int32`` ids of the internal nodes from the
            root down to it.
        codes: After :meth:`parse`, leaf -> the turns (``+1``/``-1``) at those nodes.
        next_id: The number of internal nodes numbered so far.

    Example:
        >>> import numpy as np
        >>> parser = TreeParser(np.float32)
        >>> parser.parse(((0, 1), 2))
        >>> parser.size(), parser.get_paths()[1], parser.get_codes()[1]
        (2, array([0, 1], dtype=int32), array([ 1., -1.], dtype=float32))
    """

    def __init__(self, dtype: DTypeSpec) -> None:
        self.next_id = 0
        self.dtype = dtype
        self.paths: dict = {}
        self.codes: dict = {}

    def size(self) -> int:
        """Returns the number of internal nodes of the tree parsed."""
        return self.next_id

    def get_paths(self) -> dict:
        """Returns leaf -> the ids of the internal nodes on its path."""
        return self.paths

    def get_codes(self) -> dict:
        """Returns leaf -> the turns taken on its path."""
        return self.codes

    def parse(self, tree: Any) -> None:
        """Parses ``tree``, nested pairs whose leaves are anything but tuples.

        Args:
            tree: For example ``((0, 1), 2)``.

        Raises:
            ValueError: If an internal node does not have two children.
        """
        paths, codes, self.next_id = hsm_function._parse_tree(tree)
        self.paths = {leaf: numpy.array(p, numpy.int32) for leaf, p in paths.items()}
        self.codes = {leaf: numpy.array(c, self.dtype) for leaf, c in codes.items()}


class BinaryHierarchicalSoftmax(link.Link):
    """Hierarchical softmax layer over a binary tree whose leaves are the word ids.

    The probability of word ``w`` is the product, over the internal nodes ``e`` on its path
    from the root, of ``sigmoid(c * x . W[e])`` with ``c = +1`` for a left turn and ``-1``
    for a right turn; the loss is minus its log, summed over the batch. The cost is the
    length of the path, ``O(log n)`` for a balanced or Huffman tree.

    Args:
        in_size (int): The size of the input vectors.
        tree: Nested pairs with the word ids (ints) as leaves, e.g. ``((0, 1), 2)``, such
            as :meth:`create_huffman_tree` returns.
        dtype: The dtype of ``W`` and of the codes (None: ``chainlite.config.dtype``).

    Attributes:
        W: The node-vector Parameter ``(n_internal_nodes, in_size)``, uniform in
            ``[-1, 1)`` at first.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> tree = L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 8, 1: 5, 2: 6, 3: 4})
        >>> tree
        ((3, 1), (2, 0))
        >>> hsm = L.BinaryHierarchicalSoftmax(2, tree)
        >>> hsm.W.array[...] = 0
        >>> round(float(hsm(np.ones((1, 2), np.float32), np.array([0], np.int32)).array), 4)
        1.3863
    """

    def __init__(self, in_size: int, tree: Any, dtype: DTypeSpec = None) -> None:
        super().__init__()
        dtype = configuration.get_dtype(dtype)
        self._func = BinaryHierarchicalSoftmaxFunction(tree, dtype)
        with self.init_scope():
            self.W = variable.Parameter(initializers.Uniform(1, dtype=dtype),
                                        (self._func.parser_size, in_size))

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Visits ``W`` and the tree's arrays (so ``to_device`` moves both, as in Chainer).

        Args:
            visitor: A :class:`~chainlite.device_resident.DeviceResidentsVisitor`.
        """
        super().device_resident_accept(visitor)
        self._func.device_resident_accept(visitor)

    @staticmethod
    def create_huffman_tree(word_counts: dict) -> Any:
        """A binary Huffman tree of the keys of ``word_counts``.

        The two lightest subtrees are merged until one is left; ties are broken by the
        order of the keys in the dictionary, as in Chainer. For example
        ``{0: 8, 1: 5, 2: 6, 3: 4}`` gives ``((3, 1), (2, 0))``.

        Args:
            word_counts (dict): The count (int or float) of each word.

        Returns:
            The tree, nested pairs with the keys as leaves.

        Raises:
            ValueError: If ``word_counts`` is empty.
        """
        if not word_counts:
            raise ValueError('BinaryHierarchicalSoftmax.create_huffman_tree: empty vocabulary')
        heap = [(c, uid, w) for uid, (w, c) in enumerate(word_counts.items())]
        heapq.heapify(heap)
        while len(heap) >= 2:
            count1, id1, word1 = heapq.heappop(heap)
            count2, id2, word2 = heapq.heappop(heap)
            heapq.heappush(heap, (count1 + count2, min(id1, id2), (word1, word2)))
        return heap[0][2]

    def forward(self, x: VariableOrArray, t: VariableOrArray) -> variable.Variable:
        """The summed negative log-likelihood of the words ``t`` given the inputs ``x``.

        Args:
            x: The inputs ``(B, in_size)``.
            t: The ``int32`` word ids ``(B,)``.

        Returns:
            A scalar Variable.
        """
        return copy.copy(self._func)(x, t, self.W)
