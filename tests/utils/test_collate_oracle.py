"""default_collate / default_convert / collate against torch 2.13: result types, dtypes,
shapes and values for every element kind, the container rules, and the errors."""
import collections

import numpy as np
import pytest

from .data_oracle import check_same, LIBS

Point = collections.namedtuple('Point', 'x y')


class Frozen(collections.abc.Mapping):
    """An immutable mapping (rebuilt by calling its type)."""

    def __init__(self, d):
        self._d = dict(d)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


class NoRebuild(collections.abc.Sequence):
    """An immutable sequence whose constructor refuses a list (-> collated as a list)."""

    def __init__(self, *items):
        if any(isinstance(i, list) for i in items):
            raise TypeError("NoRebuild takes items, not a list")
        self._items = items

    def __getitem__(self, i):
        return self._items[i]

    def __len__(self):
        return len(self._items)


def a(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# Each entry: a function of the library returning a batch (a list of samples).
BATCHES = {
    'tensors_f32': lambda lib: [lib.tensor(a(3, seed=i)) for i in range(4)],
    'tensors_i64_2d': lambda lib: [lib.tensor(np.arange(4).reshape(2, 2) + i) for i in range(3)],
    'tensors_0d_f64': lambda lib: [lib.tensor(float(i), dtype=lib.float64) for i in range(3)],
    'tensors_bool': lambda lib: [lib.tensor([True, False]), lib.tensor([False, False])],
    'arrays_f32': lambda lib: [a(2, 3, seed=i) for i in range(3)],
    'arrays_i16': lambda lib: [np.arange(3, dtype=np.int16) * i for i in range(2)],
    'arrays_bool_0d': lambda lib: [np.array(True), np.array(False)],
    'np_float32': lambda lib: [np.float32(1.5), np.float32(2)],
    'np_int32': lambda lib: [np.int32(1), np.int32(-2)],
    'np_mixed_float': lambda lib: [np.float32(1.5), np.float64(2)],
    'np_uint8': lambda lib: [np.uint8(1), np.uint8(200)],
    'np_bool': lambda lib: [np.bool_(True), np.bool_(False)],
    'floats': lambda lib: [0.5, 1.25, -3.0],
    'ints': lambda lib: [1, -2, 3],
    'bools': lambda lib: [True, False, True],
    'int_then_float': lambda lib: [1, 2.5],
    'strings': lambda lib: ['a', 'bc'],
    'np_strings': lambda lib: [np.str_('a'), np.str_('b')],
    'bytes': lambda lib: [b'a', b'b'],
    'tuples': lambda lib: [(lib.tensor([1.0]), 2, 'x'), (lib.tensor([3.0]), 4, 'y')],
    'lists': lambda lib: [[1, 2.0], [3, 4.0]],
    'dicts': lambda lib: [{'a': lib.tensor([i]), 'b': {'c': float(i), 'd': [i, i]}}
                          for i in range(3)],
    'ordered_dicts': lambda lib: [collections.OrderedDict(z=i, a=[i]) for i in range(2)],
    'frozen_mapping': lambda lib: [Frozen({'k': i}) for i in range(2)],
    'namedtuples': lambda lib: [Point(lib.tensor([i]), float(i)) for i in range(3)],
    'namedtuple_in_dict': lambda lib: [{'p': Point(i, 'n')} for i in range(2)],
    'no_rebuild_sequence': lambda lib: [NoRebuild(1, 2), NoRebuild(3, 4)],
    'nested_arrays_in_tuples': lambda lib: [(a(2, seed=i), {'y': np.int64(i)}) for i in range(2)],
    'single_sample': lambda lib: [(lib.tensor([1, 2]), 0.5)],
    # errors
    'ragged_lists': lambda lib: [[1, 2], [3]],
    'ragged_tuples': lambda lib: [(1, 2), (3, 4, 5)],
    'unequal_tensors': lambda lib: [lib.zeros(2), lib.zeros(3)],
    'unequal_arrays': lambda lib: [np.zeros(2), np.zeros(3)],
    'string_array': lambda lib: [np.array(['a']), np.array(['b'])],
    'object_array': lambda lib: [np.array([object()], dtype=object)] * 2,
    'none': lambda lib: [None, None],
    'object': lambda lib: [Point] * 2,
    'empty': lambda lib: [],
}


@pytest.mark.parametrize('name', BATCHES)
def test_default_collate(name):
    check_same(lambda lib: lib.utils.data.default_collate(BATCHES[name](lib)))


SAMPLES = {
    'array': lambda lib: a(2, 3),
    'int_array': lambda lib: np.arange(3, dtype=np.int32),
    'np_scalar': lambda lib: np.float32(2.5),
    'np_int_scalar': lambda lib: np.int64(7),
    'np_str': lambda lib: np.str_('s'),
    'string_array': lambda lib: np.array(['a', 'b']),
    'tensor': lambda lib: lib.tensor([1.0, 2.0]),
    'python_numbers': lambda lib: [1, 2.5, True],
    'string': lambda lib: 'abc',
    'tuple': lambda lib: (np.arange(2), 'x', 3),
    'namedtuple': lambda lib: Point(np.arange(2), np.float64(1)),
    'dict': lambda lib: {'a': np.ones(2), 'b': [np.zeros(1), 'c']},
    'ordered_dict': lambda lib: collections.OrderedDict(b=np.ones(1), a=2),
    'frozen_mapping': lambda lib: Frozen({'k': np.ones(1)}),
    'no_rebuild_sequence': lambda lib: NoRebuild(np.ones(1), 2),
    'none': lambda lib: None,
}


@pytest.mark.parametrize('name', SAMPLES)
def test_default_convert(name):
    check_same(lambda lib: lib.utils.data.default_convert(SAMPLES[name](lib)))


def test_default_convert_returns_tensors_and_other_objects_themselves():
    for lib in LIBS:
        t, obj = lib.tensor([1.0]), object()
        assert lib.utils.data.default_convert(t) is t
        assert lib.utils.data.default_convert(obj) is obj


def test_default_collate_keeps_the_mutable_mapping_type_and_its_attributes():
    class Tagged(dict):
        pass

    def run(lib):
        samples = [Tagged(x=i) for i in range(2)]
        samples[0].tag = 'first'
        out = lib.utils.data.default_collate(samples)
        return type(out).__name__, out.tag, out['x']

    check_same(run)


def collate_module(lib):
    """Where the general ``collate`` and its default table live in each library."""
    return lib.utils.data._utils.collate if lib.__name__ == 'torch' else lib.utils.data.collate


def test_collate_with_a_custom_map_handles_the_new_type_and_falls_back_for_the_rest():
    class Custom:
        def __init__(self, v):
            self.v = v

    def run(lib):
        module = collate_module(lib)
        table = dict(module.default_collate_fn_map)
        table[Custom] = lambda batch, *, collate_fn_map: sum(c.v for c in batch)
        return module.collate([(Custom(1), 2.0), (Custom(5), 3.0)], collate_fn_map=table)

    assert check_same(run)[0] == 6


def test_collate_without_a_map_rejects_leaves():
    e = check_same(lambda lib: collate_module(lib).collate([(1,), (2,)]))
    assert isinstance(e, TypeError)


def test_stacked_tensors_record_autograd_like_torch():
    def run(lib):
        w = lib.tensor(a(3), requires_grad=True)
        return lib.utils.data.default_collate([w * 2, w + 1])

    out = check_same(run)
    assert out.grad_fn is not None
