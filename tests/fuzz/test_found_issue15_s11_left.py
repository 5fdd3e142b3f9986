"""The small "left:" entries of known.py (issue 15, session 11, helper left), each pinned
against torch."""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check


_EMPTY_VIEWS = {
    't': lambda T: T.zeros(0, 2).t(),
    'transpose': lambda T: T.zeros(3, 0, 2).transpose(0, 2),
    'permute': lambda T: T.zeros(3, 0, 2).permute(2, 0, 1),
    'slice': lambda T: T.zeros(3, 0, 4)[:, :, 1:3],
    'step': lambda T: T.zeros(3, 0, 4)[::2, :, ::2],
    'unsqueeze1': lambda T: T.zeros(3, 0, 2).unsqueeze(1),
    'unsqueeze0': lambda T: T.zeros(3, 0, 2).unsqueeze(0),
    'unsqueeze_last': lambda T: T.zeros(3, 0, 2).unsqueeze(3),
    'none_index': lambda T: T.zeros(3, 0, 2)[:, None],
    'expand': lambda T: T.zeros(3, 0, 2).expand(2, 3, 0, 2),
    'mT_unsqueeze': lambda T: T.zeros(3, 0, 2).mT.unsqueeze(1),
    'result_of_op': lambda T: (T.zeros(0, 3) + 1).t(),
    'empty_like_t': lambda T: T.empty(2, 0, 3).permute(1, 2, 0),
}


@pytest.mark.parametrize('name', sorted(_EMPTY_VIEWS))
def test_strides_of_views_of_empty_tensors(name):
    """NumPy gives an empty array zero strides, so ember reported the row-major strides of
    every empty tensor, also of a view (``zeros(0, 2).t().stride()``: torch (1, 2), ember
    (1, 1)); the contiguity follows torch's too."""
    make = _EMPTY_VIEWS[name]
    check(lambda T: make(T).stride(), grad=False)
    check(lambda T: make(T).is_contiguous(), grad=False)


@pytest.mark.parametrize('fn', ['view_as_complex', 'view_as_complex_copy'])
@pytest.mark.parametrize('shape', [(2, 0), (0, 2), (3, 0, 2)])
def test_view_as_complex_of_a_transposed_empty_tensor(fn, shape):
    """A transposed empty tensor has torch's odd strides (last not 1, or odd others): torch
    refuses to view it as complex, ember (reading all empty tensors as contiguous) took it."""
    check(lambda T: getattr(T, fn)(T.zeros(*shape, dtype=T.float64).mT), grad=False,
          match_message=True)
    check(lambda T: getattr(T, fn)(T.zeros(*shape, dtype=T.float64)), grad=False,
          match_message=True)


@pytest.mark.parametrize('case', [
    ('complex64', (3,), 'complex64', (0,)), ('complex128', (0,), 'complex128', (0,)),
    ('complex64', (0,), 'complex64', (3,)), ('complex64', (2, 3), 'complex64', (2, 0)),
    ('bool', (3,), 'bool', (0,)), ('bool', (0,), 'bool', (2,)), ('complex64', (3,), None, 1),
    ('complex64', (0,), None, 1), ('float32', (3,), 'complex64', (0,)),
    ('float32', (3,), 'complex64', (2,)), ('complex128', (3,), 'complex64', (2,)),
    ('bool', (3,), 'int64', (2,)), ('uint16', (3,), 'int64', (2,)),
    ('int64', (3,), 'uint16', (2,)), ('bool', (5,), None, 3), ('bool', (0,), None, 3),
    ('bool', (3,), None, True), ('uint16', (3,), None, 3), ('complex64', (3,), None, 1j),
    ('float32', (3,), None, 1j), ('uint16', (3,), 'uint16', (0,))], ids=str)
def test_searchsorted_with_no_values_runs_no_kernel(case):
    """torch's searchsorted kernel runs over the values: with none, a sorted sequence of a
    dtype it refuses (complex, bool) answers an empty index tensor; ember's generated
    'nonempty' refusal (any operand non-empty) refused it. A sorted sequence and values
    of two dtypes are searched in their common dtype, which the kernel refuses if complex
    (ember answered float32 boundaries with complex values)."""
    sdt, sshape, vdt, v = case

    def fn(T):
        seq = T.zeros(sshape, dtype=getattr(T, sdt))
        vals = v if vdt is None else T.zeros(v, dtype=getattr(T, vdt))
        return T.searchsorted(seq, vals)
    check(fn, grad=False, match_message=True)


