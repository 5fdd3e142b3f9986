"""Datasets, random_split and samplers against torch 2.13.

Deterministic behaviour (indexing, lengths, split sizes, sequential and batch samplers,
errors and warnings) is compared with torch directly. Random streams differ from torch's, so
random samplers and splits are checked for their semantics: permutations, ranges, counts,
reproducibility under one seed.
"""
import pytest

import ember
from .data_oracle import check_same, warnings_of, LIBS


def data(lib):
    return lib.utils.data


def tds(lib, n=5):
    return data(lib).TensorDataset(lib.arange(n), lib.arange(n * 2.0).reshape(n, 2))


class Stream:
    """An IterableDataset of ``range(n)`` for ``lib``, with a stable repr."""

    def __new__(cls, lib, n=3, length=None):
        class _Stream(data(lib).IterableDataset):
            def __iter__(self):
                return iter(range(n))

            def __len__(self):
                return n if length is None else length

            def __repr__(self):
                return f"Stream({n})"
        return _Stream()


# -- TensorDataset --------------------------------------------------------------------------
@pytest.mark.parametrize('index', [0, 4, -1, slice(1, 3), [0, 2]], ids=repr)
def test_tensor_dataset_indexing(index):
    check_same(lambda lib: tds(lib)[index])


def test_tensor_dataset_length_and_errors():
    check_same(lambda lib: len(tds(lib)))
    check_same(lambda lib: tds(lib)[5])
    check_same(lambda lib: data(lib).TensorDataset(lib.zeros(2), lib.zeros(3)))


# -- Dataset / IterableDataset base classes -------------------------------------------------
def test_abstract_bases():
    check_same(lambda lib: data(lib).Dataset()[0])
    check_same(lambda lib: len(data(lib).Dataset()))
    check_same(lambda lib: data(lib).IterableDataset())


def test_dataset_subclass_with_generic_parameter():
    def run(lib):
        class Squares(data(lib).Dataset[int]):
            def __getitem__(self, i):
                return i * i

            def __len__(self):
                return 3
        both = Squares() + Squares()
        return type(both).__name__, len(both), [both[i] for i in range(-6, 6)]
    check_same(run)


# -- ConcatDataset / ChainDataset / StackDataset / Subset ----------------------------------
def test_concat_dataset():
    def run(lib):
        ds = data(lib).ConcatDataset([tds(lib, 2), tds(lib, 3), tds(lib, 0), tds(lib, 1)])
        return len(ds), ds.cumulative_sizes, [ds[i] for i in range(-6, 6)]
    check_same(run)


@pytest.mark.parametrize('make', [
    lambda lib: data(lib).ConcatDataset([[1, 2]])[-3],
    lambda lib: data(lib).ConcatDataset([[1, 2]])[2],
    lambda lib: data(lib).ConcatDataset([]),
    lambda lib: data(lib).ConcatDataset([[1], Stream(lib)]),
])
def test_concat_dataset_errors(make):
    check_same(make)


def test_chain_dataset():
    def run(lib):
        chained = Stream(lib, 2) + Stream(lib, 3)
        return type(chained).__name__, list(chained), len(chained)
    check_same(run)
    check_same(lambda lib: list(data(lib).ChainDataset([Stream(lib), [1, 2]])))
    check_same(lambda lib: len(data(lib).ChainDataset([Stream(lib), [1, 2]])))


def test_stack_dataset():
    def run(lib):
        pos = data(lib).StackDataset(tds(lib), [10, 11, 12, 13, 14])
        kw = data(lib).StackDataset(x=tds(lib), y=list('abcde'))
        return (len(pos), pos[1], pos.__getitems__([0, 4]), len(kw), kw[2],
                kw.__getitems__([3, 1]))
    check_same(run)


@pytest.mark.parametrize('make', [
    lambda lib: data(lib).StackDataset([1], y=[2]),
    lambda lib: data(lib).StackDataset(),
    lambda lib: data(lib).StackDataset([1, 2], [3]),
    lambda lib: data(lib).StackDataset(x=[1, 2], y=[3]),
])
def test_stack_dataset_errors(make):
    check_same(make)


def test_stack_dataset_checks_what_a_nested_getitems_returns():
    def run(lib):
        class Short(data(lib).Dataset):
            def __getitem__(self, i):
                return i

            def __getitems__(self, indices):
                return indices[:-1]

            def __len__(self):
                return 3
        return data(lib).StackDataset(Short(), [1, 2, 3]).__getitems__([0, 1])
    check_same(run)


def test_subset():
    def run(lib):
        sub = data(lib).Subset(tds(lib), [4, 0, 2])
        inner = data(lib).Subset(list('abcdef'), [5, 1])
        return len(sub), sub[0], sub[-1], sub[[0, 1]], sub.__getitems__([2, 0]), \
            inner.__getitems__([1, 0])
    check_same(run)


