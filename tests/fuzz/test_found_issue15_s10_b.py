"""Gated findings of the fuzzer on wide-shape seeds 600-999 and dtype-restricted seeds
7000-7199 (issue 15), each pinned against torch."""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check


@pytest.mark.parametrize('shape,dim,src', [((1, 1), 0, (1, 1)), ((1, 1), -2, (1, 1)),
                                           ((3, 2), 1, (3, 1)), ((3,), 0, (1,))])
@pytest.mark.parametrize('index_dtype', ['int32', 'int64'])
def test_index_add_bounds_error_follows_the_index_dtype(shape, dim, src, index_dtype):
    """torch's scatter_add kernel (n-d, first or last dim) names the bad index only for an
    int64 index; an int32 one goes through the slice loop's IndexError (ember named it)."""
    check(lambda T: T.ones(shape).index_add(
        dim, T.tensor([-4], dtype=getattr(T, index_dtype)), T.ones(src)),
        grad=False, match_message=True)


def _expanded(T, dtype='float32'):
    return T.tensor([[1], [2], [3]], dtype=getattr(T, dtype)).expand(3, 2)


def _written(fn):
    """``fn(T, x)`` on an expanded ``x``; the tensor written, or the error."""
    def run(T):
        x = _expanded(T)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # (torch's deprecation warning)
            fn(T, x)
        return x
    return run


@pytest.mark.parametrize('fn', [
    lambda T, x: x.index_put_((T.tensor([0, 1]),), T.tensor([5., 6])),
    lambda T, x: x.index_put_((T.tensor([0, 1]),), T.tensor([5., 6]), accumulate=True),
    lambda T, x: x.index_put_((T.tensor([0, 0]),), T.tensor([5., 6]), accumulate=True),
    lambda T, x: x.index_put_((T.tensor([[True, True], [False, True], [False, False]]),),
                              T.tensor([5., 6, 7]), True),
    lambda T, x: x.index_put_((T.tensor([[True, True], [False, True], [False, False]]),),
                              T.tensor([5., 6, 7])),
    lambda T, x: x.t().index_put_((T.tensor([1, 0]), T.tensor([2, 1])), T.tensor([5., 6])),
    lambda T, x: x.__setitem__(T.tensor([0, 1]), T.tensor([5., 6])),
    lambda T, x: x.__setitem__((T.tensor([0, 1]), T.tensor([1, 0])), T.tensor([5., 6])),
    lambda T, x: x.__setitem__(T.tensor([True, False, True]), T.tensor([7., 8])),
    lambda T, x: x.__setitem__((slice(None), T.tensor([1])), T.tensor([7.])),
    lambda T, x: x.__setitem__(0, 5.),
    lambda T, x: x.index_put_((T.tensor([0, 1]),), T.tensor([5, 6])),
    lambda T, x: x.index_put_((T.tensor([0, 5]),), T.tensor([5., 6])),
    lambda T, x: x.index_put_((T.tensor([0, 1]),), T.tensor([5., 6, 7])),
], ids=['put', 'accumulate', 'accumulate_repeated', 'mask_accumulate', 'mask', 'two_indices',
        'setitem', 'setitem_two', 'setitem_mask', 'setitem_slice', 'setitem_basic_refused',
        'dtype_error', 'bounds_error', 'shape_error'])
def test_index_put_writes_an_expanded_tensor(fn):
    """torch's index_put_ (and x[index] = v) writes a tensor whose elements share memory
    (deprecated): the last write to a place stays, accumulated values add up there; its
    own errors stand (ember refused every write to such a tensor)."""
    check(_written(fn), grad=False, match_message=True)