@pytest.mark.parametrize('fn,blocksize,dense_dim,shape', [
    ('to_sparse_bsr', (2, 2), 1, (2, 4, 6, 3)), ('to_sparse_bsc', (1, 3), 1, (2, 4, 6, 3)),
    ('to_sparse_bsr', (1, 2), 1, (4, 6, 3)), ('to_sparse_bsc', (2, 1), 2, (4, 2, 3, 2)),
    ('to_sparse_bsr', (2, 2), 0, (4, 6)), ('to_sparse_bsc', (2, 3), 2, (2, 4, 6, 3))],
    ids=str)
def test_dense_dims_of_a_blocked_sparse_layout(fn, blocksize, dense_dim, shape):
    """torch converts a strided tensor's trailing dense dims into a BSR/BSC tensor (its
    values (nnz, block rows, block cols, *dense), a block present where any of its values
    is nonzero); ember refused any dense_dim."""
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) % 7

    def run(T, a):
        r = getattr(a, fn)(blocksize, dense_dim=dense_dim)
        idx = (r.crow_indices(), r.col_indices()) if fn.endswith('bsr') else \
            (r.ccol_indices(), r.row_indices())
        return (r.values(), *idx, r.dense_dim(), r.sparse_dim(), tuple(r.shape), r.to_dense())
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(run, x, grad=False, match_message=True)


@pytest.mark.parametrize('fn', ['to_sparse_bsr', 'to_sparse_bsc'])
@pytest.mark.parametrize('shape,blocksize,dense_dim', [
    ((), (2, 2), -1), ((), (1, 3), -2), ((3, 3), (2, 2), -1), ((4, 4), (2, 2), -1),
    ((0, 3), (2, 3), -1), ((4,), (2, 2), -1), ((4,), (2, 2), -2), ((4,), (2, 2), 0),
    ((2, 4, 4), (2, 2), -3), ((2, 4, 4), (2, 2), 2), ((2, 4, 4), (2, 2), 5),
    ((4, 4), (2, 2), -4), ((2, 4, 4), (3, 2), 0)], ids=str)
def test_blocked_conversion_checks_a_negative_dense_dim_as_torch(fn, shape, blocksize,
                                                                  dense_dim):
    """torch looks up the block dims size(-2 - dense_dim), size(-1 - dense_dim) (an
    IndexError for a 0-d tensor or out of range) and checks that they divide into blocks
    before it checks dense_dim's range; ember checked the range first."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda T: getattr(T.zeros(shape), fn)(blocksize, dense_dim=dense_dim),
              grad=False, match_message=True)


@pytest.mark.parametrize('fn', ['to_sparse_bsr', 'to_sparse_bsc'])
@pytest.mark.parametrize('grad_mode', [True, False])
def test_blocked_conversion_of_a_complex_tensor_that_requires_grad(fn, grad_mode):
    """torch's autograd has no complex derivative of the blocked conversions (as of the
    csr/csc ones ember refused already); ember recorded one."""
    x = np.arange(8.).reshape(2, 4) * (1 + 1j)

    def run(T, a):
        with T.set_grad_enabled(grad_mode):
            return getattr(a, fn)((2, 2)).to_dense()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(run, x, grad=False, match_message=True)
        check(lambda T: getattr(T.zeros(2, 4, dtype=T.complex64, requires_grad=True),
                                fn)((2, 2)).values().detach(), grad=False, match_message=True)


@pytest.mark.parametrize('fn', ['adaptive_avg_pool1d', 'nn.functional.adaptive_avg_pool1d'])
@pytest.mark.parametrize('shape,size', [((2, 3, 4), 1), ((3, 4), 1), ((2, 3, 4), (1,)),
                                        ((1, 1, 1), 1)], ids=str)
def test_adaptive_avg_pool1d_of_a_complex_input_to_size_1_is_a_mean(fn, shape, size):
    """Pooled to size 1, torch takes a mean (MeanBackward1, complex autograd works); ember's
    torch.adaptive_avg_pool1d refused the pooling kernel's complex autograd."""
    x = (np.arange(np.prod(shape)).reshape(shape) * (0.5 - 1j)).astype(np.complex128)

    def run(T, a):
        f = T
        for part in fn.split('.'):
            f = getattr(f, part)
        return f(a, size)
    check(run, x)


