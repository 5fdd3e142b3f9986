"""``linalg.eig`` and ``linalg.eigvals``: eigen-decomposition of a general square matrix.

NumPy's ``eig`` is LAPACK's geev, the routine torch calls, so the outputs follow the same
conventions: eigenvalues in geev's order, each eigenvector of unit 2-norm with its
largest component real. The results are always complex (as in torch), and input with
inf or NaN is refused before it reaches LAPACK (as torch does; geev may not return on it).
"""
import numpy as np
from .._tensor import Tensor

from ._core import Node, track1, results, result
from . import linalg as _products
from .reduce import _named, _out_pair
from .complex import real as _real
from .factorizations import _linalg, _matrices, _eye_like, solve
from ..autograd.graph import _SavedOutput
from ..autograd.grad_mode import STATE

__all__ = []

_eig_t = _named('linalg_eig', ('eigenvalues', 'eigenvectors'))


class LinalgEigBackward0(Node):
    """Gradient of ``eig`` (distinct eigenvalues ``L``, eigenvectors ``V``):
    ``gA = V^{-H} (diag(gL) + (V^H gV - V^H V diag(Re(V^H gV))) / E*) V^H`` with
    ``E_ij = L_j - L_i`` off the diagonal. Eigenvectors are only defined up to a phase, so
    a loss that depends on it (``Im diag(V^H gV)`` not ~0) is an error, as in torch."""

    def backward(self, gL, gV=None):
        if self.complex_input is None:  # eigvals: recompute; the formula is phase-free
            A = self.saved_tensors[0]
            L, V = _eig(A, True)
            complex_input = A._data.dtype.kind == 'c'
        else:
            # eig: its own outputs, so that gV (a function of them) and the formula see one
            # V -- with a recomputed V, a second derivative would see a phase-dependent loss
            L, V = self.saved_tensors
            complex_input = self.complex_input
        Vh = V.mH
        inner = gL.diag_embed() if gL is not None else None
        if gV is not None:
            VhgV = Vh.matmul(gV)
            d = VhgV.diagonal(0, -2, -1)
            if not np.allclose(d._data.imag, 0, rtol=1e-2, atol=1e-2):
                raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case "
                                   "are specified up to multiplication by e^{i phi}. The "
                                   "specified loss function depends on this quantity, so it "
                                   "is ill-defined.")
            Lc = L.conj()
            E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1)
            E = E + _eye_like(E)
            off = (VhgV - Vh.matmul(V * _real(d).unsqueeze(-2))) / E
            inner = off if inner is None else off + inner
        gA = solve(Vh, inner.matmul(Vh))
        return gA if complex_input else _real(gA)


def _eig(A, vectors, op='linalg.eig', out=None):
    _products._check_tensor(A, op, 'A', 1)
    a = A._data
    low = a.dtype.char not in 'fdFD' and (a.dtype.kind == 'V' or a.dtype == np.float16)
    if out is not None and a.dtype.char not in 'fdFD' and not low:
        _matrices(A.float(), op)  # (given out=, torch checks the shape first)
    if a.dtype.char not in 'fdFD' and not low:
        raise RuntimeError(f"Unknown Complex ScalarType for {A.dtype.kernel_name}")
    _matrices(A, op)
    if out is not None:
        # (torch checks that the complex results cast into out's tensors before its kernel
        # refuses a half-precision input: eigenvalues first)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        for what, o in zip(('eigenvalues', 'eigenvectors'), outs):
            if isinstance(o, Tensor) and not o.dtype.is_complex:
                c = 'ComplexFloat' if A.dtype.kernel_name == 'BFloat16' else \
                    A.dtype.to_complex().kernel_name
                raise RuntimeError(f"torch.{op}: Expected {what} to be safely castable from "
                                   f"{c} dtype, but got {what} with dtype "
                                   f"{o.dtype.kernel_name}")
    if low:
        raise NotImplementedError(f'"linalg_eig_out_cpu" not implemented for '
                                  f"'{A.dtype.kernel_name}'")
    finite = np.isfinite(a).all((-2, -1))
    if vectors and not finite.all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    cdt = np.result_type(a.dtype, np.complex64)
    n = track1(LinalgEigBackward0, A)
    if not vectors:
        if n is not None:
            n.save(A)
            n.complex_input = None
        # (eigvals does not check: geev's answer for a matrix holding inf or NaN is NaN)
        w = np.full(a.shape[:-1], complex(np.nan, np.nan), cdt)
        w[finite] = np.linalg.eigvals(a[finite])
        return result(w, n)
    w, v = np.linalg.eig(a)
    outs = results([w.astype(cdt), v.astype(cdt)], n)
    if n is not None:
        n._saved = tuple((_SavedOutput(t), t._vc[0]) for t in outs)
        n.complex_input = a.dtype.kind == 'c'
    return outs


@_linalg()
def eig(A, *, out=None):
    """Eigenvalues and eigenvectors (complex, in LAPACK's geev order and normalisation:
    unit norm, largest component real) of a square matrix or a batch."""
    return _out_pair(_eig_t(*_eig(A, True, out=out)), out)


@_linalg()
def eigvals(A, *, out=None):
    """Eigenvalues of a square matrix (or a batch), complex, in geev's order."""
    # (torch computes a differentiable one with linalg_eig: its checks speak in its name)
    op = 'linalg.eig' if A._requires_grad and STATE.enabled else 'linalg.eigvals'
    return _products._out(_eig(A, False, op, out), out)
