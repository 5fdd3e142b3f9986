"""DataLoader against torch 2.13.

Deterministic paths -- sequential batching, collation of every kind of sample, custom
samplers / batch samplers / collate functions, ``batch_size=None``, iterable datasets,
``len``, option errors and warnings -- are compared with torch directly. Shuffling cannot
match torch's stream, so it is checked for its semantics: each pass a permutation of all
indices delivered in batch order, reproducible under one seed, different between passes.
"""
import collections

import numpy as np
import pytest

import ember
from .data_oracle import check_same, warnings_of, LIBS
from ..oracle.oracle import arr, torch

Pair = collections.namedtuple('Pair', 'left right')


def DL(lib, dataset, **kw):
    return lib.utils.data.DataLoader(dataset, **kw)


def tds(lib, n=10, grad=False):
    x = lib.tensor(arr(n, 3, dtype=np.float32), requires_grad=grad)
    return lib.utils.data.TensorDataset(x, lib.arange(n), lib.tensor(arr(n, dtype=np.bool_)))


def samples(lib, n=7):
    """A map-style dataset of mixed samples (dicts, tuples, namedtuples, numbers, strings,
    arrays), exercising the per-sample collate path."""
    class Mixed(lib.utils.data.Dataset):
        def __getitem__(self, i):
            return {'x': lib.tensor(arr(2, seed=i)), 'id': i, 'w': i / 2, 'name': f"s{i}",
                    'pair': Pair(np.arange(2) + i, (i % 2 == 0, np.float32(i)))}

        def __len__(self):
            return n
    return Mixed()


def stream(lib, n=7, length=None):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter({'v': i, 'a': np.full(2, i)} for i in range(n))

        def __len__(self):
            return n if length is None else length

        def __repr__(self):
            return f"Stream({n})"
    return Stream()


LOADERS = {
    'tensors_b1': lambda lib: DL(lib, tds(lib)),
    'tensors_b3': lambda lib: DL(lib, tds(lib), batch_size=3),
    'tensors_b3_drop_last': lambda lib: DL(lib, tds(lib), batch_size=3, drop_last=True),
    'tensors_b10': lambda lib: DL(lib, tds(lib), batch_size=10),
    'tensors_b64': lambda lib: DL(lib, tds(lib), batch_size=64),
    'tensors_b64_drop_last': lambda lib: DL(lib, tds(lib), batch_size=64, drop_last=True),
    'tensors_requiring_grad': lambda lib: DL(lib, tds(lib, grad=True), batch_size=4),
    'tensors_no_batching': lambda lib: DL(lib, tds(lib), batch_size=None),
    'one_tensor': lambda lib: DL(lib, lib.utils.data.TensorDataset(lib.arange(5.0)),
                                 batch_size=2),
    'mixed_b3': lambda lib: DL(lib, samples(lib), batch_size=3),
    'mixed_no_batching': lambda lib: DL(lib, samples(lib), batch_size=None),
    'numpy_rows': lambda lib: DL(lib, arr(5, 2), batch_size=2),
    'numpy_rows_no_batching': lambda lib: DL(lib, arr(3, 2), batch_size=None),
    'list_of_floats': lambda lib: DL(lib, [0.5, 1.5, 2.5], batch_size=2),
    'list_of_strings': lambda lib: DL(lib, ['a', 'b', 'c'], batch_size=2),
    'sampler_list': lambda lib: DL(lib, tds(lib), sampler=[9, 0, 4, 4, -1], batch_size=2),
    'sampler_object': lambda lib: DL(lib, tds(lib), batch_size=4,
                                     sampler=lib.utils.data.SequentialSampler(range(6))),
    'batch_sampler': lambda lib: DL(lib, tds(lib), batch_sampler=[[3, 1], [0], [9, 8, 7]]),
    'batch_sampler_object': lambda lib: DL(
        lib, samples(lib), batch_sampler=lib.utils.data.BatchSampler(range(7), 3, True)),
    'numpy_index_sampler': lambda lib: DL(lib, tds(lib), sampler=np.arange(4), batch_size=3),
    'custom_collate': lambda lib: DL(lib, tds(lib), batch_size=4,
                                     collate_fn=lambda b: [len(b), b[0]]),
    'custom_collate_no_batching': lambda lib: DL(lib, tds(lib), batch_size=None,
                                                 collate_fn=lambda s: s[1] * 2),
    'subset': lambda lib: DL(lib, lib.utils.data.Subset(tds(lib), [5, 2, 7]), batch_size=2),
    'subset_tensor_indices': lambda lib: DL(lib, lib.utils.data.Subset(
        tds(lib), lib.tensor([4, 0, 3])), batch_size=2),
    'nested_subset': lambda lib: DL(lib, lib.utils.data.Subset(
        lib.utils.data.Subset(tds(lib), [9, 8, 7, 6]), [3, 0]), batch_size=2),
    'concat': lambda lib: DL(lib, tds(lib, 3) + tds(lib, 2), batch_size=4),
    'stack': lambda lib: DL(lib, lib.utils.data.StackDataset(a=tds(lib), b=samples(lib, 10)),
                            batch_size=4),
    'stream_b3': lambda lib: DL(lib, stream(lib), batch_size=3),
    'stream_b3_drop_last': lambda lib: DL(lib, stream(lib), batch_size=3, drop_last=True),
    'stream_b7_drop_last': lambda lib: DL(lib, stream(lib), batch_size=7, drop_last=True),
    'stream_no_batching': lambda lib: DL(lib, stream(lib), batch_size=None),
    'stream_shuffle_false': lambda lib: DL(lib, stream(lib), batch_size=2, shuffle=False),
    'chain': lambda lib: DL(lib, stream(lib, 2) + stream(lib, 3), batch_size=2),
    'index_error': lambda lib: DL(lib, tds(lib), sampler=[0, 10], batch_size=2),
    'unequal_samples': lambda lib: DL(lib, [[1, 2], [3]], batch_size=2),
}


