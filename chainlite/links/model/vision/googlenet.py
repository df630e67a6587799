"""GoogLeNet (Inception v1) for ImageNet (Szegedy et al., 2014)."""
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
from chainlite.functions.normalization import local_response_normalization
from chainlite.functions.pooling import average_pooling_2d
from chainlite.functions.pooling import max_pooling_2d
from chainlite.links.connection import convolution_2d
from chainlite.links.connection import inception
from chainlite.links.connection import linear
from chainlite.links.model.vision import _common
from chainlite.serializers import npz

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable

# True: prepare() works without Pillow too (Chainer's flag says whether Pillow imported).
available = True

_MEAN_BGR = (104.0, 117.0, 123.0)

# name -> Inception(in_channels, out1, proj3, out3, proj5, out5, proj_pool)
_INCEPTIONS = (('inc3a', (192, 64, 96, 128, 16, 32, 32)),
               ('inc3b', (256, 128, 128, 192, 32, 96, 64)),
               ('inc4a', (480, 192, 96, 208, 16, 48, 64)),
               ('inc4b', (512, 160, 112, 224, 24, 64, 64)),
               ('inc4c', (512, 128, 128, 256, 24, 64, 64)),
               ('inc4d', (512, 112, 144, 288, 32, 64, 64)),
               ('inc4e', (528, 256, 160, 320, 32, 128, 128)),
               ('inc5a', (832, 256, 160, 320, 32, 128, 128)),
               ('inc5b', (832, 384, 192, 384, 48, 128, 128)))


def prepare(image: Any, size: Optional[tuple[int, int]] = (224, 224)) -> numpy.ndarray:
    """Converts an image to a GoogLeNet input: RGB, resized, BGR order, the mean
    ``(104, 117, 123)`` subtracted, ``(3, H, W)`` in ``chainlite.config.dtype``.

    Args:
        image: A PIL image (when Pillow is installed) or a uint8-valued array of shape
            ``(H, W)``, ``(H, W, 3)``, ``(1, H, W)`` or ``(3, H, W)`` (RGB).
        size: ``(width, height)`` to resize to (Pillow's order, as in Chainer), or None.

    Returns:
        A ``(3, height, width)`` array.

    Example:
        >>> import numpy as np
        >>> from chainlite.links.model.vision import googlenet
        >>> googlenet.prepare(np.full((2, 2, 3), 104, np.uint8), size=None)[0]  # blue
        array([[0., 0.],
               [0., 0.]], dtype=float32)
    """
    return _common.prepare_image(image, size, _MEAN_BGR)


def _max_pooling_2d(x: Any) -> Any:
    return max_pooling_2d.max_pooling_2d(x, ksize=3, stride=2)


def _local_response_normalization(x: Any) -> Any:
    return local_response_normalization.local_response_normalization(x, n=5, k=1,
                                                                     alpha=1e-4 / 5)


def _average_pooling_2d_k5(x: Any) -> Any:
    return average_pooling_2d.average_pooling_2d(x, ksize=5, stride=3)


def _average_pooling_2d_k7(x: Any) -> Any:
    return average_pooling_2d.average_pooling_2d(x, ksize=7, stride=1)


def _dropout(x: Any) -> Any:
    return dropout.dropout(x, ratio=0.4)


