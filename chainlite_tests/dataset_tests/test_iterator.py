import pytest

from chainlite.dataset import Iterator


class Counting(Iterator):
    def __init__(self, n):
        self.n = n
        self.i = 0
        self.finalized = 0

    def __next__(self):
        if self.i == self.n:
            raise StopIteration
        self.i += 1
        return [self.i]

    def finalize(self):
        self.finalized += 1


def test_iteration_protocol():
    it = Counting(3)
    assert iter(it) is it
    assert it.next() == [1]
    assert next(it) == [2]
    assert list(it) == [[3]]


def test_context_manager_finalizes():
    with Counting(1) as it:
        assert isinstance(it, Counting)
        assert it.finalized == 0
    assert it.finalized == 1


def test_context_manager_finalizes_on_error():
    with pytest.raises(KeyError), Counting(1) as it:
        raise KeyError
    assert it.finalized == 1


def test_garbage_collection_finalizes():
    log = []

    class Logged(Iterator):
        def __next__(self):
            return []

        def finalize(self):
            log.append('finalized')

    it = Logged()
    del it
    assert log == ['finalized']


def test_base_defaults():
    it = Iterator()
    with pytest.raises(NotImplementedError, match='Iterator must implement __next__'):
        next(it)
    with pytest.raises(NotImplementedError):
        it.next()
    it.finalize()
    it.finalize()  # may run several times
    assert it.serialize(object()) is None
