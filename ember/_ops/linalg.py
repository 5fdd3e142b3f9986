"""Matrix products: mm, matmul (every 1-D/2-D/batched/broadcast form), bmm, mv, dot, outer,
addmm, addmv, addbmm, baddbmm, einsum.

Backward formulas are products again, so they are differentiable too; each multiplies the
gradient by the other operand's adjoint (``.mH``, the conjugate transpose: the plain transpose
for real tensors, see complex.py). torch builds matmul
and einsum out of other ops (mm, bmm, views, permutes, sums); ember computes each with one
NumPy call, but names the grad_fn after the op torch's decomposition ends with, and raises
the errors of the kernel torch would have called, so both look the same from outside.
"""
import math

import numpy as np

from .. import _dtype
from ._core import Node, Tensor, register, track, result, make, METHODS, opmath_call
from ..autograd.graph import name_saved_values
from .complex import conj_if_complex as cj
from .pointwise import scalar_as, alpha_check, _fit_int
from ..autograd.engine import sum_to

__all__ = ['mm', 'matmul', 'bmm', 'mv', 'dot', 'outer', 'addmm', 'baddbmm', 'einsum']


def _name(t):
    """torch's short dtype name ('Float', 'Double', 'Long', ...) used in its messages."""
    return t.dtype.kernel_name


def _check_tensor(x, op, arg, pos):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _no_bool(kernel, t, *operands):
    """torch's refusal of a bool (or uint16, uint32, uint64, complex32) ``t`` by ``kernel``,
    a product kernel; given the ``operands`` (arrays) of a product, only where all have
    elements (an empty product runs no kernel: the mm of bool (2, 0) and (0, 1) matrices is
    False)."""
    dt = t._data.dtype
    if (dt == np.bool_ or dt.kind == 'u' and dt.itemsize > 1 or dt.kind == 'V' and
            dt.names is not None) and all(o.size for o in operands):  # (complex32: fields)
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_name(t)}\'')


def _mm_shapes(a, b):
    """torch's mm shape error for matrices of shapes ``a`` and ``b``."""
    if a[1] != b[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a[0]}x{a[1]} and "
                           f"{b[0]}x{b[1]})")


def _mm_dtypes(a, b):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{a.dtype.cpp_name} != {b.dtype.cpp_name}")


def _mv_shapes(m, v):
    if m[1] != v[0]:
        raise RuntimeError(f"size mismatch, got input ({m[0]}), mat ({m[0]}x{m[1]}), vec "
                           f"({v[0]})")


def _mv_dtypes(m, v):
    if m._data.dtype != v._data.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_name(v)}, "
                           f"{_name(m)}, and {_name(v)}")


def _bmm_shapes(a, b):
    if a[0] != b[0] or a[2] != b[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a[0]}, {a[2]}] but got: [{b[0]}, {b[1]}].")


def _bmm_dtypes(a, b):
    """torch's bmm refuses two dtypes only where both operands have elements (an empty one
    gives a result of ``b``'s dtype, see ``_bmm_result``)."""
    if a._data.dtype != b._data.dtype and a._data.size and b._data.size:
        raise RuntimeError(f"expected scalar type {_name(a)} but found {_name(b)}")


def _bmm_result(r, b):
    """A bmm result ``r`` of an empty product in ``b``'s dtype (torch's, where it mixes)."""
    return r if r.dtype == b.dtype else r.astype(b.dtype)


def _needs(node, i):
    """Whether input ``i`` of ``node`` has somewhere for a gradient to go."""
    return node.next_functions[i][0] is not None


# -- mm / bmm / mv / dot -------------------------------------------------------------------
def _right_grad(a, b, g):
    """``a^H @ g``, the gradient of ``b`` in ``a @ b``, made in ``b``'s memory order: when ``b``
    is a transposed view (``weight.t()`` in ``linear``) the product is computed transposed,
    so that the gradient, transposed back on its way to the weight, is one whole contiguous
    array that ``.grad`` can take over instead of copying."""
    if b._data.ndim == 2 and not b._data.flags.c_contiguous and b._data.flags.f_contiguous:
        return g.mT.mm(cj(a)).mT
    return a.mH.mm(g)


class MmBackward0(Node):
    """Gradient of ``mm``: ``g @ b^H`` and ``a^H @ g``."""

    def backward(self, g):
        a, b = self.saved_tensors
        return (g.mm(b.mH) if _needs(self, 0) else None,
                _right_grad(a, b, g) if _needs(self, 1) else None)


@register
def mm(input, mat2, *, out=None):
    """Matrix product of two 2-D tensors of the same dtype."""
    _check_tensor(input, 'mm', 'input', 1)
    _check_tensor(mat2, 'mm', 'mat2', 2)
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    a, b = input._data, mat2._data
    _mm_shapes(a.shape, b.shape)
    _mm_dtypes(input, mat2)
    _no_bool('addmm_impl_cpu_', input, a, b)
    n = track(MmBackward0, (input, mat2))
    if n is not None:
        n.save(input, mat2)
    return _out(result(_product(a, b), n), out)


