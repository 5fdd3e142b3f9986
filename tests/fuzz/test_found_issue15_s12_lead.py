"""Findings of the fuzzer on fresh seeds 21000-21039, 22000-22339 (out=, wrong types,
keywords, inplace modes) and 23000-23339 (dtype-restricted), each pinned against torch."""
import numpy as np
import pytest

import ember
import torch
from tests.oracle.oracle import check


@pytest.mark.parametrize('name,shape,kw', [('ihfftn', (4,), {}), ('ihfftn', (1,), {}),
                                           ('ihfft2', (3,), {'dim': [-1]}),
                                           ('ihfftn', (3, 4), {})])
def test_ihfftn_over_one_dim_writes_out(name, shape, kw):
    """torch bug: `fft.ihfftn`/`ihfft2` over a single dim with `out=` leave `out` untouched
    (their result is right without out=; over two dims out= is written). ember writes out; the
    value is torch's result without out=."""
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    expected = getattr(torch.fft, name)(torch.from_numpy(x), **kw)
    out = ember.full(tuple(expected.shape), 7 + 0j, dtype=ember.complex64)
    got = getattr(ember.fft, name)(ember.from_numpy(x), **kw, out=out)
    assert got is out
    np.testing.assert_allclose(out.numpy(), expected.resolve_conj().numpy(), rtol=1e-6, atol=1e-6)


_NAN_ROW = [0.168, float('nan'), -0.165, -0.0118, -0.0481, float('nan'), 0.691, -0.0266,
            0.691, -0.0266]


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16', 'float32'])
@pytest.mark.parametrize('op', [lambda x: x.nanmedian(0), lambda x: x.median(0),
                                lambda x: x.kthvalue(3), lambda x: x.reshape(2, 5).median(1),
                                lambda x: x.reshape(2, 5).nanmedian(1),
                                lambda x: x[[1, 2, 4]].median(0)],
                         ids=['nanmedian', 'median', 'kthvalue', 'median_rows',
                              'nanmedian_rows', 'median_3'])
def test_order_statistics_of_bfloat16_with_nan(dtype, op):
    """NumPy's sort of ml_dtypes bfloat16 leaves NaNs where they are: nanmedian, median and
    kthvalue along a dim of a bfloat16 tensor holding NaN picked the wrong element (sort and
    argsort already sorted in float32)."""
    check(lambda T: op(T.tensor(_NAN_ROW, dtype=getattr(T, dtype))), grad=False)


def test_nanmedian_returns_its_own_named_tuple():
    """nanmedian(x, dim) is a torch.return_types.nanmedian, not median's."""
    for lib in (torch, ember):
        assert type(lib.randn(3, 2).nanmedian(0)).__name__ == 'nanmedian'
        assert type(lib.nanmedian(lib.randn(3, 2), 1)).__name__ == 'nanmedian'


@pytest.mark.parametrize('n', [17, 40, 300])
@pytest.mark.parametrize('pattern', ['random', 'sorted', 'reversed', 'nan'])
def test_mode_index_past_sixteen_elements(n, pattern):
    """Beyond 16 elements torch's std::sort is an introsort, not stable: among equal values
    the element torch reports as the mode's place is not the last occurrence ember gave (230
    of 350 random rows of 17-1000 elements differed); ember replays the sort."""
    rng = np.random.default_rng(n)
    row = {'random': rng.integers(0, 4, n), 'sorted': np.arange(n) % 5,
           'reversed': (np.arange(n) % 7)[::-1], 'nan': rng.integers(0, 3, n)}[pattern]
    row = row.astype(np.float64)
    if pattern == 'nan':
        row[rng.random(n) < 0.3] = np.nan
    check(lambda T, a: T.mode(a, 0), row, grad=False)
    check(lambda T, a: T.mode(a, 1), np.stack([row, row[::-1]]).astype(np.float32), grad=False)


