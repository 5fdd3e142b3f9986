"""The remaining torch.nn losses and distances (huber, margin, NLL, triplet, multi-class
margin losses, pairwise_distance, pdist, CosineSimilarity) against torch: values, dtypes,
grad_fn names, first and (where torch has them) second order gradients, reprs and errors."""
import warnings

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, check, arr

DTYPES = [np.float32, np.float64]
REDUCTIONS = ['mean', 'sum', 'none']
dt_id = lambda d: d.__name__  # noqa: E731


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        yield


def sign(*shape, seed=0):
    """A ±1 target array."""
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0)


def _cast(dtype, *arrays):
    return [np.asarray(a, dtype) for a in arrays]


# name -> (call(F, *tensors, reduction), arrays(dtype), double backward in torch)
CASES = {
    'huber': (lambda F, x, t, r: F.huber_loss(x, t, reduction=r),
              lambda d: _cast(d, arr(3, 4, seed=1) * 2, arr(3, 4, seed=2)), True),
    'huber_delta': (lambda F, x, t, r: F.huber_loss(x, t, reduction=r, delta=0.3),
                    lambda d: _cast(d, arr(3, 4, seed=1), arr(1, 4, seed=2)), True),
    'huber_weight': (lambda F, x, t, w, r: F.huber_loss(x, t, reduction=r, weight=w.detach()),
                     lambda d: _cast(d, arr(3, 4, seed=1), arr(3, 4, seed=2),
                                     arr(3, 4, seed=3, low=0.1, high=2)), True),
    'soft_margin': (lambda F, x, t, r: F.soft_margin_loss(x, t.detach(), reduction=r),
                    lambda d: _cast(d, arr(3, 4, seed=1) * 3, sign(3, 4)), True),
    'margin_ranking': (lambda F, a, b, t, r: F.margin_ranking_loss(a, b, t, 0.2, reduction=r),
                       lambda d: _cast(d, arr(5, seed=1), arr(5, seed=2), sign(5)), True),
    'hinge': (lambda F, x, t, r: F.hinge_embedding_loss(x, t, margin=0.5, reduction=r),
              lambda d: _cast(d, arr(3, 4, seed=1) * 2, sign(3, 4)), True),
    'cosine_emb': (lambda F, a, b, t, r: F.cosine_embedding_loss(a, b, t, 0.1, reduction=r),
                   lambda d: _cast(d, arr(4, 3, seed=1), arr(4, 3, seed=2), sign(4)), True),
    'cosine_emb_0d': (lambda F, a, b, t, r: F.cosine_embedding_loss(a, b, t, reduction=r),
                      lambda d: _cast(d, arr(3, seed=1), arr(3, seed=2), np.array(-1.)), True),
    'poisson': (lambda F, x, t, r: F.poisson_nll_loss(x, t, reduction=r),
                lambda d: _cast(d, arr(3, 4, seed=1), arr(3, 4, seed=2, low=0, high=4)), True),
    'poisson_full': (lambda F, x, t, r: F.poisson_nll_loss(x, t, full=True, reduction=r),
                     lambda d: _cast(d, arr(3, 4, seed=1), arr(3, 4, seed=2, low=0, high=4)),
                     True),
    'poisson_rate': (lambda F, x, t, r: F.poisson_nll_loss(x, t, log_input=False, eps=0.1,
                                                           full=True, reduction=r),
                     lambda d: _cast(d, arr(3, 4, seed=1, low=0.1, high=3),
                                     arr(3, 4, seed=2, low=0, high=4)), True),
    'gaussian': (lambda F, x, t, v, r: F.gaussian_nll_loss(x, t, v, reduction=r),
                 lambda d: _cast(d, arr(3, 4, seed=1), arr(3, 4, seed=2),
                                 arr(3, 4, seed=3, low=0.1, high=2)), True),
    'gaussian_short_var': (lambda F, x, t, v, r: F.gaussian_nll_loss(x, t, v, full=True,
                                                                     reduction=r),
                           lambda d: _cast(d, arr(3, 4, seed=1), arr(3, 4, seed=2),
                                           arr(3, seed=3, low=0.1, high=2)), True),
    'gaussian_one_var': (lambda F, x, t, v, r: F.gaussian_nll_loss(x, t, v, eps=0.5,
                                                                   reduction=r),
                         lambda d: _cast(d, arr(3, 4, seed=1), arr(1, 4, seed=2),
                                         arr(3, 1, seed=3, low=0.1, high=2)), True),
    'gaussian_float_var': (lambda F, x, t, r: F.gaussian_nll_loss(x, t, 0.7, reduction=r),
                           lambda d: _cast(d, arr(3, 4, seed=1), arr(3, 4, seed=2)), True),
    'triplet': (lambda F, a, p, n, r: F.triplet_margin_loss(a, p, n, margin=2.0, reduction=r),
                lambda d: _cast(d, arr(4, 3, seed=1), arr(4, 3, seed=2), arr(4, 3, seed=3)),
                True),
    'triplet_p1_swap': (lambda F, a, p, n, r: F.triplet_margin_loss(a, p, n, p=1, swap=True,
                                                                    eps=0.1, reduction=r),
                        lambda d: _cast(d, arr(4, 3, seed=1), arr(4, 3, seed=2),
                                        arr(4, 3, seed=3)), True),
    'triplet_p3_1d': (lambda F, a, p, n, r: F.triplet_margin_loss(a, p, n, p=3, margin=3.0,
                                                                  reduction=r),
                      lambda d: _cast(d, arr(3, seed=1), arr(3, seed=2), arr(3, seed=3)), True),
    'triplet_distance': (lambda F, a, p, n, r: F.triplet_margin_with_distance_loss(
        a, p, n, margin=1.5, swap=True, reduction=r),
        lambda d: _cast(d, arr(4, 3, seed=1), arr(4, 3, seed=2), arr(4, 3, seed=3)), True),
    'triplet_cosine': (lambda F, a, p, n, r: F.triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda x, y: 1 - F.cosine_similarity(x, y), reduction=r),
        lambda d: _cast(d, arr(4, 3, seed=1), arr(4, 3, seed=2), arr(4, 3, seed=3)), True),
    'multilabel_soft': (lambda F, x, t, r: F.multilabel_soft_margin_loss(x, t, reduction=r),
                        lambda d: _cast(d, arr(3, 4, seed=1) * 2, sign(3, 4) > 0), True),
    'multilabel_soft_w': (lambda F, x, t, w, r: F.multilabel_soft_margin_loss(
        x, t, w, reduction=r), lambda d: _cast(d, arr(3, 4, seed=1), sign(3, 4) > 0,
                                               arr(4, seed=3)), True),
    'multilabel_soft_1d': (lambda F, x, t, r: F.multilabel_soft_margin_loss(x, t, reduction=r),
                           lambda d: _cast(d, arr(4, seed=1), sign(4) > 0), True),
    'multi_margin': (lambda F, x, r: F.multi_margin_loss(x, F.torch.tensor([0, 3, 1, 2]),
                                                         reduction=r),
                     lambda d: _cast(d, arr(4, 5, seed=1)), False),
    'multi_margin_p2_w': (lambda F, x, w, r: F.multi_margin_loss(
        x, F.torch.tensor([0, 3, 1, 2]), p=2, margin=0.7, weight=w.detach(), reduction=r),
        lambda d: _cast(d, arr(4, 5, seed=1), arr(5, seed=2, low=0.1, high=2)), False),
    'multi_margin_1d': (lambda F, x, r: F.multi_margin_loss(x, F.torch.tensor([2]), reduction=r),
                        lambda d: _cast(d, arr(5, seed=1)), False),
    'multi_margin_0d': (lambda F, x, r: F.multi_margin_loss(x, F.torch.tensor(0), reduction=r),
                        lambda d: _cast(d, arr(4, seed=1)), False),
    'multilabel_margin': (lambda F, x, r: F.multilabel_margin_loss(
        x, F.torch.tensor([[3, 0, -1, 1, 2], [1, 2, 4, 0, -1], [-1, 3, 1, 1, 1]]),
        reduction=r), lambda d: _cast(d, arr(3, 5, seed=1)), False),
    'multilabel_margin_1d': (lambda F, x, r: F.multilabel_margin_loss(
        x, F.torch.tensor([2, 2, -1, 0]), reduction=r), lambda d: _cast(d, arr(4, seed=1)),
        False),
}


