"""embedding_bag, ctc_loss, linear_cross_entropy, gumbel_softmax, feature_alpha_dropout and
native_channel_shuffle (the functions, their torch-level ops and modules) against torch:
values, gradients (to the order torch has them), grad_fn names and torch's errors."""
import numpy as np
import pytest

from ..oracle.oracle import arr, check

IDX = [1, 2, 4, 5, 4, 3, 2, 9, 4]
OFF = [0, 4, 4, 6]
OFF_LAST = [0, 4, 4, 6, 9]          # include_last_offset: the last one is len(IDX)


# -- embedding_bag -----------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('kw', [
    dict(mode='sum'), dict(mode='mean'), dict(mode='max'), dict(mode='mean', padding_idx=4),
    dict(mode='max', padding_idx=2), dict(mode='sum', padding_idx=-6),
    dict(mode='sum', include_last_offset=True), dict(mode='max', include_last_offset=True),
    dict(mode='mean', include_last_offset=True, padding_idx=9),
], ids=str)
def test_embedding_bag(kw, dtype):
    def f(lib, w):
        off = OFF_LAST if kw.get('include_last_offset') else OFF
        return lib.nn.functional.embedding_bag(lib.tensor(IDX), w, lib.tensor(off), **kw)
    check(f, arr(10, 3, seed=1, dtype=dtype))


def test_embedding_bag_2d_input_per_sample_weights_and_max_norm():
    def f(lib, w, p):
        F = lib.nn.functional
        idx = lib.tensor(IDX[:8]).view(2, 4)
        return [F.embedding_bag(idx, w), F.embedding_bag(idx, w, mode='max'),
                F.embedding_bag(lib.tensor(IDX), w, lib.tensor(OFF), mode='sum',
                                per_sample_weights=p),
                F.embedding_bag(idx, w, mode='sum', per_sample_weights=p[:8].view(2, 4))]
    check(f, arr(10, 3, seed=2), arr(9, seed=3))

    def renorm(lib, w):
        w = w.detach().clone()
        out = lib.nn.functional.embedding_bag(lib.tensor(IDX), w, lib.tensor(OFF), max_norm=1.0)
        return [out, w]
    check(renorm, arr(10, 3, seed=4), grad=False)


@pytest.mark.parametrize('mode', [0, 1, 2])
def test_torch_embedding_bag_outputs(mode):
    check(lambda lib, w: lib.embedding_bag(w, lib.tensor(IDX), lib.tensor(OFF), False, mode),
          arr(10, 3, seed=5))


@pytest.mark.parametrize('call', [
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX), w, lib.tensor(OFF), mode='foo'),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX), w),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX), w, lib.tensor(OFF).view(2, 2)),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX), w, lib.tensor(OFF), mode='mean',
                                      per_sample_weights=lib.ones(9, dtype=w.dtype)),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX), w, lib.tensor(OFF),
                                      per_sample_weights=lib.ones(7, dtype=w.dtype)),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX) * 2, w, lib.tensor(OFF)),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX) * 2, w, lib.tensor(OFF), mode='max'),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX), w, lib.tensor([1, 4])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX), w, lib.tensor([0, 10])),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX), w[0], lib.tensor(OFF)),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX).float(), w, lib.tensor(OFF)),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX), w, lib.tensor(OFF).float()),
    lambda F, lib, w: F.embedding_bag(lib.tensor(IDX).view(1, 3, 3), w),
])
def test_embedding_bag_errors(call):
    check(lambda lib, w: call(lib.nn.functional, lib, w), arr(10, 3, seed=6), match_message=True)


def test_embedding_bag_2d_input_with_offsets():
    # torch's message names the offsets' class, which differs between the libraries
    def f(lib, w):
        try:
            lib.nn.functional.embedding_bag(lib.tensor(IDX[:8]).view(2, 4), w, lib.tensor(OFF))
        except ValueError as e:
            return str(e).split('found offsets of type')[0]
    check(f, arr(10, 3, seed=6), grad=False)


def test_embedding_bag_module():
    def f(lib, w, p):
        nn = lib.nn
        bag = nn.EmbeddingBag(10, 3, mode='sum', padding_idx=-1)
        pre = nn.EmbeddingBag.from_pretrained(w, mode='max')
        with lib.no_grad():
            bag.weight.copy_(w)
        idx, off = lib.tensor(IDX), lib.tensor(OFF)
        return [bag(idx, off), bag(idx, off, p), pre(idx, off), repr(bag), repr(pre),
                pre.weight.requires_grad, nn.EmbeddingBag(5, 2, max_norm=2.0).extra_repr()]
    check(f, arr(10, 3, seed=7), arr(9, seed=8))


