"""Findings of the fuzzer on seeds 2040-2299 (issue 15): spurious errors, silent acceptance,
wrong dtypes/shapes and wrong gradients, each pinned against torch."""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check, torch

import ember

INF, NAN = float('inf'), float('nan')


@pytest.mark.parametrize('shapes', [((3,), (1, 3)), ((1, 3), (3,)), ((3, 1), (3,))],
                         ids=['var_2d', 'mean_2d', 'mean_column'])
@pytest.mark.parametrize('training', [False, True])
def test_batch_norm_running_statistics_must_be_1d(shapes, training):
    """torch's kernel reads the running statistics as 1-d arrays (its accessor's refusal);
    ember normalised with a (1, 3) one, and a (3, 1) one leaked NumPy's broadcast error."""
    mean, var = (np.zeros(s) for s in shapes)
    check(lambda T, x, m, v: T.nn.functional.batch_norm(x, m, v + 1, None, None, training),
          np.random.default_rng(0).standard_normal((2, 3)), mean, var, grad=False,
          match_message=True)


def test_batch_norm_with_a_strided_weight_differentiates_the_function():
    """torch bug (in known.py): batch_norm's backward reads a non-contiguous weight as if it
    were contiguous (w[::2] of [a, 0, b, 0...] is read as [a, 0, b, 0]); ember's gradient
    with the strided weight is torch's with its contiguous copy."""
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((4, 4)), rng.standard_normal(8)
    grads = []
    for lib, weight in ((ember, lambda t: t[::2]), (torch, lambda t: t[::2].contiguous())):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        out = lib.nn.functional.batch_norm(xt, None, None, weight(wt), None, True, 0.1, 1e-8)
        (out * lib.tensor(x[::-1].copy())).sum().backward()
        grads.append((xt.grad.numpy(), wt.grad.numpy()))
    for e, t in zip(*grads):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('op', ['var', 'std', 'var_mean', 'std_mean'])
@pytest.mark.parametrize('dim, correction', [([], 0), ([], 1), ([], 2), ([], 3), ((), 17),
                                             (0, 5), (0, 2), (1, 3), (None, 10),
                                             (None, 6), (None, 2)])
