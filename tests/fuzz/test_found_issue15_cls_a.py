"""Exception classes the differential fuzzer found wrong (issue 15), functions a-l: each bad
call runs on ember and torch (``tests.oracle.oracle.check``), which must raise the same
class with the same message.
"""
import numpy as np
import pytest

from tests.oracle.oracle import check

R = np.random.default_rng(151)


def m(*shape):
    return R.standard_normal(shape)


def same_error(fn, *args):
    check(fn, *args, grad=False, match_message=True)


# -- torch's parser on a list of ints: the first element decides the message --------------
@pytest.mark.parametrize('k', [(True, 1), [1.5, 1], (1, 1.5), [1, None], ('a', 1), 1.5,
                               (np.float64(1.5), 1)])
def test_int_list_messages(k):
    same_error(lambda T, x: T.nn.functional.avg_pool2d(x, k), m(1, 1, 4, 4))
    same_error(lambda T, x: T.nn.functional.avg_pool2d(x, 2, stride=k), m(1, 1, 4, 4))


# -- nn.functional's Python functions: the C op they call parses its arguments first ------
@pytest.mark.parametrize('args', [(2, True, 3), (1.0, 1.5), (1.5, 1.5), (1.0, 1, 0, 1, None),
                                  (-3, 0, 1, 'valid', 2)])
def test_fold_parses_as_col2im(args):
    same_error(lambda T, x: T.nn.functional.fold(x, *args), m(1, 3))
    same_error(lambda T, x: T.nn.functional.fold(x, *args), m(1, 2, 3, 3))


@pytest.mark.parametrize('n', [1, 2, 3])
@pytest.mark.parametrize('args', [(2, 1.5), (2, 3, True), (1.0, 2, 1, True), (2, True, False)])
def test_lp_pool_parses_as_avg_pool(n, args):
    f = lambda T, x: getattr(T.nn.functional, f'lp_pool{n}d')(x, *args)  # noqa: E731
    same_error(f, m(3))
    same_error(f, m(2, 3, 3))


def test_lp_pool_power_error_comes_first():
    x = np.array([[[1, 2, 3]]])
    same_error(lambda T, x: T.nn.functional.lp_pool1d(x, -1, 1.5), x)


@pytest.mark.parametrize('ignore_index', ['sum', None, 1.5])
def test_cross_entropy_parses_ignore_index(ignore_index):
    same_error(lambda T, x, y: T.nn.functional.cross_entropy(x, y, None, -100, ignore_index),
               m(2, 3), m(3, 3))


def test_adaptive_max_pool1d_with_indices_output_size():
    same_error(lambda T, x: T.nn.functional.adaptive_max_pool1d_with_indices(x, 1.5), m(3))
    same_error(lambda T, x: T.nn.functional.adaptive_max_pool1d_with_indices(x, False),
               np.zeros((2, 0)))


# -- torch's Python functions that read an attribute of a parameter themselves -------------
def test_python_functions_attribute_errors_stand():
    same_error(lambda T, x, t: T.nn.functional.linear_cross_entropy(x, 2, t), m(3, 3),
               np.array([0, 1, 2]))
    idx = np.array([[0, 1], [1, 2]])
    same_error(lambda T, i, w: T.nn.functional.embedding_bag(i, w, None, 2, False, 3, False,
                                                             None, False, None), idx, m(4, 4))


# -- binary_cross_entropy_with_logits: torch's kernel's checks, in its order ---------------
@pytest.mark.parametrize('dtype', [np.bool_, np.int8, np.int32, np.int64, np.complex64])
def test_bce_with_logits_refuses_integer_input(dtype):
    x = np.ones((2, 3), dtype)
    same_error(lambda T, x, t: T.nn.functional.binary_cross_entropy_with_logits(x, t), x, x)
    same_error(lambda T, x, t: T.binary_cross_entropy_with_logits(x, t), x, x)


@pytest.mark.parametrize('shapes', [((0,), (3,), (3, 1), None), ((3,), (2, 3), None, None),
                                    ((1, 3), (2, 3), None, (1, 3)), ((2, 3), (3,), None, None),
                                    ((2, 3), (2, 3), (3, 2), None)])
