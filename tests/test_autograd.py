"""The reverse-mode engine: backward, grad, hooks, retain_graph/retain_grad, create_graph,
``inputs=``, allow_unused/materialize_grads, accumulation into ``.grad``, version-counter
errors, grad modes, detach, leaves and graph structure.

Adapted, in ember's own words, from the engine tests of PyTorch's test/test_autograd.py
(test_backward, test_grad, test_grad_nonleaf, test_hooks, test_retain_grad, test_inplace,
test_accumulate_grad, test_sharded_grad, test_dependent_backward, test_next_functions, ...).
Expected values are worked out by hand; tests/oracle/test_autograd_oracle.py runs the same
situations on real torch and compares.
"""
import gc
import threading
import weakref

import numpy as np
import pytest

import ember as torch


def arr(t):
    """The values of an ember tensor as a NumPy array (no repr, no indexing)."""
    return np.asarray(t.detach()._data)


def assert_close(t, expected):
    """``t`` (an ember tensor) has the given values."""
    np.testing.assert_allclose(arr(t), np.asarray(expected, dtype=arr(t).dtype), rtol=1e-6,
                               atol=1e-6)


def tensor(values, requires_grad=False, dtype=None):
    return torch.tensor(values, dtype=dtype or torch.float64, requires_grad=requires_grad)


X = [[1.0, -2.0], [0.5, 3.0]]
Y = [[2.0, 0.25], [-1.0, 1.5]]


# -- backward ----------------------------------------------------------------------------

def test_backward_of_a_polynomial():
    x = tensor(X, True)
    y = tensor(Y, True)
    z = tensor([[0.5, 1.0], [2.0, -1.0]], True)
    go = tensor([[1.0, 2.0], [3.0, 4.0]])
    a = x + (y * z) + 4 * z ** 2 * x / y
    a.backward(go)
    xv, yv, zv, g = map(np.asarray, (X, Y, [[0.5, 1.0], [2.0, -1.0]], go.tolist()))
    assert_close(x.grad, (4 * zv ** 2 / yv + 1) * g)
    assert_close(y.grad, (zv - 4 * xv * zv ** 2 / yv ** 2) * g)
    assert_close(z.grad, (8 * xv * zv / yv + yv) * g)


def test_backward_of_a_leaf_is_the_seed():
    v = tensor(X, True)
    go = tensor(Y)
    v.backward(go)
    assert_close(v.grad, Y)
    assert v.grad is not go  # the seed is copied, never aliased into .grad


def test_scalar_backward_seeds_one():
    x = tensor([1.0, 2.0, 3.0], True)
    (x * x).sum().backward()
    assert_close(x.grad, [2.0, 4.0, 6.0])


def test_backward_non_scalar_without_gradient_raises():
    x = tensor([1.0, 2.0], True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        (x * 2).backward()


def test_backward_on_tensor_that_does_not_require_grad_raises():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        torch.ones(1).backward()


def test_backward_gradient_shape_mismatch_raises():
    x = tensor(X, True)
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape "
                                           r"of torch.Size\(\[2\]\) and output\[0\] has a "
                                           r"shape of torch.Size\(\[2, 2\]\)"):
        (x * 2).backward(torch.ones(2, dtype=torch.float64))


def test_backward_gradient_of_other_dtype_is_cast():
    x = tensor([1.0, 2.0], True)
    (x * 3).backward(torch.ones(2, dtype=torch.float32))
    assert x.grad.dtype == torch.float64
    assert_close(x.grad, [3.0, 3.0])
    y = torch.ones(2, requires_grad=True)
    (y * 2).backward(torch.ones(2, dtype=torch.int64))
    assert y.grad.dtype == torch.float32
    assert_close(y.grad, [2.0, 2.0])


def test_backward_twice_without_retain_graph_raises():
    x = tensor([1.0, 2.0], True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                           "time .*Specify retain_graph=True"):
        y.backward()


