"""Residual networks of 50, 101 and 152 layers for ImageNet (He et al., 2015)."""
from __future__ import annotations

import collections
import os
import warnings
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy

from chainlite import initializers
from chainlite import link
from chainlite.dataset import download
from chainlite.functions.activation import relu
from chainlite.functions.activation import softmax
from chainlite.functions.array import reshape
from chainlite.functions.pooling import average_pooling_2d
from chainlite.functions.pooling import max_pooling_2d
from chainlite.links.connection import convolution_2d
from chainlite.links.connection import linear
from chainlite.links.model.vision import _common
from chainlite.serializers import npz
from chainlite.links.normalization import batch_normalization

if TYPE_CHECKING:
    from chainlite.types import InitializerSpec, VariableOrArray
    from chainlite.variable import Variable

# True: prepare() works without Pillow too (Chainer's flag says whether Pillow imported).
available = True

_MEAN_BGR = (103.063, 115.903, 123.152)
_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}


def prepare(image: Any, size: Optional[tuple[int, int]] = (224, 224)) -> numpy.ndarray:
    """Converts an image to a ResNet input: RGB, resized, BGR order, the mean of the
    original ResNet models subtracted, ``(3, H, W)`` in ``chainlite.config.dtype``.

    Args:
        image: A PIL image (when Pillow is installed) or a uint8-valued array of shape
            ``(H, W)``, ``(H, W, 3)``, ``(1, H, W)`` or ``(3, H, W)`` (RGB).
        size: ``(width, height)`` to resize to (Pillow's order, as in Chainer), or None.

    Returns:
        A ``(3, height, width)`` array.

    Example:
        >>> import numpy as np
        >>> from chainlite.links.model.vision import resnet
        >>> resnet.prepare(np.zeros((10, 8), np.uint8), size=(6, 4)).shape
        (3, 4, 6)
    """
    return _common.prepare_image(image, size, _MEAN_BGR)


def _global_average_pooling_2d(x: Any) -> Any:
    n, channels, rows, cols = x.shape
    h = average_pooling_2d.average_pooling_2d(x, (rows, cols), stride=1)
    return reshape.reshape(h, (n, channels))


def _conv(n_in: int, n_out: int, ksize: int, stride: int, pad: int, initialW: Any) -> Any:
    return convolution_2d.Convolution2D(n_in, n_out, ksize, stride, pad, initialW=initialW,
                                        nobias=True)


class BottleneckA(link.Chain):
    """A bottleneck that changes the number of channels (and may downsample): 1x1, 3x3 and
    1x1 convolutions with batch normalization, plus a 1x1 convolution on the shortcut.

    Args:
        in_channels (int): Input channels.
        mid_channels (int): Channels inside the bottleneck.
        out_channels (int): Output channels.
        stride (int): The downsampling stride.
        initialW: The initializer of the convolutions.
        downsample_fb (bool): Downsample in the 3x3 convolution (fb.resnet.torch) instead of
            the first 1x1 (the original model).
    """

    def __init__(self, in_channels: int, mid_channels: int, out_channels: int, stride: int = 2,
                 initialW: InitializerSpec = None, downsample_fb: bool = False) -> None:
        super().__init__()
        stride_1x1, stride_3x3 = (1, stride) if downsample_fb else (stride, 1)
        with self.init_scope():
            self.conv1 = _conv(in_channels, mid_channels, 1, stride_1x1, 0, initialW)
            self.bn1 = batch_normalization.BatchNormalization(mid_channels)
            self.conv2 = _conv(mid_channels, mid_channels, 3, stride_3x3, 1, initialW)
            self.bn2 = batch_normalization.BatchNormalization(mid_channels)
            self.conv3 = _conv(mid_channels, out_channels, 1, 1, 0, initialW)
            self.bn3 = batch_normalization.BatchNormalization(out_channels)
            self.conv4 = _conv(in_channels, out_channels, 1, stride, 0, initialW)
            self.bn4 = batch_normalization.BatchNormalization(out_channels)

    def forward(self, x: VariableOrArray) -> Variable:
        """``relu(residual(x) + shortcut(x))``."""
        h1 = relu.relu(self.bn1(self.conv1(x)))
        h1 = relu.relu(self.bn2(self.conv2(h1)))
        h1 = self.bn3(self.conv3(h1))
        h2 = self.bn4(self.conv4(x))
        return relu.relu(h1 + h2)


