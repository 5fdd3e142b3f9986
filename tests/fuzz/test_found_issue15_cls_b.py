"""Exception classes the differential fuzzer found wrong (issue 15; functions m-z): each bad
call runs on ember and torch (``tests.oracle.oracle.check``) and must raise torch's class
with torch's message (its first line), or give torch's result where torch accepts.
"""
import numpy as np
import pytest

from tests.oracle.oracle import check

R = np.random.default_rng(151)


def m(*shape):
    return R.standard_normal(shape)


def same(call, *args):
    check(call, *args, match_message=True)


SCALAR = np.array(1.5)


# -- the split family refuses a 0-d tensor before anything else ---------------------------
@pytest.mark.parametrize('call', [
    lambda T, x: T.split(x, 1), lambda T, x: T.split(x, [1], 0),
    lambda T, x: x.split_with_sizes([], -1), lambda T, x: T.unsafe_split_with_sizes(x, []),
    lambda T, x: x.unsafe_split_with_sizes([1], 0), lambda T, x: T.split_copy(x, 1, 0),
    lambda T, x: T.split_with_sizes_copy(x, [], -1), lambda T, x: T.unsafe_split(x, 1),
    lambda T, x: T.chunk(x, 0), lambda T, x: x.unsafe_chunk(2), lambda T, x: x.chunk(3, 5),
    lambda T, x: T.tensor_split(x, 0), lambda T, x: x.tensor_split([1], 7),
    lambda T, x: x.tensor_split(T.tensor(-3), 0),
    lambda T, x: T.unflatten(x, 0, [1, 1]), lambda T, x: x.unflatten(-1, [1, 1]),
    lambda T, x: T.unflatten(x, 0, [])])
def test_split_family_of_a_0d_tensor(call):
    same(call, SCALAR)


@pytest.mark.parametrize('size', [False, True, 0.5, [1.5], [1, 1.5], 'ab', np.int64(1),
                                  [np.int64(1), 2]])
def test_split_size_types(size):
    same(lambda T, x: T.split(x, size), m(3))
    same(lambda T, x: T.split(x, size), SCALAR)


def test_split_size_as_a_one_element_tensor():
    same(lambda T, x: x.split(T.tensor(1)), m(3))
    same(lambda T, x: T.split(x, T.tensor([1, 2])), m(3))


@pytest.mark.parametrize('idx', [
    lambda T: T.ones(2, 2), lambda T: T.tensor(2), lambda T: T.tensor([1]),
    lambda T: T.tensor([1], dtype=T.int32), lambda T: T.tensor([[1]]),
    lambda T: T.ones(0, dtype=T.bfloat16), lambda T: T.tensor([-1.5, 0.5])])
def test_tensor_split_index_tensors(idx):
    same(lambda T, x: T.tensor_split(x, idx(T), 0), m(3, 2))
    same(lambda T, x: x.tensor_split(idx(T), -1), m(3, 2))


# -- narrow, slice_copy, mv, repeat_interleave: torch's order of checks -------------------
@pytest.mark.parametrize('call', [
    lambda T, x: T.narrow(x, 0, T.tensor([1]), 1), lambda T, x: T.narrow(x, 0, T.tensor(True), 1),
    lambda T, x: T.narrow(x, 5, T.tensor(1.5), 1), lambda T, x: T.narrow(x, 0, T.tensor(1), 1),
    lambda T, x: x.narrow(-1, T.ones(2, 0), -1), lambda T, x: T.narrow_copy(x, 1, 0, 3),
    lambda T, x: x.narrow_copy(-3, 0, 3), lambda T, x: T.slice_copy(x, 0, None, None, 0),
    lambda T, x: T.slice_copy(x, 0, None, None, -1),
    lambda T, x: T.slice_copy(x, 5, None, None, 0)])
def test_narrow_and_slice_checks(call):
    same(call, m(3))


def test_narrow_of_a_0d_tensor():
    same(lambda T, x: T.narrow(x, 0, T.tensor(1.), 1), SCALAR)
    same(lambda T, x: T.narrow(x, 0, T.tensor(1), 1), SCALAR)


def test_mv_of_a_0d_matrix():
    same(lambda T, a, v: T.mv(a, v), SCALAR, m(3))
    same(lambda T, a, v: T.mv(a, v), np.array(1 + 1j, np.complex64), m(3).astype(np.complex64))
    same(lambda T, a, v: T.mv(a, v), m(3, 3), SCALAR)


