"""Dataset building blocks: DatasetMixin, Iterator, concat_examples, converters, downloads."""
from chainlite.dataset import convert  # noqa: F401
from chainlite.dataset import dataset_mixin  # noqa: F401
from chainlite.dataset import iterator  # noqa: F401
from chainlite.dataset.convert import concat_examples  # noqa: F401
from chainlite.dataset.convert import converter  # noqa: F401
from chainlite.dataset.convert import Converter  # noqa: F401
from chainlite.dataset.convert import to_device  # noqa: F401
from chainlite.dataset.dataset_mixin import DatasetMixin  # noqa: F401
from chainlite.dataset.iterator import Iterator  # noqa: F401
from chainlite.dataset import download  # noqa: F401
from chainlite.dataset.download import cache_or_load_file  # noqa: F401
from chainlite.dataset.download import cached_download  # noqa: F401
from chainlite.dataset.download import get_dataset_directory  # noqa: F401
from chainlite.dataset.download import get_dataset_root  # noqa: F401
from chainlite.dataset.download import set_dataset_root  # noqa: F401
from chainlite.dataset import tabular  # noqa: F401
from chainlite.dataset.tabular import TabularDataset  # noqa: F401