class BottleneckB(link.Chain):
    """A bottleneck that keeps the shape: 1x1, 3x3 and 1x1 convolutions with batch
    normalization, and the identity shortcut.

    Args:
        in_channels (int): Input (and output) channels.
        mid_channels (int): Channels inside the bottleneck.
        initialW: The initializer of the convolutions.
    """

    def __init__(self, in_channels: int, mid_channels: int,
                 initialW: InitializerSpec = None) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = _conv(in_channels, mid_channels, 1, 1, 0, initialW)
            self.bn1 = batch_normalization.BatchNormalization(mid_channels)
            self.conv2 = _conv(mid_channels, mid_channels, 3, 1, 1, initialW)
            self.bn2 = batch_normalization.BatchNormalization(mid_channels)
            self.conv3 = _conv(mid_channels, in_channels, 1, 1, 0, initialW)
            self.bn3 = batch_normalization.BatchNormalization(in_channels)

    def forward(self, x: VariableOrArray) -> Variable:
        """``relu(residual(x) + x)``."""
        h = relu.relu(self.bn1(self.conv1(x)))
        h = relu.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return relu.relu(h + x)


class BuildingBlock(link.Chain):
    """One stage of a ResNet: a :class:`BottleneckA` (``a``) then ``n_layers - 1``
    :class:`BottleneckB` (``b1``, ``b2``, ...).

    Args:
        n_layers (int): The number of bottlenecks.
        in_channels (int): Input channels.
        mid_channels (int): Channels inside the bottlenecks.
        out_channels (int): Output channels.
        stride (int): The downsampling stride of the first bottleneck.
        initialW: The initializer of the convolutions.
        downsample_fb (bool): See :class:`BottleneckA`.

    Example:
        >>> from chainlite.links.model.vision.resnet import BuildingBlock
        >>> block = BuildingBlock(3, 8, 4, 16, 2)
        >>> block._forward
        ['a', 'b1', 'b2']
    """

    def __init__(self, n_layers: Optional[int] = None, in_channels: Optional[int] = None,
                 mid_channels: Optional[int] = None, out_channels: Optional[int] = None,
                 stride: Optional[int] = None, initialW: InitializerSpec = None,
                 downsample_fb: Optional[bool] = None, **kwargs: Any) -> None:
        super().__init__()
        if 'n_layer' in kwargs:
            warnings.warn('BuildingBlock: n_layer is deprecated; use n_layers',
                          DeprecationWarning, stacklevel=2)
            n_layers = kwargs.pop('n_layer')
        if kwargs:
            raise TypeError('BuildingBlock got unexpected keyword arguments %s'
                            % sorted(kwargs))
        if (n_layers is None or in_channels is None or mid_channels is None
                or out_channels is None or stride is None):
            raise TypeError('BuildingBlock: n_layers, in_channels, mid_channels, out_channels '
                            'and stride are required')
        with self.init_scope():
            self.a = BottleneckA(in_channels, mid_channels, out_channels, stride, initialW,
                                 bool(downsample_fb))
            self._forward = ['a']
            for i in range(n_layers - 1):
                name = 'b%d' % (i + 1)
                setattr(self, name, BottleneckB(out_channels, mid_channels, initialW))
                self._forward.append(name)

    def forward(self, x: VariableOrArray) -> Variable:
        """Runs the bottlenecks in order."""
        h: Any = x
        for name in self._forward:
            h = getattr(self, name)(h)
        return h


