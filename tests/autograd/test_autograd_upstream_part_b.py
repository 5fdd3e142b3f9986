"""PyTorch's test/test_autograd.py, class TestAutograd, second part (the tests from offset
230,000 of upstream's file to the end of the class) not adapted in test_autograd_upstream.py,
adapted to run on ember and torch as that file does: upstream names and assertions,
``torch.`` became ``lib.``, each test runs twice (``[ember]`` and ``[torch]``), and ember's
run of a test listed in ``XFAIL`` is expected to fail (strict), for the reason given.

Upstream tests of that part not adapted, and why:
- test_checkpointing_non_reentrant_autocast_gpu, test_checkpointing_without_reentrant_memory_
  savings, test_callback_propagates_errors_from_device_thread, test_graph_save_on_cpu_cuda,
  test_scalar_grad_mixed_device, test_gradcheck_default_device_placement_context: need CUDA.
- test_gradcheck_validates_input_mkldnn, test_gradcheck_test_outputs and
  test_gradcheck_multiple_mkldnn_inputs are adapted with upstream's own skip condition
  (torch.backends.mkldnn.is_available()): ember's runs skip, ember has no MKL-DNN tensors.
- test_checkpointing_without_reentrant_with_context_fn: a TorchDispatchMode
  (torch.utils._python_dispatch, private) records the ATen operators.
- test_saved_tensor_constructor_with_hooks: torch._C._autograd._make_saved_tensor, private.
- test_autograd_node_isinstance: torch._C._functions nodes (AccumulateGrad, DelayedError).
- test_multi_grad_all_hooks: a C++ extension (load_inline) and torch._C._functions.
- test_view_func_replay, test_view_func_replay_with_modified_state:
  torch.autograd._force_original_view_tracking, Tensor._view_func, torch.ops.aten, nested
  tensors (private).
- test_gradcheck_dense_and_sparse_inputs, test_input_buffer_accum: in
  test_autograd_sparse_upstream.py; test_thread_shutdown: torch's C++ worker threads (these
  are listed in test_autograd_upstream.py's header too).
- test_named_tensor_for_complex_views: torch 2.13 has no named tensors (refine_names).
Departures from upstream's text, each kept to what torch 2.13 and ember need:
- test_checkpointing and test_checkpointing_without_reentrant (2000 inputs through a
  1000-wide layer, upstream's @slowTest) are cut to 20 inputs: what they check does not
  depend on the count.
- test_autograd_simple_views_python: torch 2.13 names the Function ("Output 0 of
  IdOneOutput is a view") where upstream's newer torch names its node ("IdOneOutputBackward");
  the patterns accept both.
- test_pynode_destruction_deadlock runs its script with the library under test as `torch`.
- test_graph_save_on_cpu compares its sparse tensors densely (eq reads dense arrays).
"""
import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import uuid
import warnings
import weakref
from copy import deepcopy
from functools import partial
from importlib import import_module

import pytest

from ._upstream import lib_fixture, eq, raises, warns

XFAIL = {}

lib = lib_fixture(XFAIL)


def gradcheck(lib, *a, **k):
    return lib.autograd.gradcheck(*a, **k)


def checkpoint(lib, *a, **k):
    return lib.utils.checkpoint.checkpoint(*a, **k)


def gradcheck_module(lib):
    """``torch.autograd.gradcheck`` the module (the package's attribute is the function)."""
    return import_module(lib.__name__ + '.autograd.gradcheck')


def engine(lib):
    return lib.autograd.Variable._execution_engine


# --- gradcheck --------------------------------------------------------------------------

def test_gradcheck_forward_ad_batched_grad(lib):
    x = lib.rand(2, dtype=lib.double, requires_grad=True)
    common = dict(check_forward_ad=True, check_backward_ad=False, check_batched_grad=False,
                  check_undefined_grad=False, check_batched_forward_grad=True)

    def fn1(a, b):
        return a.clone(), a + 1

    gradcheck(lib, fn1, (x, 1), **common)

    def fn2(a, c):
        return a.clone()

    gradcheck(lib, fn2, (x, x.clone()), **common)

    class Fn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            return foo * 2

        @staticmethod
        def vjp(ctx, gO):
            return gO * 2

        @staticmethod
        def jvp(ctx, gI):
            lib.randn_like(gI)
            return gI * 2

    msg = "vmap: We do not yet support calling random operations inside of vmap"
    with raises(RuntimeError, msg):
        gradcheck(lib, Fn.apply, (x,), check_forward_ad=True, check_batched_forward_grad=True)


def test_set_data_tensorimpl_type(lib):
    x = lib.randn(1, 2)
    x_s = lib.sparse_coo_tensor(lib.zeros([1, 1]), lib.ones([1]))
    with raises(RuntimeError, "incompatible tensor type"):
        x.data = x_s


def _needs_mkldnn(lib):
    """Upstream's ``@unittest.skipIf(not torch.backends.mkldnn.is_available(), ...)``: these
    tests need MKL-DNN tensors (ember's build answers False: it has no MKL-DNN layout)."""
    if not lib.backends.mkldnn.is_available():
        pytest.skip("MKL-DNN build is disabled")


def test_gradcheck_validates_input_mkldnn(lib):
    # with MKL-DNN inputs forward-mode gradcheck is refused; the tolerances let single
    # precision pass, and the warning assert hides the float32 warning
    _needs_mkldnn(lib)
    x = lib.ones(1).to_mkldnn().requires_grad_()
    for fast_mode in (False, True):
        with warns(UserWarning, "Input #0 requires gradient and is not a double precision"):
            with raises(ValueError, "MKLDNN inputs are not support for forward AD gradcheck."):
                gradcheck(lib, lambda x: x.to_dense(), (x,), raise_exception=False,
                          fast_mode=fast_mode, check_forward_ad=True, atol=1e-1, rtol=1e-1)


def test_gradcheck_test_outputs(lib):
    _needs_mkldnn(lib)

    def check(fast_mode):
        # sparse outputs (always raise, even with raise_exception=False)
        x = lib.rand(10, requires_grad=True).to_sparse()
        with raises(ValueError, "Sparse output is not supported at gradcheck yet"):
            gradcheck(lib, lambda x: x, (x,), masked=True, check_batched_grad=False,
                      raise_exception=False, fast_mode=fast_mode)
        # MKL-DNN outputs (always raise, even with raise_exception=False)
        root = lib.randn(4, 5, dtype=lib.float32, requires_grad=True)
        with raises(ValueError, "MKLDNN output is not supported at gradcheck yet"):
            gradcheck(lib, lambda x: x.to_mkldnn(), (root,), check_batched_grad=False,
                      raise_exception=False, fast_mode=fast_mode)

    check(fast_mode=True)
    check(fast_mode=False)


