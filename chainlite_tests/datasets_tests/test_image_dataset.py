import pickle
import sys
import zipfile

import numpy
import pytest

import chainlite
from chainlite.datasets import ImageDataset
from chainlite.datasets import LabeledImageDataset
from chainlite.datasets import LabeledZippedImageDataset
from chainlite.datasets import MultiZippedImageDataset
from chainlite.datasets import ZippedImageDataset


@pytest.fixture
def no_pillow(monkeypatch):
    # A None entry in sys.modules makes the import fail, as when Pillow is not installed.
    monkeypatch.setitem(sys.modules, 'PIL', None)
    monkeypatch.setitem(sys.modules, 'PIL.Image', None)


@pytest.mark.parametrize('make', [
    lambda: ImageDataset(['a.png']),
    lambda: LabeledImageDataset([('a.png', 0)]),
    lambda: ZippedImageDataset('a.zip'),
    lambda: MultiZippedImageDataset(['a.zip']),
    lambda: LabeledZippedImageDataset('a.zip', 'labels.txt'),
])
def test_missing_pillow_raises_a_clear_error(no_pillow, make):
    with pytest.raises(ImportError, match='needs Pillow.*pip install Pillow'):
        make()


def _write_images(tmp_path):
    Image = pytest.importorskip('PIL.Image')
    rgb = numpy.arange(2 * 3 * 3, dtype=numpy.uint8).reshape(2, 3, 3)  # (height, width, 3)
    grey = numpy.arange(6, dtype=numpy.uint8).reshape(2, 3) * 40
    Image.fromarray(rgb, 'RGB').save(tmp_path / 'rgb.png')
    Image.fromarray(grey, 'L').save(tmp_path / 'grey.png')
    return rgb, grey


def test_image_dataset(tmp_path):
    rgb, grey = _write_images(tmp_path)
    ds = ImageDataset(['rgb.png', 'grey.png'], root=str(tmp_path))
    assert len(ds) == 2
    image = ds[0]
    assert image.shape == (3, 2, 3) and image.dtype == numpy.float32
    numpy.testing.assert_array_equal(image, rgb.transpose(2, 0, 1))
    numpy.testing.assert_array_equal(ds[-1], grey[None])
    assert [x.shape for x in ds[:]] == [(3, 2, 3), (1, 2, 3)]


def test_image_dataset_dtype_and_paths_file(tmp_path):
    rgb, _ = _write_images(tmp_path)
    (tmp_path / 'list.txt').write_text('grey.png\n\nrgb.png\n')
    ds = ImageDataset(str(tmp_path / 'list.txt'), root=str(tmp_path), dtype=numpy.uint8)
    assert len(ds) == 2
    assert ds[0].dtype == numpy.uint8
    numpy.testing.assert_array_equal(ds[1], rgb.transpose(2, 0, 1))
    with chainlite.using_config('dtype', numpy.float64):
        assert ImageDataset(['grey.png'], root=str(tmp_path))[0].dtype == numpy.float64


def test_labeled_image_dataset(tmp_path):
    _, grey = _write_images(tmp_path)
    ds = LabeledImageDataset([('rgb.png', 3), ('grey.png', 7)], root=str(tmp_path))
    image, label = ds[1]
    numpy.testing.assert_array_equal(image, grey[None])
    assert label == 7 and label.dtype == numpy.int32 and label.shape == ()
    (tmp_path / 'pairs.txt').write_text('rgb.png 3\ngrey.png   7\n')
    ds = LabeledImageDataset(str(tmp_path / 'pairs.txt'), root=str(tmp_path),
                             label_dtype=numpy.int64)
    assert len(ds) == 2
    assert ds[0][1] == 3 and ds[0][1].dtype == numpy.int64


def test_labeled_image_dataset_bad_pairs_file(tmp_path):
    pytest.importorskip('PIL.Image')
    (tmp_path / 'pairs.txt').write_text('rgb.png 3\ngrey.png\n')
    with pytest.raises(ValueError, match='line 1 of .*pairs.txt is not "path label"'):
        LabeledImageDataset(str(tmp_path / 'pairs.txt'))


def _zip(path, names, tmp_path):
    with zipfile.ZipFile(path, 'w') as zf:
        zf.writestr('dir/', b'')
        for name in names:
            zf.write(tmp_path / name, name)
    return str(path)


def test_zipped_image_datasets(tmp_path):
    rgb, grey = _write_images(tmp_path)
    first = _zip(tmp_path / 'a.zip', ['rgb.png', 'grey.png'], tmp_path)
    second = _zip(tmp_path / 'b.zip', ['grey.png'], tmp_path)
    ds = ZippedImageDataset(first)
    assert len(ds) == 2
    numpy.testing.assert_array_equal(ds[0], rgb.transpose(2, 0, 1))
    numpy.testing.assert_array_equal(ds['grey.png'], grey[None])
    copy = pickle.loads(pickle.dumps(ds))
    numpy.testing.assert_array_equal(copy[1], grey[None])

    multi = MultiZippedImageDataset([first, second])
    assert len(multi) == 3
    numpy.testing.assert_array_equal(multi[2], grey[None])
    numpy.testing.assert_array_equal(multi[-3], rgb.transpose(2, 0, 1))

    (tmp_path / 'labels.txt').write_text('grey.png 1\nrgb.png 0\n')
    labeled = LabeledZippedImageDataset(first, str(tmp_path / 'labels.txt'))
    image, label = labeled[0]
    numpy.testing.assert_array_equal(image, grey[None])
    assert label == 1 and label.dtype == numpy.int32
