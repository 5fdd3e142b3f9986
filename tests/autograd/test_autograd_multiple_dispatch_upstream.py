"""PyTorch's test/test_autograd.py, class TestAutogradMultipleDispatch (instantiated for the
CPU), adapted to run on ember and torch.

Each upstream test keeps its name and its assertions; ``torch.`` became ``lib.`` and every
test runs twice (``[ember]`` and ``[torch]``). ember's run of a test listed in ``XFAIL`` is
expected to fail (strict), for the reason given.

Upstream tests of the class not adapted, and why:
- test_autograd_multiple_dispatch_registrations,
  test_autograd_composite_implicit_and_dispatch_registration, test_foward_mode_AD,
  test_view_copy: torch._test_autograd_multiple_dispatch*, private test ops registered
  per dispatch key (and nested tensors).
- test_per_dispatch_key_input_saving: nested tensors.
- test_backward_single_threaded, test_backward_tls_stash: ``@onlyCUDA`` (and torch._C's
  TLS stash).
- test_is_retain_graph: torch._C._autograd._get_current_graph_task_keep_graph, private.
- test_backward_respects_torch_function: a wrapper subclass (_make_wrapper_subclass) with
  __torch_dispatch__.
"""
from functools import partial

from ._upstream import lib_fixture, eq

XFAIL = {
}

lib = lib_fixture(XFAIL)


def test_set_sequence_nr(lib):
    x = lib.randn((10,), dtype=lib.float32, requires_grad=True)
    y = lib.randn((10,), dtype=lib.float32, requires_grad=True)
    z = lib.randn((10,), dtype=lib.float32, requires_grad=True)

    a = x + y
    b = y + z
    c = a + b

    assert a.grad_fn is not None
    assert b.grad_fn is not None
    assert c.grad_fn is not None

    a.grad_fn._set_sequence_nr(100)
    b.grad_fn._set_sequence_nr(99)
    c.grad_fn._set_sequence_nr(98)

    eq(a.grad_fn._sequence_nr(), 100)
    eq(b.grad_fn._sequence_nr(), 99)
    eq(c.grad_fn._sequence_nr(), 98)

    def log_grad_order(grad, name, order):
        order.append(name)
        return grad

    order = []
    a.register_hook(partial(log_grad_order, name="a", order=order))
    b.register_hook(partial(log_grad_order, name="b", order=order))
    c.register_hook(partial(log_grad_order, name="c", order=order))

    c.sum().backward()

    # c runs first though its sequence number is the smallest (it is the root); then a
    # before b, as a's number is now the larger
    eq(order, ["c", "a", "b"])

    eq(x.grad, lib.ones_like(x))
    eq(y.grad, 2 * lib.ones_like(x))
    eq(z.grad, lib.ones_like(x))


def test_atan2_zero_gradient(lib):
    x = lib.tensor([0.0], requires_grad=True)
    y = lib.tensor([0.0], requires_grad=True)
    z = lib.atan2(x, y)
    z.backward()
    eq(x.grad, lib.zeros_like(x))
    eq(y.grad, lib.zeros_like(y))


def test_trace_backward_nonsquare_171704(lib):
    for shape in [(5, 2), (7, 3), (4, 1), (1, 5), (2, 5)]:
        x = lib.randn(shape, dtype=lib.float64, requires_grad=True)
        lib.trace(x).backward()
        expected = lib.zeros(shape, dtype=lib.float64)
        for i in range(min(shape)):
            expected[i, i] = 1.0
        eq(x.grad, expected)
