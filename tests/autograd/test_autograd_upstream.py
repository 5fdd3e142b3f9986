"""PyTorch's test/test_autograd.py, class TestAutograd, adapted to run on ember and torch.

Each upstream test keeps its name and its assertions; ``torch.`` became ``lib.`` and every
test runs twice (``[ember]`` and ``[torch]``). ember's run of a test listed in ``XFAIL`` is
expected to fail (strict), for the reason given. Custom Function tests that
test_function_upstream.py already covers under other names are adapted here again, as
upstream has them.

Upstream tests not adapted, and why:
- test_copy_slices_graph_task_updates, test_materialize_grads, test_dont_materialize_grads:
  need torch._C._functions (DelayedError, UndefinedGrad), private nodes.
- test_will_engine_execute_node, test_multiple_insert_removal_caching: torch._C private API.
- test_grad_fn_input_metadata: ``_input_metadata`` of nested (jagged) tensors.
- test_not_implemented_grad: its example (nextafter) has a derivative in torch 2.13.
- test_naughty_autograd_function_stashing_ctx: torch 2.13 does not raise there any more.
- test_naughty_autograd_function_attribute_access: adapted without its last part, the
  "Attribute '...' is invalid" errors of THPFunction's C-level accessors (torch 2.13 no
  longer raises all of them).
- test_custom_autograd_ac_early_stop: on torch 2.13 its weak-reference check passes or fails
  depending on which tests ran before it in the process (it fails run alone).
- test_to_sparse_backward, test_sparse_mm_backward: in test_autograd_sparse_upstream.py.
- test_sparse_gather_*: in test_autograd_sparse_upstream.py.
- test_checkpoint_compile_no_recompile, test_checkpoint_device_context_fn: need CUDA.
- test_lobpcg: see test_autograd_upstream_part_a.py.
- test_node_ordering_when_none_returned: needs CUDA.
- test_current_graph_task_id, test_current_graph_task_execution_order: torch._C private API.
- test_view_replay_enabled, test_unsafe_set_version_counter, test_current_node,
  test_calculate_shape_util: private torch._C / torch.autograd._ helpers, nested tensors,
  TorchDispatchMode.
- test_profiler* and test_record_function*, test_retain_grad_cycle: adapted in
  test_autograd_upstream_part_a.py (with the rest of the first part of TestAutograd).
- test_thread_shutdown: torch's C++ worker threads.
- test_input_buffer_accum, test_no_grad_copy_sparse, test_gradcheck_input,
  test_gradcheck_check_batched_grad, test_gradcheck_dense_and_sparse_inputs, and the sparse
  halves of test_gradcheck_validates_inputs, test_gradcheck_backward_mul_by_grad_output and
  test_gradcheck_test_outputs: in test_autograd_sparse_upstream.py.
- test_gradcheck_validates_input_mkldnn, test_gradcheck_test_outputs,
  test_gradcheck_multiple_mkldnn_inputs: in test_autograd_upstream_part_b.py.
- test_checkpoint* (torch.utils.checkpoint), test_grad_thread_safety and the tests between
  offsets of upstream not listed in this file: not adapted yet (see the report).
"""
import gc
import random
import warnings
import weakref
from copy import deepcopy
from importlib import import_module

import numpy as np
import pytest

from ._upstream import lib_fixture, eq, npy, raises, warns, graph_desc, torch, ember

XFAIL = {
    'test_autograd_inplace_views_cross_dtype':
        "the test pins a torch bug (upstream's own TODO calls it one): after "
        "transpose_ of a view_as_real view torch's gradient comes out transposed; ember's is "
        "the correct one, equal to torch's without the in-place transpose "
        "(test_checkpoint_views_oracle.py checks that)",
}

lib = lib_fixture(XFAIL)


def Function(lib):
    return lib.autograd.Function


def once_differentiable(lib):
    return lib.autograd.function.once_differentiable


def gradcheck(lib, *a, **k):
    return lib.autograd.gradcheck(*a, **k)


def gradgradcheck(lib, *a, **k):
    return lib.autograd.gradgradcheck(*a, **k)


def test_grad_mode_class_decoration(lib):
    with warns(FutureWarning, "Decorating classes is deprecated"):
        @lib.no_grad()
        class Foo:
            def __init__(self):
                assert not lib.is_grad_enabled()

            def foo(self):
                assert lib.is_grad_enabled()

        foo = Foo()
        foo.foo()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')

        @lib.no_grad()
        def foo():
            assert not lib.is_grad_enabled()

        foo()

        class Foo2:
            @lib.no_grad()
            def __init__(self):
                assert not lib.is_grad_enabled()

            @lib.no_grad()
            def foo(self):
                assert not lib.is_grad_enabled()

        foo2 = Foo2()
        foo2.foo()
    assert len(w) == 0


