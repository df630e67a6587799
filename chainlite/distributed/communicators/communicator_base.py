"""The interface every communicator implements (ChainerMN's ``CommunicatorBase``).

Methods are named after the MPI calls they stand for: ``bcast`` after ``MPI_Bcast`` and so
on. Those without a suffix move NumPy or CuPy arrays; those ending in ``_obj`` move any
picklable Python object. ``bcast_data`` and ``multi_node_mean_grad`` act on a model's parameters.
"""
from __future__ import annotations

import abc
import contextlib
import warnings
from typing import TYPE_CHECKING, Any, Iterator, Optional

if TYPE_CHECKING:
    from chainlite.link import Link


class CommunicatorBase(abc.ABC):
    """Interface of the communicators :func:`~chainlite.distributed.create_communicator` makes.

    Every process of the job calls the collective methods (``bcast``, ``gather``,
    ``allreduce``, ``multi_node_mean_grad``, ...) in the same order; ``send``/``recv`` pair
    up between two processes.

    Attributes:
        rank: This process's rank in the communicator, ``0 .. size - 1``.
        size: The number of processes.
        intra_rank: The rank among the processes on this machine.
        intra_size: The number of processes on this machine.
        inter_rank: The rank of this machine among the machines.
        inter_size: The number of machines.
    """

    _configs: dict = {}

    @property
    @abc.abstractmethod
    def rank(self) -> int:
        """This process's rank."""

    @property
    @abc.abstractmethod
    def size(self) -> int:
        """The number of processes."""

    @property
    @abc.abstractmethod
    def intra_rank(self) -> int:
        """The rank among the processes on this machine."""

    @property
    @abc.abstractmethod
    def intra_size(self) -> int:
        """The number of processes on this machine."""

    @property
    @abc.abstractmethod
    def inter_rank(self) -> int:
        """The rank of this machine."""

    @property
    @abc.abstractmethod
    def inter_size(self) -> int:
        """The number of machines."""

    def set_config(self, name: str, value: Any = True, **kwargs: Any) -> None:
        """Sets a configuration of the communicator.

        Args:
            name: The configuration's name.
            value: Its value.
            kwargs: Unused here; subclasses may take more.

        Raises:
            ValueError: For a name the communicator does not know.
        """
        raise ValueError('%s.set_config: unknown configuration %r'
                         % (type(self).__name__, name))

    def get_config(self, name: Optional[str] = None) -> Any:
        """Returns a configuration's value, or all of them (a dict) when ``name`` is None."""
        configs = self.__dict__.get('_configs', {})
        if name is None:
            return dict(configs)
        if name not in configs:
            raise ValueError('%s.get_config: unknown configuration %r'
                             % (type(self).__name__, name))
        return configs[name]

    @contextlib.contextmanager
    def config_scope(self) -> Iterator[None]:
        """Inside this scope, attributes set on the communicator are recorded as configs."""
        old = self.__dict__.get('_within_config_scope', False)
        self.__dict__['_within_config_scope'] = True
        try:
            yield
        finally:
            self.__dict__['_within_config_scope'] = old

    @property
    def within_config_scope(self) -> bool:
        """True inside :meth:`config_scope`."""
        return self.__dict__.get('_within_config_scope', False)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_config_scope:
            self.__dict__.setdefault('_configs', {})[name] = value
        super().__setattr__(name, value)

    @abc.abstractmethod
    def split(self, color: int, key: int) -> 'CommunicatorBase':
        """Splits the communicator as ``MPI_Comm_split``: equal ``color``, same new group."""

    @abc.abstractmethod
    def alltoall(self, xs: Any) -> tuple:
        """Sends ``xs[i]`` to rank ``i`` and returns what every rank sent to this one."""

    @abc.abstractmethod
    def send(self, data: Any, dest: int, tag: int) -> None:
        """Sends an array, or a tuple of arrays, to rank ``dest``."""

    @abc.abstractmethod
    def recv(self, source: int, tag: int) -> Any:
        """Receives what rank ``source`` sent with :meth:`send`."""

    @abc.abstractmethod
    def bcast(self, x: Any, root: int = 0) -> Any:
        """Returns root's array on every rank."""

    @abc.abstractmethod
    def gather(self, x: Any, root: int = 0) -> Optional[tuple]:
        """Returns every rank's array on root (None elsewhere)."""

    @abc.abstractmethod
    def allgather(self, x: Any) -> tuple:
        """Returns every rank's array on every rank."""

    @abc.abstractmethod
    def allreduce(self, x: Any) -> Any:
        """Returns the sum of every rank's array on every rank."""

    @abc.abstractmethod
    def scatter(self, xs: Any, root: int = 0) -> Any:
        """Returns, on rank ``i``, root's ``xs[i]``."""

    def finalize(self) -> None:
        """Releases what the communicator holds; it must not be used afterwards."""

    @abc.abstractmethod
    def send_obj(self, obj: Any, dest: int, tag: int = 0) -> None:
        """Sends a picklable object to rank ``dest``."""

    @abc.abstractmethod
    def recv_obj(self, source: int, status: Any = None, tag: Any = None) -> Any:
        """Receives an object sent by :meth:`send_obj`."""

    @abc.abstractmethod
    def bcast_obj(self, obj: Any, max_buf_len: Optional[int] = None, root: int = 0) -> Any:
        """Returns root's object on every rank."""

    @abc.abstractmethod
    def gather_obj(self, obj: Any, root: int = 0) -> Optional[list]:
        """Returns the list of every rank's object on root (None elsewhere)."""

    @abc.abstractmethod
    def allreduce_obj(self, obj: Any) -> Any:
        """Returns the sum (``+``) of every rank's object on every rank."""

    @abc.abstractmethod
    def bcast_data(self, model: Link) -> None:
        """Overwrites the parameters of ``model`` on every rank with those of rank 0."""

    def broadcast_data(self, model: Link) -> None:
        """The old name of :meth:`bcast_data`."""
        self.bcast_data(model)

    @abc.abstractmethod
    def multi_node_mean_grad(self, model: Link, zero_fill: bool = False) -> None:
        """Replaces every parameter gradient of ``model`` by its mean over the ranks."""

    def allreduce_grad(self, model: Link, zero_fill: bool = False) -> None:
        """Deprecated name of :meth:`multi_node_mean_grad` (it warns, then calls it).

        Args:
            model: The link whose gradients are averaged.
            zero_fill: See :meth:`multi_node_mean_grad`.
        """
        warnings.warn('allreduce_grad() is deprecated; use multi_node_mean_grad()',
                      DeprecationWarning, stacklevel=2)
        self.multi_node_mean_grad(model, zero_fill)

    # A communicator without a watch (see chainlite.distributed._stopping) checks nothing
    # before its collective calls; MpiCommunicatorBase overrides these.

    def _sync(self, what: str, key: int = 0, check: int = 0, describe: Any = None,
              detail: Any = None, explain: Any = None, error: type = RuntimeError) -> None:
        pass

    def _sync_grads(self, model: Link, params: list, what: str, key: int = 0,
                    describe: Any = None) -> None:
        pass

    def _mean_grad(self, model: Link, zero_fill: bool, what: str, key: int = 0,
                   describe: Any = None) -> None:
        self.multi_node_mean_grad(model, zero_fill)