def test_gradcheck_multiple_mkldnn_inputs(lib):
    _needs_mkldnn(lib)

    def check(fast_mode):
        def fn(x, y):
            return x + y.to_dense()

        a = lib.rand(10, requires_grad=True)
        b = lib.rand(10, dtype=lib.float32).to_mkldnn().requires_grad_(True)
        assert gradcheck(lib, fn, (a, b), atol=1e-1, check_batched_grad=False,
                         fast_mode=fast_mode)

        def fn2(x, y):
            return x.to_dense() + y.to_dense()

        c = lib.rand(10, dtype=lib.float32).to_mkldnn().requires_grad_(True)
        assert gradcheck(lib, fn, (a, c), atol=1e-1, check_batched_grad=False,
                         fast_mode=fast_mode)

    check(fast_mode=True)
    check(fast_mode=False)


# --- checkpoint ---------------------------------------------------------------------------

def test_checkpointing(lib):
    num_inp = 20  # upstream: 2000 (@slowTest)
    nz_inp = 10
    nz_bottleneck = 1000
    module = lib.nn.Sequential(
        lib.nn.Linear(nz_inp, nz_bottleneck),
        lib.nn.ReLU(),
        lib.nn.Linear(nz_bottleneck, nz_inp),
    )
    feat_combined = []
    for _ in range(num_inp):
        data_r = lib.empty(1, nz_inp)
        data_r.uniform_()
        data_r.requires_grad = True
        feat_r = checkpoint(lib, module, data_r, use_reentrant=True)
        feat_combined.append(feat_r)
    mean_combined = lib.stack(feat_combined).mean()
    mean_combined.backward()


def test_checkpointing_non_reentrant_autocast_cpu(lib):
    device_type = 'cpu'
    for enabled in [True, False]:
        def foo(x, y, z):
            x = lib.mm(x, y)
            y = lib.mm(x, z)
            z = lib.mm(z, z)
            expected_dtype = lib.float32 if not enabled else lib.bfloat16
            assert expected_dtype == z.dtype
            return z

        x = lib.randn(3, 3, requires_grad=True)
        y = lib.randn(3, 3, requires_grad=True)
        z = lib.randn(3, 3, requires_grad=True)
        with lib.autocast(enabled=enabled, device_type=device_type, dtype=lib.bfloat16):
            loss = checkpoint(lib, foo, x, y, z, use_reentrant=False)
            loss = loss.sum()
        loss.backward()


def test_checkpointing_without_reentrant_custom_function_works(lib):
    msg = "Unpack is being triggered for a tensor that was already unpacked once"

    class MyFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, z):
            w = x * y * z
            out = w + w
            ctx.save_for_backward(x, y, z, w, out)
            return out

        @staticmethod
        def backward(ctx, grad_out):
            x, y, z, w, out = ctx.saved_tensors
            with raises(RuntimeError, msg):
                x_2, y_2, z_2, w_2, out_2 = ctx.saved_tensors
            return x, y, z

    x = lib.tensor(1.0, requires_grad=True)
    y = lib.tensor(2.0, requires_grad=True)
    z = lib.tensor(3.0, requires_grad=True)

    def foo(x, y, z):
        x = x * y * z
        y = y * y * z
        z = z * z
        out = MyFunc.apply(x, y, z)
        return out

    out = checkpoint(lib, foo, x, y, z, use_reentrant=False)
    out.sum().backward()


