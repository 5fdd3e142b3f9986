"""PyTorch's test/test_nn.py, class TestNNDeviceType (its CPU instantiation), the tests whose
names sort before ``test_m`` about recurrent layers and gradient clipping: gradcheck and
gradgradcheck of LSTM and GRU, the double backward of an LSTM with the oneDNN (mkldnn) backend
off and on, and clip_grad_norm_'s ``error_if_nonfinite`` over infinite, NaN and overflowing
gradients.

Changed: test_LSTM_differentiable_backward_using_oneDNN switches the backend with the public
``torch.backends.mkldnn.flags(enabled=...)`` where upstream calls the private
``torch._C._set_mkldnn_enabled``.
Not adapted: test_lstmcell_backward_only_one_output_grad, test_device_mask,
test_clip_grad_norm_multi_device (CUDA only).
"""
import itertools
import math

import pytest

from ._nn_rest import eq, lib_fixture, rand, raises

XFAIL = {}
lib = lib_fixture(XFAIL)


def _check_rnn_mod(lib, mod, inp):
    """gradcheck and gradgradcheck of ``mod``'s outputs (the output and each hidden state,
    flattened into one tuple)."""
    def flatten_out(inp):
        out = mod(inp)
        return tuple([t if isinstance(t, lib.Tensor) else tt for t in out for tt in t])
    with lib.backends.cudnn.flags(enabled=False):
        assert lib.autograd.gradcheck(flatten_out, inp, check_batched_grad=False)
        assert lib.autograd.gradgradcheck(flatten_out, inp, check_batched_grad=False)


def _check_rnn_grad_and_gradgrad(lib, cls):
    hsize = 4
    inp = rand(lib, 1, 3, hsize, dtype='double', requires_grad=True)
    for bias in [True, False]:
        mod = cls(hsize, hsize, bias=bias).to(lib.double)
        _check_rnn_mod(lib, mod, inp)


def test_LSTM_grad_and_gradgrad(lib):
    _check_rnn_grad_and_gradgrad(lib, lib.nn.LSTM)


def test_GRU_grad_and_gradgrad(lib):
    _check_rnn_grad_and_gradgrad(lib, lib.nn.GRU)


@pytest.mark.parametrize('dtype', ['float32', 'bfloat16'])
def test_LSTM_differentiable_backward_using_oneDNN(lib, dtype):
    """(upstream's dtype parameter is unused: both cases run in float32)"""
    batch, seq_len, input = 10, 12, 3
    net = lib.nn.LSTM(input, 3, 20, batch_first=True)
    x = rand(lib, batch, seq_len, input)
    x1 = x.clone().requires_grad_(True)
    x2 = x.clone().requires_grad_(True)
    results = []
    for enabled, xi in [(False, x1), (True, x2)]:
        with lib.backends.mkldnn.flags(enabled=enabled):
            out, _ = net(xi)
            der_out = lib.autograd.grad(out, xi, grad_outputs=lib.ones_like(out),
                                        retain_graph=True, create_graph=True)[0]
            der_out.sum().backward(retain_graph=True)
        results.append(der_out)
    assert lib.allclose(results[0], results[1])
    assert lib.allclose(x1.grad, x2.grad)


def test_clip_grad_norm_error_if_nonfinite(lib):
    inf, nan = math.inf, math.nan
    norms_pos = [0.1, 1, 2, 3.5, inf]
    norms_neg = [-0.1, -1, -2, -3.5]
    norms_except_0 = norms_pos + norms_neg
    norms_all = norms_except_0 + [0]
    # (grad_only_one_elem, prefix_finite_grad_param, scalars, norms giving a nonfinite total,
    #  norms giving a finite one)
    test_cases = [
        (False, False, [inf, -inf], norms_except_0, [0]),
        (False, True, [inf, -inf], norms_pos, norms_neg + [0]),
        (True, False, [inf, -inf], norms_pos, norms_neg + [0]),
        (True, True, [inf, -inf], norms_pos, norms_neg + [0]),
        (False, False, [nan], norms_except_0, [0]),
        (False, True, [nan], norms_except_0, [0]),
        (True, False, [nan], norms_except_0, [0]),
        (True, True, [nan], norms_except_0, [0]),
        (False, False, [2e22, -2e22], [], norms_all),
        (False, True, [2e22, -2e22], [], norms_all),
        (True, False, [2e22, -2e22], [], norms_all),
        (True, True, [2e22, -2e22], [], norms_all),
        (False, False, [2e200, -2e200], [3.5, 2, -2, -3.5], [inf, 1, 0.1, 0, -1, -0.1]),
        (False, True, [2e200, -2e200], [3.5, 2], norms_neg + [inf, 1, 0.1, 0]),
        (True, False, [2e200, -2e200], [3.5, 2], norms_neg + [inf, 1, 0.1, 0]),
        (True, True, [2e200, -2e200], [3.5, 2], norms_neg + [inf, 1, 0.1, 0]),
    ]
    clip = lib.nn.utils.clip_grad_norm_

    def gen_parameters(scalar, grad_only_one_elem, prefix_finite_grad_param):
        param = lib.ones(10, dtype=lib.float64, requires_grad=True)
        if grad_only_one_elem:
            param[1].mul(scalar).sum().backward()
        else:
            param.mul(scalar).sum().backward()
        if prefix_finite_grad_param:
            prefix_param = lib.ones(1, dtype=lib.float64, requires_grad=True)
            prefix_param.mul(1).sum().backward()
            return [prefix_param, param]
        return [param]

    def run_test_case(norm_type, error_if_nonfinite, scalar, grad_only_one_elem,
                      prefix_finite_grad_param, is_norm_nonfinite):
        parameters = gen_parameters(scalar, grad_only_one_elem, prefix_finite_grad_param)
        if is_norm_nonfinite and error_if_nonfinite:
            grads_before = [p.grad.clone() for p in parameters]
            with raises(RuntimeError, f'The total norm of order {float(norm_type)} for '
                                      'gradients'):
                clip(parameters, 1, norm_type=norm_type, error_if_nonfinite=True)
            eq(grads_before, [p.grad for p in parameters])   # unchanged after the error
        else:
            clip(parameters, 1, norm_type=norm_type, error_if_nonfinite=error_if_nonfinite)

    for one_elem, prefix, scalars, norms_nonfinite, norms_finite in test_cases:
        for error_if_nonfinite in [False, True]:
            for norm_type, scalar in itertools.product(norms_nonfinite, scalars):
                run_test_case(norm_type, error_if_nonfinite, scalar, one_elem, prefix, True)
            for norm_type, scalar in itertools.product(norms_finite, scalars):
                run_test_case(norm_type, error_if_nonfinite, scalar, one_elem, prefix, False)
