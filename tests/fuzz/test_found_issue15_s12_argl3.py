"""Findings of the fuzzer's out=, wrong-type and unsigned-dtype sweeps (issue 15, session 12,
helper argl3), each pinned against torch."""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check


def _quiet(fn):
    def run(T, *a):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return fn(T, *a)
    return run


# (call, input dtype, out dtype): torch refuses an out= tensor of another dtype than the
# input's before the dims, the sizes and its kernel's dtype support
_OUT_INPUT_DTYPE = [
    (lambda T, x, o: T.logcumsumexp(x, 0, out=o), 'float32', 'float64'),
    (lambda T, x, o: T.logcumsumexp(x, 5, out=o), 'float32', 'int32'),
    (lambda T, x, o: T.logcumsumexp(x, 0, out=o), 'uint8', 'float16'),
    (lambda T, x, o: T.logcumsumexp(x, 0, out=o), 'bool', 'float64'),
    (lambda T, x, o: T.vdot(x, x, out=o), 'float32', 'float64'),
    (lambda T, x, o: T.vdot(x, x, out=o), 'bool', 'float64'),
    (lambda T, x, o: T.vdot(x, x[:2], out=o), 'float32', 'float64'),
    (lambda T, x, o: T.histc(x, out=o), 'float32', 'float64'),
    (lambda T, x, o: T.histc(x, out=o), 'int32', 'int8'),
    (lambda T, x, o: T.histc(x, out=o), 'complex64', 'float64'),
    (lambda T, x, o: T.histc(x, bins=-1, out=o), 'float16', 'float32'),
    (lambda T, x, o: T.histc(x.requires_grad_(), out=o), 'float32', 'float64'),
    (lambda T, x, o: T.narrow_copy(x, 0, 0, 2, out=o), 'float32', 'float64'),
    (lambda T, x, o: T.narrow_copy(x, 0, 7, 2, out=o), 'float32', 'float16'),
    (lambda T, x, o: T.narrow_copy(x, -3, 0, 1, out=o), 'float64', 'uint8'),
    (lambda T, x, o: T.amax(x[:0], 0, out=o), 'float32', 'int64'),
    (lambda T, x, o: T.amin(x[:0], out=o), 'float32', 'int64'),
    (lambda T, x, o: T.amax(x, 5, out=o), 'complex64', 'int64'),
    (lambda T, x, o: T.amin(x, 0, out=o), 'float32', 'float64'),
    # (the same dtype: the op's own errors)
    (lambda T, x, o: T.logcumsumexp(x, 0, out=o), 'int64', 'int64'),
    (lambda T, x, o: T.amax(x[:0], 0, out=o), 'complex64', 'complex64'),
    (lambda T, x, o: T.narrow_copy(x, 0, 0, 5, out=o), 'float32', 'float32'),
    # (autograd's refusal of out= first)
    (lambda T, x, o: T.vdot(x.requires_grad_(), x, out=o), 'float32', 'float64'),
    (lambda T, x, o: T.logcumsumexp(x.requires_grad_(), 0, out=o), 'float32', 'float64'),
]


@pytest.mark.parametrize('call,dtype,out', _OUT_INPUT_DTYPE)
def test_out_of_another_dtype_than_the_input_is_refused_first(call, dtype, out):
    """logcumsumexp, vdot, histc, narrow_copy, amax/amin: ember checked out's dtype after
    the dims and the kernel's dtype support, or not at all (a float64 out of a float32
    logcumsumexp or histc answered); torch refuses it first."""
    def run(T):
        x = T.ones(3, dtype=getattr(T, dtype))
        return call(T, x, T.empty(3, dtype=getattr(T, out)))
    check(_quiet(run), grad=False, match_message=True)


@pytest.mark.parametrize('src', ['float16', 'bfloat16', 'float32', 'float64', 'int64', 'bool',
                                 'complex64'])
@pytest.mark.parametrize('out', ['bool', 'uint8', 'int64', 'float32', 'complex64'])
@pytest.mark.parametrize('n', [0, 3])
def test_nansum_out_runs_its_kernel_in_outs_dtype(src, out, n):
    """nansum(float, out=int64) is torch's NotImplementedError ("nansum_cpu" for Long: the
    kernel runs in out's dtype), where dtype=int64 answers; ember answered both."""
    check(_quiet(lambda T: T.nansum(T.ones(n, dtype=getattr(T, src)),
                                    out=T.empty((), dtype=getattr(T, out)))),
          grad=False, match_message=True)