def test_backward_twice_with_retain_graph_accumulates():
    x = tensor([1.0, 2.0], True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert_close(x.grad, [4.0, 8.0])


def test_backward_twice_through_nodes_that_save_nothing_is_fine():
    x = tensor([1.0, 2.0, 3.0], True)
    c = x + 1
    c.backward(torch.ones(3, dtype=torch.float64))
    c.backward(torch.ones(3, dtype=torch.float64))
    assert_close(x.grad, [2.0, 2.0, 2.0])


def test_backward_of_several_roots():
    x = tensor([1.0, 2.0], True)
    y = tensor([3.0, 4.0], True)
    q = tensor([0.5, -0.5], True)
    a = tensor([1.0, 1.0], True)
    b = tensor([2.0, -3.0], True)
    q2 = q * 2
    z = x + y + q2
    c = a * b + q2
    gz = tensor([1.0, 2.0])
    gc_ = tensor([-1.0, 3.0])
    torch.autograd.backward([z, c], [gz, gc_])
    assert_close(x.grad, [1.0, 2.0])
    assert_close(y.grad, [1.0, 2.0])
    assert_close(a.grad, [-2.0, -9.0])
    assert_close(b.grad, [-1.0, 3.0])
    assert_close(q.grad, [0.0, 10.0])


def test_backward_roots_that_depend_on_each_other():
    x = tensor([1.0, -2.0, 3.0], True)
    y = x ** 2
    z = y ** 3
    go_y = tensor([1.0, 2.0, 3.0])
    go_z = tensor([0.5, 0.5, 0.5])
    torch.autograd.backward([y, z], [go_y, go_z])
    xv = np.array([1.0, -2.0, 3.0])
    assert_close(x.grad, 2 * xv * np.array([1, 2, 3]) + 6 * xv ** 5 * 0.5)


def test_backward_same_root_twice_counts_twice():
    a = tensor([1.0, 2.0], True)
    b = tensor([3.0, 4.0], True)
    x = a * b
    go = tensor([1.0, -1.0])
    torch.autograd.backward([x, x], [go, go])
    assert_close(a.grad, [6.0, -8.0])
    assert_close(b.grad, [2.0, -4.0])


def test_backward_with_a_root_not_requiring_grad_names_its_index():
    x = tensor([1.0], True)
    with pytest.raises(RuntimeError, match="element 1 of tensors does not require grad"):
        torch.autograd.backward([x * 2, torch.ones(1)], [torch.ones(1), torch.ones(1)])


def test_backward_fewer_gradients_than_tensors_raises():
    x = tensor([1.0, 2.0], True)
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        torch.autograd.backward([x * 2, x * 3], [torch.ones(2)])


def test_backward_gradient_must_be_tensor_or_none():
    x = tensor([1.0, 2.0], True)
    with pytest.raises(TypeError, match="gradients can be either Tensors or None, but got "
                                        "float"):
        (x * 2).backward([1.0, 2.0])


def test_backward_inside_no_grad_still_works_and_keeps_mode():
    x = tensor([1.0, 2.0], True)
    y = (x * x).sum()
    with torch.no_grad():
        y.backward()
        assert not torch.is_grad_enabled()
    assert_close(x.grad, [2.0, 4.0])
    assert torch.is_grad_enabled()


def test_backward_through_broadcasting_sums_to_input_shape():
    a = torch.ones(3, 1, requires_grad=True)
    b = torch.ones(4, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.shape == (3, 1) and b.grad.shape == (4,)
    assert_close(a.grad, [[4.0]] * 3)
    assert_close(b.grad, [3.0] * 4)


def test_backward_sum_to_with_an_empty_dimension():
    a = torch.rand(4, 0, requires_grad=True)
    b = torch.rand(4, 1, requires_grad=True)
    c = a + b
    assert c.shape == (4, 0)
    c.sum().backward()
    assert_close(b.grad, np.zeros((4, 1)))
    assert a.grad.shape == (4, 0)


def test_backward_gradients_keep_each_inputs_dtype():
    a = torch.ones(3, dtype=torch.float32, requires_grad=True)
    b = torch.ones(3, dtype=torch.float64, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype == torch.float32
    assert b.grad.dtype == torch.float64


# -- shared subgraphs ---------------------------------------------------------------------

def test_tensor_used_twice_sums_its_gradients():
    x = tensor([1.0, 2.0], True)
    (x * x + x).sum().backward()
    assert_close(x.grad, [3.0, 5.0])


def test_diamond_graph():
    x = tensor([0.5, 1.0], True)
    a = x * 2
    b = a.exp()
    c = a.sin()
    (b + c).sum().backward()
    av = np.array([1.0, 2.0])
    assert_close(x.grad, 2 * (np.exp(av) + np.cos(av)))


def test_diamond_runs_shared_node_once():
    # The shared node's backward must wait for both branches: one call, summed gradient.
    x = tensor([1.0, 2.0], True)
    a = x * 3
    calls = []
    a.grad_fn.register_prehook(lambda go: calls.append(arr(go[0]).tolist()))
    (a * 2 + a * 5).sum().backward()
    assert calls == [[7.0, 7.0]]
    assert_close(x.grad, [21.0, 21.0])


def test_deep_graph_backward_and_free():
    # The engine and the graph's teardown must not recurse per node.
    x = tensor([1.0], True)
    y = x.clone()
    for _ in range(5000):
        y = y + y * 1e-6
    y.backward()
    assert_close(x.grad, [(1 + 1e-6) ** 5000])
    del y
    gc.collect()


def test_unused_output_of_multi_output_op_gets_zeros():
    x = torch.ones(3, 2, requires_grad=True)
    outs = x.unbind()
    g, = torch.autograd.grad(outs[1], x, torch.tensor([1.0, 2.0]))
    assert_close(g, [[0, 0], [1, 2], [0, 0]])


# -- autograd.grad ------------------------------------------------------------------------

def test_grad_returns_gradients_and_leaves_grad_untouched():
    x = tensor([1.0, 2.0], True)
    g, = torch.autograd.grad((x * x).sum(), x)
    assert_close(g, [2.0, 4.0])
    assert x.grad is None
    assert not g.requires_grad and g.grad_fn is None


def test_grad_hessian_vector_product():
    x = tensor(X, True)
    y = tensor(Y, True)
    z = x ** 2 + y * x + y ** 2
    z.backward(torch.ones(2, 2, dtype=torch.float64), create_graph=True)
    xv, yv = np.asarray(X), np.asarray(Y)
    assert_close(x.grad, 2 * xv + yv)
    assert_close(y.grad, xv + 2 * yv)
    grad_sum = 2 * x.grad + y.grad
    x_hv = torch.autograd.grad(outputs=[grad_sum], grad_outputs=[torch.ones(2, 2,
                                                                         dtype=torch.float64)],
                               inputs=[x], create_graph=True)
    assert_close(x_hv[0], np.full((2, 2), 5.0))
    # .grad is not touched by autograd.grad
    assert_close(x.grad, 2 * xv + yv)
    # Accumulating the second backward into .grad
    grad_sum.backward(torch.ones(2, 2, dtype=torch.float64))
    assert_close(x.grad, 2 * xv + yv + 5)
    assert_close(y.grad, xv + 2 * yv + 4)


def test_grad_of_nonleaf_in_a_loop():
    x_init = tensor(X, True)
    x = x_init
    y = tensor(Y, True)
    go = torch.ones(2, 2, dtype=torch.float64)

    def fn(x):
        return x ** 2 + y * x + y ** 2

    for _ in range(5):
        grad_x, = torch.autograd.grad(fn(x), x, grad_outputs=go, create_graph=True)
        assert_close(grad_x, 2 * arr(x) + np.asarray(Y))
        assert y.grad is None and x_init.grad is None
        x = x + 0.05 * grad_x
    assert fn(x).sum().item() > fn(x_init).sum().item()
    x.backward(go)
    assert y.grad is not None and x_init.grad is not None


def test_grad_wrt_chunks_does_not_run_their_producer():
    x = torch.randn(4, 2, requires_grad=True)
    a, b = x.chunk(2)
    called = []
    x.register_hook(lambda g: called.append(1))
    go = torch.randn(2, 2)
    ga, gb = torch.autograd.grad(a + 2 * b, [a, b], grad_outputs=go, create_graph=True)
    assert_close(ga, arr(go))
    assert_close(gb, 2 * arr(go))
    assert called == []
    assert x.grad is None


def test_grad_in_shards_then_backward_the_rest():
    leaves = [torch.zeros(3, requires_grad=True) for _ in range(6)]
    inter = [leaf * i + leaf * leaf for i, leaf in enumerate(leaves)]
    loss = sum(v * i for i, v in enumerate(inter)).sum()
    d = []
    for k in range(0, len(inter), 2):
        d.extend(torch.autograd.grad(loss, inter[k:k + 2], retain_graph=True))
    torch.autograd.backward(inter, d)
    for i, leaf in enumerate(leaves):
        assert_close(leaf.grad, i * i * (1 + arr(leaf)))


def test_grad_unused_input_raises_unless_allowed():
    x = tensor([1.0], True)
    y = tensor([1.0], True)
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to "
                                           "not have been used in the graph. Set "
                                           "allow_unused=True"):
        torch.autograd.grad(x * 2, [x, y], torch.ones(1, dtype=torch.float64))
    gx, gy = torch.autograd.grad(x * 2, [x, y], torch.ones(1, dtype=torch.float64),
                                 allow_unused=True)
    assert_close(gx, [2.0])
    assert gy is None


def test_grad_unreachable_even_with_accumulator_allocated():
    x = tensor([1.0], True)
    y = tensor([1.0], True)
    _ = y * 2  # y's accumulator exists but is not reachable from the output
    gx, gy = torch.autograd.grad(x * 2, [x, y], torch.ones(1, dtype=torch.float64),
                                 allow_unused=True)
    assert_close(gx, [2.0])
    assert gy is None


def test_grad_materialize_grads_gives_zeros():
    x = tensor([1.0, 2.0], True)
    y = tensor([3.0, 4.0], True)
    gx, gy = torch.autograd.grad((x * 2).sum(), [x, y], materialize_grads=True)
    assert_close(gx, [2.0, 2.0])
    assert_close(gy, [0.0, 0.0])
    assert gy.dtype == y.dtype


def test_grad_materialize_grads_with_allow_unused_false_raises():
    x = tensor([1.0], True)
    with pytest.raises(ValueError, match="Expected allow_unused to be True or not passed "
                                         "when materialize_grads=True"):
        torch.autograd.grad((x * 2).sum(), x, materialize_grads=True, allow_unused=False)


def test_grad_input_not_requiring_grad_raises():
    x = torch.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not "
                                           "require grad"):
        torch.autograd.grad((x * 2).sum(), torch.ones(1))


def test_grad_output_not_requiring_grad_is_checked_first():
    x = torch.ones(1)
    y = x ** 2
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        torch.autograd.grad(y, x)


def test_grad_empty_inputs_and_non_tensor_inputs_raise():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be "
                                           "empty."):
        torch.autograd.grad((x * 2).sum(), [])
    with pytest.raises(RuntimeError, match="all inputs have to be Tensors or GradientEdges, "
                                           "but got int"):
        torch.autograd.grad((x * 2).sum(), [x, 3])


