"""Bad calls that fail several of torch's checks at once: ember must raise what torch raises
first (issue 15's bar: torch's exception class on the calls torch rejects). Each case runs
the same code on ember and torch (``tests.oracle.oracle.check``) and compares the exception
class and the first line of its message.

The shared mechanism is pinned by the elementwise cases (shapes before dtypes, from torch's
``pointwise`` tag in the generated tables; dtype refusals with a Python-number operand; the
bitwise ops' refusals probed from an integer dtype); the rest are ops whose own checks ran
in another order than torch's.
"""
import numpy as np
import pytest

from tests.oracle.oracle import check

import ember

F32, I64, B, C64 = 'float32', 'int64', 'bool', 'complex64'


def t(T, *shape, dtype=F32):
    return T.ones(*shape, dtype=getattr(T, dtype))


CASES = {
    # -- elementwise ops: shapes (in-place overlap, broadcasting, in-place result) first
    'gcd bool, shapes clash': lambda T: T.gcd(t(T, 3, dtype=B), t(T, 2, dtype=B)),
    'gcd_ float, result shape': lambda T: t(T, 2, 1).gcd_(t(T, 3)),
    'floor_ bool, expanded self': lambda T: t(T, 1, dtype=B).expand(3).floor_(),
    'bitwise_xor_ float, expanded self':
        lambda T: t(T, 2).expand(2, 2).bitwise_xor_(t(T, 2, 2)),
    'bitwise_or float, shapes clash': lambda T: T.bitwise_or(t(T, 2), t(T, 3)),
    'lcm_ complex, shapes clash': lambda T: t(T, 2, 3, dtype=C64).lcm_(t(T, 4)),
    'hypot_ int, result shape':
        lambda T: T.ones(3, 4, dtype=T.int8).hypot_(T.ones(2, 3, 4, dtype=T.int8)),
    'elu_ int, expanded self': lambda T: T.nn.functional.elu_(t(T, 1, dtype=I64).expand(3)),
    # -- dtype refusals probed from a dtype the op runs with, and with a number operand
    'bitwise_not float': lambda T: T.bitwise_not(t(T, 2)),
    'bitwise_and double': lambda T: T.bitwise_and(t(T, 2, dtype='float64'), t(T, 2, dtype='float64')),
    'greater complex, number': lambda T: t(T, 3, dtype=C64).greater(0),
    'greater_equal complex, number': lambda T: T.greater_equal(t(T, 3, dtype=C64), 2.0),
    'less complex, number': lambda T: t(T, 3, dtype=C64).less(2),
    'lt complex, number (operator)': lambda T: t(T, 3, dtype=C64) < 1,
    # -- addbmm/baddbmm read batch1.size(1) and batch2.size(2) before the ranks
    'addbmm 1-d batch1': lambda T: T.addbmm(t(T, 2, 2), t(T, 2), t(T, 2, 2, 2)),
    'addbmm 2-d batches': lambda T: T.addbmm(t(T, 2, 2), t(T, 2, 2), t(T, 2, 2)),
    'addbmm 2-d batch1, 3-d batch2': lambda T: T.addbmm(t(T, 2, 2), t(T, 2, 2), t(T, 2, 2, 2)),
    'baddbmm 3-d batch1, 1-d batch2': lambda T: T.baddbmm(t(T, 2, 2), t(T, 2, 2, 2), t(T, 2)),
    'addbmm_ 4-d batch1, 2-d batch2':
        lambda T: t(T, 2, 2).addbmm_(t(T, 2, 2, 2, 2), t(T, 2, 2)),
    # -- index ops: the dim, the index's rank, then dtypes
    'index_copy 2-d float index': lambda T: t(T, 3, 3).index_copy(0, t(T, 2, 2), t(T, 2, 3)),
    'index_copy dim out of range': lambda T: t(T, 3, 3).index_copy(5, t(T, 2, 2), t(T, 2, 3)),
    'index_copy 2-d index, source dtype':
        lambda T: t(T, 3, 3).index_copy(0, t(T, 2, 2, dtype=I64), t(T, 2, 3, dtype='int32')),
    'index_add 2-d float index': lambda T: t(T, 3, 3).index_add(0, t(T, 2, 2), t(T, 2, 3)),
    'index_add dim out of range, float index':
        lambda T: t(T, 3, 3).index_add(5, t(T, 2), t(T, 2, 3)),
    'index_select 2-d float index': lambda T: t(T, 3, 3).index_select(0, t(T, 2, 2)),
    'index_select dim out of range': lambda T: t(T, 3, 3).index_select(5, t(T, 2)),
    'index_fill 1-d value, float index': lambda T: t(T, 3, 3).index_fill(0, t(T, 2), t(T, 2)),
    'index_fill 2-d float index': lambda T: t(T, 3, 3).index_fill(0, t(T, 2, 2), 1.0),
    'index_fill dim out of range, float index': lambda T: t(T, 3, 3).index_fill(5, t(T, 2), 1.0),
    'index_fill dim out of range, 2-d index':
        lambda T: t(T, 3, 3).index_fill(5, t(T, 2, 2, dtype=I64), 1.0),
    'index_fill 1-d self, dim 1': lambda T: t(T, 3).index_fill(1, T.tensor([0]), 1.0),
    # -- recurrent ops: the flat parameter list and the LSTM's states first
    'rnn_tanh no params':
        lambda T: T.rnn_tanh(t(T, 2, 1, 3), t(T, 1, 1, 4), [], True, 1, 0., False, False, False),
    'rnn_relu 3 params': lambda T: T.rnn_relu(t(T, 2, 1, 3), t(T, 1, 1, 4),
                                              [t(T, 4, 3), t(T, 4, 4), t(T, 4)], True, 1, 0.,
                                              False, False, False),
    'gru odd bidirectional': lambda T: T.gru(t(T, 2, 1, 3), t(T, 1, 1, 4),
                                             [t(T, 4, 3), t(T, 4, 4), t(T, 4), t(T, 4)], True,
                                             1, 0., False, True, False),
    'lstm one state': lambda T: T.lstm(t(T, 2, 1, 3), [t(T, 1, 1, 4)], [], True, 1, 0., False,
                                       False, False),
    # -- torch-level dropout: RuntimeError for p out of range
    'feature_alpha_dropout p=2': lambda T: T.feature_alpha_dropout(t(T, 2, 3), 2.0, True),
    'feature_alpha_dropout_ p=inf':
        lambda T: T.feature_alpha_dropout_(t(T, 2, 3), float('inf'), True),
    # -- fractional max pooling draws its samples (input.size(-3), the dtype) first
    'fractional_max_pool2d 1-d input':
        lambda T: T.nn.functional.fractional_max_pool2d(t(T, 4), 2, output_size=1),
    'fractional_max_pool3d 3-d input':
        lambda T: T.nn.functional.fractional_max_pool3d(t(T, 2, 3, 3), 2, output_size=1),
    'fractional_max_pool2d int input': lambda T: T.nn.functional.fractional_max_pool2d(
        t(T, 2, 3, 3, dtype='int32'), 2, output_size=1),
    'fractional_max_pool2d ratio, 1-d input':
        lambda T: T.nn.functional.fractional_max_pool2d(t(T, 3), 2, output_ratio=(0.5, 0.5)),
    # -- linalg: shapes before the LAPACK kernel's dtypes
    'geqrf int16 1-d': lambda T: T.geqrf(t(T, 3, dtype='int16')),
    'eigvalsh bool 1-d': lambda T: T.linalg.eigvalsh(t(T, 3, dtype=B)),
    'cholesky_inverse int64 1-d': lambda T: T.cholesky_inverse(t(T, 3, dtype=I64)),
    'cholesky_inverse int64 1x3': lambda T: T.cholesky_inverse(t(T, 1, 3, dtype=I64)),
    'solve_triangular int16 2x0': lambda T: T.linalg.solve_triangular(
        t(T, 2, 0, dtype='int16'), t(T, 2, 0, dtype='int16'), upper=True),
    'triangular_solve int64 1-d b': lambda T: T.triangular_solve(t(T, 3, dtype=I64),
                                                                 t(T, 3, 3, dtype=I64)),
    'cholesky_solve bfloat16 3x4': lambda T: T.cholesky_solve(t(T, 3, 4, dtype='bfloat16'),
                                                              t(T, 3, 4, dtype='bfloat16')),
    'lu_factor int16 1-d': lambda T: T.linalg.lu_factor(t(T, 1, dtype='int16')),
    'logcumsumexp int64 dim out of range': lambda T: t(T, 3, dtype=I64).logcumsumexp(1),
    # -- in-place writes into an expanded tensor: the overlap first
    'index_copy_ expanded self': lambda T: t(T, 1, 3).expand(2, 3).index_copy_(
        0, t(T, 2, 2, dtype=I64), t(T, 2, 3)),
    'index_add_ expanded self, 2-d index (index first)': lambda T: t(T, 1, 3).expand(
        2, 3).index_add_(0, t(T, 1, 3, dtype=I64), t(T, 2, 3)),
    # -- torch.functional's *tensors functions: one list is not a tensor
    'broadcast_tensors of a list': lambda T: T.broadcast_tensors([t(T, 2), t(T, 2)]),
    'cartesian_prod of a list': lambda T: T.cartesian_prod([t(T, 2), t(T, 2, 3)]),
    'chain_matmul of a list': lambda T: T.chain_matmul([t(T, 2, 2), t(T, 2, 2)]),
    # -- two numbers where torch's overloads take a number at one place only
    'remainder of two ints': lambda T: T.remainder(2, 3),
    'pow of two floats': lambda T: T.pow(2.0, 3.0),
    'bitwise_and of two ints': lambda T: T.bitwise_and(2, 3),
    # -- ops whose own checks ran in another order than torch's
    'round of an int': lambda T: T.round(0),
    'round int16 decimals=0': lambda T: T.round(t(T, 2, dtype='int16'), decimals=0),
    'round int64 decimals=1': lambda T: T.round(t(T, 2, dtype=I64), decimals=1),
    'bilinear 2-d weight': lambda T: T.nn.functional.bilinear(t(T, 3, 3), t(T, 3, 3), t(T, 3, 3)),
    'bilinear 1-d weight': lambda T: T.nn.functional.bilinear(t(T, 3, 3), t(T, 3, 3), t(T, 3)),
    'sdpa 1-d query': lambda T: T.nn.functional.scaled_dot_product_attention(
        t(T, 4), t(T, 4, 4), t(T, 4, 4)),
    'affine_grid_generator 3 sizes': lambda T: T.affine_grid_generator(t(T, 1), [2, 3, 3],
                                                                       False),
    'adaptive_max_pool2d 1-d, one size': lambda T: T.nn.functional.adaptive_max_pool2d(
        t(T, 0), [2]),
    'adaptive_max_pool3d 3-d, three sizes': lambda T: T.nn.functional.adaptive_max_pool3d(
        t(T, 2, 3, 3), [1, 1, 1]),
    'adaptive_avg_pool3d 3-d, four sizes': lambda T: T.nn.functional.adaptive_avg_pool3d(
        t(T, 2, 3, 3), [1, 1, 1, 1]),
    'fliplr 1-d': lambda T: T.fliplr(t(T, 3)),
    'flipud 0-d': lambda T: T.flipud(T.ones(())),
    'movedim counts differ': lambda T: T.movedim(t(T, 3), [1], []),
    'movedim counts differ, dims out of range': lambda T: T.movedim(t(T, 3, 3), [1], [3, 4]),
    'scatter dim out of range, float index': lambda T: T.scatter(t(T, 2, 3), 5, t(T, 2, 3),
                                                                 t(T, 2, 3)),
    'gather dim out of range, float index': lambda T: T.gather(t(T, 2, 3), 5, t(T, 2, 3)),
    'lstm_cell one state': lambda T: T.lstm_cell(t(T, 2, 3), [t(T, 2, 4)], t(T, 16, 3),
                                                 t(T, 16, 4)),
    'native_batch_norm 1-d': lambda T: T.native_batch_norm(t(T, 3), None, None, None, None,
                                                           True, 0.1, 1e-5),
    'group_norm 1-d (torch level)': lambda T: T.group_norm(t(T, 3), 1),
    'einsum without an equation': lambda T: T.einsum(t(T, 3)),
    'cdist compute_mode 1, int16': lambda T: T.cdist(t(T, 2, 3, dtype='int16'),
                                                     t(T, 2, 3, dtype='int16'), 2.0, 1),
    'matrix_rank bool, positional tol': lambda T: T.linalg.matrix_rank(t(T, 3, 3, dtype=B), 0.5),
    'pinv int64 1x3, positional rcond': lambda T: T.linalg.pinv(t(T, 1, 3, dtype=I64), 0.1,
                                                                False),
    # -- in-place samplers refuse the dtypes torch's kernels refuse, before writing
    'uniform_ int64': lambda T: t(T, 3, dtype=I64).uniform_(),
    'exponential_ uint8': lambda T: t(T, 3, dtype='uint8').exponential_(),
    'exponential_ complex': lambda T: t(T, 3, dtype=C64).exponential_(),
    'log_normal_ int16': lambda T: t(T, 3, dtype='int16').log_normal_(),
    'cauchy_ bool': lambda T: t(T, 3, dtype=B).cauchy_(),
    'geometric_ bool': lambda T: t(T, 3, dtype=B).geometric_(0.5),
    'random_ complex': lambda T: t(T, 3, dtype=C64).random_(),
}