@pytest.mark.parametrize('fn', ['logsumexp', 'special.logsumexp'])
@pytest.mark.parametrize('out', ['bfloat16', 'float32', 'float64', 'complex64'])
def test_logsumexp_of_complex_into_a_real_out(fn, out):
    """A complex logsumexp written into a real out: torch sums the shifted exponentials into
    out (their real part) and takes the log of that; ember took the real part of the
    complex log (1.49 where torch gives 1.35)."""
    x = np.array([[-0.20967168 + 0.37946013j, 0.2552865 + 0.14007337j, 1.1719766 - 0.9674581j],
                  [0.5 + 2j, -1 - 1j, 0.25 + 3j]], np.complex64)

    def run(T, a):
        f = T.special.logsumexp if fn.startswith('special') else T.logsumexp
        return f(a, [-1], out=T.empty(2, dtype=getattr(T, out)))
    check(_quiet(run), x, grad=False)


@pytest.mark.parametrize('dtype,out', [
    ('bfloat16', 'bfloat16'), ('float16', 'float16'), ('float32', 'int64'),
    ('complex64', 'float32'), ('bfloat16', 'complex64'), ('int64', 'float32'),
    ('float64', 'complex128')])
@pytest.mark.parametrize('shape', [(4, 4), (4, 3)])
def test_eigvals_checks_out_castable_before_the_kernel(dtype, out, shape):
    """torch.linalg.eigvals checks its complex eigenvalues cast into out (after the square
    check) before refusing a half-precision input; ember refused the dtype first
    (NotImplementedError where torch raises RuntimeError)."""
    check(_quiet(lambda T: T.linalg.eigvals(T.ones(*shape, dtype=getattr(T, dtype)),
                                            out=T.empty(4, dtype=getattr(T, out)))),
          grad=False, match_message=True)


@pytest.mark.parametrize('dtype,values,vectors', [
    ('bfloat16', 'bfloat16', 'bfloat16'), ('float16', 'complex64', 'float16'),
    ('float32', 'complex64', 'float32'), ('float32', 'float32', 'complex64')])
def test_eig_checks_outs_castable_before_the_kernel(dtype, values, vectors):
    check(_quiet(lambda T: T.linalg.eig(T.ones(4, 4, dtype=getattr(T, dtype)), out=(
        T.empty(4, dtype=getattr(T, values)), T.empty(4, 4, dtype=getattr(T, vectors))))),
        grad=False, match_message=True)


@pytest.mark.parametrize('src', ['complex64', 'complex128', 'float32'])
def test_complex_written_into_a_complex32_out(src):
    """Writing a complex result into a complex32 out= tensor put the real part into both
    fields (4+0j became 4+4j): NumPy cannot cast into complex32's structured dtype."""
    def run(T):
        x = T.tensor([1 + 2j, 4 + 0j, -0.5 - 3j]) if src != 'float32' else T.tensor([1., 4.])
        return T.add(x.to(getattr(T, src)), 0, out=T.empty(x.shape, dtype=T.complex32)).cfloat()
    check(_quiet(run), grad=False)


@pytest.mark.parametrize('dtype', ['float32', 'int64', 'uint16', 'uint64', 'bool'])
@pytest.mark.parametrize('call', [
    lambda t: t.flip(0, 1), lambda t: t[:1].flip(0, 1), lambda t: t.flip(0, 0),
    lambda t: t.flip(1, 'a'), lambda t: t.flip(0), lambda t: t.flip(dims=(0, 1)),
    lambda t: t.flip([0], 1)])
def test_tensor_flip_takes_dims_unpacked(dtype, call):
    """``Tensor.flip(0, 1)`` (dims as separate arguments, as torch's methods take a size
    list) was ember's TypeError; torch flips (or refuses an unsigned dtype's kernel)."""
    check(lambda T: call(T.arange(6).reshape(2, 3).to(getattr(T, dtype))), grad=False,
          match_message=True)


def test_flip_function_does_not_take_dims_unpacked():
    check(lambda T: T.flip(T.ones(2, 3), 0, 1), grad=False, match_message=True)