def test_tensor_grad_warnings(lib):
    dummy = lib.empty(1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        dummy.requires_grad_()
        foo = dummy.grad
        assert len(w) == 0
        dummy = dummy.clone()
        foo = dummy.grad
        assert len(w) == 1
        dummy.retain_grad()
        foo = dummy.grad
        assert len(w) == 1


def _function_test(lib, cls):
    x = lib.randn(5, 5, requires_grad=True)
    y = lib.randn(5, 5, requires_grad=True)
    result = cls.apply(x, 2, y)
    go = lib.ones((), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # (create_graph's reference-cycle warning)
        result.sum().backward(go, create_graph=True)
    eq(x.grad, y + lib.ones(5, 5))
    eq(y.grad, x + lib.ones(5, 5) * 2)
    assert x.grad.grad_fn is not None
    assert y.grad.grad_fn is not None
    return x, y


def test_function(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, tensor1, pyscalar, tensor2):
            ctx.pyscalar = pyscalar
            ctx.save_for_backward(tensor1, tensor2)
            return tensor1 + pyscalar * tensor2 + tensor1 * tensor2

        @staticmethod
        def backward(ctx, grad_output):
            var1, var2 = ctx.saved_tensors
            assert isinstance(var1, lib.Tensor)
            assert isinstance(var2, lib.Tensor)
            assert isinstance(grad_output, lib.Tensor)
            return (grad_output + grad_output * var2, None,
                    grad_output * ctx.pyscalar + grad_output * var1)

    x, y = _function_test(lib, MyFunction)
    # upstream's expected-output files, checked against torch 2.13
    assert graph_desc(x.grad.grad_fn) == (
        'CopyBackwards(None, AddBackward0(ExpandBackward0(AccumulateGrad()), '
        'MulBackward0(ExpandBackward0(AccumulateGrad()), AccumulateGrad())))')
    assert graph_desc(y.grad.grad_fn) == (
        'CopyBackwards(None, AddBackward0(MulBackward0(ExpandBackward0(AccumulateGrad()), '
        'None), MulBackward0(ExpandBackward0(AccumulateGrad()), AccumulateGrad())))')
    x.grad = None
    y.grad = None


def test_once_differentiable(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, tensor1, pyscalar, tensor2):
            ctx.pyscalar = pyscalar
            ctx.save_for_backward(tensor1, tensor2)
            return tensor1 + pyscalar * tensor2 + tensor1 * tensor2

        @staticmethod
        @once_differentiable(lib)
        def backward(ctx, grad_output):
            assert not lib.is_grad_enabled()
            t1, t2 = ctx.saved_tensors
            return (grad_output + grad_output * t2, None,
                    grad_output * ctx.pyscalar + grad_output * t1)

    x, y = _function_test(lib, MyFunction)
    assert graph_desc(x.grad.grad_fn) == \
        'CopyBackwards(None, Error(AccumulateGrad(), None, AccumulateGrad()))'
    assert graph_desc(y.grad.grad_fn) == \
        'CopyBackwards(None, Error(AccumulateGrad(), None, AccumulateGrad()))'
    x.grad = None
    y.grad = None


def test_function_returns_input(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    for shape in [(1,), ()]:
        v = lib.ones(shape, requires_grad=True)
        MyFunction.apply(v).backward()
        eq(v.grad, lib.full(shape, 2.0))
        with lib.no_grad():
            v.grad.zero_()
        MyFunction.apply(v.clone()).backward()
        eq(v.grad, lib.full(shape, 2.0))


def test_function_returns_undefined_tensor(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return None

    x = lib.ones(1, requires_grad=True)
    MyFunction.apply(x).backward()
    assert x.grad is None
    MyFunction.apply(x ** 2).backward()
    assert x.grad is None
    MyFunction.apply(x).sum().backward()
    assert x.grad is None
    assert lib.autograd.grad(MyFunction.apply(x), x, allow_unused=True)[0] is None


def test_set_materialize_non_diff_grads(lib):
    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out0 = x.clone()
            out1 = x.clone()
            ctx.mark_non_differentiable(out1)
            ctx._materialize_non_diff_grads = False
            return out0, out1

        @staticmethod
        def backward(ctx, g0, g1):
            assert g1 is None
            return g0

    a = lib.tensor(1.0, requires_grad=True)
    out = Func.apply(a)[0]
    out.backward()


def test_unused_grad_requires_grad_with_materialize(lib):
    x = lib.ones(10, requires_grad=True)
    y = lib.ones(10, requires_grad=True)
    z = (x ** 2).sum()
    g = lib.autograd.grad(z, (x, y), allow_unused=True, materialize_grads=True,
                          create_graph=False)
    assert not g[0].requires_grad
    assert not g[1].requires_grad


def test_unused_grad_requires_grad_with_materialize_and_create_graph(lib):
    # (the issue's case: with create_graph, the materialized zeros require grad, as torch's)
    x = lib.ones(10, requires_grad=True)
    y = lib.ones(10, requires_grad=True)
    z = (x ** 2).sum()
    g = lib.autograd.grad(z, (x, y), allow_unused=True, materialize_grads=True,
                          create_graph=True)
    assert g[0].requires_grad
    assert g[1].requires_grad
    eq(g[1], lib.zeros(10))


def test_legacy_function_deprecation_exception(lib):
    class MyFunction(lib.autograd.Function):
        def forward(self, x):
            return x

        def backward(self, grad_output):
            return grad_output

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with raises(RuntimeError, "Legacy autograd function with non-static forward method "
                                  "is deprecated"):
            MyFunction()(lib.randn(3, 4))


def _simulate_backward_error(lib):
    class SimulateBackwardError(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            return input.clone()

        @staticmethod
        @once_differentiable(lib)
        def backward(ctx, input):
            raise Exception("Simulate error on backward pass")
    return SimulateBackwardError


def test_custom_function_exception(lib):
    t1 = lib.rand((3, 3), requires_grad=True)
    t2 = lib.rand((3, 3), requires_grad=True)
    tmp = (t1 + t2) * (t1 + t2)
    t3 = _simulate_backward_error(lib).apply(tmp)
    with raises(Exception, "Simulate error on backward pass"):
        t3.sum().backward()


def test_custom_function_non_tensor_inputs_outputs(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t1, t2, scale, t3):
            t4 = t1 + t2 * t3
            t5 = t1 * t2 + t3
            t4 *= scale
            t5 *= scale
            ctx.scale = scale
            ctx.save_for_backward(t1, t2, t3)
            return scale, t4, None, True, t5, "bar", t1

        @staticmethod
        @once_differentiable(lib)
        def backward(ctx, *grads):
            assert len(grads) == 7
            assert grads[0] is None
            assert grads[2] is None
            assert grads[3] is None
            assert grads[5] is None
            scale = ctx.scale
            var1, var2, var3 = ctx.saved_tensors
            return (grads[1] * scale + grads[4] * var2 * scale + grads[6],
                    grads[1] * var3 * scale + grads[4] * var1 * scale,
                    None,
                    grads[1] * var2 * scale + grads[4] * scale)

    t1 = lib.rand(10, dtype=lib.double, requires_grad=True)
    t2 = lib.rand(10, dtype=lib.double, requires_grad=True)
    t3 = lib.rand(10, dtype=lib.double)
    scale = random.randint(0, 10)
    res = MyFunction.apply(t1, t2, scale, t3)
    eq(scale, res[0])
    eq((t1 + t2 * t3) * scale, res[1])
    eq(None, res[2])
    eq(True, res[3])
    eq((t1 * t2 + t3) * scale, res[4])
    eq("bar", res[5])
    eq(t1, res[6])
    lib.autograd.backward([res[1].sum(), res[4].sum(), res[6].sum()])
    assert t1.grad is not None
    assert t2.grad is not None
    assert t3.grad is None

    def foo(t1, t2, t3):
        res = MyFunction.apply(t1, t2, scale, t3)
        return res[1], res[4], res[6]

    gradcheck(lib, foo, (t1, t2, t3))


def test_custom_function_no_tensors(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t1, t2, scale, t3):
            t4 = t1 + t2 * t3
            t5 = t1 * t2 + t3
            t4 *= scale
            t5 *= scale
            return scale, t4, None, True, t5, "bar", t1

        @staticmethod
        @once_differentiable(lib)
        def backward(ctx, *args):
            return (args[0], args[1], None, args[2])

    t1, t2, t3 = random.random(), random.random(), random.random()
    scale = random.randint(0, 10)
    res = MyFunction.apply(t1, t2, scale, t3)
    eq(scale, res[0])
    eq((t1 + t2 * t3) * scale, res[1])
    eq(None, res[2])
    eq(True, res[3])
    eq((t1 * t2 + t3) * scale, res[4])
    eq("bar", res[5])
    eq(t1, res[6])


def test_invalid_gradients(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_output):
            return lib.randn(10, dtype=lib.float)

    with raises(RuntimeError, "expected shape"):
        input = lib.randn(5, 5, dtype=lib.float, requires_grad=True)
        MyFunction.apply(input).sum().backward()


def test_unrelated_inputs(lib):
    def my_function(x, y):
        return x * x

    x = lib.rand(10, dtype=lib.double, requires_grad=True)
    y = lib.rand(10, dtype=lib.double, requires_grad=True)
    gradcheck(lib, my_function, (x, y))
    gradgradcheck(lib, my_function, (x, y))


def test_not_implemented_fwad(lib):
    x = lib.randn(3)
    v = lib.rand(3)
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        dual_x = fwAD.make_dual(x, v)
        with raises(NotImplementedError, r"Trying to use forward AD with .* that does not "
                                         r"support it"):
            lib.igamma(dual_x, dual_x)


def test_saved_tensor_hooks_extra_exit_during_bw_no_crash(lib):
    def unpack(x):
        ctx_1.__exit__()
        return x

    ctx_1 = lib.autograd.graph.saved_tensors_hooks(lambda x: x, unpack)
    ctx_2 = lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x)
    for _ in range(10):
        with ctx_2:
            ctx_1.__enter__()
            x = lib.randn(3, 3, requires_grad=True)
            x.sin().sum().backward()
    for _ in range(10):
        ctx_1.__exit__()
    a = lib.tensor(1.0, requires_grad=True)
    y = a.exp()
    y.grad_fn._raw_saved_result.register_hooks(lambda x: x, lambda x: x)


def test_saved_tensor_hooks_extra_enter_during_bw_no_leak(lib):
    def scope():
        def unpack(x):
            weak_ctx_1().__enter__()
            return x

        ctx_1 = lib.autograd.graph.saved_tensors_hooks(lambda x: x, unpack)
        weak_ctx_1 = weakref.ref(ctx_1)
        x = lib.randn(3, 3, requires_grad=True)
        with ctx_1:
            x.sin().sum().backward()
        return weakref.ref(unpack)

    gc.disable()
    try:
        unpack_hook_ref = scope()
        assert unpack_hook_ref() is None
    finally:
        gc.enable()
        # the unbalanced enter left its (now dead) hooks on torch's stack: later tests in
        # this process must not run under them
        while torch._C._autograd._top_saved_tensors_default_hooks(False) is not None:
            torch._C._autograd._pop_saved_tensors_default_hooks()


def test_custom_function_vmap_defaults(lib):
    class MySquare(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, gO):
            (x,) = ctx.saved_tensors
            return gO * 2 * x

    assert not MySquare.generate_vmap_rule
    assert hasattr(MySquare, "vmap")


def test_custom_function_setup_context_simple(lib):
    class MySquare(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, gO):
            (x,) = ctx.saved_tensors
            return gO * 2 * x

    x = lib.randn([], requires_grad=True)
    y = MySquare.apply(x)
    (gx,) = lib.autograd.grad(y, x)
    eq(gx, 2 * x)


def test_custom_function_setup_context_multi_output(lib):
    class MySquare(lib.autograd.Function):
        @staticmethod
        def forward(x):
            two_x = x.item() * 2
            return x ** 2, two_x

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            _, two_x = output
            ctx.two_x = two_x

        @staticmethod
        @once_differentiable(lib)
        def backward(ctx, gO, _):
            return gO * ctx.two_x

    x = lib.randn([], requires_grad=True)
    y, _ = MySquare.apply(x)
    (gx,) = lib.autograd.grad(y, x)
    eq(gx, 2 * x)


def test_custom_function_setup_context_multi_input(lib):
    class MyReshape(lib.autograd.Function):
        @staticmethod
        def forward(x, shape, scale_forward, scale_backward):
            return x.reshape(shape) * scale_forward

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, shape, scale_forward, scale_backward = inputs
            ctx.scale_backward = scale_backward
            ctx.x_shape = x.shape

        @staticmethod
        def backward(ctx, gO):
            return gO.reshape(ctx.x_shape) * ctx.scale_backward, None, None, None

    class MyReshapeRef(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, shape, scale_forward, scale_backward):
            ctx.scale_backward = scale_backward
            ctx.x_shape = x.shape
            return x.reshape(shape) * scale_forward

        @staticmethod
        def backward(ctx, gO):
            return gO.reshape(ctx.x_shape) * ctx.scale_backward, None, None, None

    def test(x, shape, scale_forward, scale_backward):
        y = MyReshape.apply(x, shape, scale_forward, scale_backward).sum()
        (gx,) = lib.autograd.grad(y, x)
        y_expected = MyReshapeRef.apply(x, shape, scale_forward, scale_backward).sum()
        (gx_expected,) = lib.autograd.grad(y_expected, x)
        eq(y_expected, y)
        eq(gx_expected, gx)

    test(lib.randn(24, requires_grad=True), (3, 8), 7, 11)
    test(lib.randn(2, 3, 4, requires_grad=True), (6, 4), -1, 2)


def test_custom_function_setup_context_default_arguments(lib):
    # (the issue's case: setup_context's ``inputs`` include forward's defaulted arguments)
    seen = []

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(x, factor=3.0, shift=None):
            return x * factor

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen.append(inputs[1:])
            ctx.factor = inputs[1]

        @staticmethod
        def backward(ctx, gO):
            return gO * ctx.factor, None, None

    x = lib.ones(2, requires_grad=True)
    Scale.apply(x).sum().backward()
    eq(x.grad, lib.full((2,), 3.0))
    Scale.apply(x, 2.0).sum().backward()
    eq(x.grad, lib.full((2,), 5.0))
    assert seen == [(3.0, None), (2.0, None)]


def test_accumulate_grad(lib):
    grad_output = lib.ones(5, 5)

    def compute_grad(create_graph):
        x = lib.randn(5, 5, requires_grad=True)
        y = x + 2
        y.backward(grad_output, retain_graph=True)
        x_grad = x.grad
        x_grad_clone = x.grad.clone()
        y.backward(grad_output, create_graph=create_graph)
        return x_grad, x_grad_clone

    x_grad, x_grad_clone = compute_grad(create_graph=False)
    eq(x_grad, x_grad_clone * 2)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        x_grad, x_grad_clone = compute_grad(create_graph=True)
    eq(x_grad, x_grad_clone)


def test_accumulate_grad_tensor_reference(lib):
    def _test_grad_tensor(params_grad_tensor, backward_grad_tensor, should_preserve_reference,
                          create_graph):
        params = lib.tensor([1.5, 1.5]).requires_grad_()
        params.grad = params_grad_tensor
        grad_saved = params.grad
        params.backward(backward_grad_tensor, create_graph=create_graph)
        assert (id(grad_saved) == id(params.grad)) == should_preserve_reference

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for create_graph in (False, True):
            _test_grad_tensor(
                lib.sparse_coo_tensor(lib.tensor([[1, 1]]).long(), lib.tensor([1.0, 1.0])),
                lib.tensor([1.5, 1.5]), False, create_graph)
            _test_grad_tensor(lib.tensor([1.5, 1.5]), lib.tensor([1.5, 1.5]),
                              not create_graph, create_graph)
            _test_grad_tensor(
                lib.sparse_coo_tensor(lib.tensor([[1, 1]]).long(), lib.tensor([1.0, 1.0])),
                lib.sparse_coo_tensor(lib.tensor([[1, 1]]).long(), lib.tensor([1.0, 1.0])),
                not create_graph, create_graph)


def test_accumulate_grad_with_zero_numel_grad(lib):
    a = lib.rand(4, 0, requires_grad=True)
    b = lib.rand(4, 1, requires_grad=True)
    c = a + b
    assert c.shape == (4, 0)
    c.sum().backward()
    eq(b.grad, lib.zeros(4, 1))
    eq(a.grad, lib.zeros(4, 0))


def test_hessian_vector(lib):
    x = lib.randn(2, 2, requires_grad=True)
    y = lib.randn(2, 2, requires_grad=True)
    z = x ** 2 + y * x + y ** 2
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        z.backward(lib.ones(2, 2), create_graph=True)
    with lib.no_grad():
        x_grad = 2 * x + y
        y_grad = x + 2 * y
    eq(x.grad, x_grad)
    eq(y.grad, y_grad)
    grad_sum = 2 * x.grad + y.grad
    grad_sum.backward(lib.ones(2, 2))
    x_hv = lib.ones(2, 2) * 5
    y_hv = lib.ones(2, 2) * 4
    eq(x.grad, x_grad + x_hv)
    eq(y.grad, y_grad + y_hv)
    x.grad = None
    y.grad = None


def test_grad(lib):
    x = lib.randn(2, 2, requires_grad=True)
    y = lib.randn(2, 2, requires_grad=True)
    z = x ** 2 + y * x + y ** 2
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        z.backward(lib.ones(2, 2), create_graph=True)
    x_grad = 2 * x + y
    y_grad = x + 2 * y
    eq(x.grad, x_grad)
    eq(y.grad, y_grad)
    grad_sum = 2 * x.grad + y.grad
    x_hv = lib.autograd.grad(outputs=[grad_sum], grad_outputs=[lib.ones(2, 2)], inputs=[x],
                             create_graph=True)
    eq(x_hv[0], lib.ones(2, 2) * 5)
    eq(x.grad, x_grad)
    eq(y.grad, y_grad)
    x.grad = None
    y.grad = None
    grad_out = lib.ones(2)
    with pytest.raises(RuntimeError) as info:
        lib.autograd.grad(outputs=[grad_sum], grad_outputs=[grad_out], inputs=[x],
                          create_graph=True)
    assert str(info.value) == ("Mismatch in shape: grad_output[0] has a shape of "
                               + str(grad_out.shape) + " and output[0] has a shape of "
                               + str(grad_sum.shape) + ".")


def test_grad_to_node(lib):
    def check_matches(out, inp):
        ref = lib.autograd.grad(out.sum(), inp)
        edge = lib.autograd.graph.get_gradient_edge(inp)
        new = lib.autograd.grad(out.sum(), edge)
        eq(ref, new)

    x = lib.rand(2, requires_grad=True)
    out = x.clone()
    check_matches(out, x)
    x = x.clone()
    out = x.clone()
    check_matches(out, x)
    x = import_module(lib.__name__ + '.autograd._functions').Resize.apply(x, (2,))
    out = x.clone()
    check_matches(out, x)
    x = lib.var_mean(x)[1]
    out = x.clone()
    check_matches(out, x)


def test_grad_to_node_set(lib):
    x = lib.rand(2, requires_grad=True)
    x_edge = lib.autograd.graph.get_gradient_edge(x)
    out = x.clone()
    with lib.no_grad():
        x.set_(lib.rand_like(x))
    with raises(RuntimeError, "to not have been used in the graph"):
        lib.autograd.grad(out.sum(), x)
    lib.autograd.grad(out.sum(), x_edge)


def test_grad_to_node_inplace(lib):
    x = lib.rand(2, requires_grad=True).clone()
    x_edge = lib.autograd.graph.get_gradient_edge(x)
    x *= 2
    g_old, g_new = lib.autograd.grad(x.sum(), (x_edge, x))
    eq(g_old, 2 * lib.ones_like(x))
    eq(g_new, lib.ones_like(x))


def test_grad_to_node_multi(lib):
    GradientEdge = lib.autograd.graph.GradientEdge
    x = lib.rand(2, requires_grad=True).clone()
    y = lib.rand(2, requires_grad=True).clone()
    out = x + y
    ref = lib.autograd.grad(out.sum(), (x, y))
    inp_edges = (GradientEdge(x.grad_fn, x.output_nr), GradientEdge(y.grad_fn, y.output_nr))
    new = lib.autograd.grad(out.sum(), inp_edges)
    eq(ref, new)


def test_grad_to_node_materialize(lib):
    GradientEdge = lib.autograd.graph.GradientEdge
    x = lib.rand(2, requires_grad=True).clone()
    edge_x = GradientEdge(x.grad_fn, x.output_nr)
    y = lib.rand(2, requires_grad=True).clone()
    edge_y = GradientEdge(y.grad_fn, y.output_nr)
    out = x.clone()
    lib.autograd.grad(out.sum(), (edge_x, y), allow_unused=True, materialize_grads=True)
    lib.autograd.grad(out.sum(), (x, y), allow_unused=True, materialize_grads=True)
    lib.autograd.grad(out.sum(), (x, edge_y), allow_unused=True)
    with raises(RuntimeError, "materialize_grads cannot be used when the given input is a "
                              "GradientEdge"):
        lib.autograd.grad(out.sum(), (x, edge_y), allow_unused=True, materialize_grads=True)


def test_backward_to_node(lib):
    GradientEdge = lib.autograd.graph.GradientEdge
    x = lib.rand(2, requires_grad=True).clone()
    edge_x = GradientEdge(x.grad_fn, x.output_nr)
    y = lib.rand(2, requires_grad=True).clone()
    edge_y = GradientEdge(y.grad_fn, y.output_nr)
    out = x.clone()
    lib.autograd.backward(out.sum(), inputs=(edge_x, y))
    lib.autograd.backward(out.sum(), inputs=(x, y))
    lib.autograd.backward(out.sum(), inputs=(x, edge_y))
    lib.autograd.backward(out.sum(), inputs=(edge_x, edge_y))


def test_gradient_edge_output(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)

    def fn(x, reduce=True):
        tmp = x.sin().cos()
        if reduce:
            tmp = tmp.sum()
        out = tmp.exp().clone().sin().sum()
        tmp_edge = lib.autograd.graph.get_gradient_edge(tmp)
        return out, tmp_edge

    out, tmp_edge = fn(x)
    (tmp_grad,) = lib.autograd.grad(out, (tmp_edge,))
    (x_grad,) = lib.autograd.grad(tmp_edge, (x,), grad_outputs=(tmp_grad,))
    out, _ = fn(x)
    (x_grad_ref,) = lib.autograd.grad(out, (x,))
    eq(x_grad, x_grad_ref)
    out, tmp_edge = fn(x, reduce=False)
    with raises(RuntimeError, "grad can be implicitly created only for scalar output"):
        lib.autograd.grad(tmp_edge, (x,))
    out, tmp_edge = fn(x, reduce=True)
    lib.autograd.grad(tmp_edge, (x,))
    out, tmp_edge = fn(x)
    with raises(RuntimeError, "Mismatch in shape"):
        lib.autograd.grad(tmp_edge, (x,), grad_outputs=lib.tensor([1.0, 2.0, 3.0, 4.0]))
    out, tmp_edge = fn(x)
    (tmp_grad,) = lib.autograd.grad(out, (tmp_edge,))
    with raises(RuntimeError, "required to have the same dtype"):
        lib.autograd.grad(tmp_edge, (x,),
                          grad_outputs=lib.rand_like(tmp_grad, dtype=lib.complex64))
    out, tmp_edge = fn(x)
    lib.autograd.backward(tmp_edge, retain_graph=True)
    (x_grad_ref,) = lib.autograd.grad(tmp_edge, (x,), retain_graph=True)
    eq(x.grad, x_grad_ref)
    x.grad = None
    lib.autograd.backward((tmp_edge,), retain_graph=True)
    eq(x.grad, x_grad_ref)
    out1, tmp_edge1 = fn(x)
    out2, tmp_edge2 = fn(x)
    (x_grad_ref,) = lib.autograd.grad((tmp_edge1, out2), (x,), retain_graph=True)
    x.grad = None
    lib.autograd.backward((tmp_edge1, out2), retain_graph=True)
    eq(x.grad, x_grad_ref)
    out, tmp_edge = fn(x)
    with raises(RuntimeError, "Mismatch in shape"):
        lib.autograd.backward(tmp_edge, inputs=(x,),
                              grad_tensors=lib.tensor([1.0, 2.0, 3.0, 4.0]))


def test_gradient_edge_graph_ownership(lib):
    class Clone(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, gX):
            return gX.clone()

    inp = lib.rand(1, requires_grad=True).clone()
    out = inp.clone()
    edge = lib.autograd.graph.get_gradient_edge(out)
    lib.autograd.backward(edge)
    del out
    lib.autograd.backward(edge)
    out = Clone.apply(inp)
    edge = lib.autograd.graph.get_gradient_edge(out)
    lib.autograd.backward(edge)
    del out
    lib.autograd.backward(edge)


def test_grad_nonleaf(lib):
    x_init = lib.randn(2, 2, requires_grad=True)
    x = x_init
    y = lib.randn(2, 2, requires_grad=True)
    grad_output = lib.ones(2, 2)

    def fn(x):
        return x ** 2 + y * x + y ** 2

    for _ in range(5):
        (grad_x,) = lib.autograd.grad(fn(x), x, grad_outputs=grad_output, create_graph=True)
        grad_x_expected = 2 * x + y
        assert y.grad is None
        assert x.grad is None
        eq(grad_x, grad_x_expected)
        x = x + 0.05 * grad_x
    val_init = fn(x_init).sum()
    val_final = fn(x).sum()
    assert val_final > val_init
    x.backward(grad_output)
    assert y.grad is not None
    assert x_init.grad is not None


def test_grad_nonleaf_many_outputs(lib):
    x = lib.randn(4, 2, requires_grad=True)
    a, b = x.chunk(2)

    def hook(*grads):
        hook_called[0] = True

    hook_called = [False]
    x.register_hook(hook)
    go = lib.randn(2, 2)
    grad_a, grad_b = lib.autograd.grad((a + 2 * b), [a, b], grad_outputs=go,
                                       create_graph=True)
    eq(grad_a, go)
    eq(grad_b, go * 2)
    assert not hook_called[0]
    assert x.grad is None


def test_grad_nonleaf_register_hook(lib):
    x = lib.randn(5, requires_grad=True)
    x_list = x.unbind()
    x0 = x_list[0]
    hook_results = [None]

    def hook(grad):
        hook_results[0] = grad

    x0.register_hook(hook)
    x_list[0].backward()
    eq(hook_results[0], lib.tensor(1.0))
    expected_grad = lib.tensor([1.0, 0, 0, 0, 0])
    eq(x.grad, expected_grad)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert x_list[0].grad is None
    for i in range(1, 5, 1):
        x_list[i].backward()
        assert hook_results[0] is None  # (the hook sees an undefined gradient)
        expected_grad[i] = 1.0
        eq(x.grad, expected_grad)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            assert x_list[i].grad is None


def test_grad_materialize_grads(lib):
    x = lib.tensor(0.5, requires_grad=True)
    a = lib.tensor(1.0, requires_grad=True)
    y = x * a
    dydx = lib.autograd.grad(y, x, create_graph=True)
    d2ydx2_none = lib.autograd.grad(dydx, x, create_graph=True, allow_unused=True)
    d2ydx2 = lib.autograd.grad(dydx, x, create_graph=True, allow_unused=True,
                               materialize_grads=True)
    d3ydx3 = lib.autograd.grad(d2ydx2, x, materialize_grads=True)
    assert d2ydx2_none[0] is None
    assert d2ydx2[0].item() == 0
    assert d3ydx3[0].item() == 0
    with raises(ValueError, "Expected allow_unused to be True or not passed when"):
        lib.autograd.grad(y, x, allow_unused=False, materialize_grads=True)


def test_post_accumulate_grad_hook_on_non_leaf(lib):
    def hook(tensor):
        tensor.sub_(1.0)

    leaf = lib.rand(3, requires_grad=True)
    non_leaf = 2.0 * leaf
    with raises(RuntimeError, "post accumulate grad hooks cannot be registered on non-leaf "
                              "tensors"):
        non_leaf.register_post_accumulate_grad_hook(hook)


def test_post_accumulate_grad_hook_multiple_hooks(lib):
    def hook1(tensor):
        tensor.sub_(tensor.grad)

    def hook2(tensor):
        tensor.mul_(4.0)

    tensor = lib.rand(3, requires_grad=True)
    tensor_ref = tensor.detach().clone()
    tensor.register_post_accumulate_grad_hook(hook1)
    tensor.register_post_accumulate_grad_hook(hook2)
    sum = tensor.sum()
    sum.backward()
    eq(4.0 * (tensor_ref - 1.0), tensor)


def test_post_accumulate_grad_hook_multiple_tensors(lib):
    def hook(tensor):
        tensor.sub_(tensor.grad)

    tensor1 = lib.rand(3, requires_grad=True)
    tensor1_ref = tensor1.detach().clone()
    tensor2 = lib.rand(5, requires_grad=True)
    tensor2_ref = tensor2.detach().clone()
    tensor1.register_post_accumulate_grad_hook(hook)
    tensor2.register_post_accumulate_grad_hook(hook)
    tensor1.sum().backward()
    tensor2.sum().backward()
    eq(tensor1_ref - 1.0, tensor1)
    eq(tensor2_ref - 1.0, tensor2)


def test_post_accumulate_grad_hook_returns_not_None(lib):
    def bad_hook(tensor):
        return tensor.grad

    tensor = lib.rand(2, 3, requires_grad=True)
    tensor.register_post_accumulate_grad_hook(bad_hook)
    with raises(RuntimeError, "hooks should return None."):
        tensor.sum().backward()


def test_post_accumulate_grad_hook_e2e(lib):
    def setup_optim_in_bwd(model):
        optims = {}
        handles = []

        def optim_step_hook(param):
            optims[param].step()
            optims[param].zero_grad()

        for p in model.parameters():
            optims[p] = lib.optim.Adam([p])
            handles.append(p.register_post_accumulate_grad_hook(optim_step_hook))
        return handles

    model = lib.nn.Linear(3, 2)
    input = lib.rand(2, 3)
    handles = setup_optim_in_bwd(model)
    model_copy = deepcopy(model)
    optim_copy = lib.optim.Adam(model_copy.parameters())
    iters = 5
    for _ in range(iters):
        loss = model(input).sum()
        loss.backward()
        loss_copy = model_copy(input).sum()
        loss_copy.backward()
        optim_copy.step()
        optim_copy.zero_grad()
    params_copy = []
    for p_reference, p in zip(model_copy.parameters(), model.parameters()):
        eq(p_reference, p)
        params_copy.append(p_reference.detach().clone())
    for h in handles:
        h.remove()
    for _ in range(iters):
        loss = model(input).sum()
        loss.backward()
        loss_copy = model_copy(input).sum()
        loss_copy.backward()
        optim_copy.step()
        optim_copy.zero_grad()
    for p_static, p_reference, p in zip(params_copy, model_copy.parameters(),
                                        model.parameters()):
        eq(p_static, p)
        assert not np.allclose(npy(p_reference), npy(p))


def test_post_accumulate_grad_hook_gets_cleaned_up(lib):
    def fun_stuff_with_hook():
        thing_to_put_in_hook = lib.rand(3)

        def hook(tensor):
            tensor.sub_(tensor.grad)
            tensor.add_(thing_to_put_in_hook)

        tensor = lib.rand(3, requires_grad=True)
        tensor.register_post_accumulate_grad_hook(hook)
        tensor.sum().backward()
        ref = weakref.ref(thing_to_put_in_hook)
        gc.collect()
        return tensor, ref

    gc.disable()
    try:
        tensor, ref = fun_stuff_with_hook()
        assert ref() is not None
        del tensor
        gc.collect()
        assert ref() is None
    finally:
        gc.enable()


def test_post_accumulate_grad_hook_ordering(lib):
    tensor = lib.rand(3, requires_grad=True)

    def pre_hook(grad):
        return grad.sub(2.0)

    def acc_grad_node_pre_hook(grad_out):
        return (grad_out[0].div(5.0),)

    def post_acc_grad_hook(tensor):
        tensor.grad.add_(0.5)

    def acc_grad_node_post_hook(grad_in, grad_out):
        tensor.grad = grad_out[0].mul(10)

    acc_grad = tensor.view_as(tensor).grad_fn.next_functions[0][0]
    tensor.register_hook(pre_hook)
    acc_grad.register_prehook(acc_grad_node_pre_hook)
    tensor.register_post_accumulate_grad_hook(post_acc_grad_hook)
    acc_grad.register_hook(acc_grad_node_post_hook)
    tensor.sum().backward()
    eq(lib.tensor([3.0, 3.0, 3.0]), tensor.grad)


def test_hook_with_no_name(lib):
    class MyHookClass:
        def __call__(self, grad):
            return grad.clone()

    x = lib.randn(5, requires_grad=True).clone()
    x.register_hook(MyHookClass())
    x.sum().backward()


def test_prehook_ordering(lib):
    log = []

    def hook1(g):
        log.append(1)
        return g * 3

    def hook2(gs):
        log.append(2)
        return tuple(g * 2 for g in gs)

    a = lib.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.grad_fn.register_prehook(hook2)
    b.register_hook(hook1)
    b.grad_fn.register_prehook(hook2)
    acc = b.grad_fn.next_functions[0][0]
    a.register_hook(hook1)
    acc.register_prehook(hook2)
    a.register_hook(hook1)
    b.sum().backward(retain_graph=True)
    assert log == [1, 2, 2, 1, 1, 2]
    log = []
    lib.autograd.grad(b.sum(), inputs=(a,), retain_graph=True)
    assert log == [1, 2, 2, 1, 1]
    log = []
    b.sum().backward(inputs=(b,))
    assert log == [1, 2, 2]
    assert b.grad.item() == 3


def test_retains_grad_can_always_observe_tensor_prehook(lib):
    def tensor_prehook(g):
        return g * 2

    a = lib.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.register_hook(tensor_prehook)
    b.retain_grad()
    b.register_hook(tensor_prehook)
    b.clone().backward()
    assert b.grad.item() == 4
    a = lib.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.retain_grad()
    b.register_hook(tensor_prehook)
    b.clone().backward()
    assert b.grad.item() == 2


def test_accumulate_grad_posthooks_can_observe_tensor_prehook(lib):
    a = lib.tensor(1.0, requires_grad=True)

    def tensor_prehook(g):
        return g * 2

    def posthook(gO, gI):
        assert lib.allclose(gI[0], a * 2)
        assert len(gO) == 0

    def prehook(gI):
        assert lib.allclose(gI[0], a * 2)
        assert len(gI) == 1

    b = a.clone()
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(posthook)
    acc.register_prehook(prehook)
    a.register_hook(tensor_prehook)
    b.backward()


def test_accumulate_grad_posthooks_should_not_execute(lib):
    def tensor_prehook(g):
        raise RuntimeError

    def posthook(gO, gI):
        raise RuntimeError

    a = lib.tensor(1.0, requires_grad=True)
    a.register_hook(tensor_prehook)
    b = lib.tensor(1.0, requires_grad=True)
    c = a.clone()
    acc = c.grad_fn.next_functions[0][0]
    acc.register_hook(posthook)
    out = a + b + c
    out.sum().backward(inputs=[b])


def test_hook_edge_case_when_called_with_grad(lib):
    a = lib.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    counts = {'tensor': 0, 'pre': 0, 'post': 0}

    def tensor_prehook(g):
        counts['tensor'] += 1

    def prehook(g):
        counts['pre'] += 1

    def posthook(gI, gO):
        counts['post'] += 1

    a.register_hook(tensor_prehook)
    b.register_hook(tensor_prehook)
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(posthook)
    acc.register_prehook(prehook)
    b.grad_fn.register_hook(posthook)
    b.grad_fn.register_prehook(prehook)
    lib.autograd.grad(c, inputs=(b), retain_graph=True)
    assert counts == {'tensor': 1, 'pre': 0, 'post': 0}
    counts.update(tensor=0, pre=0, post=0)
    lib.autograd.grad(c, inputs=(a, b), retain_graph=True)
    assert counts == {'tensor': 2, 'pre': 1, 'post': 1}
    counts.update(tensor=0, pre=0, post=0)
    c.backward(retain_graph=True)
    assert counts == {'tensor': 2, 'pre': 2, 'post': 2}
    counts.update(tensor=0, pre=0, post=0)
    c.backward(inputs=(a, b), retain_graph=True)
    assert counts == {'tensor': 2, 'pre': 2, 'post': 2}


def test_sharded_grad(lib):
    leaves = [lib.zeros(5, 5, requires_grad=True) for _ in range(10)]
    intermediates = [l * i + l * l for i, l in enumerate(leaves)]
    loss = sum(v * i for i, v in enumerate(intermediates)).sum()

    def group(l, group_size):
        return (l[i:i + group_size] for i in range(0, len(l), group_size))

    shard_size = 2
    d_intermediates = [d_i for intermediates_batch in group(intermediates, shard_size)
                       for d_i in lib.autograd.grad(loss, intermediates_batch)]
    lib.autograd.backward(intermediates, d_intermediates)
    for i, l in enumerate(leaves):
        eq(l.grad, i * i * (1 + l))


def test_backward_badcalls(lib):
    x = lib.ones(1)
    with raises(RuntimeError, "does not require grad"):
        x.backward()


def test_grad_badcalls(lib):
    x = lib.ones(1)
    y = x ** 2
    with raises(RuntimeError, "does not require grad"):
        lib.autograd.grad(x, y)
    with raises(RuntimeError, "does not require grad"):
        lib.autograd.grad(y, x)
    x = lib.ones(1, requires_grad=True)
    y = x ** 2
    lib.autograd.grad(y, x)


def test_grad_empty_inputs(lib):
    x = lib.tensor([1.0], requires_grad=True)
    # (upstream's newer text expects ValueError "grad requires non-empty inputs."; torch
    # 2.13 raises this)
    with raises(RuntimeError, r"`inputs` argument to `grad\(\)` cannot be empty."):
        lib.autograd.grad(2 * x, [], grad_outputs=lib.tensor([1.0]))


def test_grad_fn_badcalls(lib):
    error_regex = "expected .* arguments, got .* instead"
    x = lib.ones(1, requires_grad=True)
    y = x ** 2
    with raises(TypeError, error_regex):
        y.grad_fn(x.detach(), x.detach())
    with raises(TypeError, error_regex):
        y.grad_fn()
    y.grad_fn(x.detach())


def test_grad_unreachable(lib):
    x = lib.ones(1, requires_grad=True)
    y = lib.ones(1, requires_grad=True)
    z = x * 2
    w = y * 2
    grad_x, grad_y = lib.autograd.grad(x * 2, [x, y], allow_unused=True)
    eq(grad_x, x * 2)
    assert grad_y is None
    z = lib.ones(1, requires_grad=True)
    grad_x, grad_z = lib.autograd.grad(x * 2, [x, z], allow_unused=True)
    eq(grad_x, x * 2)
    assert grad_z is None
    with raises(RuntimeError, "Set allow_unused=True"):
        grad_x, grad_y = lib.autograd.grad(x * 2, [x, y], allow_unused=False)


def test_grad_unreachable_discovery(lib):
    class MyFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, x):
            pytest.fail("This node should not be executed!")

    x = MyFunc.apply(lib.randn(1, requires_grad=True) * 2)
    y = lib.randn(1, requires_grad=True)
    (gY,) = lib.autograd.grad(x, (y,), allow_unused=True)
    assert gY is None
    x = MyFunc.apply(lib.randn(1, requires_grad=True) * 2)
    y = lib.randn(1, requires_grad=True)
    z = lib.randn(1, requires_grad=True)
    (gY, gZ) = lib.autograd.grad(x + z, (y, z), allow_unused=True)
    assert gY is None
    assert gZ is not None
    x = MyFunc.apply(lib.randn(1, requires_grad=True) * 2)
    y = lib.randn(1, requires_grad=True)
    lib.autograd.backward(x, inputs=(y,))
    assert y.grad is None


def test_grad_batched_grad(lib):
    x = lib.randn(2, 2, requires_grad=True)
    out = x.clone()
    batched_grad = lib.arange(3).expand(2, 2, 3).transpose(0, 2)
    (grad,) = lib.autograd.grad(out, (x,), (batched_grad,), is_grads_batched=True)
    eq(grad, lib.arange(3).expand(2, 2, 3).transpose(0, 2).to(dtype=grad.dtype))
    grad_out = lib.ones(2, 2)
    with raises(RuntimeError, "If `is_grads_batched=True`, we interpret the first"):
        lib.autograd.grad(outputs=out, grad_outputs=(grad_out,), inputs=(x,),
                          is_grads_batched=True)
    out = x.sum()
    batched_grad = lib.arange(3)
    (grad,) = lib.autograd.grad(out, (x,), (batched_grad,), is_grads_batched=True)
    eq(grad, lib.arange(3).expand(2, 2, 3).transpose(0, 2).to(dtype=grad.dtype))
    grad_out = lib.ones(2).unsqueeze(1)
    with raises(RuntimeError, "If `is_grads_batched=True`, we interpret the first"):
        lib.autograd.grad(outputs=out, grad_outputs=(grad_out,), inputs=(x,),
                          is_grads_batched=True)


def test_hooks(lib):
    x = lib.ones(5, 5, requires_grad=True)
    y = lib.ones(5, 5) * 4
    y.requires_grad_(True)
    counter = [0]

    def bw_hook(inc, grad):
        assert isinstance(grad, lib.Tensor)
        counter[0] += inc

    z = x ** 2 + x * 2 + x * y + y
    x.register_hook(lambda *args: bw_hook(0, *args))
    test = z.register_hook(lambda *args: bw_hook(1, *args))
    z.backward(lib.ones(5, 5), retain_graph=True)
    assert counter[0] == 1
    test2 = z.register_hook(lambda *args: bw_hook(2, *args))
    z.backward(lib.ones(5, 5), retain_graph=True)
    assert counter[0] == 4
    test2.remove()
    z.backward(lib.ones(5, 5), retain_graph=True)
    assert counter[0] == 5

    def bw_hook_modify(grad):
        return grad.mul(2)

    test.remove()
    z.register_hook(bw_hook_modify)
    with lib.no_grad():
        y.grad.zero_()
    z.backward(lib.ones(5, 5), retain_graph=True)
    eq(y.grad, (x + 1) * 2)
    y.register_hook(bw_hook_modify)
    with lib.no_grad():
        y.grad.zero_()
    z.backward(lib.ones(5, 5))
    eq(y.grad, (x + 1) * 4)


def _get_mul2(lib, use_custom_function):
    if use_custom_function:
        class Mul2(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, gO):
                return gO * 2

        return Mul2.apply
    return lambda x: x * 2


def test_grad_fn_prehooks(lib):
    for use_custom_function in (True, False):
        mul2 = _get_mul2(lib, use_custom_function)
        a = lib.tensor([1.0], requires_grad=True)
        b = mul2(a)
        post_counter = [0]
        pre_counter = [0]

        def posthook(grad_input, grad_output):
            assert pre_counter[0] == 3
            assert lib.allclose(grad_output[0], lib.ones(1) * 8)
            assert lib.allclose(grad_input[0], lib.ones(1) * 16)
            post_counter[0] += 1
            return grad_input

        def prehook(grad_output):
            pre_counter[0] += 1
            return (grad_output[0] * 2,)

        b.grad_fn.register_hook(posthook)
        b.grad_fn.register_hook(posthook)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(lambda x: None)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(lambda x: x)
        b.grad_fn.register_prehook(lambda x: None)
        b.sum().backward()
        assert post_counter[0] == 2
        assert pre_counter[0] == 3
        a = lib.rand(3, 3, requires_grad=True)
        b = mul2(a)

        def prehook(grad_output):
            pre_counter[0] += 1
            return None

        b.grad_fn.register_prehook(prehook)
        b.sum().backward()
        assert pre_counter[0] == 4
        assert lib.allclose(a.grad, lib.ones(3, 3) * 2)


def test_grad_fn_prehooks_multiple_outputs(lib):
    b = lib.rand(3, 3, requires_grad=True)
    var, mean = lib.var_mean(b, dim=0)
    (var + mean).sum().backward()
    a = b.detach().requires_grad_()
    counter = [0]

    def prehook(grad_output):
        gvar, gmean = grad_output
        counter[0] += 1
        return (gvar * 2, gmean * 2)

    var, mean = lib.var_mean(a, dim=0)
    mean.grad_fn.register_prehook(prehook)
    (var + mean).sum().backward()
    assert counter[0] == 1
    assert lib.allclose(a.grad, b.grad * 2)

    class DoubleMul2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, a, y):
            ctx.a = a
            return a * x * 2, a, a * y * 2

        @staticmethod
        def backward(ctx, g1, _a, g2):
            return ctx.a * g1 * 2, None, ctx.a * g2 * 2

    counter = [0]

    def prehook(grad_output):
        g1, ga, g2 = grad_output
        assert ga is None
        counter[0] += 1
        return (g1 * 2, None, g2 * 2)

    a = lib.randn(3, 3, requires_grad=True)
    b = lib.randn(3, 3, requires_grad=True)
    k = 3
    c, _, d = DoubleMul2.apply(a, k, b)
    c.grad_fn.register_prehook(prehook)
    (c + d).sum().backward()
    assert counter[0] == 1
    assert lib.allclose(a.grad, lib.ones(1) * 4 * k)
    assert lib.allclose(b.grad, lib.ones(1) * 4 * k)


def test_grad_fn_prehooks_remove_hooks(lib):
    for use_custom_function in (True, False):
        mul2 = _get_mul2(lib, use_custom_function)
        a = lib.rand(3, 3, requires_grad=True)
        b = mul2(a)
        counter = [0]

        def prehook(grad_output):
            counter[0] += 1
            return None

        handle = b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(prehook)
        handle.remove()
        b.sum().backward()
        assert lib.allclose(a.grad, lib.ones(3, 3) * 2)
        assert counter[0] == 1
        a = lib.rand(3, 3, requires_grad=True)
        b = mul2(a)
        counter = [0]

        def prehook1(grad_output):
            handle2.remove()
            handle3.remove()
            return None

        def prehook2(grad_output):
            counter[0] += 1
            return None

        b.grad_fn.register_prehook(prehook1)
        handle2 = b.grad_fn.register_prehook(prehook2)
        handle3 = b.grad_fn.register_prehook(prehook2)
        handle3.remove()
        b.sum().backward()
        assert lib.allclose(a.grad, lib.ones(3, 3) * 2)
        assert counter[0] == 1


def test_hooks_cpp(lib):
    bn = lib.nn.BatchNorm1d(5, affine=False)
    bn.double()
    bn.eval()
    counter = [0]

    def bw_hook(grad):
        counter[0] += 1
        return grad * 2

    x = lib.ones(5, 5, dtype=lib.double, requires_grad=True)
    z = bn(x)
    z.register_hook(bw_hook)
    z.sum().backward()
    assert counter[0] == 1, "bw_hook not called"
    eq(x.grad, lib.ones(5, 5, dtype=lib.double) * 2, atol=1e-5, rtol=0)


def test_hook_none(lib):
    class NoneGradientFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            assert ctx.needs_input_grad[0]
            assert not ctx.needs_input_grad[1]
            return x, y

        @staticmethod
        def backward(ctx, grad_x, grad_y):
            return grad_x, None

    was_called = [False]

    def hook(grad):
        assert grad is not None
        was_called[0] = True

    x = lib.randn(5, 5, requires_grad=True)
    y = lib.randn(5, 5)
    rx, ry = NoneGradientFunction.apply(x, y)
    rx.register_hook(hook)
    ry.register_hook(hook)
    sum(rx, ry).sum().backward()
    assert was_called[0]


def test_retain_grad(lib):
    input = lib.rand(1, 3, requires_grad=True)
    h1 = input * 3
    out = (h1 * h1).sum()
    h1.retain_grad()
    h1.retain_grad()
    out.backward(retain_graph=True)
    eq(h1 * 2, h1.grad)
    out.backward(retain_graph=True)
    eq(h1 * 4, h1.grad)
    with lib.no_grad():
        input.grad.zero_()
    input.retain_grad()
    input.retain_grad()
    out.backward()
    eq(input * 18, input.grad)


def test_retain_grad_inplace(lib):
    a = lib.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    a.sum().backward()
    eq(a.grad, lib.tensor([1.0]))
    a = lib.tensor([1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    a.mul_(2)
    a.sum().backward()
    eq(a.grad, lib.tensor([1.0]))
    x = lib.tensor([1.0], requires_grad=True).clone()
    x.retain_grad()
    x_view = x[:]
    x_view *= 2
    x *= 2
    x.sum().backward()
    eq(a.grad, lib.tensor([1.0]))
    x = lib.zeros(4)
    y = x.view(2, 2)
    y.add_(lib.randn(2, 2, requires_grad=True))


def test_retains_grad_inplace_multiple_outputs(lib):
    class DoubleMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    def var_mean(x):
        return lib.var_mean(x, dim=0)

    for fn in (DoubleMul.apply, var_mean):
        b = lib.rand(3, 3, requires_grad=True)
        var, mean = fn(b)
        var.retain_grad()
        mean.retain_grad()
        var.mul_(2)
        (var + mean).sum().backward()
        gvar = var.grad
        gmean = mean.grad
        a = b.detach().requires_grad_(True)
        var, mean = fn(a)
        var.mul_(2)
        out = (var + mean).sum()
        gvar_expected, gmean_expected = lib.autograd.grad(out, inputs=(var, mean))
        assert lib.allclose(gvar, gvar_expected)
        assert lib.allclose(gmean, gmean_expected)


def test_retain_grad_inplace_over_view(lib):
    base = lib.tensor([1.0], requires_grad=True).clone()
    view = base[:]
    view2 = base[:]
    view.retain_grad()
    view2.retain_grad()
    view.mul_(2)
    (view + view2).sum().backward()
    eq(view.grad, view2.grad)
    eq(view.grad, lib.tensor([1.0]))


def test_tensor_hooks_inplace(lib):
    count1 = [0]
    count2 = [0]

    def fn1(grad):
        count1[0] += 1
        eq(grad, lib.tensor([4.0]))
        return grad * 2

    def fn2(grad):
        count2[0] += 1
        eq(grad, lib.tensor([1.0]))
        return grad * 2

    a = lib.tensor([1.0], requires_grad=True)
    b = a.clone()
    b.register_hook(fn1)
    b.mul_(2)
    b.register_hook(fn2)
    b.sum().backward()
    assert count1[0] == 1
    assert count2[0] == 1
    eq(a.grad, lib.tensor([8.0]))
    count3 = [0]

    def fn3(grad):
        count3[0] += 1
        eq(grad, lib.tensor([4.0]))
        return grad * 2

    a = lib.tensor([1.0], requires_grad=True)
    b = a.clone()
    b.register_hook(fn3)
    b.mul_(2)
    b.mul_(2)
    b.sum().backward()
    assert count1[0] == 1
    eq(a.grad, lib.tensor([8.0]))


def test_tensor_hooks_inplace_multiple_outputs(lib):
    class DoubleMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    def var_mean(x):
        return lib.var_mean(x, dim=0)

    for fn in (DoubleMul.apply, var_mean):
        counts = [0, 0, 0]

        def fn0(grad):
            counts[0] += 1
            eq(grad, lib.ones_like(out1) * 2)

        def fn1(grad):
            counts[1] += 1
            eq(grad, lib.ones_like(out1) * 3)

        def fn2(grad):
            counts[2] += 1
            eq(grad, lib.ones_like(out1))

        b = lib.rand(3, 3, requires_grad=True)
        out1, out2 = fn(b)
        h1 = out1.register_hook(fn0)
        h2 = out2.register_hook(fn1)
        out1.mul_(2)
        h3 = out1.register_hook(fn2)
        (out1 + out2 * 3).sum().backward()
        assert counts == [1, 1, 1]
        h1.remove()
        h2.remove()
        h3.remove()


def test_tensor_hooks_inplace_over_view(lib):
    count = [0]

    def fn0(grad):
        pytest.fail()

    def fn1(grad):
        pytest.fail()

    def fn2(grad):
        count[0] += 1
        eq(grad, lib.tensor([1.0]))

    base = lib.tensor([1.0], requires_grad=True).clone()
    view = base[:]
    view2 = base[:]
    view.register_hook(fn0)
    view2.register_hook(fn1)
    view.mul_(2)
    view2.grad_fn
    view2.register_hook(fn2)
    (view + view2).sum().backward()
    assert count[0] == 1


def test_backward(lib):
    v = lib.randn(5, 5, requires_grad=True)
    x = lib.randn(5, 5, requires_grad=True)
    y = (lib.rand(5, 5) + 0.1).requires_grad_(True)
    z = lib.randn(5, 5, requires_grad=True)
    grad_output = lib.randn(5, 5)
    v.backward(grad_output)
    eq(v.grad, grad_output)
    a = x + (y * z) + 4 * z ** 2 * x / y
    a.backward(grad_output)
    x_grad = 4 * z.pow(2) / y + 1
    y_grad = z - 4 * x * z.pow(2) / y.pow(2)
    z_grad = 8 * x * z / y + y
    eq(x.grad, x_grad * grad_output)
    eq(y.grad, y_grad * grad_output)
    eq(z.grad, z_grad * grad_output)


def test_multi_backward(lib):
    x = lib.randn(5, 5, requires_grad=True)
    y = lib.randn(5, 5, requires_grad=True)
    q = lib.randn(5, 5, requires_grad=True)
    a = lib.randn(5, 5, requires_grad=True)
    b = lib.randn(5, 5, requires_grad=True)
    q2 = q * 2
    z = x + y + q2
    c = a * b + q2
    grad_z = lib.randn(5, 5)
    grad_c = lib.randn(5, 5)
    lib.autograd.backward([z, c], [grad_z, grad_c])
    eq(x.grad, grad_z)
    eq(y.grad, grad_z)
    eq(a.grad, grad_c * b)
    eq(b.grad, grad_c * a)
    eq(q.grad, (grad_c + grad_z) * 2)


def test_multi_backward_no_grad(lib):
    x = lib.randn(5, 5, requires_grad=True)
    y = lib.randn(5, 5, requires_grad=False)
    z = x + y
    q = y * 2
    with pytest.raises(RuntimeError):
        lib.autograd.backward([z, q], [lib.ones(5, 5), lib.ones(5, 5)])


def test_backward_with_inputs(lib):
    x = lib.randn(2, 2, dtype=lib.double, requires_grad=True)
    y = lib.randn(2, 2, dtype=lib.double, requires_grad=True)

    def fn():
        return x ** 2 + y * x + y ** 2

    gradient = lib.ones(2, 2)
    x_grad_expected = 2 * x + y
    y_grad_expected = x + 2 * y

    @lib.no_grad()
    def reset_grad():
        x.grad.zero_()
        y.grad.zero_()

    lib.autograd.backward(fn(), gradient, inputs=[x, y])
    eq(x.grad, x_grad_expected)
    eq(y.grad, y_grad_expected)
    reset_grad()
    lib.autograd.backward(fn(), gradient, inputs=[x])
    eq(x.grad, x_grad_expected)
    eq(y.grad, lib.zeros(2, 2))
    reset_grad()
    lib.autograd.backward(fn(), gradient, inputs=[y])
    eq(y.grad, y_grad_expected)
    eq(x.grad, lib.zeros(2, 2))
    reset_grad()
    lib.autograd.backward(fn(), gradient, inputs=y)
    eq(y.grad, y_grad_expected)
    eq(x.grad, lib.zeros(2, 2))
    reset_grad()
    with raises(RuntimeError, "cannot be empty"):
        lib.autograd.backward(fn(), gradient, inputs=[])


def test_backward_with_scalar_input(lib):
    x = lib.randn([], dtype=lib.double, requires_grad=True)
    out = x ** 2
    out.backward(inputs=x)
    eq(x.grad, 2 * x)


def test_backward_with_nonleaf_inputs(lib):
    x = lib.randn(2, 2, dtype=lib.double, requires_grad=True)
    x_nonleaf = x * 1
    y = lib.randn(2, 2, dtype=lib.double, requires_grad=True)
    z = lib.randn(2, 2, dtype=lib.double, requires_grad=True)
    out = x_nonleaf ** 2 + y * x_nonleaf + y ** 2
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        out.backward(lib.ones(2, 2, dtype=lib.double), create_graph=True,
                     inputs=[x, y, x_nonleaf])
    eq(y.grad, x + 2 * y)
    eq(x.grad, 2 * x + y)
    eq(x_nonleaf.grad, 2 * x_nonleaf + y)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        out.backward(lib.ones(2, 2, dtype=lib.double), create_graph=True, inputs=[z])
    assert z.grad is None
    x.grad = None
    y.grad = None
    x_nonleaf.grad = None


def test_dependent_backward(lib):
    x = lib.randn(10, requires_grad=True)
    y = x ** 2
    z = y ** 3
    go_y = lib.randn(10)
    go_z = lib.randn(10)
    lib.autograd.backward([y, z], [go_y, go_z])
    xd = x
    eq(x.grad, 2 * xd * go_y + 6 * xd.pow(5) * go_z)


def test_save_output_nr(lib):
    x = lib.randn(10, requires_grad=True)

    class MultiOutputFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:5], x[5:]

        @staticmethod
        def backward(ctx, *grad):
            return lib.cat(grad)

    a, b = MultiOutputFn.apply(x)
    assert b.output_nr == 1

    class TestFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, b):
            ctx.save_for_backward(b)
            return b * 2

        @staticmethod
        def backward(ctx, grad_b):
            (b,) = ctx.saved_tensors
            assert b.output_nr == 1

    TestFn.apply(b).sum().backward()


def test_first_grad_fn_access_in_no_grad_mode(lib):
    a = lib.tensor([1 + 1j], requires_grad=True).clone()
    v = a.real
    a.add_(1)
    with lib.autograd.grad_mode.no_grad():
        v.grad_fn


def test_free_deep_graph(lib):
    def scope():
        depth = 150000
        x = lib.randn(1, requires_grad=True)
        y = x.clone()
        for _ in range(depth):
            y = y + y * 0.000001

    scope()


def test_free_deep_graph_complicated(lib):
    def scope():
        depth = 100000
        randchoice = lib.randint(2, [depth, 2])
        x = lib.randn(1, requires_grad=True)
        y = x.clone()
        prev_values = [None, None]
        for _ in range(depth):
            prev_tensors = [tensor for tensor in prev_values[:-1] if tensor is not None]
            prev_values.append(y)
            prev_values.pop(0)
            y += y * 0.000001
            nprev = len(prev_tensors)
            if nprev == 2:
                y += randchoice[depth].mul(lib.cat(prev_tensors)).sum()

    scope()


def test_free_deep_graph_pyfunction(lib):
    class MyOp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, tensor1, tensor2):
            return tensor1 + tensor2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output, grad_output

    def scope():
        depth = 150000
        x = lib.randn(1, requires_grad=True)
        y = x.clone()
        for _ in range(depth):
            y = MyOp.apply(y, y)

    scope()


def test_no_unnecessary_save(lib):
    mu = lib.ones(1, requires_grad=True)
    x = lib.empty(1)
    loss = 0
    for i in range(3):
        x.detach_()
        x.copy_(mu + i)
        ft = lib.tensor([float(i)])
        multiplied = x * ft
        s = multiplied.sum()
        loss += s
    loss.backward()


def test_no_grad(lib):
    x = lib.ones(5, 5, requires_grad=True)
    y = lib.ones(5, 5) * 4
    with lib.no_grad():
        w = x + y

    def adder(x, y):
        return x + y

    adders = [lib.no_grad()(adder), lib.no_grad(adder)]
    for adder in adders:
        z = adder(x, y)
        assert not w.requires_grad
        with pytest.raises(RuntimeError):
            w.backward(lib.ones(5, 5))
        assert w.grad_fn is None
        assert not z.requires_grad
        with pytest.raises(RuntimeError):
            z.backward(lib.ones(5, 5))
        assert z.grad_fn is None
    with lib.no_grad():
        assert not lib.is_grad_enabled()
        w = adder(x, y)
        assert not lib.is_grad_enabled()


def test_enable_grad_decorator_no_paren(lib):
    x = lib.ones(1, requires_grad=True)

    @lib.enable_grad
    def doubler(x):
        return x * 2

    with lib.no_grad():
        z = doubler(x)
    assert z.requires_grad


def test_set_grad_generator_functions(lib):
    @lib.no_grad()
    def gen_no_grad():
        for i in range(10):
            assert lib.is_grad_enabled() is False
            yield i

    with lib.enable_grad():
        for _ in gen_no_grad():
            assert lib.is_grad_enabled() is True

    @lib.enable_grad()
    def gen_enable_grad():
        for i in range(10):
            assert lib.is_grad_enabled() is True
            yield i

    with lib.no_grad():
        for _ in gen_enable_grad():
            assert lib.is_grad_enabled() is False


def test_set_grad_generator_functions_recursive(lib):
    @lib.enable_grad()
    def enable_grad_decorator_recursive(depth):
        assert lib.is_grad_enabled()
        if depth > 0:
            no_grad_decorator_recursive(depth - 1)
            assert lib.is_grad_enabled()

    @lib.no_grad()
    def no_grad_decorator_recursive(depth):
        assert not lib.is_grad_enabled()
        if depth > 0:
            enable_grad_decorator_recursive(depth - 1)
            assert not lib.is_grad_enabled()

    def enable_grad_context_manager_recursive(depth):
        with lib.enable_grad():
            assert lib.is_grad_enabled()
            if depth > 0:
                no_grad_context_manager_recursive(depth - 1)
                assert lib.is_grad_enabled()

    def no_grad_context_manager_recursive(depth):
        with lib.no_grad():
            assert not lib.is_grad_enabled()
            if depth > 0:
                enable_grad_context_manager_recursive(depth - 1)
                assert not lib.is_grad_enabled()

    with lib.enable_grad():
        assert lib.is_grad_enabled()
        enable_grad_decorator_recursive(10)
        assert lib.is_grad_enabled()
        enable_grad_context_manager_recursive(10)
        assert lib.is_grad_enabled()
    with lib.no_grad():
        assert not lib.is_grad_enabled()
        enable_grad_decorator_recursive(10)
        assert not lib.is_grad_enabled()
        enable_grad_context_manager_recursive(10)
        assert not lib.is_grad_enabled()


def test_set_grad_coroutines(lib):
    @lib.no_grad()
    def coro_no_grad(n=10):
        assert not lib.is_grad_enabled()
        for i in range(n):
            assert not lib.is_grad_enabled()
            r = yield i
            assert not lib.is_grad_enabled()
            assert i == r
        assert not lib.is_grad_enabled()

    @lib.enable_grad()
    def coro_enable_grad(n=10):
        assert lib.is_grad_enabled()
        for i in range(n):
            assert lib.is_grad_enabled()
            r = yield i
            assert lib.is_grad_enabled()
            assert i == r
        assert lib.is_grad_enabled()

    with lib.enable_grad():
        assert lib.is_grad_enabled()
        coro, r = coro_no_grad(), None
        try:
            while True:
                assert lib.is_grad_enabled()
                r = coro.send(r)
                assert lib.is_grad_enabled()
        except StopIteration:
            pass
    with lib.no_grad():
        assert not lib.is_grad_enabled()
        coro, r = coro_enable_grad(), None
        try:
            while True:
                assert not lib.is_grad_enabled()
                r = coro.send(r)
                assert not lib.is_grad_enabled()
        except StopIteration:
            pass


def test_set_grad_coroutines_benign_exceptions(lib):
    class RecoverableException(Exception):
        pass

    @lib.no_grad()
    def coro_no_grad(n=10):
        has_raised = False
        for i in range(n):
            try:
                assert not lib.is_grad_enabled()
                yield (-i if has_raised else i)
            except RecoverableException:
                assert not lib.is_grad_enabled()
                has_raised = True

    @lib.enable_grad()
    def coro_enable_grad(n=10):
        has_raised = False
        for i in range(n):
            try:
                assert lib.is_grad_enabled()
                yield (-i if has_raised else i)
            except RecoverableException:
                assert lib.is_grad_enabled()
                has_raised = True

    with lib.enable_grad():
        coro = coro_no_grad()
        assert next(coro) == 0
        try:
            while True:
                r = coro.throw(RecoverableException)
                assert r < 0
        except StopIteration:
            pass
    with lib.no_grad():
        coro = coro_enable_grad()
        assert next(coro) == 0
        try:
            while True:
                r = coro.throw(RecoverableException)
                assert r < 0
        except StopIteration:
            pass


def test_set_grad_coroutines_critical_exceptions(lib):
    class UnrecoverableException(Exception):
        pass

    class SecondaryException(Exception):
        pass

    @lib.no_grad()
    def coro_no_grad(n=10):
        for i in range(n):
            try:
                assert not lib.is_grad_enabled()
                yield i
            except UnrecoverableException:
                assert not lib.is_grad_enabled()
                raise SecondaryException from None

    @lib.enable_grad()
    def coro_enable_grad(n=10):
        for i in range(n):
            try:
                assert lib.is_grad_enabled()
                yield i
            except UnrecoverableException:
                assert lib.is_grad_enabled()
                raise SecondaryException from None

    with lib.enable_grad():
        coro = coro_no_grad()
        assert next(coro) == 0
        with pytest.raises(SecondaryException):
            coro.throw(UnrecoverableException)
    with lib.no_grad():
        coro = coro_enable_grad()
        assert next(coro) == 0
        with pytest.raises(SecondaryException):
            coro.throw(UnrecoverableException)


def test_set_grad_coroutines_exit(lib):
    @lib.no_grad()
    def coro_no_grad(state):
        for i in range(10):
            try:
                assert not lib.is_grad_enabled()
                yield i
            except GeneratorExit:
                assert not lib.is_grad_enabled()
                state.add("GeneratorExit")
                raise

    @lib.enable_grad()
    def coro_enable_grad(state):
        for i in range(10):
            try:
                assert lib.is_grad_enabled()
                yield i
            except GeneratorExit:
                assert lib.is_grad_enabled()
                state.add("GeneratorExit")
                raise

    state = set()
    with lib.enable_grad():
        coro = coro_no_grad(state)
        for _ in range(5):
            next(coro)
        coro.close()
    assert "GeneratorExit" in state
    state = set()
    with lib.no_grad():
        coro = coro_enable_grad(state)
        for _ in range(5):
            next(coro)
        coro.close()
    assert "GeneratorExit" in state


def test_no_grad_python_function(lib):
    x = lib.ones(5, 5, requires_grad=True)

    class MyOp(lib.autograd.Function):
        @staticmethod
        def forward(self, x):
            return x + 1

        @staticmethod
        def backward(self, dy):
            return dy

    with lib.no_grad():
        y = MyOp.apply(x)
    assert not y.requires_grad


def test_indexing(lib):
    Variable = lib.autograd.Variable
    x = lib.arange(1.0, 17).view(4, 4)
    y = Variable(x, requires_grad=True)

    def compare(x, y, idx, indexed_tensor, indexed_var):
        indexed_var_t = indexed_var.data
        if not isinstance(indexed_tensor, lib.Tensor):
            indexed_var_t = indexed_var_t[0]
        eq(indexed_tensor, indexed_var_t)
        indexed_var.sum().backward()
        expected_grad = lib.empty(x.size()).fill_(0)
        expected_grad[idx] = 1
        eq(y.grad, expected_grad)

    def check_index(x, y, idx):
        if y.grad is not None:
            with lib.no_grad():
                y.grad.zero_()
        indexed_tensor = x[idx]
        indexed_var = y[idx]
        compare(x, y, idx, indexed_tensor, indexed_var)

    check_index(x, y, 1)
    check_index(x, y, (1, 1))
    check_index(x, y, slice(1, None))
    check_index(x, y, slice(None, 2))
    check_index(x, y, (slice(None, 2), 2))
    check_index(x, y, (slice(1, 2), 2))
    check_index(x, y, (1, slice(2, None)))
    check_index(x, y, (slice(None, None), slice(2, None)))
    check_index(x, y, lib.LongTensor([0, 2]))
    check_index(x, y, lib.rand(4, 4).bernoulli().bool())
    check_index(x, y, (Ellipsis, slice(2, None)))
    check_index(x, y, ([0], [0]))
    check_index(x, y, ([1, 2, 3], [0]))
    check_index(x, y, ([1, 2], [2, 1]))
    check_index(x, y, ([[1, 2], [3, 0]], [[0, 1], [2, 3]]))
    check_index(x, y, ((slice(None), [2, 3])))
    check_index(x, y, (([2, 3], slice(None))))
    check_index(x, y, ([0]))
    check_index(x, y, ([0],))
    x = lib.arange(1.0, 49).view(4, 3, 4)
    y = Variable(x, requires_grad=True)
    check_index(x, y, (slice(None), [0], [0]))
    check_index(x, y, ([0], [0], slice(None)))
    check_index(x, y, (slice(None), [0, 1, 2], [0]))
    check_index(x, y, ([0, 1, 2], [0], slice(None)))
    check_index(x, y, (slice(None), [1, 2], [2, 1]))
    check_index(x, y, ([1, 2], [2, 1], slice(None)))
    check_index(x, y, (slice(None), [[1, 2], [2, 0]], [[0, 1], [2, 3]]))
    check_index(x, y, ([[1, 2], [3, 0]], [[0, 1], [2, 2]], slice(None)))
    check_index(x, y, (slice(None), slice(None), [2, 1]))
    check_index(x, y, (slice(None), [2, 1], slice(None)))
    check_index(x, y, ([2, 1], slice(None), slice(None)))
    check_index(x, y, ([0],))
    check_index(x, y, ([0], slice(None)))
    check_index(x, y, ([0], Ellipsis))
    check_index(x, y, ([1, 2], [0, 1]))
    check_index(x, y, ([1, 2], [0, 1], Ellipsis))
    check_index(x, y, (Ellipsis, [1, 2], [0, 1]))
    z = lib.LongTensor([0, 1])
    zv = Variable(z, requires_grad=False)
    seq = (z, Ellipsis)
    seqv = (zv, Ellipsis)
    if y.grad is not None:
        with lib.no_grad():
            y.grad.zero_()
    indexed_tensor = x[seq]
    indexed_var = y[seqv]
    compare(x, y, seq, indexed_tensor, indexed_var)


def test_indexing_duplicates(lib):
    Variable = lib.autograd.Variable
    x = lib.arange(1.0, 17).view(4, 4)
    y = Variable(x, requires_grad=True)
    idx = lib.LongTensor([1, 1, 3, 2, 1, 2])
    y[idx].sum().backward()
    expected_grad = lib.zeros(4, 4)
    for i in idx:
        expected_grad[i] += 1
    eq(y.grad, expected_grad)
    x = lib.arange(1.0, 17).view(4, 4)
    y = Variable(x, requires_grad=True)
    idx = ([1, 1, 3, 2, 1, 2], [0])
    y[idx].sum().backward()
    expected_grad = lib.zeros(4, 4)
    for i in idx[0]:
        for j in idx[1]:
            expected_grad[i][j] += 1
    eq(y.grad, expected_grad)
    x = lib.arange(1.0, 17).view(4, 4)
    y = Variable(x, requires_grad=True)
    idx = ([[1, 2], [0, 0]], [[0, 1], [1, 1]])
    y[idx].sum().backward()
    expected_grad = lib.tensor([[0.0, 2.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0],
                                [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    eq(y.grad, expected_grad)
    x = lib.arange(1.0, 65).view(4, 4, 4)
    y = Variable(x, requires_grad=True)
    idx = ([1, 1, 1], slice(None), slice(None))
    y[idx].sum().backward()
    expected_grad = lib.empty(4, 4, 4).zero_()
    expected_grad[1].fill_(3)
    eq(y.grad, expected_grad)


def test_index_backward_does_not_save_tensor(lib):
    a = lib.tensor([1.0, 0, 0])
    b = lib.zeros(3, requires_grad=True)
    tensor = b + 0
    tensor[a != 0] = tensor[a != 0]
    tensor.backward(lib.zeros_like(tensor))


def test_volatile_deprecated(lib):
    v = lib.randn(3, 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        assert not v.volatile
    assert "volatile" in str(w[0].message)


def test_saved_variables_deprecated(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, tensor1, tensor2):
            ctx.save_for_backward(tensor1, tensor2)
            return tensor1 + tensor2

        @staticmethod
        def backward(ctx, grad_output):
            var1, var2 = ctx.saved_variables
            return (grad_output, grad_output)

    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        x = lib.randn((3, 3), requires_grad=True)
        y = lib.randn((3, 3), requires_grad=True)
        MyFunction.apply(x, y).sum().backward()
    assert any("deprecated" in str(w.message) and "saved_variables" in str(w.message)
               for w in ws)


def test_requires_grad(lib):
    x = lib.randn(5, 5)
    y = lib.randn(5, 5)
    z = lib.randn(5, 5, requires_grad=True)
    a = x + y
    assert not a.requires_grad
    b = a + z
    assert b.requires_grad

    def error():
        raise RuntimeError

    a._backward_hooks = {'test': error}
    x._backward_hooks = {'test': error}
    y._backward_hooks = {'test': error}
    b.backward(lib.ones(5, 5))


def test_requires_grad_(lib):
    x = lib.randn(5, 5)
    y = lib.randn(5, 5, requires_grad=True)
    assert x is x.requires_grad_()
    assert x.requires_grad
    assert y is y.requires_grad_()
    assert y.requires_grad
    assert x is x.requires_grad_(True)
    assert x.requires_grad
    assert y is y.requires_grad_(True)
    assert y.requires_grad
    z = x * y
    with pytest.raises(RuntimeError):
        z.requires_grad_(False)
    assert z is z.requires_grad_()
    assert z.requires_grad
    assert z is z.requires_grad_(True)
    assert z.requires_grad
    assert x is x.requires_grad_(False)
    assert not x.requires_grad
    assert y is y.requires_grad_(False)
    assert not y.requires_grad


def test_requires_grad_inplace(lib):
    a = lib.randn(5, 5)
    b = lib.randn(5, 5, requires_grad=True)
    a += b
    assert a.requires_grad
    a = lib.randn(5, 5) + 0
    b = lib.randn(5, 5, requires_grad=True)
    a += b
    assert a.requires_grad


def test_no_requires_grad_inplace(lib):
    a = lib.randn(2, 3)
    a.add_(5)
    a.requires_grad = True
    a.sum().backward()
    eq(a.grad, lib.ones(2, 3))
    a = lib.randn(2, 3)
    b = a[:]
    b.add_(5)
    a.requires_grad = True
    a.sum().backward()
    eq(a.grad, lib.ones(2, 3))
    # (the issue's case: in-place on a view made before its base required grad)
    a = lib.randn(2, 3)
    b = a[:]
    a.requires_grad = True
    with pytest.raises(RuntimeError):
        a.add_(5)
    with pytest.raises(RuntimeError):
        b.add_(5)


def test_attribute_deletion(lib):
    # (the issue's ``del x.grad``)
    x = lib.randn((5, 5), requires_grad=True)
    del x.grad
    assert x.grad is None
    with pytest.raises(RuntimeError):
        del x.data
    with pytest.raises(TypeError):
        x.data = None
    with pytest.raises(RuntimeError):
        del x.requires_grad
    with pytest.raises(RuntimeError):
        del x._grad_fn
    with pytest.raises(RuntimeError):
        del x._backward_hooks


def test_duplicate_backward_root(lib):
    a = lib.randn(5, 5, requires_grad=True)
    b = lib.randn(5, 5, requires_grad=True)
    x = a * b
    grad_output = lib.randn_like(x)
    lib.autograd.backward([x, x], [grad_output, grad_output])
    eq(a.grad, b * grad_output * 2)
    eq(b.grad, a * grad_output * 2)


def test_backward_no_grad(lib):
    a = lib.randn(5, 5, requires_grad=True)
    b = a + 2
    with pytest.raises(RuntimeError):
        lib.autograd.backward([b], [None])


def test_backward_twice_with_saved_values(lib):
    b = lib.randn(3, requires_grad=True, dtype=lib.double)
    c = lib.zeros(3, dtype=lib.double)
    c[[1, 2]] = b[[1, 1]]
    c.backward(lib.tensor([1, 1, 1], dtype=lib.double))
    with raises(RuntimeError, "Specify retain_graph=True"):
        c.backward(lib.tensor([1, 1, 1], dtype=lib.double))


def test_backward_twice_retained_graph_with_saved_values(lib):
    b = lib.randn(3, requires_grad=True, dtype=lib.double)
    c = lib.zeros(3, dtype=lib.double)
    c[[1, 2]] = b[[1, 1]]
    c.backward(lib.tensor([1, 1, 1], dtype=lib.double), retain_graph=True)
    c.backward(lib.tensor([1, 1, 1], dtype=lib.double))


def test_backward_twice_without_saved_values(lib):
    b = lib.randn(3, requires_grad=True, dtype=lib.double)
    c = b + 1
    c.backward(lib.tensor([1, 1, 1], dtype=lib.double))
    c.backward(lib.tensor([1, 1, 1], dtype=lib.double))


def test_backward_twice_retained_graph_without_saved_values(lib):
    b = lib.randn(3, requires_grad=True, dtype=lib.double)
    c = lib.zeros(3, dtype=lib.double)
    c[[1, 2]] = b[[1, 1]]
    c.backward(lib.tensor([1, 1, 1], dtype=lib.double), retain_graph=True)
    c.backward(lib.tensor([1, 1, 1], dtype=lib.double))


@pytest.fixture
def warn_always(lib):
    """``set_warn_always_context(True)``: torch's once-only warnings warn every time
    (ember, without that switch, warns every time anyway)."""
    if not hasattr(lib, 'set_warn_always'):
        yield
        return
    prev = lib.is_warn_always_enabled()
    lib.set_warn_always(True)
    yield
    lib.set_warn_always(prev)


def test_backward_create_graph_warns(lib, warn_always):
    b = lib.randn(3, requires_grad=True, dtype=lib.double)
    c = b * b
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        c.backward(lib.ones_like(c), create_graph=True)
    b.grad = None
    assert any("Using backward() with create_graph=True" in str(w.message) for w in ws)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        lib.autograd.grad(c, b, lib.ones_like(c), create_graph=True)
    assert not any("Using backward() with create_graph=True" in str(w.message) for w in ws)


def test_next_functions(lib):
    x = lib.randn(5, 5, requires_grad=True)
    y = lib.randn(5, 5, requires_grad=True)
    a = x + y
    assert a.grad_fn is not None
    next_functions = a.grad_fn.next_functions
    assert len(next_functions) == 2
    assert type(next_functions[0][0]).__name__ == 'AccumulateGrad'
    assert next_functions[0][1] == 0
    assert type(next_functions[1][0]).__name__ == 'AccumulateGrad'
    assert next_functions[1][1] == 0
    b = a + 5
    next_functions = b.grad_fn.next_functions
    assert len(next_functions) == 2
    assert next_functions[0][0] is a.grad_fn
    assert next_functions[1][0] is None


def test_inplace(lib):
    Variable = lib.autograd.Variable
    x = lib.ones(5, 5, requires_grad=True)
    y = Variable(lib.ones(5, 5) * 4, requires_grad=True)
    z = x * y
    q = z + y
    w = z * y
    z.add_(2)
    q.backward(lib.ones(5, 5), retain_graph=True)
    with pytest.raises(RuntimeError):
        w.backward(lib.ones(5, 5))
    z = x * y
    q = z * y
    r = z + y
    w = z.add_(y)
    w.backward(lib.ones(5, 5), retain_graph=True)
    r.backward(lib.ones(5, 5), retain_graph=True)
    with pytest.raises(RuntimeError):
        q.backward(lib.ones(5, 5))
    with lib.no_grad():
        x.grad.zero_()
    m = x / 2
    z = m + y / 8
    q = z * y
    r = z + y
    prev_version = z._version
    w = z.exp_()
    assert z._version != prev_version
    r.backward(lib.ones(5, 5), retain_graph=True)
    eq(x.grad, lib.ones(5, 5) / 2)
    w.backward(lib.ones(5, 5), retain_graph=True)
    eq(x.grad, lib.empty(5, 5).fill_((1 + np.e) / 2))
    with pytest.raises(RuntimeError):
        q.backward(lib.ones(5, 5))
    leaf = lib.ones(5, 5, requires_grad=True)
    x = leaf.clone()
    x.add_(10)
    eq(x, lib.ones(5, 5) * 11)
    y = x + 2
    y.backward(lib.ones(5, 5))
    eq(leaf.grad, lib.ones(5, 5))
    z = x * y
    x.add_(2)
    with pytest.raises(RuntimeError):
        z.backward(lib.ones(5, 5))


def test_mark_non_differentiable(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            output = input > 0
            ctx.mark_non_differentiable(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            return (grad_output * 0).to(lib.double)

    x = lib.randn(5, 5, requires_grad=True)
    mask = MyFunction.apply(x)
    assert not mask.requires_grad
    y = x.masked_fill(mask, 0)
    y.sum().backward()


def test_mark_non_differentiable_mixed(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            a = input + 1
            b = input + 2
            ctx.mark_non_differentiable(a)
            return a, b

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            assert (grad_a == 0).all()
            assert (grad_b == 1).all()
            return grad_b

    x = lib.randn(5, 5, requires_grad=True)
    a, b = MyFunction.apply(x)
    assert not a.requires_grad
    assert b.requires_grad
    b.sum().backward()
    eq(x.grad, lib.ones(5, 5))


def test_mark_non_differentiable_none(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            output = input.clone()
            ctx.mark_non_differentiable(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            return None

    x = lib.randn(5, 5, requires_grad=True)
    r = MyFunction.apply(x * x)
    (r * x).sum().backward()


def test_return_duplicate(lib):
    class DoubleDuplicate(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            output = x * 2
            return output, output

        @staticmethod
        def backward(ctx, grad1, grad2):
            return grad1 * 2 + grad2 * 2

    def fn(x):
        a, b = DoubleDuplicate.apply(x)
        assert a is b
        return a + b

    x = lib.randn(5, 5, dtype=lib.double, requires_grad=True)
    gradcheck(lib, fn, [x])
    gradgradcheck(lib, fn, [x])


def test_return_duplicate_inplace(lib):
    class DoubleInplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x

        @staticmethod
        def backward(ctx, grad1, grad2):
            return grad1 * 2 + grad2 * 2

    def inplace_fn(x):
        a, b = DoubleInplace.apply(x.clone())
        assert a is b
        return a + b

    x = lib.randn(5, 5, dtype=lib.double, requires_grad=True)
    gradcheck(lib, inplace_fn, [x])
    gradgradcheck(lib, inplace_fn, [x])
    # can't modify leaf variables in-place; functions which modify views in-place must
    # return only one output (upstream applies the abstract InplaceFunction, whose missing
    # forward raises NotImplementedError, a RuntimeError, first; DoubleInplace shows the
    # two rules themselves)
    InplaceFunction = lib.autograd.function.InplaceFunction
    with pytest.raises(RuntimeError):
        InplaceFunction.apply(x)
    with pytest.raises(RuntimeError):
        InplaceFunction.apply(x.clone()[0])
    with pytest.raises(RuntimeError):
        DoubleInplace.apply(x)
    with pytest.raises(RuntimeError):
        DoubleInplace.apply(x.clone()[0])


def _test_setitem(lib, size, index):
    x = lib.ones(*size, requires_grad=True)
    y = x + 2
    y_version = y._version
    y[index] = 2
    assert y._version != y_version
    y.backward(lib.ones(*size))
    expected_grad = lib.ones(*size)
    expected_grad[index] = 0
    eq(x.grad, expected_grad)


def _test_setitem_tensor(lib, size, index):
    x = lib.ones(*size, requires_grad=True)
    y = x + 2
    y_version = y._version
    value = x.new(x[index].size()).fill_(7)
    value.requires_grad = True
    y[index] = value
    assert y._version != y_version
    y.backward(lib.ones(*size))
    expected_grad_input = lib.ones(*size)
    expected_grad_input[index] = 0
    eq(x.grad, expected_grad_input)
    eq(value.grad, lib.ones_like(value))
    x = lib.randn(4, requires_grad=True)
    y = lib.zeros(2, 3, 4)
    y[1] = x
    y.backward(lib.randn(2, 3, 4))
    assert x.size() == x.grad.size()


def test_setitem(lib):
    Variable = lib.autograd.Variable
    _test_setitem(lib, (5, 5), 1)
    _test_setitem(lib, (5,), 1)
    _test_setitem(lib, (1,), 0)
    _test_setitem(lib, (10,), ([0, 4, 2]))
    _test_setitem(lib, (5, 5), ([0, 4], [2, 2]))
    _test_setitem(lib, (5, 5, 5), (slice(None), slice(None), [1, 3]))
    _test_setitem(lib, (5, 5, 5), (slice(None), [1, 3], slice(None)))
    _test_setitem(lib, (5, 5, 5), ([1, 3], slice(None), slice(None)))
    _test_setitem(lib, (5, 5, 5), (slice(None), [2, 4], [1, 3]))
    _test_setitem(lib, (5, 5, 5), ([1, 3], [2, 4], slice(None)))
    _test_setitem_tensor(lib, (5, 5), 3)
    _test_setitem_tensor(lib, (5, 5), ([0, 1], [1, 0]))
    _test_setitem_tensor(lib, (5,), 3)
    _test_setitem_tensor(lib, (5,), Variable(lib.LongTensor([3]), requires_grad=False).sum())
    _test_setitem_tensor(lib, (5,), [[0, 1, 2, 3]])
    _test_setitem_tensor(lib, (5, 5, 5), (slice(None), slice(None), [1, 3]))
    _test_setitem_tensor(lib, (5, 5, 5), (slice(None), [1, 3], slice(None)))
    _test_setitem_tensor(lib, (5, 5, 5), ([1, 3], slice(None), slice(None)))
    _test_setitem_tensor(lib, (5, 5, 5), (slice(None), [2, 4], [1, 3]))
    _test_setitem_tensor(lib, (5, 5, 5), ([1, 3], [2, 4], slice(None)))
    _test_setitem_tensor(lib, (5, 5, 5), (Variable(lib.LongTensor([1, 3]),
                                                   requires_grad=False), [2, 4], slice(None)))


def test_setitem_mask(lib):
    Variable = lib.autograd.Variable
    mask = lib.BoolTensor(5, 5).bernoulli_()
    _test_setitem(lib, (5, 5), Variable(mask))
    _test_setitem(lib, (5,), Variable(mask[0]))
    _test_setitem(lib, (1,), Variable(mask[0, 0:1]))
    _test_setitem_tensor(lib, (5, 5), Variable(mask))
    _test_setitem_tensor(lib, (5,), Variable(mask[0]))


def test_select_sum(lib):
    x = lib.randn(10, dtype=lib.double, requires_grad=True)

    def func(x):
        return x.select(0, 1).sum()

    gradcheck(lib, func, [x])
    gradgradcheck(lib, func, [x])


def test_diagonal_expanded_v(lib):
    value = lib.rand([])
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # (tensor(tensor) copy-construct warning)
        v_expanded = lib.tensor(value).expand(10)
    a = lib.rand(10, 10, dtype=lib.double, requires_grad=True)
    (result,) = lib.autograd.grad(a.diagonal(), a, v_expanded)
    eq(result, lib.eye(10, dtype=lib.double) * value)


def test_select_expanded_v(lib):
    v_expanded = lib.rand(10).expand(10, 10)
    a = lib.rand(10, 10, 10, requires_grad=True)
    (result,) = lib.autograd.grad(a[0], a, v_expanded)
    expected = lib.zeros(10, 10, 10)
    expected[0] = v_expanded
    eq(result, expected)


def test_slice_expanded_v(lib):
    v_expanded = lib.rand(10, 1).expand(2, 10, 10)
    a = lib.rand(10, 10, 10, requires_grad=True)
    (result,) = lib.autograd.grad(a[3:5], a, v_expanded)
    expected = lib.zeros(10, 10, 10)
    expected[3:5] = v_expanded
    eq(result, expected)


def test_unused_output(lib):
    x = lib.randn(10, 10, requires_grad=True)
    outputs = x.chunk(5)
    o = outputs[2]
    o = o * 4 + 2
    o.sum().backward()
    expected_grad = lib.zeros(10, 10)
    expected_grad[4:6] = 4
    eq(x.grad, expected_grad)
    with lib.no_grad():
        x.grad.zero_()
    grad_output = lib.randn(2, 10)
    outputs = x.chunk(5)
    outputs[0].backward(grad_output)
    expected_grad = lib.zeros(10, 10)
    expected_grad[:2] = grad_output
    eq(x.grad, expected_grad)


def test_grad_dtype(lib):
    leaf = lib.tensor([1.0, 2.0], requires_grad=True)
    assert leaf.grad_dtype == lib.float32
    leaf.grad_dtype = lib.float16
    assert leaf.grad_dtype == lib.float16
    leaf.grad_dtype = None
    assert leaf.grad_dtype is None
    non_leaf = leaf * 2
    assert not non_leaf.is_leaf
    with raises(RuntimeError, "grad_dtype can only be accessed on leaf tensors"):
        _ = non_leaf.grad_dtype
    with raises(RuntimeError, "grad_dtype can only be set on leaf tensors"):
        non_leaf.grad_dtype = lib.float16
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.grad = lib.tensor([1.0, 1.0])
    assert x.grad.dtype == lib.float32
    x.grad = None
    x.grad_dtype = lib.float16
    with raises(RuntimeError, "attempting to assign a gradient with dtype.*float.*to a tensor "
                              "with grad_dtype.*Half"):
        x.grad = lib.tensor([1.0, 1.0])
    x.grad = None
    x.grad_dtype = None
    x.grad = lib.tensor([1.0, 1.0], dtype=lib.float64)
    assert x.grad.dtype == lib.float64

    class MismatchedGradientFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.to(lib.float64)

    d = lib.tensor([1.0, 2.0], requires_grad=True)
    MismatchedGradientFunction.apply(d).sum().backward()
    assert d.grad.dtype == lib.float32
    assert lib.allclose(d.grad, lib.tensor([1.0, 1.0]))
    e = lib.tensor([3.0, 4.0], requires_grad=True)
    e.grad_dtype = None
    MismatchedGradientFunction.apply(e).sum().backward()
    assert lib.allclose(e.grad, lib.tensor([1.0, 1.0], dtype=lib.float64))
    f = lib.tensor([5.0, 6.0], requires_grad=True)
    f.grad_dtype = lib.float16
    MismatchedGradientFunction.apply(f).sum().backward()
    assert lib.allclose(f.grad, lib.tensor([1.0, 1.0], dtype=lib.float16))
    g = lib.tensor([1.0, 2.0], requires_grad=True)
    g.grad = lib.tensor([1.0, 1.0])
    g.grad_dtype = lib.float32
    assert g.grad_dtype == lib.float32
    with raises(RuntimeError, "Cannot set grad_dtype.*because there is already a gradient"):
        g.grad_dtype = lib.float16
    g.grad_dtype = None
    assert g.grad_dtype is None
    g.grad = None
    g.grad_dtype = lib.float16
    assert g.grad_dtype == lib.float16
    h = lib.tensor([1.0, 2.0], requires_grad=True)
    _ = h.clone()
    h.grad_dtype = None
    MismatchedGradientFunction.apply(h).sum().backward()
    assert h.grad.dtype == lib.float64
    k = lib.tensor([1.0, 2.0], requires_grad=True)
    k.grad_dtype = None
    y = k * 2
    y.sum().backward()
    k.grad = k.grad.to(lib.bfloat16)
    y2 = k * 3
    assert k.grad.dtype == lib.bfloat16
    l = lib.tensor([3.0, 4.0], requires_grad=True, dtype=lib.bfloat16)
    l.grad_dtype = None
    z = l * 2
    z.sum().backward()
    l.grad = l.grad.to(lib.float32)
    z2 = l * 3
    z2.sum().backward()
    assert l.grad.dtype == lib.float32


def test_gc_in_destructor(lib):
    class CollectOnDelete(lib.autograd.Function):
        def forward(self, x):
            return x

        def backward(self, grad_output):
            return grad_output

        def __del__(self):
            gc.collect()

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for _ in range(10):
            CollectOnDelete().forward(lib.randn(1, requires_grad=True)).backward()


def test_naughty_autograd_function_attribute_access(lib):
    class Id(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad_x):
            return grad_x

    with warns(DeprecationWarning, "should not be instantiated"):
        f = Id()
    assert isinstance(f, Id)
    x = lib.zeros(1, requires_grad=True)
    with raises(RuntimeError, "non-static forward method is deprecated"):
        f(x)
    t = Id.apply(x)
    assert t.grad_fn.name() == "IdBackward"


def test_custom_autograd_repeated_grad_grad(lib):
    def mult1(x):
        return x.prod(dim=-1).prod(dim=-1)

    class Mult(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = mult1(x)
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, grad_output):
            x, y = ctx.saved_tensors
            return (grad_output * y)[:, None, None] / x

    mult2 = Mult.apply

    def check_gradgrad_repeated(x, y):
        (gy,) = lib.autograd.grad(y[0], x, create_graph=True)
        (ggy_1,) = lib.autograd.grad(gy[0, 0, 0], x, retain_graph=True)
        (gy,) = lib.autograd.grad(y[0], x, create_graph=True)
        (ggy_2,) = lib.autograd.grad(gy[0, 0, 0], x, retain_graph=True)
        eq(ggy_1[0, 0, 1], ggy_2[0, 0, 1])

    x = lib.ones(2, 4, 4).requires_grad_()
    check_gradgrad_repeated(x, mult1(x))
    check_gradgrad_repeated(x, mult2(x))


def test_custom_autograd_no_early_free(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x ** 2
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, grad_output):
            x, _ = ctx.saved_tensors
            return grad_output * 2 * x

    class Double2(Double):
        @staticmethod
        def backward(ctx, grad_output):
            x, y = ctx.saved_tensors
            return grad_output * 2 * y / x

    double = Double.apply
    double2 = Double2.apply
    x = lib.tensor(2).double().requires_grad_()
    assert gradcheck(lib, double, x)
    assert gradgradcheck(lib, double, x)
    assert gradcheck(lib, double2, x)
    assert gradgradcheck(lib, double2, x)
    y = double(x)
    lib.autograd.grad(y, x, create_graph=True)
    lib.autograd.grad(y, x)
    y = double2(x)
    lib.autograd.grad(y, x, create_graph=True)
    lib.autograd.grad(y, x)


def test_detach(lib):
    x = lib.randn(10, 10, requires_grad=True)
    y = x + 2
    y = y.detach()
    z = y * 4 + 2
    assert not y.requires_grad
    assert not z.requires_grad
    x = lib.randn(10, 10, requires_grad=True)
    y = x * 2
    y = y.detach()
    assert not y.requires_grad
    assert y.grad_fn is None
    z = x + y
    z.sum().backward()
    eq(x.grad, lib.ones(10, 10))
    x = lib.randn(10, 10, requires_grad=True)
    y = lib.randn(10, 10, requires_grad=True)
    a = x * 2
    (y + a).sum().backward(retain_graph=True)
    a.detach_()
    assert not a.requires_grad
    (y + a).sum().backward()
    eq(x.grad, lib.ones(10, 10) * 2)
    eq(y.grad, lib.ones(10, 10) * 2)
    view = x.narrow(0, 1, 4)
    with raises(RuntimeError, "view"):
        view.detach_()


def test_detach_base(lib):
    x = lib.randn(10, 10, requires_grad=True)
    view = x.narrow(0, 1, 4)
    x.detach_()
    assert not x.requires_grad
    assert view.requires_grad
    assert view.grad_fn is not None
    assert view._base is x


def test_detach_then_inplace_raises_in_autograd(lib):
    x = lib.randn([], requires_grad=True)
    orig_x = x.detach().clone()
    y = x ** 2
    z = x.detach()
    z.zero_()
    with raises(RuntimeError, "has been modified by an inplace"):
        y.backward()


def test_type_conversions(lib):
    Variable = lib.autograd.Variable
    x = lib.randn(5, 5)
    assert isinstance(x.float(), lib.FloatTensor)
    assert isinstance(x.int(), lib.IntTensor)
    for t in [lib.DoubleTensor, lib.FloatTensor, lib.IntTensor, lib.ByteTensor]:
        for y_var in (True, False):
            y = lib.randint(5, (5, 5), dtype=t.dtype)
            y = Variable(y) if y_var else y
            assert isinstance(x.type(t), t)
            assert isinstance(x.type_as(y), t)
            t_dtype = t().dtype
            assert isinstance(x.type(t_dtype), t)
            assert t_dtype is x.type(t_dtype).dtype
            assert y.data_ptr() == y.type(t).data_ptr()
    fvar = Variable(lib.randn(5, 5).float(), requires_grad=True)
    fvar.double().sum().backward()
    eq(fvar.grad, lib.ones_like(fvar))
    assert type(fvar.grad) is type(fvar)
    dvar = Variable(lib.randn(5, 5).double(), requires_grad=True)
    dvar.float().sum().backward()
    eq(dvar.grad, lib.ones_like(dvar))
    assert type(dvar.grad) is type(dvar)


def test_isolated_node(lib):
    x = lib.randn(5, 5, requires_grad=True)
    y = lib.randn(5, 5, requires_grad=True)
    a = x + y
    b = lib.max(a, 1, True)[1].repeat(1, 5).double()
    o = (b + a).sum()
    o.backward()


def test_shape(lib):
    x = lib.randn(3, 4)
    assert len(x.shape) == 2
    assert x.shape[0] == 3
    assert x.shape[1] == 4


def test_numpy_requires_grad(lib):
    # (the issue's case: x.numpy() is allowed under no_grad)
    x = lib.randn(2, 2, requires_grad=True)
    with raises(RuntimeError, r"Can't call numpy\(\) on Tensor that requires grad. Use "
                              r"tensor.detach\(\).numpy\(\) instead."):
        x.numpy()
    with lib.no_grad():
        x.numpy()
    x = lib.randn(2, 2)
    x.numpy()
    with lib.no_grad():
        x.numpy()


def test_return_leaf(lib):
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a, a + b

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            return grad_a + grad_b, grad_b

    hook_called = [False]
    x = lib.randn(5, 5, requires_grad=True)
    y = lib.randn(5, 5, requires_grad=True)
    q, p = Identity.apply(x, y)

    def hook(grad):
        hook_called[0] = True
        eq(grad, lib.ones(5, 5))

    q.register_hook(hook)
    (q + p + x).sum().backward()
    eq(x.grad, lib.ones(5, 5) * 3)
    eq(y.grad, lib.ones(5, 5))
    assert hook_called[0]


def test_return_leaf_inplace(lib):
    class Inplace(lib.autograd.function.InplaceFunction):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_dirty(a)
            return a.add_(b), b + 2

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            return grad_a, grad_a + grad_b

    x = lib.randn(5, 5)
    y = lib.randn(5, 5, requires_grad=True)
    q, p = Inplace.apply(x, y)
    assert q is x
    assert q.grad_fn.__class__ is Inplace._backward_cls
    assert q.requires_grad
    q.sum().backward()
    eq(y.grad, lib.ones(5, 5))


def test_leaf_assignment(lib):
    x = lib.randn(5, 5)
    y = lib.randn(5, requires_grad=True)
    z = lib.randn(5, requires_grad=True)
    x[0] = y
    x[1] = 2 * z
    assert x.requires_grad
    assert x.grad_fn is not None
    x.sum().backward()
    eq(y.grad, lib.ones(5))
    eq(z.grad, lib.ones(5) * 2)


def test_no_grad_assignment(lib):
    x = lib.randn(5, 5, requires_grad=True)
    y = lib.randn(5)
    with lib.no_grad():
        x[0] = y
    assert x.requires_grad
    assert x.grad_fn is None


def test_no_grad_modifies_version(lib):
    x = lib.randn(5, requires_grad=True)
    y = lib.randn(5, requires_grad=True)
    z = (x * y).sum()
    with lib.no_grad():
        x *= 2
    with raises(RuntimeError, "modified by an inplace operation"):
        z.backward()


def test_increment_version(lib):
    a = lib.rand(5, requires_grad=True)
    v = a._version
    lib.autograd.graph.increment_version(a)
    assert a._version == v + 1
    a = lib.zeros(5, dtype=lib.int)
    v = a._version
    lib.autograd.graph.increment_version(a)
    assert a._version == v + 1
    with lib.inference_mode():
        a = lib.rand(5, requires_grad=True)
        lib.autograd.graph.increment_version(a)
    lib.autograd.graph.increment_version(a)


def test_no_grad_input(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(self, x):
            return x

        @staticmethod
        def backward(self, grad_output):
            return grad_output

    x = lib.randn(5, requires_grad=True)
    with lib.no_grad():
        y = MyFunction.apply(x)
    assert x.requires_grad
    assert y.grad_fn is None


def test_backward_copy(lib):
    x = lib.ones(5, 5, requires_grad=True)
    y = lib.ones(5, 5, requires_grad=True)
    a = x + 2
    b = y + 2
    c = x + 2
    add1 = a + b
    add2 = add1 + c
    for _ in range(4):
        a = a * 2
        b = b * 2
        c = c * 2
    branch = a + b + c
    out = add2 + branch
    grad_output = lib.ones(5, 5)
    out.backward(grad_output)
    eq(x.grad, lib.ones(5, 5) * 34)
    eq(y.grad, lib.ones(5, 5) * 17)


def test_save_none_for_backward(lib):
    class MyFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(None, input, None)
            return input * input

        @staticmethod
        def backward(ctx, grad_output):
            n1, input, n2 = ctx.saved_tensors
            assert n1 is None
            assert n2 is None
            return 2 * input * grad_output

    x = lib.randn(5, 5, requires_grad=True)
    y = MyFn.apply(x)
    y.sum().backward()
    eq(x.grad, 2 * x)


def test_too_many_grads(lib):
    class MyFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            return input

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output, None, None

    x = lib.randn(5, 5, requires_grad=True)
    y = MyFn.apply(x)
    y.sum().backward()
    eq(x.grad, lib.ones_like(x))


def test_pickle(lib):
    import pickle
    x = lib.randn(10, 10, requires_grad=True)
    y = lib.randn(10, 10, requires_grad=False)

    def assert_strict_equal(var1, var2):
        eq(var1, var2)
        assert var1.requires_grad == var2.requires_grad

    serialized = [pickle.dumps([x, y], protocol=p) for p in range(3)]
    for dump in serialized:
        xc, yc = pickle.loads(dump)
        assert_strict_equal(xc, x)
        assert_strict_equal(yc, y)


def test_dep_nograd(lib):
    class F1(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            out = lib.randn(input.size())
            ctx.mark_non_differentiable(out)
            return input, out

        @staticmethod
        def backward(ctx, grad_output, ignored):
            return grad_output

    class F2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input, ignored):
            return input

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output, None

    x = lib.randn(5, requires_grad=True)
    a, b = F1.apply(x)
    b = b + 1
    assert a.requires_grad
    assert not b.requires_grad
    c = F2.apply(a, b)
    c.backward(lib.ones(c.size()))
    eq(x.grad, lib.ones(x.size()))


def test_set_grad_enabled(lib):
    x = lib.tensor([1.0], requires_grad=True)
    with lib.set_grad_enabled(False):
        y = x * 2
    assert not y.requires_grad
    with lib.set_grad_enabled(True):
        y = x * 2
    assert y.requires_grad
    with lib.set_grad_enabled(False):
        lib.set_grad_enabled(True)
        y = x * 2
    assert y.requires_grad


def test_set_grad_enabled_wraps(lib):
    for decorator in [True, False]:
        with lib.enable_grad():
            assert lib.is_grad_enabled()
            if decorator:
                @lib.set_grad_enabled(False)
                def inner_func(x):
                    return x.sin()
            else:
                def inner_func(x):
                    return x.sin()

                obj = lib.set_grad_enabled(False)
                assert not lib.is_grad_enabled()
                inner_func = obj(inner_func)
                assert lib.is_grad_enabled()
            assert lib.is_grad_enabled()
            x = lib.zeros(1, requires_grad=True)
            assert not inner_func(x).requires_grad


def test_simple_reentrant(lib):
    Variable = lib.autograd.Variable
    y_data = lib.randn(2, 2)

    class Reenter(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = Variable(x, requires_grad=True)
                ctx.y = Variable(y_data, requires_grad=True)
                ctx.output_var = ctx.x * ctx.y
            return ctx.output_var.detach()

        @staticmethod
        def backward(ctx, grad_output):
            with lib.enable_grad():
                ctx.output_var.sum().backward()
            return ctx.x.grad * grad_output

    x = lib.randn(2, 2, requires_grad=True)
    out = Reenter.apply(x)
    out.sum().backward()
    eq(x.grad, y_data)


def test_reentrant_child_error(lib):
    a = lib.rand(3, 3, requires_grad=True)
    c = a * a
    b = lib.rand(3, 3, requires_grad=True)
    e = b * b
    f = _simulate_backward_error(lib).apply(e)
    reentrant_root = f.sum()

    class ReentrantFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp.clone()

        @staticmethod
        def backward(ctx, grad):
            reentrant_root.backward()
            return grad

    d = ReentrantFunc.apply(c)
    with raises(Exception, "Simulate error"):
        d.sum().backward()


def test_var_mean_differentiable(lib):
    dim = [2, 4]
    keepdim = False
    input1 = lib.randn(3, 4, 5, 6, 2, 3, requires_grad=True)
    input2 = deepcopy(input1)
    var1, mean1 = lib.var_mean(input1, dim=dim, keepdim=keepdim)
    var2 = input2.var(dim=dim, keepdim=keepdim)
    mean2 = input2.mean(dim=dim, keepdim=keepdim)
    grad = lib.randn(3, 4, 6, 3, requires_grad=True)
    r1 = var1 * var1 * mean1 * mean1
    r2 = var2 * var2 * mean2 * mean2
    eq(r1, r2, rtol=0.01, atol=0.0)
    lib.autograd.backward(r1, grad)
    lib.autograd.backward(r2, grad)
    eq(input1.grad, input2.grad, rtol=0.01, atol=0.0)


def test_variable_traverse(lib):
    def get_out_and_unrefed_cycle():
        inp = lib.randn(10, requires_grad=True)
        tmp = inp.view(10, 1)
        out = tmp.view(10)
        my_list = []
        my_list.append(tmp)
        my_list.append(my_list)
        return out

    out = get_out_and_unrefed_cycle()
    gc.collect()
    out.backward(lib.randn(out.size()))


def test_pow_zero_tensor_gradient(lib):
    def run_test(input_size, exponent):
        input = lib.zeros(*input_size, requires_grad=True)
        input.pow(exponent).sum().backward()
        eq(input.grad.abs().sum(), 0)

    run_test((10,), lib.zeros(10))
    run_test((10, 10), lib.zeros(10, 10))
    run_test((10,), 0)


def test_pow_gradients_at_zero(lib):
    # (the issue's case, checked against torch: 0 where torch gives 0, -inf where -inf)
    got = []
    for e in (0.0, 0.5, 1.0, 2.0, -0.5, -1.0):
        x = lib.tensor(0.0, requires_grad=True)
        y = lib.tensor(e, requires_grad=True)
        (x ** y).backward()
        got.append((x.grad.item(), y.grad.item()))
        x = lib.tensor(0.0, requires_grad=True)
        (x ** e).backward()
        got.append(x.grad.item())
        y = lib.tensor(e, requires_grad=True)
        (0.0 ** y).backward()
        got.append(y.grad.item())
    inf = float('inf')
    assert got == [(0.0, 0.0), 0.0, 0.0, (inf, 0.0), inf, 0.0, (1.0, 0.0), 1.0, 0.0,
                   (0.0, 0.0), 0.0, 0.0, (-inf, -inf), -inf, -inf, (-inf, -inf), -inf, -inf]


def test_backward_hook_relative_ordering(lib):
    order = []

    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(10, 10)

        def forward(self, x):
            return self.linear(x)

    x = lib.randn(10, 10, requires_grad=True)
    module = MyModule()
    module.register_full_backward_hook(lambda _1, _2, _3: order.append(
        "module_full_backward_hook_BackwardHookFunctionBackward0"))

    def make_pre_hook(id):
        return lambda _: order.append(f"pre_hook_{id}")

    def make_post_hook(id):
        return lambda _1, _2: order.append(f"post_hook_{id}")

    count = 0

    def register_hooks_on_all_nodes(nodes):
        nonlocal count
        for node, _ in nodes:
            count += 1
            id = f"{node.name()}_{count}"
            node.register_prehook(make_pre_hook(id))
            node.register_hook(make_post_hook(id))
            register_hooks_on_all_nodes(node.next_functions)

    loss = module(x).sum()
    register_hooks_on_all_nodes(((loss.grad_fn, None),))

    def make_tensor_pre_hook(id):
        return lambda _: order.append(f"tensor_pre_hook_{id}")

    def make_post_acc_grad_hook(id):
        return lambda _: order.append(f"post_acc_grad_hook_{id}")

    x.register_hook(make_tensor_pre_hook("x"))
    module.linear.weight.register_hook(make_tensor_pre_hook("weight"))
    module.linear.bias.register_hook(make_tensor_pre_hook("bias"))
    x.register_post_accumulate_grad_hook(make_post_acc_grad_hook("x"))
    module.linear.weight.register_post_accumulate_grad_hook(make_post_acc_grad_hook("weight"))
    module.linear.bias.register_post_accumulate_grad_hook(make_post_acc_grad_hook("bias"))
    loss.backward()
    expected_order = [
        "pre_hook_SumBackward0_1",
        "post_hook_SumBackward0_1",
        "pre_hook_BackwardHookFunctionBackward_2",
        "post_hook_BackwardHookFunctionBackward_2",
        "pre_hook_AddmmBackward0_3",
        "post_hook_AddmmBackward0_3",
        "tensor_pre_hook_bias",
        "pre_hook_torch::autograd::AccumulateGrad_4",
        "post_acc_grad_hook_bias",
        "post_hook_torch::autograd::AccumulateGrad_4",
        "pre_hook_TBackward0_7",
        "post_hook_TBackward0_7",
        "tensor_pre_hook_weight",
        "pre_hook_torch::autograd::AccumulateGrad_8",
        "post_acc_grad_hook_weight",
        "post_hook_torch::autograd::AccumulateGrad_8",
        "pre_hook_BackwardHookFunctionBackward_5",
        "module_full_backward_hook_BackwardHookFunctionBackward0",
        "post_hook_BackwardHookFunctionBackward_5",
        "tensor_pre_hook_x",
        "pre_hook_torch::autograd::AccumulateGrad_6",
        "post_acc_grad_hook_x",
        "post_hook_torch::autograd::AccumulateGrad_6",
    ]
    assert order == expected_order


def test_dir(lib):
    x = lib.randn(10, 10)
    keys = dir(x)
    assert "shape" in keys
    y = lib.randn(10, 10, dtype=lib.cfloat)
    imag_key = "imag"
    with pytest.raises(RuntimeError):
        hasattr(x, imag_key)
    assert hasattr(y, imag_key)
    keys.remove(imag_key)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for key in keys:
            assert hasattr(x, key), key


def test_inplace_on_view_saved_output(lib):
    dealloc = [0]

    class IncrementOnDelete:
        def __del__(self):
            dealloc[0] += 1

    def test():
        root = lib.randn(3, 3, requires_grad=True)
        copy = root.clone()
        copy.grad_fn.register_hook(IncrementOnDelete())
        view = copy.view(9)
        lib.nn.functional.relu(view, inplace=True)

    test()
    assert dealloc[0] == 1


def test_inplace_on_view_leaf_errors(lib):
    x = lib.zeros(1, requires_grad=True)
    y = x.view_as(x)
    with raises(RuntimeError, "a view of a leaf Variable that requires grad is being used in "
                              "an in-place operation."):
        y.add_(1)


def test_inplace_on_view_backward(lib):
    nn = lib.nn
    net = nn.Sequential(nn.InstanceNorm2d(2), nn.ReLU(True))
    x = lib.tensor([[[[1.0, 1.0]]]], requires_grad=True)
    (g,) = lib.autograd.grad(net(x).pow(2), [x], grad_outputs=x.new_ones(x.shape),
                             create_graph=True)
    lib.autograd.grad(g.sum(), [x])
    eq(x, lib.tensor([[[[1.0, 1.0]]]]))
    inputs = lib.ones((1, 3, 256, 256), requires_grad=True)
    tmp1 = (inputs + 1).view_as(inputs)
    tmp2 = lib.nn.functional.threshold(tmp1, 0.0, 0.0, True)
    prob_interpolated = lib.sigmoid(tmp2)
    gradients = lib.autograd.grad(outputs=prob_interpolated, inputs=inputs,
                                  grad_outputs=lib.ones(prob_interpolated.size()),
                                  create_graph=True, retain_graph=True)[0]
    gradient_penalty = gradients.sum()
    gradient_penalty.backward()
    fn = gradient_penalty.grad_fn.next_functions[0][0].next_functions[1][0]
    assert fn.name() == "ThresholdBackwardBackward0"


def test_inplace_on_view_weak_grad_fn(lib):
    a = lib.arange(10.0, requires_grad=True)
    b = a.narrow(0, 0, 2).clone().view(-1)
    b.relu_()
    c = b.clone()
    del b
    gc.collect()
    s = c.sum()
    s.backward()
    eq(s, lib.tensor(1.0))
    a = lib.rand(10, requires_grad=True).narrow(0, 0, 10)
    with pytest.raises(RuntimeError):
        b = a.relu_()


def test_out_variant_raises_when_inputs_require_grad(lib):
    # (the issue's case: out= with inputs that require grad raises)
    a = lib.randn(2, 2, requires_grad=True)
    b = lib.randn(2, 2, requires_grad=True)
    x = lib.zeros_like(a)
    with raises(RuntimeError, "out="):
        lib.mul(a, b, out=x)
    with lib.no_grad():
        lib.mul(a, b, out=x)
        eq(x, a * b)
    a = lib.randn(2, 2)
    b = lib.randn(2, 2)
    x = lib.zeros(2, 2, requires_grad=True)
    with raises(RuntimeError, "out="):
        lib.mul(a, b, out=x)


def test_anomaly_detect_nan(lib):
    size = 10
    detect_anomaly = lib.autograd.detect_anomaly

    class MyFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp1, inp2, fail_0th):
            ctx.fail_0th = fail_0th
            return inp1.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, gO):
            gI = gO.clone().expand(size)
            gI[0] = 0
            gI[0] /= 0
            if ctx.fail_0th:
                return gI, None, None
            return None, gI, None

    inp = lib.rand(size, requires_grad=True)
    out = MyFunc.apply(inp, inp, True)
    out.backward()
    inp = lib.rand(size, requires_grad=True)
    out = MyFunc.apply(inp, inp, True)
    with raises(RuntimeError, "Function 'MyFuncBackward' returned nan values in its 0th "
                              "output."):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with detect_anomaly():
                out.backward()
    assert any("No forward pass information" in str(x.message) for x in w)
    inp = lib.rand(size, requires_grad=True)
    with raises(RuntimeError, "Function 'MyFuncBackward' returned nan values in its 1th "
                              "output."):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with detect_anomaly():
                out = MyFunc.apply(inp, inp, False)
                out.backward()
    assert any("MyFunc.apply" in str(x.message) for x in w)


def test_nested_anomaly_detect_nan(lib):
    size = 10
    detect_anomaly = lib.autograd.detect_anomaly

    class MyFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp1, fail_0th):
            ctx.fail_0th = fail_0th
            ctx.save_for_backward(inp1)
            return inp1.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, gO):
            (inp,) = ctx.saved_tensors
            fail_0th = ctx.fail_0th
            g = gO.clone().expand(size)
            gI = MyFunc2.apply(g * inp, g + inp, fail_0th)
            return gI, None

    class MyFunc2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp1, inp2, fail_0th):
            ctx.fail_0th = fail_0th
            return inp1 * 2.0 + inp2

        @staticmethod
        def backward(ctx, gO):
            fail_0th = ctx.fail_0th
            g1 = gO.clone()
            g2 = gO.clone()
            g1[0] = 0
            g2[0] = 0
            if fail_0th:
                g1[0] /= 0
            else:
                g2[0] /= 0
            return g1, g2, None

    inp = lib.rand(size, requires_grad=True)
    out = MyFunc.apply(inp, True)
    (ginp,) = lib.autograd.grad(out, (inp,), create_graph=True)
    gsum = ginp.sum()
    gsum.backward()
    inp = lib.rand(size, requires_grad=True)
    out = MyFunc.apply(inp, True)
    (ginp,) = lib.autograd.grad(out, (inp,), create_graph=True)
    gsum = ginp.sum()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        with raises(RuntimeError, "Function 'MyFunc2Backward' returned nan values in its 0th "
                                  "output."):
            with detect_anomaly():
                gsum.backward()
    assert "No forward pass information" in str(w[1].message)
    inp = lib.rand(size, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        with raises(RuntimeError, "Function 'MyFunc2Backward' returned nan values in its 1th "
                                  "output."):
            with detect_anomaly():
                out = MyFunc.apply(inp, False)
                (ginp,) = lib.autograd.grad(out, (inp,), create_graph=True)
                gsum = ginp.sum()
                gsum.backward()
    assert "MyFunc2.apply" in str(w[1].message)
    assert "MyFunc.apply" in str(w[2].message)


def test_anomaly_grad_warnings(lib):
    import io
    import sys
    detect_anomaly = lib.autograd.detect_anomaly

    class StdErrDiverter:
        def __enter__(self):
            self.stderr_orig = sys.stderr
            self.stderr_new = io.StringIO()
            sys.stderr = self.stderr_new
            return self

        def __exit__(self, *args):
            self.captured = self.stderr_new.getvalue()
            sys.stderr = self.stderr_orig

    with raises(RuntimeError, "one of the variables needed for gradient computation has been "
                              "modified by an inplace operation"):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with detect_anomaly():
                a = lib.randn(5, requires_grad=True)
                d1 = a + 1
                d2 = d1 ** 2
                d1 += 1
                lib.autograd.grad(d2.sum(), a)
    assert len(w) == 2
    assert "Anomaly Detection has been enabled" in str(w[0].message)
    assert "Error detected in PowBackward0" in str(w[1].message)
    with raises(RuntimeError, "one of the variables needed for gradient computation has been "
                              "modified by an inplace operation"):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with detect_anomaly():
                warnings.simplefilter("error")
                with StdErrDiverter() as s:
                    a = lib.randn(5, requires_grad=True)
                    d1 = a + 1
                    d2 = d1 ** 2
                    d1 += 1
                    lib.autograd.grad(d2.sum(), a)
    assert len(w) == 1
    assert "Anomaly Detection has been enabled" in str(w[0].message)
    assert "Error detected in PowBackward0" in s.captured


def test_anomaly_assign_parent_cleanup(lib):
    detect_anomaly = lib.autograd.detect_anomaly

    def get_ref():
        x = lib.randn(2, 2, requires_grad=True)
        t = x.exp()
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with detect_anomaly():
                grad = lib.autograd.grad(t, x, lib.ones_like(t), create_graph=True)

        class Foo:
            pass

        my_obj = Foo()
        meta_dict = t.grad_fn.metadata
        meta_dict[0] = my_obj
        ref = weakref.ref(my_obj)
        return t, ref

    t, ref = get_ref()
    assert ref() is not None
    del t
    assert ref() is None


def test_nested_anomaly_printstack_cleanup(lib):
    detect_anomaly = lib.autograd.detect_anomaly

    def get_ref():
        class MyFunc(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, gO):
                (x,) = ctx.saved_tensors
                return MyFunc2.apply(x)

        class MyFunc2(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, gO):
                return gO + float("NaN")

        inp = lib.rand(1, requires_grad=True)
        out = MyFunc.apply(inp)
        (ginp,) = lib.autograd.grad(out, (inp,), create_graph=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            with raises(RuntimeError, "Function 'MyFunc2Backward' returned nan values in its "
                                      "0th output."):
                with detect_anomaly():
                    ginp.backward()

        class Foo:
            pass

        my_obj = Foo()
        meta_dict = out.grad_fn.metadata
        meta_dict[0] = my_obj
        ref = weakref.ref(my_obj)
        return out, ref

    t, ref = get_ref()
    assert ref() is not None
    del t
    assert ref() is None


def test_anomaly_mode_no_check_nan(lib):
    class MyFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp.clone()

        @staticmethod
        def backward(ctx, gO):
            return lib.tensor(float("nan")).expand(10, 10)

    def run_fn(a):
        out = MyFunc.apply(a)
        return out.sum()

    with warnings.catch_warnings(record=True):
        warnings.simplefilter('always')
        with lib.autograd.detect_anomaly(check_nan=False):
            inp = lib.rand(10, 10, requires_grad=True)
            out = run_fn(inp)
            out.backward(retain_graph=True)
            with lib.autograd.detect_anomaly(check_nan=True):
                with raises(RuntimeError, "Function 'MyFuncBackward' returned nan values in "
                                          "its 0th output."):
                    out.backward(retain_graph=True)
            out.backward()


def test_no_grad_copy(lib):
    class MyFunc(lib.autograd.Function):
        static_grad_ptr = None

        @staticmethod
        def forward(ctx, inp1, inp2):
            return inp1 + inp2

        @staticmethod
        def backward(ctx, grad):
            MyFunc.static_grad_ptr = grad.data_ptr()
            return grad, grad

    class NonContGradFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp1):
            ctx.size = inp1.size()
            return lib.tensor([1.0])

        @staticmethod
        def backward(ctx, grad):
            return lib.ones(1).expand(ctx.size)

    a = lib.randn(5, 6, requires_grad=True)
    b = lib.randn(5, 6, requires_grad=True)
    NonContGradFunc.apply(MyFunc.apply(a, b)).backward()
    assert not a.grad.data_ptr() == MyFunc.static_grad_ptr
    assert not b.grad.data_ptr() == MyFunc.static_grad_ptr
    a.grad = b.grad = None
    MyFunc.apply(a, b)[1][0].backward()
    p_g = MyFunc.static_grad_ptr
    p_a = a.grad.data_ptr()
    p_b = b.grad.data_ptr()
    assert not p_a == p_b
    assert p_a == p_g or p_b == p_g


def test_gradcheck_single_input(lib):
    def check(fast_mode):
        def f(inp):
            return inp.mul(5)

        gradcheck(lib, f, lib.rand(10, dtype=lib.float64, requires_grad=True),
                  fast_mode=fast_mode)
        gradgradcheck(lib, f, lib.rand(10, dtype=lib.float64, requires_grad=True),
                      fast_mode=fast_mode)

    check(fast_mode=True)
    check(fast_mode=False)


def test_gradcheck_nondeterministic(lib):
    class NonDetFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, jitter=0.0):
            ctx._jitter = jitter
            return x

        @staticmethod
        def backward(ctx, grad_out):
            return (NonDetFunc.apply(grad_out, ctx._jitter)
                    * (1 + lib.rand_like(grad_out) * ctx._jitter), None)

    def check(fast_mode):
        inp = lib.randn(5, 5, dtype=lib.double, requires_grad=True)
        gradcheck(lib, lambda x: NonDetFunc.apply(x, 0.0), inp, check_batched_grad=False,
                  fast_mode=fast_mode)
        with raises(RuntimeError, "Backward is not reentrant"):
            gradcheck(lib, lambda x: NonDetFunc.apply(x, 1e-6), inp, check_batched_grad=False,
                      fast_mode=fast_mode)
        with raises(RuntimeError, "Backward is not reentrant"):
            gradgradcheck(lib, lambda x: NonDetFunc.apply(x, 1e-12), inp,
                          check_batched_grad=False, fast_mode=fast_mode)
        gradcheck(lib, lambda x: NonDetFunc.apply(x, 0.0), inp, nondet_tol=1e-5,
                  check_batched_grad=False, fast_mode=fast_mode)
        gradcheck(lib, lambda x: NonDetFunc.apply(x, 1e-6), inp, nondet_tol=1e-5,
                  check_batched_grad=False, fast_mode=fast_mode)
        gradgradcheck(lib, lambda x: NonDetFunc.apply(x, 1e-12), inp, nondet_tol=1e-5,
                      check_batched_grad=False, fast_mode=fast_mode)

    check(fast_mode=True)
    check(fast_mode=False)


def test_gradcheck_validates_inputs(lib):
    # (upstream's sparse half: in test_autograd_sparse_upstream.py)
    def check(fast_mode):
        x = lib.rand(10, requires_grad=False)
        with raises(ValueError, "at least one input tensor to require gradient"):
            gradcheck(lib, lambda x: x, (x,), raise_exception=False, fast_mode=fast_mode)
        x = lib.ones(1, dtype=lib.float32, requires_grad=True)
        with warns(UserWarning, "Input #0 requires gradient and is not a double precision"):
            assert gradcheck(lib, lambda x: x, (x,), atol=1e-1, fast_mode=fast_mode)
        # (the issue's case: a stride-0 input is refused with torch's message)
        x = lib.ones(1, dtype=lib.float64, requires_grad=True)
        x = x.expand((2, 2))
        with raises(RuntimeError, "The 0th input has a dimension with stride 0"):
            gradcheck(lib, lambda x: x, (x,), raise_exception=False, fast_mode=fast_mode)

    check(fast_mode=True)
    check(fast_mode=False)


def test_gradcheck_check_no_differentiable_outputs(lib):
    def check(fast_mode):
        x = lib.ones((1,), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with raises(RuntimeError, "Numerical gradient for function expected to be zero"):
                gradcheck(lib, lambda x: lib.tensor([x]), x)
            assert not gradcheck(lib, lambda x: lib.tensor([x]), x, raise_exception=False,
                                 fast_mode=fast_mode)
            assert gradcheck(lib, lambda x: (), (x,), fast_mode=fast_mode)

    check(fast_mode=True)
    check(fast_mode=False)


def test_gradcheck_backward_mul_by_grad_output(lib):
    # (upstream's sparse cases: in test_autograd_sparse_upstream.py)
    def check(fast_mode):
        def fn2(x):
            y = x.clone()
            y.register_hook(lambda x: x + 1e-2)
            return y

        x = lib.ones(1, dtype=lib.double, requires_grad=True)
        with raises(RuntimeError, "backward not multiplied by grad_output"):
            gradcheck(lib, fn2, (x,), atol=1e-1, fast_mode=fast_mode)
        assert not gradcheck(lib, fn2, (x,), atol=1e-1, raise_exception=False,
                             fast_mode=fast_mode)

    check(fast_mode=True)
    check(fast_mode=False)


def test_gradcheck_undefined_grad(lib):
    # (the issue's undefined-output-gradient check)
    def check(fast_mode):
        def fn(x):
            def hook(x):
                if x is None:
                    raise RuntimeError("x is undefined")

            y = x.clone()
            y.register_hook(hook)
            return y

        x = lib.ones(1, dtype=lib.double, requires_grad=True)
        with warns(UserWarning, "Backwards compatibility: New undefined gradient support "
                                "checking feature"):
            with raises(RuntimeError, "Expected backward function to handle undefined output "
                                      "grads"):
                gradcheck(lib, fn, (x,), fast_mode=fast_mode)
            assert not gradcheck(lib, fn, (x,), raise_exception=False, fast_mode=fast_mode)

    check(fast_mode=True)
    check(fast_mode=False)


def test_gradcheck_jacobian_mismatch(lib):
    def check(fast_mode):
        def fn(x):
            y = x.clone()
            y.register_hook(lambda x: x + 1e-2)
            return y

        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # (float32 input warning)
            x = lib.ones(2, 2, requires_grad=True)
            with raises(RuntimeError, "Jacobian mismatch for output 0 with respect to input 0"):
                gradcheck(lib, fn, (x,), fast_mode=fast_mode)
            assert not gradcheck(lib, fn, (x,), raise_exception=False, fast_mode=fast_mode)
            x_c = lib.ones(2, 2, requires_grad=True, dtype=lib.complex128)
            with raises(RuntimeError, "While considering the imaginary part of complex outputs "
                                      "only"):
                gradcheck(lib, fn, (x_c,), fast_mode=False)
            assert not gradcheck(lib, fn, (x_c,), raise_exception=False, fast_mode=False)

            def fn2(x):
                y = lib.complex(x, x)
                y.register_hook(lambda x: x + 1e-2)
                return y

            x = lib.ones(2, 2, requires_grad=True)
            with raises(RuntimeError, "While considering the imaginary part of complex outputs "
                                      "only"):
                gradcheck(lib, fn2, (x,), fast_mode=False)
            assert not gradcheck(lib, fn2, (x,), raise_exception=False, fast_mode=False)

            def fn3(x):
                y = lib.real(x)
                y.register_hook(lambda x: x + 1e-2)
                return y

            with raises(RuntimeError, "Jacobian mismatch for output 0 with respect to input 0"):
                gradcheck(lib, fn3, (x_c,), fast_mode=False)
            assert not gradcheck(lib, fn3, (x_c,), raise_exception=False, fast_mode=False)

    check(fast_mode=True)
    check(fast_mode=False)


def test_gradcheck_output_shape_or_dtype_depend_on_values(lib):
    # (the issue's case: outputs whose shape/dtype depend on the input values are detected)
    def check(fast_mode):
        def fn(x):
            if lib.all(x >= 1):
                return lib.cat([x, x])
            return x

        a = lib.ones(1, dtype=lib.double, requires_grad=True)
        with raises(AssertionError, "return outputs with the same shape when inputs are "
                                    "perturbed"):
            assert gradcheck(lib, fn, (a,), fast_mode=fast_mode)

        def fn2(x):
            if lib.all(x >= 1):
                return x.to(lib.float32)
            return x

        with raises(AssertionError, "return outputs with the same dtype when inputs are "
                                    "perturbed"):
            assert gradcheck(lib, fn2, (a,), fast_mode=fast_mode)

    check(fast_mode=True)
    check(fast_mode=False)


def test_gradcheck_complex_non_complex_outputs(lib):
    def fn(x, y):
        z = lib.complex(x, y)
        return z, x + 1

    a = lib.ones(2, 2, requires_grad=True, dtype=lib.float64)
    b = lib.ones(2, 2, requires_grad=True, dtype=lib.float64)
    assert gradcheck(lib, fn, (a, b))

    def fn2(z):
        return z, lib.real(z)

    c = lib.ones(2, 2, requires_grad=True, dtype=lib.complex128)
    assert gradcheck(lib, fn2, (c))


def test_gradcheck_adjusted_atol_complex_inputs(lib):
    # (the input torch draws after manual_seed(97), given to both libraries: ember's
    # generator draws other numbers, and the test is about this input)
    torch.manual_seed(97)
    drawn = torch.rand(2, dtype=torch.complex128).numpy()

    def sample_func(z):
        return 1.0 / lib.norm(z)

    eps = 10e-3
    z = eps * lib.tensor(drawn, requires_grad=True)
    atol = 8.3e-6
    rtol = 1e-9
    assert gradcheck(lib, sample_func, (z,), fast_mode=True, atol=atol, rtol=rtol)
    assert gradcheck(lib, sample_func, (z,), fast_mode=False, atol=atol, rtol=rtol)


def test_gradcheck_get_numerical_jacobian(lib):
    get_numerical_jacobian = import_module(
        lib.__name__ + '.autograd.gradcheck').get_numerical_jacobian

    def fn(inputs):
        x = inputs[0]
        y = inputs[1]
        return 2 * x + y, x + 2 * y

    a = lib.rand(2, 2, requires_grad=True, dtype=lib.float64)
    b = lib.rand(2, 2, requires_grad=True, dtype=lib.float64)
    with warns(FutureWarning, "`get_numerical_jacobian` was part of PyTorch's private API"):
        jacobian = get_numerical_jacobian(fn, (a, b), target=a, eps=1e-6)
    eq(jacobian[0], 2 * lib.eye(4, dtype=lib.double))
    with warns(FutureWarning, "`get_numerical_jacobian` was part of PyTorch's private API"):
        jacobian = get_numerical_jacobian(fn, (a, b), eps=1e-6)
    eq(jacobian[0], 2 * lib.eye(4, dtype=lib.double))
    eq(jacobian[1], 1 * lib.eye(4, dtype=lib.double))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with raises(ValueError, "Expected grad_out to be 1.0"):
            get_numerical_jacobian(fn, (a, b), eps=1e-6, grad_out=2.0)


def test_gradcheck_get_analytical_jacobian(lib):
    get_analytical_jacobian = import_module(
        lib.__name__ + '.autograd.gradcheck').get_analytical_jacobian

    def fn(x, y):
        return 2 * x + y, x + 2 * y

    a = lib.rand(2, 2, requires_grad=True, dtype=lib.float64)
    b = lib.rand(2, 2, requires_grad=True, dtype=lib.float64)
    outputs = fn(a, b)
    with warns(FutureWarning, "`get_analytical_jacobian` was part of PyTorch's private API"):
        jacobians, reentrant, correct_grad_sizes, correct_grad_types = \
            get_analytical_jacobian((a, b), outputs[0])
    eq(jacobians[0], 2 * lib.eye(4, dtype=lib.double))
    eq(jacobians[1], 1 * lib.eye(4, dtype=lib.double))
    assert reentrant

    class NonDetFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, jitter=0.0):
            ctx._jitter = jitter
            return x

        @staticmethod
        def backward(ctx, grad_out):
            return (NonDetFunc.apply(grad_out, ctx._jitter)
                    * (1 + lib.rand_like(grad_out) * ctx._jitter), None)

    outputs = NonDetFunc.apply(a, 1e-6)
    with warns(FutureWarning, "`get_analytical_jacobian` was part of PyTorch's private API"):
        jacobians, reentrant, correct_grad_sizes, correct_grad_types = \
            get_analytical_jacobian((a,), outputs)
    assert not reentrant
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with raises(ValueError, "Expected grad_out to be 1.0"):
            get_analytical_jacobian((a,), outputs, grad_out=2.0)


def test_gradcheck_custom_error(lib):
    GradcheckError = import_module(lib.__name__ + '.autograd.gradcheck').GradcheckError

    def check(fast_mode):
        def fn(x):
            y = x.clone()
            y.register_hook(lambda x: x + 1e-2)
            return y

        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            x = lib.ones(2, 2, requires_grad=True)
            with raises(GradcheckError, "Jacobian mismatch for output 0 with respect to "
                                        "input 0"):
                gradcheck(lib, fn, (x,), fast_mode=fast_mode)
            with raises(RuntimeError, "Jacobian mismatch for output 0 with respect to input 0"):
                gradcheck(lib, fn, (x,), fast_mode=fast_mode)
            assert not gradcheck(lib, fn, (x,), raise_exception=False, fast_mode=fast_mode)

            def fn2(x):
                raise RuntimeError("Not a GradcheckError!")

            with raises(RuntimeError, "Not a GradcheckError!"):
                gradcheck(lib, fn2, (x,), fast_mode=fast_mode, raise_exception=False)

    check(fast_mode=True)
    check(fast_mode=False)


def test_gradcheck_forward_ad(lib):
    fwAD = lib.autograd.forward_ad

    def fn(x, y):
        return x + y, y

    def bad_fn(x, y):
        is_running_forward_ad = fwAD._current_level >= 0
        if is_running_forward_ad:
            y_p, y_d = fwAD.unpack_dual(y)
            y = fwAD.make_dual(y_p, y_d * 1.1)
        return x + y, y

    err_msg = "Jacobian computed with forward mode mismatch for output 0 with respect to input 1"
    for fast_mode in [True, False]:
        x = lib.rand(2, dtype=lib.double, requires_grad=True)
        y = lib.rand(2, dtype=lib.double, requires_grad=True)
        gradcheck(lib, fn, (x, y), check_forward_ad=True, fast_mode=fast_mode)
        with raises(RuntimeError, err_msg):
            gradcheck(lib, bad_fn, (x, y), check_forward_ad=True, fast_mode=fast_mode)

        def basic_mul(x):
            return lib.view_as_real(lib.resolve_conj(x * 1j))

        gradcheck(lib, basic_mul, x, check_forward_ad=True, fast_mode=fast_mode)
        x = lib.rand(2, dtype=lib.cdouble, requires_grad=True)
        gradcheck(lib, fn, (x, y), check_forward_ad=True, fast_mode=fast_mode)
        with raises(RuntimeError, err_msg):
            gradcheck(lib, bad_fn, (x, y), check_forward_ad=True, fast_mode=fast_mode)
        y = lib.rand(2, dtype=lib.cdouble, requires_grad=True)
        gradcheck(lib, fn, (x, y), check_forward_ad=True, fast_mode=fast_mode)
        with raises(RuntimeError, err_msg):
            gradcheck(lib, bad_fn, (x, y), check_forward_ad=True, fast_mode=fast_mode)


def _forward_ad_user_fn(lib, jvp_count=None):
    fwAD = lib.autograd.forward_ad

    class UserFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            if jvp_count is None and fwAD._current_level >= 0:
                assert not x.requires_grad
                assert not y.requires_grad
            return x.clone(), y.clone()

        @staticmethod
        def jvp(ctx, x_t, y_t):
            if jvp_count is not None:
                jvp_count[0] += 1
            return x_t, y_t

    return UserFn


def test_gradcheck_forward_ad_runs_with_no_requires_grad(lib):
    UserFn = _forward_ad_user_fn(lib)
    x = lib.rand(2, dtype=lib.double, requires_grad=True)
    y = lib.rand(2, dtype=lib.double, requires_grad=True)
    common = dict(check_forward_ad=True, check_backward_ad=False, check_batched_grad=False)
    gradcheck(lib, UserFn.apply, (x, y), check_undefined_grad=False,
              check_batched_forward_grad=False, **common)
    gradcheck(lib, UserFn.apply, (x, y), check_undefined_grad=True,
              check_batched_forward_grad=False, **common)
    gradcheck(lib, UserFn.apply, (x, y), check_undefined_grad=True,
              check_batched_forward_grad=True, **common)
    x = lib.rand(2, dtype=lib.double, requires_grad=True)
    y = lib.rand(2, dtype=lib.double, requires_grad=False)
    gradcheck(lib, UserFn.apply, (x, y), check_undefined_grad=True,
              check_batched_forward_grad=True, **common)


def test_gradcheck_forward_ad_respects_requires_grad(lib):
    jvp_count = [0]
    UserFn = _forward_ad_user_fn(lib, jvp_count)
    common = dict(check_forward_ad=True, check_backward_ad=False, check_batched_grad=False)
    x = lib.rand(1, dtype=lib.double, requires_grad=True)
    y = lib.rand(1, dtype=lib.double, requires_grad=True)
    gradcheck(lib, UserFn.apply, (x, y), check_undefined_grad=False,
              check_batched_forward_grad=False, **common)
    assert jvp_count[0] == 2
    jvp_count[0] = 0
    gradcheck(lib, UserFn.apply, (x, y), check_undefined_grad=True,
              check_batched_forward_grad=False, **common)
    assert jvp_count[0] == 6
    jvp_count[0] = 0
    gradcheck(lib, UserFn.apply, (x, y), check_undefined_grad=True,
              check_batched_forward_grad=True, **common)
    assert jvp_count[0] == 12
    jvp_count[0] = 0
    x = lib.rand(1, dtype=lib.double, requires_grad=True)
    y = lib.rand(1, dtype=lib.double, requires_grad=False)
    gradcheck(lib, UserFn.apply, (x, y), check_undefined_grad=True,
              check_batched_forward_grad=True, **common)
    assert jvp_count[0] == 5


def test_gradcheck_check_forward_or_backward_only(lib):
    # (the issue's case: backward is checked before forward mode, so its failure shows)
    fwd_fail_err_msg = "FAIL FWD"
    bwd_fail_err_msg = "FAIL BWD"

    class UserFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, foo, fwd_bad, bwd_bad):
            ctx.fwd_bad = fwd_bad
            ctx.bwd_bad = bwd_bad
            return foo * 2

        @staticmethod
        def vjp(ctx, gO):
            if ctx.bwd_bad:
                raise RuntimeError(bwd_fail_err_msg)
            return 2 * gO, None, None

        @staticmethod
        def jvp(ctx, gI, _1, _2):
            if ctx.fwd_bad:
                raise RuntimeError(fwd_fail_err_msg)
            return 2 * gI

    for fast_mode in (True, False):
        for check_forward_ad in (True, False):
            for check_backward_ad in (True, False):
                for fwd_bad in (True, False):
                    for bwd_bad in (True, False):
                        fwd_should_fail = fwd_bad and check_forward_ad
                        bwd_should_fail = bwd_bad and check_backward_ad

                        def run():
                            gradcheck(lib, UserFn.apply, (x, fwd_bad, bwd_bad),
                                      check_forward_ad=check_forward_ad,
                                      check_backward_ad=check_backward_ad,
                                      check_undefined_grad=check_backward_ad,
                                      check_batched_grad=check_backward_ad,
                                      fast_mode=fast_mode)

                        x = lib.rand(2, dtype=lib.double, requires_grad=True)
                        if not check_forward_ad and not check_backward_ad:
                            with raises(AssertionError, "Expected at least one of"):
                                run()
                            continue
                        if not fwd_should_fail and not bwd_should_fail:
                            run()
                        else:
                            if fwd_should_fail:
                                fail_msg = fwd_fail_err_msg
                            if bwd_should_fail:
                                fail_msg = bwd_fail_err_msg
                            with raises(RuntimeError, fail_msg):
                                run()


def test_version_counter(lib):
    x = lib.randn(1, 2)
    x_saved_version = x._version
    x.add_(1).add_(1)
    assert x._version > x_saved_version
    xz = x[:]
    assert x._version == xz._version
    xz.add_(1)
    assert x._version == xz._version
    x_saved_version = x._version
    x.data = lib.randn(2, 3)
    assert x._version == x_saved_version
    x.add_(1)
    assert x._version > x_saved_version
    assert x._version == xz._version
    xz.add_(1)
    assert x._version == xz._version


def test_set_data_preserve_pyobj(lib):
    a = lib.randn(1, 2)
    b = lib.randn(1, 2)
    b_id_saved = id(b)
    b.data = a
    assert b_id_saved == id(b)


def test_set_data_self_requires_grad(lib):
    a = lib.tensor(1.0, requires_grad=True)
    b = lib.tensor(2.0)
    c = lib.tensor(3, dtype=lib.int64)
    a.data = b
    with raises(RuntimeError, "must be floating point or complex dtype"):
        a.data = c


def test_deep_reentrant(lib):
    Variable = lib.autograd.Variable

    class DeepReentrant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = Variable(x.detach(), requires_grad=True)
                ctx.x = ctx.x - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, x):
            if ctx.x < 0:
                return x
            with lib.enable_grad():
                DeepReentrant.apply(ctx.x).sum().backward()
            return x

    v = lib.tensor(2000.0, requires_grad=True)
    DeepReentrant.apply(v).sum().backward()
    v2 = lib.tensor(200.0, requires_grad=True)
    DeepReentrant.apply(v2).sum().backward()


def test_reentrant_priority(lib):
    Variable = lib.autograd.Variable
    order = []

    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, x):
            order.append("MyFunction")
            return x

    class Reentrant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = Variable(x.detach(), requires_grad=True)
                ctx.x = ctx.x - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, x):
            order.append("Reentrant")
            if ctx.x < 0:
                return x
            with lib.enable_grad():
                Reentrant.apply(ctx.x).backward()
            return x

    a = MyFunction.apply(lib.tensor(6.0, requires_grad=True))
    b = Reentrant.apply(lib.tensor(9.0, requires_grad=True))
    v = a * b
    v.backward()
    assert len(order) == 11
    assert order.count("Reentrant") == 10
    assert order[-1] == "MyFunction"


def test_custom_function_preserve_torch_function_when_return_as_is(lib):
    # (the issue's case: a Tensor subclass returned as-is keeps its type)
    class Custom(lib.Tensor):
        def __init__(self, data):
            super().__init__()
            self._data = data

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            kwargs = {} if kwargs is None else kwargs
            args = tuple(a._data if isinstance(a, cls) else a for a in args)
            out = func(*args, **kwargs)
            if isinstance(out, lib.Tensor):
                out = cls(out)
            return out

    class Fn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            return input

        @staticmethod
        def backward(ctx):
            pass

    x = Custom(lib.randn(2, 3))
    y = Fn.apply(x)
    assert isinstance(y, Custom)


def test_grad_mode_restored_reentrant(lib):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp.clone()

        @staticmethod
        def backward(ctx, go):
            original = lib.is_grad_enabled()
            with lib.enable_grad():
                assert lib.is_grad_enabled()
                foo = lib.rand(go.size(), requires_grad=True)
                (grad,) = lib.autograd.grad(foo ** 3, foo, grad_outputs=go)
                assert lib.is_grad_enabled()
            assert lib.is_grad_enabled() == original
            return grad

    inp = lib.rand(3, requires_grad=True)
    MyFunction.apply(inp).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        MyFunction.apply(inp).sum().backward(create_graph=True)


def test_power_function(lib):
    inf = float('inf')
    a = lib.tensor([0.0, 0.0, 0.0])
    b = lib.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    c = lib.sum(a ** b)
    c.backward()
    eq(b.grad, lib.tensor([-inf, 0.0, 0.0]))
    s = 0
    b = lib.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    c = lib.sum(s ** b)
    c.backward()
    eq(b.grad, lib.tensor([-inf, 0.0, 0.0]))


def test_custom_function_error(lib):
    fwAD = lib.autograd.forward_ad

    class BadFw(lib.autograd.Function):
        @staticmethod
        def backward(ctx, foo):
            return foo

    class BadBw(lib.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            return foo.clone()

    class BadBw2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            return foo.clone()

        @staticmethod
        def backward(ctx, foo):
            return foo

        @staticmethod
        def vjp(ctx, foo):
            return foo

    class BadJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            return foo.clone()

    inp = lib.rand(1, requires_grad=True)
    with raises(NotImplementedError, "must implement the forward"):
        BadFw.apply(inp)
    with raises(RuntimeError, "must implement either the backward"):
        BadBw.apply(inp).sum().backward()
    with raises(RuntimeError, "Implementing both 'backward' and 'vjp'"):
        BadBw2.apply(inp).sum().backward()
    with raises(RuntimeError, "must implement the jvp function"):
        with fwAD.dual_level():
            d = fwAD.make_dual(inp, lib.rand_like(inp))
            res = BadJvp.apply(d)


def test_custom_function_forward_mode_view_checks(lib):
    # (the issue's case: jvp must return a view when forward does)
    flag_to_error = {
        "ok": None,
        "not_a_view": "jvp is not returning a view",
        "not_a_view_of_inp": "jvp is not returning a view of the given",
        "not_a_view_of_inp_base": "jvp is not returning a view of the same base",
    }

    class ViewFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, foo, flag):
            ctx.flag = flag
            ctx.size = foo.size()
            return foo.narrow(0, 0, 2)

        @staticmethod
        def vjp(ctx, gO):
            gI = gO.new_zeros(ctx.size)
            gI.narrow(0, 0, 2).copy_(gO)
            return gI, None

        @staticmethod
        def jvp(ctx, gI, _):
            res = gI.narrow(0, 0, 2)
            if ctx.flag != "ok":
                res = res.clone()
            if ctx.flag in ["not_a_view_of_inp", "not_a_view_of_inp_base"]:
                res = res.view_as(res)
            return res

    inp = lib.rand(4, 4, dtype=lib.double, requires_grad=True)
    for flag, msg in flag_to_error.items():
        def test_fn(inp):
            if flag == "not_a_view_of_inp_base":
                inp = inp.view_as(inp)
            return ViewFn.apply(inp, flag)

        if msg is None:
            gradcheck(lib, test_fn, inp, check_forward_ad=True)
        else:
            with raises(RuntimeError, msg):
                gradcheck(lib, test_fn, inp, check_forward_ad=True)


def test_custom_function_forward_mode_inplace_checks(lib):
    # (the issue's case: a jvp that does not update the tangent in place under mark_dirty)
    class InplaceFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, foo, flag):
            ctx.mark_dirty(foo)
            ctx.flag = flag
            foo.mul_(2)
            return foo

        @staticmethod
        def vjp(ctx, gO):
            return 2 * gO, None

        @staticmethod
        def jvp(ctx, gI, _):
            if ctx.flag:
                return 2 * gI
            gI.mul_(2)
            return gI

    inp = lib.rand(4, 4, dtype=lib.double, requires_grad=True)

    def test_fn(inp, flag):
        inp = inp.clone()
        return InplaceFn.apply(inp, flag)

    gradcheck(lib, test_fn, (inp, False), check_forward_ad=True)
    with raises(RuntimeError, "inplace custom Function is not modifying the forward mode "
                              "gradients inplace"):
        gradcheck(lib, test_fn, (inp, True), check_forward_ad=True)


def test_custom_function_forward_mode_wrong_formula(lib):
    class UserFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, foo, should_fail):
            ctx.should_fail = should_fail
            return foo * 2

        @staticmethod
        def vjp(ctx, gO):
            return 2 * gO, None

        @staticmethod
        def jvp(ctx, gI, _):
            if ctx.should_fail:
                return 3 * gI
            return 2 * gI

    inp = lib.rand(10, dtype=lib.double, requires_grad=True)
    gradcheck(lib, UserFn.apply, (inp, False), check_forward_ad=True)
    with raises(RuntimeError, "Jacobian computed with forward mode mismatch for output 0"):
        gradcheck(lib, UserFn.apply, (inp, True), check_forward_ad=True)


def test_custom_function_forward_mode_non_tensor_before_tensor_args(lib):
    fwAD = lib.autograd.forward_ad

    class MyFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, nt, x, nt2, y):
            return x * 2 + y * 3

        @staticmethod
        def jvp(ctx, nt, x_t, nt2, y_t):
            assert nt is None
            assert nt2 is None
            return x_t * 2 + y_t * 3

    x = lib.tensor(1.0, dtype=lib.double)
    t = lib.tensor(1.0, dtype=lib.double)
    y = lib.tensor(1.0, dtype=lib.double)
    with fwAD.dual_level():
        dual_x = fwAD.make_dual(x, t)
        MyFn.apply(1, dual_x, 1, y)
    gradcheck(lib, MyFn.apply, (1, x.requires_grad_(True), 1, y.requires_grad_(True)),
              check_forward_ad=True, check_backward_ad=False, check_batched_grad=False)


def test_custom_function_forward_mode_forward_is_no_op(lib):
    fwAD = lib.autograd.forward_ad
    error_regex = "A custom Function's forward is returning a view \\(or an input as-is\\)"
    return_lambdas = {"view_as": lambda x: x.view_as(x), "self": lambda x: x,
                      "mul_by_2": lambda x: x * 2}
    for k, fn in return_lambdas.items():
        class MyFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y, x

            @staticmethod
            def vjp(ctx, gO1, gO2):
                return gO1 + gO2, gO1

            @staticmethod
            def jvp(ctx, x_t, y_t):
                return x_t + y_t, fn(x_t)

        a = lib.tensor(1.0, dtype=lib.double, requires_grad=True)
        t = lib.tensor(1.0, dtype=lib.double)
        b = lib.tensor(1.0, dtype=lib.double, requires_grad=True)
        c = lib.tensor(1.0, dtype=lib.double)
        t2 = lib.tensor(1.0, dtype=lib.double)
        d = lib.tensor(1.0, dtype=lib.double)
        with fwAD.dual_level():
            a_dual = fwAD.make_dual(a, t)
            c_dual = fwAD.make_dual(c, t2)
            if k == "view_as":
                _, out2 = MyFn.apply(a_dual, b)
                assert fwAD.unpack_dual(out2).tangent._base is t
                _, out2 = MyFn.apply(c_dual, d)
                assert fwAD.unpack_dual(out2).tangent._base is t2
            else:
                with raises(RuntimeError, error_regex):
                    MyFn.apply(a_dual, b)
                with raises(RuntimeError, error_regex):
                    MyFn.apply(c_dual, d)
        if k == "view_as":
            gradcheck(lib, MyFn.apply, (a, c), check_forward_ad=True)
        else:
            with raises(RuntimeError, error_regex):
                gradcheck(lib, MyFn.apply, (a, c), check_forward_ad=True)


def test_custom_function_save_for_forward(lib):
    fwAD = lib.autograd.forward_ad

    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, z):
            ctx.save_for_backward(x, y)
            ctx.save_for_forward(x, y)
            ctx.z = z
            ctx.prod = x * y
            return z * ctx.prod

        @staticmethod
        def jvp(ctx, x_t, y_t, _):
            x_p, y_p = ctx.saved_tensors
            z = ctx.z
            return z * (y_p * x_t + x_p * y_t)

        @staticmethod
        def vjp(ctx, grad_out):
            x, y = ctx.saved_tensors
            z = ctx.z
            return z * grad_out * y, z * grad_out * x, None

    a = lib.tensor(1.0, requires_grad=True, dtype=lib.double)
    t = lib.tensor(1.0, dtype=lib.double)
    b = lib.tensor(2.0, requires_grad=True, dtype=lib.double)
    c = 4
    with fwAD.dual_level():
        a_dual = fwAD.make_dual(a, t)
        out = Func.apply(a_dual, b, c)
        out.backward()
    gradcheck(lib, Func.apply, (a, b, c), check_forward_ad=True)

    class Func2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def jvp(ctx, x_t):
            assert len(ctx.saved_tensors) == 0
            return x_t

        @staticmethod
        def vjp(ctx, grad_out):
            (x,) = ctx.saved_tensors
            assert len(ctx.saved_tensors) == 1
            return grad_out

    with fwAD.dual_level():
        a_dual = fwAD.make_dual(a, t)
        out = Func2.apply(a_dual)
        out.backward()
    gradcheck(lib, Func2.apply, (a,), check_forward_ad=True)