@pytest.mark.parametrize('dtype', DTYPES, ids=dt_id)
@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('name', sorted(CASES))
def test_loss_functional(name, reduction, dtype):
    call, arrays, double = CASES[name]

    def fn(lib, *ts):
        F = lib.nn.functional
        F.torch = lib  # (lets a case build index targets of its own library)
        return call(F, *ts, reduction)
    check(fn, *arrays(dtype), double=double)


# module -> (constructor(nn, reduction), arrays, needs the reduction passed)
MODULES = {
    'HuberLoss': (lambda nn, r: nn.HuberLoss(reduction=r, delta=0.5),
                  lambda: [arr(3, 4, seed=1), arr(3, 4, seed=2)]),
    'SoftMarginLoss': (lambda nn, r: nn.SoftMarginLoss(reduction=r),
                       lambda: [arr(3, 4, seed=1), sign(3, 4).astype(np.int64)]),
    'MarginRankingLoss': (lambda nn, r: nn.MarginRankingLoss(0.3, reduction=r),
                          lambda: [arr(5, seed=1), arr(5, seed=2), sign(5)]),
    'HingeEmbeddingLoss': (lambda nn, r: nn.HingeEmbeddingLoss(2.0, reduction=r),
                           lambda: [arr(5, seed=1), sign(5)]),
    'CosineEmbeddingLoss': (lambda nn, r: nn.CosineEmbeddingLoss(-0.2, reduction=r),
                            lambda: [arr(4, 3, seed=1), arr(4, 3, seed=2), sign(4)]),
    'PoissonNLLLoss': (lambda nn, r: nn.PoissonNLLLoss(False, True, eps=1e-3, reduction=r),
                       lambda: [arr(3, 4, seed=1, low=0.1, high=3),
                                arr(3, 4, seed=2, low=0, high=4)]),
    'GaussianNLLLoss': (lambda nn, r: nn.GaussianNLLLoss(full=True, eps=1e-3, reduction=r),
                        lambda: [arr(3, 4, seed=1), arr(3, 4, seed=2),
                                 arr(3, 1, seed=3, low=0.1, high=2)]),
    'TripletMarginLoss': (lambda nn, r: nn.TripletMarginLoss(0.5, p=1.5, swap=True,
                                                             reduction=r),
                          lambda: [arr(4, 3, seed=1), arr(4, 3, seed=2), arr(4, 3, seed=3)]),
    'TripletMarginWithDistanceLoss': (
        lambda nn, r: nn.TripletMarginWithDistanceLoss(margin=2.0, reduction=r),
        lambda: [arr(4, 3, seed=1), arr(4, 3, seed=2), arr(4, 3, seed=3)]),
    'MultiLabelSoftMarginLoss': (
        lambda nn, r: nn.MultiLabelSoftMarginLoss(nn.torch.tensor([1., 2, 3, 0.5]),
                                                  reduction=r),
        lambda: [arr(3, 4, seed=1), (sign(3, 4) > 0).astype(np.float64)]),
    'MultiMarginLoss': (lambda nn, r: nn.MultiMarginLoss(2, 0.5, nn.torch.tensor(
        [1., 2, 3, 0.5], dtype=nn.torch.float64), reduction=r),
        lambda: [arr(3, 4, seed=1), np.array([3, 0, 1])]),
    'MultiLabelMarginLoss': (lambda nn, r: nn.MultiLabelMarginLoss(reduction=r),
                             lambda: [arr(2, 4, seed=1), np.array([[3, 0, -1, 1], [2, 1, 0, 3]])]),
}