@pytest.mark.parametrize('data,dtype', [
    ([[2 ** 63 + 5, 1]], 'uint64'), ([[2 ** 63 + 5], [3]], 'uint64'),
    ([2 ** 63 + 5, 2 ** 64 - 1], 'uint64'), ([2 ** 63 + 5, 0.5], 'uint64'),
    ([2 ** 63 + 5.0], 'uint64'), ([1e19], 'uint64'), ([-1], 'uint64'), ([-2 ** 63], 'uint64'),
    ([2 ** 64], 'uint64'), ([True, 3], 'uint64'), (7, 'uint64'), ([[1, 2], [3]], 'uint64'),
    ([2 ** 63 + 5], None), (2 ** 63 + 5, None), ([2 ** 64 + 5], None),
    ([2 ** 63 + 5], 'int64'), ([[2 ** 63 + 5], [1]], 'int8'), ([2 ** 63 + 5], 'uint32'),
    ([[2 ** 63 + 5], [1]], 'float64'), ([[2 ** 63 + 5], [1]], 'bool')])
def test_python_ints_beyond_int64(data, dtype):
    """torch stores Python ints as uint64 exactly (a nested list went through float64 in
    ember: 2**63 + 5 became 2**63), refuses floats and negatives for uint64, and unpacks
    other integer dtypes' ints as int64 (ValueError "Overflow when unpacking long long")."""
    check(lambda T: T.tensor(data, dtype=dtype and getattr(T, dtype)).tolist(), grad=False,
          match_message=True)


@pytest.mark.parametrize('base', [1, 1.0, 1 + 0j, True, 2])
@pytest.mark.parametrize('dtype', ['uint16', 'uint32', 'uint64', 'int8', 'bool'])
def test_pow_of_base_one_skips_the_kernel(base, dtype):
    """torch answers pow(1, t) with ones without running its pow kernel, so an unsigned
    exponent tensor is no NotImplementedError there (a bool base still is)."""
    check(lambda T: T.pow(base, T.ones(3, dtype=getattr(T, dtype))), grad=False,
          match_message=True)
    check(lambda T: base ** T.ones(3, dtype=getattr(T, dtype)), grad=False,
          match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.unique(x, sorted=0.5), lambda T, x: T.unique(x, [True], False),
    lambda T, x: T.unique(x, True, 'x'), lambda T, x: T.unique(x, True, False, 1),
    lambda T, x: T.unique(x, True, False, 'x'), lambda T, x: T.unique(x, return_counts=None),
    lambda T, x: T.unique(x, 0, False), lambda T, x: T.unique(x, dim=0, sorted=0.5),
    lambda T, x: x.unique(0.5), lambda T, x: x.unique(sorted=0.5),
    lambda T, x: x.unique_consecutive(False, 'x'),
    lambda T, x: x.unique_consecutive(return_inverse=0.5),
    lambda T, x: T.unique_consecutive(x, 0.5), lambda T, x: T.unique_consecutive(x, 1),
    lambda T, x: T.unique_consecutive(x, return_counts=1),
    lambda T, x: T.unique(x.to(T.complex64), 0.5),
    lambda T, x: T.unique(x, True, True, True),
    lambda T, x: T.unique_consecutive(x, return_inverse=True),
    lambda T, x: T.nn.functional.poisson_nll_loss(x, x, log_input=0.5),
    lambda T, x: T.nn.functional.hinge_embedding_loss(x, target=None),
    lambda T, x: T.nn.functional.hinge_embedding_loss(x, x, 'x'),
    lambda T, x: T.nn.functional.dropout(x, 0.5, [True]),
    lambda T, x: x.reshape(1, 3).lu(pivot=0.5), lambda T, x: x.reshape(1, 3).lu([True]),
    lambda T, x: T.nn.functional.hinge_embedding_loss(x, x, margin=2),
])
def test_python_functions_hand_their_flags_to_a_parser(call):
    """torch's Python functions (unique, unique_consecutive, F.poisson_nll_loss, Tensor.lu,
    ...) hand their parameters to a C op whose parser refuses a non-bool flag or a non-tensor
    target; ember's bodies took them (the error path knew the inner op's signature, but a
    body that answers never reached it)."""
    check(lambda T: call(T, T.tensor([2., 1., 2.])), grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.clamp_min(True, x), lambda T, x: T.clamp_max(x, None),
    lambda T, x: T.clamp_min(x, None), lambda T, x: T.clamp_min(1, x),
    lambda T, x: T.clamp_max(x, 1), lambda T, x: x.clamp_min(None),
    lambda T, x: T.add(x, None), lambda T, x: T.mul(x, None), lambda T, x: T.where(x > 1, x, None),
])
def test_none_for_a_positional_parameter_takes_the_checked_path(call):
    """A positional None passed the fast path of every op with an ``out=None`` keyword (the
    keyword-only parameter's None counted as a type the op takes), so bodies treating None
    as "no bound" answered: clamp_max(t, None) is torch's TypeError."""
    check(lambda T: call(T, T.tensor([2., 1., 2.])), grad=False, match_message=True)