def test_custom_function_forward_mode_non_differentiable(lib):
    # (the issue's case: an integer output's tangent is None)
    fwAD = lib.autograd.forward_ad

    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            out = y.clone()
            ctx.mark_non_differentiable(out)
            return x.clone(), out

        @staticmethod
        def jvp(ctx, x_tangent, y_tangent):
            return x_tangent, None

    x = lib.tensor(2.0)
    x_tangent = lib.tensor(1.0)
    y = lib.tensor(3.0)
    with fwAD.dual_level():
        x_dual = fwAD.make_dual(x, x_tangent)
        _, out2_dual = Func.apply(x_dual, y)
        assert fwAD.unpack_dual(out2_dual).tangent is None
    y = lib.tensor(3)

    class Func2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x.clone(), y.clone()

        @staticmethod
        def jvp(ctx, x_tangent, y_tangent):
            assert y_tangent is None
            return x_tangent, None

    with fwAD.dual_level():
        x_dual = fwAD.make_dual(x, x_tangent)
        _, out2_dual = Func2.apply(x_dual, y)
        assert fwAD.unpack_dual(out2_dual).tangent is None

    class FuncWrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            out = y.clone()
            ctx.mark_non_differentiable(out)
            return x.clone(), out

        @staticmethod
        def jvp(ctx, x_tangent, y_tangent):
            return x_tangent, x_tangent.clone()

    with fwAD.dual_level():
        x_dual = fwAD.make_dual(x, x_tangent)
        with raises(RuntimeError, "You should return None at that position instead"):
            FuncWrong.apply(x_dual, y)

    class Func3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone(), object(), x.clone()

        @staticmethod
        def jvp(ctx, x_tangent):
            return x_tangent, None, x_tangent

    with fwAD.dual_level():
        x_dual = fwAD.make_dual(x, x_tangent)
        out_dual, _, out2_dual = Func3.apply(x_dual)
        eq(fwAD.unpack_dual(out_dual).tangent, x_tangent)
        eq(fwAD.unpack_dual(out2_dual).tangent, x_tangent)