def test_var_std_gradient_degrees_of_freedom(op, dim, correction):
    """torch's backward divides by the count of the given dims less the correction, not
    clamped (negative past the count; 1 for an empty dim list, while the forward reduces
    over everything), and over every dim gives inf (NaN at the mean) once none are left;
    ember clamped the given dims' count too (inf for dim=[], correction=2)."""
    x = np.random.default_rng(2).standard_normal((2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda T, a: getattr(T, op)(a, dim=dim, correction=correction), x)


@pytest.mark.parametrize('exponent', [
    [1 + 1j, 2 + 0j, 0.5 - 1j, 1j, 3 + 0j, 2 - 3j], [1., 0., 2., 0.5, 3., -1.]],
    ids=['complex', 'real'])
@pytest.mark.parametrize('op', ['pow', 'float_power'])
def test_gradient_of_a_zero_base_along_the_exponent(op, exponent):
    """d/dx 0**x is 0 only for a real x >= 0 (a complex x on the real axis); off the real
    axis torch keeps 0**x * log(0), NaN (ember gave 0 for any real part >= 0). Also with a
    zero tensor base."""
    e = np.array(exponent)
    # (a complex zero under a real exponent of 0 or less: torch's value is NaN, not 1 or inf)
    for base in (0.0, 0j) if e.dtype.kind == 'c' else (0.0,):
        check(lambda T, x: getattr(T, op)(base, x), e)
    check(lambda T, a, x: getattr(T, op)(a * 0, x), np.array(exponent), e)


@pytest.mark.parametrize('call', [
    lambda T: T.tensor([[1], [3], [0]]).bitwise_right_shift_(False),
    lambda T: T.tensor([[1], [3], [0]]).bitwise_right_shift(True),
    lambda T: T.tensor([1, 2], dtype=T.int8).bitwise_left_shift_(True),
    lambda T: T.bitwise_left_shift(T.tensor([1, 2]), False),
    lambda T: T.tensor([4, 2]) >> True,
    lambda T: T.tensor([True]).bitwise_right_shift_(False),
], ids=['rshift_inplace', 'rshift', 'lshift_int8', 'lshift', 'operator', 'bool_refused'])
def test_shift_by_a_python_bool(call):
    """A Python bool shifts by 0 or 1 (ember's kernel took it for an array and leaked
    "'bool' object has no attribute 'any'")."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.cov(T.tensor(-0.97265625, dtype=T.bfloat16), correction=2,
                    aweights=T.tensor(0.55859375, dtype=T.bfloat16)),
    lambda T: T.tensor(1e30, dtype=T.bfloat16).cov(aweights=T.tensor(1e-30, dtype=T.bfloat16)),
    lambda T: T.cov(T.tensor([[1., 2, 4], [0, 3, 1]], dtype=T.bfloat16),
                    aweights=T.tensor([0.5, 1, 2], dtype=T.bfloat16)),
    lambda T: T.cov(T.tensor([[1., 2, 4], [0, 3, 1]]),
                    aweights=T.tensor([0.5, 1, 2], dtype=T.bfloat16)),
    lambda T: T.cov(T.tensor([[1, 2, 4], [0, 3, 1]]),
                    aweights=T.tensor([0.5, 1, 2], dtype=T.bfloat16)),
    lambda T: T.cov(T.tensor([[1, 2, 4], [0, 3, 1]]), fweights=T.tensor([1, 2, 1]),
                    aweights=T.tensor([0.5, 1, 2], dtype=T.float16)),
    lambda T: T.cov(T.tensor([[1], [0]]), fweights=T.tensor([2])),
    lambda T: T.cov(T.tensor([[1], [0]]), aweights=T.tensor([2.], dtype=T.float64)),
    lambda T: T.cov(T.tensor([[1.5], [0]]), aweights=T.tensor([0.3])),
    lambda T: T.cov(T.tensor([[1.5], [0]]), aweights=T.tensor([0.3]), fweights=T.tensor([1])),
    lambda T: T.cov(T.tensor([True, False])),
], ids=['bfloat16_aweights', 'bfloat16_huge', 'bfloat16_matrix', 'float_input', 'int_input',
        'int_input_both', 'one_observation_int', 'one_observation_mixed',
        'one_observation_aweights', 'one_observation_both', 'bool_input'])
def test_cov_weights_and_dtypes(call):
    """bfloat16 aweights are floating point (ember refused them); an integer input computes
    in the aweights' dtype (ember: the default dtype); one observation under one kind of
    weights deviates from its mean by exactly 0, and with aweights has no degrees of
    freedom left (NaN); a bool input is refused."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, b, c: T.inner(b, c[::2]), lambda T, b, c: T.inner(c[::2], b),
    lambda T, b, c: b.inner(c[1::2]), lambda T, b, c: T.inner(b, c[:4]),
    lambda T, b, c: T.inner(b[:0], c[:0]),
    lambda T, b, c: T.inner(b.reshape(2, 2), c[:4].reshape(2, 2)),
    lambda T, b, c: T.inner(b.reshape(2, 2).t(), c[:4].reshape(2, 2)),
    lambda T, b, c: T.tensordot(b.reshape(2, 2).t(), c[:4].reshape(2, 2), 2),
    lambda T, b, c: T.tensordot(b.reshape(1, 4), c[::2].reshape(4, 1), 1),
    lambda T, b, c: T.tensordot(b.reshape(1, 4), c[:4].reshape(4, 1), 1),
    lambda T, b, c: T.inner(b.int(), c[::2].int()),
    lambda T, b, c: T.inner(b.to(T.uint16), c[::2].to(T.uint16)),
    lambda T, b, c: T.inner(b, c[::2].int()),
], ids=['strided_second', 'strided_first', 'method', 'contiguous', 'empty', 'matrices',
        'transposed', 'tensordot_full', 'tensordot_column', 'tensordot_contiguous', 'int32',
        'uint16', 'mixed_dtypes'])