@pytest.mark.parametrize('dtype', ['complex64', 'bool', 'float32'])
@pytest.mark.parametrize('call', [
    lambda T, e: T.nn.functional.relu_(e), lambda T, e: T.nn.functional.hardtanh_(e),
    lambda T, e: T.nn.functional.relu(e, inplace=True),
    lambda T, e: T.nn.functional.hardtanh(e, inplace=True),
    lambda T, e: T.relu_(e), lambda T, e: e.relu_(),
    lambda T, e: e.floor_(), lambda T, e: e.exp_()])
def test_inplace_dtype_check_before_the_overlap(dtype, call):
    """relu_/hardtanh_ of an expanded complex tensor: torch's op refuses complex itself
    ("clamp is not supported for complex types") before its iterator refuses the overlap;
    ember refused the overlap first (a kernel's "not implemented for" refusal still comes
    after it)."""
    check(_quiet(lambda T: call(T, T.ones(1, 3, dtype=getattr(T, dtype)).expand(2, 3))),
          grad=False, match_message=True)


_OUT_RESULT_DTYPE = [
    lambda T: T.searchsorted(T.arange(3), T.arange(3), out=T.empty(3)),
    lambda T: T.searchsorted(T.arange(3), T.arange(3), out_int32=True,
                             out=T.empty(3, dtype=T.int64)),
    lambda T: T.bucketize(T.arange(3), T.arange(3), out=T.empty(3, dtype=T.int32)),
    lambda T: T.bucketize(T.arange(3), T.arange(3), out_int32=True,
                          out=T.empty(3, dtype=T.int32)),
    lambda T: T.float_power(T.ones(3), 2, out=T.empty(3)),
    lambda T: T.float_power(T.ones(3, dtype=T.complex64), 2, out=T.empty(3, dtype=T.complex64)),
    lambda T: T.float_power(T.ones(3), 2, out=T.empty(3, dtype=T.float64)),
    lambda T: T.heaviside(T.ones(3), T.ones(3), out=T.empty(3, dtype=T.float64)),
    lambda T: T.heaviside(T.ones(3), T.ones(3), out=T.empty(3, dtype=T.complex64)),
    lambda T: T.heaviside(T.ones(3, dtype=T.int64), T.ones(3, dtype=T.int64),
                          out=T.empty(3, dtype=T.float64)),
    lambda T: T.linalg.norm(T.ones(3, dtype=T.complex64), out=T.empty((), dtype=T.bfloat16)),
    lambda T: T.linalg.norm(T.ones(3, 3), 'fro', out=T.empty((), dtype=T.float64)),
    lambda T: T.linalg.norm(T.ones(3), dtype=T.float64, out=T.empty((), dtype=T.float32)),
    lambda T: T.linalg.norm(T.ones(3), out=T.empty((), dtype=T.float32)),
    lambda T: T.linalg.vecdot(T.ones(3), T.ones(3), out=T.empty((), dtype=T.complex64)),
    lambda T: T.linalg.vecdot(T.ones(3), T.ones(3), out=T.empty((), dtype=T.float64)),
    lambda T: T.inner(T.ones(3, dtype=T.int64), T.ones(3, dtype=T.int64),
                      out=T.empty((), dtype=T.float64)),
    lambda T: T.nan_to_num(T.ones(3, dtype=T.float16), out=T.empty(3, dtype=T.bfloat16)),
    lambda T: T.nan_to_num(T.ones(3, dtype=T.int64), out=T.empty(3, dtype=T.float32)),
    lambda T: T.nn.functional.softshrink(T.ones(3), out=T.empty(3, dtype=T.float64)),
    lambda T: T.nn.functional.softshrink(T.ones(3), -1.0, out=T.empty(3, dtype=T.float64)),
    lambda T: T.fft.ifft(T.ones(3), out=T.empty(3, dtype=T.complex128)),
    lambda T: T.fft.ifft(T.ones(3, dtype=T.complex64), out=T.empty(3, dtype=T.complex128)),
    lambda T: T.fft.ihfft(T.ones(3, dtype=T.float64), out=T.empty(3, dtype=T.complex64)),
    lambda T: T.fft.ihfftn(T.ones(1, 3), dim=[0], out=T.empty(3, dtype=T.complex128)),
    lambda T: T.fft.ihfft2(T.ones(1, 3), dim=[0], out=T.empty(3, dtype=T.complex128)),
    lambda T: T.fft.ihfftn(T.ones(1, 3), None, 1, out=T.empty(3, dtype=T.complex128)),
    lambda T: T.fft.ihfftn(T.ones(2, 3), dim=[0, 1], out=T.empty(3, dtype=T.complex128)).abs(),
    lambda T: T.linalg.matrix_norm(T.ones(3, 3), out=T.empty((), dtype=T.complex64)),
    lambda T: T.linalg.matrix_norm(T.ones(3, 3), 'nuc', out=T.empty((), dtype=T.float64)),
    lambda T: T.nuclear_norm(T.ones(3, 3), out=T.empty((), dtype=T.complex64)),
    lambda T: T.linalg.multi_dot([T.ones(2, 2, dtype=T.bfloat16), T.ones(2, 2, dtype=T.bfloat16)],
                                 out=T.empty(2, 2, dtype=T.float16)),
    lambda T: T.linalg.multi_dot([T.ones(2, 2), T.ones(2, 2), T.ones(2, 2)],
                                 out=T.empty(2, 2, dtype=T.float64)),
    lambda T: T.multinomial(T.ones(3), 2, out=T.empty(2, dtype=T.uint8)).shape,
    lambda T: T.multinomial(T.ones(3), 2, out=T.empty(2, dtype=T.int64)).shape,
    lambda T: T.special.round(T.ones(3, dtype=T.float64), out=T.empty(3, dtype=T.float32)),
    lambda T: T.special.round(T.ones(3, dtype=T.float64), decimals=2,
                              out=T.empty(3, dtype=T.float32)),
    lambda T: T.linalg.solve_triangular(T.eye(3), T.ones(3, 2), upper=True,
                                        out=T.empty(3, 2, dtype=T.complex64)),
    lambda T: T.linalg.solve_triangular(T.eye(3), T.ones(3, 2), upper=True,
                                        out=T.empty(3, 2, dtype=T.float64)),
]