def test_index_put_writes_an_expanded_integer_tensor():
    """The fuzzer's case: an int64 tensor expanded along dim 1, a 2-d index."""
    check(lambda T: T.tensor([[-1], [2], [1], [-5], [2], [5]]).expand(6, 2).index_put_(
        [T.tensor([[-3, 0], [3, -2], [2, -5], [-3, 5], [3, 0], [2, -2]])], T.tensor([2, 5])),
        grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.pow(-2, T.tensor([0, 1, 2, 3, 7], dtype=T.uint8)),
    lambda T: T.pow(1000, T.tensor([0, 1, 2], dtype=T.int8)),
    lambda T: T.pow(2 ** 40 + 3, T.tensor([0, 1, 2], dtype=T.int32)),
    lambda T: T._foreach_pow(300, [T.tensor([0, 1, 2, 3], dtype=T.uint8)]),
    lambda T: T.pow(T.tensor([0, 1, 2], dtype=T.uint8), 300),
    lambda T: T.pow(T.tensor([0, 1, 2], dtype=T.uint8), 255),
    lambda T: T.tensor([0, 1, 2], dtype=T.int8).pow_(128),
], ids=['negative_base_uint8', 'base_int8', 'base_int32', 'foreach', 'exponent_uint8',
        'exponent_fits', 'exponent_in_place'])
def test_pow_converts_an_integer_number_as_torch(call):
    """A number base beyond an integer dtype wraps (as for ``*``); ember leaked NumPy's
    OverflowError. A number exponent beyond it is refused (ember took it)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('shape,dtype', [((3, 0, 2), 'float64'), ((0, 2), 'float64'),
                                         ((3, 0, 4), 'float64'), ((2, 0, 3), 'float64'),
                                         ((3, 0, 2), 'int8')])
def test_view_dtype_of_an_empty_tensor_reads_its_strides(shape, dtype):
    """An empty int32 tensor viewed as a wider dtype: torch checks its contiguous strides
    (ember read them all as 1 and refused)."""
    check(lambda T: T.zeros(shape, dtype=T.int32).view(getattr(T, dtype)), grad=False,
          match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.nn.functional.cross_entropy(T.tensor(-1.1), T.tensor(-2.), label_smoothing=-1.),
    lambda T: T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 3) * 0.3,
                                            label_smoothing=-1.),
    lambda T: T.nn.functional.cross_entropy(T.ones(2, 3), T.ones(2, 3) * 0.3,
                                            label_smoothing=2.),
    lambda T: T.nn.functional.cross_entropy(T.ones(3), T.ones(3), T.ones(4),
                                            label_smoothing=-1.),
], ids=['0d', 'negative', 'above_1', 'weight_first'])
def test_cross_entropy_with_probabilities_checks_label_smoothing_last(call):
    """Class probabilities: torch checks the input's dims and the weight first, and reads a
    negative label_smoothing as none (ember refused it first)."""
    check(call, match_message=True)


@pytest.mark.parametrize('value', [float('nan'), -1.])
def test_poisson_refuses_a_nan_rate(value):
    """torch refuses NaN as a negative rate; ember leaked NumPy's ValueError."""
    check(lambda T: T.poisson(T.tensor([[value]], dtype=T.float64)), grad=False,
          match_message=True)


@pytest.mark.parametrize('shapes', [((1, 3), (0, 3), None), ((0, 3), (2, 3), None),
                                    ((1, 3), (0, 3), (0,)), ((0, 3), (2, 3), (2,)),
                                    ((2, 0, 3), (2, 3), (2,)), ((1, 3), (2, 3), None),
                                    ((1, 3), (2, 3), (2,))],
                         ids=['no_rows_out', 'no_rows_in', 'bias_no_out', 'bias_no_in',
                              '3d', 'refused', 'refused_bias'])
def test_bool_linear_with_an_empty_operand_runs_no_kernel(shapes):
    """An empty product runs no kernel, so torch refuses no bool operands (ember refused
    bool whenever the input had elements)."""
    def call(T):
        x, w, b = (None if s is None else T.ones(s, dtype=T.bool) for s in shapes)
        return T.nn.functional.linear(x, w, b)
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('shapes', [((2,), (0, 3), (3, 2)), ((0,), (1, 3), (3, 0)),
                                    ((2,), (1, 3), (3, 2))])
