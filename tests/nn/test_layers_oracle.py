"""Dropout, LayerNorm and Embedding (modules and functional forms) against torch: values,
first and second derivatives, reprs, errors; dropout's randomness by its properties."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check, assert_same_tensor


# -- layer_norm ----------------------------------------------------------------------------
@pytest.mark.parametrize('shape,normalized', [((4, 5), (5,)), ((2, 3, 4), (3, 4)), ((6,), [6])])
@pytest.mark.parametrize('affine', [True, False])
def test_layer_norm_values_and_derivatives(shape, normalized, affine):
    nshape = tuple(normalized)
    if affine:
        check(lambda lib, x, w, b: lib.nn.functional.layer_norm(x, normalized, w, b, 1e-3),
              arr(*shape, seed=1), arr(*nshape, seed=2), arr(*nshape, seed=3), double=True)
    else:
        check(lambda lib, x: lib.nn.functional.layer_norm(x, normalized),
              arr(*shape, seed=1), double=True)


def test_layer_norm_float32_module():
    def f(lib, x):
        m = lib.nn.LayerNorm(4)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(arr(4, dtype=np.float32, seed=5)))
        return m(x)
    check(f, arr(3, 4, dtype=np.float32, seed=4))


@pytest.mark.parametrize('call', [
    lambda lib, x: lib.nn.functional.layer_norm(x, (4,)),
    lambda lib, x: lib.nn.functional.layer_norm(x, 5),
    lambda lib, x: lib.nn.functional.layer_norm(x, (2, 5)),
    lambda lib, x: lib.nn.functional.layer_norm(x, (5,), lib.ones(4, dtype=lib.float64)),
    lambda lib, x: lib.nn.functional.layer_norm(x, (5,), None, lib.ones(3, dtype=lib.float64)),
])
def test_layer_norm_errors(call):
    check(call, arr(2, 5), match_message=True)


# -- embedding -----------------------------------------------------------------------------
@pytest.mark.parametrize('kw', [{}, {'padding_idx': 1}, {'padding_idx': -2},
                                {'scale_grad_by_freq': True},
                                {'padding_idx': 0, 'scale_grad_by_freq': True}])
def test_embedding_values_and_derivatives(kw):
    idx = np.array([[1, 2, 1], [0, 5, 1]])
    check(lambda lib, w: lib.nn.functional.embedding(lib.tensor(idx), w, **kw),
          arr(6, 3, seed=2), double=True)


def test_embedding_max_norm_renormalises_the_looked_up_rows_in_place():
    results = []
    for lib in (ember, torch):
        w = lib.tensor(arr(5, 3, seed=1) * 3)
        out = lib.nn.functional.embedding(lib.tensor([0, 2, 2]), w, max_norm=1.5)
        results.append((w, out))
    assert_same_tensor(results[0][0], results[1][0], 'weight after renorm')
    assert_same_tensor(results[0][1], results[1][1], 'output')


@pytest.mark.parametrize('call', [
    lambda lib, w: lib.nn.functional.embedding(lib.tensor([6]), w),
    lambda lib, w: lib.nn.functional.embedding(lib.tensor([-1]), w),
    lambda lib, w: lib.nn.functional.embedding(lib.tensor([1.0]), w),
    lambda lib, w: lib.nn.functional.embedding([1], w),
])
def test_embedding_errors(call):
    check(call, arr(6, 3), match_message=True)


def test_embedding_module_padding_row_and_from_pretrained():
    for lib in (ember, torch):
        m = lib.nn.Embedding(4, 3, padding_idx=2)
        assert m.weight[2].abs().sum().item() == 0  # the padding row starts at zero
        m(lib.tensor([[2, 1], [2, 3]])).sum().backward()
        assert m.weight.grad[2].abs().sum().item() == 0  # and gets no gradient
        assert m.weight.grad[1].sum().item() == 3
        pre = lib.nn.Embedding.from_pretrained(lib.ones(3, 2))
        assert pre.weight.requires_grad is False
        assert lib.nn.Embedding.from_pretrained(lib.ones(3, 2), freeze=False).weight.requires_grad


def test_module_reprs_and_parameter_names():
    def describe(nn):
        mods = [nn.LayerNorm(5), nn.LayerNorm((2, 5), elementwise_affine=False, eps=1e-3),
                nn.LayerNorm(3, bias=False), nn.Dropout(), nn.Dropout(0.2, inplace=True),
                nn.Embedding(10, 3), nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0),
                nn.Embedding(10, 3, norm_type=1.0, scale_grad_by_freq=True)]
        return [(repr(m), [n for n, _ in m.named_parameters()]) for m in mods]
    assert describe(ember.nn) == describe(torch.nn)


@pytest.mark.parametrize('make', [
    lambda nn: nn.Dropout(1.5), lambda nn: nn.Dropout(-0.1),
    lambda nn: nn.Embedding(3, 2, padding_idx=3), lambda nn: nn.Embedding(3, 2, padding_idx=-4),
    lambda nn: nn.Embedding.from_pretrained(ember_or_torch(nn).ones(3)),
])
def test_module_construction_errors(make):
    raised = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            make(lib.nn)
        raised.append((type(info.value), str(info.value)))
    assert raised[0] == raised[1]


def ember_or_torch(nn):
    return ember if nn is ember.nn else torch


# -- dropout -------------------------------------------------------------------------------
def test_dropout_zeroes_about_p_and_scales_the_rest():
    ember.manual_seed(0)
    x = ember.ones(200, 100, requires_grad=True)
    y = ember.nn.functional.dropout(x, 0.3)
    kept = y.detach().numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.01
    assert np.allclose(y.detach().numpy()[kept], 1 / 0.7)
    assert y.grad_fn.name() == 'MulBackward0'      # as torch's CPU dropout
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), y.detach().numpy())  # grad is the same mask


def test_dropout_identity_cases_and_eval_mode():
    for lib in (ember, torch):
        x = lib.ones(3, 4, requires_grad=True)
        assert lib.nn.functional.dropout(x, 0.0) is x
        assert lib.nn.functional.dropout(x, 0.5, training=False) is x
        m = lib.nn.Dropout(0.9).eval()
        assert m(x) is x
        zero = lib.nn.functional.dropout(x, 1.0)
        assert zero.abs().sum().item() == 0 and zero.grad_fn.name() == 'MulBackward0'


def test_dropout_inplace_and_seeded_reproducibility():
    ember.manual_seed(3)
    a = ember.nn.functional.dropout(ember.ones(50), 0.5)
    ember.manual_seed(3)
    b = ember.ones(50)
    out = ember.nn.functional.dropout(b, 0.5, inplace=True)
    assert out is b and np.array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize('p', [-0.5, 1.01])
def test_dropout_probability_errors(p):
    check(lambda lib, x: lib.nn.functional.dropout(x, p), arr(3), match_message=True)
