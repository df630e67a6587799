import numpy
import pytest

from chainlite.datasets import get_cross_validation_datasets
from chainlite.datasets import get_cross_validation_datasets_random
from chainlite.datasets import split_dataset
from chainlite.datasets import split_dataset_n
from chainlite.datasets import split_dataset_n_random
from chainlite.datasets import split_dataset_random
from chainlite.datasets import SubDataset

# The expected subsets below were produced by Chainer 7.8.1 with the same arguments.


def contents(parts):
    return [list(part) for part in parts]


def test_sub_dataset_indexing():
    sub = SubDataset(list(range(10)), 2, 6)
    assert len(sub) == 4
    assert sub[0] == 2 and sub[3] == 5
    assert sub[-1] == 5 and sub[-4] == 2
    assert sub[::-1] == [5, 4, 3, 2]
    assert sub[[0, 3]] == [2, 5]
    assert list(sub) == [2, 3, 4, 5]


@pytest.mark.parametrize('index', [4, -5])
def test_sub_dataset_out_of_range(index):
    sub = SubDataset(list(range(10)), 2, 6)
    with pytest.raises(IndexError):
        sub[index]
    with pytest.raises(IndexError):
        sub.get_example(index)


def test_sub_dataset_get_example_negative():
    assert SubDataset(list(range(10)), 2, 6).get_example(-1) == 5


def test_sub_dataset_with_order():
    sub = SubDataset([10, 11, 12, 13], 1, 3, order=numpy.array([3, 2, 1, 0]))
    assert sub[:] == [12, 11]
    assert sub[numpy.array([1, 0])] == [11, 12]


def test_sub_dataset_empty():
    sub = SubDataset([1, 2], 1, 1)
    assert len(sub) == 0 and sub[:] == []


@pytest.mark.parametrize('start, finish', [(-1, 2), (0, 4), (2, 1)])
def test_sub_dataset_overrun(start, finish):
    with pytest.raises(ValueError, match='overruns'):
        SubDataset([1, 2, 3], start, finish)


def test_sub_dataset_order_of_wrong_length():
    with pytest.raises(ValueError, match='len\\(order\\) = 2 while len\\(dataset\\) = 3'):
        SubDataset([1, 2, 3], 0, 1, order=[0, 1])


def test_split_dataset():
    first, second = split_dataset(list(range(5)), 3)
    assert contents([first, second]) == [[0, 1, 2], [3, 4]]
    first, second = split_dataset(list(range(5)), numpy.int64(0))
    assert contents([first, second]) == [[], [0, 1, 2, 3, 4]]
    first, second = split_dataset(list(range(5)), 5, order=[4, 3, 2, 1, 0])
    assert contents([first, second]) == [[4, 3, 2, 1, 0], []]


def test_split_dataset_errors():
    with pytest.raises(TypeError, match='split_at must be int'):
        split_dataset([1, 2], 1.0)
    with pytest.raises(ValueError, match='non-negative'):
        split_dataset([1, 2], -1)
    with pytest.raises(ValueError, match='exceeds'):
        split_dataset([1, 2], 3)


def test_split_dataset_random_matches_chainer():
    assert contents(split_dataset_random(list(range(10)), 3, seed=0)) == \
        [[2, 8, 4], [9, 1, 6, 7, 3, 0, 5]]
    assert contents(split_dataset_random(list(range(10)), 4, seed=42)) == \
        [[8, 1, 5, 0], [7, 2, 9, 4, 3, 6]]


def test_split_dataset_random_without_seed_is_a_partition():
    first, second = split_dataset_random(list(range(20)), 7)
    assert sorted(list(first) + list(second)) == list(range(20))
    assert len(first) == 7


