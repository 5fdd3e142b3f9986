"""PyTorch's test/test_nn.py, class TestNNDeviceType (its CPU instantiation), the activation
and softmax tests among those named test_m* .. test_z*: in-place activations refusing an
input whose elements overlap (silu, mish, softplus and softshrink through ``out=``;
threshold is allowed), softshrink's values and its negative lambda, softplus' gradient with
a low threshold, softmax in bfloat16, and the transformer fast path's ``torch._masked_softmax``
(mask types, gradients, reduced precision, fully masked rows).

Upstream draws its inputs from torch's generator; here they come from NumPy's. Sizes are
cut where the behaviour tested is the same: the masked-softmax inputs (upstream up to
(12, 4, 1024, 1024)) run on (B, H, L) up to (3, 4, 31) and (2, 2, 64), the fully masked
(1500, 1200) input on (150, 120), the bfloat16 softmax input (16, 33, 15, 16) on
(4, 33, 5, 16). test_softshrink_negative checks torch 2.13's message (upstream's regex is
an older torch's).
Not adapted: test_masked_softmax_devices_parity, test_masked_softmax_transformer_layout,
test_masked_softmax_TxT_layout, test_softmax (CUDA only) and the CUDA-only 64-bit-indexing
and launch-configuration softmax tests.
"""
import numpy as np
import pytest

from ._nn_rest import eq, lib_fixture, oracle, rand, randn, raises

XFAIL = {}
lib = lib_fixture(XFAIL)

_OVERLAP = 'unsupported operation'


def test_softshrink_negative(lib):
    with raises(RuntimeError, r'lambda must be in range \[0, 3.40282e\+38\] for input dtype '
                              r'Float, but found -1'):
        lib.nn.Softshrink(-1)(randn(lib, 5, requires_grad=True))


def _overlapping(lib):
    return randn(lib, 1, 6).expand((6, 6))


def test_silu_inplace_overlap(lib):
    with raises(RuntimeError, _OVERLAP):
        lib.nn.functional.silu(_overlapping(lib), inplace=True)


def test_mish_inplace_overlap(lib):
    with raises(RuntimeError, _OVERLAP):
        lib.nn.functional.mish(_overlapping(lib), inplace=True)


def test_softplus_inplace_overlap(lib):
    x = _overlapping(lib)
    with raises(RuntimeError, _OVERLAP):
        lib.nn.functional.softplus(x, out=x)


def test_softshrink_inplace_overlap(lib):
    x = _overlapping(lib)
    with raises(RuntimeError, _OVERLAP):
        lib.nn.functional.softshrink(x, out=x)


def test_threshold_inplace_overlap(lib):
    """(in-place threshold is allowed: it is idempotent; here the result is also checked)"""
    x = _overlapping(lib)
    expected = lib.nn.functional.threshold(x.clone(), 0.5, 0.5)
    lib.nn.functional.threshold(x, 0.5, 0.5, inplace=True)
    lib.nn.functional.threshold_(x, 0.5, 0.5)
    eq(x, expected)


def test_softplus_out(lib):
    """(ember's own) ``out=`` of softplus and softshrink: resized when empty, written through
    a non-contiguous one."""
    F = lib.nn.functional
    x = randn(lib, 2, 3).t()
    for fn in (F.softplus, F.softshrink):
        empty = randn(lib, 0)
        assert fn(x, out=empty) is empty
        eq(empty, fn(x))
        noncontig = randn(lib, 2, 3, seed=1).t()
        fn(x, out=noncontig)
        eq(noncontig, fn(x))


def test_softplus_low_threshold(lib):
    model = lib.nn.Softplus(threshold=1).double()
    input = lib.tensor(0.9, dtype=lib.double, requires_grad=True)
    model(input)
    assert lib.autograd.gradcheck(model, input)