class GoogLeNet(link.Chain):
    """GoogLeNet (https://arxiv.org/abs/1409.4842), as Chainer's ``GoogLeNet``: the same link
    names (``conv1``, ``conv2_reduce``, ``conv2``, ``inc3a`` ... ``inc5b``, ``loss3_fc`` and the
    auxiliary classifiers ``loss1_*``, ``loss2_*``) and parameter shapes, so
    Chainer-converted weights load.

    Layers: ``conv1``, ``pool1``, ``conv2_reduce``, ``conv2``, ``pool2``, ``inception_3a``,
    ``inception_3b``, ``pool3``, ``inception_4a`` ... ``inception_4e``, ``pool4``,
    ``inception_5a``, ``inception_5b``, ``pool5``, ``loss3_fc``, ``prob``, and the auxiliary
    outputs ``loss1_fc2`` (from ``inception_4a``) and ``loss2_fc2`` (from ``inception_4d``).
    The classifiers need 224x224 inputs.

    Args:
        pretrained_model: The path of a Chainer-converted ``.npz``; ``'auto'`` for
            ``bvlc_googlenet.npz`` in the ``pfnet/chainer/models`` folder of the dataset root
            (chainlite never downloads: a missing file raises FileNotFoundError); None for
            random weights (LeCun uniform).

    Raises:
        FileNotFoundError: If the weights file does not exist.

    Example:
        >>> from chainlite.links.model.vision.googlenet import GoogLeNet
        >>> GoogLeNet(pretrained_model=None).available_layers[-3:]   # doctest: +SKIP
        ['prob', 'loss1_fc2', 'loss2_fc2']
    """

    # Registered by name in __init__ (from _INCEPTIONS).
    inc3a: inception.Inception
    inc3b: inception.Inception
    inc4a: inception.Inception
    inc4b: inception.Inception
    inc4c: inception.Inception
    inc4d: inception.Inception
    inc4e: inception.Inception
    inc5a: inception.Inception
    inc5b: inception.Inception

    def __init__(self, pretrained_model: Optional[str] = 'auto') -> None:
        super().__init__()
        initialW = (initializers.Zero() if pretrained_model
                    else initializers.LeCunUniform(scale=1.0))
        with self.init_scope():
            self.conv1 = convolution_2d.Convolution2D(3, 64, 7, stride=2, pad=3,
                                                      initialW=initialW)
            self.conv2_reduce = convolution_2d.Convolution2D(64, 64, 1, initialW=initialW)
            self.conv2 = convolution_2d.Convolution2D(64, 192, 3, stride=1, pad=1,
                                                      initialW=initialW)
            for name, args in _INCEPTIONS:
                setattr(self, name, inception.Inception(*args))
            self.loss3_fc = linear.Linear(1024, 1000, initialW=initialW)
            self.loss1_conv = convolution_2d.Convolution2D(512, 128, 1, initialW=initialW)
            self.loss1_fc1 = linear.Linear(2048, 1024, initialW=initialW)
            self.loss1_fc2 = linear.Linear(1024, 1000, initialW=initialW)
            self.loss2_conv = convolution_2d.Convolution2D(528, 128, 1, initialW=initialW)
            self.loss2_fc1 = linear.Linear(2048, 1024, initialW=initialW)
            self.loss2_fc2 = linear.Linear(1024, 1000, initialW=initialW)
        if pretrained_model:
            _common.load_pretrained(self, pretrained_model, 'bvlc_googlenet.npz')

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str) -> None:
        """Converts BVLC's Caffe GoogLeNet to the ``.npz`` file this link loads.

        Args:
            path_caffemodel: The ``.caffemodel`` file (needs the protobuf package).
            path_npz: Where to write the ``.npz`` file.
        """
        from chainlite.links.caffe.caffe_function import CaffeFunction
        caffemodel = CaffeFunction(path_caffemodel)
        chainermodel = cls(pretrained_model=None)
        _transfer_googlenet(caffemodel, chainermodel)
        npz.save_npz(path_npz, chainermodel, compression=False)

    @property
    def functions(self) -> 'collections.OrderedDict':
        """The layers in order: name -> the list of callables that compute it (the
        auxiliary classifiers start from ``inception_4a`` and ``inception_4d``)."""
        return collections.OrderedDict([
            ('conv1', [self.conv1, relu.relu]),
            ('pool1', [_max_pooling_2d, _local_response_normalization]),
            ('conv2_reduce', [self.conv2_reduce, relu.relu]),
            ('conv2', [self.conv2, relu.relu, _local_response_normalization]),
            ('pool2', [_max_pooling_2d]),
            ('inception_3a', [self.inc3a]),
            ('inception_3b', [self.inc3b]),
            ('pool3', [_max_pooling_2d]),
            ('inception_4a', [self.inc4a]),
            ('inception_4b', [self.inc4b]),
            ('inception_4c', [self.inc4c]),
            ('inception_4d', [self.inc4d]),
            ('inception_4e', [self.inc4e]),
            ('pool4', [_max_pooling_2d]),
            ('inception_5a', [self.inc5a]),
            ('inception_5b', [self.inc5b]),
            ('pool5', [_average_pooling_2d_k7]),
            ('loss3_fc', [_dropout, self.loss3_fc]),
            ('prob', [softmax.softmax]),
            ('loss1_fc2', [_average_pooling_2d_k5, self.loss1_conv, relu.relu,
                           self.loss1_fc1, relu.relu, self.loss1_fc2]),
            ('loss2_fc2', [_average_pooling_2d_k5, self.loss2_conv, relu.relu,
                           self.loss2_fc1, relu.relu, self.loss2_fc2]),
        ])

    @property
    def available_layers(self) -> list:
        """The names of the layers ``forward`` can return."""
        return list(self.functions.keys())

    def forward(self, x: VariableOrArray, layers: Optional[Sequence[str]] = None,
                **kwargs: Any) -> dict:
        """Computes the requested layers (and those before them only).

        Args:
            x: A batch of prepared images ``(N, 3, 224, 224)``.
            layers: Names from :attr:`available_layers` (default ``['prob']``).

        Returns:
            A dict from each requested name to its Variable.
        """
        _common.reject_removed_arguments('GoogLeNet.forward', kwargs)
        layers = ['prob'] if layers is None else layers
        functions = self.functions
        unknown = [layer for layer in layers if layer not in functions]
        if unknown:
            raise ValueError('GoogLeNet: unknown layers %s; available: %s'
                             % (unknown, list(functions)))
        activations = {}
        branch_inputs: dict[str, Any] = {}
        targets = set(layers)
        h = x
        for key, funcs in functions.items():
            if not targets:
                break
            if key == 'loss1_fc2':
                h = branch_inputs['inception_4a']
            elif key == 'loss2_fc2':
                h = branch_inputs['inception_4d']
            for func in funcs:
                h = func(h)
            if key in targets:
                activations[key] = h
                targets.remove(key)
            if key in ('inception_4a', 'inception_4d'):
                branch_inputs[key] = h
        return activations

    def extract(self, images: Sequence[Any], layers: Optional[Sequence[str]] = None,
                size: Optional[tuple[int, int]] = (224, 224), **kwargs: Any) -> dict:
        """Prepares ``images`` with :func:`prepare` and computes ``layers`` (default
        ``['pool5']``). Use ``chainlite.using_config('train', False)`` for inference.

        Args:
            images: Images (arrays or PIL images).
            layers: Layer names.
            size: ``(width, height)`` to resize to, or None.

        Returns:
            A dict from each requested name to its Variable.
        """
        _common.reject_removed_arguments('GoogLeNet.extract', kwargs)
        return _common.extract(self, prepare, images,
                               ['pool5'] if layers is None else layers, size)

    def predict(self, images: Sequence[Any], oversample: bool = True) -> Variable:
        """Class probabilities of ``images`` (test mode, no graph).

        Args:
            images: Images (arrays or PIL images); each is resized to 256x256.
            oversample: Average over ten 224x224 crops instead of the centre crop only.

        Returns:
            A Variable of shape ``(N, 1000)``.
        """
        return _common.predict(self, prepare, images, oversample)