def test_grad_twice_without_retain_graph_raises():
    x = tensor([1.0, 2.0], True)
    y = (x * x).sum()
    torch.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        torch.autograd.grad(y, x)


def test_grad_of_a_leaf_wrt_itself():
    x = tensor([1.0, 2.0], True)
    g, = torch.autograd.grad(x, x, tensor([3.0, 4.0]))
    assert_close(g, [3.0, 4.0])


def test_double_backward():
    x = tensor([1.0, 2.0], True)
    g, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    assert_close(g, [3.0, 12.0])
    g2, = torch.autograd.grad(g.sum(), x)
    assert_close(g2, [6.0, 12.0])


def test_create_graph_gradient_without_dependence_has_no_history():
    # d(sum(2x))/dx = 2 does not depend on x: even with create_graph it carries no history.
    x = tensor([1.0, 2.0], True)
    g, = torch.autograd.grad((x * 2).sum(), x, create_graph=True)
    assert not g.requires_grad and g.grad_fn is None
    assert_close(g, [2.0, 2.0])


# -- accumulation into .grad --------------------------------------------------------------

def test_accumulate_in_place_without_create_graph():
    x = tensor([1.0, 2.0], True)
    y = x + 2
    y.backward(torch.ones(2, dtype=torch.float64), retain_graph=True)
    first = x.grad
    snapshot = first.clone()
    y.backward(torch.ones(2, dtype=torch.float64))
    assert x.grad is first
    assert_close(first, 2 * arr(snapshot))