@pytest.mark.parametrize('call', [
    lambda T, x: x.repeat_interleave(-1, 0), lambda T, x: x.repeat_interleave(2, 0),
    lambda T, x: x.repeat_interleave(2, -1), lambda T, x: x.repeat_interleave(0, 0, output_size=1),
    lambda T, x: x.repeat_interleave(2, 1), lambda T, x: x.repeat_interleave(T.tensor([[1]]), 0),
    lambda T, x: x.repeat_interleave(T.tensor([-1]), 0),
    lambda T, x: x.repeat_interleave(T.tensor([1.]), 0),
    lambda T, x: x.repeat_interleave(T.tensor([1.])),
    lambda T, x: x.repeat_interleave(T.tensor([1, 2]), 0),
    lambda T, x: x.repeat_interleave(T.tensor(2), 0), lambda T, x: x.repeat_interleave(T.tensor(2)),
    lambda T, x: T.repeat_interleave(T.tensor(0, dtype=T.int32), T.tensor(4, dtype=T.int32), 0,
                                     output_size=-3)])
def test_repeat_interleave_of_a_0d_tensor(call):
    same(call, SCALAR)


@pytest.mark.parametrize('call', [
    lambda T, x: x.repeat_interleave(T.tensor([1., 1]), 0),
    lambda T, x: x.repeat_interleave(T.tensor([1., 1])),
    lambda T, x: x.repeat_interleave(T.tensor([1., 1, 1])),
    lambda T, x: x.repeat_interleave(T.tensor([1, 1], dtype=T.int32)),
    lambda T, x: x.repeat_interleave(T.tensor([1, 1], dtype=T.uint8)),
    lambda T, x: x.repeat_interleave(T.tensor(1.)),
    lambda T, x: x.repeat_interleave(T.tensor([-1, 1])),
    lambda T, x: T.repeat_interleave(T.tensor([1., 1])),
    lambda T, x: T.repeat_interleave(T.tensor([True])),
    lambda T, x: T.repeat_interleave(T.tensor([1, 2]))])
def test_repeat_interleave_count_dtypes(call):
    same(call, m(2))


# -- stft: align_to_window, integer signals -----------------------------------------------
def test_stft_align_to_window():
    x = m(2, 21)
    for n_fft, win in [(8, 4), (8, 8), (6, 2)]:
        w = np.hanning(win + 2)[1:-1]
        check(lambda T, s, w: T.stft(s, n_fft, 2, win, w, center=False, return_complex=True,
                                     align_to_window=True), x, w)
        check(lambda T, s, w: T.stft(s, n_fft, 2, win, w, center=False, return_complex=True,
                                     align_to_window=False), x, w)
    same(lambda T, s: s.stft(3, None, None, None, True, 'reflect', False, None, True, True), x)
    same(lambda T, s: T.stft(s, 3, 2, 3, None, True, 'reflect', False, False, True, False), x)


@pytest.mark.parametrize('dt', ['int8', 'int64', 'bool', 'uint8'])
@pytest.mark.parametrize('call', [
    lambda T, s: s.stft(2, 2, None, None, True, 'reflect', True, None, True, None),
    lambda T, s: s.stft(2, 2, None, None, False, 'reflect', True, None, True, None),
    lambda T, s: s.stft(2, None, None, T.ones(2), False, 'reflect', False, True, False, False),
    lambda T, s: s.stft(2, None, 1, None, False, 'reflect', False, True, None, None),
    lambda T, s: s[None, None].stft(2, 2, None, None, False, 'reflect', True, None, True)])
def test_stft_of_an_integer_signal(call, dt):
    same(call, np.array([5, -4, -4, 3]).astype(dt))


# -- torch.norm is linalg.vector_norm / matrix_norm; Tensor.norm's fifth argument is dtype --
@pytest.mark.parametrize('call', [
    lambda T, x: T.norm(x, 2.0, [0], False, T.uint8),
    lambda T, x: T.norm(x, 'nuc', None, False, T.uint8),
    lambda T, x: T.norm(x, 'fro', [0, 1], False, T.ones(())),
    lambda T, x: T.norm(x, 'fro', [0, 1], False, None, T.float64),
    lambda T, x: T.norm(x, 'fro', [0, 1, 1], False), lambda T, x: T.norm(x, 'abc'),
    lambda T, x: T.norm(x, 3, 1, True), lambda T, x: T.norm(x, 3, 1, True, T.ones(4, 1)),
    lambda T, x: x.norm(None, None, False, T.float64), lambda T, x: x.norm(3, 1, True),
    lambda T, x: x.norm('nuc'), lambda T, x: x.norm(p=1, dim=0, keepdim=False, dtype=T.float64),
    lambda T, x: x.norm(None, [0, 1], False, T.complex128), lambda T, x: x.norm(T.float32),
    lambda T, x: x.int().norm(None, None, False, T.bfloat16)])