@pytest.mark.parametrize('name', sorted(CASES))
def test_torch_check_order(name):
    check(lambda T: CASES[name](T), grad=False, match_message=True)


def test_elementwise_dtype_refusal_still_raised_when_shapes_agree():
    check(lambda T: T.gcd(t(T, 3, dtype=B), t(T, 3, dtype=B)), grad=False, match_message=True)
    check(lambda T: t(T, 2, 3, dtype=C64).lcm_(t(T, 3)), grad=False, match_message=True)


OUT_DTYPE = {
    'mm': lambda T: T.mm(t(T, 2, 2), t(T, 2, 2), T.float32),
    'addmm': lambda T: T.addmm(t(T, 2, 2), t(T, 2, 2), t(T, 2, 2), T.float32),
    'bmm': lambda T: T.bmm(t(T, 1, 2, 2), t(T, 1, 2, 2), T.float64),
}


@pytest.mark.parametrize('op', sorted(OUT_DTYPE))
def test_out_dtype_overloads_have_no_cpu_kernel(op):
    check(lambda T: OUT_DTYPE[op](T), grad=False, match_message=True)


def test_bfloat16_refusal_after_an_integer_call():
    # (the dtype rows were once keyed before bfloat16's NumPy dtype existed)
    def f(T):
        a = T.ones(2, 3, dtype=T.int32)
        T.bitwise_or(a, a)
        b = T.ones(3).to(T.bfloat16)
        return T.bitwise_or(b, b)
    check(f, grad=False, match_message=True)