class ResNetLayers(link.Chain):
    """A ResNet of 50, 101 or 152 layers (the base of :class:`ResNet50Layers` and its
    siblings; see them)."""

    def __init__(self, pretrained_model: Optional[str], n_layers: int,
                 downsample_fb: bool = False) -> None:
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError('ResNetLayers: n_layers must be 50, 101 or 152, got %r'
                             % (n_layers,))
        initialW = initializers.Zero() if pretrained_model else initializers.HeNormal(scale=1.0)
        block = _BLOCKS[n_layers]
        with self.init_scope():
            self.conv1 = convolution_2d.Convolution2D(3, 64, 7, 2, 3, initialW=initialW)
            self.bn1 = batch_normalization.BatchNormalization(64)
            self.res2 = BuildingBlock(block[0], 64, 64, 256, 1, initialW, downsample_fb)
            self.res3 = BuildingBlock(block[1], 256, 128, 512, 2, initialW, downsample_fb)
            self.res4 = BuildingBlock(block[2], 512, 256, 1024, 2, initialW, downsample_fb)
            self.res5 = BuildingBlock(block[3], 1024, 512, 2048, 2, initialW, downsample_fb)
            self.fc6 = linear.Linear(2048, 1000)
        if pretrained_model:
            _common.load_pretrained(self, pretrained_model, 'ResNet-%d-model.npz' % n_layers)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str,
                                  n_layers: int = 50) -> None:
        """Converts MSRA's Caffe ResNet to the ``.npz`` file these links load.

        Args:
            path_caffemodel: The ``.caffemodel`` file (needs the protobuf package).
            path_npz: Where to write the ``.npz`` file.
            n_layers: 50, 101 or 152, the depth of the Caffe model.

        Raises:
            ValueError: For another ``n_layers``.
        """
        transfer = {50: _transfer_resnet50, 101: _transfer_resnet101,
                    152: _transfer_resnet152}.get(n_layers)
        if transfer is None:
            raise ValueError('ResNetLayers.convert_caffemodel_to_npz: n_layers must be 50, '
                             '101 or 152, got %r' % (n_layers,))
        from chainlite.links.caffe.caffe_function import CaffeFunction
        caffemodel = CaffeFunction(path_caffemodel)
        chainermodel = cls(pretrained_model=None, n_layers=n_layers)
        transfer(caffemodel, chainermodel)
        npz.save_npz(path_npz, chainermodel, compression=False)

    @property
    def functions(self) -> 'collections.OrderedDict':
        """The layers in order: name -> the list of callables that compute it."""
        return collections.OrderedDict([
            ('conv1', [self.conv1, self.bn1, relu.relu]),
            ('pool1', [lambda x: max_pooling_2d.max_pooling_2d(x, ksize=3, stride=2)]),
            ('res2', [self.res2]),
            ('res3', [self.res3]),
            ('res4', [self.res4]),
            ('res5', [self.res5]),
            ('pool5', [_global_average_pooling_2d]),
            ('fc6', [self.fc6]),
            ('prob', [softmax.softmax]),
        ])

    @property
    def available_layers(self) -> list:
        """The names of the layers ``forward`` can return."""
        return list(self.functions.keys())

    def forward(self, x: VariableOrArray, layers: Optional[Sequence[str]] = None,
                **kwargs: Any) -> dict:
        """Computes the requested layers (and those before them only).

        Args:
            x: A batch of prepared images ``(N, 3, H, W)``; any size from 32x32 works, the
                global average pooling making ``pool5`` ``(N, 2048)``.
            layers: Names from :attr:`available_layers` (default ``['prob']``).

        Returns:
            A dict from each requested name to its Variable.
        """
        _common.reject_removed_arguments(type(self).__name__ + '.forward', kwargs)
        return _common.forward_layers(self.functions, x, layers, type(self).__name__)

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
        _common.reject_removed_arguments(type(self).__name__ + '.extract', kwargs)
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


