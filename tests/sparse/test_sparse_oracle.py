"""Sparse tensors, ember against torch: the same code run on both libraries, compared by
layout, dtype, shape, stored indices and values, coalesced flag, dense values,
requires_grad and grad_fn names, printed form, and exceptions (class and message)."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed; "
                            "`pip install -e '.[test]'` brings it")

# torch warns that sparse invariant checks are off by default; it says nothing about values
warnings.filterwarnings('ignore', message='Sparse invariant checks')


def _array(t):
    t = t.detach()
    return t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t._data)


def describe(x):
    """Everything compared about a result, in library-independent terms."""
    if isinstance(x, (list, tuple)):
        return [describe(v) for v in x]
    if not isinstance(x, (torch.Tensor, ember.Tensor)):
        return ('object', repr(x))
    d = {'layout': str(x.layout), 'dtype': str(x.dtype), 'shape': tuple(x.shape),
         'requires_grad': x.requires_grad,
         'grad_fn': type(x.grad_fn).__name__ if x.grad_fn is not None else None}
    if str(x.layout) == 'torch.sparse_coo':
        d.update(coalesced=x.is_coalesced(), indices=_array(x._indices()).tolist(),
                 index_dtype=str(x._indices().dtype), values=_array(x._values()).tolist(),
                 nnz=x._nnz(), sparse_dim=x.sparse_dim(), dense_dim=x.dense_dim())
    elif str(x.layout) != 'torch.strided':
        first, second = (x.crow_indices(), x.col_indices()) \
            if str(x.layout) in ('torch.sparse_csr', 'torch.sparse_bsr') \
            else (x.ccol_indices(), x.row_indices())
        d.update(compressed=_array(first).tolist(), plain=_array(second).tolist(),
                 index_dtype=str(first.dtype), values=_array(x.values()).tolist(),
                 nnz=x._nnz(), sparse_dim=x.sparse_dim(), dense_dim=x.dense_dim())
    dense = x.to_dense() if str(x.layout) != 'torch.strided' else x
    d['dense'] = _array(dense).tolist()
    return d


def outcome(lib, fn):
    try:
        return describe(fn(lib))
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ('raised', type(e).__name__, str(e).split('\n')[0][:100])


def same(fn):
    """Runs ``fn(lib)`` on both libraries and asserts the results describe alike."""
    e, t = outcome(ember, fn), outcome(torch, fn)
    assert e == t
    return t


def coo(lib, indices=((0, 1, 1), (2, 0, 0)), values=(1.0, 2.0, 3.0), *size, **kw):
    return lib.sparse_coo_tensor(lib.tensor(indices), lib.tensor(values), *size, **kw)


# -- construction ------------------------------------------------------------------------------

@pytest.mark.parametrize('make', [
    lambda L: coo(L),
    lambda L: coo(L, ((0, 1, 1), (2, 0, 0)), (1.0, 2.0, 3.0), (3, 4)),
    lambda L: coo(L, ((1, 1),), (1.0, 1.0)),
    lambda L: coo(L, ((1, 0),), (1, 2)),
    lambda L: coo(L, ((1, 0),), (1.0, 2.0), dtype=L.float64),
    lambda L: coo(L, ((0, 1),), ((1.0, 2.0), (3.0, 4.0))),
    lambda L: coo(L, ((0, 1),), (1.0, 2.0), (2,), is_coalesced=True),
    lambda L: coo(L, ((0,),), (5.0,)),
    lambda L: L.sparse_coo_tensor(L.zeros([1, 1]), L.ones([1])),
    lambda L: L.sparse_coo_tensor(L.tensor([[0, 1]]).int(), L.ones(2)),
    lambda L: L.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (4,)),
    lambda L: L.sparse_coo_tensor([[0, 2]], [1, 2]),
    lambda L: L.sparse_coo_tensor(L.empty(1, 0, dtype=L.long), L.ones(0), (2,)),
    lambda L: L.sparse_coo_tensor(L.tensor([[0, 1]]), L.ones(2), L.Size([2]),
                                  requires_grad=True),
], ids=['inferred', 'sized', 'duplicates', 'int-values', 'dtype', 'dense-dims', 'is_coalesced',
        'one-entry', 'float-indices', 'int32-indices', 'lists', 'int-lists', 'empty',
        'requires-grad'])
def test_sparse_coo_tensor(make):
    same(make)


@pytest.mark.parametrize('make', [
    lambda L: coo(L, ((0, 1),), (1.0, 2.0, 3.0)),
    lambda L: coo(L, ((0, 1),), (1.0, 2.0), (2, 3)),
    lambda L: coo(L, ((0, 1),), (1.0, 2.0), (1,), check_invariants=True),
    lambda L: coo(L, ((0, 1),), (1, 2), requires_grad=True),
], ids=['nnz-mismatch', 'size-rank', 'out-of-range-checked', 'int-requires-grad'])
def test_sparse_coo_tensor_refuses_as_torch(make):
    assert same(make)[0] == 'raised'


def test_properties():
    def props(L):
        s = coo(L)
        d = L.ones(2)
        return [str(s.layout), s.is_sparse, d.is_sparse, str(d.layout), s.is_sparse_csr,
                s.numel(), s.dim(), s.is_coalesced(), s.coalesce().is_coalesced(),
                L.sparse_coo is s.layout, L.strided is d.layout, repr(L.sparse_csr),
                d.sparse_dim(), d.dense_dim()]
    assert props(ember) == props(torch)


# -- coalescing and storage access -------------------------------------------------------------

@pytest.mark.parametrize('get', [
    lambda s: s.coalesce(),
    lambda s: s.coalesce().indices(),
    lambda s: s.coalesce().values(),
    lambda s: s._indices(),
    lambda s: s._values(),
    lambda s: s.indices(),
    lambda s: s.values(),
    lambda s: s.to_dense(),
    lambda s: s.to_dense(ember.float64 if isinstance(s, ember.Tensor) else torch.float64),
    lambda s: s.clone(),
    lambda s: s.detach(),
    lambda s: s.double(),
    lambda s: s.to_sparse(),
], ids=['coalesce', 'indices', 'values', '_indices', '_values', 'indices-uncoalesced',
        'values-uncoalesced', 'to_dense', 'to_dense-dtype', 'clone', 'detach', 'double',
        'to_sparse'])
def test_storage(get):
    same(lambda L: get(coo(L)))


@pytest.mark.parametrize('get', [
    lambda t: t.indices(), lambda t: t.values(), lambda t: t.coalesce(),
    lambda t: t.is_coalesced(), lambda t: t._nnz(), lambda t: t._indices(),
    lambda t: t.to_dense(), lambda t: t._values(),
], ids=['indices', 'values', 'coalesce', 'is_coalesced', '_nnz', '_indices', 'to_dense',
        '_values'])
def test_dense_tensor_answers_as_torch(get):
    same(lambda L: get(L.tensor([1.0, 0.0, 2.0])))


def test_to_dense_of_dense_is_itself():
    for lib in (ember, torch):
        d = lib.ones(2)
        assert d.to_dense() is d


@pytest.mark.parametrize('make', [
    lambda L: L.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]]).to_sparse(),
    lambda L: L.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]).to_sparse(1),
    lambda L: L.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]).to_sparse(2),
    lambda L: L.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]).to_sparse(3),
    lambda L: L.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]).to_sparse(0),
    lambda L: L.tensor(3.0).to_sparse(),
    lambda L: L.tensor(0.0).to_sparse(),
    lambda L: L.zeros(2, 0).to_sparse(),
    lambda L: L.tensor([1, 0, 2]).to_sparse_coo(),
], ids=['full', 'sparse-dim-1', 'sparse-dim-2', 'sparse-dim-3', 'sparse-dim-0', 'scalar',
        'zero-scalar', 'empty', 'to_sparse_coo'])
def test_to_sparse(make):
    same(make)


def test_sparse_mask():
    same(lambda L: L.tensor([1.0, 2.0, 3.0]).sparse_mask(coo(L, ((2, 0, 2),), (1.0, 1.0, 1.0))))
    same(lambda L: L.tensor([1.0, 2.0]).sparse_mask(coo(L, ((2, 0, 2),), (1.0, 1.0, 1.0))))
    same(lambda L: L.tensor([1.0, 2.0]).sparse_mask(L.ones(2)))


# -- arithmetic --------------------------------------------------------------------------------

def _pair(L):
    s = coo(L, ((0, 1, 1),), (1.0, 2.0, 3.0), (3,))
    return s, L.tensor([1.0, 2.0, 3.0])


@pytest.mark.parametrize('op', [
    lambda s, d: s * s, lambda s, d: s * d, lambda s, d: d * s, lambda s, d: s * 2,
    lambda s, d: 2 * s, lambda s, d: s / 2, lambda s, d: -s, lambda s, d: s + s,
    lambda s, d: s - s, lambda s, d: d + s, lambda s, d: d - s, lambda s, d: s + d,
    lambda s, d: s + 1, lambda s, d: s.coalesce() * s.coalesce(),
    lambda s, d: s * s.coalesce(), lambda s, d: s * s.double(),
], ids=['s*s', 's*d', 'd*s', 's*2', '2*s', 's/2', '-s', 's+s', 's-s', 'd+s', 'd-s', 's+d',
        's+1', 'coalesced*coalesced', 's*coalesced', 'promoted'])
def test_arithmetic(op):
    def run(L):
        r = op(*_pair(L))
        # entry order of an uncoalesced result is torch's business: compare it coalesced
        return r.coalesce() if r.is_sparse else r
    same(run)


def test_arithmetic_layouts():
    def run(L):
        s, d = _pair(L)
        return [str((s * s).layout), str((d + s).layout), str((s + s).layout),
                (s + s).is_coalesced(), str((s * d).layout)]
    same(run)


@pytest.mark.parametrize('op', [
    lambda s: s.exp(), lambda s: s.view(3), lambda s: s.numpy(), lambda s: s.tolist(),
    lambda s: s.item(), lambda s: s.data_ptr(), lambda s: ember_or_torch(s).exp(s),
], ids=['exp', 'view', 'numpy', 'tolist', 'item', 'data_ptr', 'torch.exp'])
def test_unsupported_ops_refuse_as_torch(op):
    assert same(lambda L: op(_pair(L)[0]))[0] == 'raised'


def ember_or_torch(t):
    return ember if isinstance(t, ember.Tensor) else torch


# -- autograd ----------------------------------------------------------------------------------

def test_backward_through_sparse_ops():
    def run(L):
        x = L.sparse_coo_tensor(L.tensor([[1, 1]]), L.tensor([1.0, 1.0]), requires_grad=True)
        y = x * x
        z = y.to_dense()
        z.sum().backward()
        return [y, z, x.grad.coalesce(), (2 * x).coalesce()]
    same(run)


def test_to_sparse_backward():
    def run(L):
        x = L.tensor([[0.0, 1.5], [2.0, 0.0]], requires_grad=True)
        s = x.to_sparse()
        s1 = x.to_sparse(1)
        (s.to_dense() * L.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        return [s, s1, x.grad]
    same(run)


def test_coalesce_backward():
    def run(L):
        x = L.sparse_coo_tensor(L.tensor([[1, 0, 1]]), L.tensor([1.0, 2.0, 3.0]),
                                requires_grad=True)
        c = x.coalesce()
        (c.to_dense() * L.tensor([5.0, 7.0])).sum().backward()
        return [c, x.grad.coalesce()]
    same(run)


@pytest.mark.parametrize('create_graph', [False, True])
@pytest.mark.parametrize('old, new', [('sparse', 'dense'), ('dense', 'sparse'),
                                      ('sparse', 'sparse'), ('none', 'sparse')])
def test_accumulate_sparse_gradients(old, new, create_graph):
    def run(L):
        def grad(kind):
            if kind == 'sparse':
                return L.sparse_coo_tensor(L.tensor([[1, 1]]), L.tensor([1.0, 2.0]))
            return L.tensor([1.5, 2.5])
        p = L.tensor([1.5, 1.5]).requires_grad_()
        if old != 'none':
            p.grad = grad(old)
        before = p.grad
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            p.backward(grad(new), create_graph=create_graph)
        g = p.grad
        return [g.coalesce() if g.is_sparse else g, p.grad is before]
    same(run)


def test_set_data_refuses_another_layout():
    same(lambda L: setattr(L.randn(1, 2), 'data', L.sparse_coo_tensor(L.zeros([1, 1]),
                                                                      L.ones([1]))))


def test_module_conversion_to_sparse_replaces_parameters():
    def run(L):
        m = L.nn.Linear(3, 2)
        m.weight.grad = L.ones(2, 3)
        weight, grad = m.weight, m.weight.grad
        m._apply(lambda t: L.sparse_coo_tensor(L.zeros([2, 1]), L.ones([1]), L.Size([2, 3])))
        return [m.weight is weight, m.weight.grad is grad, type(m.weight).__name__,
                describe(m.weight), describe(m.weight.grad)]
    same(run)


def test_save_on_cpu_keeps_sparse():
    def run(L):
        x = L.sparse_coo_tensor(L.tensor([[1, 1]]), L.tensor([1.0, 1.0]), requires_grad=True)
        with L.autograd.graph.save_on_cpu(True):
            y = x * x
        return [y.grad_fn._saved_self, y.grad_fn._saved_other]
    same(run)


# -- the compressed layouts --------------------------------------------------------------------

@pytest.mark.parametrize('make', [
    lambda L: L.sparse_csr_tensor(L.tensor([0, 1, 2]), L.tensor([0, 1]), L.ones(2)),
    lambda L: L.sparse_csr_tensor(L.tensor([0, 1, 2]), L.tensor([0, 1]), L.ones(2), (2, 5)),
    lambda L: L.sparse_csr_tensor(L.tensor([0, 1, 2]), L.tensor([0, 1]), L.ones(2, 3)),
    lambda L: L.sparse_csr_tensor(L.tensor([0, 1, 2]).int(), L.tensor([0, 1]).int(),
                                  L.ones(2)),
    lambda L: L.sparse_csr_tensor([0, 1, 2], [0, 1], [1.0, 2.0], dtype=L.float64),
    lambda L: L.sparse_csr_tensor(L.tensor([[0, 1, 2], [0, 1, 2]]),
                                  L.tensor([[0, 1], [1, 0]]), L.arange(4.0).reshape(2, 2)),
    lambda L: L.sparse_csc_tensor(L.tensor([0, 1, 3]), L.tensor([0, 1, 0]),
                                  L.tensor([1, 2, 3])),
    lambda L: L.sparse_bsr_tensor(L.tensor([0, 1, 2]), L.tensor([0, 1]),
                                  L.arange(12.0).reshape(2, 2, 3)),
    lambda L: L.sparse_bsc_tensor(L.tensor([0, 1, 2]), L.tensor([0, 1]),
                                  L.arange(12.0).reshape(2, 2, 3)),
    lambda L: L.sparse_compressed_tensor(L.tensor([0, 1, 3]), L.tensor([0, 1, 0]),
                                         L.tensor([1.0, 2.0, 3.0]), (2, 2),
                                         layout=L.sparse_csc),
    lambda L: L.sparse_csr_tensor(L.tensor(0), L.tensor([0, 1]), L.ones(2)),
    lambda L: L.sparse_csr_tensor(L.tensor([0, 1, 2]), L.tensor([[0, 1]]), L.ones(2)),
    lambda L: L.sparse_bsr_tensor(L.tensor([0, 1, 2]), L.tensor([0, 1]), L.ones(2, 2)),
    lambda L: L.sparse_compressed_tensor(L.tensor([0, 1]), L.tensor([0]), L.ones(1), (1, 1),
                                         layout=L.strided),
    lambda L: L.sparse_compressed_tensor(L.tensor([0, 1]), L.tensor([0]), L.ones(1), (1, 1)),
], ids=['csr', 'csr-sized', 'csr-dense-dim', 'csr-int32', 'csr-lists', 'csr-batched', 'csc',
        'bsr', 'bsc', 'compressed', 'csr-0d-indices', 'csr-index-dims', 'bsr-values-dims',
        'compressed-strided', 'compressed-no-layout'])
def test_compressed_constructors(make):
    same(make)


@pytest.mark.parametrize('make', [
    lambda L: L.arange(6.0).reshape(2, 3).to_sparse_csr(),
    lambda L: L.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(layout=L.sparse_csr),
    lambda L: L.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse(layout=L.sparse_csc),
    lambda L: L.arange(16.0).reshape(4, 4).to_sparse(layout=L.sparse_bsr, blocksize=(2, 2)),
    lambda L: L.arange(16.0).reshape(4, 4).to_sparse(layout=L.sparse_bsc, blocksize=(2, 2)),
    lambda L: L.arange(16.0).reshape(4, 4).to_sparse(layout=L.sparse_bsr),
], ids=['to_sparse_csr', 'csr', 'csc', 'bsr', 'bsc', 'bsr-no-blocksize'])
def test_to_compressed(make):
    same(make)


@pytest.mark.parametrize('get', [
    lambda c: c.crow_indices(), lambda c: c.col_indices(), lambda c: c.ccol_indices(),
    lambda c: c.row_indices(), lambda c: c.indices(), lambda c: c.is_coalesced(),
    lambda c: c.coalesce(), lambda c: c.values(), lambda c: c._nnz(),
    lambda c: [c.sparse_dim(), c.dense_dim(), c.is_sparse, c.is_sparse_csr],
    lambda c: c.view(6), lambda c: c.to_dense(),
    lambda c: c.to_dense(ember.float64 if isinstance(c, ember.Tensor) else torch.float64),
], ids=['crow', 'col', 'ccol', 'row', 'indices', 'is_coalesced', 'coalesce', 'values', 'nnz',
        'dims', 'view', 'to_dense', 'to_dense-dtype'])
def test_compressed_storage(get):
    same(lambda L: get(L.arange(6.0).reshape(2, 3).to_sparse_csr()))


def test_compressed_index_refusals_of_a_dense_tensor():
    for name in ('crow_indices', 'col_indices', 'ccol_indices', 'row_indices'):
        same(lambda L: getattr(L.ones(2, 2), name)())


# -- printing ----------------------------------------------------------------------------------

@pytest.mark.parametrize('make', [
    lambda L: L.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], dtype=L.float64),
    lambda L: L.sparse_coo_tensor([[0, 1], [1, 0]], [1, 2]),
    lambda L: L.sparse_coo_tensor([[0, 1], [1, 0]], [[1.0, 3.0], [2.0, 4.0]]),
    lambda L: L.sparse_coo_tensor(L.empty(1, 0, dtype=L.long), L.ones(0), (2,)),
    lambda L: L.sparse_coo_tensor([[1, 1]], [1.0, 1.0], requires_grad=True),
    lambda L: L.sparse_coo_tensor([[1, 1]], [1.0, 1.0], requires_grad=True) * 2,
    lambda L: L.arange(6.0).reshape(2, 3).double().to_sparse_csr(),
    lambda L: L.arange(6.0).reshape(2, 3).to_sparse(layout=L.sparse_csc),
], ids=['coo-float64', 'coo-int', 'coo-dense-dims', 'coo-empty', 'coo-requires-grad',
        'coo-grad-fn', 'csr', 'csc'])
def test_repr(make):
    assert repr(make(ember)) == repr(make(torch))


# -- the mode protocol -------------------------------------------------------------------------

def test_factories_dispatch_to_torch_function_modes():
    def run(L):
        seen = []

        class Mode(L.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return -1

        with Mode():
            L.sparse_coo_tensor(1, 1, 1)
            L.sparse_csc_tensor(1, 1, 1, (1, 1))
            L.sparse_bsr_tensor(1, 1, 1)
            L.sparse_compressed_tensor(1, 1, 1, (1, 1), layout=L.sparse_csr)
        return seen
    same(run)


# -- in place ----------------------------------------------------------------------------------

def _s(L):
    return L.sparse_coo_tensor(L.tensor([[0, 2, 2]]), L.tensor([1.0, 2.0, 3.0]), (3,))


def _d(L):
    return L.tensor([1.0, 2.0, 3.0])


def _iadd(x, y):
    x += y
    return x


@pytest.mark.parametrize('op', [
    lambda L: _iadd(_d(L), _s(L)), lambda L: _s(L).mul_(2), lambda L: _iadd(_s(L), _s(L)),
    lambda L: _d(L).add_(_s(L), alpha=-0.5), lambda L: _s(L).add_(_d(L)),
    lambda L: _d(L).mul_(_s(L)), lambda L: _s(L).div_(2), lambda L: _s(L).neg_(),
    lambda L: _d(L).sub_(_s(L)), lambda L: _s(L).reshape(3),
], ids=['dense+=sparse', 'mul_', 'sparse+=sparse', 'add_-alpha', 'sparse.add_(dense)',
        'dense.mul_(sparse)', 'div_', 'neg_', 'sub_', 'reshape'])
def test_in_place(op):
    def run(L):
        r = op(L)
        return r.coalesce() if r.is_sparse else r
    same(run)


def test_in_place_keeps_the_tensor():
    for lib in (ember, torch):
        s = _s(lib)
        assert s.mul_(2) is s and s._version == 1


# -- nn.Embedding(sparse=True) -----------------------------------------------------------------

@pytest.mark.parametrize('kwargs', [{}, {'padding_idx': 1}, {'scale_grad_by_freq': True}],
                         ids=['plain', 'padding_idx', 'scale_grad_by_freq'])
def test_embedding_sparse_gradient(kwargs):
    def run(L):
        e = L.nn.Embedding(5, 2, sparse=True, **kwargs)
        with L.no_grad():  # (the libraries' random initial weights differ)
            e.weight.copy_(L.arange(10.0).reshape(5, 2))
        out = e(L.tensor([[1, 2], [1, 4]]))
        (out * L.arange(8.0).reshape(2, 2, 2)).sum().backward()
        return [out, e.weight.grad]
    same(run)


def test_embedding_sparse_gradients_accumulate_and_step_sgd():
    def run(L):
        e = L.nn.Embedding(5, 2, sparse=True)
        with L.no_grad():
            e.weight.copy_(L.arange(10.0).reshape(5, 2))
        e(L.tensor([1])).sum().backward()
        e(L.tensor([1, 3])).sum().backward()
        grad = e.weight.grad
        before = e.weight.detach().clone()
        opt = L.optim.SGD(e.parameters(), lr=0.1)
        opt.step()
        return [grad, e.weight, before]
    same(run)
