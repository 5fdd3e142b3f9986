"""Sorting, searching and statistics ops against torch: unique*, searchsorted/bucketize,
bincount/histc, mode/nanmedian, quantile/nanquantile, cov/corrcoef, cdist/dist/renorm and
the top-level distance aliases -- values, dtypes, named tuples, grad_fns, gradients, errors."""
import subprocess
import sys

import numpy as np
import pytest

from .oracle import check, arr

NAN = np.nan
TIES = np.array([[3., 1, 2, 1, 3], [2, 2, 5, 5, 0], [4, 4, 4, 1, 1]])


# -- unique ----------------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float64, np.int64, np.int32, np.bool_])
def test_unique(dtype):
    x = arr(3, 4, dtype=dtype, low=0, high=3) if dtype != np.bool_ else arr(3, 4, dtype=dtype)
    if dtype == np.float64:
        x = np.round(x * 2)
    for kw in [{}, {'return_inverse': True}, {'return_counts': True},
               {'return_inverse': True, 'return_counts': True}, {'sorted': False}]:
        check(lambda T, x: T.unique(x, **kw), x, grad=False)
        check(lambda T, x: x.unique(**kw), x, grad=False)
        check(lambda T, x: T.unique_consecutive(x, **kw), x, grad=False)
        check(lambda T, x: x.unique_consecutive(**kw), x, grad=False)
    for d in [0, 1, -1]:
        check(lambda T, x: T.unique(x, dim=d, return_inverse=True, return_counts=True), x,
              grad=False)
        check(lambda T, x: T.unique_consecutive(x, return_inverse=True, return_counts=True,
                                                dim=d), x, grad=False)


def test_unique_rows_and_graph():
    x = np.array([[1., 2], [0, 5], [1, 2], [1, 2], [0, 5]])
    check(lambda T, x: T.unique(x, dim=0, return_inverse=True, return_counts=True), x,
          grad=False)
    check(lambda T, x: T.unique_consecutive(x, dim=0, return_counts=True), x, grad=False)
    check(lambda T, x: T.unique(x, dim=1), x, grad=False)
    check(lambda T, x: T.unique(x, dim=2), x, grad=False, match_message=True)
    # grad_fn recorded, but no derivative: backward raises as in torch
    check(lambda T, x: T.unique(x), x)
    check(lambda T, x: T.unique(x, dim=0), x)
    check(lambda T, x: T.unique_consecutive(x), x)
    check(lambda T, x: T.unique(x), np.zeros(0), grad=False)
    # every NaN is a distinct value
    check(lambda T, x: T.unique(x, return_inverse=True, return_counts=True),
          np.array([1., NAN, NAN, 2]), grad=False)
    check(lambda T, x: T.unique(x, dim=0), np.array(3.), match_message=True)
    check(lambda T, x: T.unique_consecutive(x, return_inverse=True, return_counts=True),
          np.zeros((0, 2)), grad=False)


# -- searchsorted / bucketize --------------------------------------------------------------
def test_searchsorted():
    seq = np.array([1., 3, 3, 5, 7])
    v = np.array([[0., 3, 4], [7, 8, 3]])
    for kw in [{}, {'right': True}, {'side': 'right'}, {'side': 'left'}, {'out_int32': True},
               {'right': True, 'side': 'right'}]:
        check(lambda T, s, v: T.searchsorted(s, v, **kw), seq, v)
        check(lambda T, s: T.searchsorted(s, 3, **kw), seq)
        check(lambda T, s, v: T.bucketize(v, s, **{k: a for k, a in kw.items()
                                                   if k != 'side'}), seq, v)
    check(lambda T, s: T.bucketize(3, s), seq)
    seq2 = np.array([[1, 2, 3], [2, 4, 6]])
    check(lambda T, s, v: T.searchsorted(s, v), seq2, np.array([[2, 3], [5, 0]]))
    check(lambda T, s, v: T.searchsorted(s, v, right=True), seq2,
          np.array([[2.5, 3], [6, 1]]))
    # NaN values and NaNs in the sequence follow torch's bisection
    check(lambda T, s: T.searchsorted(s, T.tensor([[NAN, 2., 1.]]), right=True),
          np.array([1., 2, NAN]))
    check(lambda T, s: T.searchsorted(s, T.tensor([[NAN, 2.]])), np.array([[1., 2, NAN, 4]]))
    unsorted = np.array([5., 1, 3])
    check(lambda T, s, v: T.searchsorted(s, v, sorter=T.argsort(s)), unsorted, v)
    check(lambda T, s, v: T.searchsorted(s, v, side='up'), seq, v, match_message=True)
    check(lambda T, s, v: T.searchsorted(s, v, side='left', right=True), seq, v,
          match_message=True)
    check(lambda T, s, v: T.searchsorted(s, v), seq2, np.array([1, 2]), match_message=True)
    check(lambda T, s, v: T.bucketize(v, s), seq2, np.array([1, 2]), match_message=True)