def test_checkpoint_warns_if_use_reentrant_not_passed_explcitly(lib):
    a = lib.randn(1, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        checkpoint(lib, lambda x: x, a, use_reentrant=False)
    assert not w
    with warns(UserWarning, ".*the use_reentrant parameter should be passed explicitly.*"):
        checkpoint(lib, lambda x: x, a)


def test_checkpoint_sequential_warns_if_use_reentrant_not_passed_explcitly(lib):
    checkpoint_sequential = lib.utils.checkpoint.checkpoint_sequential
    a = lib.randn(3, requires_grad=True)
    modules_list = [lib.nn.Linear(3, 3), lib.nn.Linear(3, 3), lib.nn.Linear(3, 3)]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        checkpoint_sequential(modules_list, 3, a, use_reentrant=False)
    assert not w
    with warns(UserWarning, ".*the use_reentrant parameter should be passed explicitly.*"):
        checkpoint_sequential(modules_list, 3, a)


def test_checkpoint_graph_execution_group(lib):
    def run(use_graph_execution_group):
        counter = [0]

        def fn(x):
            counter[0] += 1
            y = x.sin().cos()
            z = y.sin().cos()
            return y, z

        x = lib.randn(3, 3, requires_grad=True)
        y, z = checkpoint(lib, fn, x, use_reentrant=False)
        group = lib.utils.checkpoint.GraphExecGroup()
        ctx = contextlib.nullcontext()
        if use_graph_execution_group:
            ctx = group
        with ctx:
            (grad_y,) = lib.autograd.grad(z, inputs=(y,), grad_outputs=(lib.ones(3, 3),))
            (grad_x,) = lib.autograd.grad(y, inputs=(x,), grad_outputs=(grad_y,))
        if use_graph_execution_group:
            assert counter[0] == 2
        else:
            assert counter[0] == 3

    run(use_graph_execution_group=True)
    run(use_graph_execution_group=False)

    def fn(x):
        return x.sin().cos()

    x = lib.randn(3, 3, requires_grad=True)
    out = checkpoint(lib, fn, x, use_reentrant=False)
    with lib.utils.checkpoint.GraphExecGroup():
        out.sum().backward(retain_graph=True)
        with raises(RuntimeError, "Performing two backward calls that overlap"):
            out.sum().backward()


def test_checkpoint_detects_non_determinism(lib):
    cp = lib.utils.checkpoint

    def save_3_tensors(x):
        out = x.sin().exp()
        out = out.sin()
        return out

    def save_2_tensors(x):
        return x.sin().exp()

    def save_2_tensors_alt(x):
        return x.sin() * lib.tensor([1.0, 2.0])

    def get_non_det_fn(orig_fn, recompute_fn):
        counter = [0]

        def fn(x):
            if counter[0] == 0:
                counter[0] += 1
                return orig_fn(x)
            return recompute_fn(x)

        return fn

    a = lib.randn(1, requires_grad=True)

    fn = get_non_det_fn(orig_fn=save_3_tensors, recompute_fn=save_2_tensors)
    with raises(RuntimeError, "A different number of tensors was saved"):
        out = checkpoint(lib, fn, a, use_reentrant=False)
        out.backward()

    fn = get_non_det_fn(orig_fn=save_2_tensors, recompute_fn=save_3_tensors)
    with cp.set_checkpoint_early_stop(False):
        with raises(RuntimeError, "trying to save more tensors during recomputation"):
            out = checkpoint(lib, fn, a, use_reentrant=False)
            out.backward()

    fn = get_non_det_fn(orig_fn=save_2_tensors, recompute_fn=save_3_tensors)
    out = checkpoint(lib, fn, a, use_reentrant=False)
    out.backward()

    fn = get_non_det_fn(orig_fn=save_2_tensors, recompute_fn=save_2_tensors_alt)
    with raises(RuntimeError, "tensors have different metadata"):
        out = checkpoint(lib, fn, a, use_reentrant=False)
        out.backward()

    fn = get_non_det_fn(orig_fn=save_2_tensors, recompute_fn=save_2_tensors_alt)
    with raises(RuntimeError, "You are seeing this error because you passed `debug=True` to "
                              "checkpoint"):
        out = checkpoint(lib, fn, a, use_reentrant=False, debug=True)
        out.backward()

    fn = get_non_det_fn(orig_fn=save_2_tensors, recompute_fn=save_2_tensors_alt)
    with raises(RuntimeError, "You are seeing this error because you passed `debug=True` to "
                              "checkpoint"):
        with cp.set_checkpoint_debug_enabled(True):
            out = checkpoint(lib, fn, a, use_reentrant=False, debug=False)
            out.backward()

    fn = get_non_det_fn(orig_fn=save_2_tensors, recompute_fn=save_2_tensors_alt)
    with raises(RuntimeError, "Recomputed values for the following tensors have different"):
        with cp.set_checkpoint_debug_enabled(False):
            out = checkpoint(lib, fn, a, use_reentrant=False, debug=True)
            out.backward()


def test_access_saved_tensor_twice_without_recomputation_works(lib):
    count = [0]

    def foo(a):
        count[0] += 1
        b = a * a
        c = a * b
        d = lib.exp(a)
        return d

    a = lib.randn(5, requires_grad=True)
    d = checkpoint(lib, foo, a, use_reentrant=False)
    assert count[0] == 1
    d.grad_fn._saved_result
    assert count[0] == 2
    d.grad_fn._saved_result
    assert count[0] == 3
    d.sum().backward()
    assert count[0] == 4
    with raises(RuntimeError, "or directly access saved tensors after they have already been "
                              "freed"):
        d.grad_fn._saved_result


@pytest.mark.parametrize('input_requires_grad', [True, False])
def test_checkpointing_without_reentrant(lib, input_requires_grad):
    num_inp = 20  # upstream: 2000 (@slowTest)
    nz_inp = 10
    nz_bottleneck = 1000
    nn = lib.nn
    module = nn.Sequential(nn.Linear(nz_inp, nz_bottleneck), nn.ReLU(),
                           nn.Linear(nz_bottleneck, nz_inp))

    class MyModule(nn.Module):
        def __init__(self, mod):
            super().__init__()
            self.module = mod

        def forward(self, data):
            return self.module(data)

    module = MyModule(mod=module)
    module_copy = deepcopy(module)

    feat_combined = []
    feat_combined_no_checkpoint = []
    for _ in range(num_inp):
        data_r = lib.empty(1, nz_inp)
        data_r.uniform_()
        data_r.requires_grad = input_requires_grad
        data_r_copy = data_r.clone()
        feat_r = checkpoint(lib, module, data=data_r, use_reentrant=False)
        feat_combined.append(feat_r)
        feat_r_no_checkpoint = module_copy(data_r)
        feat_combined_no_checkpoint.append(feat_r_no_checkpoint)

    mean_combined = lib.stack(feat_combined).mean()
    mean_combined.backward()
    mean_combined_no_checkpoint = lib.stack(feat_combined_no_checkpoint).mean()
    mean_combined_no_checkpoint.backward()

    for checkpoint_param, param in zip(module.parameters(), module_copy.parameters()):
        eq(checkpoint_param.grad, param.grad)


def test_checkpoint_valid_reset_on_error(lib):
    a = lib.randn(2, 2, requires_grad=True)
    with raises(Exception, "torch.utils.checkpoint is incompatible"):
        b = checkpoint(lib, lib.exp, a, use_reentrant=True).sum()
        lib.autograd.grad(b, (a,))
    c = checkpoint(lib, lib.exp, a, use_reentrant=True).sum()
    c.backward()


@pytest.mark.parametrize('use_reentrant', [True, False])
def test_checkpointing_without_reentrant_detached_tensor(lib, use_reentrant):
    nn = lib.nn

    class NoGradModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(2, 2, bias=False)
            self.lin2 = nn.Linear(2, 2, bias=False)

        def forward(self, x):
            with lib.no_grad():
                return self.lin2(self.linear(x))

    module = NoGradModule()

    def err_ctx():  # (a new context each time: ours are not reusable as unittest's are)
        return (raises(RuntimeError, "none of output has requires_grad=True")
                if use_reentrant else contextlib.nullcontext())

    a = lib.randn(2, 2, requires_grad=True)
    for _ in range(3):
        with err_ctx():
            out = checkpoint(lib, module, a, use_reentrant=use_reentrant)
            out += a
            out.sum().backward()


def test_checkpointing_without_reentrant_saved_object_identity(lib):
    x_backward = None

    class Test(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(y)
            return x

        @staticmethod
        def backward(ctx, x):
            nonlocal x_backward
            (x_backward,) = ctx.saved_tensors
            return x, None

    a = lib.tensor(1.0, requires_grad=True)
    b = lib.tensor(1.0, requires_grad=False)
    Test.apply(a, b).backward()
    assert b is x_backward

    x_backward = None
    checkpoint(lib, Test.apply, a, b, use_reentrant=False).backward()
    assert b is x_backward


def test_checkpointing_without_reentrant_correct_grad(lib):
    a = lib.randn(2, 2, requires_grad=True)
    b = lib.exp(a).sum()
    b.backward()
    b_grad = a.grad

    a.grad = None
    c = checkpoint(lib, lib.exp, a, use_reentrant=False).sum()
    c.backward()
    c_grad = a.grad

    a.grad = None
    d = checkpoint(lib, lib.exp, a, use_reentrant=False).sum()
    (d_grad,) = lib.autograd.grad(d, (a,))

    eq(b_grad, c_grad)
    eq(b_grad, d_grad)


def test_checkpointing_without_reentrant_dataparallel(lib):
    nn = lib.nn

    class LinearModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(2, 2, bias=False)

        def forward(self, inp):
            return self.linear(inp)

    a = lib.randn(2, 2, requires_grad=True)
    model = LinearModule()
    b = deepcopy(model)(a).sum()
    b.backward()
    b_grad = a.grad
    a.grad = None

    module = nn.DataParallel(deepcopy(model))
    c = checkpoint(lib, module, a, use_reentrant=False).sum()
    c.backward()
    c_grad = a.grad
    eq(b_grad, c_grad)


def test_checkpointing_without_reentrant_parameter_used_in_an_out(lib):
    w = lib.randn(10, 10, requires_grad=True)
    count = 0

    def hook(grad):
        nonlocal count
        count += 1

    w.register_hook(hook)
    x = lib.rand(10, 10, requires_grad=True)
    h = w * x
    out = checkpoint(lib, lambda x: w * x, h, use_reentrant=False)
    out.sum().backward()
    assert count == 1


def test_checkpointing_without_reentrant_arbitrary_input_output(lib):
    class MyModel(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = lib.nn.Linear(5, 5, bias=False)

        def forward(self, dict_input):
            tensor = dict_input["tensor"]
            return {"result": self.layer(tensor)}

    model_no_checkpoint = MyModel()
    model_checkpoint_without_reentrant = deepcopy(model_no_checkpoint)
    inp = {"tensor": lib.randn(5, 5)}
    out_no_checkpoint = model_no_checkpoint(inp)["result"].sum()
    out_checkpoint = checkpoint(lib, model_checkpoint_without_reentrant, inp,
                                use_reentrant=False)["result"].sum()
    eq(out_checkpoint, out_no_checkpoint)
    out_no_checkpoint.backward()
    out_checkpoint.backward()
    for param, checkpoint_param in zip(model_no_checkpoint.parameters(),
                                       model_checkpoint_without_reentrant.parameters()):
        eq(param.grad, checkpoint_param.grad)


# --- engine callbacks and reentrant backward ------------------------------------------------

def test_callback_adds_callback(lib):
    called = [0]

    def callback_final():
        called[0] += 1

    def callback_adds_callback():
        called[0] += 1
        engine(lib).queue_callback(callback_final)

    class MyFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            return input

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad):
            engine(lib).queue_callback(callback_adds_callback)
            return grad

    a = lib.rand((3, 3), requires_grad=True)
    b = MyFunc.apply(a)
    b.sum().backward()
    assert called[0] == 2


def _test_reentrant_with_callbacks(lib, install_callbacks_in_depths):
    counter = {"inner": 0, "outer": 0}

    def inc_inner_counter():
        counter["inner"] += 1

    def inc_outer_counter():
        counter["outer"] += 1

    class MyFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            return input

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, input):
            if 1 in install_callbacks_in_depths:
                engine(lib).queue_callback(inc_inner_counter)
            return input

    class MyReentrantFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            return input

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, input):
            if 0 in install_callbacks_in_depths:
                engine(lib).queue_callback(inc_outer_counter)
            tmp_inp = input.detach().requires_grad_()
            with lib.enable_grad():
                tmp_out = (MyFunc.apply(tmp_inp)).sum()
            tmp_out.backward()
            return input

    t1 = lib.rand((3, 3), requires_grad=True)
    t2 = MyReentrantFunc.apply(t1)
    t3 = t2.sum()
    lib.autograd.backward([t3])
    return counter


