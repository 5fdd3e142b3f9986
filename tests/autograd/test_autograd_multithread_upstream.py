"""PyTorch's test/test_autograd.py, class TestMultithreadAutograd, adapted to run on ember and
torch.

Each upstream test keeps its name and its assertions; ``torch.`` became ``lib.`` and every
test runs twice (``[ember]`` and ``[torch]``). ember's run of a test listed in ``XFAIL`` is
expected to fail (strict), for the reason given.

Upstream tests of the class not adapted, and why:
- test_custom_function_propagates_errors_from_device_thread: needs CUDA.
"""
import re
import sys
import threading
import traceback
import warnings

import pytest

from ._upstream import lib_fixture, eq, ember

# (register_multi_grad_hook comes with another branch of this session, where these tests
# pass on ember; until it is merged they are expected to fail here)
_NO_MULTI_GRAD_HOOK = "ember.autograd.graph has no register_multi_grad_hook on this branch"
XFAIL = {} if hasattr(ember.autograd.graph, 'register_multi_grad_hook') else {
    'test_multi_grad_all_hooks': _NO_MULTI_GRAD_HOOK,
    'test_multi_grad_any_hooks': _NO_MULTI_GRAD_HOOK,
}

lib = lib_fixture(XFAIL)


class _PropagatingThread(threading.Thread):
    """A thread whose ``join`` re-raises the exception its target raised."""

    def run(self):
        self.exception = None
        self.ret = None
        try:
            self.ret = self._target(*self._args)
        except Exception as e:  # noqa: BLE001 - handed to the joining thread
            self.exception = e

    def join(self, timeout=None):
        super().join(timeout)
        if self.exception:
            raise self.exception from self.exception
        return self.ret


def _run_py_multithread_fn(fn, args=(), num_threads=10, pass_idx=False):
    threads = []
    for idx in range(num_threads):
        p = _PropagatingThread(target=fn, args=((idx, *args) if pass_idx else args))
        p.start()
        threads.append(p)
    for p in threads:
        p.join()


def test_multithreaded_exception_propagation(lib):
    # an exception in a child thread reaches the main thread
    def fn():
        assert False

    with pytest.raises(AssertionError):
        _run_py_multithread_fn(fn)


def test_simple_backward(lib):
    # each thread builds and differentiates its own graph
    def train_fn():
        x = lib.ones(5, 5, requires_grad=True)
        y = (x + 3) * (x + 4) * 0.5
        y.sum().backward()
        eq(x.grad, x + 3.5)

    _run_py_multithread_fn(train_fn)


def test_simple_backward_same_input(lib):
    # the threads share their input (Hogwild-style training)
    def train_fn_backward(x):
        y = (x + 3) * (x + 4) * 0.5
        y.sum().backward()

    x = lib.ones(5, 5, requires_grad=True)
    _run_py_multithread_fn(train_fn_backward, (x,))
    # every backward accumulates into the same .grad
    eq(x.grad, 10 * (x + 3.5))

    def train_fn_grad(x):
        y = (x + 3) * (x + 4) * 0.5
        grads = lib.autograd.grad(y.sum(), x)
        eq(len(grads), 1)
        eq(grads[0], x + 3.5)

    # autograd.grad accumulates nothing
    _run_py_multithread_fn(train_fn_grad, (x,))


def test_multi_grad_all_hooks(lib):
    # a multi-grad hook fires once per backward, even when the backwards run concurrently
    t1 = lib.rand(2, requires_grad=True)
    t2 = lib.rand(2, requires_grad=True)
    t3 = lib.rand(2, requires_grad=True)
    t4 = lib.rand(2, requires_grad=True)

    res = None
    count = [0]
    hook_lock = threading.Lock()

    def hook(grads):
        nonlocal res
        with hook_lock:
            count[0] += 1
            grad_is_none = [g is not None for g in grads]
            if res is None:
                res = grad_is_none
            else:
                eq(res, grad_is_none)

    handle = lib.autograd.graph.register_multi_grad_hook((t1, t2, t3, t4), hook)

    out = (t2 * t3).sum()

    def backward_retain_graph(out, t2, t3):
        out.backward(inputs=(t2, t3), retain_graph=True)

    _run_py_multithread_fn(backward_retain_graph, (out, t2, t3), num_threads=5)

    eq(count[0], 5)
    eq(res, [False, True, True, False])

    # one backward fails: its hook never fires
    res = None
    count = [0]
    err_count = [0]
    bw_count = [0]
    bw_count_lock = threading.Lock()
    err_count_lock = threading.Lock()

    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, gO):
            with bw_count_lock:
                bw_count[0] += 1
                if bw_count[0] == 1:
                    raise RuntimeError("error message")
                else:
                    return gO

    out = (Func.apply(t2) * t3).sum()

    def backward_retain_graph(out, t2, t3):
        try:
            out.backward(inputs=(t2, t3), retain_graph=True)
        except RuntimeError:
            with err_count_lock:
                err_count[0] += 1

    _run_py_multithread_fn(backward_retain_graph, (out, t2, t3), num_threads=5)

    eq(count[0], 4)
    eq(err_count[0], 1)
    eq(res, [False, True, True, False])

    handle.remove()


