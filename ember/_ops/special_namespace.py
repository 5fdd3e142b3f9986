"""The ``ember.special`` namespace (torch.special's 56 functions): ``SPECIAL`` maps each name
to its public, dispatching function (``overrides`` lists them under ``ember.special``).

The functions are defined where their families live -- ``special_fns`` (erfc, erfcx, ndtr,
ndtri, log_ndtr, entr, i0e, i1, i1e, xlog1py, zeta, gammainc/gammaincc), ``bessel``,
``polynomials``, and the ops ``ember`` itself has (``special``: digamma, polygamma,
multigammaln = mvlgamma, gammaln = lgamma, erfinv, i0, sinc, logit, xlogy; ``pointwise``:
erf, exp2, expm1, log1p, expit = sigmoid, round (refusing integers, as torch.special does);
``reduce``: logsumexp, softmax, log_softmax). As in torch, an alias computes exactly what the function it names does, grad_fn
included (``special.expit(x).grad_fn`` is a ``SigmoidBackward0``).
"""
from . import pointwise, reduce, special
from ._core import Tensor, dtype_of
from . import special_fns as fns
from .bessel import BESSEL
from .polynomials import POLYNOMIALS
from ..overrides import overridable

__all__ = ['SPECIAL']


def softmax(input, dim, dtype=None):
    """Softmax along ``dim`` (``dtype``: cast the input first); torch.special's signature of
    ``ember.softmax``."""
    return reduce.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    """Log-softmax along ``dim`` (``dtype``: cast the input first); torch.special's signature
    of ``ember.log_softmax``."""
    return reduce.log_softmax(input, dim, dtype)


def round(input, *, decimals=0, out=None):  # noqa: A001  (torch's name)
    """``ember.round``, except that integer and bool tensors are refused, as torch.special
    refuses them (torch.round passes them through)."""
    if isinstance(input, Tensor) and input._data.dtype.kind in 'iub':
        kernel = 'round_vml_cpu' if decimals == 0 else 'round_cpu'
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtype_of(input).kernel_name}'")
    return pointwise.round(input, decimals=decimals, out=out)


_IMPLEMENTATIONS = {
    # the ember ops torch.special names too (some under another name)
    'digamma': special.digamma, 'psi': special.digamma, 'polygamma': special.polygamma,
    'multigammaln': special.mvlgamma, 'gammaln': special.lgamma, 'erfinv': special.erfinv,
    'i0': special.i0, 'sinc': special.sinc, 'logit': special.logit, 'xlogy': special.xlogy,
    'erf': pointwise.erf, 'exp2': pointwise.exp2, 'expm1': pointwise.expm1,
    'log1p': pointwise.log1p, 'expit': pointwise.sigmoid, 'round': round,
    'logsumexp': reduce.logsumexp, 'softmax': softmax, 'log_softmax': log_softmax,
    # torch.special's own
    'erfc': fns.erfc, 'erfcx': fns.erfcx, 'ndtr': fns.ndtr, 'ndtri': fns.ndtri,
    'log_ndtr': fns.log_ndtr, 'entr': fns.entr, 'i0e': fns.i0e, 'i1': fns.i1, 'i1e': fns.i1e,
    'xlog1py': fns.xlog1py, 'zeta': fns.zeta, 'gammainc': fns.gammainc,
    'gammaincc': fns.gammaincc,
    **BESSEL, **POLYNOMIALS,
}

# ember.special.<name> -> the dispatching public function
SPECIAL = {name: overridable(impl, 'ember.special.' + name)
           for name, impl in _IMPLEMENTATIONS.items()}