def test_subset_subclass_overriding_only_getitem_is_refused():
    def run(lib):
        class Mine(data(lib).Subset):
            def __getitem__(self, i):
                return 0
        return Mine([1], [0])
    check_same(run)


# -- random_split ---------------------------------------------------------------------------
@pytest.mark.parametrize('n,lengths', [
    (10, [3, 7]), (10, [0.3, 0.7]), (10, [0.33, 0.33, 0.34]), (7, [0.5, 0.5]),
    (3, [0.25, 0.25, 0.25, 0.25]), (11, [0.1] * 10), (5, [1.0]), (5, [0, 5]),
])
@pytest.mark.filterwarnings('ignore:Length of split')
def test_random_split_sizes_and_warnings(n, lengths):
    check_same(lambda lib: [len(s) for s in data(lib).random_split(range(n), lengths)])
    e, t = (warnings_of(lambda lib: data(lib).random_split(range(n), lengths), lib)
            for lib in LIBS)
    assert e == t


@pytest.mark.parametrize('lengths', [[3, 3], [0.5, 0.6], [1.5, -0.5], [0.5, 0.4], [11]])
def test_random_split_errors(lengths):
    check_same(lambda lib: data(lib).random_split(range(10), lengths))


def test_random_split_partitions_the_dataset_reproducibly():
    ds = list('abcdefghij')
    splits = ember.utils.data.random_split(ds, [0.5, 0.2, 0.3],
                                           generator=ember.Generator().manual_seed(1))
    parts = [[s[i] for i in range(len(s))] for s in splits]
    assert [len(p) for p in parts] == [5, 2, 3]
    assert sorted(sum(parts, [])) == ds
    assert all(type(s) is ember.utils.data.Subset and s.dataset is ds for s in splits)
    again = ember.utils.data.random_split(ds, [0.5, 0.2, 0.3],
                                          generator=ember.Generator().manual_seed(1))
    assert [s.indices for s in again] == [s.indices for s in splits]
    ember.manual_seed(0)
    first = [s.indices for s in ember.utils.data.random_split(range(50), [25, 25])]
    ember.manual_seed(0)
    assert [s.indices for s in ember.utils.data.random_split(range(50), [25, 25])] == first
    assert [s.indices for s in ember.utils.data.random_split(range(50), [25, 25])] != first


# -- samplers -------------------------------------------------------------------------------
def test_sequential_and_batch_samplers():
    def run(lib):
        d = data(lib)
        seq = d.SequentialSampler(range(7))
        out = [list(seq), len(seq)]
        for bs in (1, 2, 3, 7, 8):
            for drop in (False, True):
                b = d.BatchSampler(seq, bs, drop)
                out += [list(b), len(b)]
        out.append(list(d.BatchSampler(iter(range(5)), 2, False)))  # any iterable
        return out
    check_same(run)


@pytest.mark.parametrize('args', [(0, False), (-1, False), (True, False), (2.0, False),
                                  (2, 1), (2, None)], ids=repr)
def test_batch_sampler_errors(args):
    check_same(lambda lib: data(lib).BatchSampler(range(3), *args))


def test_sampler_base_and_subclasses():
    def run(lib):
        class Evens(data(lib).Sampler[int]):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter(range(0, self.n, 2))
        return list(Evens(7)), list(data(lib).BatchSampler(Evens(7), 3, False))
    check_same(run)
    check_same(lambda lib: next(iter(data(lib).Sampler())))
    check_same(lambda lib: data(lib).Sampler(range(3)))


@pytest.mark.parametrize('kwargs', [
    dict(replacement=1), dict(replacement=None), dict(num_samples=0), dict(num_samples=-2),
    dict(num_samples=2.0), dict(num_samples=True), dict(num_samples=3), dict(replacement=True),
], ids=repr)
def test_random_sampler_arguments(kwargs):
    check_same(lambda lib: (len(s := data(lib).RandomSampler(range(4), **kwargs)),
                            s.num_samples, s.replacement))


def test_random_sampler_of_an_empty_dataset_is_refused():
    check_same(lambda lib: data(lib).RandomSampler([]))


def test_random_sampler_yields_permutations():
    s = ember.utils.data.RandomSampler(range(10), generator=ember.Generator().manual_seed(0))
    first, second = list(s), list(s)
    assert sorted(first) == sorted(second) == list(range(10))
    assert first != second
    assert all(type(i) is int for i in first)