# (the products' bodies refuse dtypes where torch's kernel runs: not for an empty product,
# which the generated table cannot tell)
mm._refuses_dtypes = True


def _product(a, b, f=np.matmul, rounded=True):
    """``f(a, b)``, a NumPy product; bfloat16 operands multiply and accumulate in float32,
    the result rounded once (as torch computes them; not at all unless ``rounded``)."""
    if a.dtype.kind != 'V':
        return f(a, b)
    return opmath_call(f, a, b) if rounded else f(a.astype(np.float32), b.astype(np.float32))


def _out(r, out):
    if out is None:
        return r
    from .pointwise import _write_out
    return _write_out(out, r)


class BmmBackward0(Node):
    """Gradient of ``bmm``: batched ``g @ b^H`` and ``a^H @ g``."""

    def backward(self, g):
        a, b = self.saved_tensors
        return (g.bmm(b.mH) if _needs(self, 0) else None,
                a.mH.bmm(g) if _needs(self, 1) else None)


def _batch_sizes_read(input, batch1, batch2, batched):
    """torch's addbmm/baddbmm read the result's shape (``batch1.size(0)`` with ``batched``,
    ``batch1.size(1)``, ``batch2.size(2)``) and expand ``input`` to it before checking the
    batches' ranks: the IndexError for batches with too few dims, then expand's error."""
    target = ((batch1.size(0),) if batched else ()) + (batch1.size(1), batch2.size(2))
    shape = input._data.shape
    if len(shape) > len(target):
        input.expand(target)  # (its error, in its words)
    _expandable(shape, target)


@register
def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D tensors with equal batch sizes."""
    _check_tensor(input, 'bmm', 'input', 1)
    _check_tensor(mat2, 'bmm', 'mat2', 2)
    if input._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    a, b = input._data, mat2._data
    _bmm_shapes(a.shape, b.shape)
    _bmm_dtypes(input, mat2)
    _no_bool('bmm', input, a, b)
    n = track(BmmBackward0, (input, mat2))
    if n is not None:
        n.save(input, mat2)
    return _out(result(_bmm_result(_product(a, b), b), n), out)


class DotBackward0(Node):
    """Gradient of ``dot``: the gradient times the other vector (conjugated)."""

    def backward(self, g):
        a, b = self.saved_tensors
        return (g * cj(b) if _needs(self, 0) else None,
                g * cj(a) if _needs(self, 1) else None)


class VdotBackward0(Node):
    """Gradient of ``vdot(a, b) = sum(conj(a) * b)``: conjugate in ``a``, so ``a`` gets
    ``conj(g) * b``; ``b`` gets ``g * a`` (as ``dot`` for real tensors)."""

    def backward(self, g):
        a, b = self.saved_tensors
        return (cj(g) * b if _needs(self, 0) else None,
                g * a if _needs(self, 1) else None)


def _dot(input, tensor, op, cls):
    _check_tensor(input, op, 'input', 1)
    _check_tensor(tensor, op, 'tensor', 2)
    a, b = input._data, tensor._data
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        # (torch's vdot says "dot" here too)
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_name(input)} and {_name(tensor)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    # (vdot's kernel is dot's, but for complex32, which only vdot's names)
    _no_bool('vdot' if op == 'vdot' and a.dtype.kind == 'V' else 'dot', input)
    n = track(cls, (input, tensor))
    if n is not None:
        n.save(input, tensor)
    r = _product(a, b, np.vdot if op == 'vdot' else np.dot)
    return result(np.asarray(r, a.dtype), n)


@register
def dot(input, tensor, *, out=None):
    """Inner product of two 1-D tensors of the same length and dtype."""
    return _out(_dot(input, tensor, 'dot', DotBackward0), out)


@register
def vdot(input, other, *, out=None):
    """``dot`` with ``input`` conjugated (the same for real tensors)."""
    return _out(_dot(input, other, 'vdot', VdotBackward0), out)


class MvBackward0(Node):
    """Gradient of ``mv``: ``outer(g, conj(v))`` and ``m^H @ g``."""

    def backward(self, g):
        m, v = self.saved_tensors
        return (g.unsqueeze(1) * cj(v).unsqueeze(0) if _needs(self, 0) else None,
                m.mH.mv(g) if _needs(self, 1) else None)


@register
def mv(input, vec, *, out=None):
    """Matrix-vector product."""
    _check_tensor(input, 'mv', 'input', 1)
    _check_tensor(vec, 'mv', 'vec', 2)
    a, v = input._data, vec._data
    if a.ndim != 2 or v.ndim != 1:
        if not a.ndim:  # (torch sizes its result by the matrix's first dim)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    _mv_shapes(a.shape, v.shape)
    _mv_dtypes(input, vec)
    _no_bool('addmv_impl_cpu', input, a, v)
    n = track(MvBackward0, (input, vec))
    if n is not None:
        n.save(input, vec)
    return _out(result(_product(a, v), n), out)


@register
def outer(input, vec2, *, out=None):
    """Outer product of two 1-D tensors (``input[:, None] * vec2[None, :]``, promoting)."""
    _check_tensor(input, 'outer', 'input', 1)
    _check_tensor(vec2, 'outer', 'vec2', 2)
    if input._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input._data.ndim}-D")
    if vec2._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    return _out(input.unsqueeze(1) * vec2.unsqueeze(0), out)


ger = outer
register(outer, name='ger')


@register
def inner(input, other, *, out=None):
    """Sum product over the last dims (``dot`` for vectors; a scalar operand multiplies)."""
    _check_tensor(input, 'inner', 'input', 1)
    _check_tensor(other, 'inner', 'other', 2)
    if input._data.ndim == 0 or other._data.ndim == 0:
        return _out(input * other, out)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input._data.shape)} and "
                           f"{list(other._data.shape)}")
    a, b = input._data, other._data
    if a.dtype != b.dtype:  # (torch's inner is its tensordot over the last dims)
        raise RuntimeError("both inputs should have same dtype")
    if a.ndim == 1 == b.ndim or math.prod(a.shape[:-1]) == 1 == math.prod(b.shape[:-1]):
        # (vectors: one element)
        r = sum_of_products(input, other, (a.shape[-1],))
        return _out(r.reshape(a.shape[:-1] + b.shape[:-1]), out)
    _no_bool('addmm_impl_cpu_', input, a, b)  # (tensordot's mm)
    return _out(_tensordot_last(input, other), out)


inner._refuses_dtypes = True  # (its body refuses where torch's kernels run)


def _tensordot_last(a, b):
    # inner(a, b)[i..., j...] = sum_k a[i..., k] b[j..., k]
    la = ''.join(_LETTERS[i] for i in range(a._data.ndim - 1))
    lb = ''.join(_LETTERS[a._data.ndim - 1 + i] for i in range(b._data.ndim - 1))
    k = _LETTERS[-1]
    return einsum(f'{la}{k},{lb}{k}->{la}{lb}', a, b)


def sum_of_products(x, y, shape):
    """torch's tensordot of operands that contract to one element (their other dims all
    of size 1; ``shape``: the contracted dims'): the dot of two contiguous operands, else
    the sum of their products, in their dtype (a bool product is their any())."""
    if x.is_contiguous() and y.is_contiguous():
        if x._data.ndim == 1 == y._data.ndim:
            return dot(x, y)
        return dot(x.reshape(-1), y.reshape(-1))
    return (x.reshape(shape) * y.reshape(shape)).sum(dtype=x.dtype)


# -- matmul ------------------------------------------------------------------------------
class _MatmulBackward(Node):
    """Gradient of a batched/broadcast matmul, 1-D operands included: ``g @ b^H`` and
    ``a^H @ g`` on the operands seen as (batches of) matrices; the engine sums the
    broadcast batch dims back to each operand's shape."""

    def backward(self, g):
        a, b = self.saved_tensors
        a1, b1 = a.dim() == 1, b.dim() == 1
        if a1:
            g = g.unsqueeze(-2)
        if b1:
            g = g.unsqueeze(-1)
        ga = gb = None
        if _needs(self, 0):
            ga = g.matmul(b.unsqueeze(-1).mH if b1 else b.mH)
            if a1:
                ga = ga.squeeze(-2)
        if _needs(self, 1):
            gb = (a.unsqueeze(0).mH if a1 else a.mH).matmul(g)
            if b1:
                gb = gb.squeeze(-1)
        return ga, gb


