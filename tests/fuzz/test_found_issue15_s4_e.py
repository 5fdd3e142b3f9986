"""Exception classes and silent acceptances the differential fuzzer found (issue 15, fourth
sweep, seeds 600-629 and 700-739), functions a-m: each bad call runs on ember and torch
(``tests.oracle.oracle.check``), which must raise the same class with the same message, the
first check torch makes deciding which. Where torch is wrong (an entry in
``tests/fuzz/known.py``), the test shows torch's answer next to the right one.
"""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check, torch

import ember

F32, F64, I64, I32, B, C64 = np.float32, np.float64, np.int64, np.int32, np.bool_, np.complex64


def same_error(fn, *args):
    """``fn`` raises in torch, and in ember the same class with the same message."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with pytest.raises(Exception):
            fn(torch, *[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        check(fn, *args, grad=False, match_message=True)


def ones(shape, dtype=F32):
    return np.ones(shape, dtype)


# -- embedding_bag: torch's checks in torch's order ------------------------------------------
def _bag(T, weight=(3, 2), indices=(1,), offsets=(0,), mode=0, psw=None, wdtype=None,
         grad=False, sparse=False):
    w = T.ones(weight, dtype=wdtype or T.float32, requires_grad=grad)
    return T.embedding_bag(w, T.tensor(indices), T.tensor(offsets), False, mode, sparse,
                           psw(T) if psw else None, False)


BAG_CASES = {
    'weight 0-d with a graph': dict(weight=(), indices=1.5, offsets=2.5, grad=True),
    'mode': dict(mode=7),
    'mode before the bounds': dict(mode=7, indices=(5,)),
    'mode negative': dict(mode=-1),
    'mode before sparse': dict(mode=7, sparse=True),
    'offsets before the mode': dict(mode=7, offsets=(0, 5)),
    'weights with mean': dict(mode=1, psw=lambda T: T.ones(1)),
    'weights with max': dict(mode=2, psw=lambda T: T.ones(1)),
    'weights with a bad mode': dict(mode=7, psw=lambda T: T.ones(1, dtype=T.float64)),
    'weights count': dict(psw=lambda T: T.ones(2)),
    'weights dims': dict(psw=lambda T: T.ones(1, 1)),
    'weights dtype': dict(psw=lambda T: T.ones(1, 1, dtype=T.float64)),
    'weights complex': dict(wdtype='float64', psw=lambda T: T.ones(1, dtype=T.complex64)),
    'offsets before the weights dtype': dict(offsets=(1,), psw=lambda T: T.ones(1, dtype=T.float64)),
}


@pytest.mark.parametrize('case', list(BAG_CASES))
def test_embedding_bag_check_order(case):
    kw = dict(BAG_CASES[case])
    if kw.get('wdtype'):
        name = kw.pop('wdtype')
        same_error(lambda T: _bag(T, wdtype=getattr(T, name), **kw))
    else:
        same_error(lambda T: _bag(T, **kw))


def test_embedding_bag_weight_0d_without_a_graph():
    same_error(lambda T: _bag(T, weight=(), indices=1.5, offsets=2.5))
    with torch.no_grad():
        with ember.no_grad():
            same_error(lambda T: _bag(T, weight=(), indices=1.5, offsets=2.5, grad=True))


# -- gru / rnn: the state is split per layer (0-d: IndexError) and counted per direction -----
RNN_CASES = [
    ('gru', 'packed 0-d', lambda T: T.gru(T.tensor(0.5), T.tensor(-0.5), T.tensor(0.1),
                                          [T.tensor(0.9), T.tensor(0.3)], False, 0, -1.0, False,
                                          False)),
    ('gru', '0-d state', lambda T: T.gru(T.ones(3, 1, 2), T.tensor(1.), [T.ones(6, 2)] * 2,
                                         False, 1, 0.0, False, False, False)),
    ('gru', 'params before the state', lambda T: T.gru(T.ones(3, 1, 2), T.tensor(1.),
                                                       [T.ones(6, 2)] * 3, False, 1, 0.0, False,
                                                       False, False)),
    ('gru', 'two states, one layer', lambda T: T.gru(T.ones(3, 1, 2), T.ones(2, 1, 2),
                                                     [T.ones(6, 2)] * 2, False, 1, 0.0, False,
                                                     False, False)),
    ('gru', 'one state, two layers', lambda T: T.gru(T.ones(3, 1, 2), T.ones(1, 1, 2),
                                                     [T.ones(6, 2)] * 2, False, 2, 0.0, False,
                                                     False, False)),
    ('gru', 'weights', lambda T: T.gru(T.ones(3, 1, 2), T.ones(2, 1, 2), [T.ones(6, 2)] * 2,
                                       False, 2, 0.0, False, False, False)),
    ('gru', 'odd states', lambda T: T.gru(T.ones(3, 1, 2), T.ones(1, 1, 2), [T.ones(6, 2)] * 4,
                                          False, 1, 0.0, False, True, False)),
    ('gru', 'bidirectional count', lambda T: T.gru(T.ones(3, 1, 2), T.ones(4, 1, 2),
                                                   [T.ones(6, 2)] * 4, False, 1, 0.0, False,
                                                   True, False)),
    ('gru', 'no layers', lambda T: T.gru(T.ones(3, 1, 2), T.ones(2, 1, 2), [T.ones(6, 2)] * 4,
                                         False, 0, 0.0, False, True, False)),
    ('rnn_tanh', 'three states', lambda T: T.rnn_tanh(T.ones(3, 1, 2), T.ones(3, 1, 2),
                                                      [T.ones(2, 2)] * 2, False, 1, 0.0, False,
                                                      False, False)),
]


@pytest.mark.parametrize('op,case,fn', RNN_CASES, ids=[c[1] for c in RNN_CASES])
def test_rnn_state_count(op, case, fn):
    same_error(fn)


def test_gru_bidirectional_still_runs():
    check(lambda T: T.gru(T.ones(3, 1, 2), T.ones(2, 1, 2), [T.ones(6, 2)] * 4, False, 1, 0.0,
                          False, True, False), grad=False)


# -- batch_norm: a strided integer input meets mean()'s dtype refusal first -------------------
BN_CASES = {
    'transposed, one statistic': lambda T: T.batch_norm(
        T.ones(4, 4, dtype=T.long).t(), None, None, T.ones(4, dtype=T.long), None, True, 2.0,
        1e-5, False),
    'transposed': lambda T: T.batch_norm(T.ones(4, 4, dtype=T.long).t(), None, None, None, None,
                                         True, 2.0, 1e-5, False),
    'sliced bool': lambda T: T.batch_norm(T.ones(4, 8, dtype=T.bool)[:, ::2], None, None, None,
                                          None, True, 2.0, 1e-5, False),
    'expanded 1-d': lambda T: T.batch_norm(T.ones(1, dtype=T.long).expand(3), None, None, None,
                                           None, True, 2.0, 1e-8, False),
    'expanded 2-d': lambda T: T.batch_norm(T.ones(1, 2, dtype=T.long).expand(3, 2), None, None,
                                           None, None, True, 2.0, 1e-8, False),
    'permuted 4-d': lambda T: T.batch_norm(T.ones(2, 3, 2, 2, dtype=T.long).permute(0, 2, 3, 1),
                                           None, None, None, None, True, 2.0, 1e-8, False),
    'weight of its dtype': lambda T: T.batch_norm(T.ones(4, 4, dtype=T.long).t(),
                                                  T.ones(4, dtype=T.long), None, None, None,
                                                  True, 2.0, 1e-5, False),
    # (the kernel's own dtype refusal or the pair's check where it does not)
    'channels last': lambda T: T.batch_norm(T.ones(2, 3, 2, 2, dtype=T.long).permute(0, 3, 1, 2),
                                            None, None, None, None, True, 2.0, 1e-8, False),
    'channels last 3d': lambda T: T.batch_norm(
        T.ones(2, 3, 2, 2, 2, dtype=T.long).permute(0, 4, 1, 2, 3), None, None, None, None,
        True, 2.0, 1e-8, False),
    'float weight': lambda T: T.batch_norm(T.ones(4, 4, dtype=T.long).t(), T.ones(4), None,
                                           None, None, True, 2.0, 1e-5, False),
    'float statistic': lambda T: T.batch_norm(T.ones(4, 4, dtype=T.bool).t(), None, None,
                                              T.ones(4), None, True, 2.0, 1e-5, False),
    'evaluation': lambda T: T.batch_norm(T.ones(4, 4, dtype=T.long).t(), None, None,
                                         T.ones(4, dtype=T.long), T.ones(4, dtype=T.long), False,
                                         2.0, 1e-5, False),
    'complex': lambda T: T.batch_norm(T.ones(4, 4, dtype=T.complex64).t(), None, None, None,
                                      None, True, 2.0, 1e-5, False),
    'functional': lambda T: T.nn.functional.batch_norm(
        T.ones(4, 4, dtype=T.long).t(), T.ones(4, 1, dtype=T.long), None, None, None, True, 2.0),
}


@pytest.mark.parametrize('case', list(BN_CASES))
def test_batch_norm_strided_integer_input(case):
    same_error(BN_CASES[case])


# -- in-place ops: a dim out of range, and the products' and cumulative ops' own checks, come
# before the refusal to write an expanded tensor ------------------------------------------
def _exp(T, shape=(4, 4), dtype=None):
    return T.ones((1,) + tuple(shape[1:]), dtype=dtype or T.float32).expand(*shape)


OVERLAP_CASES = {
    'addbmm_ 2-d batch': lambda T: _exp(T, dtype=T.bool).addbmm_(
        T.ones(4, 4, dtype=T.bool), T.ones(4, 4, dtype=T.bool)),
    'addbmm_ inner sizes': lambda T: _exp(T).addbmm_(T.ones(2, 4, 3), T.ones(2, 4, 4)),
    'addbmm_ batches': lambda T: _exp(T).addbmm_(T.ones(2, 4, 4), T.ones(3, 4, 4)),
    'addbmm_ dtypes': lambda T: _exp(T, dtype=T.long).addbmm_(T.ones(2, 4, 4), T.ones(2, 4, 4)),
    'addbmm_ writes': lambda T: _exp(T).addbmm_(T.ones(2, 4, 4), T.ones(2, 4, 4)),
    'baddbmm_ 2-d batch': lambda T: _exp(T, (2, 4, 4)).baddbmm_(T.ones(4, 4), T.ones(4, 4)),
    'baddbmm_ sizes': lambda T: _exp(T, (2, 4, 4)).baddbmm_(T.ones(2, 4, 3), T.ones(2, 4, 4)),
    'addmm_ sizes': lambda T: _exp(T).addmm_(T.ones(4, 3), T.ones(4, 4)),
    'addmm_ dtypes': lambda T: _exp(T).addmm_(T.ones(4, 4), T.ones(4, 4, dtype=T.float64)),
    'addmv_ sizes': lambda T: _exp(T, (4,)).addmv_(T.ones(4, 3), T.ones(4)),
    'cumsum_ dim': lambda T: _exp(T).cumsum_(3),
    'cumsum_ dtype': lambda T: _exp(T, dtype=T.long).cumsum_(1, dtype=T.float32),
    'cumsum_ writes': lambda T: _exp(T).cumsum_(1),
    'cumprod_ dim': lambda T: _exp(T).cumprod_(2),
    'renorm_ dim': lambda T: _exp(T).renorm_(2, 2, 1.),
    'renorm_ norm': lambda T: _exp(T).renorm_(-1, 1, 1.),
    'index_copy_ dim': lambda T: _exp(T).index_copy_(2, T.tensor([0]), T.ones(4, 1)),
    'index_copy_ bounds after': lambda T: _exp(T).index_copy_(1, T.tensor([7]), T.ones(4, 1)),
    'put_ bounds after': lambda T: _exp(T).put_(T.tensor([20]), T.ones(1)),
    'logit_ writes': lambda T: _exp(T).logit_(),
}


@pytest.mark.parametrize('case', list(OVERLAP_CASES))
def test_inplace_checks_before_the_overlap(case):
    same_error(OVERLAP_CASES[case])


# -- addbmm: torch's messages, in its order (batches, inner sizes, input, dtypes) -------------
ADDBMM_CASES = [((4, 4), (2, 4, 3), (3, 4, 4), None), ((4, 4), (2, 4, 3), (2, 3, 5), None),
                ((4, 5), (2, 4, 3), (2, 3, 5), 'b2'), ((4, 5), (2, 4, 3), (2, 3, 5), 'b1'),
                ((4, 5), (2, 4, 3), (2, 3, 5), 'in'), ((3, 5), (2, 4, 3), (2, 3, 5), 'b2'),
                ((4, 4), (2, 4, 3), (2, 4, 4), None), ((4, 5), (2, 4, 3), (2, 4), None)]


@pytest.mark.parametrize('case', ADDBMM_CASES, ids=str)
def test_addbmm_check_order(case):
    s, b1, b2, f64 = case
    same_error(lambda T, x, a, b: T.addbmm(x, a, b),
               ones(s, F64 if f64 == 'in' else F32), ones(b1, F64 if f64 == 'b1' else F32),
               ones(b2, F64 if f64 == 'b2' else F32))


# -- reductions: sum, mean, amax, any... wrap every dim before they look for a repeated one;
# nansum, var, std, norms meet the repeat first -------------------------------------------
@pytest.mark.parametrize('op', ['sum', 'mean', 'amax', 'amin', 'nansum', 'logsumexp', 'std',
                                'var', 'count_nonzero', 'any', 'all', 'nanmean', 'squeeze',
                                'flip', 'special.logsumexp'])
@pytest.mark.parametrize('dims', [[0, -1, 2], [0, 0], [2, 0, 0]])
def test_reduction_dim_list_order(op, dims):
    def f(T, x):
        fn = T
        for part in op.split('.'):
            fn = getattr(fn, part)
        return fn(x, dims)
    same_error(f, ones(3, F64))


@pytest.mark.parametrize('op', ['sum', 'mean', 'amax'])
def test_reduction_dim_list_order_method(op):
    same_error(lambda T, x: getattr(x, op)([0, -1, 2], True), ones(3, F64))


# -- gradient: spacing's length, then edge_order, then the dims ------------------------------
GRADIENT_CASES = [dict(spacing=0, dim=[-1, -2], edge_order=0),
                  dict(spacing=[1., 2., 3.], dim=5, edge_order=3),
                  dict(spacing=[1., 2.], edge_order=1), dict(spacing=[1., 2.], dim=[5]),
                  dict(edge_order=3), dict(dim=[0, 0]), dict(dim=[0, -1, 2]),
                  dict(spacing=[0., 1.], dim=[-1, -2], edge_order=3)]


@pytest.mark.parametrize('kw', GRADIENT_CASES, ids=str)
def test_gradient_check_order(kw):
    same_error(lambda T, x: T.gradient(x, **kw), np.array([-0.07, -0.1, -0.14]))


# -- argmax / argmin refuse complex before the dim and the size -----------------------------
@pytest.mark.parametrize('op', ['argmax', 'argmin'])
@pytest.mark.parametrize('shape,dim', [((0,), None), ((2, 0), 1), ((3,), 5), ((2, 0), None)])
def test_argmax_complex_first(op, shape, dim):
    same_error(lambda T, x: getattr(T, op)(x, dim), ones(shape, C64))
    same_error(lambda T, x: getattr(x, op)(dim), ones(shape, np.complex128))


# -- lu_solve: torch's checks in torch's order ------------------------------------------------
def _lu(T, lu=(4, 4), piv=(4,), b=(4, 3), ludt='float32', pdt='int32', bdt=None, pval=1,
        **kw):
    return T.linalg.lu_solve(T.ones(lu, dtype=getattr(T, ludt)),
                             T.full(piv, pval, dtype=getattr(T, pdt)),
                             T.ones(b, dtype=getattr(T, bdt or ludt)), **kw)


LU_CASES = {
    'int LU': dict(ludt='int32', b=(1, 4)), 'long LU, bad pivots': dict(ludt='int64', pdt='int64'),
    'bool LU': dict(ludt='bool', bdt='float16'), 'long LU 1-d': dict(ludt='int64', lu=(4,)),
    'dtypes before the pivots': dict(pdt='int64', bdt='int64'),
    'dtypes before the ranks': dict(lu=(4,), b=(4,), bdt='float64'),
    'pivots dtype': dict(lu=(4,), pdt='int64'), 'LU rank': dict(lu=(4,), b=(4,)),
    'B rank': dict(b=(4,)), 'square before B': dict(lu=(4, 3), b=(4,)),
    'B rows': dict(piv=(2, 4), b=(5, 3)), 'B columns': dict(b=(4, 3), left=False),
    'pivots count': dict(piv=(2, 5)), 'pivots batch': dict(lu=(2, 4, 4)),
    'pivots batch 2': dict(lu=(1, 4, 4), piv=(2, 4)), 'pivots 0-d': dict(piv=()),
    'pivots too small': dict(pval=0), 'pivots too large': dict(pval=5),
    'pivots too large, right': dict(pval=5, b=(3, 4), left=False),
    'batches': dict(lu=(3, 4, 4), piv=(3, 4), b=(2, 4, 3)),
    'half': dict(ludt='float16'), 'bfloat16': dict(ludt='bfloat16'),
    'half after the pivots': dict(ludt='float16', pval=5),
}


@pytest.mark.parametrize('case', list(LU_CASES))
def test_lu_solve_check_order(case):
    same_error(lambda T: _lu(T, **LU_CASES[case]))


def test_lu_solve_old_forms():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        same_error(lambda T: T.ones(4, 4, dtype=T.int32).t().lu_solve(
            T.ones(4, 4, dtype=T.int32), T.tensor([[4, 4, -2, -4]], dtype=T.int32)))
        same_error(lambda T: T.ones(4, 4).lu_solve(T.ones(4, 4),
                                                   T.tensor([[4, 4, -2, -4]], dtype=T.int32)))


@pytest.mark.parametrize('lu,piv,b', [((0, 0), (0,), (0, 3)), ((2, 2), (2,), (2, 0)),
                                      ((0, 2, 2), (0, 2), (2, 3))])
def test_lu_solve_empty_half_needs_no_kernel(lu, piv, b):
    check(lambda T: _lu(T, lu, piv, b, 'float16'), grad=False)


# -- broadcast_shapes: torch's message, argument by argument ---------------------------------
@pytest.mark.parametrize('shapes', [(2, (3,)), ((3,), 2), ([3], (2,)), ((2, 3), (3,), (4,)),
                                    ((), (0,), (3,)), ((2, 3), (2, 4, 3)), ((3,), (2, 5)),
                                    ((1,), (-1,)), ((1,), (2, -1)), ((-1,), (1,))], ids=str)
def test_broadcast_shapes_message(shapes):
    same_error(lambda T: T.broadcast_shapes(*shapes))


def test_broadcast_shapes_of_a_size():
    same_error(lambda T: T.broadcast_shapes((2,), T.Size([3])))
    for shapes in [((1, 2), (3, 1)), (), ((),), ((1,), []), (4,), ((0,), (1,))]:
        assert tuple(ember.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))


# -- binary_cross_entropy: the weight broadcast as torch.broadcast_shapes, the kernel's dtype
# refusal before the values (an empty integer input too), a weight of more dims refused ------
BCE_CASES = [((2, 0), I64, (2, 0), 'mean'), ((2, 0), I64, None, 'sum'), ((1,), I64, None, 'mean'),
             ((1, 0), I64, (3,), 'mean'), ((3,), F32, (2, 3), 'mean'), ((3,), F32, (1, 3), 'none'),
             ((2, 3), F32, (4,), 'mean'), ((2, 0), B, None, 'none')]


@pytest.mark.parametrize('case', BCE_CASES, ids=str)
def test_binary_cross_entropy_checks(case):
    shape, dtype, wshape, reduction = case
    x = np.full(shape, 5 if dtype == I64 else 0.5).astype(dtype)
    args = (x, x.copy()) + (() if wshape is None else (np.ones(wshape, dtype),))
    same_error(lambda T, a, b, *w: T.nn.functional.binary_cross_entropy(
        a, b, w[0] if w else None, reduction=reduction), *args)


def test_binary_cross_entropy_values_before_the_weight_shape():
    same_error(lambda T, a, b, w: T.nn.functional.binary_cross_entropy(a, b, w),
               np.full(3, 2., F32), np.full(3, .5, F32), ones((2, 3)))


def test_binary_cross_entropy_weight_broadcasts_to_the_target():
    check(lambda T, a, b, w: T.nn.functional.binary_cross_entropy(a, b, w),
          np.full((2, 3), .3), np.full((2, 3), .6), np.arange(3.))


# -- cross_entropy: log_softmax's dtype refusal comes before nll_loss's checks ---------------
CE_CASES = {
    'batch sizes': lambda T: T.nn.functional.cross_entropy(
        T.tensor([[-2, 1, -3]], dtype=T.int32), T.ones(2, 2, 3, 4, dtype=T.int32), None, 2),
    'class weight': lambda T: T.nn.functional.cross_entropy(
        T.tensor([[-2, 1, -3]], dtype=T.int32), T.ones(1, dtype=T.long), T.ones(2)),
    'target out of range': lambda T: T.nn.functional.cross_entropy(
        T.ones(2, 3, dtype=T.int32), T.ones(2, dtype=T.long) * 7),
    'smoothing': lambda T: T.nn.functional.cross_entropy(
        T.tensor([[-2, 1, -3]], dtype=T.int32), T.ones(1, dtype=T.long), label_smoothing=.5),
    'smoothing range': lambda T: T.nn.functional.cross_entropy(
        T.tensor([[-2., 1, -3]]), T.ones(1, dtype=T.long), label_smoothing=2.),
    'probabilities: target dtype': lambda T: T.nn.functional.cross_entropy(
        T.tensor([[-2, 1, -3]], dtype=T.int32), T.ones(1, 3, dtype=T.int32)),
}


@pytest.mark.parametrize('case', list(CE_CASES))
def test_cross_entropy_integer_input(case):
    same_error(CE_CASES[case])


# -- huber_loss writes into a tensor like input (the common dtype must cast to it); mse,
# smooth_l1 and huber take no complex ---------------------------------------------------
LOSS_DTYPES = [(np.uint8, F32), (np.uint8, np.uint8), (F32, I64), (I64, F32), (F32, F64), (B, F32),
               (F32, B), (np.float16, B), (I64, B), (C64, F32), (F32, C64)]


@pytest.mark.parametrize('fn', ['huber_loss', 'mse_loss', 'smooth_l1_loss'])
@pytest.mark.parametrize('dtypes', LOSS_DTYPES, ids=str)
@pytest.mark.parametrize('reduction', ['mean', 'none'])
def test_pointwise_loss_dtypes(fn, dtypes, reduction):
    a = np.array([8, 8, 3, 4]).astype(dtypes[0])
    b = np.array([1, 8, 3, 5]).astype(dtypes[1])
    check(lambda T, x, y: getattr(T.nn.functional, fn)(x, y, reduction=reduction), a, b,
          grad=False, match_message=True)


def test_huber_loss_weighted_dtypes():
    for dtypes in LOSS_DTYPES:
        a = np.array([8, 8, 3, 4]).astype(dtypes[0])
        b = np.array([1, 8, 3, 5]).astype(dtypes[1])
        check(lambda T, x, y: T.nn.functional.huber_loss(x, y, weight=T.ones(4)), a, b,
              grad=False, match_message=True)


# -- the argument layer: a tensor takes a float or a Number's place only 0-dim and not
# requiring grad (bernoulli's p among others), also on the op's fast path ------------------
SCALAR_PLACE_CASES = [
    'T.bernoulli(x, T.tensor([0.375]))', 'T.bernoulli(x, T.tensor(0.375))',
    'T.bernoulli(x, p=T.tensor([0.375]))', 'x.bernoulli(T.tensor([3.75]))',
    'x.bernoulli(T.tensor(.5))', 'x.bernoulli(T.tensor(.5, requires_grad=True))',
    'T.bernoulli(x, T.tensor([-3.0], dtype=T.float64))', 'T.logit(x, T.tensor([0.3]))',
    'T.logit(x, T.tensor(0.3, requires_grad=True))', 'T.logit(x, T.tensor(1))',
    'T.nan_to_num(x, T.tensor([0.1]))', 'x.uniform_(T.tensor([0.1]), 1.)',
    'x.uniform_(T.tensor([[0.1]]), 1.)', 'T.renorm(T.ones(2, 2), T.tensor([2.]), 0, 1.)',
    'T.add(x, 1, alpha=T.tensor(2., requires_grad=True))', 'T.add(x, 1, alpha=T.tensor([2.]))',
    'T.full((2,), T.tensor(1., requires_grad=True))', 'T.addcmul(x, x, x, value=T.tensor([2.]))',
    'T.cdist(T.ones(3, 2), T.ones(3, 2), T.tensor([2.]))',
    'T.cdist(T.ones(3, 2), T.ones(3, 2), T.tensor(2.))', "T.cdist(T.ones(3, 2), T.ones(3, 2), 'a')",
    'T.cdist(T.ones(3, 2), T.ones(3, 2), None)',
    'T.nn.functional.pdist(T.ones(3, 2), T.tensor([2.]))',
    # (tensors where some overload takes one stay tensors)
    'T.mul(x, T.tensor([2.]))', 'T.clamp(x, T.tensor([0.]))', 'T.pow(x, T.tensor([2.]))',
    'T.quantile(x, T.tensor([0.5]))', 'T.lerp(x, x, T.tensor([0.5]))',
    'T.add(x, T.tensor(2., requires_grad=True))', 'T.softmax(x, T.tensor([0]))',
]


@pytest.mark.parametrize('src', SCALAR_PLACE_CASES)
def test_tensor_in_a_scalar_place(src):
    def f(T):
        x = T.ones(3) / 2
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            for _ in range(2):  # (the second call takes the op's fast path)
                r = eval(src)
        return r.shape
    check(f, grad=False, match_message=True)


# -- size and dim lists: past the first element a bool is 0 or 1 (torch's parser) ----------
BOOL_LIST_CASES = [
    'x.sum([True, 0])', 'x.sum([0, True])', 'x.sum((0, True))', 'x.sum(True)',
    'x.mean([0, True])', 'x.amax([0, True])', 'x.std([0, True])', 'x.nansum([0, True])',
    'x.logsumexp([0, True])', 'x.any([0, True])', 'x.count_nonzero([0, True])',
    'T.ones(6).reshape(True, 6)', 'T.ones(6).reshape([6, False])', 'T.ones(6).reshape(2, True)',
    'x.permute(True, 0)', 'x.permute([0, True])', 'x.permute(0, True)', 'T.zeros(True, 2)',
    'T.zeros(2, True)', 'T.zeros([2, True])', 'T.ones(1, 3).expand(True, 3)',
    'T.ones(1, 3).expand(2, True)', 'x.repeat(1, True)', 'x.flip([0, True])',
    'x.squeeze([0, True])', 'x.view(3, True, 2)', 'x.new_zeros(2, True)',
    'x.new_zeros((2, True))', 'T.empty(2, True).shape', 'T.ones(2, True)', 'T.rand(2, True).shape',
    'T.randn(2, True).shape', 'T.randint(3, (2, True)).shape', 'T.full((2, True), 1.)', 'x.tile((1, True))',
    'x.unflatten(1, (3, True))', 'T.ones(6).view(-1, True)', 'x.sum([0, 1.0])',
    'x.transpose(0, True)', 'T.nn.functional.pad(x, (1, True))', 'x.roll([1, True], [0, 1])',
    'x.new_empty((2, True)).shape', 'x.new_full((2, True), 1.)', 'x.movedim([0, True], [1, 0])',
    'x.movedim([0, 1], [1, True])', 'x.movedim(True, 0)', 'T.zeros_like(x).resize_(2, True).shape',
    'T.ones(2, 3, 4).permute([2, True, False])',
]


@pytest.mark.parametrize('src', BOOL_LIST_CASES)
def test_bool_past_the_first_element_of_an_int_list(src):
    check(lambda T: eval(src, {'T': T, 'x': T.ones(2, 3)}), grad=False, match_message=True)


# -- index_put keeps the value's leading size-1 dims (x[i] = v drops them) --------------------
INDEX_PUT_CASES = [
    ((3, 3), 'T.tensor([0, 1])', (1, 2, 3), False), ((3, 3), 'T.tensor([0, 1])', (1, 1, 3), False),
    ((3, 3), 'T.tensor([0, 1])', (1, 3), False), ((3, 3), 'T.tensor([0, 1])', (1, 1, 1), False),
    ((3, 3), 'T.tensor([0, 1])', (1, 2, 3), True), ((3, 3), 'T.tensor([True, False, True])',
                                                    (1, 2, 3), False),
    ((3, 3), 'T.tensor([0, 1])', (1, 1, 1, 1), False), ((3, 3), 'T.tensor([0, 1])', (2, 2, 3), False),
    ((3,), 'T.tensor(0)', (2,), False), ((), 'T.tensor(0)', (), False),
]


@pytest.mark.parametrize('case', INDEX_PUT_CASES, ids=str)
def test_index_put_value_shape(case):
    shape, index, vshape, acc = case

    def f(T, x, v):
        return x.clone().index_put_((eval(index, {'T': T}),), v, accumulate=acc)
    check(f, ones(shape), np.arange(np.prod(vshape), dtype=F32).reshape(vshape), grad=False,
          match_message=True)
    check(lambda T, x, v: T.index_put(x, (eval(index, {'T': T}),), v, acc), ones(shape),
          np.arange(np.prod(vshape), dtype=F32).reshape(vshape), grad=False, match_message=True)


def test_setitem_still_drops_leading_ones():
    def f(T, x, v):
        y = x.clone()
        y[T.tensor([0, 1])] = v
        return y
    check(f, ones((3, 3)), np.arange(6, dtype=F32).reshape(1, 2, 3), grad=False)


@pytest.mark.parametrize('case', ['value shape', 'dtype'])
def test_index_put_without_indices(case):
    """torch checks the value's shape and dtype, then fails inside its kernel (an internal
    assert: a RuntimeError); ember says why."""
    v = ones(4) if case == 'value shape' else ones(3, F64)
    same_error(lambda T, x, v: x.index_put((), v), ones(3), v)
    with pytest.raises(RuntimeError):
        ember.ones(3).index_put_((), ember.ones(3))
    with pytest.raises(RuntimeError):
        torch.ones(3).index_put_((), torch.ones(3))


# -- as_strided & co. refuse a negative storage offset (ember read memory before the tensor) --
@pytest.mark.parametrize('src', [
    'T.as_strided_copy(x, (2,), (1,), -1)', 'T.as_strided(x, (2,), (1,), -1)',
    'x.as_strided((2,), (1,), -1)', 'T.as_strided(x, (2, 2), (1,), -1)',
    'T.as_strided(x, (2,), (-1,), -1)', 'T.as_strided(x, (0,), (1,), -1)',
    'T.as_strided(x, (20,), (1,), -1)', 'T.as_strided_scatter(x, T.ones(3), (2,), (1,), -1)',
    'T.as_strided_scatter(x, T.ones(2), (2,), (-1,), -1)',
    'T.as_strided_scatter(x, T.ones(2), (2, 2), (1,), -1)'])
def test_as_strided_negative_offset(src):
    same_error(lambda T, x: eval(src), ones(4))


# -- householder_product of no reflectors is the identity's first columns -------------------
@pytest.mark.parametrize('a,tau', [((3, 2), (0,)), ((2, 3, 2), (2, 0)), ((0, 3, 2), (0, 0))])
def test_householder_product_without_reflectors(a, tau):
    check(lambda T, x, t: T.linalg.householder_product(x, t), ones(a, F64), ones(tau, F64))


# -- bernoulli_ with a tensor p: nothing is looked at for an empty tensor; p expands (torch's
# message) and must be floating before its range is checked ------------------------------
@pytest.mark.parametrize('src', [
    'T.ones(0).bernoulli_(T.tensor([2.]))', 'T.ones(0).bernoulli_(T.ones(3))',
    'T.ones(0).bernoulli_(2.)', 'T.ones(2).bernoulli_(T.ones(3))',
    'T.ones(2).bernoulli_(T.ones(2, 2))', 'T.ones(2).bernoulli_(T.ones(2) * 2)',
    'T.ones(2).bernoulli_(T.ones(0))', 'T.ones(2, dtype=T.long).bernoulli_(T.ones(2) * 2)',
    'T.ones(2).bernoulli_(T.ones(2, dtype=T.long) * 2)',
    'T.ones(2).bernoulli_(T.ones(3, dtype=T.bool))', 'T.ones(0, 3).bernoulli_(T.ones(5)).shape',
    'T.ones(2, 3).bernoulli_(T.ones(3) / 2).shape'])
def test_bernoulli_inplace_tensor_p(src):
    check(lambda T: eval(src), grad=False, match_message=True)


# -- cummax / cummin of a 0-d tensor: torch's own message for a dim other than 0 or -1 ------
@pytest.mark.parametrize('op', ['cummax', 'cummin'])
@pytest.mark.parametrize('dim', [1, -2, 0, -1, 5])
def test_cumulative_extreme_of_a_scalar(op, dim):
    check(lambda T, x: getattr(T, op)(x, dim), np.array(1.5), grad=False, match_message=True)


# -- istft: torch reads its real view's dims before the lengths ------------------------------
@pytest.mark.parametrize('src', ['T.istft(x, 2, None, 0)', 'T.istft(x, 2)', 'T.istft(x, 0, 2, 1)',
                                 'x.istft(2, None, 0)', 'T.istft(x[0], 2)'])
def test_istft_of_a_vector(src):
    same_error(lambda T, x: eval(src), np.ones(4, C64))


# -- lstsq: torch takes a shorter matrix right-hand side's batch from the wrong dims (known.py) --
@pytest.mark.parametrize('a,b', [((2, 3, 3), (3, 3)), ((1, 3, 4), (3, 5)), ((2, 2, 3, 4), (2, 3, 5))])
def test_lstsq_shorter_matrix_rhs_broadcasts_as_documented(a, b):
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal(a), rng.standard_normal(b)
    got = ember.linalg.lstsq(ember.tensor(A), ember.tensor(B)).solution
    # torch's answer for the same system with B's batch made explicit (the documented rule)
    ref = torch.linalg.lstsq(torch.tensor(A), torch.tensor(B).unsqueeze(0)).solution
    np.testing.assert_allclose(np.asarray(got._data), ref.numpy(), rtol=1e-8, atol=1e-10)
    # torch itself refuses the call or returns a batch too many (its bug)
    try:
        t = torch.linalg.lstsq(torch.tensor(A), torch.tensor(B)).solution
    except RuntimeError:
        return
    assert tuple(t.shape) != tuple(got.shape)


def test_lstsq_vector_rhs_unchanged():
    check(lambda T, a, b: T.linalg.lstsq(a, b).solution, np.random.default_rng(1).standard_normal(
        (2, 3, 3)), np.random.default_rng(2).standard_normal((2, 3)), grad=False)


# -- diff checks prepend's and append's shapes before it looks at n (n=0 too) ---------------
@pytest.mark.parametrize('n,dim,pre,app', [(0, -1, None, (1, 3)), (0, -1, None, (2, 2)),
                                           (1, -1, None, (1, 3)), (0, 0, (2, 2), None),
                                           (0, 0, (2, 2), (1, 5)), (1, 0, (2, 2), (1, 5)),
                                           (0, 5, (2, 2), None), (1, 1, (1, 2), None),
                                           (1, 1, (2,), None)], ids=str)
def test_diff_prepend_append_shapes(n, dim, pre, app):
    check(lambda T, x: x.diff(n, dim, None if pre is None else T.ones(pre),
                              None if app is None else T.ones(app)),
          ones((2, 3)), grad=False, match_message=True)


# -- cross / linalg.cross: the ranks, the dim and its length, then the dtypes (one helper) --
CROSS_CASES = [
    'T.linalg.cross(T.tensor(1.), T.tensor(4))',
    'T.linalg.cross(T.ones(3), T.ones(3, dtype=T.long), dim=5)',
    'T.linalg.cross(T.ones(3), T.ones(3, dtype=T.long))',
    'T.linalg.cross(T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool), dim=5)',
    'T.linalg.cross(T.ones(3, dtype=T.bool), T.ones(3, dtype=T.bool))',
    'T.linalg.cross(T.ones(2), T.ones(2, dtype=T.long))',
    'T.linalg.cross(T.ones(2, 3), T.ones(3, dtype=T.long))',
    'T.cross(T.tensor(1.), T.tensor(4), -1)',
    'T.cross(T.ones(3), T.ones(3, dtype=T.long), 5)',
    'T.ones(3).cross(T.ones(3, dtype=T.complex64), 0)',
    'T.linalg.cross(T.ones(2, 3), T.ones(1, 3))',
    'T.linalg.cross(T.ones(2, 3), T.ones(2, 3), dim=-2)',
    'T.linalg.cross(T.tensor([1., 2, 3]), T.tensor([0., 1, 5]))',
    'T.cross(T.tensor([[1., 2, 3]]), T.tensor([[0., 1, 5]]), 1)',
    'T.tensor(0.24, dtype=T.float64).cross(T.tensor(2.8 + 0.2j), -1)',
]


@pytest.mark.parametrize('src', CROSS_CASES)
def test_cross_check_order(src):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda T: eval(src), grad=False, match_message=True)


# -- batch_norm_update_stats: statistics of another dtype (the first given decides) must be
# float32 with a half or bfloat16 input, before the input's dims; both of one dtype ---------
BN_STATS_CASES = [
    ((4,), 'float32', (1, 3), 'int16', None, None), ((4,), 'float32', (3,), 'float64', None, None),
    ((4, 3), 'float32', (3,), 'float64', None, None),
    ((4, 3), 'float64', (3,), 'float32', None, None),
    ((4, 3), 'float64', None, None, (3,), 'float32'),
    ((4, 3), 'bfloat16', (3,), 'float32', None, None),
    ((4, 3), 'bfloat16', (3,), 'float64', None, None),
    ((4, 3), 'float16', (3,), 'float16', None, None), ((4, 3), 'float32', (3,), 'float16', None, None),
    ((4,), 'float32', (3,), 'float32', None, None), ((4, 3), 'float32', (3,), 'float32', (3,), 'int64'),
    ((4,), 'float32', (3,), 'float32', (3,), 'int64'),
    ((4, 0), 'float32', (3,), 'float32', (3,), 'int64'),
    ((4, 3), 'float32', (3, 3), 'float32', (3,), 'int64'),
    ((4, 3), 'bfloat16', (3,), 'float32', (3,), 'float32'),
    ((4, 3), 'bfloat16', (3,), 'float32', (3,), 'bfloat16'),
]


@pytest.mark.parametrize('case', BN_STATS_CASES, ids=str)
def test_batch_norm_update_stats_dtypes(case):
    shape, dt, ms, mdt, vs, vdt = case

    def f(T):
        m = None if ms is None else T.ones(ms, dtype=getattr(T, mdt))
        v = None if vs is None else T.ones(vs, dtype=getattr(T, vdt))
        return T.batch_norm_update_stats(T.ones(shape, dtype=getattr(T, dt)), m, v, 1.0)
    check(f, grad=False, match_message=True)