def test_reentrant_with_callbacks_depth_0(lib):
    ret = _test_reentrant_with_callbacks(lib, [0])
    assert ret["outer"] == 1
    assert ret["inner"] == 0


def test_reentrant_with_callbacks_depth_1(lib):
    ret = _test_reentrant_with_callbacks(lib, [1])
    assert ret["outer"] == 0
    assert ret["inner"] == 1


def test_reentrant_with_callbacks_both_depths(lib):
    ret = _test_reentrant_with_callbacks(lib, [0, 1])
    assert ret["outer"] == 1
    assert ret["inner"] == 1


def test_reentrant_with_leaf_variable_hook(lib):
    handle = None
    param = lib.rand(10, requires_grad=True)

    def add_gradient_penalty_to_grad(grad):
        handle.remove()
        old_param_grad = grad
        param.grad = None
        with lib.enable_grad():
            g = grad.detach().requires_grad_()
            new_param = param.detach().requires_grad_()
            out = ((g * 2) + new_param).sum()
            out.backward()
        res = g.grad + grad
        param.grad = old_param_grad
        return res

    handle = param.register_hook(add_gradient_penalty_to_grad)
    tmp = param * param
    loss = tmp.sum()
    loss.backward()


def test_reentrant_with_non_leaf_variable_hook(lib):
    handle = None
    param = lib.rand(10, requires_grad=True)

    def manual_increase_gradient(grad):
        handle.remove()
        with lib.enable_grad():
            g = grad.detach().requires_grad_()
            out = ((g * 2) + 5).sum()
            out.backward()
        res = g.grad + grad
        return res

    tmp = param * param
    handle = tmp.register_hook(manual_increase_gradient)
    loss = tmp.sum()
    loss.backward()
    eq(param.grad, 6 * param)


# --- saved tensors ----------------------------------------------------------------------------