@pytest.mark.parametrize('call', _OUT_RESULT_DTYPE)
def test_out_of_another_dtype_than_the_result_is_refused(call):
    """searchsorted/bucketize, float_power, heaviside, linalg.norm, linalg.vecdot, inner,
    nan_to_num, softshrink and the real-input inverse FFTs refuse an out= tensor of another
    dtype than their result's (each in its own words); ember cast the result into it."""
    check(_quiet(call), grad=False, match_message=True)


@pytest.mark.parametrize('dtype', ['uint16', 'uint32', 'uint64', 'uint8', 'int8'])
@pytest.mark.parametrize('call', [
    lambda T, x: T.nonzero_static(x, size=2), lambda T, x: x.nonzero_static(size=2),
    lambda T, x: T.nonzero_static(x[0, :0], size=2), lambda T, x: T.nonzero_static(x[0, 0], size=2),
    lambda T, x: T.nonzero_static(x, size=0), lambda T, x: x[:0].nonzero_static(size=0),
    lambda T, x: x.clone().cumprod_(0, dtype=None), lambda T, x: T.cumsum(x, 0, dtype=None),
    lambda T, x: x.clone().cumprod_(0), lambda T, x: x.clone().cumsum_(1),
    lambda T, x: x[:0].clone().cumsum_(0), lambda T, x: x[0, 0].clone().cumsum_(0),
    lambda T, x: T.cumsum(x, 0), lambda T, x: T.cross(x, x, dim=1),
    lambda T, x: T.linalg.cross(x, x), lambda T, x: x.clone().bernoulli_(0.5).shape,
    lambda T, x: T.threshold(x, 1.5, 2), lambda T, x: T.threshold_(x.clone(), 1, 2),
    lambda T, x: T.threshold(x[:0], 1.5, 2),
    lambda T, x: T.nn.functional.threshold(x, 1.5, 2, inplace=True),
    lambda T, x: T.nn.functional.avg_pool1d(x, 1), lambda T, x: T.avg_pool1d(x, 1),
    lambda T, x: T.nn.functional.max_pool1d(x, 1),
    lambda T, x: T.nn.functional.pixel_shuffle(x.reshape(1, 1, 2, 3), 1),
    lambda T, x: T.nn.functional.pixel_shuffle(x[:0].reshape(0, 1, 1, 3), 1),
    lambda T, x: T.nn.functional.pixel_unshuffle(x.reshape(1, 1, 2, 3), 1),
    lambda T, x: T.native_channel_shuffle(x.reshape(1, 2, 3), 2),
    lambda T, x: T.channel_shuffle(x.reshape(1, 2, 3)[:, :, :0], 2),
    lambda T, x: T.bernoulli(x, 0.5).shape, lambda T, x: x.bernoulli(0.0).shape,
    lambda T, x: T.bernoulli(x[:0], 0.5), lambda T, x: T.addr(x[:, :2], x[0, :2], x[1, :2]),
    lambda T, x: T.addr(x[:0, :2], x[0, :0], x[0, :2]),
    lambda T, x: T.addr(x[:, :2], T.ones(2), T.ones(2)),
    lambda T, x: T.adaptive_avg_pool1d(x, 2), lambda T, x: T.adaptive_avg_pool1d(x[:0], 2),
    lambda T, x: T.nn.functional.adaptive_avg_pool2d(x.reshape(1, 2, 3), 2),
    lambda T, x: T.nn.functional.max_pool2d(x.reshape(1, 2, 3), 2),
    lambda T, x: T.nn.functional.max_pool2d_with_indices(x.reshape(1, 2, 3), 2),
    lambda T, x: T.nn.functional.max_pool2d(x[:0].reshape(0, 1, 3), 1),
])
def test_unsigned_kernels_the_probe_does_not_reach(dtype, call):
    """uint16/32/64 refusals of kernels the generator's probe does not call (the in-place
    scans -- whose out-of-place forms run in int64 --, nonzero_static, cross, bernoulli_,
    the 1-d pooling, the shuffles; threshold, whose float number does not promote the
    input): ember answered (empty and 0-d inputs run no kernel, as in torch)."""
    def run(T):
        x = T.tensor([[1, 2, 3], [4, 5, 6]], dtype=getattr(T, dtype))
        return call(T, x)
    check(_quiet(run), grad=False, match_message=True)