def _named_node(name):
    cls = type(name, (_MatmulBackward,), {'__doc__': f"Gradient of a matmul that torch "
                                                     f"finishes with a {name[:-9]} op."})
    return cls


_MATMUL_NODES = {n: _named_node(n) for n in (
    'UnsafeViewBackward0', 'CloneBackward0', 'TransposeBackward0', 'SqueezeBackward4')}


def _fold(input, other):
    """Whether torch's matmul folds the batch of the larger operand into a matrix (one mm/mv)
    rather than calling bmm, and if so whether it folds the transposed second operand. It
    depends on requires_grad and strides, which is why both appear here."""
    da, db = input._data.ndim, other._data.ndim
    larger_first = da >= db
    t1 = input._data if larger_first else np.swapaxes(other._data, -1, -2)
    d1, d2 = (da, db) if larger_first else (db, da)
    if not (d1 >= 3 and d2 <= 2):
        return None
    transpose = db > da
    small_grad = other._requires_grad if larger_first else input._requires_grad
    if small_grad:
        return transpose
    if da == 2:
        return None
    if t1.size == 0:
        return transpose
    sh, st = t1.shape, t1.strides
    for i in range(d1 - 2):
        if st[i] != st[i + 1] * sh[i + 1]:
            return None
    return transpose


def _broadcast_batch(sa, sb):
    """Broadcast of two batch shapes, with torch's error naming the offending dim."""
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    out = []
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


