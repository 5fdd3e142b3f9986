"""The LLTM example (examples/lltm): its C++ forward and backward in an autograd.Function pass
gradcheck in float64, agree with the same cell in plain ember ops and in real torch, and
refuse bad input with clear errors."""
import numpy as np
import pytest

import ember
from examples.lltm import lltm


@pytest.fixture(scope='module')
def built(toolchain):
    return lltm.extension()


def _inputs(lib, batch=4, features=6, state=5, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(batch, features), (3 * state, features + state), (3 * state,),
              (batch, state), (batch, state)]
    scale = [1.0, 0.3, 0.3, 1.0, 1.0]
    return [lib.tensor((rng.standard_normal(s) * k).astype(dtype), requires_grad=True)
            for s, k in zip(shapes, scale)]


def _forward_backward(cell, args, lib):
    new_h, new_cell = cell(*args)
    rng = np.random.default_rng(1)
    weights = [lib.tensor(rng.standard_normal(tuple(t.shape)).astype(_numpy(t).dtype))
               for t in (new_h, new_cell)]
    ((new_h * weights[0]).sum() + (new_cell * weights[1]).sum()).backward()
    return [new_h, new_cell] + [a.grad for a in args]


def _numpy(t):
    return t.detach().numpy()


def test_gradcheck_float64(built):
    assert ember.autograd.gradcheck(lltm.LLTMFunction.apply, _inputs(ember, 3, 4, 5))


def test_check_function_report(built):
    report = ember.autograd.check_function(lltm.LLTMFunction, *_inputs(ember, 3, 4, 5))
    assert report.ok, str(report)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_agrees_with_plain_ember_ops(built, dtype):
    cpp = _forward_backward(lltm.LLTMFunction.apply, _inputs(ember, dtype=dtype), ember)
    plain = _forward_backward(lambda *a: lltm.lltm_cell(ember, *a), _inputs(ember, dtype=dtype),
                              ember)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for a, b in zip(cpp, plain):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=tol, atol=tol)


def test_agrees_with_the_same_cell_in_torch(built):
    torch = pytest.importorskip('torch', reason="real PyTorch 2.13 (the oracle) is not installed")
    ours = _forward_backward(lltm.LLTMFunction.apply, _inputs(ember), ember)
    theirs = _forward_backward(lambda *a: lltm.lltm_cell(torch, *a), _inputs(torch), torch)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=1e-12, atol=1e-12)


def test_module_trains_its_parameters(built):
    ember.manual_seed(0)
    layer = lltm.LLTM(6, 5)
    assert [tuple(p.shape) for p in layer.parameters()] == [(15, 11), (15,)]
    x, h, c = ember.randn(4, 6), ember.randn(4, 5), ember.randn(4, 5)
    new_h, new_c = layer(x, (h, c))
    assert new_h.grad_fn is not None and new_h.grad_fn.name() == 'LLTMFunctionBackward'
    (new_h.sum() + new_c.sum()).backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in layer.parameters())
    assert x.grad is None  # inputs that need no gradient get none (and cost no matmul)


def test_bad_input_is_refused(built):
    x, w, b, h, c = [t.detach() for t in _inputs(ember, dtype=np.float32)]
    with pytest.raises(TypeError, match='^lltm: weights must be Float like input, got Double$'):
        lltm.extension().forward(x, w.double(), b, h, c)
    with pytest.raises(RuntimeError, match=r'^lltm: old_cell must have shape \[4, 5\], got '
                                           r'\[4, 6\]$'):
        lltm.extension().forward(x, w, b, h, ember.zeros(4, 6))
    with pytest.raises(NotImplementedError, match='''^"lltm_forward" not implemented for '''
                                                  "'Long'$"):
        lltm.extension().forward(*[t.long() for t in (x, w, b, h, c)])
