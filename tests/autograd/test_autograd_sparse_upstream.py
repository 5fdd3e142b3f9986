"""PyTorch's test/test_autograd.py, class TestAutograd: its tests of sparse layouts, adapted
to run on ember and torch as test_autograd_upstream.py does (``lib``; upstream names and
assertions; ``XFAIL`` marks ember's run strictly, with the reason)."""
from itertools import product

from ._upstream import lib_fixture, eq, torch, ember  # noqa: F401

XFAIL = {
    'test_to_sparse_backward': "ember's sparse layouts lack the compressed (CSR/CSC/BSR/BSC) "
                               "conversions and their gradients",
    'test_sparse_mm_backward': "ember's sparse COO tensors have no mm with gradients",
}

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