@pytest.mark.parametrize('shapes', [((), ()), ((), (3,)), ((3,), ())])
def test_inner_of_a_0d_operand_casts_into_out(shapes):
    check(lambda T: T.inner(T.ones(shapes[0]), T.ones(shapes[1]),
                            out=T.empty(shapes[0] or shapes[1], dtype=T.complex128)),
          grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.lerp(T.ones(3, dtype=T.int64), T.ones(3, dtype=T.int64),
                     T.ones(3, dtype=T.int64), out=T.empty(3, dtype=T.complex64)),
    lambda T: T.lerp(T.ones(3, dtype=T.int64), T.ones(3, dtype=T.int64),
                     T.ones(3, dtype=T.int64), out=T.empty(3, dtype=T.int64)),
    lambda T: T.lerp(T.ones(3), T.ones(3), 0.5, out=T.empty(3, dtype=T.float64)),
    lambda T: T.cumsum(T.ones(3, dtype=T.int16), 0, dtype=T.bool,
                       out=T.empty(3, dtype=T.complex64)),
    lambda T: T.cumsum(T.ones(3, dtype=T.int16), 5, dtype=T.bool,
                       out=T.empty(3, dtype=T.complex64)),
    lambda T: T.cumprod(T.ones(3), 0, dtype=T.bool, out=T.empty(3, dtype=T.int64)),
    lambda T: T.log_softmax(T.ones(2, 3, dtype=T.bool), -1, T.int16,
                            out=T.empty(0, dtype=T.bool)),
    lambda T: T.softmax(T.ones(3, 1, dtype=T.int32), 0, T.int64, out=T.empty(0, dtype=T.int32)),
    lambda T: T.log_softmax(T.ones(2, 3, dtype=T.bool), 5, T.int16,
                            out=T.empty(0, dtype=T.bool)),
    lambda T: T.special.hermite_polynomial_he(1j, T.ones(4, dtype=T.float64),
                                              out=T.empty(0, dtype=T.float64)),
    lambda T: T.special.xlogy(1j, T.ones(4), out=T.empty(0, dtype=T.float32)),
    lambda T: T.special.xlogy(T.ones(4), 1j, out=T.empty(0, dtype=T.float32)),
    lambda T: T.index_add(T.ones(2, 3, dtype=T.int8), -2, T.ones(2, 3, dtype=T.int8),
                          T.ones(1, 3, dtype=T.int8), out=T.empty(1, dtype=T.bfloat16)),
])
def test_out_dtype_order_against_the_kernel(call):
    """lerp's int kernel refusal comes after its out dtype check; cumsum/softmax with dtype=
    check out against that dtype before their kernel; a number first operand (xlogy(1j, t))
    promotes the common dtype out must take; index_add's index check comes before out's."""
    check(_quiet(call), grad=False, match_message=True)