@pytest.mark.parametrize('name', LOADERS)
def test_batches_and_lengths(name):
    check_same(lambda lib: list(LOADERS[name](lib)))
    check_same(lambda lib: len(LOADERS[name](lib)))
    check_same(lambda lib: len(iter(LOADERS[name](lib))))


@pytest.mark.parametrize('n', [1, 9, 10, 11])
@pytest.mark.parametrize('batch_size', [1, 3, 10, 12, None])
@pytest.mark.parametrize('drop_last', [False, True])
@pytest.mark.parametrize('shuffle', [False, True])
def test_len(n, batch_size, drop_last, shuffle):
    def run(lib):
        loader = DL(lib, tds(lib, n), batch_size=batch_size, drop_last=drop_last,
                    shuffle=shuffle)
        return len(loader), [len(b[0]) if batch_size else 1 for b in loader]
    check_same(run)


@pytest.mark.parametrize('batch_size', [2, 3, None])
@pytest.mark.parametrize('drop_last', [False, True])
def test_len_of_an_iterable_dataset(batch_size, drop_last):
    check_same(lambda lib: len(DL(lib, stream(lib, 7), batch_size=batch_size,
                                  drop_last=drop_last and batch_size is not None)))


def test_len_of_an_iterable_dataset_without_len():
    def run(lib):
        class NoLen(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))
        loader = DL(lib, NoLen(), batch_size=2)
        return list(loader), len(loader)
    check_same(run)


def test_an_iterable_dataset_longer_than_its_len_warns():
    def run(lib):
        loader = DL(lib, stream(lib, 5, length=2), batch_size=1)
        len(loader)
        list(loader)
    e, t = (warnings_of(run, lib) for lib in LIBS)
    assert len(e) == 3 and e == t


def test_getitems_is_used_for_batches():
    def run(lib):
        calls = []

        class Batched(lib.utils.data.Dataset):
            def __getitem__(self, i):
                raise AssertionError("__getitems__ should be used")

            def __getitems__(self, indices):
                calls.append(list(indices))
                return [float(i) for i in indices]

            def __len__(self):
                return 5
        return list(DL(lib, Batched(), batch_size=2)), calls
    check_same(run)


# -- options and their errors ----------------------------------------------------------------
OPTION_ERRORS = [
    dict(num_workers=-1), dict(num_workers=-1, timeout=-1), dict(timeout=-1),
    dict(prefetch_factor=2), dict(prefetch_factor=-1), dict(persistent_workers=True),
    dict(multiprocessing_context='spawn'),
    dict(sampler=[0, 1], shuffle=True),
    dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True),
    dict(batch_sampler=[[0]], sampler=[0]), dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_sampler=[[0]], batch_size=None),
    dict(batch_size=None, drop_last=True), dict(batch_size=0), dict(batch_size=-1),
    dict(batch_size=2.0), dict(batch_size=True), dict(drop_last=1), dict(drop_last=None),
    dict(shuffle=True, generator=None, batch_size=None),
]


