"""torch.sparse (mm, addmm, sum, softmax, log_softmax, check_sparse_tensor_invariants), the
gradients through every layout conversion, sparse gradients (gather, embedding_bag, the
values of sparse_coo_tensor) and the optimizers given sparse gradients (SparseAdam, the
refusals of the others): ember against torch 2.13, the same code run on both and compared
as tests/sparse/test_sparse_oracle.py compares (layout, pattern, values, grad_fn names,
exceptions), floats rounded to 10 significant digits where they are computed.

Not compared here: the order of a sparse COO result's entries and its coalesced flag (entries
are compared sorted by position). torch's kernels differ among themselves there (a CSC
matrix converted to COO comes out column-major and uncoalesced; the masked gradients of
to_dense, sparse.sum and sparse.softmax are flagged uncoalesced); ember's come out sorted and
coalesced."""
import warnings

import numpy as np
import pytest

from .test_sparse_oracle import outcome, ember, torch

warnings.filterwarnings('ignore', message='Sparse CSR tensor support is in beta')


def _rounded(x):
    if isinstance(x, dict) and x.get('layout') == 'torch.sparse_coo' and x.get('nnz'):
        x = dict(x)
        x.pop('coalesced')
        order = sorted(range(x['nnz']), key=lambda k: [row[k] for row in x['indices']])
        x['indices'] = [[row[k] for k in order] for row in x['indices']]
        x['values'] = [x['values'][k] for k in order]
    if isinstance(x, float):
        return float(f'{x:.10g}')
    if isinstance(x, (list, tuple)):
        return type(x)(_rounded(v) for v in x)
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    return x


def same(fn):
    """``fn(lib)`` described alike on both libraries (floats to 10 significant digits)."""
    e, t = _rounded(outcome(ember, fn)), _rounded(outcome(torch, fn))
    assert e == t
    return t


def matrix(L, requires_grad=False):
    m = L.tensor([[0.0, 1.5, 0.0, 2.0], [3.0, 0.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0],
                  [4.0, 0.5, 0.0, 1.0]], dtype=L.float64)
    return m.requires_grad_(requires_grad)


WEIGHTS = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [-1.0, -2.0, 0.5, 0.25],
           [2.0, 0.0, 1.0, 3.0]]

CONVERSIONS = [('to_dense', ()), ('to_sparse', ()), ('to_sparse_csr', ()),
               ('to_sparse_csc', ()), ('to_sparse_bsr', (2,)), ('to_sparse_bsc', (2,))]


# -- conversions between layouts, and their gradients -------------------------------------------