def test_accumulate_out_of_place_with_create_graph():
    x = tensor([1.0, 2.0], True)
    y = x + 2
    y.backward(torch.ones(2, dtype=torch.float64), retain_graph=True)
    first = x.grad
    snapshot = first.clone()
    y.backward(torch.ones(2, dtype=torch.float64), create_graph=True)
    assert x.grad is not first
    assert_close(first, arr(snapshot))
    assert_close(x.grad, 2 * arr(snapshot))


def test_accumulate_keeps_user_assigned_grad_object():
    for create_graph in (False, True):
        p = torch.tensor([1.5, 1.5]).requires_grad_()
        p.grad = torch.tensor([1.5, 1.5])
        saved = p.grad
        p.backward(torch.tensor([1.5, 1.5]), create_graph=create_graph)
        assert (saved is p.grad) is (not create_graph)
        assert_close(p.grad, [3.0, 3.0])


def test_create_graph_grad_has_copy_history():
    x = tensor([1.0, 2.0], True)
    (x ** 3).sum().backward(create_graph=True)
    fn = x.grad.grad_fn
    assert type(fn).__name__ == 'CopyBackwards'
    assert fn.name() == 'torch::autograd::CopyBackwards'
    assert fn.next_functions[0][0] is None
    assert fn.next_functions[1][0].name() == 'MulBackward0'
    # .grad's graph is differentiable: d/dx sum(3x^2) = 6x
    g2, = torch.autograd.grad(x.grad.sum(), x)
    assert_close(g2, [6.0, 12.0])


def test_backward_after_create_graph_accumulates_in_place_and_keeps_history():
    x = tensor([1.0, 2.0], True)
    (x ** 3).sum().backward(create_graph=True)
    first = x.grad
    (x ** 2).sum().backward()
    assert x.grad is first
    assert x.grad.grad_fn is not None
    assert_close(x.grad, [5.0, 16.0])


def test_grad_of_leaves_of_different_backward_calls_do_not_alias():
    a = tensor([1.0, 2.0], True)
    b = tensor([1.0, 2.0], True)
    (a + b).sum().backward()
    assert a.grad is not b.grad
    a.grad.add_(1)
    assert_close(b.grad, [1.0, 1.0])


# -- inputs= of backward ------------------------------------------------------------------

def test_backward_inputs_restricts_accumulation():
    x = tensor([1.0, 2.0], True)
    w = tensor([3.0, 4.0], True)
    (x * w).sum().backward(inputs=[x])
    assert_close(x.grad, [3.0, 4.0])
    assert w.grad is None


def test_backward_inputs_nonleaf_gets_grad_and_retains():
    x = tensor([1.0, 2.0], True)
    y = x * 2
    z = (y * y).sum()
    z.backward(inputs=[y], retain_graph=True)
    assert y.retains_grad
    assert_close(y.grad, [4.0, 8.0])
    assert x.grad is None
    z.backward(inputs=[y, x])
    assert_close(y.grad, [8.0, 16.0])
    assert_close(x.grad, [8.0, 16.0])


def test_backward_inputs_not_reached_stays_none():
    x = tensor([1.0], True)
    w = tensor([1.0], True)
    (x * 3).sum().backward(inputs=[w])
    assert w.grad is None and x.grad is None


def test_backward_inputs_empty_raises():
    x = tensor([1.0], True)
    with pytest.raises(RuntimeError, match="`inputs` argument to `backward\\(\\)` cannot be "
                                           "empty."):
        (x * 2).sum().backward(inputs=[])


# -- tensor hooks -------------------------------------------------------------------------

def test_hooks_count_and_replace_gradients():
    x = torch.ones(2, 2, requires_grad=True, dtype=torch.float64)
    y = torch.ones(2, 2, dtype=torch.float64) * 4
    y.requires_grad_(True)
    counter = [0]

    def bw_hook(inc, grad):
        assert isinstance(grad, torch.Tensor)
        counter[0] += inc

    ones = torch.ones(2, 2, dtype=torch.float64)
    z = x ** 2 + x * 2 + x * y + y
    x.register_hook(lambda g: bw_hook(0, g))
    test = z.register_hook(lambda g: bw_hook(1, g))
    z.backward(ones, retain_graph=True)
    assert counter[0] == 1
    test2 = z.register_hook(lambda g: bw_hook(2, g))
    z.backward(ones, retain_graph=True)
    assert counter[0] == 4
    test2.remove()
    z.backward(ones, retain_graph=True)
    assert counter[0] == 5
    test.remove()
    z.register_hook(lambda g: g.mul(2))
    with torch.no_grad():
        y.grad.zero_()
    z.backward(ones, retain_graph=True)
    assert_close(y.grad, (arr(x) + 1) * 2)
    y.register_hook(lambda g: g.mul(2))
    with torch.no_grad():
        y.grad.zero_()
    z.backward(ones)
    assert_close(y.grad, (arr(x) + 1) * 4)