def test_softshrink(lib):
    x = lib.tensor([[1.21, 0.56, 0.5001, 0.4999, 1.2357, -0.4999, -0.5001, -1.154,
                     0.254, -0.24, -0.225, 0.104, 0.002, -0.001, 0.0574, 1.2344,
                     0.1748, -0.1797, -0.8125, 0.2051, -1.1328, 1.2344, -0.1562, 2.3554,
                     -0.1953, 0.0304, -0.3613, -1.3047, 1.0312, 0.1436, -0.6953, 0.5664,
                     -0.5820, -0.3301, 0.8203, 0.6133, 0.5938, float('nan')],
                    [-0.8203, -1.2344, -0.5234, 2.5312, -0.4551, -0.6875, -1.5547, -0.2217,
                     -0.3027, 2.6406, 1.3047, 0.2344, -1.6719, 0.2773, -1.3516, 3.4575,
                     0.4414, 0.2656, 2.1094, -1.5156, 1.2344, -0.4336, 0.6797, -3.5486,
                     0.9766, -0.4062, 1.4844, 0.7500, -1.7578, 0.7461, 1.6094, 8.5458,
                     0.3730, -0.3477, -1.0625, 0.3848, 0.0557, float('nan')]])
    expected = lib.tensor([[0.71, 0.06, 0.0001, 0., 0.7357, 0., -0.0001, -0.654,
                            0., 0., 0., 0., 0., 0., 0., 0.7344,
                            0., 0., -0.3125, 0., -0.6328, 0.7344, 0., 1.8554,
                            0., 0., 0., -0.8047, 0.5312, 0., -0.1953, 0.0664,
                            -0.0820, 0.0, 0.3203, 0.1133, 0.0938, float('nan')],
                           [-0.3203, -0.7344, -0.0234, 2.0312, 0.0, -0.1875, -1.0547, 0.,
                            0.0, 2.1406, 0.8047, 0., -1.1719, 0., -0.8516, 2.9575,
                            0., 0., 1.6094, -1.0156, 0.7344, 0., 0.1797, -3.0486,
                            0.4766, 0., 0.9844, 0.2500, -1.2578, 0.2461, 1.1094, 8.0458,
                            0., 0., -0.5625, 0., 0., float('nan')]])
    eq(lib.nn.Softshrink()(x), expected, atol=1e-2, rtol=0)


def _bfloat16_ops(lib, op, inp_dims, prec, scale_factor=None):
    """common_nn's ``_test_bfloat16_ops``: ``op`` in bfloat16 against float32, forward and
    backward."""
    if scale_factor is None:
        input1 = randn(lib, *inp_dims, requires_grad=True)
    else:
        input1 = (rand(lib, *inp_dims).bfloat16() * scale_factor).float().requires_grad_()
    out1 = op(input1)
    grad_input1 = randn(lib, *out1.shape, seed=1)
    out1.backward(grad_input1)
    op_bfp16 = op.bfloat16()
    input2 = input1.detach().bfloat16().requires_grad_()
    out2 = op_bfp16(input2)
    out2.backward(grad_input1.bfloat16())
    assert out2.dtype == lib.bfloat16 and input2.grad.dtype == lib.bfloat16
    eq(out1, out2, atol=prec, rtol=prec)
    eq(input1.grad, input2.grad, atol=prec, rtol=prec)


@pytest.mark.parametrize('dim', [0, 1, 2, 3])
def test_softmax_bfloat16(lib, dim):
    _bfloat16_ops(lib, lib.nn.Softmax(dim=dim), (4, 33, 5, 16), prec=1e-2)
    # with large inputs, whose exp() overflows
    _bfloat16_ops(lib, lib.nn.Softmax(dim=dim), (4, 33, 5, 16), prec=0.05, scale_factor=1000.0)


# -- torch._masked_softmax ------------------------------------------------------------------
_SIZES = [(1, 1, 32), (3, 4, 31), (2, 2, 64)]


def _bools(lib, shape, seed):
    return lib.tensor(np.random.default_rng(seed).integers(0, 2, shape).astype(bool))


def _slow_masked_softmax(lib, input, mask, dim):
    exp = lib.exp(input) * mask
    return lib.nan_to_num(exp / exp.sum(dim=dim, keepdim=True).expand(exp.size()))


