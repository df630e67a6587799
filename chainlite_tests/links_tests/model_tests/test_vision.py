"""The ImageNet models: Chainer's link names and parameter shapes, forward on small inputs,
prepare / extract / predict, loading converted weights, clear errors without weights.

Building VGG (138M parameters) or ResNet-101/152 with random weights takes seconds of random
draws; the fast tests build them with zero weights (the initializers patched) to check the
architecture, and the ``slow`` tests build them as users do and run 224x224 inputs.
"""
import os

import numpy
import pytest

import chainlite
import chainlite.links as L
from chainlite import initializers
from chainlite import serializers
from chainlite.dataset import download
from chainlite.links.model.vision import _common
from chainlite.links.model.vision import googlenet
from chainlite.links.model.vision import resnet
from chainlite.links.model.vision import vgg


@pytest.fixture
def zero_init(monkeypatch):
    """Random initializers replaced by zeros in the model modules: fast architecture tests."""
    for module, name in ((vgg, 'Normal'), (resnet, 'HeNormal')):
        monkeypatch.setattr(module.initializers, name,
                            lambda *args, **kwargs: initializers.Zero())


def _shapes(model):
    return {name: p.shape for name, p in model.namedparams()}


@pytest.mark.parametrize('cls, n_layers, extra', [
    (L.VGG16Layers, 16, ()), (L.VGG19Layers, 19, ('conv3_4', 'conv4_4', 'conv5_4'))])
def test_vgg_architecture(zero_init, cls, n_layers, extra):
    model = cls(pretrained_model=None)
    shapes = _shapes(model)
    assert len(shapes) == 2 * (n_layers)
    assert shapes['/conv1_1/W'] == (64, 3, 3, 3)
    assert shapes['/conv5_3/W'] == (512, 512, 3, 3)
    assert shapes['/fc6/W'] == (4096, 25088) and shapes['/fc8/b'] == (1000,)
    for name in extra:
        assert name in model.available_layers
    assert len(model.available_layers) == {16: 22, 19: 25}[n_layers]
    assert model.available_layers[-4:] == ['fc6', 'fc7', 'fc8', 'prob']
    with chainlite.using_config('train', False):
        out = model(numpy.ones((1, 3, 32, 32), numpy.float32), layers=['pool1', 'pool5'])
    assert out['pool1'].shape == (1, 64, 16, 16) and out['pool5'].shape == (1, 512, 1, 1)


@pytest.mark.parametrize('cls, blocks', [(L.ResNet50Layers, (3, 4, 6, 3)),
                                         (L.ResNet101Layers, (3, 4, 23, 3)),
                                         (L.ResNet152Layers, (3, 8, 36, 3))])
def test_resnet_architecture(zero_init, cls, blocks):
    model = cls(pretrained_model=None)
    for stage, n in zip(('res2', 'res3', 'res4', 'res5'), blocks):
        block = getattr(model, stage)
        assert block._forward == ['a'] + ['b%d' % i for i in range(1, n)]
    shapes = _shapes(model)
    assert shapes['/conv1/W'] == (64, 3, 7, 7) and shapes['/conv1/b'] == (64,)
    assert shapes['/res2/a/conv4/W'] == (256, 64, 1, 1)
    assert shapes['/res5/b2/conv3/W'] == (2048, 512, 1, 1)
    assert shapes['/fc6/W'] == (1000, 2048)
    assert model.available_layers == ['conv1', 'pool1', 'res2', 'res3', 'res4', 'res5',
                                      'pool5', 'fc6', 'prob']


def test_resnet50_forward_small_batch():
    model = L.ResNet50Layers(pretrained_model=None)
    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 3, 32, 32)).astype(numpy.float32)
    with chainlite.using_config('train', False):
        out = model(x, layers=['res3', 'pool5', 'prob'])
    assert out['res3'].shape == (2, 512, 4, 4) and out['pool5'].shape == (2, 2048)
    prob = out['prob'].array
    assert prob.shape == (2, 1000) and prob.dtype == numpy.float32
    numpy.testing.assert_allclose(prob.sum(axis=1), 1, rtol=1e-5)