@register
def matmul(input, other, *, out=None):
    """Matrix product with torch's semantics: 1-D operands are promoted to matrices and the
    added dim removed again; batch dims broadcast. Operands must share a dtype."""
    _check_tensor(input, 'matmul', 'input', 1)
    _check_tensor(other, 'matmul', 'other', 2)
    a, b = input._data, other._data
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return _out(dot(input, other), out)
    if da == 2 and db == 1:
        return _out(mv(input, other), out)
    if da == 2 and db == 2:
        return _out(mm(input, other), out)
    if da == 1 and db == 2:
        # torch: unsqueeze(0).mm(other).squeeze_(0)
        _mm_shapes((1, a.shape[0]), b.shape)
        _mm_dtypes(input, other)
        _no_bool('addmm_impl_cpu_', input, a, b)
        name = 'SqueezeBackward4'
    else:
        name = _batched_checks(input, other)
    n = track(_MATMUL_NODES[name], (input, other))
    r = _bmm_result(_product(a, b), b)
    if n is not None:
        n.save(input, other)
        if name == 'CloneBackward0' and (r.shape[-1] == 1 or r.shape[-2] == 1 or r.size == 0):
            # torch ends with .mT.contiguous(), a no-op (so no Clone) when already contiguous.
            n.__class__ = _MATMUL_NODES['TransposeBackward0']
    return _out(result(r, n), out)


matmul._refuses_dtypes = True  # (see mm)


def _batched_checks(input, other):
    """Shape/dtype checks for matmul with a >2-D operand, in the form of the kernel torch
    would run; returns the name of torch's final grad_fn."""
    a, b = input._data, other._data
    da, db = a.ndim, b.ndim
    if da == 3 and db == 3 and a.shape[0] == 1 and b.shape[0] != 1:
        # torch squeezes a batch of one matrix and treats it as a 2-D operand.
        squeezed = make(a[0])
        squeezed._requires_grad = input._requires_grad
        return _batched_checks(squeezed, other)
    fold = _fold(input, other)
    if fold is None:
        batch = _broadcast_batch(a.shape[:-2] if da > 2 else (), b.shape[:-2] if db > 2 else ())
        nb = int(np.prod(batch))
        sa = (nb,) + ((1, a.shape[0]) if da == 1 else a.shape[-2:])
        sb = (nb,) + ((b.shape[0], 1) if db == 1 else b.shape[-2:])
        _bmm_shapes(sa, sb)
        _bmm_dtypes(input, other)
        _no_bool('bmm', input, a, b)
        return 'UnsafeViewBackward0'
    if not fold:
        rows = int(np.prod(a.shape[:-1]))
        if db == 1:
            _mv_shapes((rows, a.shape[-1]), b.shape)
            _mv_dtypes(input, other)
            _no_bool('addmv_impl_cpu', input, a, b)
        else:
            _mm_shapes((rows, a.shape[-1]), b.shape)
            _mm_dtypes(input, other)
            _no_bool('addmm_impl_cpu_', input, a, b)
        return 'UnsafeViewBackward0'
    # Transposed fold: other^T folded into a matrix, times input (or input^T).
    rows = int(np.prod(b.shape[:-2])) * b.shape[-1]
    if da == 1:
        _mv_shapes((rows, b.shape[-2]), a.shape)
        _mv_dtypes(other, input)
        _no_bool('addmv_impl_cpu', other, a, b)
        return 'UnsafeViewBackward0'
    _mm_shapes((rows, b.shape[-2]), (a.shape[1], a.shape[0]))
    _mm_dtypes(other, input)
    _no_bool('addmm_impl_cpu_', other, a, b)
    return 'CloneBackward0'


# -- fused multiply-adds -----------------------------------------------------------------
def _scaled(g, s):
    """``g`` times the derivative factor ``s`` (a Python number, conjugated if complex)."""
    return g if s == 1 else g * cj(s)


def _input_grad(node, g):
    """``beta * g`` summed down to the (broadcast) input's shape: torch's add* nodes hand
    node hooks the summed gradient, not the engine's later reduction."""
    return sum_to(_scaled(g, node.beta), node._meta[0][0])


class AddmmBackward0(Node):
    """Gradient of ``addmm``: ``beta * g`` for input, ``alpha * g @ m2^H`` and
    ``alpha * m1^H @ g`` for the matrices (``alpha``, ``beta`` conjugated if complex)."""

    def backward(self, g):
        m1, m2 = self.saved_tensors
        return (_input_grad(self, g) if _needs(self, 0) else None,
                _scaled(g.mm(m2.mH), self.alpha) if _needs(self, 1) else None,
                _scaled(_right_grad(m1, m2, g), self.alpha) if _needs(self, 2) else None)


class BaddbmmBackward0(Node):
    """Gradient of ``baddbmm``: as addmm's, batched."""

    def backward(self, g):
        b1, b2 = self.saved_tensors
        return (_input_grad(self, g) if _needs(self, 0) else None,
                _scaled(g.bmm(b2.mH), self.alpha) if _needs(self, 1) else None,
                _scaled(b1.mH.bmm(g), self.alpha) if _needs(self, 2) else None)


class AddmvBackward0(Node):
    """Gradient of ``addmv``."""

    def backward(self, g):
        m, v = self.saved_tensors
        return (_input_grad(self, g) if _needs(self, 0) else None,
                _scaled(g.unsqueeze(1) * cj(v).unsqueeze(0), self.alpha) if _needs(self, 1)
                else None,
                _scaled(m.mH.mv(g), self.alpha) if _needs(self, 2) else None)