def test_bool_inner_product_of_one_element(call):
    """torch's tensordot (inner's) of one element is dot for contiguous operands (which
    refuses bool) and a sum of products otherwise (bool's any()); ember's einsum refused
    every bool inner with bmm's message."""
    b = np.array([True, False, True, True])
    c = np.array([False, False, True, True, True, True, False, False])
    check(call, b, c, grad=False, match_message=True)


def test_tensordot_of_one_element_differentiates_as_torch():
    """The one-element tensordot is dot or a sum of products in torch: the same values and
    gradients, whichever the layout."""
    x = np.random.default_rng(3).standard_normal(8)
    check(lambda T, a: T.inner(a[::2], a[1::2]), x)
    check(lambda T, a: T.inner(a[:4], a[4:]), x)
    check(lambda T, a: T.tensordot(a[:4].reshape(2, 2), a[4:].reshape(2, 2).t(), 2), x)


@pytest.mark.parametrize('call', [
    lambda T: T.linalg.multi_dot([T.zeros(0, dtype=T.bool), T.zeros(0, dtype=T.bool)[::1]]),
    lambda T: T.linalg.multi_dot([T.zeros(0, dtype=T.uint16), T.zeros(0, dtype=T.uint16)]),
    lambda T: T.linalg.multi_dot([T.zeros(2, 0, dtype=T.bool), T.zeros(0, 3, dtype=T.bool)]),
    lambda T: T.linalg.multi_dot([T.zeros(0, dtype=T.bool), T.zeros(0, 3, dtype=T.bool),
                                  T.zeros(3, dtype=T.bool)]),
    lambda T: T.linalg.multi_dot([T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool)]),
    lambda T: T.mm(T.zeros(2, 0, dtype=T.bool), T.zeros(0, 3, dtype=T.bool)),
    lambda T: T.mm(T.zeros(2, 0, dtype=T.uint32), T.zeros(0, 3, dtype=T.uint32)),
    lambda T: T.mm(T.ones(2, 2, dtype=T.uint32), T.ones(2, 2, dtype=T.uint32)),
    lambda T: T.matmul(T.zeros(2, 0, dtype=T.bool), T.zeros(0, 3, dtype=T.bool)),
    lambda T: T.matmul(T.ones(2, 2, dtype=T.bool), T.ones(2, dtype=T.bool)),
    lambda T: T.mv(T.ones(2, 2, dtype=T.uint16), T.ones(2, dtype=T.uint16)),
    lambda T: T.bmm(T.ones(1, 2, 2, dtype=T.uint64), T.ones(1, 2, 2, dtype=T.uint64)),
    lambda T: T.vdot(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool)),
], ids=['multi_dot_empty_vectors', 'multi_dot_uint16', 'multi_dot_empty_matrices',
        'multi_dot_chain_order', 'multi_dot_refused', 'mm_empty', 'mm_empty_uint32',
        'mm_uint32', 'matmul_empty', 'matmul_mv', 'mv_uint16', 'bmm_uint64', 'vdot_bool'])
def test_products_refuse_bool_and_wide_unsigned_only_where_a_kernel_runs(call):
    """An empty product runs no kernel (torch's multi_dot of empty bool vectors is False;
    ember's generated refusal refused it); mv and bmm refuse uint16-uint64 as mm does
    (ember multiplied them); vdot's kernel is dot's. multi_dot multiplies three in
    torch's cheaper order."""
    check(call, grad=False, match_message=True)


def test_multi_dot_order():
    """torch's order of the chain (the cheaper pair first for three, the dynamic programme
    beyond): the same values and gradients."""
    rng = np.random.default_rng(4)
    shapes = [(1, 5), (5, 2), (2, 6), (6, 3), (3, 1)]
    mats = [rng.standard_normal(s) for s in shapes]
    check(lambda T, *ms: T.linalg.multi_dot(list(ms)), *mats[:3])
    check(lambda T, *ms: T.linalg.multi_dot(list(ms)), *mats)
    check(lambda T, *ms: T.linalg.multi_dot(list(ms)), mats[0][0], *mats[1:4], mats[4][:, 0])