def test_grad_fn_attr_bindings(lib):
    # (upstream's isinstance checks name torch._C._autograd.SavedTensor, which
    # torch.autograd.SavedTensor is)
    nn = lib.nn
    SavedTensor = lib.autograd.SavedTensor
    a = lib.ones(1, requires_grad=True)
    b = lib.zeros(1, requires_grad=True)
    out1 = lib.stack([a, b], dim=0)
    out2 = (a * 2) * b
    eq(out2.grad_fn._saved_self, a * 2)
    assert isinstance(out2.grad_fn._saved_self, lib.Tensor)
    assert isinstance(out2.grad_fn._raw_saved_self, SavedTensor)
    assert out1.grad_fn._saved_dim == 0
    assert isinstance(out1.grad_fn._saved_dim, int)
    out2.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
    out2.sum().backward()
    with raises(RuntimeError, "after they have already been freed"):
        out2.grad_fn._saved_self
    assert out1.grad_fn._saved_dim == 0

    a = lib.ones(2, 2, requires_grad=True)
    indices = lib.tensor([0, 1])
    out = a[:, indices]
    saved = out.grad_fn._saved_indices
    assert saved[0] is None
    eq(saved[1], indices)
    assert isinstance(out.grad_fn._saved_indices[1], lib.Tensor)
    assert isinstance(out.grad_fn._raw_saved_indices[1], SavedTensor)
    assert out.grad_fn._saved_self_sym_sizes == a.shape
    assert isinstance(out.grad_fn._saved_self_sym_sizes[0], int)
    out.grad_fn._raw_saved_indices[1].register_hooks(lambda x: x, lambda x: x)
    with raises(RuntimeError, "None is forbidden"):
        out.grad_fn._raw_saved_indices[0].register_hooks(lambda x: x, lambda x: x)

    out = a.mean()
    assert out.grad_fn._saved_self_sym_sizes == a.shape

    a = lib.ones(2, 2, requires_grad=True)
    out = a * a
    out.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
    out.sum().backward()
    with raises(RuntimeError, "after it has been freed"):
        out.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)

    a = lib.ones(1, 1, 2, requires_grad=True)
    out = nn.functional.interpolate(a, 4, mode="linear")
    assert out.grad_fn._saved_output_size == (4,)
    assert isinstance(out.grad_fn._saved_output_size[0], int)
    assert out.grad_fn._saved_align_corners is False
    if hasattr(out.grad_fn, "_saved_scale_factors"):
        assert out.grad_fn._saved_scale_factors is None
    else:
        assert out.grad_fn._saved_scales is None

    a = lib.ones(1, 1, 3, 3, requires_grad=True)
    out = nn.Conv2d(1, 1, 3)(a)
    assert out.grad_fn._saved_bias_sym_sizes_opt == (1,)
    out = nn.Conv2d(1, 1, 3, bias=False)(a)
    assert out.grad_fn._saved_bias_sym_sizes_opt == (0,)

    a = lib.ones(1, 3, 3, requires_grad=True)
    out = lib.addbmm(a.squeeze(0), a, a)
    assert out.grad_fn._saved_batch1_sym_argsize_0 == 1
    assert out.grad_fn._saved_batch1_sym_argsize_1 == 3

    a = lib.ones(1, 1, 3, 3, requires_grad=True)
    out = nn.functional.unfold(a, 3)
    assert out.grad_fn._saved_self_sym_argsize_minus_2 == 3
    assert out.grad_fn._saved_self_sym_argsize_minus_1 == 3

    a = lib.ones(1, 1, 2, requires_grad=True)
    out = nn.functional.interpolate(a, scale_factor=0.5, mode="linear")
    assert out.grad_fn._saved_scales == 0.5

    a = lib.ones(2, 2, requires_grad=True)
    out = lib.pdist(a, p=1)
    assert out.grad_fn._saved_p == 1.0
    assert isinstance(out.grad_fn._saved_p, float)

    a = lib.ones(1, 1, 2, requires_grad=True)
    out = lib.logit(a, 1.0)
    assert out.grad_fn._saved_eps == 1.0
    assert isinstance(out.grad_fn._saved_eps, float)
    out = lib.logit(a)
    assert out.grad_fn._saved_eps is None

    a = lib.ones(1, 1, requires_grad=True)
    q, r = lib.linalg.qr(a, mode="reduced")
    assert q.grad_fn._saved_mode == "reduced"

    a = lib.tensor([1.0], requires_grad=True)
    out = lib.div(a, 2.0, rounding_mode="trunc")
    assert out.grad_fn._saved_rounding_mode == "trunc"
    out = lib.div(a, 2.0, rounding_mode=None)
    assert out.grad_fn._saved_rounding_mode is None

    x = lib.zeros(5, requires_grad=True)
    out = lib.threshold(x, threshold=(1 + 0j), value=(1 + 0j))
    assert isinstance(out.grad_fn._saved_threshold, complex)
    cfloat = lib.tensor(1 + 0j, dtype=lib.complex64)
    out = lib.threshold(x, threshold=cfloat, value=(1 + 0j))
    assert isinstance(out.grad_fn._saved_threshold, complex)
    out = lib.threshold(x, threshold=1.0, value=1.0)
    assert isinstance(out.grad_fn._saved_threshold, float)
    out = lib.threshold(x, threshold=1, value=1)
    assert isinstance(out.grad_fn._saved_threshold, int)
    out = lib.threshold(x, threshold=False, value=False)
    assert isinstance(out.grad_fn._saved_threshold, bool)

    a = lib.ones(2, 2, requires_grad=True)
    out = a.as_strided((3,), (1,), 1)
    assert out.grad_fn._saved_storage_offset == 1
    assert isinstance(out.grad_fn._saved_storage_offset, int)
    out = a.as_strided((3,), (1,))
    assert out.grad_fn._saved_storage_offset is None

    a = lib.ones(2, requires_grad=True)
    out = lib.tanh(a)
    eq(out, out.grad_fn._saved_result)

    a = lib.randn(3, 5, requires_grad=True)
    b = lib.tensor([1, 0, 4])
    loss = nn.NLLLoss()
    out = loss(a, b)
    assert out.grad_fn._saved_weight is None
    loss = nn.NLLLoss(weight=lib.ones((5,)))
    out = loss(a, b)
    eq(out.grad_fn._saved_weight, lib.ones((5,)))
    out.sum().backward()
    with raises(RuntimeError, "after they have already been freed"):
        out.grad_fn._saved_weight

    num_tensors = 3
    input_tensors = [lib.ones(2, 2, requires_grad=True) for _ in range(num_tensors)]
    scalars = [0.0 for _ in range(num_tensors)]  # ArrayRef<Scalar> -> Tuple[Scalar, ...]
    results = lib._foreach_maximum(input_tensors, scalars)
    for t in results:
        assert t.grad_fn._saved_scalars == tuple(scalars)