@pytest.mark.parametrize('dtype,requires_grad', [('complex64', True), ('complex64', False),
                                                  ('int64', False)])
@pytest.mark.parametrize('shape,size', [((2, 3, 4), 0), ((2, 0, 4), 0), ((2, 0, 4), 2),
                                        ((2, 3, 4), 2), ((2, 3, 0), 1)], ids=str)
def test_adaptive_avg_pool1d_to_an_empty_output_runs_no_kernel(dtype, requires_grad, shape,
                                                               size):
    """An output size of 0 runs no pooling kernel: torch answers an empty complex tensor
    (without grad; with grad its autograd refuses complex), ember's kernel refused the
    dtype."""
    check(lambda T: T.adaptive_avg_pool1d(
        T.ones(shape, dtype=getattr(T, dtype), requires_grad=requires_grad), size),
        grad=False, match_message=True)
    if len(shape) == 3:
        check(lambda T: T.nn.functional.adaptive_avg_pool2d(
            T.ones(shape + (4,), dtype=getattr(T, dtype)), (size, 2)), grad=False,
            match_message=True)


@pytest.mark.parametrize('fn', ['svd_lowrank', 'pca_lowrank'])
@pytest.mark.parametrize('shape,kw,transposed', [
    ((4, 3), {}, False), ((3, 4), {}, True), ((2, 4, 3), {}, False), ((2, 4, 3), {}, True),
    ((0, 3), {}, False), ((2, 3, 0), {}, True), ((2, 3, 4), {'q': 0}, False),
    ((2, 3, 4), {'q': 0}, True), ((4, 3), {'niter': 0}, False), ((1, 0, 0), {}, False)],
    ids=str)
def test_lowrank_of_bfloat16_raises_where_torch_does(fn, shape, kw, transposed):
    """torch multiplies a bfloat16 input by float32 random samples: its matmul refuses
    the mix, except where it skips the check (a batch by an empty sample matrix); ember
    follows it on every path (the known.py entry described a state fixed since)."""
    def run(T):
        x = T.ones(shape, dtype=T.bfloat16)
        if transposed:
            x = x.mT.contiguous().mT
        r = getattr(T, fn)(x, **kw)
        return tuple(t.shape for t in r), tuple(t.dtype for t in r)
    check(run, grad=False, match_message=True)


@pytest.mark.parametrize('fn', ['svd_lowrank', 'pca_lowrank'])
@pytest.mark.parametrize('q', ['x', 1.5, [1, 'a'], (1.0,), [2], False, True], ids=str)
def test_lowrank_passes_q_to_randn_unconverted(fn, q):
    """torch passes q to randn as it is (a float or a list: randn's TypeError); ember
    converted it with int() (ValueError for 'x', 1.5 truncated and accepted). pca_lowrank
    compares q >= 0 first (its TypeError for a string)."""
    check(lambda T: [t.shape for t in getattr(T, fn)(T.ones(3, 3, dtype=T.float64), q)],
          grad=False)


@pytest.mark.parametrize('alpha,beta,k', [(-1.0, 0.75, 1.0), (-5.0, 0.75, 1.0),
                                          (-2.0, 0.5, 0.5), (1.0, 0.75, -1.0)], ids=str)
@pytest.mark.parametrize('size', [1, 2, 3])
@pytest.mark.parametrize('shape', [(3, 3, 2), (2, 3, 2, 2)], ids=str)
def test_local_response_norm_gradient_with_a_negative_base(alpha, beta, k, size, shape):
    """A negative alpha (or k) makes the base of the beta power negative: the forward is
    NaN there; torch's gradient is NaN only where its composition (square, pad, average
    pool over channels, pow) carries it, which ember's same composition now matches (the
    known.py entry, NaN spread to every element, was stale)."""
    x = np.random.default_rng(0).standard_normal(shape)
    check(lambda T, a: T.nn.functional.local_response_norm(a, size, alpha=alpha, beta=beta,
                                                           k=k), x)