_DOC = """ResNet-{n} (He et al., https://arxiv.org/abs/1512.03385), as Chainer's
    ``ResNet{n}Layers``: the same link names (``conv1``, ``bn1``, ``res2`` ... ``res5`` made
    of bottlenecks ``a``, ``b1``, ..., ``fc6``) and parameter shapes, so Chainer-converted
    weights load.

    Layers: ``conv1``, ``pool1``, ``res2``, ``res3``, ``res4``, ``res5``, ``pool5``, ``fc6``,
    ``prob``.

    Args:
        pretrained_model: The path of a Chainer-converted ``.npz``; ``'auto'`` (or a
            ``.caffemodel`` name) for ``ResNet-{n}-model.npz`` in the ``pfnet/chainer/models``
            folder of the dataset root (chainlite never downloads or converts: a missing file
            raises FileNotFoundError); None for random weights (He normal).
        downsample_fb (bool): Downsample in the 3x3 convolutions (fb.resnet.torch's variant)
            instead of the first 1x1 convolutions.

    Raises:
        FileNotFoundError: If the weights file does not exist.
"""


class ResNet50Layers(ResNetLayers):
    __doc__ = _DOC.format(n=50) + """
    Example:
        >>> import numpy as np, chainlite
        >>> from chainlite.links.model.vision.resnet import ResNet50Layers
        >>> model = ResNet50Layers(pretrained_model=None)  # doctest: +SKIP
        >>> with chainlite.using_config('train', False):   # doctest: +SKIP
        ...     model(np.zeros((1, 3, 32, 32), np.float32), layers=['pool5'])['pool5'].shape
        (1, 2048)
    """

    def __init__(self, pretrained_model: Optional[str] = 'auto',
                 downsample_fb: bool = False) -> None:
        if pretrained_model == 'auto':
            pretrained_model = 'ResNet-50-model.caffemodel'
        super().__init__(pretrained_model, 50, downsample_fb)


class ResNet101Layers(ResNetLayers):
    __doc__ = _DOC.format(n=101)

    def __init__(self, pretrained_model: Optional[str] = 'auto',
                 downsample_fb: bool = False) -> None:
        if pretrained_model == 'auto':
            pretrained_model = 'ResNet-101-model.caffemodel'
        super().__init__(pretrained_model, 101, downsample_fb)


class ResNet152Layers(ResNetLayers):
    __doc__ = _DOC.format(n=152)

    def __init__(self, pretrained_model: Optional[str] = 'auto',
                 downsample_fb: bool = False) -> None:
        if pretrained_model == 'auto':
            pretrained_model = 'ResNet-152-model.caffemodel'
        super().__init__(pretrained_model, 152, downsample_fb)


# Copying the parameters of Caffe's ResNet (a CaffeFunction of the MSRA model) into
# ResNetLayers, under Chainer's names.

def _transfer_components(src: Any, dst_conv: Any, dst_bn: Any, bname: str, cname: str) -> None:
    # Caffe splits a batch normalization into BatchNorm (statistics) and Scale (gamma, beta).
    suffix = '{}_branch{}'.format(bname, cname)
    src_bn, src_scale = getattr(src, 'bn' + suffix), getattr(src, 'scale' + suffix)
    dst_conv.W.array[:] = getattr(src, 'res' + suffix).W.array
    dst_bn.avg_mean[:] = src_bn.avg_mean
    dst_bn.avg_var[:] = src_bn.avg_var
    dst_bn.gamma.array[:] = src_scale.W.array
    dst_bn.beta.array[:] = src_scale.bias.b.array


def _transfer_bottleneckA(src: Any, dst: Any, name: str) -> None:
    for i, branch in enumerate(('2a', '2b', '2c', '1'), 1):
        _transfer_components(src, getattr(dst, 'conv%d' % i), getattr(dst, 'bn%d' % i), name,
                             branch)