def test_custom_function_local_inplace(lib):
    class MyFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp, inplace):
            view = inp.clone()[:3]
            if inplace:
                view += 2
            return view

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    base = lib.rand(10, requires_grad=True)
    foo = MyFn.apply(base, False)
    assert foo.grad_fn.__class__.__name__ == "MyFnBackward"
    foo = MyFn.apply(base, True)
    assert foo.grad_fn.__class__.__name__ == "MyFnBackward"


def test_integer_outputs(lib):
    # (upstream's checks of the private torch._unique, torch._VF.unique_dim and
    # torch._unique2 are left out)
    inp = lib.rand(4, requires_grad=True)
    for out in (inp.argmax(), inp.argmin(), inp.argsort()):
        assert not out.dtype.is_floating_point
        assert not out.requires_grad
    val = lib.rand((), requires_grad=True)
    out = lib.searchsorted(inp, val)
    assert not out.dtype.is_floating_point
    assert not out.requires_grad
    bins = lib.linspace(0, 1.0, steps=100, requires_grad=True)
    vals = lib.rand(5, 5, requires_grad=True)
    out = lib.bucketize(vals, bins)
    assert not out.dtype.is_floating_point
    assert not out.requires_grad
    val = lib.empty(5).requires_grad_()
    out = val.count_nonzero()
    assert not out.requires_grad

    def assert_only_first_requires_grad(res):
        if not isinstance(res, tuple):
            res = (res,)
        assert res[0].requires_grad
        for out in res[1:]:
            if out is not None:
                assert not out.requires_grad

    for sort in [True, False]:
        for return_inverse in [True, False]:
            for return_counts in [True, False]:
                assert_only_first_requires_grad(lib.unique(
                    inp, sorted=sort, return_inverse=return_inverse,
                    return_counts=return_counts))
                assert_only_first_requires_grad(lib.unique(
                    inp, sorted=sort, return_inverse=return_inverse,
                    return_counts=return_counts, dim=0))
                assert_only_first_requires_grad(lib.unique_consecutive(
                    inp, return_inverse=return_inverse, return_counts=return_counts))
                assert_only_first_requires_grad(lib.unique_consecutive(
                    inp, return_inverse=return_inverse, return_counts=return_counts, dim=0))