def test_hook_sees_gradient_and_leaf_hook_can_replace_it():
    x = tensor([1.0, 2.0], True)
    y = x * x
    seen = []
    y.register_hook(lambda g: seen.append(arr(g).tolist()))
    x.register_hook(lambda g: g * 10)
    (y * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    assert_close(x.grad, [60.0, 120.0])


def test_leaf_hook_runs_in_autograd_grad_too():
    x = tensor([1.0, 2.0], True)
    seen = []
    x.register_hook(lambda g: seen.append(1) or g * 2)
    g, = torch.autograd.grad((x * x).sum(), x)
    assert seen == [1]
    assert_close(g, [4.0, 8.0])


def test_hook_handle_removes_and_works_as_context_manager():
    x = tensor([1.0, 1.0], True)
    y = x * 2
    with y.register_hook(lambda g: g * 0):
        pass
    h = y.register_hook(lambda g: g * 0)
    h.remove()
    h.remove()  # removing twice is harmless
    y.sum().backward()
    assert_close(x.grad, [2.0, 2.0])


def test_hook_on_one_output_of_unbind():
    x = torch.randn(5, requires_grad=True)
    parts = x.unbind()
    results = [None]

    def hook(grad):
        results[0] = grad

    parts[0].register_hook(hook)
    parts[0].backward()
    assert_close(results[0], 1.0)
    assert_close(x.grad, [1, 0, 0, 0, 0])
    expected = [1.0, 0, 0, 0, 0]
    for i in range(1, 5):
        parts[i].backward()
        # The node ran, but no gradient reached parts[0]: torch shows its hook a None.
        assert results[0] is None
        expected[i] = 1.0
        assert_close(x.grad, expected)


def test_hook_object_without_name():
    class Hook:
        def __call__(self, grad):
            return grad.clone()

    x = torch.randn(5, requires_grad=True).clone()
    x.register_hook(Hook())
    x.sum().backward()


def test_hook_changing_size_or_dtype_raises():
    x = torch.ones(2, requires_grad=True)
    y = x * 2

    def bigger(g):
        return torch.ones(3)

    y.register_hook(bigger)
    with pytest.raises(RuntimeError, match="hook 'bigger' has changed the size of value"):
        y.sum().backward()
    y = x * 2
    y.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match=r"hook '<lambda>' has changed the type of value "
                                           r"\(was torch.FloatTensor got torch.DoubleTensor\)"):
        y.sum().backward()
    y = x * 2
    y.register_hook(lambda g: 3)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        y.sum().backward()


def test_register_hook_on_tensor_not_requiring_grad_raises():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't "
                                           "require gradient"):
        torch.ones(2).register_hook(lambda g: g)


# -- Node hooks ---------------------------------------------------------------------------

def test_node_pre_and_post_hooks_order_and_arguments():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    seen = []
    y.grad_fn.register_prehook(lambda go: seen.append(('pre', len(go))))
    y.grad_fn.register_hook(lambda gi, go: seen.append(('post', len(gi), len(go))))
    y.register_hook(lambda g: seen.append(('tensor',)))
    y.sum().backward()
    assert seen == [('tensor',), ('pre', 1), ('post', 2, 1)]


def test_node_prehook_replaces_grad_outputs_and_handle_removes_it():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    h = y.grad_fn.register_prehook(lambda go: (go[0] * 5,))
    y.sum().backward(retain_graph=True)
    assert_close(x.grad, [10.0] * 3)
    h.remove()
    x.grad = None
    y.sum().backward()
    assert_close(x.grad, [2.0] * 3)


def test_node_post_hook_replaces_grad_inputs():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 3, None))
    y.sum().backward()
    assert_close(x.grad, [6.0] * 3)


def test_node_hook_wrong_number_or_type_of_values_raises():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0],))
    with pytest.raises(RuntimeError, match=r"has returned an incorrect number of values "
                                           r"\(got 1, but expected 2\)"):
        y.sum().backward()
    y = x * 2
    y.grad_fn.register_prehook(lambda go: go[0])
    with pytest.raises(TypeError, match="expected tuple, but hook returned 'Tensor'"):
        y.sum().backward()


def test_accumulate_grad_node_hooks():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    assert acc.name() == 'torch::autograd::AccumulateGrad'
    assert acc.variable is x
    x.register_hook(lambda g: g * 3)
    acc.register_prehook(lambda go: (go[0] + 100,))
    post = []
    acc.register_hook(lambda gi, go: post.append((gi, arr(go[0]).tolist())))
    y.sum().backward()
    # tensor hook first, then the node's pre-hook, then the post-hook with no grad_inputs
    assert_close(x.grad, [106.0, 106.0])
    assert post == [((), [106.0, 106.0])]


# -- retain_grad --------------------------------------------------------------------------

def test_retain_grad_accumulates_and_is_noop_on_leaves():
    inp = torch.rand(1, 3, requires_grad=True)
    h1 = inp * 3
    out = (h1 * h1).sum()
    h1.retain_grad()
    h1.retain_grad()
    assert h1.retains_grad
    out.backward(retain_graph=True)
    assert_close(h1.grad, arr(h1) * 2)
    out.backward(retain_graph=True)
    assert_close(h1.grad, arr(h1) * 4)
    with torch.no_grad():
        inp.grad.zero_()
    inp.retain_grad()
    assert not inp.retains_grad
    out.backward()
    assert_close(inp.grad, arr(inp) * 18)