@pytest.mark.parametrize('p', [0.5, 0.3, 2.0, -1.0, 3])
@pytest.mark.parametrize('fn,kernel,stride', [('lp_pool1d', 2, 3), ('lp_pool1d', 2, None),
                                              ('lp_pool1d', 1, 2), ('lp_pool2d', (1, 2), (1, 3)),
                                              ('lp_pool2d', (2, 2), None)], ids=str)
@pytest.mark.parametrize('ceil_mode', [False, True])
def test_lp_pool_gradient_over_windows_holding_zeros(p, fn, kernel, stride, ceil_mode):
    """p < 1 over a window holding a zero, or an element no window covers: the gradient
    of x ** p there is inf or NaN as torch's composition gives it (the known.py entry, a 0
    in torch where ember had NaN, was stale)."""
    x = np.array([[[0., 0.5, 1.2, 0., 2.0, 0.3, 0.], [0.7, 0., 0., 1.5, 0.2, 0.1, 0.]]])
    check(lambda T, a: getattr(T.nn.functional, fn)(a, p, kernel, stride, ceil_mode), x)


def _exact_power(z, n, np_dtype):
    """``z ** n`` (z a complex number, n a whole number) in exact rational arithmetic,
    each part rounded to ``np_dtype``'s parts (overflow: +-inf)."""
    from fractions import Fraction
    re, im = Fraction(z.real), Fraction(z.imag)
    if n < 0:
        d = re * re + im * im
        re, im, n = re / d, -im / d, -n
    pr, pi = Fraction(1), Fraction(0)
    for _ in range(n):
        pr, pi = pr * re - pi * im, pr * im + pi * re
    part = np.float32 if np_dtype == np.complex64 else np.float64

    def rnd(q):
        try:
            v = float(q)
        except OverflowError:
            v = float('inf') if q > 0 else float('-inf')
        with np.errstate(over='ignore'):
            return part(v)
    return rnd(pr), rnd(pi)


_TINY = [(1e-20 + 1e-20j, 'complex64'), (1e-30j, 'complex64'), (-1e-25 + 0j, 'complex64'),
         (3e-39 + 1e-40j, 'complex64'), (1e-200 + 1e-200j, 'complex128'),
         (1e-160 - 3e-161j, 'complex128')]


@pytest.mark.parametrize('z,dtype', _TINY, ids=str)
@pytest.mark.parametrize('n', [-3, -5, -8, -3.0, (-3 + 0j), (-8 + 0j), 'tensor'])
def test_complex_pow_of_a_tiny_base_to_a_negative_whole_power(z, dtype, n):
    """NumPy's repeated products of a tiny complex base meet inf - inf or 1 / 0: ember gave
    inf+nanj where the exact power overflows to -inf-infj (or inf+0j). ember's answer is
    now the exact power rounded part by part (torch's is not always: its polar form gives
    inf-infj for (1e-20+1e-20j) ** -8, whose value is 1e160 / 16, real; its division
    nan-infj for ** -2, whose value is -5e39j -- see known.py), so this compares with exact
    rational arithmetic. (Exponents -1 and -2 are torch's reciprocal of x and of x * x,
    which ember follows: test_found_issue15_s8_b.py.)"""
    import ember
    x = ember.tensor([z], dtype=getattr(ember, dtype))
    r = x.pow(ember.tensor(-2) if n == 'tensor' else n).numpy()[0]
    whole = -2 if n == 'tensor' else int(np.real(n))
    want = _exact_power(complex(np.asarray(z, dtype)), whole, np.dtype(dtype))
    np.testing.assert_allclose([r.real, r.imag], want, rtol=4e-7 if dtype == 'complex64'
                               else 1e-15, atol=0)