def test_custom_function_cycle(lib):
    class MyFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, metadata):
            x = x.clone()
            ctx.meta = metadata
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, gO):
            (x,) = ctx.saved_tensors
            eq(x, 3.14)
            eq(ctx.meta["foo"], 3.14)
            return gO * x, None

    def get_refs(with_backward):
        a = lib.tensor(3.14, requires_grad=True)
        metadata = {}
        out = MyFn.apply(a, metadata)
        metadata["foo"] = out
        if with_backward:
            out.sum().backward()
            eq(a.grad, a)
        return weakref.ref(out)

    for with_backward in (False, True):
        gc.disable()
        try:
            ref = get_refs(with_backward)
            assert ref() is not None
        finally:
            gc.enable()
        gc.collect()
        assert ref() is None


def test_create_graph_and_full_backward_hook_cycle(lib, warn_always):
    class TestCls:
        pass

    def get_ref(input_requires_grad, nb_hooks):
        t = lib.randn(10, requires_grad=input_requires_grad)
        a = lib.tensor(1.0, requires_grad=True)

        class Test(lib.nn.Module):
            def forward(self, x):
                return x ** 2 * a ** 2

        mod = Test()
        for _ in range(nb_hooks):
            mod.register_full_backward_hook(lambda a, b, c: None)
        tmp = mod(t)
        test = TestCls()
        ref = weakref.ref(test)
        tmp.grad_fn.metadata["a"] = test
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            tmp.exp().sum().backward(create_graph=True)
            assert w
            found = sum("Using backward() with create_graph=True" in str(x.message) for x in w)
            assert found == 1
        a.grad = None
        t.grad = None
        return ref

    for nb_hooks in (1, 2, 3):
        for input_requires_grad in (True, False):
            ref_ = get_ref(input_requires_grad=input_requires_grad, nb_hooks=nb_hooks)
            gc.collect()
            assert ref_() is None