# -- bincount / histc --------------------------------------------------------------------------
def test_bincount():
    x = np.array([0, 3, 1, 3, 3, 7])
    check(lambda T, x: T.bincount(x), x)
    check(lambda T, x: x.bincount(minlength=10), x)
    check(lambda T, x: T.bincount(x, minlength=2), np.zeros(0, np.int64))
    for w in [np.linspace(0, 1, 6), np.linspace(0, 1, 6).astype(np.float32), np.arange(6)]:
        check(lambda T, x, w: T.bincount(x, w), x, w, grad=False)
    check(lambda T, x: T.bincount(x), x.astype(np.uint8))
    check(lambda T, x: T.bincount(x), np.array([True, False]), match_message=True)
    for bad in [np.array([1, -1]), np.array([[1]]), np.array([1.])]:
        check(lambda T, x: T.bincount(x), bad, match_message=True)
    check(lambda T, x: T.bincount(x, minlength=-1), x, match_message=True)
    check(lambda T, x, w: T.bincount(x, w), x, np.ones(2), match_message=True)


def test_histc():
    x = arr(20)
    check(lambda T, x: T.histc(x), x)
    check(lambda T, x: x.histc(bins=5, min=-1, max=1), x)
    check(lambda T, x: T.histc(x, bins=4), np.array([1., 2, 3]))
    check(lambda T, x: T.histc(x, bins=4), np.array([1., 1]))
    check(lambda T, x: T.histc(x, bins=3, min=0, max=3), np.array([0., 1, 3, 3, 4, -1]))
    check(lambda T, x: T.histc(x, bins=7), arr(30, dtype=np.float32))
    check(lambda T, x: T.histc(x), np.array([1, 2]), match_message=True)
    check(lambda T, x: T.histc(x, bins=0), x, match_message=True)
    check(lambda T, x: T.histc(x, min=3, max=1), x, match_message=True)


# -- mode / nanmedian -------------------------------------------------------------------------
def test_mode():
    for d in [0, 1, -1]:
        for keepdim in [False, True]:
            check(lambda T, x: T.mode(x, d, keepdim), TIES, double=True)
            check(lambda T, x: x.mode(d, keepdim=keepdim), TIES.astype(np.int64))
    check(lambda T, x: T.mode(x), np.array(2.))
    check(lambda T, x: T.mode(x), np.array([1., 2, 2, 1, 3]))
    check(lambda T, x: T.mode(x), np.zeros(0), match_message=True)


def test_nanmedian():
    x = np.array([[1., NAN, 3, 2], [NAN, NAN, NAN, NAN], [4, 4, NAN, 1], [2, 1, 0, 5]])
    check(lambda T, x: T.nanmedian(x), x, double=True)
    check(lambda T, x: x.nanmedian(), np.array([1., 2, 2, NAN]))
    check(lambda T, x: T.nanmedian(x), np.full(3, NAN))
    check(lambda T, x: T.nanmedian(x), np.zeros(0))
    check(lambda T, x: T.nanmedian(x), TIES.astype(np.int64))
    for d in [0, 1, -1]:
        for keepdim in [False, True]:
            check(lambda T, x: T.nanmedian(x, d, keepdim), x, double=True)
            check(lambda T, x: x.nanmedian(d, keepdim=keepdim), TIES)


# -- quantile --------------------------------------------------------------------------------
@pytest.mark.parametrize('op', ['quantile', 'nanquantile'])
@pytest.mark.parametrize('interp', ['linear', 'lower', 'higher', 'midpoint', 'nearest'])
def test_quantile(op, interp):
    x = arr(3, 5)
    xn = x.copy()
    xn[0, 1] = xn[2, :] = NAN
    q = np.array([0., 0.25, 0.5, 0.9, 1.])
    for data in [x, xn]:
        check(lambda T, x: getattr(T, op)(x, 0.3, interpolation=interp), data, double=True)
        # (q is passed without grad: ember differentiates quantiles w.r.t. the input only)
        check(lambda T, x: getattr(T, op)(x, T.tensor(q), interpolation=interp), data)
        for d, keepdim in [(0, False), (1, True), (-1, False)]:
            check(lambda T, x: getattr(x, op)(0.625, d, keepdim, interpolation=interp), data,
                  double=True)
            check(lambda T, x: getattr(T, op)(x, T.tensor(q), d, keepdim,
                                              interpolation=interp), data)
    check(lambda T, x: getattr(T, op)(x, 0.5, keepdim=True, interpolation=interp),
          arr(2, 3, dtype=np.float32))
    check(lambda T, x: getattr(T, op)(x, 0.5, 0, interpolation=interp), np.array(1.5))