@pytest.mark.parametrize('dtype', ['int8', 'int32', 'uint8', 'int64', 'float64'])
@pytest.mark.parametrize('bias', [False, True])
def test_bilinear_keeps_an_integer_dtype(dtype, bias):
    """torch's _trilinear sums in the operands' dtype (int8 wraps); ember's sum widened an
    integer product to int64."""
    rng = np.random.default_rng(5)
    x1, x2 = (rng.integers(-20, 20, (2, 3, 3)).astype(dtype) for _ in range(2))
    w = rng.integers(-20, 20, (2, 3, 3)).astype(dtype)
    extra = (rng.integers(-5, 5, 2).astype(dtype),) if bias else ()
    check(lambda T, *a: T.nn.functional.bilinear(*a), x1, x2, w, *extra, grad=False)
    check(lambda T, *a: T.bilinear(*a), x1, x2, w, *extra, grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.tensor([], dtype=T.int32).repeat_interleave(T.tensor([], dtype=T.int32),
                                                            output_size=1),
    lambda T: T.repeat_interleave(T.tensor([], dtype=T.int32), output_size=1),
    lambda T: T.repeat_interleave(T.zeros(2, 0), T.tensor([], dtype=T.int64), dim=1,
                                  output_size=3),
    lambda T: T.repeat_interleave(T.tensor([1, 2]), output_size=1),
    lambda T: T.repeat_interleave(T.tensor([1, 2]), output_size=3),
    lambda T: T.repeat_interleave(T.tensor([1., 2]), T.tensor([0, 0]), output_size=3),
    lambda T: T.repeat_interleave(T.zeros(0, 2), T.tensor([1, 1]), dim=1, output_size=3),
    lambda T: T.repeat_interleave(T.tensor([1., 2]), T.tensor([3]), output_size=6),
], ids=['method_empty', 'counts_empty', 'dim_empty', 'counts_short', 'counts',
        'zero_counts', 'empty_input', 'one_count'])