@pytest.mark.parametrize("use_custom_function", [True, False])
@pytest.mark.parametrize("use_tensor_hook", [True, False])
def test_hook_closure_cycle(lib, use_custom_function, use_tensor_hook):
    class Function(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    class Test:
        pass

    count = [0]

    def scope():
        a = lib.tensor(1.0, requires_grad=True)
        if use_custom_function:
            b = Function.apply(a)
        else:
            b = a.clone()
        grad_fn_b = b.grad_fn
        obj = Test()

        def hook(*args):
            grad_fn_b
            obj
            count[0] += 1

        if use_tensor_hook:
            b.register_hook(hook)
        else:
            b.grad_fn.register_hook(hook)
        c = b.clone()
        ref = weakref.ref(obj)
        return c, ref

    gc.disable()
    try:
        out, ref = scope()
        out.backward(retain_graph=True)
        gc.collect()
        out.backward(retain_graph=True)
        assert count[0] == 2
        assert ref() is not None
        del out
        gc.collect()
        assert ref() is None
    finally:
        gc.enable()


def test_full_backward_hook_double_backward(lib):
    x = lib.rand(1, requires_grad=True)
    y = lib.rand_like(x)
    func = lib.nn.MSELoss()
    counter = [0]

    def hook(module, grad_input, grad_output):
        counter[0] += 1

    func.register_full_backward_hook(hook)
    f = func(x, y)
    (gradx_f,) = lib.autograd.grad(f, x, create_graph=True)
    assert counter[0] == 1
    _ = lib.autograd.grad(gradx_f, x)
    assert counter[0] == 1


def test_no_unnecessary_unwrapping(lib):
    a = lib.randn(5, requires_grad=True)
    a_orig = a.detach().clone()
    b = a * a
    c = a * b
    d = lib.exp(a)
    assert b.grad_fn._saved_self is a
    assert b.grad_fn._saved_other is a
    assert c.grad_fn._saved_self is a
    assert c.grad_fn._saved_other is b
    eq(d.grad_fn._saved_result, d)
    assert d.grad_fn._saved_result is not d
    c.sum().backward()
    with raises(RuntimeError, "after they have already been freed"):
        c.grad_fn._saved_self
    eq(a, a_orig)


def test_saved_variable_version_counter(lib):
    a = lib.rand(2, requires_grad=True)
    b = lib.exp(a)
    b_unpacked = b.grad_fn._saved_result
    eq(b, b_unpacked)
    assert b._version == b_unpacked._version
    with lib.no_grad():
        b += 1
    eq(b, b_unpacked)
    assert b._version == b_unpacked._version


def test_autograd_print_tensor(lib):
    a = lib.ones(1, requires_grad=True)
    a_clone = a.clone()
    assert repr(a) == "tensor([1.], requires_grad=True)"
    assert repr(a_clone) == "tensor([1.], grad_fn=<CloneBackward0>)"
    with lib.no_grad():
        b = a[:]
        b *= 2
    assert repr(b) == "tensor([2.], grad_fn=<Invalid>)"

    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, x):
            return x

    c = Func.apply(a)
    assert repr(c) == "tensor([2.], grad_fn=<FuncBackward>)"