def _compare_outside_full_rows(lib, input, native_res, mask, dim):
    """The masked softmax of ``input`` against the slow one, except the rows masked
    entirely (whose values are unspecified)."""
    pt_res = _slow_masked_softmax(lib, input, ~mask, dim)
    mask_out = mask.all(dim, keepdim=True).expand(mask.shape)
    eq(pt_res.masked_fill(mask_out, 0), native_res.masked_fill(mask_out, 0))
    assert native_res.dtype == pt_res.dtype


def test_masked_softmax_mask_types(lib):
    """mask type 0 (an LxL attention mask), 1 (a BxL padding mask) and 2 (a BxHxLxL mask)."""
    for i, (B, num_heads, L) in enumerate(_SIZES):
        src_mask_orig = _bools(lib, (L, L), 10 * i)
        src_mask = src_mask_orig.reshape(1, 1, L, L).expand(B, num_heads, L, L)
        padding_orig = _bools(lib, (B, L), 10 * i + 1)
        padding = padding_orig.reshape(B, 1, 1, L).expand(B, num_heads, L, L)
        generic_mask = _bools(lib, (B, num_heads, L, L), 10 * i + 2)
        for dim in [0, 3]:
            for mask_orig, mask, mask_type in [(src_mask_orig, src_mask, 0),
                                               (padding_orig, padding, 1),
                                               (generic_mask, generic_mask, 2)]:
                input = randn(lib, B, num_heads, L, L, seed=10 * i + 3)
                native_res = lib._masked_softmax(input, mask_orig, dim, mask_type)
                _compare_outside_full_rows(lib, input, native_res, mask, dim)


def test_masked_softmax(lib):
    for i, (B, num_heads, L) in enumerate(_SIZES):
        for dim in [0, 3]:
            input = randn(lib, B, num_heads, L, L, seed=i)
            mask = _bools(lib, (B, L), 10 + i).reshape(B, 1, 1, L).expand(
                B, num_heads, L, L)
            native_res = lib._masked_softmax(input, mask, dim, 1)  # BxL: src_key_padding_mask
            _compare_outside_full_rows(lib, input, native_res, mask, dim)


@pytest.mark.parametrize('dtype,prec', [('bfloat16', 2e-2), ('half', 3e-3)])
def test_masked_softmax_lowp(lib, dtype, prec):
    dt = getattr(lib, dtype)
    rtol = 1.6e-2 if dtype == 'bfloat16' else 1e-3
    for i, (B, num_heads, L) in enumerate(_SIZES):
        for dim in [0, 3]:
            input_lowp = randn(lib, B, num_heads, L, L, seed=i).to(dt).requires_grad_()
            input_ref = input_lowp.float().detach().requires_grad_()
            mask = _bools(lib, (B, L), 10 + i).reshape(B, 1, 1, L).expand(
                B, num_heads, L, L)
            for mask_type in [1, 2]:
                res_ref = lib._masked_softmax(input_ref, mask, dim, mask_type)
                res = lib._masked_softmax(input_lowp, mask, dim, mask_type)
                assert res.dtype == dt
                eq(res_ref.to(dt), res, atol=prec, rtol=rtol)
                grad_lowp = randn(lib, *res_ref.shape, seed=20 + i).to(dt)
                res_ref.backward(grad_lowp.float())
                res.backward(grad_lowp)
                eq(input_ref.grad.to(dt), input_lowp.grad, atol=prec, rtol=rtol)


def _masked_softmax_helper(lib, input, dim, mask, mask_type):
    input_ref = input.detach().clone().requires_grad_()
    result = lib._masked_softmax(input, mask, dim, mask_type)
    expected = lib._softmax(input_ref.masked_fill(mask, float('-inf')), dim, False)
    grad = randn(lib, *expected.shape, seed=99).to(dtype=expected.dtype)
    result.backward(grad)
    expected.backward(grad)
    assert type(result.grad_fn).__name__ == 'MaskedSoftmaxBackward0'
    if dim == input.dim() - 1:   # the optional argument works as well
        input_ref_default = input.detach().clone().requires_grad_()
        result_default = lib._masked_softmax(input_ref_default, mask, None, mask_type)
        result_default.backward(grad)
        eq(result, result_default)
        eq(input.grad, input_ref_default.grad)
    # the rows masked entirely are unspecified: compared after zeroing them
    mask_out = mask.all(dim, keepdim=True).expand(mask.shape)
    eq(result.masked_fill(mask_out, 0), expected.masked_fill(mask_out, 0))
    eq(input.grad, lib.nan_to_num(input_ref.grad))
    eq(input.grad, input.grad.masked_fill(mask, 0.0))