@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('name', sorted(MODULES))
def test_loss_module(name, reduction):
    make, arrays = MODULES[name]

    def fn(lib, *ts):
        lib.nn.torch = lib
        m = make(lib.nn, reduction)
        return m(*ts)
    check(fn, *arrays())
    e, t = make(_with_lib(ember), reduction), make(_with_lib(torch), reduction)
    assert repr(e) == repr(t)
    for attr in ('reduction', 'margin', 'delta', 'p', 'eps', 'swap', 'full', 'log_input'):
        assert getattr(e, attr, 'missing') == getattr(t, attr, 'missing'), attr
    assert list(e.state_dict()) == list(t.state_dict())


def _with_lib(lib):
    lib.nn.torch = lib
    return lib.nn


LEGACY = ['SoftMarginLoss', 'MarginRankingLoss', 'HingeEmbeddingLoss', 'CosineEmbeddingLoss',
          'PoissonNLLLoss', 'TripletMarginLoss', 'MultiLabelSoftMarginLoss', 'MultiMarginLoss',
          'MultiLabelMarginLoss']


@pytest.mark.parametrize('name', LEGACY)
def test_legacy_reduction_flags(name):
    for kw in ({'size_average': False}, {'reduce': False}, {'size_average': True}):
        assert getattr(ember.nn, name)(**kw).reduction == getattr(torch.nn, name)(**kw).reduction
    check(lambda lib, x, t: lib.nn.functional.soft_margin_loss(x, t.detach(), reduce=False),
          arr(5, seed=1), sign(5))
    check(lambda lib, x: lib.nn.functional.multi_margin_loss(x, lib.tensor([1, 0]),
                                                             size_average=False), arr(2, 3))