def test_multi_grad_any_hooks(lib):
    t1 = lib.rand(2, requires_grad=True)
    t2 = lib.rand(2, requires_grad=True)
    t3 = lib.rand(2, requires_grad=True)
    t4 = lib.rand(2, requires_grad=True)

    res = None
    count = [0]
    hook_lock = threading.Lock()

    def hook(grad):
        nonlocal res
        with hook_lock:
            count[0] += 1
            if res is None:
                res = "foo"
            else:
                eq(res, "foo")

    lib.autograd.graph.register_multi_grad_hook((t1, t2, t3, t4), hook, mode="any")

    out = (t2 * t3).sum()

    def backward_retain_graph(out, t2, t3):
        out.backward(inputs=(t2, t3), retain_graph=True)

    _run_py_multithread_fn(backward_retain_graph, (out, t2, t3), num_threads=5)
    eq(count[0], 5)
    eq(res, "foo")

    # one thread's backward fails
    res = None
    count = [0]
    err_count = [0]
    bw_count = [0]
    bw_count_lock = threading.Lock()
    err_count_lock = threading.Lock()

    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, gO):
            with bw_count_lock:
                bw_count[0] += 1
                if bw_count[0] == 1:
                    raise RuntimeError("error message")
                else:
                    return gO

    out = (Func.apply(t2) * t3).sum()

    def backward_retain_graph(out, t2, t3):
        try:
            out.backward(inputs=(t2, t3), retain_graph=True)
        except RuntimeError:
            with err_count_lock:
                err_count[0] += 1

    _run_py_multithread_fn(backward_retain_graph, (out, t2, t3), num_threads=5)

    # the hook runs before the custom backward, so in all 5 threads
    eq(count[0], 5)
    eq(err_count[0], 1)
    eq(res, "foo")


def test_dataparallel_saved_tensors_hooks(lib):
    def pack(x):
        warnings.warn("pack")
        return x

    class Model(lib.nn.Module):
        def forward(self, x):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                y = x * x
                if lib.cuda.device_count() >= 2:
                    # (several threads, which do not inherit the hooks)
                    eq(len(w), 0)
                else:
                    # one thread: the hooks apply
                    assert len(w) > 0

    x = lib.ones(5, 5, requires_grad=True)
    model = lib.nn.DataParallel(Model())

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
        model(x)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            y = x * x
            assert len(w) > 0


def test_fork_join_in_middle(lib):
    # multiple backward with jit threads (the fork/join primitives), as
    # test_python_thread_in_middle does with Python threads: without retain_graph=True it
    # may raise, with it each call gets the gradient
    @lib.jit.script
    def train_fn_jit_no_retain(middle, orig_x):
        y = middle + middle**2
        return lib.autograd.grad([y.sum()], [orig_x])

    @lib.jit.script
    def train_fn_fork_join_calls_no_retain(x):
        y_no_retain = (x + 3) * (x + 4) * 0.5
        fut = lib.jit._fork(train_fn_jit_no_retain, y_no_retain, x)
        grad_hat = train_fn_jit_no_retain(y_no_retain, x)
        grad = lib.jit._wait(fut)
        return grad, grad_hat

    try:
        train_fn_fork_join_calls_no_retain(lib.randn(5, 5, requires_grad=True))
    except RuntimeError as error:
        assert re.search("Specify retain_graph=True", str(error))

    @lib.jit.script
    def train_fn_jit_retain(middle, orig_x):
        y = middle + middle**2
        return lib.autograd.grad([y.sum()], [orig_x], retain_graph=True)

    @lib.jit.script
    def train_fn_fork_join_calls_retain(x):
        y_retain = (x + 3) * (x + 4) * 0.5
        fut1 = lib.jit._fork(train_fn_jit_retain, y_retain, x)
        fut2 = lib.jit._fork(train_fn_jit_retain, y_retain, x)
        grad = train_fn_jit_retain(y_retain, x)
        grad1 = lib.jit._wait(fut1)
        grad2 = lib.jit._wait(fut2)
        return grad, grad1, grad2

    grad, grad1, grad2 = train_fn_fork_join_calls_retain(lib.randn(5, 5, requires_grad=True))
    eq(grad, grad1)
    eq(grad, grad2)