def test_number_operand_uses_the_number_kernels_refusals():
    # remainder refuses bool tensors, not a bool tensor with a number; sub refuses both
    check(lambda T: T.remainder(t(T, 2, dtype=B), 2), grad=False)
    check(lambda T: T.sub(t(T, 2, dtype=B), 1), grad=False, match_message=True)
    check(lambda T: T.add(2, 3), grad=False)


def test_refused_sampler_leaves_the_tensor_alone():
    def f(T):
        x = T.zeros(3, dtype=T.int64)
        try:
            x.exponential_()
        except RuntimeError:
            pass
        return x
    check(f, grad=False)


def test_older_tolerance_forms_of_matrix_rank_and_pinv():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.1], [1.0, 0.0, 1.0]])
    for tol in (0.05, 0.5, 5.0):
        check(lambda T, x: T.linalg.matrix_rank(x, tol), a, grad=False)
        check(lambda T, x: T.linalg.matrix_rank(x, tol, True), a + a.T, grad=False)
        check(lambda T, x: T.linalg.pinv(x, tol / 10), a, grad=False)
        check(lambda T, x: T.linalg.pinv(x, tol / 10, True), a + a.T, grad=False)


def test_well_formed_calls_still_run():
    x = np.arange(6.0).reshape(2, 3)
    check(lambda T, a, b: T.addbmm(a, b, b.mT), np.ones((2, 2)), np.arange(12.0).reshape(2, 2, 3))
    check(lambda T, a: a.index_fill(1, T.tensor([0, 2]), -1.0), x)
    check(lambda T, a: a.greater(2.5), x, grad=False)