@pytest.mark.parametrize('dtype', ['uint8', 'int8', 'int16', 'int32', 'int64', 'uint16',
                                   'bool', 'bfloat16'])
@pytest.mark.parametrize('bounds', [(-1, 3), (0, 300), (-1e30, 1e30), (1e4, 2e4), (0, 0),
                                    (5, 2), (float('nan'), 1)])
@pytest.mark.parametrize('n', [0, 3])
def test_histc_converts_its_range_to_an_integer_input_type(dtype, bounds, n):
    """torch's histc of an integer input converts min and max (after the empty-range
    widening) to the input's type before its kernel refuses the dtype: "value cannot be
    converted to type uint8_t without overflow"; uint16+ are refused by the edges' linspace."""
    check(lambda T: T.histc(T.ones(n, dtype=getattr(T, dtype)), 10, *bounds), grad=False,
          match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.linalg.eigvalsh(T.ones(3, 3, dtype=T.uint8), out=T.empty(3, dtype=T.complex64)),
    lambda T: T.linalg.eigvalsh(T.ones(3, 2, dtype=T.uint8), out=T.empty(3, dtype=T.complex64)),
    lambda T: T.linalg.eigvalsh(T.ones(3, dtype=T.uint8), out=T.empty(3, dtype=T.complex64)),
    lambda T: T.nn.functional.linear(T.ones(2, 3, dtype=T.uint32), T.ones(4, 3, dtype=T.uint32),
                                     out=T.empty(3, dtype=T.uint8)),
    lambda T: T.nn.functional.linear(T.ones(2, 3, dtype=T.bool), T.ones(4, 3, dtype=T.bool),
                                     out=T.empty(3, dtype=T.uint8)),
    lambda T: T.nn.functional.linear(T.ones(2, 3, dtype=T.uint32), T.ones(4, 2, dtype=T.uint32),
                                     out=T.empty(3, dtype=T.uint8)),
    lambda T: T.subtract(1.5, T.ones(3, dtype=T.uint64)),
    lambda T: T.sub(1.5, T.ones(3, dtype=T.uint16), alpha=2),
    lambda T: T.sub(1j, T.ones(3, dtype=T.uint16)),
    lambda T: T.sub(1, T.ones(3, dtype=T.uint16)),
    lambda T: 1 - T.ones(3, dtype=T.uint32),
])
def test_out_checks_and_float_numbers_before_kernel_refusals(call):
    """eigvalsh and linear check out's dtype before their kernel refuses the input's; a
    float number first operand makes sub's kernel run in float (uint16+ answered)."""
    check(_quiet(call), grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.float_power(1.5, 2), lambda T: T.float_power(2, T.ones(2)),
    lambda T: T.clip(True, None, T.ones(2)), lambda T: T.clamp(1.5, 0, 1),
    lambda T: T.clamp(1.5, None, None), lambda T: T.clamp(T.ones(2), None, None),
    lambda T: T.linalg.svd(T.ones(2, 2), driver='gesvd'),
    lambda T: T.linalg.svdvals(T.ones(2, 2, dtype=T.bfloat16), driver='x'),
    lambda T: T.linalg.svd(T.ones(2), driver='x'),
    lambda T: T.linalg.svd(T.ones(2, 2, dtype=T.int64), driver='x'),
])
def test_number_inputs_and_cpu_driver(call):
    """float_power of two numbers and clamp/clip of a number input are torch's TypeError
    (ember computed them); svd/svdvals refuse ``driver=`` on a CPU input after its own
    checks (ember ignored it, or refused bfloat16 first)."""
    check(_quiet(call), grad=False, match_message=True)