def test_norm_forms(call):
    same(call, m(4, 4))


@pytest.mark.parametrize('dt', ['uint8', 'float32', 'complex64', 'complex128', 'bfloat16',
                                'float64'])
@pytest.mark.parametrize('src', ['int16', 'float32', 'float64', 'complex64'])
def test_vector_norm_dtype_checks_in_torch_order(src, dt):
    same(lambda T, x: T.linalg.vector_norm(x, dim=5, dtype=getattr(T, dt)), m(3).astype(src))
    same(lambda T, x: T.linalg.vector_norm(x, dtype=getattr(T, dt)), m(3).astype(src))


@pytest.mark.parametrize('mode', ['reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('shape', [(1, 4), (1, 1, 4), (1, 4, 4), (1, 1, 4, 4, 4)])
def test_pad_of_bool_by_index_modes(mode, shape):
    k = min(len(shape) - 1, 3)
    same(lambda T, x: T.nn.functional.pad(x, [1, 1] * k, mode), np.ones(shape, bool))


@pytest.mark.parametrize('shape,pads', [((1, 1, 4), [1, 1, 1, 1]), ((1, 1, 1, 4), [1] * 6),
                                        ((1, 1, 1, 4), [1, 1, 0, 0, 1, 1]),
                                        ((1, 2, 2), [1, 4, 1, 1]), ((1, 1, 4), [4, 0])])
def test_reflect_pad_names_the_argument_torch_checks_first(shape, pads):
    same(lambda T, x: T.nn.functional.pad(x, pads, 'reflect'), m(*shape))


# -- ops torch's autograd has no complex derivative for (a 'grad' row of the refusals) -----
C = (m(2, 2) + 1j * m(2, 2))


@pytest.mark.parametrize('call', [
    lambda T, x: T.nan_to_num(x), lambda T, x: x.nan_to_num(nan=1.0),
    lambda T, x: T.select_copy(x, 0, 0), lambda T, x: T.slice_copy(x),
    lambda T, x: T.slice_scatter(x, x.detach()), lambda T, x: T.slice_scatter(x.detach(), x),
    lambda T, x: T.geqrf(x), lambda T, x: T.native_dropout(x, 0.5, False),
    lambda T, x: x.slice_inverse(x.detach(), 0)])
@pytest.mark.parametrize('grad', [True, False])
def test_no_complex_derivative(call, grad):
    same(lambda T, x: call(T, x.detach().requires_grad_(grad)), C)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nan_to_num(x), lambda T, x: T.select_copy(x, 0, 0),
    lambda T, x: T.slice_scatter(x, x.detach()), lambda T, x: T.geqrf(x)])
def test_no_complex_derivative_needed_without_grad_mode(call):
    def no_grad(T, x):
        with T.no_grad():
            return call(T, x)
    same(no_grad, C)


# -- nn.functional kernels (torch._C._nn) refuse dtypes as torch's do ----------------------
@pytest.mark.parametrize('dt', ['int64', 'bool', 'complex64', 'int32', 'uint8'])
@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.relu6(x), lambda T, x: T.nn.functional.relu6(x, inplace=True),
    lambda T, x: T.nn.functional.hardtanh(x), lambda T, x: T.nn.functional.elu(x),
    lambda T, x: T.nn.functional.leaky_relu(x, 0.1, True), lambda T, x: T.nn.functional.mish(x),
    lambda T, x: T.nn.functional.hardswish(x), lambda T, x: T.nn.functional.hardsigmoid(x),
    lambda T, x: T.nn.functional.glu(x), lambda T, x: T.nn.functional.rrelu(x),
    lambda T, x: T.nn.functional.mse_loss(x, x), lambda T, x: T.nn.functional.l1_loss(x, x),
    lambda T, x: T.nn.functional.smooth_l1_loss(x, x),
    lambda T, x: T.nn.functional.smooth_l1_loss(x, x, 'mean', 2.0),
    lambda T, x: T.nn.functional.huber_loss(x, x),
    lambda T, x: T.nn.functional.soft_margin_loss(x, x),
    lambda T, x: T.nn.functional.binary_cross_entropy(x, x),
    lambda T, x: T.nn.functional.multilabel_soft_margin_loss(x, x),
    lambda T, x: T.nn.functional.multilabel_soft_margin_loss(x, x.float())])
def test_nn_kernel_dtype_refusals(call, dt):
    same(call, np.ones((2, 4)).astype(dt))