# -- ctc_loss ----------------------------------------------------------------------------------
TARGETS = [[1, 2, 2], [3, 1, 1]]


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('reduction', ['none', 'mean', 'sum'])
@pytest.mark.parametrize('case', [
    dict(il=[12, 10], tl=[3, 2]), dict(il=[12, 10], tl=[0, 2]), dict(il=[12, 7], tl=[3, 3],
                                                                    targets=[[1, 1, 1], [2, 2, 2]]),
    dict(il=[12, 10], tl=[3, 2], blank=4), dict(il=[3, 3], tl=[3, 2]),
    dict(il=[3, 3], tl=[3, 2], zero_infinity=True), dict(il=[12, 0], tl=[3, 0]),
], ids=str)
def test_ctc_loss(case, reduction, dtype):
    case = dict(case)
    il, tl = case.pop('il'), case.pop('tl')
    targets = case.pop('targets', TARGETS)

    def f(lib, x):
        lp = x.log_softmax(2)
        F = lib.nn.functional
        return [F.ctc_loss(lp, lib.tensor(targets), lib.tensor(il), lib.tensor(tl),
                           reduction=reduction, **case),
                F.ctc_loss(x, lib.tensor(targets), tuple(il), tuple(tl), reduction=reduction,
                           **case)]
    check(f, arr(12, 2, 5, seed=9, dtype=dtype))


def test_ctc_loss_concatenated_unbatched_torch_level_and_module():
    def f(lib, x):
        lp = x.log_softmax(-1)
        F = lib.nn.functional
        return [F.ctc_loss(lp, lib.tensor([1, 2, 2, 3, 1]), [12, 10], [3, 2], reduction='none'),
                F.ctc_loss(lp[:, 0], lib.tensor([1, 2, 2]), lib.tensor(12), lib.tensor(3)),
                F.ctc_loss(lp[:, 0], lib.tensor([1, 2, 2]), [12], [3], reduction='sum'),
                lib.ctc_loss(lp, lib.tensor(TARGETS), [12, 10], [3, 2], 0, 0, False),
                lib.ctc_loss(lp, lib.tensor(TARGETS).float(), [12, 10], [3, 2]),
                lib.nn.CTCLoss(blank=4, reduction='sum')(lp, lib.tensor(TARGETS), [12, 10],
                                                         [3, 2]),
                repr(lib.nn.CTCLoss(zero_infinity=True))]
    check(f, arr(12, 2, 5, seed=10))


def test_ctc_loss_has_no_second_derivative():
    def f(lib, x):
        loss = lib.nn.functional.ctc_loss(x, lib.tensor(TARGETS), [12, 10], [3, 2])
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        try:
            lib.autograd.grad(g.sum(), x)
        except RuntimeError as e:
            return str(e)
    check(f, arr(12, 2, 5, seed=11), grad=False)


@pytest.mark.parametrize('call', [
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor(TARGETS), [12, 10], [3, 2], reduction='foo'),
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor(TARGETS), [12, 10], [3, 2], blank=5),
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor(TARGETS), [12, 10], [3, 2], blank=-1),
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor(TARGETS), [13, 10], [3, 2]),
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor(TARGETS), [12, 10], [4, 2]),
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor(TARGETS), [12], [3, 2]),
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor(TARGETS), [12, 10], [3]),
    lambda F, lib, lp: F.ctc_loss(lp.int(), lib.tensor(TARGETS), [12, 10], [3, 2]),
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor(TARGETS), lib.tensor([12., 10.]),
                                  lib.tensor([3., 2.])),
    lambda F, lib, lp: F.ctc_loss(lp[:, 0], lib.tensor(TARGETS), [12], [3]),
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor([1, 2, 2, 3]), [12, 10], [3, 2]),
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor(TARGETS), [-1, 3], [3, 2]),
    lambda F, lib, lp: F.ctc_loss(lp, lib.tensor(TARGETS), [12, 10], [-1, 2]),
    lambda F, lib, lp: F.ctc_loss(lp[None], lib.tensor(TARGETS), [12, 10], [3, 2]),
])
def test_ctc_loss_errors(call):
    check(lambda lib, x: call(lib.nn.functional, lib, x.log_softmax(2)), arr(12, 2, 5, seed=12),
          match_message=True)


# -- linear_cross_entropy -----------------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('case', [
    lambda F, lib, x, w, b: F.linear_cross_entropy(x, w, lib.tensor([1, 2, 3, 4]), linear_bias=b),
    lambda F, lib, x, w, b: F.linear_cross_entropy(x, w, lib.tensor([1, 2, 3, 4]),
                                                   label_smoothing=0.2, reduction='sum',
                                                   ignore_index=2),
    lambda F, lib, x, w, b: F.linear_cross_entropy(x, w, lib.tensor([1, 2, 3, 4]),
                                                   weight=b.detach().abs(), reduction='none'),
    lambda F, lib, x, w, b: F.linear_cross_entropy(x, w, x[:, :5].detach().softmax(1)),
    lambda F, lib, x, w, b: F.linear_cross_entropy(x[0], w, lib.tensor(3), linear_bias=b),
    lambda F, lib, x, w, b: F.linear_cross_entropy(
        x, w.repeat(1, 3).view(5, 3, 6), lib.tensor([[1, 2, 3], [4, 0, 1], [2, 2, 2], [0, 0, 0]]),
        linear_bias=b.repeat(3).view(3, 5).t(), reduction='none'),
])
def test_linear_cross_entropy(case, dtype):
    check(lambda lib, x, w, b: case(lib.nn.functional, lib, x, w, b), arr(4, 6, seed=13, dtype=dtype),
          arr(5, 6, seed=14, dtype=dtype), arr(5, seed=15, dtype=dtype), double=dtype == np.float64)


