"""multinomial against torch: every error (type and message, in torch's order of checks),
result shapes and dtypes, and the sampling itself compared statistically (the streams
differ: ember draws from NumPy's generator)."""
import collections
import math

import numpy as np
import pytest

import ember
from .oracle import check, torch

nan, inf = math.nan, math.inf

# (weights, num_samples, replacement): every case must raise in torch as in ember.
ERRORS = {
    'negative': ([0.5, -0.1, 0.6], 2, False),
    'negative_with_replacement': ([0.5, -0.1, 0.6], 2, True),
    'negative_one_sample_with_replacement': ([0.5, -0.1, 0.6], 1, True),
    'inf': ([0.5, inf, 0.6], 2, False),
    'inf_with_replacement': ([0.5, inf, 0.6], 2, True),
    'minus_inf_with_replacement': ([0.5, -inf, 0.6], 2, True),
    'nan': ([0.5, nan, 0.6], 2, False),
    'nan_with_replacement': ([0.5, nan, 0.6], 2, True),
    'all_zero': ([0., 0., 0.], 2, False),
    'all_zero_with_replacement': ([0., 0., 0.], 2, True),
    'negative_summing_to_zero_with_replacement': ([1., -1.], 2, True),
    'row_with_negative': ([[1., 1.], [1., -1.]], 1, True),
    'row_with_negative_with_replacement': ([[1., 1.], [1., -1.]], 2, True),
    'zero_row': ([[1., 1.], [0., 0.]], 1, True),
    'zero_row_before_negative_row': ([[0., 0.], [1., -1.]], 2, True),
    'negative_row_before_inf_row': ([[1., -1.], [inf, 1.]], 2, True),
    'inf_row_with_replacement': ([[1., 1.], [inf, 0.]], 2, True),
    'more_samples_than_categories': ([1., 1., 1.], 4, False),
    'zero_samples': ([1., 1.], 0, False),
    'negative_samples': ([1., 1.], -1, True),
    'no_categories': ([], 1, True),
    'no_categories_without_replacement': ([], 1, False),
    'rows_without_categories': ([[], []], 1, True),
    'rows_without_categories_with_replacement': ([[], []], 2, True),
    'three_dims': ([[[1., 1.]]], 1, True),
    'zero_dims': (1., 1, True),
}


@pytest.mark.parametrize('name', list(ERRORS))
def test_errors_match_torch(name):
    weights, n, replacement = ERRORS[name]
    check(lambda T, w: T.multinomial(w, n, replacement), np.array(weights, np.float32),
          grad=False, match_message=True)


@pytest.mark.parametrize('dtype', [np.int64, np.bool_, np.complex64])
def test_non_float_weights_are_refused(dtype):
    check(lambda T, w: T.multinomial(w, 1), np.ones(3, dtype), grad=False, match_message=True)


def test_num_samples_must_be_an_int():
    check(lambda T, w: T.multinomial(w, 2.0), np.ones(3, np.float32), grad=False,
          match_message=True)


@pytest.mark.parametrize('shape,n,replacement', [
    ((5,), 3, False), ((5,), 7, True), ((2, 5), 5, False), ((2, 5), 1, True),
    ((0, 3), 2, True), ((3,), 1, False)], ids=str)
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_shape_and_dtype(shape, n, replacement, dtype):
    w = np.ones(shape, dtype)

    def draw(T, w):
        out = T.multinomial(w, n, replacement)
        # the indices differ between the libraries; their range and, without replacement,
        # their distinctness per row do not
        flat = out.reshape(-1, n) if out.numel() else out
        distinct = all(len(set(r.tolist())) == n for r in flat) if out.numel() else True
        return out.shape, out.dtype, bool((out >= 0).all()), bool((out < shape[-1]).all()), \
            replacement or distinct
    check(draw, w, grad=False)


def test_zero_weights_come_last_without_replacement():
    for lib in (ember, torch):
        out = lib.multinomial(lib.tensor([[1., 0., 2., 0.]] * 50), 4).tolist()
        assert all(sorted(r[:2]) == [0, 2] and sorted(r[2:]) == [1, 3] for r in out)


def test_out_argument():
    for lib in (ember, torch):
        out = lib.empty(0, dtype=lib.int64)
        r = lib.multinomial(lib.tensor([0., 1.]), 3, True, out=out)
        assert r is out and out.tolist() == [1, 1, 1]


def _frequencies(counter, total):
    return {k: v / total for k, v in counter.items()}


def test_draws_with_replacement_follow_the_weights_as_torch():
    w = [1., 2., 0., 5.]
    freqs = []
    for lib in (ember, torch):
        out = lib.multinomial(lib.tensor(w), 40000, replacement=True).tolist()
        freqs.append(_frequencies(collections.Counter(out), len(out)))
    assert 2 not in freqs[0] and 2 not in freqs[1]
    for k, p in ((0, 1 / 8), (1, 2 / 8), (3, 5 / 8)):
        assert abs(freqs[0][k] - p) < 0.015 and abs(freqs[1][k] - p) < 0.015


def test_draws_without_replacement_follow_torch():
    # Ordered pairs drawn without replacement: P(i, j) = p_i * p_j / (1 - p_i).
    w = [1., 2., 0., 5.]
    rows = 40000
    freqs = []
    for lib in (ember, torch):
        out = lib.multinomial(lib.tensor([w] * rows), 2).tolist()
        freqs.append(_frequencies(collections.Counter(map(tuple, out)), rows))
    p = np.array(w) / sum(w)
    for i in (0, 1, 3):
        for j in (0, 1, 3):
            if i != j:
                expected = p[i] * p[j] / (1 - p[i])
                assert abs(freqs[0].get((i, j), 0) - expected) < 0.015, (i, j)
                assert abs(freqs[1].get((i, j), 0) - expected) < 0.015, (i, j)


def test_generator_makes_draws_reproducible():
    draws = [ember.multinomial(ember.ones(10), 5, generator=ember.Generator().manual_seed(s))
             .tolist() for s in (3, 3, 4)]
    assert draws[0] == draws[1] != draws[2]