def test_silu_has_no_complex_derivative():
    same(lambda T, x: T.nn.functional.silu(x), C)
    same(lambda T, x: T.nn.functional.silu(x.detach()), C)


def test_bool_power_of_bool_tensors():
    t, f = np.array(True), np.array([False, True, True])
    same(lambda T, a, b: a ** b, t, f)
    same(lambda T, a, b: a.__pow__(b), t, f)
    same(lambda T, a, b: a ** b, t, np.array(2))
    same(lambda T, a: a ** True, t)


@pytest.mark.parametrize('a,b', [('bool', 'float32'), ('float32', 'bool'), ('int8', 'bool'),
                                 ('bool', 'int8'), ('uint8', 'uint8')])
def test_soft_margin_loss_of_bool_input(a, b):
    same(lambda T, x, y: T.nn.functional.soft_margin_loss(x, y), np.ones(3).astype(a),
         np.ones(3).astype(b))


# -- resize to no size, nansum / nanmean refusals ------------------------------------------
@pytest.mark.parametrize('call', [
    lambda T, x: x.resize(), lambda T, x: x.resize(1), lambda T, x: x.reshape(1).resize(),
    lambda T, x: x.resize_as(x.reshape(1)), lambda T, x: x.reshape(1).resize_as(x),
    lambda T, x: T.ones(2).resize(), lambda T, x: T.ones(2).resize_as(x)])
def test_resize_to_no_size(call):
    # (without grad: torch records its Resize Function's ResizeBackward, ember a view's node)
    check(call, SCALAR, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.nanmean(T.ones(3,dtype=T.int16),[0],dtype=T.complex64),
    lambda T: T.nanmean(T.ones(3),None,dtype=T.complex64),
    lambda T: T.nanmean(T.ones(3,dtype=T.complex64),dtype=T.float64),
    lambda T: T.nanmean(T.ones(3,dtype=T.complex64),[0],dtype=T.complex64),
    lambda T: T.nanmean(T.ones(3,dtype=T.complex64)),
    lambda T: T.nanmean(T.ones(3,dtype=T.int64)),
    lambda T: T.nanmean(T.ones(3,dtype=T.int64), dtype=T.float32),
    lambda T: T.nanmean(T.ones(3), dtype=T.float64),
    lambda T: T.nansum(T.ones(3,dtype=T.complex64), dtype=T.bfloat16),
    lambda T: T.nansum(T.ones(3,dtype=T.complex64)),
    lambda T: T.nansum(T.ones(3,dtype=T.float32), dtype=T.complex64),
    lambda T: T.nansum(T.ones(3,dtype=T.float32), 5, dtype=T.complex64),
    lambda T: T.nansum(T.ones(3,dtype=T.int32), dtype=T.float16),
    lambda T: T.nansum(T.ones(3,dtype=T.complex64), dtype=T.complex64),
    lambda T: T.nanmean(T.ones(3),5,dtype=T.complex64),
    lambda T: T.nanmean(T.ones(3,dtype=T.int32),5),
    lambda T: T.nanmean(T.ones(3,dtype=T.float16),0, dtype=T.int32),
])
def test_nansum_nanmean_refusals(call):
    same(lambda T: call(T))