@pytest.mark.parametrize('source', CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
@pytest.mark.parametrize('target', CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
def test_conversion_and_its_gradient(source, target):
    if {source[0], target[0]} & {'to_sparse'} and \
            {source[0], target[0]} & {'to_sparse_bsr', 'to_sparse_bsc'}:
        pytest.skip("torch keeps a block's zeros as COO entries; ember converts through the "
                    "dense values and drops them (a known difference)")
    def run(L):
        x = getattr(matrix(L), source[0])(*source[1]).requires_grad_()
        y = getattr(x, target[0])(*target[1])
        g = getattr(L.tensor(WEIGHTS, dtype=L.float64), target[0])(*target[1])
        (gx,) = L.autograd.grad(y, x, g)
        return [y, gx]
    same(run)


@pytest.mark.parametrize('masked', [None, True, False])
def test_to_dense_gradient_masked_or_not(masked):
    def run(L):
        x = matrix(L).to_sparse().requires_grad_()
        y = x.to_dense() if masked is None else x.to_dense(masked_grad=masked)
        (y * L.tensor(WEIGHTS, dtype=L.float64)).sum().backward()
        return [y, x.grad]
    same(run)


def test_same_layout_conversion_is_self_without_graph():
    def run(L):
        x = matrix(L).to_sparse_csr()
        return [x.to_sparse_csr() is x, x.to_dense().to_dense() is not None,
                x.requires_grad_().to_sparse_csr() is x]
    e, t = run(ember), run(torch)
    assert e == t


def test_blocked_to_unblocked_refused():
    same(lambda L: matrix(L).to_sparse_bsr(2).to_sparse_csr())
    same(lambda L: matrix(L).to_sparse_bsc(2).to_sparse_csc())


def test_sparse_mask_with_a_compressed_mask():
    same(lambda L: L.tensor(WEIGHTS, dtype=L.float64).sparse_mask(matrix(L).to_sparse_csr()))
    same(lambda L: L.tensor(WEIGHTS, dtype=L.float64).sparse_mask(matrix(L).to_sparse_bsc(2)))


# -- products, transpose and sums of sparse COO tensors -----------------------------------------

@pytest.mark.parametrize('a_sparse,b_sparse', [(True, False), (False, True), (True, True)])
def test_mm_with_sparse_operands(a_sparse, b_sparse):
    def run(L):
        a = matrix(L).to_sparse() if a_sparse else matrix(L)
        b = L.tensor(WEIGHTS, dtype=L.float64)
        b = b.to_sparse() if b_sparse else b
        a.requires_grad_()
        b.requires_grad_()
        r = a.mm(b)
        (r.to_dense() if r.layout != L.strided else r).pow(2).sum().backward()
        return [r, a.grad, b.grad]
    same(run)


def test_sparse_transpose():
    def run(L):
        x = matrix(L).to_sparse().requires_grad_()
        return [x.t(), x.mT, x.transpose(0, 1), x.mH]
    same(run)


def test_sum_of_sparse_tensors():
    def run(L):
        x = matrix(L).to_sparse().requires_grad_()
        c = matrix(L).to_sparse_csr().requires_grad_()
        s, sc = L.sum(x), c.sum()
        (s + sc).backward()
        return [s, sc, x.grad, c.grad]
    same(run)


def test_sparse_namespace_mm_masks_the_gradient():
    def run(L):
        a = matrix(L).to_sparse().requires_grad_()
        b = L.tensor(WEIGHTS, dtype=L.float64, requires_grad=True)
        r = L.sparse.mm(a, b)
        r.pow(2).sum().backward()
        return [r, a.grad, b.grad, L.sparse.mm(a.detach(), a.detach())]
    same(run)


def test_sparse_namespace_addmm():
    def run(L):
        c = L.ones(4, 4, dtype=L.float64, requires_grad=True)
        a = matrix(L).to_sparse().requires_grad_()
        b = L.tensor(WEIGHTS, dtype=L.float64, requires_grad=True)
        r = L.sparse.addmm(c, a, b, beta=2.0, alpha=-0.5)
        r.pow(2).sum().backward()
        return [r, c.grad, a.grad, b.grad]
    same(run)


@pytest.mark.parametrize('dim', [None, 0, 1, (0, 1), -1])
def test_sparse_namespace_sum(dim):
    def run(L):
        x = matrix(L).to_sparse().requires_grad_()
        s = L.sparse.sum(x) if dim is None else L.sparse.sum(x, dim)
        (s.to_dense() if s.layout != L.strided else s).pow(2).sum().backward()
        return [s, x.grad]
    same(run)


@pytest.mark.parametrize('name', ['softmax', 'log_softmax'])
@pytest.mark.parametrize('dim', [0, 1])
def test_sparse_namespace_softmax(name, dim):
    def run(L):
        x = matrix(L).to_sparse().requires_grad_()
        y = getattr(L.sparse, name)(x, dim)
        (y.to_dense() * L.tensor(WEIGHTS, dtype=L.float64)).sum().backward()
        return [y, x.grad]
    same(run)


def test_check_sparse_tensor_invariants():
    def run(L):
        c = L.sparse.check_sparse_tensor_invariants
        seen = [c.is_enabled()]
        with c():
            seen.append(c.is_enabled())
            seen.append(outcome(L, lambda L: L.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,))))
        seen.append(c.is_enabled())
        c.enable()
        seen.append(c.is_enabled())
        c.disable()
        seen.append(c.is_enabled())
        return seen
    assert run(ember) == run(torch)


# -- sparse gradients ---------------------------------------------------------------------------

@pytest.mark.parametrize('shape,index,dim', [((3, 4), [[0, 2, 1, 0], [2, 2, 0, 1]], 0),
                                             ((3, 4), [[3, 0], [1, 1], [0, 2]], 1),
                                             ((4,), 2, 0), ((), [0, 0], 0), ((), 0, 0)])
def test_gather_sparse_grad(shape, index, dim):
    def run(L):
        x = L.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
        out = L.gather(x, dim, L.tensor(index), sparse_grad=True)
        out.backward(L.arange(1.0, out.numel() + 1).reshape(out.shape))
        return [out, x.grad]
    same(run)


def test_sparse_coo_tensor_and_values_gradients():
    def run(L):
        v = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = L.sparse_coo_tensor(L.tensor([[0, 2, 0]]), v, (4,))
        s.to_dense().mul(L.tensor([5.0, 6.0, 7.0, 8.0])).sum().backward()
        x = matrix(L).to_sparse().requires_grad_()
        vals = x.values()
        vals.pow(2).sum().backward()
        return [s, v.grad, vals, x.grad]
    same(run)