@pytest.mark.parametrize('kwargs', OPTION_ERRORS, ids=repr)
def test_options_map_style(kwargs):
    check_same(lambda lib: [type(DL(lib, tds(lib), **kwargs)).__name__])


@pytest.mark.parametrize('kwargs', [dict(shuffle=True), dict(shuffle=1), dict(shuffle=0),
                                    dict(sampler=[0]), dict(batch_sampler=[[0]]),
                                    dict(sampler=[0], shuffle=True),
                                    dict(batch_sampler=[[0]], shuffle=True)], ids=repr)
def test_options_iterable_dataset(kwargs):
    check_same(lambda lib: list(DL(lib, stream(lib, 2), **kwargs)))


def test_worker_option_errors_with_workers():
    check_same(lambda lib: DL(lib, tds(lib), num_workers=2, prefetch_factor=-1))
    check_same(lambda lib: DL(lib, tds(lib), num_workers=2, batch_size=None, drop_last=True))


def test_worker_options_accepted_in_the_main_process():
    def run(lib):
        called = []
        loader = DL(lib, tds(lib, 4), batch_size=2, worker_init_fn=called.append,
                    pin_memory_device='', in_order=False)
        return list(loader), called, lib.utils.data.get_worker_info(), loader.num_workers, \
            loader.prefetch_factor, loader.persistent_workers, loader.timeout
    check_same(run)


def test_timeout_fails_when_iterating_as_in_torch():
    for lib in LIBS:
        loader = DL(lib, tds(lib), timeout=5)
        with pytest.raises(AssertionError, match='timeout'):
            iter(loader)


@pytest.mark.parametrize('device', ['', 'cuda'])
@pytest.mark.filterwarnings("ignore:'pin_memory' argument", "ignore:pin_memory_device")
def test_pin_memory_is_a_no_op_that_warns(device):
    def run(lib):
        return list(DL(lib, tds(lib, 3), batch_size=2, pin_memory=True,
                       pin_memory_device=device))
    check_same(run)
    e, t = (warnings_of(run, lib) for lib in LIBS)
    assert e == t and e


@pytest.mark.parametrize('attr', ['batch_size', 'batch_sampler', 'sampler', 'drop_last',
                                  'dataset', 'persistent_workers', 'collate_fn'])
def test_setting_attributes_after_construction(attr):
    def run(lib):
        loader = DL(lib, tds(lib, 4), batch_size=2)
        setattr(loader, attr, None)
        return getattr(loader, attr)
    check_same(run)


def test_default_attributes():
    def run(lib):
        loader = DL(lib, tds(lib))
        return [type(getattr(loader, a)).__name__ for a in (
            'sampler', 'batch_sampler', 'generator', 'worker_init_fn')] + [
            loader.batch_size, loader.drop_last, loader.num_workers, loader.pin_memory,
            loader.timeout, loader.prefetch_factor, loader.persistent_workers,
            loader.collate_fn.__name__]
    check_same(run)
    check_same(lambda lib: [type(DL(lib, tds(lib), shuffle=True).sampler).__name__,
                            DL(lib, tds(lib), batch_size=None).collate_fn.__name__,
                            DL(lib, tds(lib), batch_sampler=[[0]]).batch_size])


# -- shuffling --------------------------------------------------------------------------------
def epoch_indices(loader):
    """The dataset indices of one pass (the TensorDataset's second tensor is arange)."""
    batches = [b[1].tolist() for b in loader]
    return batches, sum(batches, [])


@pytest.mark.parametrize('n,batch_size,drop_last', [(10, 3, False), (10, 3, True),
                                                    (64, 8, False), (5, 10, False)])
def test_shuffle_gives_a_permutation_each_pass_in_torchs_batch_shape(n, batch_size, drop_last):
    e = DL(ember, tds(ember, n), batch_size=batch_size, drop_last=drop_last, shuffle=True)
    t = DL(torch, tds(torch, n), batch_size=batch_size, drop_last=drop_last,
           shuffle=True)
    passes = []
    for _ in range(3):
        eb, ei = epoch_indices(e)
        tb, _ = epoch_indices(t)
        assert [len(b) for b in eb] == [len(b) for b in tb]
        if drop_last:
            assert len(set(ei)) == len(ei) and set(ei) <= set(range(n))
        else:
            assert sorted(ei) == list(range(n))
        passes.append(ei)
    if n > 5:
        assert passes[0] != passes[1] != passes[2]