def test_retain_grad_sees_hook_results_whatever_the_order():
    for hook_first in (True, False):
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        if hook_first:
            y.register_hook(lambda g: g * 5)
            y.retain_grad()
        else:
            y.retain_grad()
            y.register_hook(lambda g: g * 5)
        y.sum().backward()
        assert_close(y.grad, [5.0, 5.0])
        assert_close(x.grad, [10.0, 10.0])


def test_retain_grad_does_not_keep_tensor_alive():
    x = torch.ones(5, requires_grad=True)
    collected = [0]
    refs = [None]

    def run():
        y = x * 2
        y.retain_grad()
        refs[0] = weakref.ref(y, lambda _: collected.__setitem__(0, collected[0] + 1))
        return y.exp()

    z = run()
    gc.collect()
    assert refs[0]() is None and collected == [1]
    z.sum().backward()
    assert_close(x.grad, 2 * np.exp(2.0) * np.ones(5))


def test_retain_grad_on_tensor_not_requiring_grad_raises():
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                           "requires_grad=False"):
        torch.ones(2).retain_grad()


def test_nonleaf_grad_access_warns_and_is_none():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None


# -- in-place and version counters --------------------------------------------------------

def test_modified_saved_tensor_raises_at_backward():
    x = torch.ones(2, 2, requires_grad=True)
    y = torch.ones(2, 2) * 4
    y.requires_grad_(True)
    z = x * y
    q = z + y
    w = z * y
    z.add_(2)
    # add does not need its inputs for backward
    q.backward(torch.ones(2, 2), retain_graph=True)
    with pytest.raises(RuntimeError, match=r"one of the variables needed for gradient "
                                           r"computation has been modified by an inplace "
                                           r"operation: \[torch.FloatTensor \[2, 2\]\], which "
                                           r"is output 0 of Add, is at version 1; expected "
                                           r"version 0 instead"):
        w.backward(torch.ones(2, 2))


def test_modified_saved_leaf_message_has_no_output_clause():
    a = torch.ones(3)
    x = torch.ones(3, requires_grad=True)
    z = x * a
    a.mul_(2)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[3\]\] is at version 1; "
                                           r"expected version 0 instead"):
        z.sum().backward()


def test_inplace_result_backward():
    x = torch.ones(2, 2, requires_grad=True)
    y = torch.ones(2, 2) * 4
    y.requires_grad_(True)
    z = x * y
    q = z * y
    r = z + y
    w = z.add_(y)
    assert w is z
    w.backward(torch.ones(2, 2), retain_graph=True)
    r.backward(torch.ones(2, 2), retain_graph=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        q.backward(torch.ones(2, 2))


def test_inplace_exp_uses_new_value():
    x = torch.ones(2, 2, requires_grad=True)
    y = torch.ones(2, 2) * 4
    y.requires_grad_(True)
    m = x / 2
    z = m + y / 8
    r = z + y
    w = z.exp_()
    assert w.grad_fn.name() == 'ExpBackward0'
    r.backward(torch.ones(2, 2), retain_graph=True)
    assert_close(x.grad, np.full((2, 2), 0.5))
    w.backward(torch.ones(2, 2), retain_graph=True)
    assert_close(x.grad, np.full((2, 2), (1 + np.e) / 2))


def test_inplace_on_clone_of_leaf():
    leaf = torch.ones(2, 2, requires_grad=True)
    x = leaf.clone()
    x.add_(10)
    assert_close(x, np.full((2, 2), 11.0))
    y = x + 2
    y.backward(torch.ones(2, 2))
    assert_close(leaf.grad, np.ones((2, 2)))
    z = x * y
    x.add_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward(torch.ones(2, 2))


def test_inplace_on_leaf_requiring_grad_raises():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation."):
        x.add_(1)


def test_inplace_on_view_of_leaf_raises():
    x = torch.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is "
                                           "being used in an in-place operation."):
        x.select(0, 0).add_(1)


def test_inplace_on_leaf_under_no_grad_is_allowed():
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        x.mul_(2)
    assert x.is_leaf and x.requires_grad
    (x * x).sum().backward()
    assert_close(x.grad, [4.0] * 3)


def test_inplace_before_requires_grad_is_fine():
    a = torch.tensor([[1.0, 2.0, 3.0]])
    a.add_(5)
    a.requires_grad = True
    a.sum().backward()
    assert_close(a.grad, [[1.0, 1.0, 1.0]])


def test_inplace_with_operand_requiring_grad_makes_result_require_grad():
    a = torch.ones(2)
    b = torch.ones(2, requires_grad=True)
    a += b
    assert a.requires_grad and not a.is_leaf
    a.sum().backward()
    assert_close(b.grad, [1.0, 1.0])


def test_inplace_on_view_of_nonleaf_goes_to_base():
    x = torch.ones(2, 3, requires_grad=True)
    y = x * 2
    y.select(0, 0).mul_(3)
    y.sum().backward()
    assert_close(x.grad, [[6.0, 6.0, 6.0], [2.0, 2.0, 2.0]])


def test_version_counter_shared_by_views_and_detach():
    x = torch.ones(2, 2)
    v = x.select(0, 1)
    d = x.detach()
    x.add_(1)
    v.mul_(2)
    d.zero_()
    # The three share one counter: each in-place op is seen by all.
    assert x._version == v._version == d._version == 3


# -- detach, requires_grad_, is_leaf, grad_fn ----------------------------------------------

def test_detach_shares_data_and_leaves_graph():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    z = y * y
    d.add_(1)
    assert_close(y, [3.0, 3.0])
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_detach_in_place():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    assert y.detach_() is y
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None