def test_resnet_downsample_fb_moves_the_stride():
    a = resnet.BottleneckA(8, 4, 16, stride=2, downsample_fb=True)
    b = resnet.BottleneckA(8, 4, 16, stride=2)
    x = numpy.ones((1, 8, 6, 6), numpy.float32)
    assert a(x).shape == b(x).shape == (1, 16, 3, 3)
    assert a.conv1.stride == (1, 1) and a.conv2.stride == (2, 2)
    assert b.conv1.stride == (2, 2) and b.conv2.stride == (1, 1)


def test_resnet_copy_keeps_functions_bound():
    model = L.ResNet50Layers(pretrained_model=None)
    copied = model.copy()
    assert copied.functions['conv1'][0] is copied.conv1
    assert copied.res2.a is getattr(copied.res2, copied.res2._forward[0])


def test_googlenet_architecture_and_branches():
    model = L.GoogLeNet(pretrained_model=None)
    assert len(model.available_layers) == 21
    assert model.available_layers[-3:] == ['prob', 'loss1_fc2', 'loss2_fc2']
    shapes = _shapes(model)
    assert shapes['/conv1/W'] == (64, 3, 7, 7)
    assert shapes['/inc4e/conv5/W'] == (128, 32, 5, 5)
    assert shapes['/loss1_fc1/W'] == (1024, 2048) and shapes['/loss3_fc/W'] == (1000, 1024)
    with chainlite.using_config('train', False):
        out = model(numpy.ones((1, 3, 64, 64), numpy.float32),
                    layers=['inception_3b', 'pool4'])
    assert out['inception_3b'].shape == (1, 480, 8, 8)
    assert out['pool4'].shape == (1, 832, 2, 2)


def test_unknown_layer_and_removed_arguments():
    model = L.GoogLeNet(pretrained_model=None)
    with pytest.raises(ValueError, match='unknown layers'):
        model(numpy.ones((1, 3, 64, 64), numpy.float32), layers=['fc9'])
    with pytest.raises(ValueError, match='using_config'):
        model(numpy.ones((1, 3, 64, 64), numpy.float32), layers=['conv1'], train=False)


def test_load_converted_weights_from_a_path(tmp_path):
    source = L.GoogLeNet(pretrained_model=None)
    path = str(tmp_path / 'googlenet.npz')
    serializers.save_npz(path, source, compression=False)
    loaded = L.GoogLeNet(pretrained_model=path)
    for (name, p), (_, q) in zip(source.namedparams(), loaded.namedparams()):
        numpy.testing.assert_array_equal(p.array, q.array, err_msg=name)


def test_missing_weights_are_a_clear_error(tmp_path, monkeypatch):
    missing = str(tmp_path / 'nope.npz')
    with pytest.raises(FileNotFoundError, match='nope.npz'):
        L.ResNet50Layers(pretrained_model=missing)
    monkeypatch.setattr(download, 'get_dataset_root', lambda: str(tmp_path))
    with pytest.raises(FileNotFoundError, match='does not download'):
        L.GoogLeNet()
    with pytest.raises(FileNotFoundError, match='ResNet-50-model.npz'):
        L.ResNet50Layers()
    assert not os.path.exists(tmp_path / 'pfnet')   # nothing created either


def test_auto_loads_from_the_model_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(download, 'get_dataset_root', lambda: str(tmp_path))
    source = L.GoogLeNet(pretrained_model=None)
    folder = tmp_path / 'pfnet' / 'chainer' / 'models'
    folder.mkdir(parents=True)
    serializers.save_npz(str(folder / 'bvlc_googlenet.npz'), source, compression=False)
    loaded = L.GoogLeNet()
    numpy.testing.assert_array_equal(loaded.conv1.W.array, source.conv1.W.array)


@pytest.mark.parametrize('module', [vgg, resnet, googlenet])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_prepare(module, dtype):
    rng = numpy.random.RandomState(0)
    with chainlite.using_config('dtype', dtype):
        cases = [(rng.uniform(0, 255, (32, 24, 3)).astype(numpy.uint8), {}, (3, 224, 224)),
                 (rng.uniform(0, 255, (32, 24)).astype(numpy.uint8), {}, (3, 224, 224)),
                 (rng.uniform(0, 255, (16, 12, 3)).astype(dtype), {'size': None},
                  (3, 16, 12)),
                 (rng.uniform(0, 255, (1, 16, 12)).astype(dtype), {}, (3, 224, 224)),
                 (rng.uniform(0, 255, (3, 16, 12)).astype(numpy.uint8), {'size': (8, 6)},
                  (3, 6, 8))]
        for image, kwargs, shape in cases:
            y = module.prepare(image, **kwargs)
            assert y.shape == shape and y.dtype == dtype