def test_autograd_inplace_view_of_view(lib):
    x = lib.zeros(2)
    with lib.no_grad():
        y = x.view(2)
    y.requires_grad_(True)
    z = y.view(2)
    with raises(RuntimeError, "a view of a view .* is being .* inside the no_grad block"):
        z /= 2
    x = lib.zeros(2)
    with lib.inference_mode():
        y = x.view(2)
    y.requires_grad_(True)
    z = y.view(2)
    with raises(RuntimeError, "a view of a view .* is being .* inside the inference_mode"):
        z /= 2


def test_autograd_inplace_views_cross_dtype(lib):
    a_orig = lib.rand(3, 3, requires_grad=True, dtype=lib.complex64)
    a = a_orig.clone()
    b = lib.view_as_real(a)
    b = b.transpose(0, 1)
    b += 1
    b.backward(lib.arange(0, 18, dtype=lib.float).view(3, 3, 2))
    non_inplace_grad = a_orig.grad
    a_orig = lib.rand(3, 3, requires_grad=True, dtype=lib.complex64)
    a = a_orig.clone()
    b = lib.view_as_real(a)
    b.transpose_(0, 1)
    b += 1
    b.backward(lib.arange(0, 18, dtype=lib.float).view(3, 3, 2))
    inplace_grad = a_orig.grad
    # (upstream's TODO: torch's result is transposed, and the test pins that)
    eq(non_inplace_grad.T, inplace_grad)


