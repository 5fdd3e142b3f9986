"""Arguments passed by torch's names reach ops whose bodies name them otherwise.

torch's parser takes every argument by the name its signature gives it (``input`` for the
first tensor of a function, ``size``, ``dims``, ``dtype``...); ember's bodies sometimes name
a parameter otherwise or take it as ``*args`` (``zeros(*size)``, ``view(self, *shape)``,
``sin_(self)``). The argument layer passes such keywords by position (``_args.body_args``).
Found by the fuzzer's keyword mode (``EMBER_FUZZ_KEYWORDS``); each case runs on both.
"""
import numpy as np
import pytest

from tests.oracle.oracle import check

X = np.arange(6, dtype=np.float64).reshape(2, 3) / 7 + 0.1

CASES = {
    'zeros_size': lambda lib: lib.zeros(size=(2, 3), dtype=lib.float64),
    'ones_size': lambda lib: lib.ones(size=[3]),
    'empty_size_shape': lambda lib: lib.empty(size=(2, 0)),
    'randn_size_shape': lambda lib: lib.randn(size=(4, 1)).shape,
    'arange_end_only': lambda lib: lib.arange(end=4),
    'arange_start_end': lambda lib: lib.arange(start=1, end=4),
    'arange_end_step': lambda lib: lib.arange(0, end=7, step=2),
    'new_ones_size': lambda lib, x: x.new_ones(size=(2,)),
    'new_zeros_size': lambda lib, x: x.new_zeros(size=[1, 2]),
    'view_size': lambda lib, x: x.view(size=(3, 2)),
    'view_dtype': lambda lib, x: x.detach().view(dtype=lib.int64),
    'reshape_shape': lambda lib, x: x.reshape(shape=(6,)),
    'torch_reshape_shape': lambda lib, x: lib.reshape(x, shape=(3, 2)),
    'permute_dims': lambda lib, x: x.permute(dims=(1, 0)),
    'torch_permute_dims': lambda lib, x: lib.permute(x, dims=[1, 0]),
    'tile_dims': lambda lib, x: lib.tile(x, dims=(2, 1)),
    'repeat_repeats': lambda lib, x: x.repeat(repeats=(1, 2)),
    'sum_to_size_size': lambda lib, x: x.sum_to_size(size=(1, 3)),
    'split_copy_split_size': lambda lib, x: lib.split_copy(x, split_size=1),
    'permute_copy_dims': lambda lib, x: lib.permute_copy(x, dims=(1, 0)),
    'swapaxes_names': lambda lib, x: x.swapaxes(axis0=0, axis1=1),
    'tensor_split_indices': lambda lib, x: lib.tensor_split(x, indices=[1], dim=1),
    'hsplit_indices': lambda lib, x: lib.hsplit(x, indices=[1]),
    'in_place_input': lambda lib, x: lib.sin_(input=x.clone()),
    'relu_input': lambda lib, x: lib.relu_(input=x.clone() - 0.3),
    'det_input': lambda lib, x: lib.det(input=x[:, :2]),
    'linalg_norm_input': lambda lib, x: lib.linalg.norm(input=x),
    'hardshrink_input': lambda lib, x: lib.hardshrink(input=x, lambd=0.3),
    'max_other': lambda lib, x: x.max(other=x.flip(0)),
    # a wrong name is still torch's TypeError
    'view_wrong_name': lambda lib, x: x.view(shape=(3, 2)),
    'zeros_wrong_name': lambda lib: lib.zeros(shape=(2,)),
}


@pytest.mark.parametrize('name', sorted(CASES))
def test_torch_names_reach_the_body(name):
    fn = CASES[name]
    if fn.__code__.co_argcount == 1:
        check(fn, match_message=True)
    else:
        check(fn, X, match_message=True)


def test_random_to_by_name_draws_below_it():
    import ember
    t = ember.zeros(100).random_(to=3)
    assert set(t.unique().tolist()) <= {0.0, 1.0, 2.0}