def test_bool_addmm_with_an_empty_operand_runs_no_kernel(shapes):
    check(lambda T: T.addmm(*(T.ones(s, dtype=T.bool) for s in shapes)), grad=False,
          match_message=True)


@pytest.mark.parametrize('n', [1, 6])
def test_lobpcg_refuses_float16_first(n):
    """torch's table of tolerances has no float16 row (KeyError), looked up before the
    size check; ember gave the size check's ValueError or ran."""
    check(lambda T: T.lobpcg(T.eye(n, dtype=T.float16)), grad=False)


@pytest.mark.parametrize('other', [[1, 2], [1], (1,)])
def test_eq_declines_a_list_given_by_keyword(other):
    """``t.__eq__(other=[1, 2])``: torch answers NotImplemented as for a positional list
    (ember compared elementwise, or raised a shape error)."""
    check(lambda T: T.ones(5).__eq__(other=other), grad=False)


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_lstsq_refuses_half_before_solving(dtype):
    """A float16 matrix holding NaN: torch refuses the dtype; ember's SVD raised about the
    NaN (LinAlgError)."""
    def call(T):
        a = T.ones(2, 6, dtype=getattr(T, dtype)).t().clone()
        a[0, 0] = float('nan')
        return T.linalg.lstsq(a, T.ones(6, 2, dtype=getattr(T, dtype)))
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.rsub(T.tensor([[5, 6]], dtype=T.uint8), 0.5, alpha=-2),
    lambda T: T.rsub(T.tensor([[5, 6]], dtype=T.int8), 0.5j, alpha=-30),
    lambda T: T.rsub(T.tensor([[5, 6]], dtype=T.uint8), 1, alpha=-2),
    lambda T: T.rsub(T.tensor([[5, 6]], dtype=T.uint8), 1.5, alpha=2.5),
], ids=['float', 'complex', 'int_wraps', 'float_alpha'])
def test_rsub_scales_an_integer_input_in_the_result_dtype(call):
    """``0.5 - (-2) * uint8``: torch scales in float32 (ember scaled in uint8, which
    wrapped: -245.5 for 10.5)."""
    check(call, grad=False)


@pytest.mark.parametrize('dtypes', [('bfloat16', 'float16'), ('int8', 'uint8', 'bool')])
def test_cat_of_empty_vectors_promotes_as_torch(dtypes):
    """Only 1-d empty inputs: torch still promotes their dtypes (bfloat16 and half give
    float32); ember leaked NumPy's DTypePromotionError."""
    check(lambda T: T.hstack([T.zeros(0, dtype=getattr(T, d)) for d in dtypes]), grad=False)
    check(lambda T: T.cat([T.zeros(0, dtype=getattr(T, d)) for d in dtypes]), grad=False)


@pytest.mark.parametrize('bias', [(), (1, 1, 1), (1, 3), (2, 1), (1, 1, 1, 1, 1)])
def test_bilinear_reads_the_bias_first_size(bias):
    """torch checks only the bias's first size against the outputs (a (1, 1, 1) bias
    broadcasts); ember refused every shape but (out,), with "got 1 but expected 1"."""
    x1, x2 = np.ones((1, 1, 1)), np.ones((1, 1, 4))
    w, b = np.ones((1, 1, 4)), np.full(bias, 0.5)
    check(lambda T, a, c, m, d: T.nn.functional.bilinear(a, c, m, d), x1, x2, w, b,
          match_message=True)


@pytest.mark.parametrize('args', [(-3, -0.7, 1), (-3.5, 2, 1), (300, 2, 1), (2.7, 300, 1),
                                  (-1, 5, 1), (-3, 5, 2), (-3, -0.7, 2), (-3, -0.7, 0)])
@pytest.mark.parametrize('dtype', ['uint8', 'int8'])
def test_linspace_of_one_value_converts_only_the_start(args, dtype):
    """One value is the start alone: torch converts no end to the integer dtype (ember
    refused an end out of range)."""
    check(lambda T: T.linspace(*args, dtype=getattr(T, dtype)), grad=False,
          match_message=True)