def test_shuffled_batches_hold_the_rows_at_their_indices():
    ds = tds(ember, 20)
    for x, i, m in DL(ember, ds, batch_size=6, shuffle=True):
        np.testing.assert_array_equal(x.numpy(), ds.tensors[0].numpy()[i.numpy()])
        np.testing.assert_array_equal(m.numpy(), ds.tensors[2].numpy()[i.numpy()])


def test_shuffle_is_reproducible_with_a_generator():
    def passes(seed, k=2):
        loader = DL(ember, tds(ember, 30), batch_size=4, shuffle=True,
                    generator=ember.Generator().manual_seed(seed))
        return [epoch_indices(loader)[1] for _ in range(k)]
    a, b, c = passes(7), passes(7), passes(8)
    assert a == b and a != c and a[0] != a[1]


def test_shuffle_is_reproducible_under_manual_seed():
    loader = DL(ember, tds(ember, 30), batch_size=4, shuffle=True)
    ember.manual_seed(0)
    first = epoch_indices(loader)[1]
    ember.manual_seed(0)
    assert epoch_indices(loader)[1] == first
    assert epoch_indices(loader)[1] != first


def test_a_loaders_generator_leaves_the_default_stream_alone():
    # True of both libraries: with its own generator, a shuffled pass draws nothing from the
    # default generator.
    for lib in LIBS:
        lib.manual_seed(0)
        expected = lib.rand(3).tolist()
        lib.manual_seed(0)
        list(DL(lib, tds(lib), shuffle=True, generator=lib.Generator().manual_seed(1)))
        assert lib.rand(3).tolist() == expected, lib.__name__


def test_shuffle_without_batching_and_with_samples_of_any_kind():
    loader = DL(ember, samples(ember, 9), batch_size=None, shuffle=True)
    ids = [s['id'] for s in loader]
    assert sorted(ids) == list(range(9))
    loader = DL(ember, samples(ember, 9), batch_size=4, shuffle=True)
    ids = [b['id'].tolist() for b in loader]
    assert [len(b) for b in ids] == [4, 4, 1] and sorted(sum(ids, [])) == list(range(9))


def test_the_tensor_dataset_shortcut_equals_the_per_sample_path():
    # The same shuffled order collated two ways: the loader's shortcut for TensorDataset
    # under default_collate, and default_collate over single samples.
    collate = ember.utils.data.default_collate
    for ds in (tds(ember, 13), ember.utils.data.Subset(tds(ember, 20), list(range(3, 16)))):
        runs = []
        for fn in (None, lambda batch: collate(batch)):
            loader = DL(ember, ds, batch_size=4, shuffle=True, collate_fn=fn,
                        generator=ember.Generator().manual_seed(3))
            runs.append([b for _ in range(2) for b in loader])
        fast, slow = runs
        assert len(fast) == len(slow) == 8
        for f, s in zip(fast, slow):
            assert type(f) is type(s) is list and len(f) == len(s) == 3
            for a, b in zip(f, s):
                assert a.dtype == b.dtype and a.shape == b.shape
                assert a.is_contiguous() and a.grad_fn is None and not a.requires_grad
                np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_the_tensor_dataset_shortcut_does_not_alias_the_dataset():
    ds = tds(ember, 6)
    (x, i, m), = DL(ember, ds, batch_size=6)
    x.add_(1)
    np.testing.assert_array_equal(ds.tensors[0].numpy(), arr(6, 3, dtype=np.float32))


def test_a_torch_function_mode_sees_the_per_sample_calls_torch_makes():
    # (torch's mode also sees its internals: profiler hooks, a seed draw, property reads.)
    def run(lib):
        seen = []

        class Record(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                if func.__name__ in ('__getitem__', 'stack'):
                    seen.append(func.__name__)
                return func(*args, **(kwargs or {}))
        loader = DL(lib, tds(lib, 4), batch_size=2)
        with Record():
            batches = list(loader)
        return batches, seen
    assert len(check_same(run)[1]) == 18