def test_detach_in_place_on_view_raises():
    x = torch.ones(2, 2, requires_grad=True)
    y = (x * 2).view(4)
    with pytest.raises(RuntimeError, match="Can't detach views in-place. Use detach\\(\\) "
                                           "instead."):
        y.detach_()


def test_requires_grad_():
    x = torch.randn(2, 2)
    y = torch.randn(2, 2, requires_grad=True)
    assert x.requires_grad_() is x and x.requires_grad
    assert y.requires_grad_() is y and y.requires_grad
    z = x * y
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf "
                                           "variables."):
        z.requires_grad_(False)
    assert z.requires_grad_() is z and z.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        torch.ones(2, dtype=torch.int64).requires_grad_()


def test_requires_grad_propagates():
    x = torch.randn(2, 2)
    y = torch.randn(2, 2)
    z = torch.randn(2, 2, requires_grad=True)
    a = x + y
    assert not a.requires_grad and a.is_leaf
    b = a + z
    assert b.requires_grad and not b.is_leaf


def test_next_functions_and_names():
    x = torch.randn(2, 2, requires_grad=True)
    y = torch.randn(2, 2, requires_grad=True)
    a = x + y
    nf = a.grad_fn.next_functions
    assert len(nf) == 2
    assert type(nf[0][0]).__name__ == 'AccumulateGrad' and nf[0][1] == 0
    assert nf[0][0].variable is x and nf[1][0].variable is y
    b = a + 5
    nf = b.grad_fn.next_functions
    assert len(nf) == 2
    assert nf[0][0] is a.grad_fn
    assert nf[1][0] is None
    assert a.grad_fn.name() == 'AddBackward0'
    assert (a * 2).sum().grad_fn.name() == 'SumBackward0'


def test_leaf_accumulator_is_shared():
    x = torch.ones(2, requires_grad=True)
    a = x * 2
    b = x * 3
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]


def test_calling_a_grad_fn_directly():
    x = torch.ones(2, requires_grad=True)
    y = x * 3
    gx, gother = y.grad_fn(torch.ones(2))
    assert_close(gx, [3.0, 3.0])
    with pytest.raises(TypeError, match="expected 1 arguments, got 2 instead"):
        y.grad_fn(torch.ones(2), torch.ones(2))
    with pytest.raises(TypeError, match="expected 1 arguments, got 0 instead"):
        y.grad_fn()


def test_grad_fn_metadata_dict():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.metadata['tag'] = 1
    assert y.grad_fn.metadata == {'tag': 1}


def test_assigning_grad_checks():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        x.grad = torch.ones(3)
    with pytest.raises(RuntimeError):
        x.grad = torch.ones(2, dtype=torch.float64)
    x.grad = torch.ones(2)
    del x.grad
    assert x.grad is None


# -- grad modes ---------------------------------------------------------------------------

def test_no_grad_context_and_decorator():
    x = torch.ones(5, 5, requires_grad=True)
    y = torch.ones(5, 5) * 4
    with torch.no_grad():
        w = x + y

    @torch.no_grad()
    def adder(a, b):
        return a + b

    @torch.no_grad
    def adder2(a, b):
        return a + b

    z = adder(x, y)
    assert not w.requires_grad and w.grad_fn is None
    assert not z.requires_grad and z.grad_fn is None
    assert not adder2(x, y).requires_grad
    with pytest.raises(RuntimeError):
        w.backward(torch.ones(5, 5))
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        adder(x, y)
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = torch.ones(2, requires_grad=True)

    @torch.enable_grad()
    def doubler(a):
        return a * 2

    with torch.no_grad():
        with torch.enable_grad():
            assert torch.is_grad_enabled()
            assert (x * 2).requires_grad
        assert not torch.is_grad_enabled()
        assert doubler(x).requires_grad
        assert not torch.is_grad_enabled()


def test_grad_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with torch.no_grad():
            raise ValueError
    assert torch.is_grad_enabled()

    @torch.no_grad()
    def boom():
        raise KeyError

    with pytest.raises(KeyError):
        boom()
    assert torch.is_grad_enabled()


def test_set_grad_enabled_as_function_context_and_decorator():
    x = torch.ones(2, requires_grad=True)
    try:
        torch.set_grad_enabled(False)
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled()

    @torch.set_grad_enabled(False)
    def f(a):
        return a * 2

    # Creating the decorator must not leave grad mode switched off.
    assert torch.is_grad_enabled()
    assert not f(x).requires_grad
    assert torch.is_grad_enabled()
    with torch.no_grad():
        with torch.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not torch.is_grad_enabled()


def test_set_grad_enabled_requires_bool():
    with pytest.raises(TypeError, match="must be bool, not int"):
        torch.set_grad_enabled(1)
    assert torch.is_grad_enabled()


def test_grad_mode_decorators_wrap_generators_per_step():
    @torch.no_grad()
    def gen_no_grad():
        for i in range(3):
            assert not torch.is_grad_enabled()
            yield i

    with torch.enable_grad():
        for _ in gen_no_grad():
            assert torch.is_grad_enabled()

    @torch.enable_grad()
    def gen_enable_grad():
        for i in range(3):
            assert torch.is_grad_enabled()
            yield i

    with torch.no_grad():
        assert list(gen_enable_grad()) == [0, 1, 2]
        for _ in gen_enable_grad():
            assert not torch.is_grad_enabled()