def test_masked_softmax_grad(lib):
    for i, shape in enumerate(_SIZES):
        for dim in [0, len(shape) - 1]:
            for mask_type in [1, 2]:  # 1 = BxL => src_key_padding_mask
                input = randn(lib, *shape, seed=i, requires_grad=True)
                mask = _bools(lib, shape, 10 + i)
                _masked_softmax_helper(lib, input, dim, mask, mask_type)


def test_masked_softmax_forward_with_nans(lib):
    """(the forward gives NaN rows: along dim 0 every other column is masked entirely)"""
    for x, y in [(4, 5), (50, 100), (150, 120)]:
        for mask_type in [1, 2]:
            input = randn(lib, x, y, requires_grad=True)
            mask = lib.tensor([i % 2 for i in range(y)]).expand((x, y)).bool()
            _masked_softmax_helper(lib, input, 0, mask, mask_type)


def test_masked_softmax_errors():
    """(ember's own) the masked softmax's argument checks: torch's classes and messages."""
    x = lambda lib: randn(lib, 2, 3, 4, 4)                            # noqa: E731
    zeros = lambda lib, *s: lib.zeros(*s, dtype=lib.bool)           # noqa: E731
    oracle(lambda lib: lib._masked_softmax(x(lib), zeros(lib, 2, 4).float(), 3, 1))
    oracle(lambda lib: lib._masked_softmax(x(lib), zeros(lib, 2, 4), 3))
    oracle(lambda lib: lib._masked_softmax(x(lib), zeros(lib, 2, 4), 3, 3))
    oracle(lambda lib: lib._masked_softmax(x(lib), zeros(lib, 3, 4), 3, 1))
    oracle(lambda lib: lib._masked_softmax(x(lib), zeros(lib, 4, 5), 3, 0))
    oracle(lambda lib: lib._masked_softmax(x(lib), zeros(lib, 2, 3, 4, 4), 4, 2))
    oracle(lambda lib: lib._masked_softmax(x(lib), zeros(lib, 2, 3, 4, 3), 3, 2))
    oracle(lambda lib: lib._masked_softmax(randn(lib, 5, 6), zeros(lib, 6), 0, 1))
    oracle(lambda lib: lib._masked_softmax(lib.ones(5, 6, dtype=lib.int32), zeros(lib, 5, 6),
                                           0, 2))
    oracle(lambda lib: lib._masked_softmax(lib.tensor(1.5), lib.tensor(False), 0, 2))
    oracle(lambda lib: lib._masked_softmax(lib.tensor([[1., 2.], [3., 4.]]),
                                           lib.tensor([[True, True], [False, True]]), 1, 2))


@pytest.mark.parametrize('name', ['_softmax', '_log_softmax'])
def test_aten_softmax(name):
    """(ember's own) aten's ``_softmax`` / ``_log_softmax``, which the masked-softmax tests
    take as their reference: values, graph node, and torch's errors (``half_to_float`` is
    GPU-only)."""
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    for dim, half_to_float in [(1, False), (-1, False), (0, True), (2, False)]:
        oracle(lambda lib: getattr(lib, name)(lib.tensor(data), dim, half_to_float),
               rtol=1e-6, atol=1e-7)
        oracle(lambda lib: getattr(lib, name)(lib.tensor(data).int(), dim, half_to_float))
    oracle(lambda lib: type(getattr(lib, name)(lib.tensor(data, requires_grad=True), 1,
                                               False).grad_fn).__name__)
