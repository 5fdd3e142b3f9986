"""Matrix products: mm, matmul (every batch/broadcast form), bmm, mv, dot, outer, addmm,
baddbmm, einsum. Backward formulas are products again, so they are differentiable too."""
import numpy as np

from .. import _dtype
from ._core import Node, Tensor, register, track, result, to_tensor, METHODS

__all__ = ['mm', 'matmul', 'bmm', 'mv', 'dot', 'outer', 'addmm', 'einsum']


def _same_dtype(a, b, op):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{a.dtype.name if a.dtype is not _dtype.float32 else 'float'} != "
                           f"{b.dtype.name if b.dtype is not _dtype.float32 else 'float'}"
                           if op in ('mm', 'matmul', 'addmm') else
                           f"{op}: expected both tensors to have the same dtype, but got "
                           f"{a.dtype} and {b.dtype}")


def _check_dims(t, nd, op, name):
    if t._data.ndim != nd:
        what = {1: 'a vector', 2: 'a matrix', 3: '3D tensor'}[nd]
        raise RuntimeError(f"{op}: Expected {name} to be {what}, but got {t._data.ndim}-D tensor"
                           if op != 'bmm' else
                           f"batch1 must be a 3D tensor" if name == 'batch1' else
                           "batch2 must be a 3D tensor")


class MmBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = g.mm(b.t()) if self.next_functions[0][0] is not None else None
        gb = a.t().mm(g) if self.next_functions[1][0] is not None else None
        return ga, gb


@register
def mm(input, mat2, *, out=None):
    """Matrix product of two 2-D tensors."""
    _check_dims(input, 2, 'mm', 'self')
    _check_dims(mat2, 2, 'mm', 'mat2')
    _same_dtype(input, mat2, 'mm')
    a, b = input._data, mat2._data
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]}"
                           f" and {b.shape[0]}x{b.shape[1]})")
    n = track(MmBackward0, (input, mat2))
    if n is not None:
        n.save(input, mat2)
    return result(a @ b, n)


class BmmBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        ga = g.matmul(b.mT) if self.next_functions[0][0] is not None else None
        gb = a.mT.matmul(g) if self.next_functions[1][0] is not None else None
        return ga, gb


class MatmulBackward0(BmmBackward0):
    """Batched/broadcast matmul; the engine sums broadcast batch dims back."""


@register
def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D tensors with equal batch sizes."""
    _check_dims(input, 3, 'bmm', 'batch1')
    _check_dims(mat2, 3, 'bmm', 'batch2')
    _same_dtype(input, mat2, 'bmm')
    a, b = input._data, mat2._data
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, "
                           f"{b.shape[1]}].")
    n = track(BmmBackward0, (input, mat2))
    if n is not None:
        n.save(input, mat2)
    return result(np.matmul(a, b), n)


class DotBackward0(Node):
    def backward(self, g):
        a, b = self.saved_tensors
        return g * b, g * a


@register
def dot(input, tensor):
    """Inner product of two 1-D tensors of the same length."""
    a, b = input._data, tensor._data
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{input.dtype.name.capitalize()} and {tensor.dtype.name.capitalize()}"
                           .replace('Float32', 'Float').replace('Float64', 'Double'))
    n = track(DotBackward0, (input, tensor))
    if n is not None:
        n.save(input, tensor)
    return result(np.asarray(np.dot(a, b)), n)


inner = dot
register(dot, name='inner')
register(dot, name='vdot')


class MvBackward0(Node):
    def backward(self, g):
        m, v = self.saved_tensors
        return g.unsqueeze(1) * v.unsqueeze(0), m.t().mv(g)


@register
def mv(input, vec):
    """Matrix-vector product."""
    _check_dims(input, 2, 'mv', 'self')
    a, v = input._data, vec._data
    if v.ndim != 1 or a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({v.shape[0] if v.ndim else ''})")
    _same_dtype(input, vec, 'mv')
    n = track(MvBackward0, (input, vec))
    if n is not None:
        n.save(input, vec)
    return result(a @ v, n)


@register
def outer(input, vec2):
    """Outer product of two 1-D tensors (``input[:, None] * vec2[None, :]``)."""
    return input.unsqueeze(1) * vec2.unsqueeze(0)


ger = outer
register(outer, name='ger')


@register
def matmul(input, other, *, out=None):
    """Matrix product with NumPy/torch semantics: 1-D operands are promoted to matrices and
    the added dim removed; batch dims broadcast."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__ if isinstance(input, Tensor) else type(input).__name__}")
    a, b = input._data, other._data
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 2 and db == 2:
        return mm(input, other)
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1:
        return matmul(input.unsqueeze(0), other).squeeze(-2)
    if db == 1:
        return matmul(input, other.unsqueeze(-1)).squeeze(-1)
    _same_dtype(input, other, 'matmul')
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b.shape[0] if db > 2 else 1}, {a.shape[-1]}] but got: "
                           f"[{b.shape[0] if db > 2 else 1}, {b.shape[-2]}].")
    try:
        r = np.matmul(a, b)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({a.shape[-3]}) must match the size of tensor "
                           f"b ({b.shape[-3]}) at non-singleton dimension 0") from None
    n = track(MatmulBackward0, (input, other))
    if n is not None:
        n.save(input, other)
    return result(r, n)