class AddbmmBackward0(Node):
    """Gradient of ``addbmm``: the product gradient repeated over the summed batch."""

    def backward(self, g):
        b1, b2 = self.saved_tensors
        gb = g.unsqueeze(0).expand((b1.shape[0],) + tuple(g.shape))
        return (_input_grad(self, g) if _needs(self, 0) else None,
                _scaled(gb.bmm(b2.mH), self.alpha) if _needs(self, 1) else None,
                _scaled(b1.mH.bmm(gb), self.alpha) if _needs(self, 2) else None)


def _expandable(shape, target):
    """torch's error when ``shape`` does not expand to ``target``."""
    try:
        ok = np.broadcast_shapes(shape, target) == target
    except ValueError:
        ok = False
    if not ok:
        k = next((i for i in range(1, min(len(shape), len(target)) + 1)
                  if shape[-i] != target[-i] and shape[-i] != 1), 1)
        raise RuntimeError(f"The expanded size of the tensor ({target[-k]}) must match the "
                           f"existing size ({shape[-k]}) at non-singleton dimension "
                           f"{len(target) - k}.  Target sizes: {list(target)}.  Tensor sizes: "
                           f"{list(shape)}")


def _fused(op, cls, input, m1, m2, p, beta, alpha, first, second):
    """``beta * input + alpha * p`` (``p`` the product array), with torch's checks: input
    broadcasts to the product's shape, all dtypes equal; ``beta == 0`` ignores input (NaN
    included). bfloat16 products come unrounded, in float32 (``_product(.., rounded=False)``)."""
    _check_tensor(input, op, 'input', 1)
    x = input._data
    dt = m2._data.dtype
    if x.ndim > p.ndim:
        input.expand(p.shape)  # (its error, in its words)
    _expandable(x.shape, p.shape)
    if op == 'baddbmm':
        if x.dtype == m1._data.dtype != dt:  # (the kernel's check: batch2 against the rest)
            raise RuntimeError(f"expected scalar type {_name(m1)} but found {_name(m2)}")
        if not (x.dtype == m1._data.dtype == m2._data.dtype):
            raise RuntimeError(f"Input dtypes must be the same, got: input "
                               f"{input.dtype.cpp_name}, batch1: {m1.dtype.cpp_name}, "
                               f"batch2: {m2.dtype.cpp_name}")
    elif x.dtype != dt:
        raise RuntimeError(f"self and {second} must have the same dtype, but got "
                           f"{_name(input)} and {_name(m2)}")
    if dt.kind == 'V':  # bfloat16: all of it in float32 (p is already), rounded once
        x = x.astype(np.float32)
    # An integer result truncates a fractional alpha/beta, as torch converts its Scalars.
    alpha, beta = scalar_as(alpha, dt), scalar_as(beta, dt)
    r = p * alpha if alpha != 1 else p
    if beta != 0:
        r = r + (x * beta if beta != 1 else x)
    n = track(cls, (input, m1, m2))
    if n is not None:
        n.save(m1, m2)
        n.alpha, n.beta = alpha, beta
    return result(np.asarray(r, dtype=dt), n)


@register
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)`` (``input`` broadcasts)."""
    _check_tensor(mat1, 'addmm', 'mat1', 2)
    _check_tensor(mat2, 'addmm', 'mat2', 3)
    a, b = mat1._data, mat2._data
    # (torch's order: input's dtype against mat2's, mat1's against mat2's, the dims, the
    # shapes, then input expanded to the product's shape)
    if isinstance(input, Tensor) and input._data.dtype != b.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_name(input)} "
                           f"and {_name(mat2)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_name(mat1)} and "
                           f"{_name(mat2)}")
    for t, nm in ((mat1, 'mat1'), (mat2, 'mat2')):
        if t._data.ndim != 2:
            raise RuntimeError(f"{nm} must be a matrix, got {t._data.ndim}-D tensor")
    _mm_shapes(a.shape, b.shape)
    # (an empty result or inner dim runs no kernel; a bool one over an empty inner dim
    # meets torch's cast of beta * input instead: the kernel's refusal stands for it)
    if a.shape[0] and b.shape[1] and (a.shape[1] or a.dtype == np.bool_):
        _no_bool('addmm_impl_cpu_', mat1)
    return _out(_fused('addmm', AddmmBackward0, input, mat1, mat2,
                       _product(a, b, rounded=False), beta, alpha,
                       'mat1', 'mat2'), out)


@register
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * bmm(batch1, batch2)`` (``input`` broadcasts)."""
    _check_tensor(batch1, 'baddbmm', 'batch1', 2)
    _check_tensor(batch2, 'baddbmm', 'batch2', 3)
    _check_tensor(input, 'baddbmm', 'input', 1)
    _batch_sizes_read(input, batch1, batch2, True)
    for t, nm in ((batch1, 'batch1'), (batch2, 'batch2')):
        if t._data.ndim != 3:
            raise RuntimeError(f"{nm} must be a 3D tensor")
    a, b = batch1._data, batch2._data
    _bmm_shapes(a.shape, b.shape)
    _no_bool('baddbmm_cpu', batch1)
    return _out(_fused('baddbmm', BaddbmmBackward0, input, batch1, batch2,
                       _product(a, b, rounded=False), beta, alpha, 'batch1', 'batch2'), out)