DROPOUTS = {
    'dropout': lambda T, x, p: T.nn.functional.dropout(x, p),
    'dropout1d': lambda T, x, p: T.nn.functional.dropout1d(x, p),
    'dropout3d': lambda T, x, p: T.nn.functional.dropout3d(x, p),
    'alpha_dropout': lambda T, x, p: T.nn.functional.alpha_dropout(x, p, True),
    'feature_alpha_dropout': lambda T, x, p: T.nn.functional.feature_alpha_dropout(x, p, True),
    'torch.dropout': lambda T, x, p: T.dropout(x, p, True),
    'native_dropout': lambda T, x, p: T.native_dropout(x, p, True),
}


@pytest.mark.parametrize('p', [0.0, 0.5, 1.0])
@pytest.mark.parametrize('dtype', ['bool', 'int8', 'int64', 'complex64'])
@pytest.mark.parametrize('op', sorted(DROPOUTS))
def test_dropout_of_integer_and_complex_inputs(op, dtype, p):
    # torch draws the mask in the input's dtype and scales it as a float: integer inputs
    # are refused in training (whatever p, for native_dropout), complex ones by bernoulli_
    def f(T):
        out = DROPOUTS[op](T, T.ones(2, 3, 4, dtype=getattr(T, dtype)), p)
        out = out[0] if isinstance(out, tuple) else out
        return tuple(out.shape), str(out.dtype).split('.')[-1]  # (values are random)
    check(f, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.isclose(T.ones(2), T.ones(3)),
    lambda T: T.allclose(T.ones(2, 1), T.ones(3, 2)),
    lambda T: T.ones(4).allclose(T.ones(2, 3)),
], ids=['isclose', 'allclose', 'Tensor.allclose'])
def test_shapes_that_do_not_broadcast_get_torchs_message(call):
    """NumPy's broadcasting failure inside a body that lacks the check becomes torch's
    "The size of tensor a (m) must match ..." message (not NumPy's text)."""
    check(call, grad=False, match_message=True)