def test_split_dataset_n():
    assert contents(split_dataset_n(list(range(10)), 3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert contents(split_dataset_n(list(range(4)), 2, order=[3, 2, 1, 0])) == [[3, 2], [1, 0]]
    assert contents(split_dataset_n(list(range(4)), 1)) == [[0, 1, 2, 3]]


def test_split_dataset_n_random_matches_chainer():
    assert contents(split_dataset_n_random(list(range(7)), 3, seed=1)) == \
        [[6, 2], [1, 0], [4, 3]]
    assert contents(split_dataset_n_random(list(range(10)), 3, seed=5)) == \
        [[9, 5, 2], [4, 7, 1], [0, 8, 6]]


@pytest.mark.parametrize('split', [split_dataset_n, split_dataset_n_random])
def test_split_dataset_n_errors(split):
    with pytest.raises(ValueError, match='n must be positive'):
        split([1, 2], 0)
    with pytest.raises(TypeError, match='n must be int'):
        split([1, 2], 2.0)


def test_cross_validation_matches_chainer():
    splits = get_cross_validation_datasets(list(range(7)), 3)
    assert [contents(s) for s in splits] == [
        [[0, 1, 2, 3], [4, 5, 6]], [[4, 5, 6, 0, 1], [2, 3]], [[2, 3, 4, 5, 6], [0, 1]]]
    splits = get_cross_validation_datasets(list(range(10)), 3, order=list(range(9, -1, -1)))
    assert [contents(s) for s in splits] == [
        [[9, 8, 7, 6, 5, 4], [3, 2, 1, 0]],
        [[3, 2, 1, 0, 9, 8, 7], [6, 5, 4]],
        [[6, 5, 4, 3, 2, 1, 0], [9, 8, 7]]]


def test_cross_validation_random_matches_chainer():
    splits = get_cross_validation_datasets_random(list(range(7)), 3, seed=1)
    assert [contents(s) for s in splits] == [
        [[6, 2, 1, 0], [4, 3, 5]], [[4, 3, 5, 6, 2], [1, 0]], [[1, 0, 4, 3, 5], [6, 2]]]
    splits = get_cross_validation_datasets_random(list(range(10)), 4, seed=3)
    assert [contents(s) for s in splits] == [
        [[5, 4, 1, 2, 9, 6, 7], [0, 3, 8]], [[0, 3, 8, 5, 4, 1, 2, 9], [6, 7]],
        [[6, 7, 0, 3, 8, 5, 4], [1, 2, 9]], [[1, 2, 9, 6, 7, 0, 3, 8], [5, 4]]]


@pytest.mark.parametrize('n, n_folds', [(10, 1), (10, 10), (23, 4), (5, 2)])
def test_cross_validation_covers_the_dataset(n, n_folds):
    splits = get_cross_validation_datasets(list(range(n)), n_folds)
    assert len(splits) == n_folds
    tests = [list(test) for _, test in splits]
    assert sorted(sum(tests, [])) == list(range(n))
    assert max(map(len, tests)) - min(map(len, tests)) <= 1
    for train, test in splits:
        assert sorted(list(train) + list(test)) == list(range(n))


def test_cross_validation_deprecated_n_fold():
    with pytest.warns(DeprecationWarning, match='n_fold'):
        splits = get_cross_validation_datasets(list(range(4)), n_fold=2)
    assert len(splits) == 2
    with pytest.warns(DeprecationWarning, match='n_fold'):
        splits = get_cross_validation_datasets_random(list(range(4)), n_fold=4, seed=0)
    assert len(splits) == 4


def test_cross_validation_errors():
    with pytest.raises(ValueError, match='n_folds \\(4\\) exceeds'):
        get_cross_validation_datasets([1, 2, 3], 4)
    with pytest.raises(ValueError, match='positive'):
        get_cross_validation_datasets([1, 2, 3], 0)
    with pytest.raises(TypeError, match='n_folds must be int'):
        get_cross_validation_datasets([1, 2, 3])
    with pytest.raises(TypeError, match='unexpected keyword argument'):
        get_cross_validation_datasets([1, 2, 3], 2, folds=3)