# -- tril/triu_indices, random draws: torch's bounds and dtype checks --------------------
@pytest.mark.parametrize('call', [
    lambda T: T.tril_indices(3,3,2,dtype=T.int16),
    lambda T: T.tril_indices(-3,3,2,dtype=T.int16),
    lambda T: T.tril_indices(3,-3,2,dtype=T.float32),
    lambda T: T.triu_indices(3,3,2,dtype=T.uint8),
    lambda T: T.triu_indices(-1,3,0,dtype=T.complex64),
    lambda T: T.triu_indices(3,-1,0,dtype=T.complex64),
    lambda T: T.triu_indices(3,3,0,dtype=T.complex64),
    lambda T: T.triu_indices(3,3,0,dtype=T.int32),
    lambda T: T.ones(2,dtype=T.int16).normal_(),
    lambda T: T.ones(0,dtype=T.int16).normal_(),
    lambda T: T.ones(2,dtype=T.int16).normal_(0,-1.),
    lambda T: T.ones(2,dtype=T.int16).normal_(0.25, 0.),
    lambda T: T.ones(2,dtype=T.int64).bernoulli_().shape,
    lambda T: T.randint(0,40000,[2],dtype=T.int16),
    lambda T: T.randint(-40000,4,[2],dtype=T.int16),
    lambda T: T.randint(0,2**40,[2],dtype=T.int32),
    lambda T: T.ones(2,dtype=T.int16).random_(-40000, 3),
    lambda T: T.ones(2,dtype=T.complex64).random_(2),
    lambda T: T.ones(2,dtype=T.complex64).random_(),
    lambda T: T.ones(2,dtype=T.bool).random_(3,1),
    lambda T: T.ones(2,dtype=T.bool).random_(-2),
    lambda T: T.ones(2,dtype=T.bool).random_(3),
    lambda T: T.ones(2,dtype=T.bool).random_(0, 2).shape,
    lambda T: T.ones(2,dtype=T.bool).random_().shape,
    lambda T: T.ones(2,dtype=T.uint8).random_(-2,5),
    lambda T: T.ones(2,dtype=T.uint8).random_(2,None).shape,
    lambda T: T.ones(2,dtype=T.uint8).random_(257),
    lambda T: T.ones(2,dtype=T.float16).random_(2,5000).shape,
    lambda T: T.randint(1,3,[2,0],dtype=T.complex64),
    lambda T: T.randint(1,3,[-1],dtype=T.complex64),
    lambda T: T.randint(3,1,[-1],dtype=T.complex64),
    lambda T: T.randint(3,1,[2],dtype=T.complex64),
    lambda T: T.randint(1,3,[2],dtype=T.bool),
    lambda T: T.randint(0,2,[2],dtype=T.bool).shape,
    lambda T: T.randint(-1,2,[2],dtype=T.bool),
    lambda T: T.randint(-1,2,[2],dtype=T.uint8),
    lambda T: T.randint(0,300,[2],dtype=T.int8),
    lambda T: T.randperm(2,dtype=T.complex64),
    lambda T: T.randperm(2,dtype=T.bool),
    lambda T: T.randperm(300,dtype=T.int8),
    lambda T: T.randperm(3,dtype=T.int8).shape,
    lambda T: T.randperm(-1,dtype=T.bool),
])
def test_index_and_random_dtype_checks(call):
    same(lambda T: call(T))


@pytest.mark.parametrize('call', [
    lambda T: T.unique(T.ones(3, dtype=T.complex128)),
    lambda T: T.unique(T.ones(3, dtype=T.complex128), True, False),
    lambda T: T.unique(T.ones(3, dtype=T.complex128), dim=5),
    lambda T: T.unique(T.ones(3, dtype=T.complex128), dim=0),
    lambda T: T.unique_consecutive(T.ones(3, dtype=T.complex128), dim=5),
    lambda T: T.unique_consecutive(T.ones(3, dtype=T.complex64)),
    lambda T: T.ones(3, dtype=T.complex64).unique(sorted=False),
    lambda T: T.unique(T.ones(3, dtype=T.bfloat16)), lambda T: T.unique(T.ones(3), dim=5)])
def test_unique_of_complex(call):
    same(lambda T: call(T))


@pytest.mark.parametrize('data', [1 + 2j, [1 + 2j], 1 + 0j, [1.5, 1 + 2j], [[1 + 2j]],
                                  np.complex64(1 + 2j), [np.complex64(1 + 2j)]])
@pytest.mark.parametrize('dt', ['float32', 'int64', 'bool', 'bfloat16', 'uint8', 'complex64'])
def test_tensor_of_complex_numbers_as_a_real_dtype(data, dt):
    check(lambda T: T.tensor(data, dtype=getattr(T, dt)), grad=False, match_message=True)


@pytest.mark.parametrize('dim', [0, -1, 5])
@pytest.mark.parametrize('shape', [(3,), (1, 3)])
def test_unique_of_complex_along_a_dim(dim, shape):
    x = (m(*shape) + 1j).astype(np.complex64)
    same(lambda T, a: T.unique(a, dim=dim), x)
    same(lambda T, a: T.unique_consecutive(a, dim=dim), x)


# -- nn.functional written in Python over C ops that take tuples of ints ------------------
@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.unfold(x, 0.0), lambda T, x: T.nn.functional.unfold(x, 2, 1.5),
    lambda T, x: T.nn.functional.unfold(x.reshape(-1), 1.5, 3),
    lambda T, x: T.nn.functional.unfold(x, (2, 2.5)),
    lambda T, x: T.nn.functional.unfold(x, (2, 2, 2)),
    lambda T, x: T.nn.functional.unfold(x, 2, padding=(1, 'a')),
    lambda T, x: T.nn.functional.unfold(x, 2, stride=np.int64(1)),
    lambda T, x: T.nn.functional.unfold(x, True),
    lambda T, x: T.nn.functional.fold(x.reshape(1, 4, -1), 3, 1.5),
    lambda T, x: T.nn.functional.fold(x.reshape(1, 4, -1), (2., 2), 2)])
