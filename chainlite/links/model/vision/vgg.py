"""VGG 16- and 19-layer networks for ImageNet (Simonyan & Zisserman, 2014)."""
from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy

from chainlite import initializers
from chainlite import link
from chainlite.dataset import download
from chainlite.functions.activation import relu
from chainlite.functions.activation import softmax
from chainlite.functions.noise import dropout
from chainlite.functions.pooling import max_pooling_2d
from chainlite.links.connection import convolution_2d
from chainlite.links.connection import linear
from chainlite.links.model.vision import _common
from chainlite.serializers import npz

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable

# True: prepare() works without Pillow too (Chainer's flag says whether Pillow imported).
available = True

_MEAN_BGR = (103.939, 116.779, 123.68)

# (block, number of 3x3 convolutions, output channels)
_BLOCKS = {16: ((1, 2, 64), (2, 2, 128), (3, 3, 256), (4, 3, 512), (5, 3, 512)),
           19: ((1, 2, 64), (2, 2, 128), (3, 4, 256), (4, 4, 512), (5, 4, 512))}


def _max_pooling_2d(x: Any) -> Any:
    return max_pooling_2d.max_pooling_2d(x, ksize=2)


def prepare(image: Any, size: Optional[tuple[int, int]] = (224, 224)) -> numpy.ndarray:
    """Converts an image to a VGG input: RGB, resized, BGR order, the ImageNet mean
    subtracted, ``(3, H, W)`` in ``chainlite.config.dtype``.

    Args:
        image: A PIL image (when Pillow is installed) or a uint8-valued array of shape
            ``(H, W)``, ``(H, W, 3)``, ``(1, H, W)`` or ``(3, H, W)`` (RGB).
        size: ``(width, height)`` to resize to (Pillow's order, as in Chainer), or None to
            keep the size. Without Pillow, bilinear resampling in NumPy is used.

    Returns:
        A ``(3, height, width)`` array.

    Example:
        >>> import numpy as np
        >>> from chainlite.links.model.vision import vgg
        >>> vgg.prepare(np.zeros((10, 8, 3), np.uint8), size=None).shape
        (3, 10, 8)
    """
    return _common.prepare_image(image, size, _MEAN_BGR)


class VGGLayers(link.Chain):
    """The VGG network of 16 or 19 layers (the base of :class:`VGG16Layers` and
    :class:`VGG19Layers`; see them)."""

    def __init__(self, pretrained_model: Optional[str] = 'auto', n_layers: int = 16) -> None:
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError('VGGLayers: n_layers must be 16 or 19, got %r' % (n_layers,))
        if pretrained_model:
            # The weights are about to be overwritten: zeros are the cheapest to make.
            kw: dict[str, Any] = {'initialW': initializers.Zero(),
                                  'initial_bias': initializers.Zero()}
        else:
            kw = {'initialW': initializers.Normal(0.01), 'initial_bias': initializers.Zero()}
        self.n_layers = n_layers
        convs = []
        n_in = 3
        for block, n_conv, n_out in _BLOCKS[n_layers]:
            for i in range(1, n_conv + 1):
                convs.append(('conv%d_%d' % (block, i), n_in, n_out))
                n_in = n_out
        # Chainer registers VGG19's fourth convolutions after fc8; the same order here.
        extra = [c for c in convs if c[0] in ('conv3_4', 'conv4_4', 'conv5_4')]
        with self.init_scope():
            for name, n_in, n_out in [c for c in convs if c not in extra]:
                setattr(self, name, convolution_2d.Convolution2D(n_in, n_out, 3, 1, 1, **kw))
            self.fc6 = linear.Linear(512 * 7 * 7, 4096, **kw)
            self.fc7 = linear.Linear(4096, 4096, **kw)
            self.fc8 = linear.Linear(4096, 1000, **kw)
            for name, n_in, n_out in extra:
                setattr(self, name, convolution_2d.Convolution2D(n_in, n_out, 3, 1, 1, **kw))
        if pretrained_model:
            _common.load_pretrained(self, pretrained_model,
                                    'VGG_ILSVRC_%d_layers.npz' % n_layers)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str) -> None:
        """Converts the original Caffe VGG model to the ``.npz`` file these links load.

        The Caffe layers (``conv1_1`` ... ``fc8``) have the names of the links' children, so
        the loaded :class:`~chainlite.links.caffe.CaffeFunction` is saved as it is.

        Args:
            path_caffemodel: The ``.caffemodel`` file (needs the protobuf package).
            path_npz: Where to write the ``.npz`` file.
        """
        from chainlite.links.caffe.caffe_function import CaffeFunction
        npz.save_npz(path_npz, CaffeFunction(path_caffemodel), compression=False)

    @property
    def functions(self) -> 'collections.OrderedDict':
        """The layers in order: name -> the list of callables that compute it."""
        fs = collections.OrderedDict()
        for block, n_conv, _ in _BLOCKS[self.n_layers]:
            for i in range(1, n_conv + 1):
                name = 'conv%d_%d' % (block, i)
                fs[name] = [getattr(self, name), relu.relu]
            fs['pool%d' % block] = [_max_pooling_2d]
        fs['fc6'] = [self.fc6, relu.relu, dropout.dropout]
        fs['fc7'] = [self.fc7, relu.relu, dropout.dropout]
        fs['fc8'] = [self.fc8]
        fs['prob'] = [softmax.softmax]
        return fs

    @property
    def available_layers(self) -> list:
        """The names of the layers ``forward`` can return."""
        return list(self.functions.keys())

    def forward(self, x: VariableOrArray, layers: Optional[Sequence[str]] = None,
                **kwargs: Any) -> dict:
        """Computes the requested layers (and those before them only).

        Args:
            x: A batch of prepared images ``(N, 3, 224, 224)`` (smaller inputs work up to
                ``pool5``).
            layers: Names from :attr:`available_layers` (default ``['prob']``).

        Returns:
            A dict from each requested name to its Variable.
        """
        _common.reject_removed_arguments(type(self).__name__ + '.forward', kwargs)
        return _common.forward_layers(self.functions, x, layers, type(self).__name__)

    def extract(self, images: Sequence[Any], layers: Optional[Sequence[str]] = None,
                size: Optional[tuple[int, int]] = (224, 224), **kwargs: Any) -> dict:
        """Prepares ``images`` with :func:`prepare` and computes ``layers`` (default
        ``['fc7']``). Use ``chainlite.using_config('train', False)`` for inference.

        Args:
            images: Images (arrays or PIL images).
            layers: Layer names.
            size: ``(width, height)`` to resize to, or None.

        Returns:
            A dict from each requested name to its Variable.
        """
        _common.reject_removed_arguments(type(self).__name__ + '.extract', kwargs)
        return _common.extract(self, prepare, images, ['fc7'] if layers is None else layers,
                               size)

    def predict(self, images: Sequence[Any], oversample: bool = True) -> Variable:
        """Class probabilities of ``images`` (test mode, no graph).

        Args:
            images: Images (arrays or PIL images); each is resized to 256x256.
            oversample: Average over ten 224x224 crops (corners, centre and their mirrors)
                instead of using the centre crop only.

        Returns:
            A Variable of shape ``(N, 1000)``.
        """
        return _common.predict(self, prepare, images, oversample)