@pytest.mark.parametrize('z,dtype,n', [(1e-20 + 1e-20j, 'complex64', -3),
                                       (1e-20 + 1e-20j, 'complex64', -5),
                                       (1e-200 + 1e-200j, 'complex128', -3),
                                       (1e-200 + 1e-200j, 'complex128', -5),
                                       (1e-5 - 1e-5j, 'complex64', -7)], ids=str)
def test_complex_pow_of_a_tiny_base_where_torch_is_right(z, dtype, n):
    """Where torch's answer is the exact one (both parts overflow), ember's agrees."""
    check(lambda T: T.tensor([z], dtype=getattr(T, dtype)).pow(n), grad=False)


@pytest.mark.parametrize('dtype', ['float32', 'bfloat16'])
@pytest.mark.parametrize('row', [[1e30, -2e30, 3.0], [1e30, 1e30, 1e30], [2e19, -2e19, 1.0, 0.0],
                                 [3e38, 3e38], [3e38, -3e38, 1.0], [1.0, 2.0, 3.0]], ids=str)
def test_layer_norm_of_values_whose_squares_overflow_float32(dtype, row):
    """float32/bfloat16 statistics of values beyond ~1.8e19 overflow (their squares, or the
    sum): torch's float32 layer_norm gives NaN (or 0 for [2e19, -2e19, 1, 0], whose exact
    normalisation is +-1.41), ember's gave an rstd of 0. ember now recomputes such rows in
    float64: its answer is torch's float64 one (the exact one) rounded, as is its gradient
    (see known.py: torch bug)."""
    import ember
    import torch
    x = np.array([row, [1., 2.] + [0.] * (len(row) - 2)])
    w = np.arange(len(row), dtype=np.float64)
    te = ember.tensor(x, dtype=getattr(ember, dtype), requires_grad=True)
    ye = ember.nn.functional.layer_norm(te, (len(row),))
    (ye * ember.tensor(w, dtype=ye.dtype)).sum().backward()
    # torch in float64 from the same (rounded) inputs: the exact answer
    tt = torch.tensor(te.detach().double().numpy(), requires_grad=True)
    yt = torch.nn.functional.layer_norm(tt, (len(row),))
    (yt * torch.tensor(w)).sum().backward()
    tol = 1e-2 if dtype == 'bfloat16' else 1e-5
    np.testing.assert_allclose(ye.detach().double().numpy(), yt.detach().numpy(), rtol=tol,
                               atol=tol)
    if row != [1e30, 1e30, 1e30] and dtype == 'float32':
        # (a constant row's gradient is torch's rounding remainder; bfloat16's gradients,
        # near 0 by cancellation, are its rounding's)
        np.testing.assert_allclose(te.grad.double().numpy(), tt.grad.numpy(), rtol=tol * 10,
                                   atol=1e-6)


_EMPTY_COPIES = {
    'clone_t': lambda T: T.zeros(0, 3).t().clone(),
    'clone_permute': lambda T: T.zeros(2, 0, 3).permute(2, 0, 1).clone(),
    'clone_as_strided': lambda T: T.zeros(2, 0, 3).as_strided((0, 3), (7, 2)).clone(),
    'clone_expand': lambda T: T.zeros(3, 0, 2).expand(2, 3, 0, 2).clone(),
    'contiguous_expand': lambda T: T.zeros(3, 0, 2).expand(2, 3, 0, 2).contiguous(),
    'clone_contiguous_format': lambda T: T.zeros(0, 3).t().clone(
        memory_format=T.contiguous_format),
    'zeros_like': lambda T: T.zeros_like(T.zeros(0, 3).t()),
    'empty_like_dtype': lambda T: T.empty_like(T.zeros(2, 0, 3).permute(2, 0, 1),
                                               dtype=T.float64),
    'ones_like_mT': lambda T: T.ones_like(T.zeros(0, 3, 1).mT),
}


@pytest.mark.parametrize('name', sorted(_EMPTY_COPIES))
def test_preserve_format_copies_of_empty_tensors_keep_their_strides(name):
    """torch's preserve_format (clone, *_like) copies an empty tensor's strides, whatever
    they are; ember's NumPy copy of an empty array has none, so it gave row-major ones."""
    check(lambda T: _EMPTY_COPIES[name](T).stride(), grad=False)