def test_unfold_fold_int_arguments(call):
    same(call, m(1, 2, 3, 3))


@pytest.mark.parametrize('call', [
    lambda T, x, i: T.nn.functional.max_unpool1d(x, i.float(), 1.0),
    lambda T, x, i: T.nn.functional.max_unpool1d(x, i.int(), 1.0),
    lambda T, x, i: T.nn.functional.max_unpool1d(x, i, 1.0),
    lambda T, x, i: T.nn.functional.max_unpool1d(x, i, 2, 1.5),
    lambda T, x, i: T.nn.functional.max_unpool1d(x, i, 2, 1, 0.5),
    lambda T, x, i: T.nn.functional.max_unpool1d(x, i, 2, output_size=[2.5]),
    lambda T, x, i: T.nn.functional.max_unpool1d(x, i, 2, output_size=[1.5]),
    lambda T, x, i: T.nn.functional.max_unpool2d(x[None], i[None], (2, 1.5)),
    lambda T, x, i: T.nn.functional.max_unpool2d(x[None], i[None].int(), 1.0),
    lambda T, x, i: T.nn.functional.max_unpool3d(x[None, None], i[None, None], 1.5)])
def test_max_unpool_int_sizes(call):
    same(call, m(1, 2, 2), np.zeros((1, 2, 2), np.int64))


# -- Scalars torch's kernels take as doubles: complex ones refused, real-valued checked ----
@pytest.mark.parametrize('call', [
    lambda T, x: T.renorm(x, 1 + 0j, 1, 2), lambda T, x: T.renorm(x, 1, 1, 2 + 0j),
    lambda T, x: T.renorm(x, -1 + 1j, 1, -2 + 1j), lambda T, x: T.renorm(x.long(), 1 + 1j, 1, 2),
    lambda T, x: T.renorm(x.reshape(-1), 1 + 1j, 1, 2), lambda T, x: T.renorm(x, -1, 1, 2),
    lambda T, x: x.detach().renorm_(1 + 1j, 1, 2),
    lambda T, x: T.nn.functional.rrelu(x, 1 + 0j, 2),
    lambda T, x: T.nn.functional.rrelu(x, 1 + 1j, float('nan')),
    lambda T, x: T.nn.functional.rrelu(x, float('nan'), 1 + 1j),
    lambda T, x: T.nn.functional.rrelu(x.bool(), float('nan'), True),
    lambda T, x: T.nn.functional.rrelu(x, float('nan'), 0.3),
    lambda T, x: T.nn.functional.rrelu(x, 0.1, float('inf')),
    lambda T, x: T.nn.functional.rrelu(x.detach(), 0.3, 0.1, True, True),
    lambda T, x: T.rrelu(x, 1 + 2j, -1.),
    lambda T, x: T.nn.functional.softshrink(x.to(T.complex64), 0.5 - 0.1j),
    lambda T, x: T.nn.functional.softshrink(x.long(), 0.5 - 0.1j),
    lambda T, x: T.nn.functional.softshrink(x.long(), -0.5),
    lambda T, x: T.nn.functional.softshrink(x, 0.5 - 0.1j),
    lambda T, x: T.nn.functional.softshrink(x, 0.5 + 0j),
    lambda T, x: T.nn.functional.hardshrink(x, 0.5 + 0j),
    lambda T, x: T.nn.functional.hardshrink(x, 0.5 - 0.1j), lambda T, x: x.hardshrink(1 + 1j)])
def test_real_valued_scalars(call):
    same(call, m(3, 2))