def test_repeat_interleave_output_size_with_no_counts(call):
    """torch's kernel checks output_size only where there are counts (an empty count
    tensor gives the empty result whatever output_size says)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.zeros(0, dtype=T.complex64).uniform_(2.0, -1.0),
    lambda T: T.zeros(0, 3, dtype=T.complex128).uniform_(0, float('inf')),
    lambda T: T.zeros(2, dtype=T.complex64).uniform_(2.0, -1.0),
    lambda T: T.zeros(2, dtype=T.complex64).uniform_(0, float('inf')),
    lambda T: T.zeros(0).uniform_(2.0, -1.0),
], ids=['empty_complex', 'empty_complex_inf', 'complex', 'complex_inf', 'empty_float'])
def test_uniform_of_an_empty_complex_tensor_checks_no_bounds(call):
    """torch fills a complex tensor through its real view and checks nothing when it is
    empty (an empty real tensor's bounds are still checked)."""
    check(call, grad=False, match_message=True)


def test_binomial_of_a_count_past_int64():
    """A count of 1e30 trials (more than an int64 holds) leaked NumPy's "n < 0"; the
    deterministic draws (no trial, every trial a success) are torch's, and a huge count
    with probability 0.5 draws about half of it."""
    count = np.array([1e30, 1e30, 1e30, 0.0, -3.0, 5.0], np.float32)
    prob = np.array([0.0, 1.0, 3.0, 0.5, 0.5, 1.0], np.float32)
    check(lambda T, c, p: T.binomial(c, p), count, prob, grad=False)
    half = ember.binomial(ember.tensor([1e30]), ember.tensor([0.5])).item()
    assert 0.49e30 < half < 0.51e30


@pytest.mark.parametrize('call', [
    lambda T, x: T.index_put(x, [T.tensor([[True, False, True]])], T.tensor([[5.]])),
    lambda T, x: T.index_put(x, [T.tensor([[True, False, True]])], T.tensor([[[5.]]])),
    lambda T, x: T.index_put(x, [T.tensor([[True, False, True]])], T.tensor([[5]])),
    lambda T, x: T.index_put(x, [T.tensor([[True, False, True]])], T.tensor([[5. + 1j]])),
    lambda T, x: T.index_put(x, [T.tensor([[True, False, True]])], T.tensor([[5. + 0j]])),
    lambda T, x: T.index_put(x, [T.tensor([[True, False, True]])], T.tensor([[5.]]), True),
    lambda T, x: T.index_put(x, [T.tensor([[True, False, True]])], T.tensor([5]), True),
    lambda T, x: T.index_put(x, [T.tensor([[True, False, True]])], T.tensor([5, 6])),
    lambda T, x: T.index_put(x.expand(2, 3), [T.tensor([True, False])], T.tensor([[[5.]]])),
    lambda T, x: T.index_put(x.expand(2, 3), [T.tensor(True)], T.tensor([[[5.]]])),
    lambda T, x: T.index_put(x.expand(2, 3), [T.tensor([True, False]), T.tensor([1])],
                             T.tensor([[[5.]]])),
    lambda T, x: T.index_put(T.zeros(2, dtype=T.int32), [T.tensor([True, False])],
                             T.tensor([[1e30]])),
    lambda T, x: x.clone().index_put_((T.tensor([[True, False, True]]),), T.tensor([[[7]]])),
], ids=['value_1x1', 'value_1x1x1', 'int_value', 'complex_value', 'real_complex_value',
        'accumulate', 'accumulate_int', 'two_values_int', 'row_mask', 'mask_0d', 'mask_and_int',
        'too_large', 'in_place'])
def test_index_put_of_one_value_through_a_mask_is_masked_fill(call):
    """One value put through a lone bool mask (without accumulate) is torch's masked_fill:
    its shape and dtype are not checked, only its conversion to the tensor's dtype (ember
    refused a (1, 1) value with the shape error)."""
    check(call, np.array([[1., 2, 3]], np.float32), grad=False, match_message=True)


def test_setitem_of_one_value_through_a_mask():
    """x[mask] = v of one value (any shape, any dtype) fills, as index_put_ does."""
    def fill(T, a):
        y = a.clone()
        y[T.tensor([[True, False, True]])] = T.tensor([[[7]]])
        return y
    check(fill, np.array([[1., 2, 3]]))


@pytest.mark.parametrize('op', ['inv_ex', 'inv_ex_batch', 'solve_ex', 'solve_ex_left',
                                'solve_ex_vector'])
def test_gradient_of_a_singular_ex_call_is_not_an_error(op):
    """inv_ex and solve_ex with check_errors=False let a singular matrix through; torch's
    backward then runs through the inf/nan of the garbage result (ember's raised the
    singular-matrix LinAlgError)."""
    a = np.array([[1., 2, 3], [2, 4, 6], [1, 0, 1]])
    b = np.array([[1., 0, 2], [0, 1, 1], [3, 1, 0]])
    grads = []
    for lib in (ember, torch):
        A = lib.tensor(np.stack([a, b]) if op == 'inv_ex_batch' else a, requires_grad=True)
        B = lib.tensor(b[:, 0] if op == 'solve_ex_vector' else b, requires_grad=True)
        if op.startswith('inv_ex'):
            out, leaves = lib.linalg.inv_ex(A).inverse, (A,)
        else:
            out = lib.linalg.solve_ex(A, B, left=op != 'solve_ex', check_errors=False).result
            leaves = (A, B)
        grads.append([g.numpy() for g in lib.autograd.grad(out.sum(), leaves)])
    for e, t in zip(*grads):
        assert e.shape == t.shape and e.dtype == t.dtype
        if op.startswith('solve_ex'):
            # (the solution of a singular system, and so its gradient, is undefined: where
            # LU's rounding leaves inf and where NaN differs between LAPACK builds)
            assert not np.isfinite(e).all() and not np.isfinite(t).all()
        else:  # (the inverse's NaN/inf pattern is the LU's, the same in both)
            np.testing.assert_array_equal(np.isfinite(e), np.isfinite(t))
            np.testing.assert_allclose(e[np.isfinite(e)], t[np.isfinite(t)])


def test_inverse_gradient_from_the_saved_inverse():
    """inv's node keeps the inverse (torch's _saved_inverse): first and second order
    gradients as torch's."""
    a = np.array([[2., 1, 0], [1, 3, 1], [0, 1, 4]])
    check(lambda T, x: T.linalg.inv(x), a, double=True)
    check(lambda T, x: T.linalg.inv_ex(x).inverse, a, double=True)
    out = ember.linalg.inv(ember.tensor(a, requires_grad=True))
    np.testing.assert_allclose(out.grad_fn._saved_inverse.detach().numpy(),
                               out.detach().numpy())


@pytest.mark.parametrize('call', [
    lambda T: T.linalg.matrix_rank(T.zeros(2, 0, dtype=T.int64), rtol=2.0, hermitian=True),
    lambda T: T.linalg.matrix_rank(T.zeros(2, 0, dtype=T.int64), rtol=1.0),
    lambda T: T.linalg.matrix_rank(T.zeros(0, 0, dtype=T.int64), rtol=1.0),
    lambda T: T.linalg.matrix_rank(T.zeros(3, 2, 0, dtype=T.int64), rtol=1.0, hermitian=True),
    lambda T: T.linalg.matrix_rank(T.zeros(2, 0, dtype=T.bool), rtol=1.0),
    lambda T: T.linalg.matrix_rank(T.zeros(2, 0, dtype=T.int64), atol=1.0, rtol=0.5),
    lambda T: T.linalg.matrix_rank(T.zeros(2, 0, dtype=T.int64), atol=1.0),
    lambda T: T.linalg.matrix_rank(T.zeros(2, 0, dtype=T.int64)),
    lambda T: T.linalg.matrix_rank(T.ones(2, 2, dtype=T.int64), rtol=1.0),
    lambda T: T.linalg.matrix_rank(T.zeros(2, 2, dtype=T.float16), rtol=1.0),
    lambda T: T.linalg.matrix_rank(T.tensor([[1., 2], [2, 4.0001]]), rtol=1e-3),
    lambda T: T.linalg.matrix_rank(T.tensor([[1., 2], [2, 4.0001]]), atol=1e-6, rtol=1e-6),
], ids=['hermitian_rtol', 'rtol', 'square_rtol', 'batch_rtol', 'bool_rtol', 'atol_rtol',
        'atol_only', 'default', 'int_nonempty', 'half_nonempty', 'float_rtol',
        'float_atol_rtol'])
def test_matrix_rank_of_an_empty_integer_matrix_with_an_rtol(call):
    """Given an rtol (a number as well as a tensor) torch computes no default rtol, whose
    epsilon refuses integer dtypes: an empty matrix's rank is 0 whatever its dtype."""
    check(call, grad=False, match_message=True)


# -- seeds 2240-2299 ------------------------------------------------------------------------
@pytest.mark.parametrize('dim', [0, None])
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'complex64'])
def test_prod_with_a_dtype_differentiates_the_converted_values(dim, dtype):
    """prod(x, dtype=float32) of a complex x multiplies the real parts: torch's gradient is
    theirs (real, as x.to(float32).prod()'s), ember's took the complex values."""
    x = np.array([[-2.63 - 0.49j], [-2.09 + 0.75j], [-0.15 - 2.43j], [-1.10 - 0.29j]])
    kw = {} if dim is None else {'dim': dim}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # (both warn of the discarded imaginary parts)
        check(lambda T, a: a.prod(dtype=getattr(T, dtype), **kw), x)
        if dtype != 'complex64':  # (a real input's complex gradient: torch's engine refuses
            # it, ember's does not check -- not prod's business)
            check(lambda T, a: T.prod(a, dtype=getattr(T, dtype), **kw),
                  x.real.astype(np.float32), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('name', ['1x1', 'diagonal_first', 'diagonal_last', 'lower', 'upper',
                                  'batch', 'lower_3x3'])
@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_ex_fails_at_a_nan_pivot(name, upper):
    """LAPACK's reference potrf (and MKL's, torch's) fails at a NaN pivot and leaves the
    partial factor; ember's LAPACK (OpenBLAS) computed through it (info 0). torch reads
    the lower triangle, or with upper=True the upper one (ember read the lower one for
    both)."""
    mats = {'1x1': [[NAN]], 'diagonal_first': [[NAN, 0], [0, 1.]],
            'diagonal_last': [[4., 0], [0, NAN]], 'lower': [[4., 0], [NAN, 1.]],
            'upper': [[4., NAN], [0, 1.]], 'batch': [[[0.88]], [[NAN]]],
            'lower_3x3': [[4., 0, 0], [1, 5, 0], [NAN, 1, 6]]}
    a = np.array(mats[name])
    check(lambda T, x: tuple(T.linalg.cholesky_ex(x, upper=upper)), a, grad=False)
    if torch.linalg.cholesky_ex(torch.tensor(a), upper=upper).info.any():
        # (torch's LinAlgError is its _LinAlgError: compared by message)
        with pytest.raises(torch.linalg.LinAlgError) as t:
            torch.linalg.cholesky_ex(torch.tensor(a), upper=upper, check_errors=True)
        with pytest.raises(ember.linalg.LinAlgError) as e:
            ember.linalg.cholesky_ex(ember.tensor(a), upper=upper, check_errors=True)
        assert str(e.value) == str(t.value)


@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_reads_the_triangle_asked_for(upper):
    """A matrix whose triangles differ: upper=True factors the upper one (ember factored the
    lower one and transposed it)."""
    a = np.array([[4., 1, 0.5], [3, 5, 1], [2, 0.2, 6]])
    check(lambda T, x: T.linalg.cholesky(x, upper=upper), a, grad=False)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # (torch.cholesky is deprecated)
        check(lambda T, x: T.cholesky(x, upper=upper), a, grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.lu_unpack(T.zeros(2, 0, dtype=T.int32), T.zeros(2, 0, dtype=T.int32)),
    lambda T: T.lu_unpack(T.zeros(2, 0), T.zeros(3, dtype=T.int32)),
    lambda T: T.lu_unpack(T.zeros(0, 2), T.zeros(0, dtype=T.int32)),
    lambda T: T.lu_unpack(T.zeros(3, 2, 0), T.zeros(1, dtype=T.int32)),
    lambda T: T.lu_unpack(T.zeros(2, 0), T.zeros(0, dtype=T.int64)),
    lambda T: T.lu_unpack(T.zeros(2, 0, dtype=T.int32), T.zeros(2, 0, dtype=T.int32),
                          unpack_data=False),
    lambda T: T.lu_unpack(T.eye(2), T.tensor([2, 2], dtype=T.int32)),
], ids=['int_no_columns', 'pivots_unread', 'no_rows', 'batch', 'int64_pivots', 'pivots_only',
        'square'])
def test_lu_unpack_of_no_exchanges_reads_no_pivots(call):
    """An LU with no rows or columns has no exchanges: torch reads none of the pivots (its
    P is the identity); ember broadcast the pivots' shape into P (NumPy's axis-remapping
    error)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('stats', [((2,), None), (None, (2,)), ((3,), (3,)), ((1, 2), None)],
                         ids=['mean', 'var', 'longer', 'two_dims'])
def test_batch_norm_update_stats(stats):
    """Statistics of at least the channel count are updated in their first elements; a 2-d
    one is the accessor's refusal (a short one -- torch writes past its end -- is refused as
    the functional form refuses it, see known.py)."""
    x = np.random.default_rng(6).standard_normal((1, 2, 3, 3)).astype(np.float32)

    def call(T, a):
        mean, var = (None if s is None else T.zeros(s) + 0.5 for s in stats)
        out = T.batch_norm_update_stats(a, mean, var, 0.3)
        return out + tuple(t for t in (mean, var) if t is not None)
    check(call, x, grad=False, match_message=True)
    with pytest.raises(RuntimeError, match='running_mean should contain 2 elements not 1'):
        ember.batch_norm_update_stats(ember.tensor(x), ember.zeros(1), None, 0.3)
