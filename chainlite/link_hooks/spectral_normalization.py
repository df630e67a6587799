"""Spectral normalization of a link's weight (a link hook)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, cast

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import link_hook
from chainlite import variable
from chainlite.functions.math import matmul
from chainlite.link_hooks import _weight_hook

if TYPE_CHECKING:
    from chainlite.link import Link
    from chainlite.types import VariableOrArray


def l2normalize(xp: Any, v: Any, eps: float) -> Any:
    """Divides a vector by its L2 norm (plus ``eps``).

    Args:
        xp: The array module of ``v`` (``numpy``, or ``cupy`` on a GPU).
        v: A vector.
        eps: Added to the norm, so a zero vector stays finite.

    Returns:
        ``v / (||v|| + eps)``.

    Example:
        >>> import numpy as np
        >>> l2normalize(np, np.array([3.0, 4.0]), 0.0)
        array([0.6, 0.8])
    """
    return v / (xp.linalg.norm(v) + eps)


def update_approximate_vectors(weight_matrix: Any, u: Any, n_power_iteration: int,
                               eps: float) -> tuple[Any, Any]:
    """Refines the first left and right singular vectors of a matrix by power iteration.

    Args:
        weight_matrix: The matrix ``W`` (a Variable or array) of shape ``(out, in)``.
        u: The current estimate of the first left singular vector, ``(out,)``.
        n_power_iteration: The number of iterations (at least 1).
        eps: See :func:`l2normalize`.

    Returns:
        ``(u, v)``: the new left ``(out,)`` and right ``(in,)`` vectors (arrays).

    Raises:
        ValueError: If ``n_power_iteration`` is less than 1.

    Example:
        >>> import numpy as np
        >>> u, v = update_approximate_vectors(np.diag([3.0, 1.0]), np.ones(2), 20, 1e-12)
        >>> np.round(u, 6), np.round(v, 6)
        (array([1., 0.]), array([1., 0.]))
    """
    if n_power_iteration < 1:
        raise ValueError('update_approximate_vectors: n_power_iteration must be at least 1, '
                         'got %r' % (n_power_iteration,))
    w = getattr(weight_matrix, 'array', weight_matrix)
    xp = backend.get_array_module(w)
    for _ in range(n_power_iteration):
        v = l2normalize(xp, u @ w, eps)
        u = l2normalize(xp, w @ v, eps)
    return u, v


def calculate_max_singular_value(weight_matrix: VariableOrArray, u: Any,
                                 v: Any) -> variable.Variable:
    """Estimates the largest singular value of a matrix as ``u^T W v``.

    Gradients flow to ``weight_matrix`` only (``u`` and ``v`` are constants).

    Args:
        weight_matrix: ``W``, ``(out, in)``.
        u: The first left singular vector, ``(out,)``.
        v: The first right singular vector, ``(in,)``.

    Returns:
        A 0-d Variable.

    Example:
        >>> import numpy as np
        >>> W = np.array([[3.0, 0.0], [0.0, 1.0]])
        >>> calculate_max_singular_value(W, np.array([1.0, 0.0]), np.array([1.0, 0.0])).array
        array(3.)
    """
    return matmul.matmul(matmul.matmul(u[None], weight_matrix), v[:, None])[0, 0]


class SpectralNormalization(link_hook.LinkHook):
    """Divides a link's weight by its largest singular value before each forward (Miyato et
    al., 2018, https://arxiv.org/abs/1802.05957).

    The weight, reshaped to a matrix with the output axis first (the second axis for
    :class:`~chainlite.links.Deconvolution2D` and :class:`~chainlite.links.DeconvolutionND`,
    whose weights are ``(in, out, ...)``), has its largest singular value ``sigma`` estimated
    by power iteration from a persistent vector ``u`` (attribute ``W_u`` for
    ``weight_name='W'``; saved with the link). In training mode ``u`` is updated; the last
    right vector is kept in ``hook.v``. During the forward the link sees ``W / sigma``
    (times ``gamma`` with ``use_gamma``, times ``factor`` if given), a Variable through which
    gradients reach the Parameter; after it, the Parameter is put back.

    Register it on one link with ``link.add_hook(hook)``, preferably before the optimizer's
    ``setup`` (``use_gamma`` adds a Parameter). It cannot be used as a context manager.

    Args:
        n_power_iteration (int): Power iterations per forward (at least 1).
        eps (float): Added to norms before dividing.
        use_gamma (bool): Add a scalar Parameter ``gamma`` to the link, initialised to the
            weight's largest singular value, that scales the normalized weight.
        factor (float): If given, ``sigma`` is divided by it (the weight's spectral norm
            becomes ``factor``).
        weight_name (str): The name of the weight Parameter.
        name (str): The hook's name (``'SpectralNormalization'`` by default).

    Attributes:
        vector_name: ``weight_name + '_u'``, the link's attribute holding ``u``.
        axis: The weight's output axis (0, or 1 for deconvolutions).
        v: The last right singular vector estimate.

    Raises:
        ValueError: At ``add_hook``, if the link has no such weight or its output axis is
            empty.

    Example:
        >>> import numpy as np, chainlite.links as L
        >>> from chainlite.link_hooks import SpectralNormalization
        >>> layer = L.Linear(3, 2).add_hook(SpectralNormalization(n_power_iteration=50))
        >>> layer.W_u.shape
        (2,)
        >>> y = layer(np.eye(3, dtype=np.float32))   # rows of W / sigma
        >>> round(float(np.linalg.svd(y.array.T, compute_uv=False)[0]), 3)
        1.0
        >>> layer.delete_hook('SpectralNormalization')   # removes W_u too
    """

    name = 'SpectralNormalization'

    def __init__(self, n_power_iteration: int = 1, eps: float = 1e-6, use_gamma: bool = False,
                 factor: Optional[float] = None, weight_name: str = 'W',
                 name: Optional[str] = None) -> None:
        if n_power_iteration < 1:
            raise ValueError('SpectralNormalization: n_power_iteration must be at least 1, '
                             'got %r' % (n_power_iteration,))
        self.n_power_iteration = n_power_iteration
        self.eps = eps
        self.use_gamma = use_gamma
        self.factor = factor
        self.weight_name = weight_name
        self.vector_name = weight_name + '_u'
        self._initialized = False
        self.axis = 0
        self.v: Any = None
        if name is not None:
            self.name = name

    def __enter__(self) -> 'SpectralNormalization':
        _weight_hook.refuse_context(self)

    def __exit__(self, *exc: Any) -> None:
        _weight_hook.refuse_context(self)

    def added(self, link: Optional[Link] = None) -> None:
        """Checks the weight and, if it is initialized, creates ``u`` (and ``gamma``)."""
        from chainlite.links.connection import deconvolution_2d
        from chainlite.links.connection import deconvolution_nd
        _weight_hook.check_weight(self, link)
        if isinstance(link, (deconvolution_2d.Deconvolution2D,
                             deconvolution_nd.DeconvolutionND)):
            self.axis = 1
        if getattr(link, self.weight_name).array is not None:
            with cast(Any, link).device:
                self._prepare_parameters(link)

    def deleted(self, link: Optional[Link] = None) -> None:
        """Removes ``u`` (and ``gamma``) from the link."""
        if link is None:
            return
        if hasattr(link, self.vector_name):
            delattr(link, self.vector_name)
        if self.use_gamma and hasattr(link, 'gamma'):
            del link.gamma

    def forward_preprocess(self, cb_args: Any) -> None:
        """Puts the normalized weight in place of the Parameter."""
        link = cb_args.link
        # The power iteration's arrays are made on the link's GPU, which need not be the
        # current one (CuPy allocates on the current GPU).
        with link.device:
            if not self._initialized:
                _weight_hook.initialize_lazily(self, link, cb_args.args)
                self._prepare_parameters(link)
            self.original_weight = getattr(link, self.weight_name)
            setattr(link, self.weight_name, self.normalize_weight(link))

    def forward_postprocess(self, cb_args: Any) -> None:
        """Puts the Parameter back."""
        setattr(cb_args.link, self.weight_name, self.original_weight)

    def _prepare_parameters(self, link: Any) -> None:
        W = getattr(link, self.weight_name)
        if W.shape[self.axis] == 0:
            raise ValueError('SpectralNormalization: expected %s.shape[%d] > 0, got shape %s'
                             % (self.weight_name, self.axis, W.shape))
        xp = backend.get_array_module(W.array)  # (u and gamma on the weight's device)
        u = xp.random.normal(size=(W.shape[self.axis],)).astype(W.dtype)
        setattr(link, self.vector_name, u)
        link.register_persistent(self.vector_name)
        if self.use_gamma:
            Wm = self.reshape_W(W.array)
            if Wm.dtype == numpy.float16:  # (no float16 in LAPACK nor cuSOLVER)
                Wm = Wm.astype(numpy.float32)
            s = xp.linalg.svd(Wm, compute_uv=False)
            with link.init_scope():
                link.gamma = variable.Parameter(xp.asarray(s[0], W.dtype))
            link.gamma.to_device(link.device)
        self._initialized = True

    def normalize_weight(self, link: Link) -> variable.Variable:
        """The weight divided by its estimated largest singular value (a Variable)."""
        W = getattr(link, self.weight_name)
        u = getattr(link, self.vector_name)
        Wm = self.reshape_W(W)
        recomputing = configuration.config.in_recomputing
        if recomputing:
            # The same u and v as the forward being recomputed.
            v = self.v
        else:
            u, v = update_approximate_vectors(Wm, u, self.n_power_iteration, self.eps)
        # sigma = u^T W v with u, v constants: gradients flow through W only.
        sigma = calculate_max_singular_value(Wm, u, v)
        if self.factor is not None:
            sigma = sigma / self.factor
        W = (cast(Any, link).gamma * W if self.use_gamma else W) / sigma
        if not recomputing:
            self.v = v
            if configuration.config.train:
                getattr(link, self.vector_name)[...] = u
        return W

    def reshape_W(self, W: VariableOrArray) -> Any:
        """The weight as a matrix with the output axis first (Variable or array)."""
        if self.axis != 0:
            W = W.transpose([self.axis] + [i for i in range(W.ndim) if i != self.axis])
        return W if W.ndim == 2 else W.reshape(W.shape[0], -1)