# -- scatter's dim before dtypes, min/max along a dim of complex, unary plus of bool -------
@pytest.mark.parametrize('call', [
    lambda T: T.scatter_add(T.ones(4), 2, T.zeros(1, 1, 3, dtype=T.int64),
                            T.ones(3, dtype=T.float64)),
    lambda T: T.ones(2, 3).scatter_add_(-3, T.zeros(2, 1, dtype=T.int64),
                                        T.ones(3, dtype=T.float64)),
    lambda T: T.ones(2, 3).scatter_add_(0, T.zeros(2, 1), T.ones(3, dtype=T.float64)),
    lambda T: T.ones(2, 3).scatter_(-3, T.zeros(2, 1, dtype=T.int64), T.ones(3, dtype=T.float64)),
    lambda T: T.scatter(T.ones(4), 2, T.zeros(1, 1, 3, dtype=T.int64), T.ones(3, dtype=T.float64)),
    lambda T: T.scatter_reduce(T.ones(4), 2, T.zeros(1, 1, 3, dtype=T.int64),
                               T.ones(3, dtype=T.float64), 'sum'),
    lambda T: T.scatter_reduce(T.ones(4), 0, T.zeros(3, dtype=T.int64),
                               T.ones(3, dtype=T.float64), 'xx'),
    lambda T: T.scatter(T.ones(4), 0, T.zeros(0, dtype=T.int64), T.ones(3, dtype=T.float64)),
    lambda T: T.scatter(T.ones(4), 0, T.zeros(3, dtype=T.int64), T.ones(3, dtype=T.float64),
                        reduce='xx'),
    lambda T: T.scatter(T.ones(4), 0, T.zeros(2, 2, dtype=T.int64), T.ones(3, dtype=T.float64)),
    lambda T: T.max(T.ones(3, 1, dtype=T.complex64), 0, True),
    lambda T: T.ones(3, 1, dtype=T.complex64).min(dim=0),
    lambda T: T.min(T.ones(3, 1, dtype=T.complex64), -1), lambda T: T.max(T.tensor(1 + 1j), 0),
    lambda T: T.min(T.ones(3, 1, dtype=T.complex64)),
    lambda T: T.min(T.ones(0, dtype=T.complex64), 0),
    lambda T: T.positive(T.ones(2, dtype=T.bool)), lambda T: T.ones(2, dtype=T.bool).positive(),
    lambda T: +T.ones(2, dtype=T.bool),
    lambda T: T.randn([-1], dtype=T.int8), lambda T: T.randn([2], dtype=T.int8),
    lambda T: T.rand([-1], dtype=T.int8), lambda T: T.randn(-1, dtype=T.int8),
    lambda T: T.rand(2, -1, dtype=T.bool)])
def test_torch_order_of_checks(call):
    same(lambda T: call(T))


def test_multi_head_attention_with_a_bool_mask_argument():
    def f(T, x, w):
        return T.nn.functional.multi_head_attention_forward(
            x, x, x, 3, 1, None, None, None, None, False, 0.0, w, None, True, False)
    same(f, m(2, 1, 3), m(3, 3))


@pytest.mark.parametrize('call', [
    lambda T, x, s: T.native_batch_norm(x, None, None, s, None, False, 0.5, 0.1),
    lambda T, x, s: T.native_batch_norm(x, None, None, None, s, True, 0.5, 0.1),
    lambda T, x, s: T.native_batch_norm(x.to(T.int16), None, None, None, None, True, 0.5, 0.1),
    lambda T, x, s: T.native_batch_norm(x.bool(), None, None, s.bool(), s.bool(), False, 0.5, 0.1),
    lambda T, x, s: T.native_batch_norm(x.to(T.int16), s, None, None, None, True, 0.5, 0.1),
    lambda T, x, s: T.native_batch_norm(x.to(T.complex64), None, None, None, None, True, .5, .1),
    lambda T, x, s: T.native_batch_norm(x[0].to(T.int16), None, None, None, None, True, .5, .1),
    lambda T, x, s: T.native_batch_norm(x[0], None, None, s, None, True, 0.5, 0.1),
    lambda T, x, s: T.native_batch_norm(x[0], None, None, s, None, False, 0.5, 0.1),
    lambda T, x, s: T.native_batch_norm(x, T.ones(5), None, s, None, False, 0.5, 0.1),
    lambda T, x, s: T.native_batch_norm(x, None, None, None, s.detach().requires_grad_(), True,
                                        0.5, 0.1),
    lambda T, x, s: T.native_batch_norm(x, None, None, s.detach().requires_grad_(), s.detach(),
                                        False, 0.5, 0.1)])
def test_native_batch_norm_checks(call):
    same(call, m(2, 3), np.ones(3))


# -- size()/stride() of a 0-d tensor; the checks of one RNN cell step in torch's order ----
@pytest.mark.parametrize('call', [
    lambda T, x: x.size(-1), lambda T, x: x.size(-2), lambda T, x: x.size(dim=0),
    lambda T, x: x.stride(0), lambda T, x: x.size(1.5), lambda T, x: x.reshape(2, 1).size(-3)])
def test_size_of_a_0d_tensor(call):
    same(call, np.array([1.5, 2.5])[0:1].reshape(()))