def _transfer_bottleneckB(src: Any, dst: Any, name: str) -> None:
    for i, branch in enumerate(('2a', '2b', '2c'), 1):
        _transfer_components(src, getattr(dst, 'conv%d' % i), getattr(dst, 'bn%d' % i), name,
                             branch)


def _transfer_block(src: Any, dst: Any, names: Sequence[str]) -> None:
    _transfer_bottleneckA(src, dst.a, names[0])
    for i, name in enumerate(names[1:], 1):
        _transfer_bottleneckB(src, getattr(dst, 'b%d' % i), name)


def _transfer_resnet(src: Any, dst: Any, blocks: Sequence[Sequence[str]],
                     conv1_bias: bool) -> None:
    dst.conv1.W.array[:] = src.conv1.W.array
    if conv1_bias:  # only the 50-layer Caffe model has a bias in conv1
        dst.conv1.b.array[:] = src.conv1.b.array
    dst.bn1.avg_mean[:] = src.bn_conv1.avg_mean
    dst.bn1.avg_var[:] = src.bn_conv1.avg_var
    dst.bn1.gamma.array[:] = src.scale_conv1.W.array
    dst.bn1.beta.array[:] = src.scale_conv1.bias.b.array
    for stage, names in zip((dst.res2, dst.res3, dst.res4, dst.res5), blocks):
        _transfer_block(src, stage, names)
    dst.fc6.W.array[:] = src.fc1000.W.array
    dst.fc6.b.array[:] = src.fc1000.b.array


def _numbered(first: str, prefix: str, n: int) -> list[str]:
    # Caffe's names of a stage's blocks in the deep models: '4a', '4b1', '4b2', ...
    return [first] + ['{}{}'.format(prefix, i) for i in range(1, n + 1)]


def _transfer_resnet50(src: Any, dst: Any) -> None:
    _transfer_resnet(src, dst, [['2a', '2b', '2c'], ['3a', '3b', '3c', '3d'],
                                ['4a', '4b', '4c', '4d', '4e', '4f'], ['5a', '5b', '5c']],
                     conv1_bias=True)


def _transfer_resnet101(src: Any, dst: Any) -> None:
    _transfer_resnet(src, dst, [['2a', '2b', '2c'], _numbered('3a', '3b', 3),
                                _numbered('4a', '4b', 22), ['5a', '5b', '5c']],
                     conv1_bias=False)


def _transfer_resnet152(src: Any, dst: Any) -> None:
    _transfer_resnet(src, dst, [['2a', '2b', '2c'], _numbered('3a', '3b', 7),
                                _numbered('4a', '4b', 35), ['5a', '5b', '5c']],
                     conv1_bias=False)



def _make_npz(path_npz: str, path_caffemodel: str, model: Any, n_layers: int) -> Any:
    # Converts the Caffe model at ``path_caffemodel`` (placed there by hand: MSRA's models are
    # not downloaded) to ``path_npz`` and loads it.
    if not os.path.exists(path_caffemodel):
        raise IOError("The pre-trained caffemodel does not exist. Please download it from "
                      "'https://github.com/KaimingHe/deep-residual-networks', and place it on "
                      "{}".format(path_caffemodel))
    return _common.convert_then_load(
        lambda: ResNetLayers.convert_caffemodel_to_npz(path_caffemodel, path_npz, n_layers),
        path_npz, model)


def _retrieve(n_layers: int, name_npz: str, name_caffemodel: str, model: Any) -> Any:
    # Loads the converted model from the model directory, converting the Caffe model beside
    # it if needed.
    root = download.get_dataset_directory(_common.MODEL_DIRECTORY)
    path_caffemodel = os.path.join(root, name_caffemodel)
    return _common.retrieve(
        name_npz, lambda path: _make_npz(path, path_caffemodel, model, n_layers), model)