def test_get_data_and_hooks_from_raw_saved_variable(lib):
    def pack_hook(t):
        return t

    def unpack_hook(t):
        return t

    a = lib.tensor(2.0, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        b = a ** 2
    c = b.exp()
    d = c ** 2

    pow_sv = b.grad_fn._raw_saved_self
    exp_sv = c.grad_fn._raw_saved_result
    pow2_sv = d.grad_fn._raw_saved_self

    # the packed object as-is, and the hook that unpacks it
    assert pow_sv.data is a
    assert pow_sv.unpack_hook is unpack_hook
    # a saved output reads back detached
    assert exp_sv.data is not c
    assert exp_sv.unpack_hook is None
    # a saved input reads back as itself
    assert pow2_sv.data is c
    assert pow2_sv.unpack_hook is None


def test_custom_function_saved_tensors(lib):
    # (upstream's isinstance checks name the class torch._C._autograd.SavedTensor, which
    # torch.autograd.SavedTensor is)
    def getFn(save=True):
        class MyFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                if save:
                    ctx.save_for_backward(x, None)
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        return MyFn

    a = lib.randn(5, requires_grad=True)
    y = getFn(True).apply(a)
    eq((a, None), y.grad_fn.saved_tensors)
    saved = y.grad_fn._raw_saved_tensors
    assert isinstance(saved[0], lib.autograd.SavedTensor)
    # the None cannot be told apart without unpacking it
    assert isinstance(saved[1], lib.autograd.SavedTensor)
    # the error comes when hooks are registered on it
    with raises(RuntimeError, "None is forbidden"):
        saved[1].register_hooks(lambda x: x, lambda x: x)
    with raises(TypeError, "incompatible function arguments"):
        saved[0].register_hooks(lambda x: x)
    with raises(TypeError, "incompatible function arguments"):
        saved[0].register_hooks(1, 1)
    saved[0].register_hooks(lambda x: x, lambda x: x)
    with raises(RuntimeError, "already been set"):
        saved[0].register_hooks(lambda x: x, lambda x: x)
    y.sum().backward()
    # the SavedTensor objects are unusable once the saved variables are released
    del saved
    with raises(RuntimeError, "after they have already been freed"):
        y.grad_fn._raw_saved_tensors
    with raises(RuntimeError, "after they have already been freed"):
        y.grad_fn.saved_tensors
    y = getFn(False).apply(a)
    assert y.grad_fn.saved_tensors == ()
    assert y.grad_fn._raw_saved_tensors == ()


def test_naughty_anomaly_access(lib):
    # upstream marks this @unittest.expectedFailure ("this currently fails, but shouldn't");
    # on torch 2.13 the last access succeeds, so it is adapted as a passing test
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = lib.zeros(1, requires_grad=True)
    y = MyFunction.apply(x)
    y.backward()
    y.grad_fn.metadata
    g = y.grad_fn
    del y
    g.metadata


def test_saved_tensor_constructor_forbidden_without_flag(lib):
    a = lib.randn(5, requires_grad=True)
    with raises(RuntimeError, "Trying to create a SavedTensor object from Python is forbidden"):
        lib.autograd.SavedTensor()


def test_clear_saved_tensors_on_access(lib):
    class MyFn(lib.autograd.Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            ref = weakref.ref(x)
            del x
            assert ref() is None
            return grad_output

    x = lib.randn(3, requires_grad=True)
    y = MyFn.apply(x.clone())
    y.sum().backward()


def test_clear_saved_tensors_on_access_double_access_error(lib):
    class MyFn(lib.autograd.Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, grad_output):
            _ = ctx.saved_tensors
            _ = ctx.saved_tensors
            return grad_output

    x = lib.randn(3, requires_grad=True)
    y = MyFn.apply(x)
    with raises(RuntimeError, "can only be accessed once"):
        y.sum().backward()


# --- views ------------------------------------------------------------------------------------

def _do_test_autograd_simple_views_python(lib, dtype):
    bw_called = [0]
    ga_nz = [False]

    class IdOneOutput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, make_view, pure_view):
            ctx._is_pure_view = pure_view
            if make_view:
                a = a.narrow(0, 0, 2)
            else:
                a = a.clone()
            return a

        @staticmethod
        def backward(ctx, ga):
            bw_called[0] += 1
            return ga, None, None

    class IdTwoOutput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, make_view, pure_view):
            ctx._is_pure_view = pure_view
            if make_view:
                a = a.narrow(0, 0, 2)
            else:
                a = a.clone()
            return a, a + b

        @staticmethod
        def backward(ctx, ga, gab):
            bw_called[0] += 1
            if ga.eq(0).all():
                ga_nz[0] = False
            else:
                ga_nz[0] = True
            return ga + gab, gab, None, None

    class ViewOfTemp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, make_view, pure_view):
            ctx._is_pure_view = pure_view
            ctx.save_for_backward(a)
            if make_view:
                a = a.narrow(0, 0, 2)
            else:
                a = a.clone()
            b = a.clone()
            return b.select(0, 0)

        @staticmethod
        def backward(ctx, grad):
            bw_called[0] += 1
            (a,) = ctx.saved_tensors
            res = lib.zeros_like(a)
            res.select(0, 0).copy_(grad)
            return res, None, None

    # (torch 2.13 names the Function, upstream's newer torch its node: both are accepted)
    fn_id_to_inplace_on_view_err_msg = {
        "one_output": ("Output 0 of IdOneOutput(Backward)? is a view and is being "
                       "modified inplace. This view was created inside a custom Function"),
        "two_output": ("Output 0 of IdTwoOutput(Backward)? is a view and is being modified "
                       "inplace. This view is the output of a function that returns multiple "
                       "views.",
                       "Pure view custom Function can only have one input Tensor and one "
                       "output Tensor. Open an issue if you need to support more."),
        "view_of_temp": ("Output 0 of ViewOfTemp(Backward)? is a view and is being "
                         "modified inplace. This view was created inside a custom Function",
                         "a view of a leaf Variable that requires grad is being used in an "
                         "in-place operation"),
    }

    for fn_id in ["one_output", "two_output", "view_of_temp"]:
        for inplace in [True, False]:
            for make_view in [True, False]:
                for pure_view in [True, False]:
                    output_is_a_view = make_view or fn_id == "view_of_temp"

                    def fn(a, b):
                        a = a.clone()
                        b = b.clone()
                        if fn_id == "two_output":
                            tmp1, tmp2 = IdTwoOutput.apply(a, b, make_view, pure_view)
                            if inplace:
                                tmp1 += 3
                                tmp2 += 3
                            else:
                                tmp1 = tmp1 + 3
                                tmp2 = tmp2 + 3
                            tmp = tmp1 * tmp2
                        else:
                            if fn_id == "one_output":
                                tmp = IdOneOutput.apply(a, make_view, pure_view)
                            else:
                                tmp = ViewOfTemp.apply(a + b, make_view, pure_view)
                            if inplace:
                                tmp += 3
                            else:
                                tmp = tmp + 3
                        return tmp.sum()

                    a = lib.ones(2, dtype=dtype, requires_grad=True)
                    b = lib.ones(2, dtype=dtype, requires_grad=True)
                    err_msg = fn_id_to_inplace_on_view_err_msg[fn_id][int(pure_view)]
                    will_raise_error = (
                        (pure_view and fn_id == "two_output")
                        or (pure_view and fn_id == "view_of_temp" and inplace)
                        or (not pure_view and inplace and output_is_a_view)
                    )
                    if will_raise_error:
                        with raises(RuntimeError, err_msg):
                            gradcheck(lib, fn, (a, b), check_batched_grad=False)
                    else:
                        gradcheck(lib, fn, (a, b), check_batched_grad=False)

                    bw_called[0] = 0
                    ga_nz[0] = True
                    expected_called = 1
                    expected_ga_nz = True
                    if will_raise_error:
                        expected_called = 0
                        with raises(RuntimeError, err_msg):
                            fn(a, b)
                    else:
                        fn(a, b).abs().backward()
                    if fn_id == "one_output" and inplace and output_is_a_view and pure_view:
                        expected_called = 0
                    assert bw_called[0] == expected_called, (fn_id, inplace, make_view,
                                                             pure_view)
                    assert ga_nz[0] == expected_ga_nz


