"""Exception classes the differential fuzzer found wrong (issue 15, third sweep; functions
i-z and dunders): each bad call runs on ember and torch (``tests.oracle.oracle.check``) and
must raise torch's class with torch's message (its first line), or give torch's result where
torch accepts. The fixes sit where several ops share the cause: aten's batch_norm checks
(instance_norm, native_batch_norm), layer_norm's dtype checks, pad's parser, interpolate's
sizes.
"""
import numpy as np
import pytest

from tests.oracle.oracle import check

R = np.random.default_rng(153)


def m(*shape):
    return R.standard_normal(shape)


def same(call, *args, **kw):
    kw.setdefault('match_message', True)
    check(call, *args, **kw)


def ints(*shape):
    return R.integers(-3, 4, shape).astype(np.int32)


# -- instance_norm: aten's form has no spatial-size check; its own order of checks ---------
@pytest.mark.parametrize('shape', [(2, 3), (1, 3), (2, 3, 1), (3,), (0,), ()])
def test_aten_instance_norm_shapes(shape):
    same(lambda T, x: T.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
         m(*shape))


@pytest.mark.parametrize('w,rm,rv', [((2, 2), None, None), ((4,), None, None),
                                     (None, (3,), None), (None, (2, 2), (2, 2)),
                                     (None, (6,), (6,))])
def test_aten_instance_norm_parameters(w, rm, rv):
    def f(T, x, *a):
        a = list(a)
        ts = [a.pop(0) if s is not None else None for s in (w, rm, rv)]
        return T.instance_norm(x, ts[0], None, ts[1], ts[2], True, 0.1, 1e-5, False)
    args = [m(*s) for s in (w, rm, rv) if s is not None]
    same(f, m(2, 3, 4), *args, grad=False)


def test_aten_instance_norm_refusals():
    same(lambda T, x: T.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
         ints(2, 3, 1))
    same(lambda T, x: T.instance_norm(x, None, None, None, None, False, 0.1, 1e-5, False),
         m(2, 3, 4))


@pytest.mark.parametrize('shape', [(2, 3), (3,), (1, 3, 1), ()])
def test_functional_instance_norm_spatial_check_first(shape):
    same(lambda T, x: T.nn.functional.instance_norm(x), m(*shape))
    same(lambda T, x, rm: T.nn.functional.instance_norm(x, rm), m(2, 3, 4), m(3), grad=False)


# -- batch_norm: aten's order (sizes, the pair of statistics, the dtype) --------------------
@pytest.mark.parametrize('dtype', [np.int32, np.int64, np.bool_, np.complex64])
def test_aten_batch_norm_refuses_dtypes(dtype):
    same(lambda T, x: T.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
         m(2, 3).astype(dtype))
    same(lambda T, x, w: T.batch_norm(x, w, None, None, None, True, 0.1, 1e-5, False),
         m(2, 3).astype(dtype), m(4), grad=False)


@pytest.mark.parametrize('shape', [(1, 3), (1, 3, 1), (3,), ()])
def test_aten_batch_norm_has_no_batch_size_check(shape):
    # (a 0-d input: torch's message is an internal one of its kernel; the class only)
    same(lambda T, x: T.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
         m(*shape), match_message=shape != ())


def test_functional_batch_norm_of_a_0d_input():
    same(lambda T, x: T.nn.functional.batch_norm(x, None, None, training=True), m())


@pytest.mark.parametrize('rm,rv', [(True, False), (False, True)])
def test_batch_norm_pair_of_statistics(rm, rv):
    def f(T, x, s):
        return T.batch_norm(x, None, None, s if rm else None, s if rv else None, True, 0.1,
                            1e-5, False)
    same(f, m(2, 3), np.ones(3), grad=False)
    same(f, ints(2, 3), np.ones(3), grad=False)