# -- distances ---------------------------------------------------------------------------
DIST = {
    'pairwise': lambda F, a, b: F.pairwise_distance(a, b),
    'pairwise_p1_keepdim': lambda F, a, b: F.pairwise_distance(a, b, p=1, keepdim=True),
    'pairwise_p3_broadcast': lambda F, a, b: F.pairwise_distance(a, b[0], p=3, eps=0.1),
    'pairwise_inf': lambda F, a, b: F.pairwise_distance(a, b, p=float('inf')),
    'cosine_similarity': lambda F, a, b: F.cosine_similarity(a, b, dim=0),
    'PairwiseDistance': lambda F, a, b: F.nn.PairwiseDistance(p=1.5, keepdim=True)(a, b),
    'CosineSimilarity': lambda F, a, b: F.nn.CosineSimilarity(dim=-1, eps=1e-3)(a, b),
}


@pytest.mark.parametrize('dtype', DTYPES, ids=dt_id)
@pytest.mark.parametrize('name', sorted(DIST))
def test_distances(name, dtype):
    def fn(lib, a, b):
        F = lib.nn.functional
        F.nn = lib.nn
        return DIST[name](F, a, b)
    check(fn, arr(3, 4, dtype=dtype, seed=1), arr(3, 4, dtype=dtype, seed=2), double=True)


@pytest.mark.parametrize('dtype', DTYPES, ids=dt_id)
@pytest.mark.parametrize('p', [2, 1, 0, 3, float('inf')])
def test_pdist(p, dtype):
    x = arr(5, 3, dtype=dtype, seed=1)
    x[3] = x[1]  # a zero distance
    check(lambda lib, x: lib.nn.functional.pdist(x, p), x)


def test_distance_module_reprs():
    for expr in ['PairwiseDistance()', 'PairwiseDistance(p=1, keepdim=True)',
                 'CosineSimilarity(dim=0, eps=0.1)', 'TripletMarginWithDistanceLoss()']:
        e, t = eval('nn.' + expr, {'nn': ember.nn}), eval('nn.' + expr, {'nn': torch.nn})
        assert repr(e) == repr(t)
        for attr in ('norm', 'eps', 'keepdim', 'dim'):
            assert getattr(e, attr, 'missing') == getattr(t, attr, 'missing'), attr