@pytest.mark.parametrize('dtype', ['complex64', 'complex128'])
@pytest.mark.parametrize('form', ['tensor', 'number_base', 'real_exponent', 'float_power'])
def test_complex_zero_to_a_zero_tensor_power(dtype, form):
    """torch's complex pow with a tensor exponent is exp(y * log(x)): 0j ** tensor(0j) is
    NaN (a number exponent gives 1, as NumPy's power does for both); the base's gradient
    where the exponent is 0 is 0 even when the incoming gradient is NaN."""
    x = np.array([0j, 2 + 0j, 0j, 1j], dtype)
    y = np.array([0j, 0j, 1 + 0j, 0j], dtype)
    fn = {'tensor': lambda T, a, b: a ** b,
          'number_base': lambda T, a, b: T.pow(0j, b),
          'real_exponent': lambda T, a, b: a ** b.real,
          'float_power': lambda T, a, b: T.float_power(a, b)}[form]
    check(lambda T, a, b: fn(T, a, b).abs(), x, y, grad=form in ('tensor', 'number_base'))


@pytest.mark.parametrize('n', [5, 17, 33])
@pytest.mark.parametrize('cols', [0, 2])
def test_unique_dim_of_rows_holding_nan(n, cols):
    """torch's unique(dim=) sorts rows with std::sort and a comparator NaN never satisfies:
    the NaN rows land where the sort leaves them and split the runs of equal rows around
    them (found with --shapes large: 32 rows where ember gave 31, NaN sorted last)."""
    rng = np.random.default_rng(n + cols)
    a = rng.integers(0, 4, (n, cols) if cols else n).astype(np.float64)
    a[rng.random(a.shape) < 0.2] = np.nan
    check(lambda T, x: T.unique(x, dim=0, return_inverse=True, return_counts=True), a,
          grad=False)


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'bfloat16'])
@pytest.mark.parametrize('op', ['var', 'std', 'var_mean'])
def test_variance_with_a_nan_correction(dtype, op):
    """A NaN correction leaves max(0, N - nan) = 0 degrees of freedom in torch (inf, with the
    degrees-of-freedom warning); ember's max(N - nan, 0) kept the NaN."""
    import warnings
    with warnings.catch_warnings(record=True) as caught:  # (torch's warns once a process)
        warnings.simplefilter('always')
        getattr(ember, op)(ember.ones(3), correction=float('nan'))
    assert any('degrees of freedom is <= 0' in str(w.message) for w in caught)
    check(lambda T, a: getattr(T, op)(a.to(getattr(T, dtype)), 0, correction=float('nan')),
          np.array([1., 2., 4.]), grad=False)