class AddmmBackward0(Node):
    def backward(self, g):
        m1, m2 = self.saved_tensors
        b, a = self.beta, self.alpha
        gi = g * b if b != 1 else g
        g1 = g.mm(m2.t()) if self.next_functions[1][0] is not None else None
        g2 = m1.t().mm(g) if self.next_functions[2][0] is not None else None
        if a != 1:
            g1 = g1 * a if g1 is not None else None
            g2 = g2 * a if g2 is not None else None
        return gi, g1, g2


@register
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)`` (``input`` broadcasts)."""
    _check_dims(mat1, 2, 'addmm', 'mat1')
    _check_dims(mat2, 2, 'addmm', 'mat2')
    a, b = mat1._data, mat2._data
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]}"
                           f" and {b.shape[0]}x{b.shape[1]})")
    input = to_tensor(input, 'addmm', 'input')
    p = a @ b
    if alpha != 1:
        p *= alpha
    x = input._data
    r = p + (x * beta if beta != 1 else x) if beta != 0 else p
    if r.shape != p.shape:
        raise RuntimeError(f"The expanded size of the tensor ({p.shape[-1]}) must match the "
                           f"existing size ({x.shape[-1]}) at non-singleton dimension 1.  "
                           f"Target sizes: {list(p.shape)}.  Tensor sizes: {list(x.shape)}")
    n = track(AddmmBackward0, (input, mat1, mat2))
    if n is not None:
        n.save(mat1, mat2)
        n.alpha, n.beta = alpha, beta
    return result(np.asarray(r, dtype=p.dtype), n)


@register
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * bmm(batch1, batch2)``."""
    p = bmm(batch1, batch2)
    if alpha != 1:
        p = p * alpha
    return p + input * beta if beta != 0 else p


@register
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``."""
    p = mv(mat, vec)
    return (p * alpha if alpha != 1 else p) + (input * beta if beta != 1 else input)


@register
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    p = bmm(batch1, batch2).sum(0)
    return (p * alpha if alpha != 1 else p) + (input * beta if beta != 1 else input)


# -- einsum ------------------------------------------------------------------------------
class EinsumBackward(Node):
    """Gradient of each operand: the einsum of the output gradient with the other operands."""

    def backward(self, g):
        ops = self.saved_tensors
        ins, out = self.subs
        grads = []
        for i, t in enumerate(ops):
            if self.next_functions[i][0] is None:
                grads.append(None)
                continue
            mine = ins[i]
            others = [s for j, s in enumerate(ins) if j != i]
            present = set(out).union(*others) if others else set(out)
            keep = ''.join(c for c in mine if c in present)
            eq = ','.join([out] + others) + '->' + keep
            r = einsum(eq, g, *[o for j, o in enumerate(ops) if j != i])
            if keep != mine:
                # Letters only this operand had were summed away: broadcast over them again.
                shape = t.shape
                view = [shape[k] if c in present else 1 for k, c in enumerate(mine)]
                order = [keep.index(c) for c in mine if c in present]
                r = r.permute(order) if order != sorted(order) else r
                r = r.reshape(view).expand(shape)
            grads.append(r)
        return tuple(grads)


EinsumBackward.__name__ = EinsumBackward.__qualname__ = 'EinsumBackward0'


def _parse_einsum(eq, ops):
    eq = eq.replace(' ', '')
    if '...' in eq:
        raise NotImplementedError("einsum: '...' is not supported yet in ember")
    if '->' in eq:
        lhs, out = eq.split('->')
    else:
        lhs = eq
        letters = lhs.replace(',', '')
        out = ''.join(sorted(c for c in set(letters) if letters.count(c) == 1))
    ins = lhs.split(',')
    if len(ins) != len(ops):
        raise ValueError(f"einsum(): more operands were provided than specified in the equation"
                         if len(ops) > len(ins) else
                         "einsum(): fewer operands were provided than specified in the equation")
    for s, t in zip(ins, ops):
        if len(s) != t._data.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(s)}) "
                               f"does not match the number of dimensions ({t._data.ndim}) for "
                               f"operand {ops.index(t)} and no ellipsis was given")
        if len(set(s)) != len(s):
            raise NotImplementedError("einsum: repeated subscripts within one operand are not "
                                      "supported yet in ember")
    return ins, out


@register(method=False)
def einsum(equation, *operands):
    """Einstein summation, e.g. ``einsum('bij,bjk->bik', a, b)``."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = tuple(to_tensor(o, 'einsum', 'operands') for o in operands)
    ins, out = _parse_einsum(equation, operands)
    arrs = [o._data for o in operands]
    dt = operands[0].dtype
    for o in operands[1:]:
        dt = _dtype.promote_types(dt, o.dtype)
    arrs = [a.astype(dt.np, copy=False) for a in arrs]
    r = np.asarray(np.einsum(','.join(ins) + '->' + out, *arrs, optimize=len(arrs) > 2),
                   dtype=dt.np)
    n = track(EinsumBackward, operands)
    if n is not None:
        n.save(*operands)
        n.subs = (ins, out)
    return result(r, n)


METHODS['__matmul__'] = matmul
METHODS['__rmatmul__'] = lambda self, other: matmul(other, self)