def test_quantile_errors():
    x = arr(4)
    for q in [1.5, -0.1]:
        check(lambda T, x: T.quantile(x, q), x, match_message=True)
    check(lambda T, x: T.quantile(x, 0.5), np.array([1, 2]), match_message=True)
    check(lambda T, x: T.quantile(x, 0.5, interpolation='cubic'), x, match_message=True)
    check(lambda T, x, q: T.quantile(x, q), x, np.array([[0.5]]), match_message=True)
    check(lambda T, x, q: T.quantile(x, q), x, np.array([0.5], np.float32),
          match_message=True)
    check(lambda T, x: T.nanquantile(x, 0.5), np.zeros(0), match_message=True)
    check(lambda T, x, q: T.quantile(x, q), x, np.array([2., 0.5]), match_message=True)


# -- cov / corrcoef ----------------------------------------------------------------------------
def test_cov_corrcoef():
    x = arr(3, 6)
    fw = np.array([1, 2, 0, 3, 1, 1])
    aw = np.linspace(0.1, 1, 6)
    check(lambda T, x: T.cov(x), x, double=True)
    check(lambda T, x: x.cov(correction=0), x, double=True)
    check(lambda T, x: T.cov(x), arr(6))
    check(lambda T, x, f: T.cov(x, fweights=f), x, fw, double=True)
    check(lambda T, x, a: T.cov(x, aweights=a), x, aw, double=True)
    check(lambda T, x, f, a: T.cov(x, correction=2, fweights=f, aweights=a), x, fw, aw)
    check(lambda T, x: T.cov(x), np.array([[1, 2, 4], [0, 3, 3]]))
    check(lambda T, x: T.corrcoef(x), x, double=True)
    check(lambda T, x: x.corrcoef(), arr(6))
    check(lambda T, x: T.corrcoef(x), np.array([[1, 2, 4], [0, 3, 3]]))
    check(lambda T, x: T.cov(x), arr(2, 2, 2), match_message=True)
    check(lambda T, x, f: T.cov(x, fweights=f), x, -fw, match_message=True)
    check(lambda T, x, f: T.cov(x, fweights=f), x, aw, match_message=True)
    check(lambda T, x, a: T.cov(x, aweights=a), x, aw[:3], match_message=True)


# -- distances ---------------------------------------------------------------------------------
@pytest.mark.parametrize('p', [0., 1., 2., 3., 0.5, float('inf')])
def test_cdist_dist(p):
    a, b = arr(2, 3, 4), arr(2, 5, 4, seed=1)
    # (torch has no second derivative of cdist, and its dist(p=0) backward fails: ember's
    # zero gradient there is not compared)
    check(lambda T, a, b: T.cdist(a, b, p), a, b)
    check(lambda T, a, b: T.cdist(a, b, p, 'donot_use_mm_for_euclid_dist'), a[0], b[0])
    check(lambda T, a, b: T.dist(a, b, p), a, b[:, :3], grad=p != 0., double=True)
    check(lambda T, a, b: a.dist(b, p), a.astype(np.float32), b[:, :3].astype(np.float32),
          grad=p != 0.)


def test_cdist_errors():
    check(lambda T, a, b: T.cdist(a, b), arr(3), arr(3), match_message=True)
    check(lambda T, a, b: T.cdist(a, b), arr(2, 3), arr(2, 4), match_message=True)
    check(lambda T, a, b: T.cdist(a, b, -1.), arr(2, 3), arr(2, 3), match_message=True)
    check(lambda T, a, b: T.dist(a, b), np.array([1, 2]), np.array([1, 3]),
          match_message=True)


def test_renorm():
    x = arr(3, 4, 2)
    for p, d, m in [(2, 0, 1.), (1, 1, 0.5), (3, -1, 2.), (2, 0, 100.)]:
        check(lambda T, x: T.renorm(x, p, d, m), x, double=True)
        check(lambda T, x: x.renorm(p, d, m), x.astype(np.float32))
        check(lambda T, x: (x * 1).renorm_(p, d, m), x)
    check(lambda T, x: T.renorm(x, 0, 0, 1.), x, match_message=True)
    check(lambda T, x: T.renorm(x, 2, 0, -1.), x, match_message=True)


def test_top_level_distance_aliases():
    a, b = arr(3, 4), arr(3, 4, seed=1)
    check(lambda T, a: T.pdist(a), a)
    check(lambda T, a: T.pdist(a, 1.5), a)
    check(lambda T, a, b: T.pairwise_distance(a, b), a, b, double=True)
    check(lambda T, a, b: T.pairwise_distance(a, b, 1., 1e-3, True), a, b)
    check(lambda T, a, b: T.cosine_similarity(a, b), a, b, double=True)
    check(lambda T, a, b: T.cosine_similarity(a, b, 0), a, b)


def test_import_keeps_nn_lazy():
    code = "import sys, ember; assert 'ember.nn' not in sys.modules, 'ember.nn imported'"
    subprocess.run([sys.executable, '-c', code], check=True)