def test_bce_with_logits_shapes(shapes):
    x, t, w, pw = (None if s is None else m(*s) for s in shapes)
    same_error(lambda T, x, t, w, pw: T.binary_cross_entropy_with_logits(x, t, w, pw),
               x, t, w, pw)


def test_bce_with_logits_broadcasts_input_to_target():
    # (values only: torch's backward of this call fails on its own broadcast, ember's sums
    # the gradient back to input's shape)
    check(lambda T, x, t: T.binary_cross_entropy_with_logits(x, t), m(3), m(2, 3), grad=False)


def test_bce_with_logits_weight_without_gradient():
    check(lambda T, x, t, w: T.binary_cross_entropy_with_logits(
        x, t, w.requires_grad_()), m(1, 4), m(4, 4), m(4, 4), grad=False, match_message=True)


# -- linalg: ranks before dtypes ------------------------------------------------------------
@pytest.mark.parametrize('shapes', [((3,), (3,)), ((0,), (2, 3, 3)), ((3, 3), ()),
                                    ((3, 3), (2, 3))])
@pytest.mark.parametrize('dtypes', [(np.float64, np.float64), (np.int64, np.float32),
                                    (np.float32, np.float64), (np.int64, np.int64)])
def test_lstsq_check_order(shapes, dtypes):
    a, b = (np.ones(s, d) for s, d in zip(shapes, dtypes))
    check(lambda T, a, b: T.linalg.lstsq(a, b).solution, a, b, grad=False,
          match_message=True)


@pytest.mark.parametrize('kw', [{}, {'hermitian': True}, {'atol': -1.0, 'rtol': 0.0}])
@pytest.mark.parametrize('x', [np.ones(4), np.float32(1.5), np.ones(3, np.int64)])
def test_matrix_rank_needs_a_matrix(x, kw):
    same_error(lambda T, x: T.linalg.matrix_rank(x, **kw), np.asarray(x))


# -- lerp: one dtype, then torch's kernel's refusal of integers and bool -------------------
@pytest.mark.parametrize('args', [
    (np.ones(3), np.ones(3, np.float32), 1), (np.ones(3), np.ones(3), np.ones(3, np.float32)),
    (np.ones(3, bool), np.ones(3), 0.5), (np.ones(3, bool), np.ones(3, bool), np.ones(3, bool)),
    (np.ones(3, bool), np.ones(2, bool), np.ones(3, bool)), (np.ones(3, bool), np.ones(3, bool),
                                                             False)])
def test_lerp_dtypes(args):
    same_error(lambda T, *a: T.lerp(*a), *args)
    same_error(lambda T, x, *a: x.lerp(*a), *args)
    same_error(lambda T, x, *a: x.clone().lerp_(*a), *args)


def test_lerp_zero_dim_weight_of_another_dtype():
    check(lambda T, x, y, w: T.lerp(x, y, w), np.ones(3), np.zeros(3),
          np.array(0.25, np.float32))


# -- the recurrent ops: torch's C++ order of size reads and checks ------------------------
@pytest.mark.parametrize('shapes', [
    ((), (), (), ()), ((3,), (3,), (9, 3), (1,)), ((3,), (3,), (9, 3), (9, 3)),
    ((2, 3), (3,), (9, 3), (9, 3)), ((2, 3), (1, 3), (9, 3), (9, 3)),
    ((2, 3), (2, 4), (9, 3), (9, 3)), ((2, 3), (2, 3), (8, 3), (9, 3)),
    ((2, 3), (2, 3), (9, 2), (9, 3)), ((2, 3), (2, 3), (9, 3), (9,))])
@pytest.mark.parametrize('op', ['gru_cell', 'rnn_tanh_cell', 'rnn_relu_cell', 'lstm_cell'])
def test_cell_check_order(op, shapes):
    gates = {'gru_cell': 3, 'lstm_cell': 4}.get(op, 1)
    # (the weights' gate rows as the op wants them, for a hidden size of 3)
    x, h, w_ih, w_hh = (np.ones(s[:1] and (gates * 3,) + s[1:] if i > 1 and s[:1] == (9,)
                                else s) for i, s in enumerate(shapes))
    if op == 'lstm_cell':
        same_error(lambda T, x, h, a, b: T.lstm_cell(x, [h, h], a, b), x, h, w_ih, w_hh)
    else:
        same_error(lambda T, x, h, a, b: getattr(T, op)(x, h, a, b), x, h, w_ih, w_hh)