def _cell_cases(T, mode):
    o = T.ones
    g = {'lstm': 4, 'gru': 3}.get(mode, 1)
    hx = (lambda h: (h, h)) if mode == 'lstm' else (lambda h: h)
    return [(o(3, 3), hx(o(3, 1)), T.tensor(1.), o(g, 1)),
            (o(3, 3), hx(o(3, 1)), o(g, 3), T.tensor(1.)),
            (o(3, 3), hx(T.tensor(1.)), o(g, 3), o(g, 1)),
            (T.tensor(1.), hx(o(3, 1)), o(g, 3), o(g, 1)),
            (o(3, 3), hx(o(3, 1)), o(3), o(g, 1)), (o(3, 3), hx(o(3, 1)), o(g, 3), o(1)),
            (o(3, 3), hx(o(1)), o(g, 3), o(g, 1)), (o(3), hx(o(1)), o(g, 3), o(g, 1)),
            (o(3), hx(o(1, 1)), o(g, 3), o(g, 1)), (o(3, 3), hx(o(3, 1)), o(g, 4), o(g, 1)),
            (o(3, 3), hx(o(3, 1)), o(g, 3), o(2, 2)), (o(3, 3), hx(o(3, 2)), o(g, 3), o(g, 1)),
            (o(3, 3), hx(o(2, 1)), o(g, 3), o(g, 1)), (o(2, 3, 3), hx(o(3, 1)), o(g, 3), o(g, 1)),
            (o(3, 3), hx(o(3, 1)), o(g, 3), o(g, 1))]


@pytest.mark.parametrize('case', range(15))
@pytest.mark.parametrize('mode', ['rnn_tanh', 'rnn_relu', 'lstm', 'gru'])
def test_rnn_cell_checks(mode, case):
    check(lambda T: getattr(T, mode + '_cell')(*_cell_cases(T, mode)[case]), grad=False,
          match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.svd_lowrank(T.ones(2, 3, 3, dtype=T.int64), 6, 1),
    lambda T: T.svd_lowrank(T.ones(2, 0, dtype=T.int64)),
    lambda T: T.svd_lowrank(T.ones(3, 3, dtype=T.int16), 6, 0),
    lambda T: T.svd_lowrank(T.ones(3, 3, dtype=T.bool), 2, 0),
    lambda T: T.pca_lowrank(T.ones(3, 3, dtype=T.int64), 2)])
def test_svd_lowrank_of_integers(call):
    same(lambda T: call(T))


@pytest.mark.parametrize('call', [
    lambda T, x: x[:, :0].nansum([0], False, dtype=T.complex128),
    lambda T, x: T.nanmean(x[:, :0], dtype=T.complex64),
    lambda T, x: T.nanmean(x, 1, dtype=T.float64), lambda T, x: T.nanmean(x),
    lambda T, x: T.nansum(x, dtype=T.float64)])
def test_nansum_nanmean_of_empty_or_with_a_dtype(call):
    check(call, m(2, 3), match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nansum(x.long(), dtype=T.complex128),
    lambda T, x: T.nansum(x.bool(), dtype=T.complex64),
    lambda T, x: T.nansum(x.half(), dtype=T.complex64),
    lambda T, x: T.nanmean(x, dtype=T.complex64)])
def test_nansum_of_integers_with_a_complex_dtype(call):
    same(call, m(3))


def test_inplace_nan_to_num_of_complex_has_a_derivative():
    same(lambda T, x: x.clone().nan_to_num_(1.5), C)
    same(lambda T, x: T.nan_to_num(x, 1.5), C)


@pytest.mark.parametrize('call', [
    lambda T: T.ones(2, 0, dtype=T.uint8).uniform_(0.0, 0.5),
    lambda T: T.ones(2, 0, dtype=T.int64).uniform_(),
    lambda T: T.ones(2, 0, dtype=T.int64).normal_(),
    lambda T: T.ones(2, 0, dtype=T.complex64).random_(),
    lambda T: T.ones(2, 0, dtype=T.int64).exponential_(),
    lambda T: T.ones(2, 0, dtype=T.int64).cauchy_(),
    lambda T: T.ones(2, dtype=T.int64).uniform_(),
    lambda T: T.searchsorted(T.ones(4, 4, dtype=T.int64), T.ones(4, 4, dtype=T.int64),
                             side='right', sorter=T.full((4, 4), 5)),
    lambda T: T.searchsorted(T.ones(4, 4, dtype=T.int64), T.ones(4, 4, dtype=T.int64),
                             sorter=T.full((4, 4), -1)),
    lambda T: T.searchsorted(T.ones(4, 4, dtype=T.int64), T.ones(4, 4, dtype=T.int64),
                             sorter=T.zeros(4, 4, dtype=T.int64))])
def test_samplers_of_empty_and_searchsorted_sorter(call):
    same(lambda T: call(T))