@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('dtype', [np.int32, np.bool_, np.float32])
@pytest.mark.parametrize('stats', [True, False])
def test_native_batch_norm_of_a_1d_input(training, dtype, stats):
    def f(T, x, *s):
        s = s if s else (None, None)
        return T.native_batch_norm(x, None, None, *s, training, 0.1, 1e-5)
    args = (np.ones(3, np.float32), np.ones(3, np.float32)) if stats else ()
    same(f, m(3).astype(dtype), *args, grad=False)


def test_native_batch_norm_refusals():
    same(lambda T, x: T.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5),
         m(), match_message=False)
    same(lambda T, x, w: T.native_batch_norm(x, w, None, None, None, True, 0.1, 1e-5),
         ints(2, 3), m(4), grad=False)


@pytest.mark.parametrize('which', [3, 4])
def test_miopen_batch_norm_refuses_statistics_that_require_grad(which):
    def f(T, x, w, s):
        s = s.requires_grad_()
        a = [x, w, None, s if which == 3 else None, s if which == 4 else None]
        return T.miopen_batch_norm(*a, True, 0.1, 1e-5)
    same(f, m(2, 3), m(3), m(3), grad=False)


# -- layer_norm: the parameters' dtypes, then the shapes, then the kernel's dtypes ----------
@pytest.mark.parametrize('x,w,b', [
    ('int64', None, None), ('bool', None, None), ('uint8', None, None),
    ('float32', 'bfloat16', None), ('float16', 'float32', 'float16'),
    ('float64', 'float32', None), ('float32', None, 'float64'), ('int64', 'int64', None)])
def test_layer_norm_dtypes(x, w, b):
    def f(T, a):
        def t(d):
            return None if d is None else T.ones(3, dtype=getattr(T, d))
        return T.nn.functional.layer_norm(a.to(getattr(T, x)), [3], t(w), t(b))
    same(f, m(2, 3), grad=False)
    if w is None and b is None:
        same(lambda T, a: T.native_layer_norm(a.to(getattr(T, x)), [3], None, None, 1e-5),
             m(2, 3), grad=False)
        same(lambda T, a: T.layer_norm(a.to(getattr(T, x)), [3]), m(0, 3), grad=False)


def test_layer_norm_mixed_dtypes_before_shapes():
    same(lambda T, a, w: T.nn.functional.layer_norm(a, [4], w.double()), m(2, 3), m(4),
         grad=False)
    same(lambda T, a, w: T.nn.functional.layer_norm(a.long(), [3], w), m(2, 3), m(4),
         grad=False)


# -- pad parses its amounts as ints (local_response_norm's float size fails there) ----------
@pytest.mark.parametrize('pad', [(1.0,), (0, 0, 1.0, 1), (0, 0, 1, 1.0), (None, 1), ('a', 1),
                                 3, (1, True), (True, 1), [1, 1], (np.int64(1), 1)])
def test_pad_amounts(pad):
    same(lambda T, x: T.nn.functional.pad(x, pad), m(1, 1, 3, 3))


@pytest.mark.parametrize('size', [2.0, -1.0, 0.0, 1.5, False, True, 0, -1, 2, 3])
@pytest.mark.parametrize('shape', [(2, 3, 3), (1, 2, 3, 3), (1, 4, 3, 3, 2)])
def test_local_response_norm_sizes(size, shape):
    same(lambda T, x: T.nn.functional.local_response_norm(x, size), m(*shape))


# -- interpolate: sizes go to torch's C op unconverted ------------------------------------
@pytest.mark.parametrize('size', ['bilinear', 2.5, True, [2.5, 2], [True, 2], (2, 2.5), 2,
                                  [2, 3], (4, 4)])
@pytest.mark.parametrize('shape', [(1, 1, 3, 3), (1, 1, 3), (2, 3)])
@pytest.mark.parametrize('mode', ['nearest', 'bilinear', 'linear'])
def test_interpolate_sizes(size, shape, mode):
    same(lambda T, x: T.nn.functional.interpolate(x, size, mode=mode), m(*shape))


# -- fft: the n-d transforms read s and dim before the dtype; the 1-d ones the dim before n --
@pytest.mark.parametrize('fn', ['ifft2', 'ihfft2', 'irfft2', 'rfft2', 'fftn', 'rfftn',
                                'irfftn', 'ihfftn', 'hfft2'])