# -- errors ------------------------------------------------------------------------------
F = 'lib.nn.functional.'
T = 'lib.tensor'
ERRORS = [
    F + 'huber_loss(x, y, delta=0.)', F + 'huber_loss(x, y[:2])',
    F + 'huber_loss(x, y, weight=lib.ones(4))', F + 'huber_loss(x, y, reduction="foo")',
    F + 'huber_loss(x, y, weight=lib.ones(3, 4), reduction="foo")',
    F + 'soft_margin_loss(x, t[:, :2])', F + 'soft_margin_loss(x, y)',
    F + 'soft_margin_loss(x.long(), t.long())', F + 'soft_margin_loss(x, t, reduction="q")',
    F + 'margin_ranking_loss(x, y, t[0])', F + 'margin_ranking_loss(x, y[:2], t)',
    F + 'hinge_embedding_loss(x, t[:2])',
    F + 'cosine_embedding_loss(x, y, t)', F + 'cosine_embedding_loss(x, y, t[0, 0])',
    F + 'cosine_embedding_loss(x[0], y[0], t[0])', F + 'cosine_embedding_loss(x, y[:2], t[:, 0])',
    F + 'cosine_embedding_loss(x, y, t[:, 0], reduction="x")',
    F + 'poisson_nll_loss(x, y[:2])', F + 'poisson_nll_loss(x, y, reduction="x")',
    F + 'gaussian_nll_loss(x, y, -1.)', F + 'gaussian_nll_loss(x, y, lib.ones(4))',
    F + 'gaussian_nll_loss(x, y, lib.ones(1, 1))', F + 'gaussian_nll_loss(x, y, -lib.ones(3, 4))',
    F + 'gaussian_nll_loss(x, y, lib.ones(3, 4), reduction="x")',
    F + 'gaussian_nll_loss(x, y, lib.ones(2, 4))', F + 'gaussian_nll_loss(x, y, lib.ones(1, 3, 4))',
    F + 'gaussian_nll_loss(x, y[:2], lib.ones(3, 4))',
    F + 'triplet_margin_loss(x, y, y[0])', F + 'triplet_margin_loss(x, y, y, margin=0)',
    F + 'triplet_margin_loss(x, y, y, reduction="q")', F + 'triplet_margin_loss(x, y, y[:2])',
    F + 'triplet_margin_with_distance_loss(x, y, y[0])',
    F + 'triplet_margin_with_distance_loss(x, y, y, margin=-1)',
    F + 'triplet_margin_with_distance_loss(x, y, y, reduction="q")',
    F + 'pairwise_distance(x, y[:2])', F + 'cosine_similarity(x, y[:2])',
    F + 'pdist(x[0])', F + 'pdist(x, p=-1)', F + 'pdist(x.long())',
    F + 'multilabel_soft_margin_loss(x, y, reduction="q")',
    F + 'multilabel_soft_margin_loss(x[0, 0], y[0, 0])',
    F + f'multi_margin_loss(x, {T}([0, 1, 4]))', F + f'multi_margin_loss(x, {T}([0, 1, -1]))',
    F + f'multi_margin_loss(x, {T}([0, 1]))', F + f'multi_margin_loss(x, {T}([0., 1, 2]))',
    F + f'multi_margin_loss(x, {T}([[0, 1, 2]]))', F + f'multi_margin_loss(x, {T}([0, 1, 2]), p=3)',
    F + f'multi_margin_loss(x, {T}([0, 1, 2]), weight=lib.ones(3, 1))',
    F + f'multi_margin_loss(x, {T}([0, 1, 2]), weight=lib.ones(3))',
    F + f'multi_margin_loss(x[None], {T}([0]))', F + f'multi_margin_loss(x[:, :0], {T}([0, 0, 0]))',
    F + f'multilabel_margin_loss(x, {T}([[0, 1, -1, 0]] * 2))',
    F + f'multilabel_margin_loss(x, {T}([[0, 1, -1, 5]] * 3))',
    F + f'multilabel_margin_loss(x, {T}([[0, 1, -2, 0]] * 3))',
    F + f'multilabel_margin_loss(x, {T}([[0., 1, -1, 0]] * 3))',
    F + f'multilabel_margin_loss(x[None], {T}([[[0, 1, -1, 0]] * 3]))',
    'lib.nn.TripletMarginLoss(margin=0)', 'lib.nn.TripletMarginWithDistanceLoss(margin=0)',
    'lib.nn.MultiMarginLoss(p=3)', 'lib.nn.MultiMarginLoss(weight=lib.ones(2, 2))',
]


@pytest.mark.parametrize('expr', ERRORS)
def test_errors(expr):
    def fn(lib, x, y, t):
        return eval(expr, {'lib': lib, 'x': x, 'y': y, 't': t})
    check(fn, arr(3, 4, seed=1), arr(3, 4, seed=2), sign(3, 4), match_message=True)


def test_pairwise_distance_of_equal_inputs():
    check(lambda lib, a: lib.nn.functional.pairwise_distance(a, a, eps=0), arr(3, 4))


def test_empty_batches():
    # (only 'none' for the margin losses: torch's 'mean' and 'sum' of an empty batch return
    # uninitialised memory, seen to differ run by run)
    check(lambda lib, x: lib.nn.functional.multi_margin_loss(
        x, lib.zeros(0, dtype=lib.long), reduction='none'), arr(0, 4))
    check(lambda lib, x: lib.nn.functional.multilabel_margin_loss(
        x, lib.zeros(0, 4, dtype=lib.long), reduction='none'), arr(0, 4))
    check(lambda lib, x: lib.nn.functional.pdist(x), arr(1, 4))


def test_exports():
    names = ['huber_loss', 'soft_margin_loss', 'margin_ranking_loss', 'hinge_embedding_loss',
             'cosine_embedding_loss', 'poisson_nll_loss', 'gaussian_nll_loss',
             'pairwise_distance', 'pdist', 'triplet_margin_loss',
             'triplet_margin_with_distance_loss', 'multilabel_soft_margin_loss',
             'multi_margin_loss', 'multilabel_margin_loss']
    for n in names:
        assert n in ember.nn.functional.__all__ and getattr(ember.nn.functional, n).__doc__
    for n in MODULES:
        assert n in ember.nn.modules.__all__ and getattr(ember.nn, n).__doc__