# Copying the parameters of Caffe's BVLC GoogLeNet (a CaffeFunction) into GoogLeNet, under
# Chainer's names.

def _copy(dst: Any, src: Any) -> None:
    dst.W.array[:] = src.W.array
    dst.b.array[:] = src.b.array


# Inception's child links -> the suffixes of Caffe's layer names.
_INCEPTION_PARTS = (('conv1', '1x1'), ('proj3', '3x3_reduce'), ('conv3', '3x3'),
                    ('proj5', '5x5_reduce'), ('conv5', '5x5'), ('projp', 'pool_proj'))


def _transfer_inception(src: Any, dst: Any, names: Sequence[str]) -> None:
    for name in names:
        chain = getattr(dst, 'inc{}'.format(name))
        for part, caffe_part in _INCEPTION_PARTS:
            _copy(getattr(chain, part), src['inception_{}/{}'.format(name, caffe_part)])


def _transfer_googlenet(src: Any, dst: Any) -> None:
    _copy(dst.conv1, src['conv1/7x7_s2'])
    _copy(dst.conv2_reduce, src['conv2/3x3_reduce'])
    _copy(dst.conv2, src['conv2/3x3'])
    _transfer_inception(src, dst, ['3a', '3b', '4a', '4b', '4c', '4d', '4e', '5a', '5b'])
    for i in (1, 2):
        _copy(getattr(dst, 'loss%d_conv' % i), src['loss%d/conv' % i])
        _copy(getattr(dst, 'loss%d_fc1' % i), src['loss%d/fc' % i])
        _copy(getattr(dst, 'loss%d_fc2' % i), src['loss%d/classifier' % i])
    _copy(dst.loss3_fc, src['loss3/classifier'])


def _make_npz(path_npz: str, url: str, model: Any) -> Any:
    # Downloads the Caffe model from ``url``, converts it to ``path_npz`` and loads it.
    path_caffemodel = download.cached_download(url)
    return _common.convert_then_load(
        lambda: GoogLeNet.convert_caffemodel_to_npz(path_caffemodel, path_npz), path_npz,
        model)


def _retrieve(name_npz: str, url: str, model: Any) -> Any:
    # Loads the converted model ``name_npz`` from the model directory, making it if needed.
    return _common.retrieve(name_npz, lambda path: _make_npz(path, url, model), model)