def test_prepare_values():
    image = numpy.zeros((2, 3, 3), numpy.uint8)
    image[..., 0] = 200   # red
    y = vgg.prepare(image, size=None)
    numpy.testing.assert_allclose(y[:, 0, 0], [-103.939, -116.779, 200 - 123.68], rtol=1e-6)
    with pytest.raises(ValueError, match='prepare'):
        vgg.prepare(numpy.zeros((2, 3, 5), numpy.uint8))


def test_resize_without_pillow_is_bilinear():
    image = numpy.array([[0, 100], [100, 200]], numpy.uint8)
    rgb = numpy.repeat(image[:, :, None], 3, axis=2)
    out = _common._resize_bilinear(rgb, 4, 4)[:, :, 0]
    assert out[0, 0] == 0 and out[-1, -1] == 200
    numpy.testing.assert_array_equal(out, out.T)
    assert (numpy.diff(out.astype(int), axis=1) >= 0).all()


def test_oversample_crops():
    x = numpy.arange(2 * 1 * 4 * 5, dtype=numpy.float32).reshape(2, 1, 4, 5)
    crops = _common.oversample(x, (2, 3))
    assert crops.shape == (20, 1, 2, 3)
    numpy.testing.assert_array_equal(crops[0], x[0, :, :2, :3])
    numpy.testing.assert_array_equal(crops[4], x[0, :, 1:3, 1:4])
    numpy.testing.assert_array_equal(crops[5], x[0, :, :2, :3][:, :, ::-1])
    numpy.testing.assert_array_equal(crops[10], x[1, :, :2, :3])


def test_extract_with_resnet50():
    model = L.ResNet50Layers(pretrained_model=None)
    images = [numpy.random.RandomState(0).uniform(0, 255, (40, 30)).astype(numpy.uint8)]
    with chainlite.using_config('train', False):
        out = model.extract(images, layers=['res2', 'pool5'], size=None)
    assert out['res2'].shape == (1, 256, 10, 7) and out['pool5'].shape == (1, 2048)


@pytest.mark.slow
@pytest.mark.parametrize('cls', [L.VGG16Layers, L.VGG19Layers])
def test_vgg_full(cls):
    model = cls(pretrained_model=None)
    x = numpy.random.RandomState(0).uniform(-1, 1, (1, 3, 224, 224)).astype(numpy.float32)
    with chainlite.using_config('train', False):
        assert model(x)['prob'].shape == (1, 1000)
    images = [numpy.random.RandomState(1).uniform(0, 255, (64, 48, 3)).astype(numpy.uint8)]
    out = model.extract(images, layers=['pool3', 'fc7'])
    assert out['pool3'].shape == (1, 256, 28, 28) and out['fc7'].shape == (1, 4096)
    assert model.predict(images, oversample=False).shape == (1, 1000)


@pytest.mark.slow
@pytest.mark.parametrize('cls', [L.ResNet50Layers, L.ResNet101Layers, L.ResNet152Layers])
def test_resnet_full(cls):
    model = cls(pretrained_model=None)
    images = [numpy.random.RandomState(1).uniform(0, 255, (64, 48, 3)).astype(numpy.uint8)]
    y = model.predict(images, oversample=True)
    assert y.shape == (1, 1000)
    numpy.testing.assert_allclose(y.array.sum(), 1, rtol=1e-4)


@pytest.mark.slow
def test_googlenet_full():
    model = L.GoogLeNet(pretrained_model=None)
    images = [numpy.random.RandomState(1).uniform(0, 255, (64, 48, 3)).astype(numpy.uint8)]
    assert model.predict(images, oversample=False).shape == (1, 1000)
    with chainlite.using_config('train', False):
        out = model.extract(images, layers=['loss1_fc2', 'loss2_fc2', 'prob'])
    assert {k: v.shape for k, v in out.items()} == {
        'loss1_fc2': (1, 1000), 'loss2_fc2': (1, 1000), 'prob': (1, 1000)}