@pytest.mark.parametrize('call', [
    lambda F, lib, x, w: F.linear_cross_entropy(x[None], w, lib.tensor([1])),
    lambda F, lib, x, w: F.linear_cross_entropy(x, w[0], lib.tensor([1, 2, 3, 4])),
    lambda F, lib, x, w: F.linear_cross_entropy(x[:, :5], w, lib.tensor([1, 2, 3, 4])),
    lambda F, lib, x, w: F.linear_cross_entropy(x, w, lib.tensor([1, 2, 3, 4]),
                                                linear_bias=w[0]),
    lambda F, lib, x, w: F.linear_cross_entropy(x[0], w.view(5, 1, 6), lib.tensor([1])),
    lambda F, lib, x, w: F.linear_cross_entropy(x, w, x[:, :5].softmax(1), ignore_index=1),
])
def test_linear_cross_entropy_errors(call):
    check(lambda lib, x, w: call(lib.nn.functional, lib, x, w), arr(4, 6, seed=16),
          arr(5, 6, seed=17), match_message=True)


# -- random and derivative-free ones ------------------------------------------------------------
def test_gumbel_softmax_structure():
    # the noise is random: compare what does not depend on it
    def f(lib, x):
        F = lib.nn.functional
        soft, hard = F.gumbel_softmax(x, tau=0.5), F.gumbel_softmax(x, hard=True, dim=0)
        return [soft.sum(-1), soft.shape, hard.sum(0), ((hard == 0) | (hard == 1)).all(),
                soft.grad_fn.name(), hard.grad_fn.name(), F.gumbel_softmax(x.detach()).requires_grad]
    check(f, arr(4, 6, seed=18), grad=False)


def test_gumbel_softmax_straight_through_gradient():
    # hard=True has the soft sample's gradient, whatever the noise: d/dx of sum(w * y) with
    # y = one_hot - sg(soft) + soft, and sum(soft) = 1 makes a constant w give zero
    def f(lib, x):
        y = lib.nn.functional.gumbel_softmax(x, hard=True)
        (g,) = lib.autograd.grad(y.sum(), x)
        return g.abs().max() < 1e-12
    check(f, arr(4, 6, seed=19), grad=False)


def test_feature_alpha_dropout():
    def f(lib, x):
        F = lib.nn.functional
        out = F.feature_alpha_dropout(x, 0.5, True)
        per_channel = (out - out[..., :1]).abs().amax(-1)    # one draw per (sample, channel)
        return [F.feature_alpha_dropout(x, 0.5, False) is x, F.feature_alpha_dropout(x, 0.0, True)
                is x, F.feature_alpha_dropout(x, 1.0, True), per_channel.shape, out.grad_fn.name(),
                [n.name() if n else None for n, _ in out.grad_fn.next_functions],
                repr(lib.nn.FeatureAlphaDropout(0.2)), lib.feature_alpha_dropout(x, 0.5, False)]
    check(f, arr(4, 6, 1, seed=20))


@pytest.mark.parametrize('call', [
    lambda lib, x: lib.nn.functional.feature_alpha_dropout(x, 1.5, True),
    lambda lib, x: lib.nn.functional.feature_alpha_dropout(x[0, :, 0], 0.5, True),
    lambda lib, x: lib.feature_alpha_dropout_(x.detach().clone(), 1.0, True),
    lambda lib, x: lib.nn.FeatureAlphaDropout(-0.1),
])
def test_feature_alpha_dropout_errors_and_inplace(call):
    check(call, arr(4, 6, 3, seed=21), match_message=True)


def test_native_channel_shuffle():
    def f(lib, x):
        a = lib.nn.functional.native_channel_shuffle(x, 3)
        return [a, lib.native_channel_shuffle(x.detach(), 2), a.grad_fn.name()]
    check(f, arr(2, 6, 3, seed=22))


@pytest.mark.parametrize('call', [
    lambda lib, x: lib.native_channel_shuffle(x[0], 3),
    lambda lib, x: lib.native_channel_shuffle(x, 4),
    lambda lib, x: lib.native_channel_shuffle(x, 0),
])
def test_native_channel_shuffle_errors(call):
    check(call, arr(2, 6, 3, seed=23), match_message=True)