def test_python_thread_in_middle(lib):
    # A graph built on one thread, then differentiated from several threads at once (a Y
    # shape): without retain_graph=True, all but one must refuse, with a message saying so.
    success_vs_raises = [0, 0]
    lock = threading.Lock()

    def train_fn_no_retain_graph(x):
        y = x + x ** 2
        try:
            y.sum().backward()
            with lock:
                success_vs_raises[0] += 1
        except RuntimeError as error:
            with lock:
                success_vs_raises[1] += 1
            assert "Specify retain_graph=True" in str(error)

    x_no_retain = lib.ones(5, 5, requires_grad=True)
    y_no_retain = x_no_retain + x_no_retain ** 2
    _run_py_multithread_fn(train_fn_no_retain_graph, (y_no_retain,), num_threads=5)
    # at least one thread succeeds
    assert success_vs_raises[0] >= 1

    # with retain_graph=True, none fails
    def train_fn_retain_graph(x):
        y = x + x ** 2
        y.sum().backward(retain_graph=True)

    x_retain = lib.ones(5, 5, requires_grad=True)
    y_retain = x_retain + x_retain ** 2
    _run_py_multithread_fn(train_fn_retain_graph, (y_retain,), num_threads=5)
    # num_threads times the gradient
    eq(x_retain.grad, 5 * (4 * x_retain ** 3 + 6 * (x_retain ** 2) + 4 * x_retain + 1))


def test_preserve_backtrace(lib):
    class Foo(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            return input

        @staticmethod
        def backward(ctx, *grad):
            raise ValueError("something")

    t = lib.rand(10, requires_grad=True)
    try:
        Foo.apply(t).sum().backward()
    except Exception:
        tb = sys.exc_info()[2]
        tb_str = "\n".join(traceback.format_tb(tb))
        assert 'raise ValueError("something")' in tb_str


def test_cat_stack_r_to_c(lib):
    inp_c = lib.rand(3, 2, dtype=lib.cdouble, requires_grad=True)
    inp_r = lib.randn(3, 2, dtype=lib.double, requires_grad=True)

    def fn(x1, x2):
        return lib.cat((x1, x2), dim=-1)

    def fn2(x1, x2):
        return lib.stack((x1, x2), dim=-1)

    lib.autograd.gradcheck(fn, [inp_r, inp_c], check_forward_ad=True)
    lib.autograd.gradcheck(fn, [inp_c, inp_r], check_forward_ad=True)

    lib.autograd.gradcheck(fn2, [inp_r, inp_c], check_forward_ad=True)
    lib.autograd.gradcheck(fn2, [inp_c, inp_r], check_forward_ad=True)


def test_set_multithreading_enabled_as_context_manager_and_function(lib):
    # as a context manager
    with lib.autograd.set_multithreading_enabled(False):
        assert not lib.autograd.is_multithreading_enabled()
    assert lib.autograd.is_multithreading_enabled()

    with lib.autograd.set_multithreading_enabled(True):
        assert lib.autograd.is_multithreading_enabled()
    assert lib.autograd.is_multithreading_enabled()

    with lib.autograd.set_multithreading_enabled(False):
        lib.autograd.set_multithreading_enabled(True)
        assert lib.autograd.is_multithreading_enabled()
    assert lib.autograd.is_multithreading_enabled()

    # as a function
    lib.autograd.set_multithreading_enabled(False)
    assert not lib.autograd.is_multithreading_enabled()

    lib.autograd.set_multithreading_enabled(True)
    assert lib.autograd.is_multithreading_enabled()