def test_sequence_ops_check_order():
    p3 = [np.ones(()), np.ones(0), np.ones((1, 2, 3, 3))]
    same_error(lambda T, x, h, *p: T.gru(x, h, list(p), False, 3, 2.0, False, False, True),
               np.ones(0), np.ones(0), *p3)
    same_error(lambda T, x, h0, h1, *p: T.lstm(x, [h0, h1], list(p), True, 0, -1.0, False,
                                                False, False),
               np.ones((2, 2, 3, 4)), np.ones((3, 3)), np.ones(3), np.ones((3, 3)),
               np.ones((1, 2, 3, 3)))


@pytest.mark.parametrize('mode', ['gru', 'rnn_tanh', 'lstm'])
def test_packed_form_of_the_sequence_ops(mode):
    def f(T, data, h0):
        g = np.random.default_rng(0)
        k = {'gru': 3, 'rnn_tanh': 1, 'lstm': 4}[mode]
        params = [T.tensor(g.standard_normal(s)) for s in ((k * 4, 3), (k * 4, 4), (k * 4,),
                                                            (k * 4,))]
        sizes = T.tensor([3, 2, 1])
        hx = [h0, h0 * 0.5] if mode == 'lstm' else h0
        return getattr(T, mode)(data, sizes, hx, params, True, 1, 0.0, False, False)
    check(f, m(6, 3), m(1, 3, 4))
    # (the packed form's own checks: the batch sizes stand where the first form has hx)
    same_error(lambda T, x, b: getattr(T, mode)(x, b, [x] if mode == 'lstm' else x, [x],
                                                True, 1, 0.0, False, True),
               m(1), np.array([0.0]))


