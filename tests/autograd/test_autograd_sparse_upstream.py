"""PyTorch's test/test_autograd.py, class TestAutograd: its tests of sparse layouts, adapted
to run on ember and torch as test_autograd_upstream.py does (``lib``; upstream names and
assertions; ``XFAIL`` marks ember's run strictly, with the reason)."""
from itertools import product

from ._upstream import lib_fixture, eq, torch, ember  # noqa: F401

XFAIL = {}

lib = lib_fixture(XFAIL)


def test_to_sparse_backward(lib):
    to_attr_names = ("to_dense", "to_sparse", "to_sparse_csr", "to_sparse_csc",
                     "to_sparse_bsr", "to_sparse_bsc")
    to_params = ((), (), (), (), (2,), (2,))
    to_attr_names_params = dict(zip(to_attr_names, to_params))

    def check_inversion_possible(t, layout1, layout1_params, layout2, layout2_params):
        ls = (layout1, layout2)
        ps = (layout1_params, layout2_params)
        for l1, l2, p1, p2 in ((*ls, *ps), (*ls[::-1], *ps[::-1])):
            try:
                to_l1 = getattr(t, l1)(*p1)
                getattr(to_l1, l2)(*p2)
            except RuntimeError:
                return False
        return True

    self_strided = lib.rand(4, 4, dtype=lib.double) + 1
    grad_strided = lib.rand(4, 4, dtype=lib.double) + 1

    for from_to_attr in to_attr_names:
        from_params = to_attr_names_params[from_to_attr]
        self_from = getattr(self_strided, from_to_attr)(*from_params).requires_grad_(True)
        for to_to_attr in to_attr_names[1:]:
            params = to_attr_names_params[to_to_attr]
            if check_inversion_possible(self_strided, from_to_attr, from_params, to_to_attr,
                                        params):
                self_to = getattr(self_from, to_to_attr)(*params)
                grad_to = getattr(grad_strided, to_to_attr)(*params)
                # (no gradcheck for BSR/BSC: the gradients are checked directly)
                grad_res = lib.autograd.grad(self_to, self_from, grad_to)[0]
                assert grad_res.layout == self_from.layout
                eq(grad_res.to_dense(), grad_strided)


def test_sparse_mm_backward(lib):
    size = (3, 3)
    for a_req_grad, a_is_sparse, b_req_grad, b_is_sparse in product(*(([False, True],) * 4)):
        # only cases with a sparse input, and at least one input that requires grad
        if not ((a_is_sparse or b_is_sparse) and (a_req_grad or b_req_grad)):
            continue
        a = lib.randn(size)
        if a_is_sparse:
            a = a.to_sparse().detach()  # (detached: a leaf)
        b = lib.randn(size)
        if b_is_sparse:
            b = b.to_sparse().detach()
        a = a.requires_grad_(a_req_grad)
        b = b.requires_grad_(b_req_grad)

        r = a.mm(b)
        r.sum().backward()
        a_grad = None if a.grad is None else a.grad.detach().clone()
        b_grad = None if b.grad is None else b.grad.detach().clone()

        # again with dense tensors only
        a = (a.to_dense() if a.is_sparse else a).clone().detach().requires_grad_(a_req_grad)
        b = (b.to_dense() if b.is_sparse else b).clone().detach().requires_grad_(b_req_grad)
        r = a.mm(b)
        r.sum().backward()

        eq(a_grad, a.grad)
        eq(b_grad, b.grad)


def _test_sparse_gather(lib, size_x, size_ind, dim):
    x = lib.randn(size_x, requires_grad=True)
    if len(size_ind) > 0 and len(size_x) > 0:
        ind = lib.randint(x.size(dim), size_ind)
    else:
        ind = lib.zeros(size_ind, dtype=lib.int64)
    out = lib.gather(x, dim, ind, sparse_grad=False)
    grad = lib.rand_like(out)
    out.backward(grad)
    grad_dense = x.grad.clone()
    x.grad = None
    out = lib.gather(x, dim, ind, sparse_grad=True)
    out.backward(grad)
    eq(grad_dense, x.grad.to_dense())