class VGG16Layers(VGGLayers):
    """VGG16 (Simonyan & Zisserman, https://arxiv.org/abs/1409.1556), as Chainer's
    ``VGG16Layers``: the same link names (``conv1_1`` ... ``conv5_3``, ``fc6``, ``fc7``,
    ``fc8``) and parameter shapes, so Chainer-converted weights load.

    Layers: ``conv1_1``, ``conv1_2``, ``pool1``, ... ``conv5_3``, ``pool5``, ``fc6``, ``fc7``,
    ``fc8``, ``prob`` (22). The fully connected layers need 224x224 inputs.

    Args:
        pretrained_model: The path of a Chainer-converted ``.npz``; ``'auto'`` for
            ``VGG_ILSVRC_16_layers.npz`` in the ``pfnet/chainer/models`` folder of the dataset
            root (chainlite never downloads: a missing file raises FileNotFoundError); None
            (or an empty string) for random weights (``Normal(0.01)``, zero biases).

    Raises:
        FileNotFoundError: If the weights file does not exist.

    Example:
        >>> from chainlite.links.model.vision.vgg import VGG16Layers
        >>> VGG16Layers(pretrained_model=None).available_layers[:3]   # doctest: +SKIP
        ['conv1_1', 'conv1_2', 'pool1']
    """

    def __init__(self, pretrained_model: Optional[str] = 'auto') -> None:
        super().__init__(pretrained_model, 16)


class VGG19Layers(VGGLayers):
    """VGG19, as Chainer's ``VGG19Layers``: :class:`VGG16Layers` with a fourth convolution in
    blocks 3, 4 and 5 (``conv3_4``, ``conv4_4``, ``conv5_4``; 25 layers).

    Args:
        pretrained_model: A path, ``'auto'`` (``VGG_ILSVRC_19_layers.npz`` in the model
            folder) or None, as for :class:`VGG16Layers`.

    Raises:
        FileNotFoundError: If the weights file does not exist.
    """

    def __init__(self, pretrained_model: Optional[str] = 'auto') -> None:
        super().__init__(pretrained_model, 19)


def _make_npz(path_npz: str, url: str, model: Any) -> Any:
    # Downloads the Caffe model from ``url``, converts it to ``path_npz`` and loads it.
    path_caffemodel = download.cached_download(url)
    return _common.convert_then_load(
        lambda: VGGLayers.convert_caffemodel_to_npz(path_caffemodel, path_npz), path_npz,
        model)


def _retrieve(name: str, url: str, model: Any) -> Any:
    # Loads the converted model ``name`` from the model directory, making it if needed.
    return _common.retrieve(name, lambda path: _make_npz(path, url, model), model)
