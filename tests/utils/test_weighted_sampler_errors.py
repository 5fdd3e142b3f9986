"""WeightedRandomSampler with weights multinomial refuses, against torch: the error surfaces
when the sampler is iterated, with torch's type and message."""
import math

import pytest

from .data_oracle import check_same


def data(lib):
    return lib.utils.data


@pytest.mark.parametrize('weights,n,replacement', [
    ([1.0, -0.5, 2.0], 3, True), ([1.0, -0.5, 2.0], 2, False), ([1.0, -0.5], 1, True),
    ([0.0, 0.0], 3, True), ([0.0, 0.0], 1, False), ([1.0, math.inf], 3, True),
    ([1.0, math.inf], 2, False), ([1.0, math.nan], 3, True), ([1.0, math.nan], 1, False),
    ([], 1, True), ([], 1, False), ([1.0, 2.0], 3, False),
], ids=repr)
def test_bad_weights_raise_as_in_torch_when_iterated(weights, n, replacement):
    check_same(lambda lib: len(data(lib).WeightedRandomSampler(weights, n, replacement)))
    check_same(lambda lib: list(data(lib).WeightedRandomSampler(weights, n, replacement)))


def test_zero_weight_indices_come_last_without_replacement():
    def draw(lib):
        out = list(data(lib).WeightedRandomSampler([1.0, 0.0, 3.0, 0.0], 4, False))
        return sorted(out[:2]), sorted(out[2:])
    check_same(draw)
