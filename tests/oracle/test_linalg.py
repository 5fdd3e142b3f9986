"""Matrix products against torch: every matmul form, mm/bmm/mv/dot/outer, the fused
multiply-adds and einsum; values, dtypes, grad_fn names, first and second derivatives,
errors."""
import numpy as np
import pytest

from .oracle import check, arr, BFLOAT16

MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
    ((4, 2, 3), (4, 3, 2)), ((4, 2, 3), (3, 2)), ((2, 3), (4, 3, 2)), ((4, 2, 3), (3,)),
    ((3,), (4, 3, 2)), ((5, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (4, 3, 2)),
    ((1, 2, 3), (4, 3, 1)), ((2, 3), (4, 3, 1)), ((4, 2, 3), (1, 3, 2)),
    ((1, 4, 2, 3), (5, 1, 3, 2)), ((0, 2, 3), (3, 2)), ((2, 0), (0, 3)), ((0, 3), (3, 2)),
    ((2, 3), (0, 3, 2)), ((3,), (1, 3, 2)), ((2, 2, 3), (2, 3)),
]


@pytest.mark.parametrize('shapes', MATMUL_SHAPES, ids=str)
def test_matmul(shapes):
    a, b = arr(*shapes[0], seed=1), arr(*shapes[1], seed=2)
    check(lambda T, x, y: T.matmul(x, y), a, b, double=True)
    check(lambda T, x, y: x @ y, a.astype(np.float32), b.astype(np.float32))


@pytest.mark.parametrize('shapes', [((4, 2, 3), (3, 2)), ((2, 3), (4, 3, 2)),
                                    ((3,), (4, 3, 2)), ((1, 2, 3), (4, 3, 2))], ids=str)
def test_matmul_one_side_grad(shapes):
    # torch's choice of kernel (and so its grad_fn) depends on which operand requires grad.
    a, b = arr(*shapes[0], seed=1), arr(*shapes[1], seed=2)
    check(lambda T, x, y: T.matmul(x.detach(), y), a, b, double=True)
    check(lambda T, x, y: T.matmul(x, y.detach()), a, b, double=True)


def test_matmul_noncontiguous():
    check(lambda T, x, y: x.t() @ y, arr(3, 2, seed=1), arr(3, 4, seed=2), double=True)
    check(lambda T, x, y: x.transpose(0, 1) @ y.mT, arr(2, 4, 3, seed=1), arr(4, 2, 3, seed=2),
          double=True)
    check(lambda T, x, y: T.matmul(x.transpose(0, 2), y), arr(3, 4, 2, seed=1),
          arr(3, 5, seed=2))