@pytest.mark.parametrize('n', [4, 10, 17, 100, 700])
@pytest.mark.parametrize('kind', ['ties', 'nan', 'distinct'])
@pytest.mark.parametrize('largest', [True, False])
@pytest.mark.parametrize('sorted_', [True, False])
def test_topk_reports_torchs_elements_among_ties(n, kind, largest, sorted_):
    """torch's CPU topk runs std::partial_sort (k * 64 <= n) or std::nth_element (then
    std::sort of the first k - 1): which of tied elements it reports, and the order of an
    unsorted answer, are those algorithms' (ember's stable sort gave the first occurrences
    and always sorted output). ember replays them for the rows concerned."""
    rng = np.random.default_rng(n)
    a = (rng.integers(0, 4, (3, n)) if kind != 'distinct' else
         rng.permutation(3 * n).reshape(3, n)).astype(np.float32)
    if kind == 'nan':
        a[rng.random(a.shape) < 0.2] = np.nan
    for k in sorted({1, 2, 3, min(n, 10), n // 2}):
        check(lambda T, x: x.topk(k, 1, largest=largest, sorted=sorted_), a, grad=False)
        check(lambda T, x: x.to(T.int64 if kind != 'nan' else T.bfloat16)
              .topk(min(k, 3), 0, largest=largest, sorted=sorted_), a, grad=False)


@pytest.mark.parametrize('dtype', ['int64', 'int32', 'int8', 'uint8'])
def test_descending_sort_of_the_smallest_integer(dtype):
    """Descending sorts negated integers: -x of int64's minimum is itself, so it sorted first
    (topk(1) of [0, min] answered min)."""
    info = np.iinfo(dtype)
    a = np.array([0, info.min, info.max, 1, info.min], dtype)
    check(lambda T, x: x.sort(descending=True), a, grad=False)
    check(lambda T, x: x.topk(2), a, grad=False)
    check(lambda T, x: x.argsort(descending=True), a, grad=False)


@pytest.mark.parametrize('op', ['__iand__', '__ior__', '__ixor__', '__ilshift__',
                                '__irshift__', '__ipow__'])
@pytest.mark.parametrize('case', ['float_into_int', 'float_pair', 'broadcast_out', 'ok'])
def test_inplace_operators_check_as_their_methods(op, case):
    """The in-place bitwise and power operators (found when the sweep took in the reflected
    and in-place dunders) ran their kernel before the checks their methods make first:
    ``int_t &= float_t`` raised NotImplementedError ("bitwise_and_cpu" not implemented for
    'Float') where torch's is the cast error; ``__ipow__(exponent=)`` answered
    NotImplemented (torch's __ipow__ is pow_)."""
    a, b = {'float_into_int': (np.ones(3, np.int16), np.ones(3, np.float32)),
            'float_pair': (np.ones(3, np.float32), np.ones(3, np.float32)),
            'broadcast_out': (np.ones(3, np.int32), np.ones((2, 3), np.int32)),
            'ok': (np.arange(3, dtype=np.int64), np.ones(3, np.int64))}[case]
    check(lambda T, x, y: getattr(x.clone(), op)(y), a, b, grad=False, match_message=True)
    if op == '__ipow__':
        check(lambda T, x, y: x.clone().__ipow__(exponent=y), a, b, grad=False)


def test_idiv_is_itruediv():
    """torch keeps Python 2's ``__idiv__`` as ``__itruediv__`` (one object)."""
    assert ember.Tensor.__idiv__ is ember.Tensor.__itruediv__
    check(lambda T: T.ones(3).__idiv__(4), grad=False)


def test_topk_of_a_tied_vector():
    """A 1-d input with ties: the replay's row selection met a 0-d mask (NumPy's nonzero of a
    0-d array raises), found once the fuzzer stopped excusing ties for topk."""
    check(lambda T, x: x.topk(2), np.array([1., 3., 3., 0.], np.float32))
    check(lambda T, x: x.topk(3, sorted=False), np.array([2, 2, 1, 2, 2], np.int64), grad=False)


@pytest.mark.parametrize('op', ['softmax', 'log_softmax'])
@pytest.mark.parametrize('shape', [(), (2,)])
def test_softmax_into_complex32(op, shape):
    """softmax(x, dim, complex32) of a 0-d input leaked NumPy's UFuncTypeError: the kernel
    check read complex32's array kind 'V' as floating (bfloat16's)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # (torch warns that ComplexHalf is experimental)
        check(lambda T, x: getattr(x, op)(0, T.complex32), np.ones(shape, np.float32),
              grad=False, match_message=True)


def test_topk_along_a_dim_beside_an_empty_one():
    """topk over a dim of 3 of a (0, 3) tensor: the tie check reshaped an empty gather to
    (0, -1), which NumPy cannot infer."""
    check(lambda T, x: x.topk(2, 1), np.zeros((0, 3), np.float32), grad=False)


@pytest.mark.parametrize('op', ['pixel_shuffle', 'flip0', 'flip1'])
@pytest.mark.parametrize('empty', [True, False])
def test_complex32_kernel_skips_follow_the_unsigned_ones(op, empty):
    """Where torch runs no kernel (an empty pixel_shuffle, a flip over rows) it refuses
    complex32 no more than uint16: the complex32 rows of _CHALF_KERNELS now take the
    conditions of the unsigned ones (an empty complex32 pixel_unshuffle was refused)."""
    import warnings
    shape = (0, 4, 2, 2) if op == 'pixel_shuffle' else (0 if empty else 2, 3)
    if op == 'pixel_shuffle' and not empty:
        shape = (1, 4, 2, 2)
    fn = {'pixel_shuffle': lambda T, x: T.nn.functional.pixel_shuffle(x, 2),
          'flip0': lambda T, x: x.flip(0), 'flip1': lambda T, x: x.flip(1)}[op]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda T, x: fn(T, x.to(T.complex32)).shape, np.zeros(shape, np.complex64),
              grad=False, match_message=True)


@pytest.mark.parametrize('norm_type', [0.0, 1.0, 2.0])
def test_embedding_renorm_of_a_row_named_twice(norm_type):
    """-5 and 3 name one row of 8: torch renormalises per distinct index, so the row shrinks
    twice (the second time from its shrunk values); ember's one vectorised write shrank it
    once."""
    w = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32) * 3
    check(lambda T, x: T.embedding_renorm_(x.clone(), T.tensor([[3, -5], [1, 1]]), 0.25,
                                           norm_type), w, grad=False)


def test_nansum_and_svdvals_edges():
    """nansum(x, dtype=complex32) refused with the complex-input row (the table's rows are of
    operands; a named dtype meets only its kernel's refusal); svdvals(empty, driver=) returns
    before torch's CPU driver refusal; F.softmax's third positional is _stacklevel, not a
    dtype to refuse."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda T: T.tensor([1.]).nansum(dtype=T.complex32), grad=False,
              match_message=True)
        check(lambda T: T.tensor([]).nansum(dtype=T.complex32), grad=False)
        check(lambda T: T.nn.functional.softmax(T.ones(2, 3), 1, T.complex32), grad=False)
    check(lambda T: T.linalg.svdvals(T.zeros(2, 0), driver='gesvd'), grad=False)
    check(lambda T: T.linalg.svdvals(T.zeros(2, 2), driver='gesvd'), grad=False,
          match_message=True)


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('p', [1, 2, 3, 5])
def test_half_mvlgamma_adds_its_constant_in_the_half_dtype(dtype, p):
    """torch composes mvlgamma in the input's half dtype and adds the constant
    p(p-1)/4 log(pi) as a CPU scalar, cast to that dtype first (8.5 + 1.71875 ties to 10.25
    in bfloat16); ember added it in float32 (10.1875): 7 of 40 bfloat16 values differed."""
    x = np.linspace((p - 1) / 2 + 0.05, 30, 400).astype(np.float32)
    check(lambda T, a: T.mvlgamma(a.to(getattr(T, dtype)), p), x, grad=False, rtol=0, atol=0)
    check(lambda T, a: T.special.multigammaln(a.to(getattr(T, dtype)), p), x, grad=False,
          rtol=0, atol=0)


@pytest.mark.parametrize('dtypes', [('float32', 'int8'), ('int32', 'int32'), ('int64', 'float32'),
                                    ('float64', 'bool')])
def test_mvlgamma_into_an_integer_out(dtypes):
    """torch's own words for an out= that cannot hold the result ("mvlgamma: result type Int
    can't be cast to the desired output type Float": the input's dtype, then the result's)."""
    x, o = dtypes
    check(lambda T: T.mvlgamma(T.ones(3, dtype=getattr(T, x)) * 2, 1,
                               out=T.empty(3, dtype=getattr(T, o))), grad=False,
          match_message=True)


@pytest.mark.parametrize('layout', ['csr', 'csc', 'bsr', 'bsc', 'coo'])
def test_sparse_complex32(layout):
    """A complex32 tensor goes to every sparse layout and back, and sparse tensors convert to
    and from complex32 (the stand-ins' casts and sums went through NumPy, which cannot cast to
    or add its structured dtype: to_sparse_csc of complex32 was refused, to_dense leaked)."""
    import warnings
    make = {'csr': lambda x: x.to_sparse_csr(), 'csc': lambda x: x.to_sparse_csc(),
            'bsr': lambda x: x.to_sparse_bsr(1), 'bsc': lambda x: x.to_sparse_bsc(1),
            'coo': lambda x: x.to_sparse()}[layout]
    a = np.array([[1 + 1j, 0], [0, 2j]], np.complex64)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda T, x: make(x.to(T.complex32)).to_dense(), a, grad=False)
        check(lambda T, x: make(x).to(T.complex32).to_dense(), a, grad=False)
        check(lambda T, x: make(x.to(T.complex32)).to(T.complex64).to_dense(), a, grad=False)


def test_complex32_through_complex64_with_out():
    """An op run through complex64 with out= whose body takes no out (scatter_add of empty
    complex32 tensors) leaked Python's "unexpected keyword argument 'out'"; it is written
    into out as every out= call is."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda T: T.scatter_add(T.zeros(0, 3, dtype=T.complex32), -1,
                                      T.zeros(0, 3, dtype=T.int64),
                                      T.zeros(0, 3, dtype=T.complex32),
                                      out=T.zeros(0, 3, dtype=T.complex32)), grad=False)
        check(lambda T: T.addcmul(T.ones(2, dtype=T.complex32), T.ones(2, dtype=T.complex32),
                                  T.ones(2, dtype=T.complex32),
                                  out=T.zeros(2, dtype=T.complex32)), grad=False)