def test_embedding_bag_sparse_gradient():
    def run(L):
        w = L.tensor(WEIGHTS, requires_grad=True)
        out = L.nn.functional.embedding_bag(L.tensor([0, 2, 2, 3, 1]), w, L.tensor([0, 2]),
                                            mode='sum', sparse=True)
        out.pow(2).sum().backward()
        return [out, w.grad]
    same(run)


def test_input_buffer_adds_sparse_and_dense_gradients():
    def run(L):
        x = L.tensor(WEIGHTS, requires_grad=True)
        y = x * 1
        a = y.gather(0, L.tensor([[0, 3, 1, 1]]), sparse_grad=True)
        (a.sum() + y.pow(2).sum()).backward()
        return [x.grad]
    same(run)


def test_embedding_bag_old_argument_order_warns():
    def run(L):
        w = L.tensor(WEIGHTS)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            out = L.nn.functional.embedding_bag(w, L.tensor([0, 2]), L.tensor([0]))
        return [out, [str(c.message) for c in caught if 'Argument order' in str(c.message)]]
    e, t = run(ember), run(torch)
    assert e[1] == t[1]
    np.testing.assert_allclose(e[0]._data, t[0].numpy())


# -- optimizers and sparse gradients ------------------------------------------------------------

OPTIMIZERS = ['SGD', 'Adam', 'AdamW', 'RMSprop', 'Adagrad', 'Adadelta', 'Adamax', 'NAdam',
              'RAdam', 'ASGD', 'Rprop', 'Adafactor']


@pytest.mark.parametrize('name', OPTIMIZERS)
def test_optimizer_given_a_sparse_gradient(name):
    def run(L):
        p = L.nn.Parameter(L.tensor(WEIGHTS))
        p.grad = L.sparse_coo_tensor([[0, 2, 0]], L.ones(3, 4), (4, 4))
        getattr(L.optim, name)([p], lr=0.1).step()
        return p
    same(run)


def test_adagrad_sparse_gradient_with_weight_decay_refused():
    def run(L):
        p = L.nn.Parameter(L.tensor(WEIGHTS))
        p.grad = L.sparse_coo_tensor([[0, 2]], L.ones(2, 4), (4, 4))
        L.optim.Adagrad([p], lr=0.1, weight_decay=0.1).step()
        return p
    same(run)


def test_sparse_adam_steps_state_and_state_dict():
    def run(L):  # (float64: float32 rounds torch's order of operations differently)
        p = L.nn.Parameter(L.tensor(WEIGHTS, dtype=L.float64))
        opt = L.optim.SparseAdam([p], lr=0.1)
        for k in range(3):
            values = L.ones(k + 1, 4, dtype=L.float64) * (k + 1)
            p.grad = L.sparse_coo_tensor([[0, 2, 0][:k + 1]], values, (4, 4))
            opt.step()
        maxi = L.optim.SparseAdam([p], lr=0.1, maximize=True)
        p.grad = L.sparse_coo_tensor([[1]], L.ones(1, 4, dtype=L.float64), (4, 4))
        maxi.step()
        state = opt.state[p]
        return [p, state['exp_avg'], state['exp_avg_sq'], ('object', state['step']),
                ('object', repr(opt)), ('object', opt.defaults)]
    same(run)


def test_sparse_adam_with_sparse_embedding():
    def run(L):
        emb = L.nn.Embedding(5, 3, sparse=True)
        with L.no_grad():
            emb.weight.copy_(L.arange(15.0).reshape(5, 3))
        opt = L.optim.SparseAdam(emb.parameters(), lr=0.01)
        emb(L.tensor([1, 3, 1])).pow(2).sum().backward()
        opt.step()
        return emb.weight
    same(run)


@pytest.mark.parametrize('call', [
    lambda L: L.optim.SparseAdam([L.nn.Parameter(L.ones(2))], lr=-1),
    lambda L: L.optim.SparseAdam([L.nn.Parameter(L.ones(2))], eps=-1),
    lambda L: L.optim.SparseAdam([L.nn.Parameter(L.ones(2))], betas=(1.0, 0.9)),
    lambda L: L.optim.SparseAdam([L.nn.Parameter(L.ones(2))], betas=(0.9, -0.1)),
    lambda L: L.optim.SparseAdam([L.nn.Parameter(L.ones(2).to_sparse())]),
])
def test_sparse_adam_refusals(call):
    same(call)


def test_sparse_adam_refuses_a_dense_gradient():
    def run(L):
        p = L.nn.Parameter(L.ones(2))
        p.grad = L.ones(2)
        L.optim.SparseAdam([p]).step()
    same(run)


