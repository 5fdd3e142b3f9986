"""Draws that need more than a transformed uniform or normal: Gamma, Dirichlet, Poisson and
Binomial, from NumPy's generator behind ``ember.manual_seed`` (so seeded runs repeat).

Gamma and Dirichlet draws are differentiable in their concentration by implicit
reparameterisation: a draw ``x = F^-1(u; alpha)`` moves with alpha as
``dx/dalpha = -(dF/dalpha)(x; alpha) / f(x; alpha)`` (F the CDF, f the density). ``dF/dalpha``
is a Richardson-extrapolated central difference of the regularised incomplete gamma / beta
function, evaluated in float64 (series and continued fractions below). As in torch, these
gradients are first order only.
"""
import numpy as np

import ember
from ember._ops import _specfun
from ember._ops.random import _rng
from ember.autograd import Function

_EPS = 1e-15
_MAX_TERMS = 5000


def _lgamma(a):
    return _specfun.lgamma(np.asarray(a, np.float64))


def _gamma_series(a, x):
    """Lower regularised incomplete gamma P(a, x) by its power series (x < a + 1)."""
    term = 1.0 / a
    total = term.copy()
    for n in range(1, _MAX_TERMS):
        term = term * x / (a + n)
        total += term
        if np.all(np.abs(term) <= np.abs(total) * _EPS):
            break
    return total * np.exp(a * np.log(x) - x - _lgamma(a))


def _continued_fraction(first_b, coef, n_terms=_MAX_TERMS):
    """Evaluates ``1 / (b0 + c1 / (b1 + c2 / (b2 + ...)))`` by the modified Lentz method,
    vectorised; ``coef(i)`` returns (c_i, b_i) for i >= 1."""
    tiny = 1e-300
    d = 1.0 / np.where(np.abs(first_b) < tiny, tiny, first_b)
    c = np.full_like(d, 1.0 / tiny)
    h = d.copy()
    for i in range(1, n_terms):
        ci, bi = coef(i)
        d = bi + ci * d
        d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
        c = bi + ci / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        step = d * c
        h = h * step
        if np.all(np.abs(step - 1.0) <= _EPS):
            break
    return h


def _gamma_upper_cf(a, x):
    """Upper regularised incomplete gamma Q(a, x) by its continued fraction (x >= a + 1)."""
    h = _continued_fraction(x + 1.0 - a, lambda i: (-i * (i - a), x + 1.0 - a + 2 * i))
    return h * np.exp(a * np.log(x) - x - _lgamma(a))


def _richardson(f, a):
    """d f / d a by central differences at steps h and h/2, extrapolated (error O(h^4))."""
    h = 1e-3 * np.maximum(a, 1e-3)
    h = np.minimum(h, 0.5 * a)  # keep a - h positive

    def central(step):
        return (f(a + step) - f(a - step)) / (2 * step)
    return (4 * central(h / 2) - central(h)) / 3


def standard_gamma_grad(alpha, x):
    """d x / d alpha for a standard Gamma(alpha) draw x (float64 arrays)."""
    alpha, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(x, np.float64))
    out = np.zeros(alpha.shape)
    series = x < alpha + 1
    log_pdf = (alpha - 1) * np.log(x) - x - _lgamma(alpha)
    for mask, fn, sign in ((series, _gamma_series, 1.0), (~series, _gamma_upper_cf, -1.0)):
        if mask.any():
            a, xs = alpha[mask], x[mask]
            dcdf = sign * _richardson(lambda b: fn(b, xs), a)
            out[mask] = -dcdf / np.exp(log_pdf[mask])
    return out


def _beta_cf(a, b, x):
    """The continued fraction of the incomplete beta function (x < (a+1)/(a+b+2))."""
    def coef(i):
        m = i // 2
        if i % 2:  # odd step
            c = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        else:
            c = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        return c, np.ones_like(x)
    return _continued_fraction(np.ones_like(x), coef)


def _beta_inc(a, b, x):
    """Regularised incomplete beta I_x(a, b), float64 arrays."""
    log_front = a * np.log(x) + b * np.log1p(-x) - (_lgamma(a) + _lgamma(b) - _lgamma(a + b))
    direct = x < (a + 1) / (a + b + 2)
    out = np.empty(np.broadcast(a, b, x).shape)
    if direct.any():
        aa, bb, xx = a[direct], b[direct], x[direct]
        out[direct] = np.exp(log_front[direct]) * _beta_cf(aa, bb, xx) / aa
    if (~direct).any():
        aa, bb, xx = a[~direct], b[~direct], x[~direct]
        out[~direct] = 1 - np.exp(log_front[~direct]) * _beta_cf(bb, aa, 1 - xx) / bb
    return out


