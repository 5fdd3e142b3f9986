"""Module full backward hooks and pre-hooks against torch: what the hooks see, what they may
replace, their errors, removal."""
import warnings

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, assert_same_tensor


class Scale2(object):
    """A module (built for ``lib``) with a tensor and a non-tensor positional argument and two
    outputs, so the hooks see packed tuples with None slots."""

    @staticmethod
    def make(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.tensor(arr(3, dtype=np.float64, seed=4)))

            def forward(self, x, k, y):
                return x * self.w * k, (y * self.w).sum()
        return M()


def _describe(grads):
    return [None if g is None else g.detach().numpy().round(10).tolist() for g in grads]


def _run(lib, *, input_grad, hook_result=None, pre_result=None):
    m = Scale2.make(lib)
    seen = []

    def pre(mod, grad_output):
        seen.append(('pre', _describe(grad_output)))
        return pre_result(grad_output) if pre_result else None

    def hook(mod, grad_input, grad_output):
        assert mod is m
        seen.append(('hook', _describe(grad_input), _describe(grad_output)))
        return hook_result(grad_input) if hook_result else None

    m.register_full_backward_pre_hook(pre)
    handle = m.register_full_backward_hook(hook)
    x = lib.tensor(arr(3, dtype=np.float64, seed=1), requires_grad=input_grad)
    y = lib.tensor(arr(3, dtype=np.float64, seed=2), requires_grad=input_grad)
    a, b = m(x, 2.0, y)
    names = [type(a.grad_fn).__name__, type(b.grad_fn).__name__]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        (a.sum() + b).backward()
    grads = [x.grad, y.grad, m.w.grad]
    handle.remove()
    m.w.grad = None
    a, b = m(x, 2.0, y)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        (a.sum() + b).backward()
    return seen, names, grads


@pytest.mark.parametrize('input_grad', [True, False])
def test_hooks_see_grad_input_and_grad_output_with_none_slots(input_grad):
    e, t = _run(ember, input_grad=input_grad), _run(torch, input_grad=input_grad)
    assert e[0] == t[0]   # what each hook saw, in order, incl. after removal (pre only)
    assert e[1] == t[1]   # BackwardHookFunctionBackward on the outputs
    for ge, gt in zip(e[2], t[2]):
        assert (ge is None) == (gt is None)
        if ge is not None:
            assert_same_tensor(ge, gt, 'grad')


def test_hook_replaces_grad_input_and_pre_hook_replaces_grad_output():
    def kw(lib):
        return dict(input_grad=True,
                    hook_result=lambda gi: (gi[0] * 10, None, gi[2]),
                    pre_result=lambda go: (go[0] * 3, go[1]))
    e, t = _run(ember, **kw(ember)), _run(torch, **kw(torch))
    assert e[0] == t[0]
    for ge, gt in zip(e[2], t[2]):
        assert_same_tensor(ge, gt, 'grad')


@pytest.mark.parametrize('case', ['wrong_count', 'pre_wrong_count', 'no_input_grad_change'])
def test_hook_errors_match_torch(case):
    raised = []
    for lib in (ember, torch):
        kw = {'wrong_count': dict(input_grad=True, hook_result=lambda gi: (gi[0],)),
              'pre_wrong_count': dict(input_grad=True, pre_result=lambda go: (go[0],)),
              'no_input_grad_change': dict(input_grad=False,
                                           hook_result=lambda gi: (lib.ones(3), None, None))}
        with pytest.raises(RuntimeError) as info:
            _run(lib, **kw[case])
        raised.append(str(info.value))
    assert raised[0] == raised[1]


def test_no_hooks_means_no_extra_node():
    for lib in (ember, torch):
        m = lib.nn.Linear(2, 2)
        h = m.register_full_backward_hook(lambda *a: None)
        x = lib.ones(1, 2, requires_grad=True)
        assert type(m(x).grad_fn).__name__ == 'BackwardHookFunctionBackward'
        h.remove()
        assert type(m(x).grad_fn).__name__ == 'AddmmBackward0'


def _hook_calls_per_backward(lib):
    """How many times a full backward hook fires in each of: a backward through the module
    twice (retain_graph), a double backward of a gradient taken with create_graph."""
    class Square(lib.nn.Module):
        def forward(self, t):
            return (t * t).sum()  # (its gradient uses the input, not the output)
    m = Square()
    calls = []
    m.register_full_backward_hook(lambda mod, gi, go: calls.append(len(gi)))
    x = lib.tensor(arr(4, 3, dtype=np.float64, seed=5), requires_grad=True)
    out = m(x) * 3
    counts = []
    for _ in range(2):
        out.backward(retain_graph=True)
        counts.append(len(calls))
    (gx,) = lib.autograd.grad(m(x), x, create_graph=True)
    counts.append(len(calls))
    gx.sum().backward()  # through the module's saved inputs, not its outputs
    counts.append(len(calls))
    return counts, calls


def test_hook_fires_once_per_pass_through_the_module():
    assert _hook_calls_per_backward(ember) == _hook_calls_per_backward(torch)