@pytest.mark.parametrize('dtype', [np.int64, np.int32, np.bool_, np.float16, BFLOAT16])
def test_matmul_dtypes(dtype):
    for sa, sb in [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((2, 2, 3), (2, 3, 2)),
                   ((2, 2, 3), (3, 2))]:
        a = arr(*sa, dtype=dtype, seed=1, low=0, high=3)
        b = arr(*sb, dtype=dtype, seed=2, low=0, high=3)
        check(lambda T, x, y: T.matmul(x, y), a, b, grad=False, match_message=True,
              rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize('shapes', [
    ((), (3,)), ((3,), ()), ((3,), (4,)), ((2, 3), (4,)), ((3,), (4, 2)), ((2, 2, 3), (4, 2)),
    ((2, 2, 3), (3, 2, 4)), ((5, 2, 2, 3), (3, 3, 2)), ((2, 3), (4, 4, 2)),
    ((1, 2, 3), (4, 4, 2)), ((3,), (4, 4, 2)), ((4, 2, 3), (4,)), ((4, 2, 3), (4, 4, 2))],
    ids=str)
def test_matmul_errors(shapes):
    a, b = arr(*shapes[0]), arr(*shapes[1])
    check(lambda T, x, y: T.matmul(x, y), a, b, match_message=True)
    check(lambda T, x, y: T.matmul(x, y), a, b, match_message=True, grad=False)


@pytest.mark.parametrize('shapes', [((2, 3), (3, 2)), ((4, 2, 3), (3, 2)), ((2, 3), (4, 3, 2)),
                                    ((3,), (4, 3, 2)), ((4, 2, 3), (3,)), ((3,), (3,)),
                                    ((2, 3), (3,)), ((4, 2, 3), (4, 3, 2))], ids=str)
def test_matmul_dtype_mismatch(shapes):
    a, b = arr(*shapes[0]), arr(*shapes[1], dtype=np.float32)
    check(lambda T, x, y: T.matmul(x, y), a, b, match_message=True)
    check(lambda T, x, y: T.matmul(x, y), a, b, match_message=True, grad=False)
    check(lambda T, x, y: T.matmul(y, x), a, b, match_message=True)


def test_matmul_type_error():
    check(lambda T, x: T.matmul(x, 3), arr(2, 3), match_message=True)
    check(lambda T, x: T.mm(x, 3), arr(2, 3), match_message=True)


def test_mm_bmm_mv_dot():
    check(lambda T, x, y: T.mm(x, y), arr(2, 3, seed=1), arr(3, 4, seed=2), double=True)
    check(lambda T, x, y: x.mm(y.t()), arr(2, 3, seed=1), arr(4, 3, seed=2), double=True)
    check(lambda T, x, y: T.bmm(x, y), arr(2, 2, 3, seed=1), arr(2, 3, 4, seed=2), double=True)
    check(lambda T, x, y: T.mv(x, y), arr(2, 3, seed=1), arr(3, seed=2), double=True)
    check(lambda T, x, y: T.dot(x, y), arr(3, seed=1), arr(3, seed=2), double=True)
    check(lambda T, x, y: T.vdot(x, y), arr(3, seed=1), arr(3, seed=2), double=True)
    check(lambda T, x, y: T.inner(x, y), arr(3, seed=1), arr(3, seed=2), double=True)
    check(lambda T, x, y: T.inner(x, y), arr(2, 3, seed=1), arr(4, 3, seed=2), double=True)
    check(lambda T, x, y: T.outer(x, y), arr(2, seed=1), arr(3, seed=2), double=True)
    check(lambda T, x, y: T.ger(x, y), arr(2, seed=1), arr(3, seed=2), double=True)
    check(lambda T, x, y: T.outer(x, y), arr(2, seed=1), arr(3, seed=2, dtype=np.float32))
    check(lambda T, x, y: T.outer(x, y), arr(2, dtype=np.int64), arr(3, dtype=np.bool_))
    check(lambda T, x, y: T.mm(x, y), arr(0, 3), arr(3, 2), double=True)
    check(lambda T, x, y: T.mm(x, y), arr(2, 0), arr(0, 3), double=True)
    check(lambda T, x, y: T.dot(x, y), arr(0), arr(0), double=True)
    for dt in [np.int64, np.int32]:
        check(lambda T, x, y: T.mm(x, y), arr(2, 3, dtype=dt), arr(3, 2, dtype=dt))
        check(lambda T, x, y: T.bmm(x, y), arr(2, 2, 3, dtype=dt), arr(2, 3, 2, dtype=dt))
        check(lambda T, x, y: T.mv(x, y), arr(2, 3, dtype=dt), arr(3, dtype=dt))
        check(lambda T, x, y: T.dot(x, y), arr(3, dtype=dt), arr(3, dtype=dt))


@pytest.mark.parametrize('case', [
    ('mm', (3,), (3, 2)), ('mm', (2, 3), (3,)), ('mm', (2, 3), (4, 2)),
    ('bmm', (2, 3), (3, 2)), ('bmm', (2, 2, 3), (2, 3)), ('bmm', (2, 2, 3), (3, 3, 2)),
    ('bmm', (2, 2, 3), (2, 4, 2)), ('mv', (2, 3), (4,)), ('mv', (2, 3), (3, 1)),
    ('mv', (3,), (3,)), ('dot', (2,), (3,)), ('dot', (2, 1), (2,)), ('outer', (2, 1), (3,)),
    ('outer', (2,), (3, 1))], ids=str)
def test_product_errors(case):
    op, sa, sb = case
    check(lambda T, x, y: getattr(T, op)(x, y), arr(*sa), arr(*sb), match_message=True)


@pytest.mark.parametrize('op', ['mm', 'bmm', 'mv', 'dot'])
def test_product_dtype_errors(op):
    shapes = {'mm': ((2, 3), (3, 2)), 'bmm': ((2, 2, 3), (2, 3, 2)), 'mv': ((2, 3), (3,)),
              'dot': ((3,), (3,))}[op]
    check(lambda T, x, y: getattr(T, op)(x, y), arr(*shapes[0], dtype=np.float32),
          arr(*shapes[1]), match_message=True)
    check(lambda T, x, y: getattr(T, op)(x, y), arr(*shapes[0], dtype=np.bool_),
          arr(*shapes[1], dtype=np.bool_), match_message=True)


@pytest.mark.parametrize('alpha,beta', [(1, 1), (2.0, 0.5), (1, 0), (-1.5, 1)])
def test_addmm_family(alpha, beta):
    kw = dict(alpha=alpha, beta=beta)
    for s in [(2, 4), (4,), (1, 4), ()]:
        check(lambda T, i, x, y: T.addmm(i, x, y, **kw), arr(*s), arr(2, 3, seed=1),
              arr(3, 4, seed=2), double=True)
    check(lambda T, i, x, y: i.addmm(x, y, **kw), arr(2, 4), arr(2, 3, seed=1),
          arr(3, 4, seed=2), double=True)
    for s in [(2, 2, 4), (4,), (2, 1, 4)]:
        check(lambda T, i, x, y: T.baddbmm(i, x, y, **kw), arr(*s), arr(2, 2, 3, seed=1),
              arr(2, 3, 4, seed=2), double=True)
    check(lambda T, i, x, y: T.addmv(i, x, y, **kw), arr(2), arr(2, 3, seed=1), arr(3, seed=2),
          double=True)
    check(lambda T, i, x, y: T.addbmm(i, x, y, **kw), arr(2, 4), arr(3, 2, 3, seed=1),
          arr(3, 3, 4, seed=2), double=True)


def test_addmm_errors():
    check(lambda T, i, x, y: T.addmm(i, x, y), arr(4), arr(2, 3), arr(3, 3),
          match_message=True)
    check(lambda T, i, x, y: T.addmm(i, x, y), arr(2, 3), arr(2, 4), arr(3, 3),
          match_message=True)
    check(lambda T, i, x, y: T.addmm(i, x, y), arr(2, 3), arr(4), arr(3, 3),
          match_message=True)
    check(lambda T, i, x, y: T.addmm(i, x, y), arr(2, 3), arr(2, 3),
          arr(3, 3, dtype=np.float32), match_message=True)
    check(lambda T, i, x, y: T.addmm(i, x, y), arr(2, 3, dtype=np.float32), arr(2, 3),
          arr(3, 3), match_message=True)
    check(lambda T, i, x, y: T.baddbmm(i, x, y), arr(4), arr(2, 2, 3), arr(2, 3, 3),
          match_message=True)
    check(lambda T, i, x, y: T.baddbmm(i, x, y), arr(2, 2, 3), arr(2, 2, 4), arr(2, 3, 3),
          match_message=True)
    check(lambda T, i, x, y: T.baddbmm(i, x, y), arr(2, 2, 3), arr(2, 2, 3, dtype=np.float32),
          arr(2, 3, 3, dtype=np.float32), match_message=True)
    # beta=0 ignores NaN in the input, as torch does.
    check(lambda T, i, x, y: T.addmm(i, x, y, beta=0), np.full((2, 3), np.nan), arr(2, 3),
          arr(3, 3))


EINSUM = [
    ('ij->ij', [(2, 3)]), ('ij->ji', [(2, 3)]), ('ij->i', [(2, 3)]), ('ij->', [(2, 3)]),
    ('ii->i', [(3, 3)]), ('ii', [(3, 3)]), ('iij->j', [(3, 3, 2)]), ('i,i->i', [(3,), (3,)]),
    ('i,i->', [(3,), (3,)]), ('i,i', [(3,), (3,)]), ('ij,ij->ij', [(2, 3), (2, 3)]),
    ('ij,ij->i', [(2, 3), (2, 3)]), ('ij,jk->ik', [(2, 3), (3, 4)]), ('ij,jk', [(2, 3), (3, 4)]),
    ('ij,jk->ki', [(2, 3), (3, 4)]), ('ij,kl->ijkl', [(2, 3), (4, 2)]),
    ('i,j->ij', [(2,), (3,)]), ('bij,bjk->bik', [(2, 2, 3), (2, 3, 4)]),
    ('ij,jk,kl->il', [(2, 3), (3, 4), (4, 2)]), ('i,i,i->', [(3,), (3,), (3,)]),
    ('...ij,...jk->...ik', [(2, 3, 3), (3, 2)]), ('...ij->...ji', [(2, 3, 4)]),
    ('i...->...', [(2, 3, 4)]), ('ij,jk->ik', [(2, 1), (3, 4)]), ('ij,j->i', [(2, 3), (3,)]),
    ('ij,ik->jk', [(2, 3), (2, 4)]), ('ii,i->i', [(3, 3), (3,)]), ('Ab,bC->AC', [(2, 3), (3, 2)]),
    ('b i j , b j k -> b i k', [(2, 2, 3), (2, 3, 4)]), ('ij,k->i', [(2, 3), (4,)]),
]


@pytest.mark.parametrize('eq,shapes', EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum(eq, shapes):
    ops = [arr(*s, seed=i) for i, s in enumerate(shapes)]
    check(lambda T, *xs: T.einsum(eq, *xs), *ops, double=True)


def test_einsum_misc():
    check(lambda T, x, y: T.einsum('ij,jk->ik', [x, y]), arr(2, 3), arr(3, 2), double=True)
    check(lambda T, x: T.einsum('ij->', x), arr(2, 3, dtype=np.int64))
    check(lambda T, x, y: T.einsum('ij,jk->ik', x, y), arr(2, 3, dtype=np.int64),
          arr(3, 2, dtype=np.int64))
    check(lambda T, x, y: T.einsum('ij,jk->ik', x.t(), y), arr(3, 2), arr(3, 2), double=True)
    for eq, shapes in [('ij,jk', [(2, 3), (4, 2)]), ('ij,jk->ik', [(2, 3)]),
                       ('ij->ik', [(2, 3)]), ('ijk->i', [(2, 3)]), ('ij->ii', [(2, 3)]),
                       ('i->i', [(2,), (2,)]), ('ij->j->i', [(2, 3)]), ('i1', [(2, 3)]),
                       ('i,j', [(2,), (3, 2)])]:
        check(lambda T, *xs: T.einsum(eq, *xs), *[arr(*s) for s in shapes],
              match_message=True)
    check(lambda T, x, y: T.einsum('ij,jk->ik', x, y), arr(2, 3),
          arr(3, 2, dtype=np.float32), match_message=True)



FWD_OPS = {
    'mm': lambda T, a, b: a @ b, 'batched': lambda T, a, b: a.unsqueeze(0) @ b,
    'einsum': lambda T, a, b: T.einsum('ij,jk->ik', a, b), 'mv': lambda T, a, b: T.mv(a, b[:, 0]),
    'addmm': lambda T, a, b: T.addmm(a[:, :2], a, b, alpha=2, beta=0.5),
    'dot': lambda T, a, b: T.dot(a[0], b[:, 0]),
}


@pytest.mark.filterwarnings('ignore::DeprecationWarning')  # torch's forward_ad import
@pytest.mark.parametrize('op', list(FWD_OPS))
def test_forward_ad(op):
    # every op's jvp comes from its backward formula; compare the tangents with torch's
    import ember
    import torch
    import ember.autograd.forward_ad as efa
    import torch.autograd.forward_ad as tfa
    x, tx, y, ty = arr(3, 4, seed=1), arr(3, 4, seed=2), arr(4, 2, seed=3), arr(4, 2, seed=4)
    tangents = []
    for lib, fa in ((torch, tfa), (ember, efa)):
        with fa.dual_level():
            r = FWD_OPS[op](lib, fa.make_dual(lib.tensor(x), lib.tensor(tx)),
                            fa.make_dual(lib.tensor(y), lib.tensor(ty)))
            tangents.append(np.array(fa.unpack_dual(r).tangent.tolist()))
    np.testing.assert_allclose(tangents[1], tangents[0], rtol=1e-9, atol=1e-9)


# -- generated cases -------------------------------------------------------------------------
hyp = pytest.importorskip('hypothesis', reason='hypothesis generates the random-shape cases')
st = hyp.strategies


@st.composite
def _matmul_shapes(draw):
    n, k, m = draw(st.integers(0, 3)), draw(st.integers(1, 3)), draw(st.integers(0, 3))
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    # each operand takes a suffix of the batch, with some sizes replaced by 1 (broadcast)
    ba = tuple(1 if draw(st.booleans()) else s for s in batch[draw(st.integers(0, len(batch))):])
    bb = tuple(1 if draw(st.booleans()) else s for s in batch[draw(st.integers(0, len(batch))):])
    a = (k,) if draw(st.booleans()) and not ba else ba + (n, k)
    b = (k,) if draw(st.booleans()) and not bb else bb + (k, m)
    return a, b


@hyp.settings(max_examples=40, deadline=None, derandomize=True)
@hyp.given(_matmul_shapes(), st.sampled_from(['both', 'left', 'right']))
def test_generated_matmul(shapes, which):
    a, b = arr(*shapes[0], seed=1), arr(*shapes[1], seed=2)
    if which == 'both':
        check(lambda T, x, y: T.matmul(x, y), a, b, double=True)
    elif which == 'left':
        check(lambda T, x, y: T.matmul(x, y.detach()), a, b, double=True)
    else:
        check(lambda T, x, y: T.matmul(x.detach(), y), a, b, double=True)


@st.composite
def _einsum_case(draw):
    sizes = {c: draw(st.integers(1, 3)) for c in 'abcd'}
    n_ops = draw(st.integers(1, 3))
    subs = [''.join(draw(st.lists(st.sampled_from('abcd'), max_size=3))) for _ in range(n_ops)]
    used = sorted(set(''.join(subs)))
    out = ''.join(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
    shapes = [tuple(sizes[c] for c in s) for s in subs]
    return ','.join(subs) + '->' + out, shapes


@hyp.settings(max_examples=40, deadline=None, derandomize=True)
@hyp.given(_einsum_case())
def test_generated_einsum(case):
    eq, shapes = case
    ops = [arr(*s, seed=i) for i, s in enumerate(shapes)]
    check(lambda T, *xs: T.einsum(eq, *xs), *ops, double=True)
