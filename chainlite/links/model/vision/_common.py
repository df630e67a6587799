"""What the ImageNet models share: image preparation, layer-by-layer forward, extract and
predict, and loading converted weights."""
from __future__ import annotations

import os
import sys
from typing import Any, Callable, Optional, Sequence

import numpy

from chainlite import configuration
from chainlite import variable
from chainlite.dataset import download
from chainlite.functions.array import reshape
from chainlite.functions.math import sum as sum_mod
from chainlite.serializers import npz

MODEL_DIRECTORY = 'pfnet/chainer/models/'


def _pillow() -> Any:
    try:
        from PIL import Image
    except ImportError:
        return None
    return Image


def _to_rgb(image: Any) -> numpy.ndarray:
    # An (H, W, 3) uint8 array from an image, as Pillow's convert('RGB') gives.
    Image = _pillow()
    if Image is not None and isinstance(image, Image.Image):
        return numpy.asarray(image.convert('RGB'))
    image = numpy.asarray(image)
    if image.ndim == 3 and image.shape[0] == 1:
        image = image[0]
    elif image.ndim == 3 and image.shape[0] == 3:
        image = image.transpose(1, 2, 0)
    if image.ndim == 2:
        image = numpy.repeat(image[:, :, None], 3, axis=2)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError('prepare: an image must be (H, W), (H, W, 3), (1, H, W) or '
                         '(3, H, W), got shape %s' % (image.shape,))
    return image[:, :, :3].astype(numpy.uint8)


def _resize_bilinear(image: numpy.ndarray, width: int, height: int) -> numpy.ndarray:
    # Bilinear resampling with pixel centres aligned, for when Pillow is not installed.
    h, w = image.shape[:2]
    ys = numpy.clip((numpy.arange(height) + 0.5) * h / height - 0.5, 0, h - 1)
    xs = numpy.clip((numpy.arange(width) + 0.5) * w / width - 0.5, 0, w - 1)
    y0 = numpy.floor(ys).astype(numpy.intp)
    x0 = numpy.floor(xs).astype(numpy.intp)
    y1 = numpy.minimum(y0 + 1, h - 1)
    x1 = numpy.minimum(x0 + 1, w - 1)
    wy = (ys - y0)[:, None, None]
    wx = (xs - x0)[None, :, None]
    img = image.astype(numpy.float64)
    top = img[y0][:, x0] * (1 - wx) + img[y0][:, x1] * wx
    bottom = img[y1][:, x0] * (1 - wx) + img[y1][:, x1] * wx
    return numpy.clip(numpy.rint(top * (1 - wy) + bottom * wy), 0, 255).astype(numpy.uint8)


def prepare_image(image: Any, size: Any, mean_bgr: Sequence[float]) -> numpy.ndarray:
    """The model input for one image: RGB, resized, BGR, mean subtracted, ``(3, H, W)``."""
    Image = _pillow()
    rgb = _to_rgb(image)
    if size:
        width, height = size  # Pillow's order, as Chainer passes it on
        if Image is not None:
            rgb = numpy.asarray(Image.fromarray(rgb).resize((width, height)))
        else:
            rgb = _resize_bilinear(rgb, width, height)
    dtype = configuration.get_dtype()
    out = rgb[:, :, ::-1].astype(dtype)
    out -= numpy.array(mean_bgr, dtype=dtype)
    return out.transpose(2, 0, 1)