@pytest.mark.parametrize('values', [[1e30], [1e38], [1e30, 1.], [0.5], [1e30, 1e30], [1e17],
                                    [1e9], [1e4], [1e4, 0.], [6e4, -6e4], [3e38, 1.]])
@pytest.mark.parametrize('bins', [1, 2, 5, 10])
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
def test_histc_of_a_range_the_dtype_cannot_hold(values, bins, dtype):
    """min == max and min +- 1 rounds back to min: torch counts the values in the middle
    bin (float, double), the first (half, bfloat16), or refuses (bfloat16, where double
    loses the +- 1 too); a width half cannot hold counts nothing. ember divided 0 by 0 (or
    by inf) and leaked NumPy's ValueError."""
    check(lambda T: T.histc(T.tensor(values, dtype=getattr(T, dtype)), bins=bins),
          grad=False, match_message=True)


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('seed', range(4))
def test_isclose_rounds_each_step_in_half_types(dtype, seed):
    """torch's isclose computes the allowed and actual errors in the input's dtype: in
    bfloat16 |-0.357 - -2.359| rounds to 2.0, within atol 2 (ember's float32 said no)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(40) * [0.01, 1, 100, 3][seed]
    b = a + rng.standard_normal(40) * [1e-3, 1e-2, 1, 2][seed]
    a[:3], b[:3] = [np.nan, np.inf, np.inf], [np.nan, np.inf, -np.inf]
    for rtol, atol, equal_nan in ((1e-5, 2.0, True), (0.01, 1e-8, False), (0.5, 0.01, True)):
        check(lambda T, x, y: T.isclose(x.to(getattr(T, dtype)), y.to(getattr(T, dtype)),
                                        rtol, atol, equal_nan),
              a.astype(np.float32), b.astype(np.float32), grad=False)
    check(lambda T: T.tensor([[-0.357]], dtype=getattr(T, dtype)).isclose(
        T.tensor([[-2.359]], dtype=getattr(T, dtype)), 1e-05, 2.0, equal_nan=True), grad=False)


@pytest.mark.parametrize('index', [[[1]], [[]], [-1], [5]])
@pytest.mark.parametrize('rows', [0, 2])
def test_embedding_of_a_weight_without_rows(index, rows):
    """A (0, 3) weight: torch's index_select refuses it (RuntimeError) before it looks at
    the indices; ember gave the bounds' IndexError."""
    check(lambda T: T.embedding(T.zeros(rows, 3), T.tensor(index, dtype=T.long)), grad=False,
          match_message=True)
    check(lambda T: T.nn.functional.embedding(T.tensor(index, dtype=T.long), T.zeros(rows, 3)),
          grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.bmm(T.ones(1, 3, 3, dtype=T.bfloat16), T.ones(1, 3, 0)),
    lambda T: T.bmm(T.ones(1, 3, 0, dtype=T.bfloat16), T.ones(1, 0, 2)),
    lambda T: T.bmm(T.ones(1, 3, 0), T.ones(1, 0, 2, dtype=T.bfloat16)),
    lambda T: T.bmm(T.ones(0, 3, 3), T.ones(0, 3, 2, dtype=T.float64)),
    lambda T: T.bmm(T.ones(1, 3, 3), T.ones(1, 3, 2, dtype=T.float64)),
    lambda T: T.bmm(T.ones(1, 3, 3, dtype=T.int64), T.ones(1, 3, 0)),
    lambda T: T.matmul(T.ones(1, 1, 3, dtype=T.bfloat16).expand(1, 3, 3), T.ones(3, 0)),
    lambda T: T.matmul(T.ones(1, 3, 3), T.ones(3, 0, dtype=T.float64)),
    lambda T: T.matmul(T.ones(2, 3, 0), T.ones(2, 0, 2, dtype=T.float64)),
    lambda T: T.svd_lowrank(T.ones(1, 1, 3, dtype=T.bfloat16).expand(1, 3, 3), 0),
], ids=['empty_result', 'empty_inner', 'mat2_dtype', 'empty_batch', 'refused', 'int',
        'matmul_expanded', 'matmul_folded_refused', 'matmul_batched', 'svd_lowrank'])