@pytest.mark.parametrize('dtype', ['float16', 'complex64', 'bfloat16', 'float32'])
@pytest.mark.parametrize('shape', [(3,), ()])
@pytest.mark.parametrize('dim,s', [([], None), ([-2, -1], None), ([0, 1, 2], None),
                                   ([0], [0]), (None, [2, -1])])
def test_fft_nd_dims_before_dtype(fn, dtype, shape, dim, s):
    same(lambda T, x: getattr(T.fft, fn)(x.to(getattr(T, dtype)), s, dim), m(*shape),
         grad=False)


@pytest.mark.parametrize('fn', ['irfft', 'ifft', 'rfft', 'ihfft', 'hfft'])
@pytest.mark.parametrize('dtype', ['float16', 'complex64', 'int16'])
@pytest.mark.parametrize('shape', [(3,), (), (2, 3)])
@pytest.mark.parametrize('dim,n', [(5, 0), (-1, 0), (0, -1), (-4, 0)])
def test_fft_1d_dim_before_points(fn, dtype, shape, dim, n):
    same(lambda T, x: getattr(T.fft, fn)(x.to(getattr(T, dtype)), n, dim), m(*shape),
         grad=False)


# -- Tensor.__add__ / __radd__ are torch's add (alpha); the other binary ops refuse it ------
@pytest.mark.parametrize('call', [
    lambda T, a, b: a.__add__(b.int(), alpha=0.5), lambda T, a, b: a.int().__add__(b.int(),
                                                                                  alpha=0.5),
    lambda T, a, b: a.__add__(b, alpha=2), lambda T, a, b: a.__radd__(b, alpha=2),
    lambda T, a, b: a.__radd__(b[:2], alpha=2), lambda T, a, b: a.bool().__radd__(b.bool(),
                                                                                  alpha=0.5),
    lambda T, a, b: a.__add__(2, b), lambda T, a, b: a.mul(b, alpha=2),
    lambda T, a, b: a.mul(b, 2), lambda T, a, b: T.mul(a, b, 2), lambda T, a, b: T.mul(a, b, None),
    lambda T, a, b: a.sub(b, alpha=2), lambda T, a, b: a.add(b, alpha=2)])
def test_binary_operators_with_alpha(call):
    same(call, m(2, 3), m(3))


def test_floor_divide_shapes_before_dtype():
    same(lambda T, a, b: a.__floordiv__(b), np.ones(4, bool), np.ones(3, bool))
    same(lambda T, a, b: T.floor_divide(a, b), np.ones(4, bool), np.ones(3, np.complex64))


# -- scatter and index_put: their index checks come before the overlap of an expanded self -
def _expanded(T, x):
    return x[:1].expand(*x.shape)


@pytest.mark.parametrize('call', [
    lambda T, x: _expanded(T, x).scatter_(4, T.zeros(3, 3, dtype=T.long), 1.0),
    lambda T, x: _expanded(T, x).scatter_add_(-3, T.zeros(3, 3, dtype=T.long), T.ones(3, 3)),
    lambda T, x: _expanded(T, x).scatter_add_(0, T.zeros(3, 3, dtype=T.long), T.ones(3)),
    lambda T, x: _expanded(T, x).scatter_reduce_(5, T.zeros(3, 3, dtype=T.long), T.ones(3, 3),
                                                 'sum'),
    lambda T, x: _expanded(T, x).index_fill_(5, T.zeros(1, dtype=T.long), 1.0),
    lambda T, x: _expanded(T, x).index_fill_(0, T.zeros(1, dtype=T.int32), 1.0),
    lambda T, x: _expanded(T, x).index_put_((T.zeros(1),), T.tensor(1.0)),
    lambda T, x: _expanded(T, x).index_put_((T.zeros(1, dtype=T.long),) * 3, T.tensor(1.0)),
    lambda T, x: _expanded(T, x).index_copy_(0, T.zeros(1, dtype=T.long), T.ones(1, 3))])