def test_decorated_function_keeps_name_and_doc():
    @torch.no_grad()
    def my_function(a):
        """Doc."""
        return a

    assert my_function.__name__ == 'my_function'
    assert my_function.__doc__ == 'Doc.'


def test_grad_mode_is_thread_local():
    seen = []

    def worker():
        seen.append(torch.is_grad_enabled())
        with torch.no_grad():
            seen.append(torch.is_grad_enabled())

    with torch.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not torch.is_grad_enabled()
    # A new thread starts with grad on, whatever the spawning thread's mode.
    assert seen == [True, False]
    assert torch.is_grad_enabled()


def test_inference_mode():
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        y = x * 2
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
        with torch.inference_mode(False):
            assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    assert not y.requires_grad
    assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()

    @torch.inference_mode()
    def f(a):
        return a * 2

    @torch.inference_mode
    def g(a):
        return a * 2

    assert not f(x).requires_grad and not g(x).requires_grad
    with torch.inference_mode(False):
        assert (x * 2).requires_grad


def test_backward_restores_grad_mode_and_runs_hooks_without_grad():
    x = torch.ones(2, requires_grad=True)
    modes = []
    y = x * 2
    y.register_hook(lambda g: modes.append(torch.is_grad_enabled()))
    y.sum().backward()
    y2 = x * 2
    y2.register_hook(lambda g: modes.append(torch.is_grad_enabled()))
    y2.sum().backward(create_graph=True)
    # Formulas and hooks run with grad mode == create_graph.
    assert modes == [False, True]
    assert torch.is_grad_enabled()


def test_no_grad_python_op_result_does_not_require_grad():
    x = torch.ones(5, 5, requires_grad=True)
    with torch.no_grad():
        y = x + 1
    assert not y.requires_grad


# -- assorted engine behaviour --------------------------------------------------------------

def test_exception_in_hook_propagates_and_restores_grad_mode():
    x = torch.ones(2, requires_grad=True)
    y = x * 2

    def hook(g):
        assert torch.is_grad_enabled()  # create_graph=True: formulas and hooks record
        raise ValueError('boom')

    y.register_hook(hook)
    with pytest.raises(ValueError, match='boom'):
        y.sum().backward(create_graph=True)
    assert torch.is_grad_enabled()
    s = y.sum()
    with torch.no_grad():
        with pytest.raises(ValueError, match='boom'):
            s.backward(create_graph=True)
        assert not torch.is_grad_enabled()


def test_leaf_whose_requires_grad_was_switched_off_gets_nothing():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    x.requires_grad_(False)
    y.sum().backward()
    assert x.grad is None


def test_grad_outputs_with_history_are_differentiable():
    x = tensor([1.0, 2.0], True)
    v = tensor([1.0, 1.0], True)
    g, = torch.autograd.grad(x * x, x, v, create_graph=True)
    assert_close(g, [2.0, 4.0])
    gv, = torch.autograd.grad(g.sum(), v)
    assert_close(gv, [2.0, 4.0])


def test_shared_node_freed_by_first_backward():
    x = torch.ones(2, requires_grad=True)
    a = x.exp()
    (a * 2).sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        (a * 3).sum().backward()
    x2 = torch.ones(2, requires_grad=True)
    a2 = x2.exp()
    (a2 * 2).sum().backward(retain_graph=True)
    (a2 * 3).sum().backward()
    assert_close(x2.grad, [5 * np.e] * 2)


def test_duplicate_inputs_each_get_the_gradient():
    x = tensor([1.0, 2.0], True)
    g1, g2 = torch.autograd.grad((x * x).sum(), [x, x])
    assert_close(g1, [2.0, 4.0])
    assert_close(g2, [2.0, 4.0])
    (x * x).sum().backward(inputs=[x, x])
    assert_close(x.grad, [2.0, 4.0])


def test_leaf_hook_runs_once_with_the_summed_gradient():
    x = tensor([1.0, 1.0], True)
    calls = []
    x.register_hook(lambda g: calls.append(arr(g).tolist()))
    (x * 2 + x * 3 + x).sum().backward()
    assert calls == [[6.0, 6.0]]


def test_grad_zeroed_in_place_keeps_object():
    x = torch.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    g = x.grad
    x.grad.zero_()
    (x * 3).sum().backward()
    assert x.grad is g
    assert_close(g, [3.0, 3.0])


def test_grad_fn_nodes_are_graph_nodes():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    assert isinstance(y.grad_fn, torch.autograd.graph.Node)
    assert isinstance(y.grad_fn.next_functions[0][0], torch.autograd.graph.Node)


def test_unused_outputs_of_chunk_get_zero_gradient():
    x = torch.randn(10, 10, requires_grad=True)
    o = x.chunk(5)[2] * 4 + 2
    o.sum().backward()
    expected = np.zeros((10, 10))
    expected[4:6] = 4
    assert_close(x.grad, expected)
    with torch.no_grad():
        x.grad.zero_()
    go = torch.randn(2, 10)
    x.chunk(5)[0].backward(go)
    expected = np.zeros((10, 10))
    expected[:2] = arr(go)
    assert_close(x.grad, expected)


def test_gradcheck_stays_the_function_when_its_module_is_imported_first():
    # regression: `import ember.autograd.gradcheck` before touching the function rebound
    # ember.autograd.gradcheck to the submodule ("'module' object is not callable")
    import subprocess
    import sys
    code = ("import ember.autograd.gradcheck as m, ember; "
            "print(ember.autograd.gradcheck is m.gradcheck, callable(ember.autograd.gradcheck))")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ['True', 'True']