def oversample(images: numpy.ndarray, crop_dims: Sequence[int]) -> numpy.ndarray:
    """Ten crops of each image of a ``(N, C, H, W)`` batch: the four corners and the centre,
    and their mirror images; ``(10 N, C, h, w)``, the ten crops of an image adjacent."""
    n, c, h, w = images.shape
    ch, cw = crop_dims
    starts = [(0, 0), (0, w - cw), (h - ch, 0), (h - ch, w - cw),
              ((h - ch) // 2, (w - cw) // 2)]
    crops = [images[:, :, y:y + ch, x:x + cw] for y, x in starts]
    crops += [crop[:, :, :, ::-1] for crop in crops]
    return numpy.stack(crops, axis=1).reshape(n * 10, c, ch, cw)


def forward_layers(functions: Any, x: Any, layers: Optional[Sequence[str]],
                   name: str) -> dict:
    """Runs ``functions`` in order until every layer in ``layers`` has been computed."""
    layers = ['prob'] if layers is None else layers
    unknown = [layer for layer in layers if layer not in functions]
    if unknown:
        raise ValueError('%s: unknown layers %s; available: %s'
                         % (name, unknown, list(functions)))
    activations = {}
    targets = set(layers)
    h = x
    for key, funcs in functions.items():
        if not targets:
            break
        for func in funcs:
            h = func(h)
        if key in targets:
            activations[key] = h
            targets.remove(key)
    return activations


def reject_removed_arguments(name: str, kwargs: dict) -> None:
    if 'test' in kwargs or 'train' in kwargs or 'volatile' in kwargs:
        raise ValueError("%s: the arguments train, test and volatile are not supported "
                         "anymore; use chainlite.using_config('train', ...) and "
                         "chainlite.no_backprop_mode()" % name)
    if kwargs:
        raise TypeError('%s got unexpected keyword arguments %s' % (name, sorted(kwargs)))


def extract(model: Any, prepare: Callable, images: Sequence[Any], layers: Sequence[str],
            size: Any) -> dict:
    x = numpy.stack([prepare(image, size=size) for image in images])
    return model(variable.Variable(model.device.send(x)), layers=layers)


def predict(model: Any, prepare: Callable, images: Sequence[Any], oversample_: bool) -> Any:
    x = numpy.stack([prepare(image, size=(256, 256)) for image in images])
    x = oversample(x, (224, 224)) if oversample_ else x[:, :, 16:240, 16:240]
    x = model.device.send(x)  # (prepared on the host, as Chainer)
    with configuration.no_backprop_mode(), configuration.using_config('train', False):
        y = model(variable.Variable(x), layers=['prob'])['prob']
        if oversample_:
            y = reshape.reshape(y, (len(y) // 10, 10) + y.shape[1:])
            y = sum_mod.sum(y, axis=1) / 10
    return y


def load_pretrained(model: Any, pretrained_model: Any, npz_name: str) -> None:
    """Loads Chainer-converted weights: from ``pretrained_model`` if it is a path, from the
    model directory of the dataset root for ``'auto'``. Never downloads."""
    name = type(model).__name__
    if pretrained_model == 'auto' or str(pretrained_model).endswith('.caffemodel'):
        path = os.path.join(download.get_dataset_directory(MODEL_DIRECTORY, False), npz_name)
        if not os.path.exists(path):
            raise FileNotFoundError(
                '%s: pretrained_model=%r loads %s, which does not exist. chainlite does not '
                'download or convert Caffe models on its own: convert one with '
                '%s.convert_caffemodel_to_npz (it needs the protobuf package) and put the '
                '.npz there or pass its path, or pass pretrained_model=None for random weights'
                % (name, pretrained_model, path, name))
    else:
        path = os.fspath(pretrained_model)
        if not os.path.exists(path):
            raise FileNotFoundError('%s: the pretrained_model file %r does not exist (pass a '
                                    'Chainer-converted .npz, or None for random weights)'
                                    % (name, path))
    npz.load_npz(path, model)


def retrieve(name_npz: str, make_npz: Callable[[str], Any], model: Any) -> Any:
    """Loads ``name_npz`` from the model directory into ``model``; if it is not there yet,
    ``make_npz(path)`` makes it (converting a Caffe model) and loads it (Chainer's
    ``_retrieve``). Returns what ``make_npz`` returned, or None when the file was there, as
    Chainer does."""
    root = download.get_dataset_directory(MODEL_DIRECTORY)
    return download.cache_or_load_file(os.path.join(root, name_npz), make_npz,
                                       lambda path: npz.load_npz(path, model))


def convert_then_load(convert: Callable[[], None], path_npz: str, model: Any) -> Any:
    """Runs the Caffe conversion ``convert()`` that writes ``path_npz``, then loads it into
    ``model`` (Chainer's ``_make_npz``). Returns ``model``."""
    sys.stderr.write('Now loading caffemodel (usually it may take few minutes)\n')
    sys.stderr.flush()
    convert()
    npz.load_npz(path_npz, model)
    return model