def test_autograd_multiple_views_python(lib):
    bw_called = [0]

    class ComplexView(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, idx):
            res = a.narrow(0, idx, 1)
            res = a.select(0, idx)
            ctx.save_for_backward(a)
            ctx.idx = idx
            return res

        @staticmethod
        def backward(ctx, grad):
            bw_called[0] += 1
            (a,) = ctx.saved_tensors
            res = lib.zeros_like(a)
            res.select(0, ctx.idx).copy_(grad)
            return res, None

    a = lib.ones(2, requires_grad=True)
    idx = 1
    bw_called[0] = 0
    out = ComplexView.apply(a.clone(), idx)
    out.sum().backward()
    assert bw_called[0] == 1
    out = ComplexView.apply(a.clone(), idx)
    # (upstream's newer text names the node ComplexViewBackward; torch 2.13 names the
    # Function)
    with raises(RuntimeError, "Output 0 of ComplexView is a view and is being modified "
                              "inplace"):
        out += 1


def test_autograd_python_custom_function_inplace(lib):
    # (the issue's mark_dirty rules: a non-input marked dirty warns)
    bw_called = [0]

    class MyAdder(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, grad):
            bw_called[0] += 1
            return grad, grad

    a = lib.ones(2, requires_grad=True)
    b = lib.ones(2, requires_grad=True)
    c = MyAdder.apply(a.clone(), b)
    c.sum().backward()
    assert bw_called[0] == 1
    bw_called[0] = 0
    c = MyAdder.apply(a.clone(), b)
    c += 2
    c.sum().backward()
    assert bw_called[0] == 1
    bw_called[0] = 0
    c = MyAdder.apply(a.clone().view_as(a), b)
    c.sum().backward()
    assert bw_called[0] == 1

    class MyAdderBad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            c = 3 * a
            c.add_(b)
            ctx.mark_dirty(c)
            return c

        @staticmethod
        def backward(ctx, grad):
            bw_called[0] += 1
            grad = 3 * grad
            return grad, grad

    a = lib.ones(2, requires_grad=True)
    b = lib.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        MyAdderBad.apply(a.clone(), b)
    assert len(w) == 1

    class MyBadAdder(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a, a + b

        @staticmethod
        def backward(ctx, ga, gab):
            bw_called[0] += 1
            return ga + gab, ga + gab

    bw_called[0] = 0
    c, d = MyBadAdder.apply(a.clone(), b)
    (c * d).sum().backward()
    assert bw_called[0] == 1
    bw_called[0] = 0
    c, d = MyBadAdder.apply(a.clone(), b)
    c += 2
    (c * d).sum().backward()
    assert bw_called[0] == 1
    with raises(RuntimeError, "your Function modifies inplace an input that is a view of "
                              "another Tensor"):
        c, d = MyBadAdder.apply(a.clone().view_as(a), b)

    class MyOutPlaceAdder(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a.clone(), a + b

        @staticmethod
        def backward(ctx, ga, gab):
            bw_called[0] += 1
            return ga + gab, ga + 2 * gab

    def fn(a, b):
        orig_a = a.clone().view_as(a)
        c, d = MyOutPlaceAdder.apply(orig_a, b)
        return (c * d).sum()

    with raises(RuntimeError, "Some elements marked as dirty during the forward method were "
                              "not returned as output."):
        fn(a, b)


def test_custom_function_mark_dirty_not_differentiable(lib):
    from itertools import product
    fwAD = lib.autograd.forward_ad

    def get_custom_fn(jvp_err):
        class InplaceMul(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                result = x.mul_(2)
                ctx.mark_dirty(result)
                return result

            @staticmethod
            def backward(ctx, grad_output):
                pass

            @staticmethod
            def jvp(ctx, x_t):
                if jvp_err:
                    return x_t
                return x_t.mul_(2)

        return InplaceMul

    for requires_grad, jvp_err in product([True, False], repeat=2):
        InplaceMul = get_custom_fn(jvp_err)
        z = lib.tensor(1.0, requires_grad=requires_grad)
        x = z.clone()
        y = InplaceMul.apply(x)
        assert x is y
        eq(x, z * 2)
        with fwAD.dual_level():
            x_tangent = lib.ones_like(x)
            x_dual = fwAD.make_dual(x, x_tangent)
            if jvp_err:
                with raises(RuntimeError, "jvp function must modify the corresponding gradient "
                                          "inplace"):
                    InplaceMul.apply(x_dual)
            else:
                out_dual = InplaceMul.apply(x_dual)
                _, out_tangent = fwAD.unpack_dual(out_dual)
                assert out_dual is x_dual
                assert out_tangent is x_tangent


def test_custom_function_mark_output_view_of_intermediate(lib):
    # (the issue's case: torch's "not an input" error for an intermediate's view)
    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            out = inp.clone().view_as(inp)
            ctx.mark_dirty(out)
            return out

        @staticmethod
        def backward(ctx, gO):
            pass

    a = lib.tensor([1.0], requires_grad=True)
    a_clone = a.clone()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with raises(RuntimeError, "received a tensor that was not an input."):
            Func.apply(a_clone)


def test_custom_function_inplace_on_non_default_view(lib):
    # (the issue's case: in-place on a split_with_sizes output is refused)
    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            inp.add_(1)
            ctx.mark_dirty(inp)
            return inp

        @staticmethod
        def backward(ctx, gO):
            pass

    a = lib.tensor([1.0, 2.0], requires_grad=True)
    a_clone = a.clone()
    b, c = a.split_with_sizes([1, 1], dim=0)
    with raises(RuntimeError, "output of a function that returns multiple view"):
        Func.apply(b)


def test_custom_function_inplace_on_view_of_leaf(lib):
    # (the issue's case: in-place on a view of a leaf is refused)
    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            inp.add_(1)
            ctx.mark_dirty(inp)
            return inp

        @staticmethod
        def backward(ctx, gO):
            pass

    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a.view_as(a)
    with raises(RuntimeError, "a view of a leaf Variable that requires grad"):
        Func.apply(b)


def test_custom_function_saving_mutated_view_no_leak(lib):
    class Test(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            pass

    def scope():
        x = lib.tensor(1.0, requires_grad=True).clone()
        x = x.view_as(x)
        y = Test.apply(x)
        return weakref.ref(x)

    ref = scope()
    assert ref() is None


def test_custom_function_return_view_in_nograd(lib):
    class Alias(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:]

        @staticmethod
        def backward(ctx, gx):
            return gx

    inp = lib.rand(2, requires_grad=True)
    with lib.no_grad():
        output = Alias.apply(inp)
    with lib.no_grad():
        expected_output = inp[:]
    assert output.requires_grad == expected_output.requires_grad
    with raises(RuntimeError, "A view was created in no_grad mode and is being modified "
                              "inplace"):
        output.zero_()


def test_saved_variable_saved_original_inplace_detach(lib):
    a = lib.tensor(1.0, requires_grad=True).clone()
    b = a.sin()
    a.detach_()
    with raises(RuntimeError, "Trying to use a saved tensor that has been detached"):
        b.backward()
    a = lib.tensor(1.0, requires_grad=True).clone()
    b = a.exp()
    a.detach_()
    b.backward()


def test_setting_default_saved_variable_hooks_twice_should_not_fail(lib):
    hooks = lib.autograd.graph.saved_tensors_hooks
    with hooks(lambda x: x, lambda x: x):
        with hooks(lambda x: x, lambda x: x):
            pass


def test_setting_default_saved_variable_hooks_twice_should_use_inner(lib):
    hooks = lib.autograd.graph.saved_tensors_hooks
    with hooks(lambda x: 3 * x, lambda x: 3 * x):
        b = lib.randn(5, requires_grad=True)
        with hooks(lambda x: 5 * x, lambda x: 5 * x):
            a = lib.randn(5, requires_grad=True)
            y = a * a
        z = b * b
    y.sum().backward()
    z.sum().backward()
    eq(2 * 5 * 5 * a, a.grad)
    eq(2 * 3 * 3 * b, b.grad)


def test_disabling_saved_tensor_hooks(lib):
    # (upstream's checks of torch._C._autograd._saved_tensors_hooks_is_enabled are left out)
    graph = lib.autograd.graph
    with graph.disable_saved_tensors_hooks("error message"):
        with raises(RuntimeError, "error message"):
            with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
    with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        with raises(RuntimeError, "error message"):
            with graph.disable_saved_tensors_hooks("error message"):
                pass


def test_disabling_saved_tensor_hooks_nested(lib):
    graph = lib.autograd.graph
    with graph.disable_saved_tensors_hooks("outer"):
        with graph.disable_saved_tensors_hooks("inner"):
            with raises(RuntimeError, "inner"):
                with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                    pass
        with raises(RuntimeError, "outer"):
            with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
    with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        pass


def test_saved_tensor_hooks_custom_error_propagation(lib):
    class CustomError(Exception):
        pass

    class error_on_pack_hook(lib.autograd.graph.saved_tensors_hooks):
        def __init__(self):
            def pack_hook(x):
                raise CustomError("pack")

            super().__init__(pack_hook, lambda x: x)

    class error_on_unpack_hook(lib.autograd.graph.saved_tensors_hooks):
        def __init__(self):
            def unpack_hook(x):
                raise CustomError("unpack")

            super().__init__(lambda x: x, unpack_hook)

    a = lib.tensor(1.0, requires_grad=True)
    with error_on_pack_hook():
        with raises(CustomError, "pack"):
            out = lib.sin(a)
    with error_on_unpack_hook():
        out = lib.sin(a)
        with raises(CustomError, "unpack"):
            out.backward()


def test_saved_tensor_hooks_custom_function_intermediates(lib):
    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            intermediate = x.exp()
            ctx.save_for_backward(intermediate.clone().detach_().requires_grad_(True))
            return x.exp()

        @staticmethod
        def backward(ctx, grad_out):
            (intermediate,) = ctx.saved_tensors
            return grad_out * intermediate

    a = lib.tensor(1.0, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        out = Func.apply(a)
    out.backward()


def test_unpack_hooks_exec_count(lib):
    def f(x, y):
        return x * y

    counts = {'pack': 0, 'unpack': 0}

    def pack_hook(x):
        counts['pack'] += 1
        return x

    def unpack_hook(x):
        counts['unpack'] += 1
        return x

    x = lib.ones(4, requires_grad=True)
    y = lib.ones(4, requires_grad=False)
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        out_test = f(x, y)
        assert counts == {'pack': 1, 'unpack': 0}
        out_test.sum().backward()
        assert counts == {'pack': 1, 'unpack': 1}


def test_saved_tensors_hook_version_counter_not_shared(lib):
    class Test(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            before = a._version
            x.add_(1)
            assert a._version == before
            return grad_output

    a = lib.tensor(1.0, requires_grad=True)
    a_replacement = a.clone()

    def pack_hook(x):
        return a_replacement

    def unpack_hook(x):
        return x

    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        b = Test.apply(a)
    b.backward()


def test_pack_hook_with_inplace_modification_should_fail(lib):
    a = lib.randn(5, requires_grad=True)

    def inc(x):
        x += 1
        return x

    with lib.autograd.graph.saved_tensors_hooks(inc, lambda x: x):
        with raises(RuntimeError, "A saved tensor pack hook is modifying its input in place."):
            y = lib.exp(a)

    y = lib.exp(a)
    with raises(RuntimeError, "A saved tensor pack hook is modifying its input in place."):
        y.grad_fn._raw_saved_result.register_hooks(inc, lambda x: x)


def test_default_saved_tensors_hooks_double_backward(lib):
    hooks = lib.autograd.graph.saved_tensors_hooks
    with hooks(lambda x: x, lambda x: x):
        a = lib.randn(5, requires_grad=True)
        y = a ** 3
        s = lib.sum(y)
        (g,) = lib.autograd.grad(s, (a,), create_graph=True)
        g.sum().backward()
        eq(6 * a, a.grad)
    with hooks(lambda x: 2 * x, lambda x: x):
        a = lib.randn(5, requires_grad=True)
        y = a ** 3
        s = lib.sum(y)
    (g,) = lib.autograd.grad(s, (a,), create_graph=True)
    g.sum().backward()
    eq(6 * 2 * a, a.grad)
    a = lib.randn(5, requires_grad=True)
    y = a ** 3
    s = lib.sum(y)
    with hooks(lambda x: 2 * x, lambda x: x):
        (g,) = lib.autograd.grad(s, (a,), create_graph=True)
        g.sum().backward()
        eq(6 * 4 * a, a.grad)
    with hooks(lambda x: 2 * x, lambda x: x):
        a = lib.randn(5, requires_grad=True)
        y = a ** 3
        s = lib.sum(y)
        (g,) = lib.autograd.grad(s, (a,), create_graph=True)
        g.sum().backward()
        eq(6 * 8 * a, a.grad)


def test_wrapped_number_saved_tensors_hooks(lib):
    def err_hook(x):
        raise RuntimeError("this hook should not be called")

    with lib.autograd.graph.saved_tensors_hooks(err_hook, err_hook):
        a = lib.randn(5, requires_grad=True)
        out = (a * 3).sum()
        lib.autograd.grad(out, (a,))


def test_save_on_cpu_and_checkpoint(lib):
    checkpoint = import_module(lib.__name__ + '.utils.checkpoint').checkpoint
    a = lib.randn(2, 2, requires_grad=True)
    b = a.pow(2).pow(2).pow(2).pow(2)
    b.sum().backward()
    b_grad = a.grad.clone()
    a.grad.zero_()
    with lib.autograd.graph.save_on_cpu():
        h = a.pow(2)
        h = checkpoint(lambda x: x.pow(2).pow(2), h, use_reentrant=False)
        c = h.pow(2)
    c.sum().backward()
    c_grad = a.grad.clone()
    a.grad.zero_()

    def f(a):
        h = a.pow(2)
        with lib.autograd.graph.save_on_cpu():
            h = h.pow(2).pow(2)
        return h.pow(2)

    d = checkpoint(f, a, use_reentrant=False)
    d.sum().backward()
    d_grad = a.grad.clone()
    eq(b_grad, c_grad)
    eq(b_grad, d_grad)


def test_autograd_views_codegen(lib):
    # (torch 2.13 names the op in the message: "Output 0 of Unbind", where upstream's newer
    # text says UnbindBackward0)
    def run_test(grad_mode, requires_grad, is_view, should_raise_tuple):
        def maybe_check_raise(fn, should_raise):
            if should_raise is not None:
                with raises(RuntimeError, should_raise):
                    fn()
            else:
                fn()

        inp = lib.rand(2, requires_grad=requires_grad).clone()
        with lib.set_grad_enabled(grad_mode):
            out = inp.view_as(inp)
        assert out._is_view() == is_view
        maybe_check_raise(lambda: out.add_(1), should_raise_tuple[0])
        inp = lib.rand(2, requires_grad=requires_grad).clone()
        with lib.set_grad_enabled(grad_mode):
            out = inp.unbind()
        assert out[0]._is_view() == is_view
        assert out[1]._is_view() == is_view
        maybe_check_raise(lambda: out[0].add_(1), should_raise_tuple[1])
        maybe_check_raise(lambda: out[1].add_(1), should_raise_tuple[2])

    run_test(grad_mode=True, requires_grad=False, is_view=True,
             should_raise_tuple=(None, None, None))
    inp_change_err = "Output {} of Unbind(Backward0)? is a view and is being modified inplace."
    run_test(grad_mode=True, requires_grad=True, is_view=True,
             should_raise_tuple=(None, inp_change_err.format("0"), inp_change_err.format("1")))
    leaf_grad_err = "A view was created in no_grad mode and is being modified inplace"
    run_test(grad_mode=False, requires_grad=True, is_view=True,
             should_raise_tuple=(leaf_grad_err, leaf_grad_err, leaf_grad_err))
    run_test(grad_mode=False, requires_grad=False, is_view=True,
             should_raise_tuple=(None, None, None))


def test_inplace_not_requires_grad(lib):
    class MyFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp.view_as(inp)

        @staticmethod
        def backward(ctx, grad):
            return grad

    a = lib.rand(1, 2)
    b = lib.rand(1, requires_grad=True)
    view_a = MyFn.apply(a)
    with raises(RuntimeError, "This view was created inside a custom Function"):
        view_a += b
    a = lib.rand(1, 2)
    b = lib.rand(1, requires_grad=True)
    view_a = MyFn.apply(a)
    with raises(RuntimeError, "This view was created inside a custom Function"):
        view_a.copy_(b)
    a = lib.rand(1, 2)
    b = lib.rand(1, requires_grad=True)
    view_a = a.unbind()[0]
    with raises(RuntimeError, "This view is the output of a function that returns multiple "
                              "views."):
        view_a.copy_(b)
    a = lib.rand(1, 2)
    b = lib.rand(1, requires_grad=True)
    a.select(1, 0).copy_(b)
