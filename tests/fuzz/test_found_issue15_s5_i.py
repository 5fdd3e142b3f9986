"""Findings of the differential fuzzer (issue 15, fifth pass, seeds 900-939) for the names
n-z and the dunders, and wrong values anywhere, each pinned against torch.

Every test runs the same code on ember and torch (``tests.oracle.oracle.check``, or both
libraries side by side). Where torch is wrong (an entry in ``tests/fuzz/known.py``) the test
shows torch's answer next to the right one, computed a second way in torch itself.
"""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check, torch, values

import ember
from tests.fuzz.test_found_issue15_s4_g import both  # (one helper for the pinned files)

INF, NAN = float('inf'), float('nan')


def same(e, t, rtol=1e-6):
    if isinstance(t, tuple):
        assert isinstance(e, tuple) and len(e) == len(t)
        for a, b in zip(e, t):
            same(a, b, rtol)
        return
    assert e.dtype == t.dtype and e.shape == t.shape, (e, t)
    np.testing.assert_allclose(e, t, rtol=rtol, atol=1e-7, equal_nan=True)


def outcome(fn, lib):
    """What ``fn(lib)`` gives: ('ok', value arrays) or (exception class name, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            r = fn(lib)
    except Exception as e:  # noqa: BLE001 -- the class is what is compared
        return type(e).__name__, str(e).split('\n')[0]
    return 'ok', values(r) if isinstance(r, (ember.Tensor, torch.Tensor)) else r


def same_outcome(fn, message=True):
    e, t = outcome(fn, ember), outcome(fn, torch)
    assert e[0] == t[0], (e, t)
    if e[0] == 'ok':
        if t[1] is None:  # (a setitem)
            assert e[1] is None
        else:
            same(e[1], t[1])
    elif message:
        assert e[1] == t[1], (e, t)


# -- rrelu_ in training: the draw checks the bounds' width, only where it draws --------------
@pytest.mark.parametrize('lower,upper', [(-INF, -INF), (0.1, INF), (-INF, 0.3), (INF, INF),
                                         (NAN, 0.3), (0.4, 0.3), (-1e308, 1e308)])
@pytest.mark.parametrize('data', [[2.0], [2.0, -1.0], [0.0], [NAN], []])
def test_rrelu_inplace_training_with_infinite_bounds(lower, upper, data):
    def f(T):
        x = T.tensor(data, dtype=T.float64)
        r = T.nn.functional.rrelu_(x, lower, upper, True)
        # (the drawn slopes are random: compare where nothing was drawn)
        return T.where(x > 0, r, 0) if r.numel() else r
    same_outcome(f, message=False)


@pytest.mark.parametrize('dt', ['float32', 'bfloat16', 'float64'])
@pytest.mark.parametrize('data', [[2.0], [-2.0]])
def test_rrelu_inplace_bounds_beyond_float(dt, data):
    # the float32 and bfloat16 kernels take the bounds as floats: 1e308 does not convert
    def f(T):
        r = T.nn.functional.rrelu_(T.tensor(data, dtype=getattr(T, dt)), -1e308, 1.0, True)
        return T.zeros_like(r)  # (the slope drawn is random: only the outcome is compared)
    same_outcome(f)


def test_rrelu_out_of_place_still_refuses_infinite_bounds():
    same_outcome(lambda T: T.nn.functional.rrelu(T.tensor([2.0]), -INF, 0.3, True))


# -- complex to real: torch's UserWarning, never NumPy's ComplexWarning ----------------------
_CASTS = {
    'float': lambda T, x: x.float(),
    'to': lambda T, x: x.to(T.float64),
    'to_kw': lambda T, x: x.to(dtype=T.int32),
    'half': lambda T, x: x.half(),
    'bfloat16': lambda T, x: x.bfloat16(),
    'type': lambda T, x: x.type(T.float64),
    'type_as': lambda T, x: x.type_as(T.zeros(1)),
    'copy_': lambda T, x: T.zeros(2).copy_(x),
    'setitem': lambda T, x: T.zeros(2).__setitem__(slice(None), x),
    'fill_': lambda T, x: T.zeros(2).fill_(x[0]),
    'tensor': lambda T, x: T.tensor(np.array([1 + 2j]), dtype=T.float32),
    'as_tensor': lambda T, x: T.as_tensor(np.array([1 + 2j]), dtype=T.float32),
    'sum': lambda T, x: x.sum(dtype=T.float32),
    'mean': lambda T, x: x.mean(dtype=T.float32),
    'cumsum': lambda T, x: x.cumsum(0, dtype=T.float32),
    'softmax': lambda T, x: x.softmax(0, dtype=T.float32),
    'grad': lambda T, x: x.detach().requires_grad_().float(),
}


def _cast_warnings(lib, fn):
    x = lib.tensor([1 + 2j, 3 - 1j])
    always = lib.is_warn_always_enabled()
    lib.set_warn_always(True)  # (torch warns once per process otherwise)
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            r = fn(lib, x)
    finally:
        lib.set_warn_always(always)
    return r, [(m.category, str(m.message).split(' (Triggered')[0], m.filename) for m in w]


@pytest.mark.parametrize('name', sorted(_CASTS))
def test_complex_to_real_cast_warns_as_torch(name):
    er, ew = _cast_warnings(ember, _CASTS[name])
    tr, tw = _cast_warnings(torch, _CASTS[name])
    assert [w[:2] for w in ew] == [w[:2] for w in tw]
    assert [w[2] for w in ew] == [__file__] * len(ew)  # (the user's line, as torch's)
    if isinstance(tr, torch.Tensor):
        same(values(er), values(tr))


@pytest.mark.parametrize('name', ['bool', 'empty', 'real_imag_zero_fill'])
def test_complex_casts_torch_does_not_warn_about(name):
    fn = {'bool': lambda T, x: x.bool(),
          'empty': lambda T, x: x[:0].float(),
          'real_imag_zero_fill': lambda T, x: T.zeros(2).masked_fill(T.tensor([True, False]),
                                                                      T.tensor(1 + 0j))}[name]
    er, ew = _cast_warnings(ember, fn)
    tr, tw = _cast_warnings(torch, fn)
    assert ew == tw == []
    same(values(er), values(tr))


def test_complex_cast_warns_once_per_process_unless_warn_always():
    ember.tensor([1 + 1j]).float()  # (whatever warned before, the once is now spent)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        ember.tensor([1 + 1j]).float()
    assert w == []


# -- Scalars written into a tensor: converted as torch converts a Scalar ---------------------
@pytest.mark.parametrize('case', range(24))
def test_scalar_written_into_a_tensor_is_range_checked(case):
    def f(T):
        m = T.tensor([True, False])
        h = T.zeros(2, dtype=T.float16)
        return [
            # (a float16 checks against its own range, except through x[i] = v and
            # scalar_tensor, which go through float)
            lambda: T.full((2,), 1e6, dtype=T.float16),
            lambda: h.new_full((2,), 65519.0),
            lambda: T.full_like(h, -1e6),
            lambda: h.fill_(1e6 + 0j),
            lambda: h.fill_(T.tensor(1e6)),
            lambda: h.fill_(-INF),
            lambda: h.index_fill(0, T.tensor([0]), 1e6),
            lambda: h.masked_fill(m, T.tensor(1e6)),
            lambda: T.zeros(2, dtype=T.bfloat16).fill_(1e300),
            lambda: T.zeros(2, dtype=T.complex64).fill_(1e300),
            lambda: T.scalar_tensor(1e6, dtype=T.float16),
            lambda: T.scalar_tensor(1e300, dtype=T.float32),
            lambda: T.scalar_tensor(1e300, dtype=T.complex64),
            lambda: h.__setitem__(0, 1e6),
            lambda: T.zeros(2).__setitem__(0, 1e300),
            lambda: T.zeros(2).__setitem__(T.tensor([True, False]), 1e300),
            lambda: T.zeros(2, dtype=T.uint8).__setitem__(0, 300),
            lambda: T.zeros(2, dtype=T.int32).__setitem__(0, 1e20),
            lambda: T.zeros(2).__setitem__(0, 1 + 2j),
            lambda: T.zeros(2, dtype=T.uint8).masked_fill(m, 300),
            lambda: T.zeros(2, dtype=T.uint8).masked_fill(m, T.tensor(300)),
            lambda: T.zeros(2).masked_fill(m, T.tensor(1 + 2j)),
            lambda: T.zeros(2).masked_fill(m, 1 + 2j),
            lambda: T.zeros(2).lerp(T.ones(2), 1 + 2j),
        ][case]()
    same_outcome(f)


@pytest.mark.parametrize('case', range(6))
def test_scalar_written_into_a_tensor_in_range(case):
    def f(T):
        m = T.tensor([True, False])
        x = [T.zeros(2, dtype=T.uint8), T.zeros(2, dtype=T.int8), T.zeros(2, dtype=T.bool),
             T.zeros(2, dtype=T.float16), T.zeros(2, dtype=T.int32), T.zeros(2)][case]
        v = [-3, 2.5, 1 + 2j, 6e4, T.tensor(7.9), 1 + 0j][case]
        y = x.clone()
        y[0] = v
        return T.stack([y.double(), x.masked_fill(m, v).double(),
                        T.zeros(2).lerp(T.ones(2), 0.5 + 0j)])
    same(*both(f))


# -- std of a float32 spread whose square overflows: finite, as torch's double accumulation --
@pytest.mark.parametrize('op', ['std', 'std_mean'])
@pytest.mark.parametrize('dt', ['float32', 'float16', 'bfloat16'])
def test_std_of_a_spread_whose_square_overflows(op, dt):
    big = 1e30 if dt != 'float16' else 6e4
    def f(T):
        x = T.tensor([[0.134, -big, 0.2765], [big, 2.0, -3.0]], dtype=getattr(T, dt))
        return getattr(T, op)(x), getattr(T, op)(x, 1, correction=0)
    e, t = both(f)
    assert np.isfinite(np.asarray(e[0][0] if op == 'std_mean' else e[0], np.float64)).all()
    same(e, t, rtol=1e-2 if dt in ('float16', 'bfloat16') else 1e-6)


def test_std_mean_gradients_unchanged():
    check(lambda T, x: T.std_mean(x, 1), np.random.default_rng(0).normal(size=(3, 4)))


# -- var_mean/std_mean's mean is torch's running one: parts apart, inf only when last -------
def test_var_mean_complex_infinity_keeps_its_zero_imaginary_part():
    same(*both(lambda T: T.var_mean(T.tensor(complex(-INF, 0), dtype=T.complex64),
                                    correction=None)))


_ROWS = [[INF, 1.0], [1.0, INF], [1.0, INF, 2.0], [INF, INF], [1.0, 2.0, -INF], [INF, -INF],
         [NAN, 1.0]]


@pytest.mark.parametrize('op', ['var_mean', 'std_mean'])
@pytest.mark.parametrize('row', range(len(_ROWS)))
def test_var_mean_running_mean_of_infinities(op, row):
    v = _ROWS[row]
    def f(T):
        x = T.tensor([v, v])
        return tuple(getattr(T, op)(x, d)[1] for d in (None, 0, 1, [], (1, 0)))
    same(*both(f))


@pytest.mark.parametrize('case', range(4))
def test_var_mean_running_mean_in_logical_order(case):
    def f(T):
        x = T.tensor([[1.0, INF], [1.0, 1.0]])
        return [lambda: T.var_mean(x.t(), (0, 1), keepdim=True)[1],
                lambda: T.var_mean(x.to(T.bfloat16), 1)[1],
                lambda: T.var_mean(T.tensor([[complex(1, INF), 1j]]), 1)[1],
                lambda: T.std_mean(T.tensor([complex(INF, 1), complex(NAN, 1)]), 0)[1]][case]()
    same(*both(f))


@pytest.mark.parametrize('op', ['var', 'std', 'var_mean', 'std_mean'])
def test_degrees_of_freedom_warning_names_the_op(op):
    msgs = []
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            getattr(lib, op)(lib.tensor([1.0, 2.0]), correction=2)
        msgs.append([(m.category, str(m.message).split(' (Triggered')[0], m.filename)
                     for m in w])
    assert msgs[0] == msgs[1]


# -- randint_like reads a tensor bound as an int64, truncating ------------------------------
@pytest.mark.parametrize('high', [0.0225, 2.7, 5])
def test_randint_like_with_a_tensor_bound(high):
    def f(T):
        r = T.randint_like(T.tensor(0.92, dtype=T.float64), T.tensor(high), dtype=T.float32)
        return ((r >= 0) & (r < int(high))).to(r.dtype)  # (ones of the result's dtype)
    same_outcome(f)


# -- svd of an empty float16 matrix: answered (torch refuses only non-empty ones) -----------
@pytest.mark.parametrize('case', range(4))
def test_svd_of_an_empty_half_matrix(case):
    def f(T):
        a = T.zeros(2, 0, dtype=T.float16)
        return [lambda: T.svd(a, True, False), lambda: T.linalg.svd(a), lambda: a.svd(),
                lambda: (T.linalg.svdvals(a),)][case]()
    same(*both(f))


def test_svd_of_a_half_matrix_still_refused():
    same_outcome(lambda T: T.svd(T.zeros(2, 2, dtype=T.float16)))


# -- prod checks its dim before the dtype's autograd support ---------------------------------
def test_prod_checks_the_dim_first():
    same_outcome(lambda T: T.prod(T.ones(1, 2, 3, 3, dtype=T.float64, requires_grad=True), 5,
                                  dtype=T.int16))


# -- unravel_index of a 0-d index: 0-d tensors (not NumPy scalars inside) -------------------
def test_unravel_index_of_a_zero_dim_index():
    def f(T):
        r = T.unravel_index(T.tensor(-1, dtype=T.int16), 2)
        return tuple(x.clone() for x in r) + tuple(T.tensor(x.stride()) for x in r)
    same(*both(f))


# -- to_sparse_bsr/bsc: the block dims are looked up before the dense ones -------------------
@pytest.mark.parametrize('shape', [(4, 4), (2, 4, 4), (4,)])
@pytest.mark.parametrize('args', [('bsc', 1), ('bsr', 0), ('bsr', 2), ('bsr', -1)])
def test_blocked_sparse_conversion_dense_dim_out_of_range(shape, args):
    layout, dense = args
    same_outcome(lambda T: getattr(T.zeros(*shape), f'to_sparse_{layout}')([2, 1], dense)
                 .to_dense())


# -- the fuzzer builds torch's empty inputs as torch makes them ------------------------------
def test_fuzzer_builds_empty_inputs_with_torchs_own_strides():
    from tests.fuzz.compare import build
    from tests.fuzz.generate import Call, TensorPlan
    plan = TensorPlan(array=np.zeros((2, 0)), dtype='float64', layout='contiguous', grad=False)
    call = Call(target='view_copy', seed=0, args=[plan, 'dtype:int8'], kwargs={}, finite=True,
                grad=False)
    (et, _), _, _ = build(ember, call, False)
    (tt, _), _, _ = build(torch, call, False)
    assert et.stride() == tt.stride() == torch.zeros(2, 0).stride()
    same(*both(lambda T: T.view_copy(T.zeros(2, 0, dtype=T.float64), T.int8)))


# -- linspace/logspace into an integer dtype: the ends truncated first, as torch's kernel ----
@pytest.mark.parametrize('op,args', [
    ('logspace', (0.5, 1.5, 3, 0.25)), ('logspace', (0.5, 1.5, 3, 2)),
    ('logspace', (0.5, 3.5, 5, 10)), ('logspace', (-1, 1.5, 4, 0.25)),
    ('logspace', (-0.7, 2.9, 4, 3)), ('logspace', (1.9, -2.9, 5, 2)),
    ('linspace', (0.6, 1.6, 3)), ('linspace', (-0.7, 2.9, 4)), ('linspace', (1.9, -2.9, 5))])
@pytest.mark.parametrize('dt', ['int32', 'int64', 'uint8', 'int8'])
def test_integer_spaces_truncate_their_ends(op, args, dt):
    same_outcome(lambda T: getattr(T, op)(*args, dtype=getattr(T, dt)))


# -- binary_cross_entropy_with_logits: the loss has the target's dtype (built on 1 - target) -
@pytest.mark.parametrize('dts', ['dfNN', 'fdNN', 'dfdN', 'dfNd', 'fhNN', 'fbNN', 'hfNN'])
@pytest.mark.parametrize('reduction', ['none', 'mean'])
def test_bce_with_logits_result_has_the_targets_dtype(dts, reduction):
    i, t, w, pw = dts
    names = {'h': 'float16', 'f': 'float32', 'd': 'float64', 'b': 'bfloat16'}
    x = np.random.default_rng(1).normal(size=(2, 3))
    y = np.random.default_rng(2).random((2, 3))

    def f(T, x, y):
        kw = {}
        if w != 'N':
            kw['weight'] = T.full((3,), 0.7, dtype=getattr(T, names[w]))
        if pw != 'N':
            kw['pos_weight'] = T.full((3,), 1.5, dtype=getattr(T, names[pw]))
        return T.nn.functional.binary_cross_entropy_with_logits(
            x.to(getattr(T, names[i])), y.to(getattr(T, names[t])), reduction=reduction, **kw)
    # (a float32 log_sigmoid inside a float64 loss: as precise as float32)
    low = 'h' in dts or 'b' in dts
    check(f, x, y, rtol=2e-2 if low else 1e-6, atol=2e-2 if low else 1e-6)


@pytest.mark.parametrize('dt', ['int32', 'int64', 'bool'])
@pytest.mark.parametrize('pos_weight', [False, True])
def test_bce_with_logits_refuses_an_integer_target(dt, pos_weight):
    def f(T):
        kw = {'pos_weight': T.ones(3)} if pos_weight else {}
        return T.nn.functional.binary_cross_entropy_with_logits(
            T.zeros(2, 3), T.ones(2, 3, dtype=getattr(T, dt)), **kw)
    same_outcome(f)


# -- native_group_norm: any input holding N * C * HxW values; statistics in the graph --------
@pytest.mark.parametrize('case', range(3))
def test_native_group_norm_reads_the_sizes_given(case):
    shape, args = [((0,), (3, 0, 1, 2)), ((4,), (2, 2, 1, 2)), ((2, 0), (2, -3, 0, 1))][case]

    def f(T, x):
        out, mean, rstd = T.native_group_norm(x, None, None, *args, 1e-5)
        return out, mean, rstd
    x = np.random.default_rng(0).normal(size=shape)
    check(f, x, grad=False)
    e, t = (lib.native_group_norm(lib.tensor(x, requires_grad=True), None, None, *args, 1e-5)
            for lib in (ember, torch))
    assert [r.requires_grad for r in e] == [r.requires_grad for r in t] == [True] * 3


def test_native_group_norm_statistics_carry_no_gradient():
    for lib in (ember, torch):
        x = lib.tensor(np.random.default_rng(0).normal(size=(2, 4)), requires_grad=True)
        out, mean, rstd = lib.native_group_norm(x, None, None, 2, 4, 1, 2, 1e-5)
        with pytest.raises(RuntimeError, match='appears to not have been used in the graph'):
            lib.autograd.grad(mean.sum(), x)


# -- searchsorted/bucketize: an integer converted to the boundaries' dtype wraps, as in C -----
@pytest.mark.parametrize('case', range(7))
def test_searchsorted_converts_an_integer_as_c_does(case):
    def f(T):
        return [lambda: T.searchsorted(T.tensor([1, 2]), 1.5),
                lambda: T.searchsorted(T.tensor([1, 2], dtype=T.uint8), -2),
                lambda: T.searchsorted(T.tensor([1, 2], dtype=T.int8), 300),
                lambda: T.searchsorted(T.tensor([1, 5], dtype=T.int8), -200, right=True),
                lambda: T.searchsorted(T.tensor([1, 2], dtype=T.int8), -129.5),
                lambda: T.bucketize(-2, T.tensor([1, 2], dtype=T.uint8)),
                lambda: T.searchsorted(T.tensor([1], dtype=T.uint8).expand(1), -2)][case]()
    same_outcome(f)


# -- unflatten: the op wraps its dim first, the method looks at the sizes first --------------
@pytest.mark.parametrize('case', [(1, -3, []), (1, 0, []), (0, 0, []), (0, 0, [1]), (0, 1, []),
                                  (0, 5, [1]), (1, -2, []), (2, 1, [3, -1])])
@pytest.mark.parametrize('form', ['function', 'method'])
def test_unflatten_checks_in_torchs_order(case, form):
    nd, dim, sizes = case
    def f(T):
        x = T.arange(6).reshape([6, 1][:nd]) if nd else T.tensor(3)
        return T.unflatten(x, dim, sizes) if form == 'function' else x.unflatten(dim, sizes)
    same_outcome(f)


def test_randint_like_refuses_a_complex_bound():
    same_outcome(lambda T: T.randint_like(T.zeros(2), T.tensor(0.5 + 0.5j)))


@pytest.mark.parametrize('dt', ['int64', 'bool', 'complex64', 'float16'])
@pytest.mark.parametrize('shape,args', [((0,), (2, 0, 1, 3)), ((2, 4), (2, 4, 1, 2))])
def test_native_group_norm_dtype_refusal_even_when_empty(dt, shape, args):
    same_outcome(lambda T: T.native_group_norm(T.zeros(shape, dtype=getattr(T, dt)), None, None,
                                               *args, 0.1)[0])


# -- softmax family of an empty complex input that requires grad: torch's autograd refusal ----
@pytest.mark.parametrize('fn', ['softmin', 'softmax', 'log_softmax'])
@pytest.mark.parametrize('shape', [(2, 0), (2, 3)])
@pytest.mark.parametrize('grad', [True, False])
def test_softmax_of_complex_that_requires_grad(fn, shape, grad):
    def f(T):
        x = T.zeros(shape, dtype=T.complex128, requires_grad=grad)
        return getattr(T.nn.functional, fn)(x, 0)
    same_outcome(f)


def test_softmax_to_complex_dtype_that_requires_grad():
    same_outcome(lambda T: T.softmax(T.zeros(2, 0, requires_grad=True), 0, dtype=T.complex64))