# -- floor division and the aliases of elementwise ops: shapes before dtypes ---------------
@pytest.mark.parametrize('shapes', [((4,), (1, 3)), ((2, 3, 1), (2, 3)), ((3,), (3,))])
@pytest.mark.parametrize('dtype', [np.float32, np.uint8, np.complex64])
def test_floordiv_operator(shapes, dtype):
    a, b = (np.ones(s, dtype) * 3 for s in shapes)
    same_error(lambda T, a, b: a.__floordiv__(b), a, b)
    same_error(lambda T, a, b: a // b, a, b)


@pytest.mark.parametrize('shapes', [((2, 1), (2, 3)), ((1,), (1, 3)), ((3,), (3,))])
def test_inplace_alias_checks_its_shape_first(shapes):
    a, b = (m(*s) + 1j * m(*s) for s in shapes)
    same_error(lambda T, a, b: a.clone().arctan2_(b), a, b)


@pytest.mark.parametrize('form', ['function', 'method', 'in-place'])
def test_heaviside_complex(form):
    f = {'function': lambda T, a, b: T.heaviside(a, b), 'method': lambda T, a, b: a.heaviside(b),
         'in-place': lambda T, a, b: a.clone().heaviside_(b)}[form]
    same_error(f, m(4) + 1j, m(4) + 1j)
    same_error(f, m(4) + 1j, m(4))
    same_error(f, m(4), m(4) + 1j)
    same_error(f, m(2) + 1j, m(3) + 1j)


# -- dtypes torch's kernels refuse (the probe now reaches kthvalue's and group_norm's) -----
@pytest.mark.parametrize('dtype', [np.bool_, np.complex128, np.int64])
def test_kthvalue_and_group_norm_dtypes(dtype):
    x = np.ones((4, 4), dtype)
    same_error(lambda T, x: T.kthvalue(x, 1, -1, True), x)
    same_error(lambda T, x: T.group_norm(x, 1), x)
    same_error(lambda T, x: T.nn.functional.group_norm(x, 1), x)


@pytest.mark.parametrize('groups', [0, -3])
def test_group_norm_needs_positive_groups(groups):
    same_error(lambda T, x: T.group_norm(x, groups), m(2, 4))


@pytest.mark.parametrize('dtype', ['int32', 'bool', 'complex64', 'complex128'])
@pytest.mark.parametrize('op', ['fftfreq', 'rfftfreq'])
def test_fftfreq_dtypes(op, dtype):
    same_error(lambda T: getattr(T.fft, op)(3, dtype=getattr(T, dtype)))
    same_error(lambda T: getattr(T.fft, op)(-1, dtype=getattr(T, dtype)))


# -- cumsum/cumprod: dim first, then the dtypes ---------------------------------------------
@pytest.mark.parametrize('op', ['cumsum', 'cumprod'])
def test_cumulative_dtypes(op):
    x = np.ones((2, 3), np.int16)
    same_error(lambda T, x: getattr(x, op + '_')(5, dtype=T.int64), x)
    same_error(lambda T, x: getattr(x, op + '_')(-1, dtype=T.int64), x)
    same_error(lambda T, x: getattr(x, op + '_')(-1, dtype=T.int8), x.astype(np.uint8))
    same_error(lambda T, x: getattr(x, op)(-1, dtype=T.bool), m(2, 3))
    same_error(lambda T, x: getattr(x, op + '_')(0), np.ones(3, bool))
    check(lambda T, x: getattr(x, op + '_')(-1), np.ones((2, 0), bool), grad=False)
    check(lambda T, x: getattr(x, op)(0, dtype=T.bool), np.array(0.5 + 1j), grad=False)
    check(lambda T, x: getattr(x, op + '_')(-1, dtype=T.int16), x)


# -- hinge_embedding_loss computes in input's dtype, as torch's kernel -----------------------
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('dtype', [np.int16, np.int64, np.bool_])
def test_hinge_embedding_loss_integer_inputs(dtype, reduction):
    x = np.array([-5, 0, 2]).astype(dtype)
    t = np.array([1, -1, -1]).astype(dtype)
    check(lambda T, x, t: T.nn.functional.hinge_embedding_loss(x, t, 1.5, reduction=reduction),
          x, t, grad=False, match_message=True)
    check(lambda T, x, t: T.hinge_embedding_loss(x, t, 1.0, 2), x, t, grad=False,
          match_message=True)


@pytest.mark.parametrize('shape', [(2, 3, 3), (1, 2), (4,)])
@pytest.mark.parametrize('groups', [0, 1, 2, -3])
def test_group_norm_python_and_aten_forms(shape, groups):
    same_error(lambda T, x: T.nn.functional.group_norm(x, groups), m(*shape))
    same_error(lambda T, x: T.group_norm(x, groups), m(*shape))


# -- huber_loss: broadcast, reduction (or weight size), delta, then the kernel's dtypes ----
@pytest.mark.parametrize('kw', [{'reduction': 0}, {'delta': 0.0}, {'weight': 'w'},
                                {'reduction': 0, 'weight': 'w'}, {}])
@pytest.mark.parametrize('dtype', [np.float64, np.int64, np.complex64])
def test_huber_loss_check_order(kw, dtype):
    x = np.array([3, -2, 0]).astype(dtype)
    kw = {k: (np.array([4, 1, -1]).astype(dtype) if v == 'w' else v) for k, v in kw.items()}
    w = kw.pop('weight', None)
    if w is None:
        same_error(lambda T, x, t: T.nn.functional.huber_loss(x, t, **kw), x, x[:1])
        same_error(lambda T, x, t: T.nn.functional.huber_loss(x, t, **kw), x, x[:2])
    else:
        same_error(lambda T, x, t, w: T.nn.functional.huber_loss(x, t, weight=w, **kw), x,
                   x[:1], w)


# -- arange: torch's refusals, in its order -------------------------------------------------
@pytest.mark.parametrize('args', [(1.0, 1.25 + 0.25j, 2), (0.75 - 0.5j, 0.0), (1 + 0j, 3),
                                  (float('nan'),), (float('inf'),), (0, 5, float('nan')),
                                  (0, float('inf'), 1), (5, 0, 1)])
@pytest.mark.parametrize('dtype', [None, 'bool', 'int64'])
def test_arange_refusals(args, dtype):
    kw = {} if dtype is None else {'dtype': dtype}
    check(lambda T: T.arange(*args, **{k: getattr(T, v) for k, v in kw.items()}), grad=False,
          match_message=True)


# -- batch_norm_update_stats refuses integer, bool and complex inputs first -----------------
@pytest.mark.parametrize('shape', [(), (1,), (0,), (2, 3)])
@pytest.mark.parametrize('dtype', [np.uint8, np.int64, np.bool_, np.complex128])
def test_batch_norm_update_stats_dtypes(shape, dtype):
    same_error(lambda T, x: T.batch_norm_update_stats(x, None, None, 0.1),
               np.ones(shape, dtype))


# -- lobpcg: the autograd path symmetrizes first; a vector has no A.shape[-2] --------------
def test_lobpcg_shape_errors():
    same_error(lambda T, a: T.lobpcg(a), np.ones(3))
    same_error(lambda T, a: T.lobpcg(a.requires_grad_()), np.ones((2, 0)))
    same_error(lambda T, a: T.lobpcg(a), np.ones((2, 3)))


# -- clamp: bool bounds on bool tensors, complex tensor bounds -------------------------------
@pytest.mark.parametrize('call', [
    lambda T, x: T.clamp_max(x, True), lambda T, x: T.clamp_min(x, True),
    lambda T, x: T.clip(x, None, True), lambda T, x: T.clamp(x, True, True),
    lambda T, x: T.clamp_max(x, 1), lambda T, x: x.clone().clamp_max_(True)])
def test_clamp_bool_bounds(call):
    same_error(call, np.array([True, False]))


@pytest.mark.parametrize('op', ['clamp_max', 'clamp_min', 'clamp'])
def test_clamp_complex_tensor_bounds(op):
    same_error(lambda T, x, b: getattr(T, op)(x, b), m(1, 3), m(2, 1, 3) + 1j)
    same_error(lambda T, x, b: getattr(T, op)(x, b), m(1, 3), m(2, 2) + 1j)


# -- embedding: torch's Python checks (padding_idx, max_norm's renorm), then the op's ------
@pytest.mark.parametrize('kw', [{'padding_idx': 3}, {'padding_idx': -5}, {'padding_idx': 0},
                                {'max_norm': 1.0}, {}])
@pytest.mark.parametrize('shapes', [((2,), (3,)), ((2,), ()), ((2,), (4, 4)), ((), (4, 4))])
@pytest.mark.parametrize('dtype', [np.int64, np.int8, np.float64])
def test_embedding_check_order(kw, shapes, dtype):
    i = np.zeros(shapes[0], dtype)
    w = m(*shapes[1])
    same_error(lambda T, i, w: T.nn.functional.embedding(i, w, **kw), i, w)
    if 'max_norm' not in kw:
        for grad in (False, True):
            same_error(lambda T, i, w: T.embedding(w.requires_grad_(grad), i,
                                                   kw.get('padding_idx', -1)), i, w)


# -- chunk of a 0-d tensor; diag_embed onto one dim twice ----------------------------------
@pytest.mark.parametrize('args', [(2, -1), (0, 0), (2, 5)])
@pytest.mark.parametrize('shape', [(), (3,)])
def test_chunk_needs_a_dim(shape, args):
    same_error(lambda T, x: T.chunk(x, *args), m(*shape))
    same_error(lambda T, x: x.unsafe_chunk(*args), m(*shape))


@pytest.mark.parametrize('dims', [(0, 0), (0, 1), (5, 5), (1, 1), (-1, 1)])
@pytest.mark.parametrize('shape', [(), (2,)])
def test_diag_embed_dims(shape, dims):
    same_error(lambda T, x: T.diag_embed(x, 0, *dims), m(*shape))


def test_lstm_counts_its_states_first():
    same_error(lambda T, x, h, p: T.lstm(x, [h], [p, p], True, 1, 0.0, False, False, True),
               m(4), m(4), m(4))