@pytest.mark.parametrize('num_samples', [9, 10, 29])
def test_random_sampler_num_samples_without_replacement(num_samples):
    # torch's rule: whole permutations, then the head of one more.
    for seed in range(4):
        g = ember.Generator().manual_seed(seed)
        out = list(ember.utils.data.RandomSampler(range(10), num_samples=num_samples,
                                                  generator=g))
        assert len(out) == num_samples
        full = num_samples // 10
        for k in range(full):
            assert sorted(out[10 * k:10 * k + 10]) == list(range(10))
        rest = out[10 * full:]
        assert len(set(rest)) == len(rest) == num_samples % 10


def test_random_sampler_with_replacement():
    out = list(ember.utils.data.RandomSampler(range(5), replacement=True, num_samples=400))
    assert len(out) == 400 and set(out) == set(range(5))   # P(an index missing) ~ 1e-38
    assert all(type(i) is int for i in out)


@pytest.mark.parametrize('num_samples', [1, 31, 32, 33, 100])
def test_random_sampler_with_replacement_draws_in_chunks_the_indices_of_one_draw(num_samples):
    # Drawn lazily, 32 at a time (as torch), yet the same indices as one draw of them all.
    s = ember.utils.data.RandomSampler(range(7), replacement=True, num_samples=num_samples,
                                       generator=ember.Generator().manual_seed(4))
    whole = ember.randint(7, (num_samples,), generator=ember.Generator().manual_seed(4))
    assert list(s) == whole.tolist()


def test_random_sampler_with_replacement_is_lazy_for_a_huge_num_samples():
    # torch: len() is num_samples and iteration starts at once (10**10 int64 indices drawn
    # up front would need 75 GiB).
    def first(lib):
        s = data(lib).RandomSampler(range(5), replacement=True, num_samples=10 ** 10)
        it = iter(s)
        head = [next(it) for _ in range(100)]
        return len(s), len(head), all(0 <= i < 5 and type(i) is int for i in head)
    check_same(first)


def test_random_sampler_reproducibility():
    def draw(**kw):
        return list(ember.utils.data.RandomSampler(range(30), **kw))
    g = ember.Generator
    assert draw(generator=g().manual_seed(5)) == draw(generator=g().manual_seed(5))
    assert draw(generator=g().manual_seed(5)) != draw(generator=g().manual_seed(6))
    ember.manual_seed(3)
    a = draw(), draw(replacement=True)
    ember.manual_seed(3)
    assert (draw(), draw(replacement=True)) == a


def test_random_sampler_takes_one_draw_from_the_default_generator_per_pass():
    # Seeds its own stream from the default one (torch's rule), so what follows a pass does
    # not depend on the dataset's size; holds in both libraries.
    for lib in LIBS:
        after = []
        for n in (3, 300):
            lib.manual_seed(0)
            list(data(lib).RandomSampler(range(n)))
            after.append(lib.rand(2).tolist())
        assert after[0] == after[1], lib.__name__


def test_subset_random_sampler():
    idx = [7, 3, 11, 5]
    s = ember.utils.data.SubsetRandomSampler(idx, generator=ember.Generator().manual_seed(2))
    assert len(s) == 4 and sorted(s) == sorted(idx)
    g = ember.Generator
    orders = [list(ember.utils.data.SubsetRandomSampler(range(20), generator=g().manual_seed(k)))
              for k in (1, 1, 2)]
    assert orders[0] == orders[1] != orders[2]
    check_same(lambda lib: len(data(lib).SubsetRandomSampler([4, 5, 6])))


def test_weighted_random_sampler():
    w = [0.0, 2.0, 0.0, 1.0]
    s = ember.utils.data.WeightedRandomSampler(w, 300)
    out = list(s)
    assert len(s) == len(out) == 300 and set(out) == {1, 3}
    no_repeat = list(ember.utils.data.WeightedRandomSampler([1.0, 1, 1, 1, 0.5], 5, False))
    assert sorted(no_repeat) == list(range(5))
    check_same(lambda lib: (data(lib).WeightedRandomSampler([1, 2], 3).weights,
                            len(data(lib).WeightedRandomSampler((1, 2), 7, False))))


@pytest.mark.parametrize('args', [
    ([1.0, 2.0], 0), ([1.0, 2.0], -1), ([1.0, 2.0], True), ([1.0, 2.0], 2.0),
    ([1.0, 2.0], 2, 1), ([[1.0, 2.0]], 2), (5.0, 2),
], ids=repr)
def test_weighted_random_sampler_errors(args):
    check_same(lambda lib: data(lib).WeightedRandomSampler(*args))


def test_weighted_random_sampler_without_replacement_cannot_draw_more_than_it_has():
    check_same(lambda lib: list(data(lib).WeightedRandomSampler([1.0, 2.0], 3, False)))