def test_bmm_of_an_empty_operand_takes_two_dtypes(call):
    """torch's bmm compares the dtypes only where both operands have elements (the result
    is then mat2's dtype); ember refused the mix (svd_lowrank of an expanded bfloat16 batch
    with q=0 failed so)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('dims', [(1, 0), (0, 1)])
def test_permute_of_a_sparse_matrix(dims):
    """torch permutes a sparse COO tensor's index rows (ember refused: 'aten::permute')."""
    check(lambda T: T.tensor([[1., 0, 2], [0, 3, 0]]).to_sparse().permute(*dims).to_dense(),
          grad=False)


@pytest.mark.parametrize('dims', [(1, 0, 2), (0, 2, 1)], ids=['sparse_dims', 'mixed'])
def test_permute_of_a_hybrid_sparse_tensor(dims):
    """Sparse dims among themselves only: torch's error for a mix of sparse and dense."""
    check(lambda T: T.arange(24.).reshape(2, 3, 4).to_sparse(2).permute(*dims).to_dense(),
          grad=False, match_message=True)


@pytest.mark.parametrize('shape', [(3, 0, 2), (2, 3)])
def test_gather_sparse_grad_through_a_permuted_input(shape):
    """The sparse gradient of gather flows back through the transpose's PermuteBackward0
    (ember's permute refused the sparse gradient)."""
    def call(T):
        x = T.ones(shape[::-1], dtype=T.float64, requires_grad=True)
        y = T.gather(x.permute(*reversed(range(len(shape)))), 0,
                     T.zeros(shape, dtype=T.int64), sparse_grad=True)
        y.sum().backward()
        return x.grad.to_dense()
    check(call, grad=False)


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('reduction', ['mean', 'sum'])
def test_soft_margin_loss_reduces_half_types_in_float32(dtype, reduction):
    """torch sums the half/bfloat16 losses in float32 and rounds once (ember summed in the
    dtype: 101.5 for 102.5)."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 2, 3, 4, 5)).astype(np.float32)
    check(lambda T, x, y: T.nn.functional.soft_margin_loss(
        x.to(getattr(T, dtype)), y.to(getattr(T, dtype)), reduction=reduction), a, b,
        grad=False)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.avg_pool1d(x[:1], 3),
    lambda T, x: T.nn.functional.avg_pool2d(x[None], 2),
    lambda T, x: T.nn.functional.avg_pool2d(x[None], 2, 1),
    lambda T, x: T.nn.functional.lp_pool1d(x[:1] - 2.5, 1.5, 3),
], ids=['avg1d', 'avg2d', 'avg2d_overlapping', 'lp_pool1d'])
def test_a_non_finite_pooling_gradient_stays_in_its_window(call):
    """A NaN or infinite output gradient reaches only the inputs of its window: torch gives
    the others 0 (ember's products spread it over all: 0 * NaN)."""
    x = np.array([[1., 2, 3, 4, 5], [1, 2, 3, 4, 5]])

    def run(T):
        leaf = T.tensor(x, requires_grad=True)
        y = call(T, leaf)
        g = T.ones_like(y).flatten()
        g[0] = float('nan')
        if g.numel() > 2:
            g[1], g[2] = float('inf'), -float('inf')
        y.backward(g.reshape(y.shape))
        return leaf.grad
    check(run, grad=False)


@pytest.mark.parametrize('value', [1.5, 'x', None, (0.5,)])
def test_max_pool3d_with_indices_reads_is_cuda_of_a_non_tensor_first(value):
    """torch's Python function reads ``input.is_cuda`` before anything else (AttributeError);
    ember checked kernel_size first (RuntimeError)."""
    check(lambda T: T.nn.functional.max_pool3d_with_indices(value, [], None, 0, [2, 2]),
          grad=False, match_message=True)
