"""Dataset helpers for distributed training."""
from chainlite.distributed.datasets.empty_dataset import create_empty_dataset  # noqa: F401
from chainlite.distributed.datasets.scatter import DataSizeError  # noqa: F401
from chainlite.distributed.datasets.scatter import scatter_dataset  # noqa: F401
from chainlite.distributed.datasets.scatter import scatter_index  # noqa: F401