def test_sparse_gather_dim0(lib):
    _test_sparse_gather(lib, (10, 10), (5, 10), 0)


def test_sparse_gather_dim1(lib):
    _test_sparse_gather(lib, (10, 10, 5), (10, 5, 5), 1)


def test_sparse_gather_dim_neg(lib):
    _test_sparse_gather(lib, (10, 10, 5), (10, 10, 2), -1)


def test_sparse_gather_ind_scalar(lib):
    _test_sparse_gather(lib, (10,), (), 0)


def test_sparse_gather_x_scalar(lib):
    _test_sparse_gather(lib, (), (2,), 0)


def test_sparse_gather_both_scalar(lib):
    _test_sparse_gather(lib, (), (), 0)


def test_no_grad_copy_sparse(lib):
    Function = lib.autograd.Function

    # a function that remembers where the gradient it got keeps its values
    class MyFunc(Function):
        static_grad_ptr = None

        @staticmethod
        def forward(ctx, inp1, inp2):
            return inp1 + inp2

        @staticmethod
        def backward(ctx, grad):
            MyFunc.static_grad_ptr = grad._values().data_ptr()
            return grad, grad

    class NonContGradFunc(Function):
        static_grad_ptr = None

        @staticmethod
        def forward(ctx, inp1, inp2):
            return inp1 + inp2

        @staticmethod
        def backward(ctx, grad):
            # a sparse gradient with non-contiguous indices and values
            v = lib.rand(1, 3)
            i = lib.ones(1, 1, dtype=lib.long)
            nv = v.expand(8, 3)
            ni = i.expand(1, 8)
            ngrad = lib.sparse_coo_tensor(ni, nv, (10, 3), dtype=lib.float32)
            NonContGradFunc.static_grad_ptr = ngrad._values().data_ptr()
            return ngrad, ngrad

    a = lib.randn(10, 3, requires_grad=True)
    b = lib.randn(10, 3, requires_grad=True)
    input = lib.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = lib.tensor([0, 4])
    F = lib.nn.functional

    # one of a, b should take the computed gradient without a copy
    emb_matrix = MyFunc.apply(a, b)
    loss = F.embedding_bag(emb_matrix, input, offsets, sparse=True).sum()
    loss.backward(retain_graph=True)
    p_g = MyFunc.static_grad_ptr
    p_a = a.grad._values().data_ptr()
    p_b = b.grad._values().data_ptr()
    assert p_a != p_b  # (different gradient buffers)
    assert p_a == p_g or p_b == p_g

    for _ in range(10):  # (accumulation works)
        loss.backward(retain_graph=True)

    # non-contiguous indices and values: both copied
    a.grad = b.grad = None
    emb_matrix = NonContGradFunc.apply(a, b)
    loss = F.embedding_bag(emb_matrix, input, offsets, sparse=True).sum()
    loss.backward(retain_graph=True)
    p_g = NonContGradFunc.static_grad_ptr
    p_a = a.grad._values().data_ptr()
    p_b = b.grad._values().data_ptr()
    assert p_a != p_b
    assert p_a != p_g
    assert p_b != p_g

    for _ in range(10):
        loss.backward(retain_graph=True)


def test_input_buffer_accum(lib):
    leaf = lib.rand(2, 2, requires_grad=True)

    # an op whose gradient is sparse
    ind = lib.tensor([[0, 0]], dtype=lib.long)
    out2 = leaf.gather(0, ind, sparse_grad=True)

    # an op that passes its gradient on as it is
    out1 = leaf.clone()

    grad_out1_original = lib.rand_like(out1)
    grad_out1 = grad_out1_original.clone()
    grad_out2 = lib.rand_like(out2)

    lib.autograd.backward((out1, out2), (grad_out1, grad_out2))

    # the given gradients are not modified in place
    eq(grad_out1, grad_out1_original)
