"""F.pad, F.one_hot, F.normalize, F.cosine_similarity against torch: values, grad_fn
names, first and second derivatives, errors."""
import numpy as np
import pytest

from ..oracle.oracle import check, arr


@pytest.mark.parametrize('shape,pad,value', [
    ((2, 3), (1, 2), None), ((2, 3), (1, 1, 0, 2), 2.5), ((2, 3, 4), (-1, 2), None),
    ((2, 3, 4), (0, 0, -1, -1, 1, 0), None), ((3,), (2, 0), -1.0)])
def test_constant_pad(shape, pad, value):
    check(lambda lib, x: lib.nn.functional.pad(x, pad, value=value), arr(*shape, seed=1),
          double=True)


@pytest.mark.parametrize('mode', ['reflect', 'replicate'])
@pytest.mark.parametrize('shape,pad', [((1, 2, 5), (2, 1)), ((2, 3, 4), (1, 3)),
                                       ((1, 2, 4, 5), (1, 2, 3, 1))])
def test_index_pads(mode, shape, pad):
    check(lambda lib, x: lib.nn.functional.pad(x, pad, mode=mode), arr(*shape, seed=2),
          double=True)


def test_circular_pad_values_and_gradients():
    # (torch's circular pad shows a CopySlices node; ember's a CircularPad node: values and
    # gradients are what is compared)
    import ember
    from ..oracle.oracle import torch
    x = arr(1, 2, 5, seed=3)
    outs = []
    for lib in (ember, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.pad(t, (2, 1), mode='circular')
        (y * lib.tensor(arr(1, 2, 8, seed=4))).sum().backward()
        outs.append((y, t.grad))
    for e, t in zip(outs[0], outs[1]):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize('call', [
    lambda F, x: F.pad(x, (1,)),
    lambda F, x: F.pad(x, (1, 1, 1, 1, 1, 1)),
    lambda F, x: F.pad(x, (1, 1), mode='bogus'),
    lambda F, x: F.pad(x, (3, 0), mode='reflect'),
    lambda F, x: F.pad(x, (1, 1), mode='reflect', value=1.0),
])
def test_pad_errors(call):
    check(lambda lib, x: call(lib.nn.functional, x), arr(2, 3), match_message=True)


@pytest.mark.parametrize('values,num_classes', [([0, 2, 1], -1), ([[0], [3]], 5), ([], 3)])
def test_one_hot(values, num_classes):
    check(lambda lib: lib.nn.functional.one_hot(lib.tensor(values, dtype=lib.int64),
                                                num_classes), grad=False)


@pytest.mark.parametrize('values,num_classes', [([0.0], -1), ([3], 2), ([-1], -1)])
def test_one_hot_errors(values, num_classes):
    check(lambda lib: lib.nn.functional.one_hot(lib.tensor(values), num_classes), grad=False,
          match_message=True)


@pytest.mark.parametrize('p,dim', [(2.0, 1), (1.0, 0), (3.0, -1)])
def test_normalize(p, dim):
    check(lambda lib, x: lib.nn.functional.normalize(x, p, dim), arr(3, 4, seed=5),
          double=True)


def test_normalize_of_a_zero_row_stays_finite():
    x = arr(2, 3, seed=6)
    x[0] = 0
    check(lambda lib, t: lib.nn.functional.normalize(t), x)


@pytest.mark.parametrize('shape1,shape2,dim', [((3, 4), (3, 4), 1), ((2, 3, 4), (1, 3, 4), 2),
                                               ((4,), (4,), 0)])
def test_cosine_similarity(shape1, shape2, dim):
    check(lambda lib, a, b: lib.nn.functional.cosine_similarity(a, b, dim), arr(*shape1, seed=7),
          arr(*shape2, seed=8), double=True)


def test_cosine_similarity_float32():
    check(lambda lib, a, b: lib.nn.functional.cosine_similarity(a, b),
          arr(3, 5, dtype=np.float32, seed=9), arr(3, 5, dtype=np.float32, seed=10))