@register
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``."""
    _check_tensor(mat, 'addmv', 'mat', 2)
    _check_tensor(vec, 'addmv', 'vec', 3)
    if mat._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, "
                           f"{mat._data.ndim}, {vec._data.ndim}")
    _mv_shapes(mat._data.shape, vec._data.shape)
    _mv_dtypes(mat, vec)
    return _out(_fused('addmv', AddmvBackward0, input, mat, vec,
                       _product(mat._data, vec._data, rounded=False), beta, alpha, 'mat', 'vec'),
                out)


@register
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    _check_tensor(batch1, 'addbmm', 'batch1', 2)
    _check_tensor(batch2, 'addbmm', 'batch2', 3)
    _check_tensor(input, 'addbmm', 'input', 1)
    _batch_sizes_read(input, batch1, batch2, False)
    for t, nm in ((batch1, 'batch1'), (batch2, 'batch2')):
        if t._data.ndim != 3:
            raise RuntimeError(f"{nm} must be a 3D tensor")
    a, b = batch1._data, batch2._data
    # (torch's order: input expanded to the result's shape (above), the batches, the inner
    # sizes, then the dtypes as its addmm of the batches laid side by side meets them:
    # input and the second, the first and the second)
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{a.shape[0]} and {b.shape[0]}")
    if a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({a.shape[1]}x{a.shape[2]} and "
                           f"{b.shape[1]}x{b.shape[2]})")
    for first, t in (('self', input), ('mat1', batch1)):
        if a.shape[0] and t._data.dtype != b.dtype:
            raise RuntimeError(f"{first} and mat2 must have the same dtype, but got "
                               f"{_name(t)} and {_name(batch2)}")
    p = _product(a, b, rounded=False).sum(0) if a.shape[0] else \
        np.zeros((a.shape[1], b.shape[2]), _dtype.opmath(a).dtype)
    return _out(_fused('addbmm', AddbmmBackward0, input, batch1, batch2, p, beta, alpha,
                       'batch1', 'batch2'), out)


class AddrBackward0(Node):
    """Gradient of ``addr``: ``beta * g`` to input, ``alpha * g @ conj(vec2)`` and
    ``alpha * g^T @ conj(vec1)`` to the vectors."""

    def backward(self, g):
        v1, v2 = (v.to(g.dtype) for v in self.saved_tensors)
        return (_scaled(g, self.beta) if _needs(self, 0) else None,
                _scaled(g.mv(cj(v2)), self.alpha) if _needs(self, 1) else None,
                _scaled(g.t().mv(cj(v1)), self.alpha) if _needs(self, 2) else None)


@register
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)``; all three promote, input broadcasts."""
    _check_tensor(input, 'addr', 'input', 1)
    _check_tensor(vec1, 'addr', 'vec1', 2)
    _check_tensor(vec2, 'addr', 'vec2', 3)
    _check_addr_vectors(vec1, vec2)
    dt = _dtype.promote_types(_dtype.promote_types(input.dtype, vec1.dtype), vec2.dtype)
    x, a, b = (t._data.astype(dt.np, copy=False) for t in (input, vec1, vec2))
    shape = (a.shape[0], b.shape[0])
    _expandable(x.shape, shape)
    beta, alpha = _addr_scalar(beta, dt.np, 'beta'), _addr_scalar(alpha, dt.np, 'alpha')
    if dt.np.kind == 'b':  # torch reads alpha and beta as booleans here
        r = np.logical_and(np.multiply.outer(a, b), bool(alpha))
        if beta:
            r = r | x
    else:
        if dt.np.kind == 'V':  # bfloat16: computed in float32, rounded once
            x, a, b = (y.astype(np.float32) for y in (x, a, b))
        r = np.multiply.outer(a, b) * alpha
        if beta != 0:  # (beta == 0 ignores input, nan included)
            r = r + x * beta
    n = track(AddrBackward0, (input, vec1, vec2))
    if n is not None:
        n.save(vec1, vec2)
        n.alpha, n.beta = alpha, beta
    return _out(result(np.broadcast_to(np.asarray(r, dt.np), shape).copy(), n), out)


def _addr_scalar(value, np_dtype, name):
    """addr's ``alpha``/``beta`` as torch takes them: its rule for a bool, or a float with
    an integral result (``alpha_check``; a complex one for a real floating result is the
    conversion's error instead), then converted to the result dtype (``scalar_as``; an int
    out of an integer dtype's range refused, a negative one wrapped into an unsigned one)."""
    kind = np.dtype(np_dtype).kind
    if kind in 'biu' or not isinstance(value, (complex, np.complexfloating)):
        alpha_check(value, kind, name)
    value = scalar_as(value, np_dtype)
    return _fit_int(value, np_dtype) if kind in 'iu' else value


def _check_addr_vectors(vec1, vec2):
    for t, nm in ((vec1, 'vec1'), (vec2, 'vec2')):
        if isinstance(t, Tensor) and t._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {nm}, but got {t._data.ndim}-D")


