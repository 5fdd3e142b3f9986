"""Every differentiable op's derivatives checked numerically (finite differences, float64)
to first and second order with ember's own gradcheck/gradgradcheck -- independent of torch."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def pos(*shape):
    """Inputs away from kinks and domain edges, so finite differences are well defined."""
    return ember.tensor(RNG.uniform(0.5, 1.5, shape), requires_grad=True)


def signed(*shape):
    return ember.tensor(RNG.uniform(0.3, 1.2, shape) * RNG.choice([-1, 1], shape),
                        requires_grad=True)


UNARY = ['exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sqrt', 'rsqrt', 'square',
         'reciprocal', 'sin', 'cos', 'tan', 'atan', 'sinh', 'cosh', 'tanh', 'sigmoid', 'erf',
         'neg', 'abs', 'relu', 'frac']
CASES = [(f'{op}', lambda t, op=op: getattr(t, op)(), [signed(2, 3)])
         for op in UNARY if op not in ('log', 'log2', 'log10', 'sqrt', 'rsqrt', 'frac')]
CASES += [(op, lambda t, op=op: getattr(t, op)(), [pos(2, 3)])
          for op in ('log', 'log2', 'log10', 'sqrt', 'rsqrt')]
CASES += [
    ('asin', lambda t: (t * 0.5).asin(), [signed(4)]),
    ('acos', lambda t: (t * 0.5).acos(), [signed(4)]),
    ('add_broadcast', lambda a, b: a + b * 2, [signed(2, 3), signed(3)]),
    ('sub_alpha', lambda a, b: ember.sub(a, b, alpha=0.5), [signed(2, 3), signed(2, 1)]),
    ('mul', lambda a, b: a * b, [signed(2, 3), signed(3)]),
    ('div', lambda a, b: a / b, [signed(2, 3), pos(3)]),
    ('pow_tensor', lambda a, b: a ** b, [pos(3), signed(3)]),
    ('pow_scalar', lambda a: a ** 3, [signed(3)]),
    ('rpow', lambda a: 2 ** a, [signed(3)]),
    ('atan2', lambda a, b: ember.atan2(a, b), [signed(3), pos(3)]),
    ('maximum', lambda a, b: ember.maximum(a, b), [signed(4), signed(4)]),
    ('hypot', lambda a, b: ember.hypot(a, b), [signed(3), signed(3)]),
    ('logaddexp', lambda a, b: ember.logaddexp(a, b), [signed(3), signed(3)]),
    ('clamp_tensor', lambda a, lo: a.clamp(min=lo), [signed(4), signed(4)]),
    ('lerp', lambda a, b, w: ember.lerp(a, b, w), [signed(3), signed(3), pos(3)]),
    ('addcdiv', lambda a, b, c: ember.addcdiv(a, b, c, value=0.5), [signed(3), signed(3), pos(3)]),
    ('where', lambda a, b: ember.where(a > 0, a * b, b), [signed(5), signed(5)]),
    ('sum_dims', lambda a: a.sum((0, 2)), [signed(2, 3, 2)]),
    ('mean_keepdim', lambda a: a.mean(1, keepdim=True), [signed(2, 3)]),
    ('prod', lambda a: a.prod(1), [signed(2, 3)]),
    ('var', lambda a: a.var(0), [signed(4, 2)]),
    ('std', lambda a: a.std(), [signed(5)]),
    ('norm', lambda a: a.norm(), [signed(4)]),
    ('norm_p3', lambda a: a.norm(3, dim=1), [signed(2, 3)]),
    ('logsumexp', lambda a: a.logsumexp(1), [signed(2, 3)]),
    ('softmax', lambda a: a.softmax(1), [signed(2, 3)]),
    ('log_softmax', lambda a: a.log_softmax(0), [signed(2, 3)]),
    ('cumsum', lambda a: a.cumsum(1), [signed(2, 3)]),
    ('cumprod', lambda a: a.cumprod(1), [signed(2, 3)]),
    ('amax', lambda a: a.amax(1), [signed(2, 3)]),
    ('max_dim', lambda a: a.max(0).values, [signed(3, 2)]),
    ('sort', lambda a: a.sort(1).values, [signed(2, 4)]),
    ('topk', lambda a: a.topk(2).values, [signed(5)]),
    ('mm', lambda a, b: a.mm(b), [signed(2, 3), signed(3, 4)]),
    ('matmul_batched', lambda a, b: a @ b, [signed(2, 2, 3), signed(3, 2)]),
    ('mv', lambda a, b: ember.mv(a, b), [signed(2, 3), signed(3)]),
    ('dot', lambda a, b: ember.dot(a, b), [signed(3), signed(3)]),
    ('addmm', lambda c, a, b: ember.addmm(c, a, b, beta=0.5, alpha=2), [signed(2, 2),
                                                                       signed(2, 3),
                                                                       signed(3, 2)]),
    ('einsum', lambda a, b: ember.einsum('ij,jk->ik', a, b), [signed(2, 3), signed(3, 2)]),
    ('views', lambda a: a.t().reshape(-1).unsqueeze(0).expand(2, 6).narrow(1, 1, 3),
     [signed(2, 3)]),
    ('select_unbind_split', lambda a: a.select(0, 1) * a.unbind(1)[0].sum() + a.split(1, 1)[2]
     .sum(), [signed(2, 3)]),
    ('cat_stack', lambda a, b: ember.cat([a, ember.stack([b, b]).sum(0)]), [signed(2, 3),
                                                                            signed(1, 3)]),
    ('repeat_flip_roll', lambda a: a.repeat(2, 1).flip(0).roll(1, 1), [signed(2, 3)]),
    ('tril_diag', lambda a: a.tril() + ember.diag(ember.diagonal(a)), [signed(3, 3)]),
    ('getitem', lambda a: a[1:, [0, 2]] * a[0, None, :2], [signed(3, 3)]),
    ('gather_scatter', lambda a: a.gather(1, ember.tensor([[0, 0], [1, 2]])).scatter_add(
        1, ember.tensor([[1, 0], [0, 1]]), a[:, :2]), [signed(2, 3)]),
    ('index_select', lambda a: a.index_select(0, ember.tensor([1, 1, 0])), [signed(2, 3)]),
    ('masked_fill', lambda a: a.masked_fill(a > 0.8, 0.0), [signed(6)]),
    ('setitem_on_nonleaf', lambda a: _setitem(a), [signed(2, 3)]),
    ('inplace_on_view', lambda a: _inplace_view(a), [signed(2, 3)]),
]


def _setitem(a):
    y = a * 1
    y[0, 1] = a[1, 2] * 3
    return y


def _inplace_view(a):
    y = a * 2  # (exp would save its output, and torch too refuses to modify that in place)
    y.select(1, 0).mul_(a.select(1, 2))
    return y


@pytest.mark.parametrize('name,fn,inputs', CASES, ids=[c[0] for c in CASES])
def test_first_and_second_derivatives_match_finite_differences(name, fn, inputs):
    assert gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-4)
    assert gradgradcheck(fn, inputs, eps=1e-6, atol=1e-4, rtol=1e-3)