def test_autograd_simple_views_python(lib):
    _do_test_autograd_simple_views_python(lib, lib.double)
    _do_test_autograd_simple_views_python(lib, lib.cdouble)


def test_autograd_inplace_views_creation_meta(lib):
    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, x):
            return x

    view_custom = Func.apply

    def run_test(fn, fn_type, grad_mode_view, grad_mode_iview, requires_grad, error1, error2):
        base = lib.rand(2, 3, requires_grad=requires_grad).clone()
        with lib.set_grad_enabled(grad_mode_view):
            if fn_type == "multi_view":
                inp = base.unbind()[0]
            elif fn_type == "custom":
                inp = view_custom(base)
            else:
                inp = base.view_as(base)
        with lib.set_grad_enabled(grad_mode_iview):
            if error1 is not None:
                with raises(RuntimeError, error1):
                    fn(inp)
                return
            fn(inp)
        if error2 is not None:
            with raises(RuntimeError, error2):
                inp.add_(1)
        else:
            inp.add_(1)

    no_grad_err = "A view was created in no_grad mode"
    multi_view_err = "function that returns multiple views"
    custom_err = "view was created inside a custom Function"

    def run_tests(fn):
        for fn_type in ("normal", "multi_view", "custom"):
            for grad_mode_view in (True, False):
                for grad_mode_iview in (True, False):
                    for requires_grad in (True, False):
                        error1 = None
                        error2 = None
                        if requires_grad:
                            if not grad_mode_view and grad_mode_iview:
                                error1 = no_grad_err
                            if not grad_mode_view and not grad_mode_iview:
                                error2 = no_grad_err
                            if fn_type == "multi_view":
                                if grad_mode_view and grad_mode_iview:
                                    error1 = multi_view_err
                                if grad_mode_view and not grad_mode_iview:
                                    error2 = multi_view_err
                            if fn_type == "custom":
                                if grad_mode_view and grad_mode_iview:
                                    error1 = custom_err
                                if grad_mode_view and not grad_mode_iview:
                                    error2 = custom_err
                        run_test(fn, fn_type, grad_mode_view, grad_mode_iview, requires_grad,
                                 error1, error2)

    run_tests(lambda v: v.as_strided_((1, 0), (2, 2)))
    run_tests(lambda v: v.transpose_(0, 0))
    run_tests(lambda v: v.t_())
    run_tests(lambda v: v.squeeze_(0))
    run_tests(lambda v: v.unsqueeze_(0))
    run_tests(lambda v: v.swapdims_(0, 0))
    run_tests(lambda v: v.swapaxes_(0, 0))


# --- saved tensor hooks -----------------------------------------------------------------------

def test_saved_variable_packing_unpacking_saved_original_with_hooks(lib):
    # packing/unpacking a saved variable with hooks on it, when it saved the original
    # (a leaf, or a tensor that is not the output)
    def test(get_input, is_leaf):
        a = get_input()
        grad_fn = a.grad_fn
        y = a * a
        y.grad_fn._raw_saved_self.register_hooks(lambda x: 2 * x, lambda x: x / 2)
        eq(a, y.grad_fn._saved_self)
        if not is_leaf:
            assert grad_fn is y.grad_fn._saved_self.grad_fn
            y.sum().backward()
        else:
            y.sum().backward()
            eq(2 * a, a.grad)

        a = get_input()
        grad_fn = a.grad_fn
        y = a * a
        y.grad_fn._raw_saved_self.register_hooks(lambda x: 2 * x, lambda x: x)
        eq(2 * a, y.grad_fn._saved_self)
        if not is_leaf:
            assert grad_fn is y.grad_fn._saved_self.grad_fn
            y.sum().backward()
        else:
            y.sum().backward()
            eq(3 * a, a.grad)

        # double backward
        a = get_input()
        grad_fn = a.grad_fn
        y = a**3
        y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
        s = lib.sum(y)
        (g,) = lib.autograd.grad(s, (a,), create_graph=True)
        if not is_leaf:
            assert grad_fn is y.grad_fn._saved_self.grad_fn
            g.sum().backward()
        else:
            g.sum().backward()
            eq(6 * a, a.grad)

        a = get_input()
        y = a * a
        y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: 1)
        with raises(TypeError, "Output of saved tensor unpack_hook expected to be a Tensor"):
            print(y.grad_fn._saved_self)

        a = get_input()
        y = a * a
        with raises(TypeError, "missing 1 required positional argument"):
            y.grad_fn._raw_saved_self.register_hooks(lambda x, b: x, lambda x: x)

        a = get_input()
        y = a * a
        with raises(TypeError, "missing 1 required positional argument"):
            y.grad_fn._raw_saved_self.register_hooks(lambda x, b: (x, b), lambda x: x)

        def inplace_double(x):
            x *= 2
            return x

        a = get_input()
        t = a * a
        with raises(RuntimeError, "A saved tensor pack hook is modifying its input in place."):
            t.grad_fn._raw_saved_self.register_hooks(inplace_double, lambda x: x / 2)

    # leaf
    test(lambda: lib.randn(5, requires_grad=True), True)
    # not leaf, not output
    test(lambda: (1 + lib.randn(5, requires_grad=True)), False)


def test_saved_variable_packing_unpacking_did_not_save_original_with_hooks(lib):
    # the same when the saved variable did not save the original (an output)
    a = lib.randn(5, requires_grad=True)
    y = lib.exp(a)
    y.grad_fn._raw_saved_result.register_hooks(lambda x: x, lambda x: x)
    eq(y, y.grad_fn._saved_result)
    assert y.grad_fn is y.grad_fn._saved_result.grad_fn
    y.sum().backward()
    eq(a.grad, y)