def _check_addr_self(self, a, b):
    """``addr_``'s own checks of the tensor written (after the vectors' dims): a matrix of
    the outer product's shape."""
    _check_addr_vectors(a, b)
    if self._data.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {self._data.ndim}D tensor for input")
    if isinstance(a, Tensor) and isinstance(b, Tensor) and \
            self._data.shape != (a._data.shape[0], b._data.shape[0]):
        raise RuntimeError(f"size mismatch, input: {list(self._data.shape)}, v1: "
                           f"{list(a._data.shape)}, v2: {list(b._data.shape)}")


def _inplace_fused(name, op, check=None):
    """The Tensor method ``<name>_``: ``op`` computed into ``self`` (which must already have
    the result's shape: in place, input does not broadcast); ``check(self, a, b)`` first."""
    def method(self, a, b, *, beta=1, alpha=1):
        from ._core import inplace, check_inplace
        if check is not None:
            check_inplace(self, name + '_')  # (a leaf that requires grad: refused first)
            check(self, a, b)
        return inplace(self, lambda t, p, q: op(t, p, q, beta=beta, alpha=alpha), (a, b),
                       name + '_')
    method.__name__ = method.__qualname__ = name + '_'
    method.__doc__ = f"In-place ``{name}``."
    register(method, function=False)


for _op in (addmm, addbmm, baddbmm, addmv):
    _inplace_fused(_op.__name__, _op)
_inplace_fused('addr', addr, _check_addr_self)


# -- einsum ------------------------------------------------------------------------------
_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'


class _EinsumBackward(Node):
    """Gradient of einsum: for each operand, an einsum of the output gradient with the other
    operands back to the operand's subscripts. Subscripts the operand repeats (a diagonal)
    are split into fresh letters tied together by identity matrices; subscripts only it has
    (summed away) come back through a vector of ones. All of it is einsum again, so
    differentiable."""

    def backward(self, g):
        ops = self.saved_tensors
        ins, out = self.subs
        grads = []
        for i, t in enumerate(ops):
            if not _needs(self, i):
                grads.append(None)
                continue
            terms = [out] + [s for j, s in enumerate(ins) if j != i]
            args = [g] + [cj(o) for j, o in enumerate(ops) if j != i]
            present = set(''.join(terms))
            fresh = iter(c for c in _LETTERS if c not in set(''.join(ins) + out))
            target = ''
            seen = set()
            for k, c in enumerate(ins[i]):
                n = t._data.shape[k]
                if c in seen:
                    # a repeated subscript: a new letter, equal to c through an identity
                    f = next(fresh)
                    terms.append(c + f)
                    args.append(make(np.eye(n, dtype=t._data.dtype)))
                    target += f
                    continue
                seen.add(c)
                target += c
                if c not in present:
                    terms.append(c)
                    args.append(make(np.ones(n, t._data.dtype)))
                    present.add(c)
            grads.append(einsum(','.join(terms) + '->' + target, *args))
        return tuple(grads)


def _einsum_node(name):
    return type(name, (_EinsumBackward,), {'__doc__': f"Gradient of an einsum that torch "
                                                      f"finishes with a {name[:-9]} op."})


_EINSUM_NODES = {n: _einsum_node(n) for n in (
    'PermuteBackward0', 'SumBackward1', 'ViewBackward0', 'MulBackward0')}


def _einsum_grad_fn(ins, out):
    """The grad_fn name torch's einsum ends with: a single operand is permuted, or summed if
    it loses a subscript; several are multiplied, through bmm (a view) if any subscript is
    summed."""
    if len(ins) == 1:
        return 'SumBackward1' if set(ins[0]) - set(out) else 'PermuteBackward0'
    # With several operands torch ends with a bmm (then a view) whenever some subscript is
    # summed away, and with a plain product otherwise.
    return 'ViewBackward0' if set(''.join(ins)) - set(out) else 'MulBackward0'


def _parse_einsum(eq, ops):
    arrow = eq.find('->')
    i = 0
    while i < len(eq):
        if i == arrow:
            i += 2
            continue
        if eq[i] not in _LETTERS and eq[i] not in ' ,.':
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the "
                               "equation string, subscripts must be in [a-zA-Z]")
        i += 1
    eq = eq.replace(' ', '')
    lhs, arrow, out = eq.partition('->')
    ins = lhs.split(',')
    if len(ins) > len(ops):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(ins) < len(ops):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    # Ellipses become explicit letters (right-aligned, as broadcasting aligns them).
    used = set(eq)
    spare = [c for c in _LETTERS if c not in used]
    ell_nd = 0
    for i, (s, t) in enumerate(zip(ins, ops)):
        nd = t._data.ndim
        if '...' in s:
            k = nd - (len(s) - 3)
            if k < 0:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({len(s) - 3}) is more than the number of dimensions "
                                   f"({nd}) for operand {i}")
            ell_nd = max(ell_nd, k)
        elif len(s) != nd:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(s)}) "
                               f"does not match the number of dimensions ({nd}) for operand "
                               f"{i} and no ellipsis was given")
    ell = ''.join(spare[:ell_nd])
    ins = [s.replace('...', ell[ell_nd - (t._data.ndim - (len(s) - 3)):]) if '...' in s else s
           for s, t in zip(ins, ops)]
    if arrow:
        out = out.replace('...', ell)
        for c in out:
            if out.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in "
                                   "the output")
            if c not in ''.join(ins):
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   "equation for any input operand")
    else:
        # Implicit output: the ellipsis dims, then the subscripts used once, in order.
        letters = ''.join(ins)
        out = ell + ''.join(sorted((c for c in set(letters) if letters.count(c) == 1
                                    and c not in ell),
                                   key=lambda c: (c.islower(), c)))
    return ins, out