def dirichlet_grad(x, alpha, total):
    """d x_i / d alpha_i for a Dirichlet draw, through its Beta(alpha_i, total - alpha_i)
    marginal, moving alpha_i with the total held (float64 arrays of one shape)."""
    x, alpha, total = (np.asarray(v, np.float64) for v in np.broadcast_arrays(x, alpha, total))
    x = np.clip(x, 1e-300, 1 - 1e-16)
    # total held: the backward's (grad - <x, grad>) term accounts for the other entries.
    dcdf = _richardson(lambda a: _beta_inc(a, total - a, x), alpha)
    beta = total - alpha
    log_pdf = (alpha - 1) * np.log(x) + (beta - 1) * np.log1p(-x) \
        - (_lgamma(alpha) + _lgamma(beta) - _lgamma(total))
    return -dcdf / np.exp(log_pdf)


def _tiny(arr):
    return np.finfo(arr.dtype).tiny


class StandardGamma(Function):
    """Gamma(alpha, 1) draws of alpha's shape, differentiable in alpha."""

    @staticmethod
    def forward(ctx, alpha):
        a = alpha._data
        # (asarray: NumPy hands a 0-d parameter's draw back as a Python float)
        x = np.asarray(_rng(None).standard_gamma(a.astype(np.float64))).astype(a.dtype)
        x = np.maximum(x, _tiny(x))
        out = ember.tensor(x)
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        d = standard_gamma_grad(alpha._data, x._data).astype(x._data.dtype)
        return grad * ember.tensor(d)


class SampleDirichlet(Function):
    """Dirichlet(alpha) draws over the last dimension, differentiable in alpha."""

    @staticmethod
    def forward(ctx, alpha):
        a = alpha._data.astype(np.float64)
        g = _rng(None).standard_gamma(a)
        x = g / g.sum(-1, keepdims=True)
        x = np.clip(x, _tiny(alpha._data), 1 - np.finfo(alpha._data.dtype).eps)
        out = ember.tensor(x.astype(alpha._data.dtype))
        ctx.save_for_backward(alpha, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        total = alpha._data.sum(-1, keepdims=True)
        d = ember.tensor(dirichlet_grad(x._data, alpha._data, total).astype(x._data.dtype))
        # x_i moves with alpha_i directly; the simplex constraint shares the change.
        return d * (grad - (x * grad).sum(-1, keepdim=True))


def poisson(rate):
    """Poisson(rate) counts, rate's shape and dtype (no gradient)."""
    r = rate.detach()._data
    return ember.tensor(_rng(None).poisson(r.astype(np.float64)).astype(r.dtype))


def binomial(count, probs):
    """Binomial(count, probs) counts of their shape, probs' dtype (no gradient)."""
    n = count.detach()._data
    p = probs.detach()._data
    return ember.tensor(_rng(None).binomial(n.astype(np.int64), p.astype(np.float64))
                        .astype(p.dtype))


def gamma_p(a, x):
    """Lower regularised incomplete gamma P(a, x) on float64 arrays of one shape (0 at
    x <= 0)."""
    a, x = (np.array(v, np.float64) for v in np.broadcast_arrays(a, x))
    out = np.zeros(a.shape)
    pos = x > 0
    series = pos & (x < a + 1)
    cf = pos & ~series
    if series.any():
        out[series] = _gamma_series(a[series], x[series])
    if cf.any():
        out[cf] = 1 - _gamma_upper_cf(a[cf], x[cf])
    out[np.isinf(x) & (x > 0)] = 1.0
    return out


class GammaInc(Function):
    """``torch.special.gammainc(a, x)``: differentiable in x; like torch, the derivative in
    a is not implemented."""

    @staticmethod
    def forward(ctx, a, x):
        a_, x_ = np.broadcast_arrays(a._data, x._data)
        dt = np.result_type(a._data, x._data)
        ctx.save_for_backward(a, x)
        return ember.tensor(gamma_p(a_, x_).astype(dt))

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")
        density = ember.exp((a - 1) * ember.log(x) - x - ember.lgamma(a))
        return None, grad * density