def test_saved_variable_packing_unpacking_saved_original_with_default_hooks(lib):
    saved_tensors_hooks = lib.autograd.graph.saved_tensors_hooks

    def pack(x):
        warnings.warn("pack")
        return x

    with saved_tensors_hooks(pack, lambda x: x):
        a = lib.ones(5, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = a * a
            assert len(w) == 2

    with saved_tensors_hooks(lambda x: x, lambda x: x):
        a = lib.randn(5, requires_grad=True)
        y = a * a
        eq(a, y.grad_fn._saved_self)
        eq(a, y.grad_fn._saved_other)
        y.sum().backward()
        eq(2 * a, a.grad)

    with saved_tensors_hooks(lambda x: 2 * x, lambda x: x / 2):
        a = lib.randn(5, requires_grad=True)
        y = a * a
        eq(a, y.grad_fn._saved_self)
        eq(a, y.grad_fn._saved_other)
        y.sum().backward()
        eq(2 * a, a.grad)

    with saved_tensors_hooks(lambda x: 2 * x, lambda x: x):
        a = lib.randn(5, requires_grad=True)
        y = a * a
        eq(2 * a, y.grad_fn._saved_self)
        eq(2 * a, y.grad_fn._saved_other)
        y.sum().backward()
        eq(4 * a, a.grad)

    a = lib.randn(5, requires_grad=True)
    y = a * a
    eq(a, y.grad_fn._saved_self)
    eq(a, y.grad_fn._saved_other)
    y.sum().backward()
    eq(2 * a, a.grad)


def test_saved_variable_packing_unpacking_did_not_save_original_with_default_hooks(lib):
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        a = lib.randn(5, requires_grad=True)
        y = lib.exp(a)
        eq(y, y.grad_fn._saved_result)
        y.sum().backward()
        eq(a.grad, y)


def test_saving_variable_to_disk(lib):
    with tempfile.TemporaryDirectory() as tmp_dir:
        def pack(x):
            name = os.path.join(tmp_dir, str(uuid.uuid4()))
            lib.save(x, name)
            return name

        def unpack(name):
            return lib.load(name)

        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            a = lib.ones(5, requires_grad=True)
            y = a * a
            eq(a, y.grad_fn._saved_self)
            y.sum().backward()
            eq(2 * a, a.grad)


def test_graph_save_on_cpu(lib):
    def dense(t):  # (eq compares dense arrays)
        return t.to_dense() if t.is_sparse else t

    def test(get_input, cuda, pin_memory):
        with lib.autograd.graph.save_on_cpu(pin_memory):
            a = get_input()
            y = a * a
            eq(dense(a), dense(y.grad_fn._saved_self))
            eq(dense(a), dense(y.grad_fn._saved_other))
            assert a.dtype == y.grad_fn._saved_self.dtype
            assert a.layout == y.grad_fn._saved_self.layout
            if y.is_sparse:
                y = y.to_dense()
            y.sum().backward()
            actual = 2 * a
            expected = a.grad
            if a.is_sparse:
                actual = actual.coalesce()
                expected = expected.coalesce()
            eq(dense(actual), dense(expected))

    for cuda in [False]:
        for pin_memory in [True, False]:
            test(lambda: lib.randn(5, requires_grad=True), cuda, pin_memory)
            test(lambda: lib.randn(5, requires_grad=True, dtype=lib.double), cuda, pin_memory)
            x = lib.sparse_coo_tensor(lib.tensor([[1, 1]]).long(), lib.tensor([1.0, 1.0]),
                                      requires_grad=True)
            test(lambda: x, cuda, pin_memory)


# --- multi-grad hooks -------------------------------------------------------------------------

def test_multi_grad_any_hooks(lib):
    nn = lib.nn
    hook_id = 0
    any_hook_handles = []

    class MultiOutputModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            z = self.lin(x)
            out = lib.sin(z), lib.cos(z)
            nonlocal hook_id
            z.register_hook(partial(hook, hook_id))
            hook_id += 1
            any_hook_handles.append(lib.autograd.graph.register_multi_grad_hook(
                out, partial(hook, hook_id), mode="any"))
            hook_id += 1
            return out

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.mod1 = MultiOutputModule()
            self.mod2 = MultiOutputModule()

        def forward(self, x):
            y = self.mod1(x)
            z = y[0] + y[1]
            return self.mod2(z)

    hook_order = []
    hook_count = 0

    def hook(hook_id, *unused):
        nonlocal hook_count
        hook_count += 1
        hook_order.append(hook_id)

    model = Model()
    inp = lib.randn((2, 3))
    out = model(inp)
    (out[0] + out[1]).sum().backward()
    assert len(any_hook_handles) == 2
    assert hook_order == [3, 2, 1, 0]

    hook_id = 0
    hook_order.clear()
    any_hook_handles.clear()
    out = model(inp)
    for handle in any_hook_handles:
        handle.remove()
    (out[0] + out[1]).sum().backward()
    assert hook_order == [2, 0]


def test_multi_grad_hooks_invalid_mode(lib):
    t1 = lib.rand(2, requires_grad=True)
    t2 = lib.rand(2, requires_grad=True)
    regex = r"Expects mode to be one of \('all', 'any'\) but got foo"
    with raises(ValueError, regex):
        lib.autograd.graph.register_multi_grad_hook((t1, t2), lambda _: None, mode="foo")


# --- engine robustness ------------------------------------------------------------------------

_DEADLOCK_SCRIPT = """
import {lib} as torch

class Foo(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def forward(ctx, gO):
        return gO.clone()

def get_out():
    inp = torch.rand(2, requires_grad=True)
    right = Foo.apply(inp)
    left1 = inp.clone()
    left2 = left1 ** 2
    left1 += 1
    out = left2 + right
    return out

get_out().sum().backward()
"""


def test_pynode_destruction_deadlock(lib):
    # (upstream runs the script with `import torch`; here with the library under test)
    script = _DEADLOCK_SCRIPT.format(lib=lib.__name__)
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env['PYTHONPATH'] = root + os.pathsep + env.get('PYTHONPATH', '')
    try:
        subprocess.check_output([sys.executable, "-c", script], stderr=subprocess.STDOUT,
                                env=env, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("Example code timed out! See the code sample in the test for details.")
    except subprocess.CalledProcessError as e:
        if e.returncode < 0:
            pytest.fail("Subprocess exited with a fatal signal")
        else:
            err_msg = "RuntimeError: one of the variables needed for gradient computation"
            assert err_msg in e.output.decode("utf-8")


def test_grad_thread_safety(lib):
    from concurrent.futures import ThreadPoolExecutor

    NUM_ITERS = 10
    NUM_THREADS = 4

    def access_grad(tensor, barrier):
        barrier.wait()
        return weakref.ref(tensor.grad)

    for i in range(NUM_ITERS):
        tensor = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (tensor ** 2).sum().backward()
        barrier = threading.Barrier(NUM_THREADS)
        with ThreadPoolExecutor(max_workers=NUM_THREADS) as executor:
            futures = [executor.submit(access_grad, tensor, barrier)
                       for _ in range(NUM_THREADS)]
            for future in futures:
                eq(future.result()(), tensor.grad)
            assert tensor.grad is not None