def _sublist_subscript(n):
    """One entry of a subscript list as an equation letter: 0-25 are A-Z, 26-51 a-z."""
    if n is Ellipsis:
        return '...'
    if 0 <= n < 26:
        return chr(ord('A') + n)
    if 26 <= n < 52:
        return chr(ord('a') + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)")


def _sublist_equation(args):
    """The sublist form ``einsum(op0, [0, 1], op1, [1, 2], [0, 2])`` as (equation,
    operands); an odd count of arguments ends with the output's list."""
    equation = ','.join(''.join(map(_sublist_subscript, sub)) for sub in args[1::2])
    if len(args) % 2 == 1:
        return equation + '->' + ''.join(map(_sublist_subscript, args[-1])), args[:-1:2]
    return equation, args[::2]


@register(method=False)
def einsum(equation, *operands):
    """Einstein summation, e.g. ``einsum('bij,bjk->bik', a, b)``; ``...`` stands for
    broadcast dims, a repeated subscript takes a diagonal, size-1 dims broadcast."""
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(equation, Tensor):
        equation, operands = _sublist_equation((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):  # (torch's parser reads it before operands)
        raise TypeError("einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(equation).__name__}")
    for i, o in enumerate(operands):
        if not isinstance(o, Tensor):
            raise TypeError(f"einsum(): argument 'tensors' must be tuple of Tensors, but found "
                            f"element of type {type(o).__name__} at pos {i}")
    ins, out = _parse_einsum(equation, operands)
    # Sizes per subscript; size-1 dims broadcast (through an expand, so gradients sum back).
    size = {}
    for i, (s, t) in enumerate(zip(ins, operands)):
        for c, n in zip(s, t._data.shape):
            if c in size and size[c] != n and n != 1 and size[c] != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} "
                                   f"which does not broadcast with previously seen size "
                                   f"{size[c]}")
            if size.get(c, 1) == 1:
                size[c] = n
    ops = []
    for s, t in zip(ins, operands):
        want = tuple(size[c] for c in s)
        ops.append(t if t._data.shape == want else t.expand(want))
    dt = operands[0]._data.dtype
    for t in operands[1:]:
        if t._data.dtype != dt:
            raise RuntimeError(f"expected scalar type {_name(operands[0])} but found "
                               f"{_name(t)}")
    if dt == np.bool_ and len(ops) > 1 and all(o._data.size for o in ops):
        # (an empty operand leaves torch's bmm nothing to multiply: it runs no kernel)
        raise NotImplementedError('"bmm" not implemented for \'Bool\'')
    arrs = [_dtype.opmath(o._data) for o in ops]  # (bfloat16 in float32, rounded below)
    r = np.asarray(np.einsum(','.join(ins) + '->' + out, *arrs, optimize=len(arrs) > 2),
                   dtype=dt)
    n = track(_EINSUM_NODES[_einsum_grad_fn(ins, out)], ops)
    if n is not None:
        n.save(*ops)
        n.subs = (ins, out)
    return result(r, n)


METHODS['__matmul__'] = matmul
# (torch's __rmatmul__ calls torch.matmul: its handlers and autocast see a matmul)
METHODS['__rmatmul__'] = lambda self, other: METHODS['matmul'](other, self)


# The names torch's nodes give their saved values (``grad_fn._saved_<name>``; the strides
# torch also records are left out: ember's saved tensors keep their own).
name_saved_values(MmBackward0, ('self', 'mat2'), inputs=('self', 'mat2'),
                  sizes=('self_sym_sizes', 'mat2_sym_sizes'))
name_saved_values(BmmBackward0, ('self', 'mat2'))
name_saved_values(AddmmBackward0, ('mat1', 'mat2'), inputs=('self', 'mat1', 'mat2'),
                  sizes=('mat1_sym_sizes', 'mat2_sym_sizes'),
                  attrs={'alpha': 'alpha', 'beta': 'beta'})
name_saved_values(BaddbmmBackward0, ('batch1', 'batch2'), attrs={'alpha': 'alpha', 'beta': 'beta'})
name_saved_values(AddbmmBackward0, ('batch1', 'batch2'), inputs=('self', 'batch1', 'batch2'),
                  sizes=('batch1_sym_argsize_0', 'batch1_sym_argsize_1', 'batch2_sym_argsize_2'),
                  attrs={'alpha': 'alpha', 'beta': 'beta'})