@pytest.mark.parametrize('call', [
    lambda L: L.ones(4).to_sparse_csr(),
    lambda L: L.ones(()).to_sparse_csr(),
    lambda L: L.ones(4).to_sparse_csc(),
    lambda L: L.ones(4).to_sparse_bsr([1, 1]),
    lambda L: L.ones(0).to_sparse_bsc([3, 1]),
    lambda L: L.ones(4, 4).to_sparse_csr(-1),
    lambda L: L.ones(4, 4).to_sparse_csc(1),
    lambda L: L.ones(4, 4).to_sparse_bsr([1]),
    lambda L: L.ones(4, 4).to_sparse_bsc([]),
    lambda L: L.ones(4, 4).to_sparse_bsr([3, 3]),
    lambda L: L.ones(4, 4).to_sparse_bsc((2, 2), -1),
    lambda L: L.ones(4, 4).to_sparse_bsr(0),
    lambda L: L.ones(4, 4).to_sparse_csr().to_sparse_bsc(3),
    lambda L: L.ones(4, 4).to_sparse(layout=L.sparse_bsr),
    lambda L: L.ones(4, 4).to_sparse_csr().to_sparse(1),
    lambda L: L.ones(4, 4).to_sparse_csc().to_sparse(2),
    lambda L: L.ones(4, 4).to_sparse().to_sparse_bsc(2),
])
def test_conversion_refusals(call):
    same(call)


# -- found on the way (the fuzzer's densified comparison of results) ----------------------------

def test_expand_of_a_0d_tensor_to_no_dims_is_a_view():
    def run(L):
        x = L.tensor(2.0, dtype=L.float64, requires_grad=True)
        (g,) = L.autograd.grad(x.prod(), x)
        base = L.tensor(3.0)
        view = base.expand(())
        view.add_(1)
        return [g, base, ('object', view._is_view())]
    same(run)


def test_to_another_tensors_dtype_for_a_matrix():
    # (``to(other)`` took the matrix for a Python type and compared it with ``==``)
    same(lambda L: L.tensor([[2, 1]]).to(L.rand(2, 5, dtype=L.float64)))


def test_gradcheck_of_an_empty_input():
    # (NumPy gives an empty array zero strides; gradcheck's overlap check must not see them)
    def run(L):
        x = L.randn([5, 1, 0, 2], dtype=L.double, requires_grad=True)
        return ('object', L.autograd.gradcheck(lambda t: t * 2, (x,)))
    same(run)


def test_coalesce_without_sparse_dims():
    def run(L):
        x = L.sparse_coo_tensor(L.zeros(0, 3, dtype=L.long), L.ones(3, 2), (2,))
        return [x.coalesce(), L.sparse_coo_tensor(L.zeros(0, 0, dtype=L.long),
                                                  L.ones(0, 2), (2,)).coalesce()]
    same(run)


def test_complex_sparse_gradients_add_up():
    def run(L):
        x = L.zeros(3, 2, dtype=L.cdouble, requires_grad=True)
        a = L.sparse_coo_tensor([[0, 2]], L.tensor([[1 + 1j, 2j], [3, 4 - 1j]]), (3, 2))
        b = L.sparse_coo_tensor([[2]], L.tensor([[1j, 1]]), (3, 2))
        y = x * 1
        L.autograd.backward([y, y], [a, b])
        return x.grad
    same(run)


@pytest.mark.parametrize('a,b', [(([2, 0], [1.0, 2.0]), ([0], [5.0])),
                                 (([0, 2], [1.0, 2.0]), ([1, 3], [5.0, 6.0])),
                                 (([0, 0], [1.0, 2.0]), ([0], [5.0])),
                                 (([3, 1], [1.0, 2.0]), ([1, 3], [5.0, 6.0])),
                                 (([], []), ([1], [5.0]))])
@pytest.mark.parametrize('coalesce', [False, True])
def test_sparse_add_merges_entries_as_torch(a, b, coalesce):
    # (exact: entry order and the coalesced flag too, which describe() compares)
    from .test_sparse_oracle import same as same_exactly

    def run(L):
        x, y = (L.sparse_coo_tensor([i], L.tensor(v), (4,)) for i, v in (a, b))
        if coalesce:
            x, y = x.coalesce(), y.coalesce()
        inplace = x.clone()
        inplace.add_(y)
        return [x + y, x - y, inplace]
    same_exactly(run)


def test_sparse_add_of_strided_values_concatenates():
    from .test_sparse_oracle import same as same_exactly

    def run(L):
        x = L.sparse_coo_tensor([[1, 3]], L.ones(1, 2).expand(2, 2), (4, 2))
        y = L.sparse_coo_tensor([[1]], L.ones(1, 2), (4, 2))
        return [x + y, y + x]
    same_exactly(run)