def test_index_checks_before_overlap(call):
    same(call, m(3, 3), grad=False)


@pytest.mark.parametrize('src', [(4,), (4, 1), (), (2, 4)])
@pytest.mark.parametrize('index', [(4, 4), (1, 4), (4,)])
def test_scatter_reads_src_sizes_before_its_dims(src, index):
    for call in (lambda T, x, s: T.scatter(x, 0, T.zeros(index, dtype=T.long), s),
                 lambda T, x, s: x.scatter_add(-1, T.zeros(index, dtype=T.long), s)):
        same(call, m(4, 4), m(*src), grad=False)


@pytest.mark.parametrize('indices', [
    lambda T: (T.tensor(True),), lambda T: (T.tensor(True), T.tensor(False)),
    lambda T: (T.tensor(0),), lambda T: (T.tensor(1.5),), lambda T: (T.tensor([1.5]), T.tensor(0))])
def test_index_put_counts_indices_first(indices):
    same(lambda T, x: x.index_put(indices(T), T.tensor(1.)), m())
    same(lambda T, x: T.index_put(x, indices(T)[:1] * 2, T.tensor(1.)), m(2))


@pytest.mark.parametrize('dtype', [np.int64, np.int8, np.uint8, np.bool_])
@pytest.mark.parametrize('value', [float('inf'), float('nan'), 300, -1, 2.5])
def test_index_fill_number_out_of_range(dtype, value):
    same(lambda T, x: x.index_fill_(0, T.tensor([1]), value), np.zeros(3, dtype), grad=False)


def test_scatter_checks_dtypes_before_overlap():
    same(lambda T, x, s: _expanded(T, x).scatter_add_(0, T.zeros(3, 3, dtype=T.long), s),
         m(3, 3), m(3, 3).astype(np.float32), grad=False)
    same(lambda T, x: _expanded(T, x).scatter_(0, T.zeros(3, 3), 1.0), m(3, 3), grad=False)


# -- lu_unpack: autograd reads LU's last two sizes before the op's checks -----------------
@pytest.mark.parametrize('shape', [(4,), ()])
@pytest.mark.parametrize('grad', [False, True])
def test_lu_unpack_of_fewer_than_2_dims(shape, grad):
    def f(T, lu, piv):
        return T.lu_unpack(lu.requires_grad_(grad), piv, False)
    same(f, m(*shape), m(3, 1), grad=False)
    same(lambda T, lu: T.lu_unpack(lu.requires_grad_(grad), T.ones(3, dtype=T.int32)),
         m(*shape), grad=False)


# -- kl_div refuses complex, then integral, inputs ------------------------------------------
@pytest.mark.parametrize('a,b', [(np.complex64, np.float32), (np.float32, np.complex128),
                                 (np.complex64, np.int32), (np.int32, np.complex64)])
@pytest.mark.parametrize('log_target', [False, True])
def test_kl_div_complex_inputs(a, b, log_target):
    same(lambda T, x, t: T.nn.functional.kl_div(x, t, log_target=log_target),
         m(3).astype(a), m(3).astype(b), grad=False)
    same(lambda T, x, t: T.kl_div(x, t), m(3).astype(a), m(4).astype(b), grad=False)


# -- index_copy: the ranks of source and self, then the dtypes, then the slice shapes -------
@pytest.mark.parametrize('xs', [(3,), (2, 3), (), (3, 3)])
@pytest.mark.parametrize('ss', [(), (3, 1), (2, 3), (3,), (1, 3)])
@pytest.mark.parametrize('idx,dt', [([0], np.int64), ([0, 1], np.int64), ([[0]], np.int64),
                                    (0, np.int64), ([0], np.int32), ([0], np.float32)])
def test_index_copy_order_of_checks(xs, ss, idx, dt):
    same(lambda T, x, i, s: x.index_copy(0, i, s), np.zeros(xs), np.array(idx, dt), m(*ss),
         grad=False)
