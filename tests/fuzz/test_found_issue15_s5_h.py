"""What the differential fuzzer found (issue 15, fifth pass, seeds 900-919, functions a-m,
and the items the fourth pass left), each pinned against torch.

Every test runs the same code on ember and torch (``tests.oracle.oracle.check``, or both
libraries side by side). Where torch is wrong (an entry in ``tests/fuzz/known.py``) the test
shows torch's answer next to the right one, computed a second way.
"""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check, torch, values

import ember


def run(src, **names):
    """``src`` evaluated with ``T`` as each library: (ember's, torch's) result or exception."""
    out = []
    for lib in (ember, torch):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try:
                out.append(eval(src, {'T': lib, 'np': np, **names}))
            except Exception as e:  # noqa: BLE001 - the exception is what is compared
                out.append(e)
    return out


def same_outcome(src):
    """ember and torch agree on ``src``: the same exception class and message, or results
    of the same dtype and shape."""
    e, t = run(src)
    if isinstance(t, Exception):
        assert isinstance(e, Exception), f'torch raised {t!r}; ember returned {e!r}'
        assert type(e) is type(t), (e, t)
        assert str(e).split('\n')[0] == str(t).split('\n')[0], (e, t)
        return
    assert not isinstance(e, Exception), f'ember raised {e!r}'
    for a, b in zip(e, t) if isinstance(t, tuple) else [(e, t)]:
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape), (e, t)
        assert a.requires_grad == b.requires_grad, (e, t)


# -- bernoulli: torch has no kernel filling a complex tensor, nor one reading bool or integer
# probabilities; the tensor filled is the result (``out=``'s dtype counts), the checks come
# before p's range and nothing is looked at for an empty tensor ---------------------------
BERNOULLI_CASES = [
    'T.bernoulli(T.zeros(2, dtype=T.complex64))', 'T.bernoulli(T.tensor(0j))',
    'T.bernoulli(T.zeros(0, dtype=T.complex64))', 'T.bernoulli(T.zeros(2, dtype=T.complex64), 0.5)',
    'T.bernoulli(T.zeros(2, dtype=T.complex64), 2.)', 'T.bernoulli(T.zeros(0, dtype=T.complex64), 0.5)',
    'T.zeros(2, dtype=T.complex64).bernoulli_(T.ones(2) / 2)',
    'T.zeros(2, dtype=T.complex64).bernoulli_(T.ones(2, dtype=T.complex64))',
    'T.zeros(2, dtype=T.complex128).bernoulli_(T.ones(3))',
    'T.zeros(2).bernoulli_(T.ones(3, dtype=T.int32))',
    'T.zeros(0, dtype=T.complex64).bernoulli_(0.5)', 'T.zeros(2, dtype=T.complex64).bernoulli_(2.)',
    'T.zeros(2, dtype=T.complex64).bernoulli_(0.5)', 'T.zeros(2, dtype=T.complex64).bernoulli(0.5)',
    'T.zeros(2, dtype=T.complex64).bernoulli()', 'T.bernoulli(T.ones(2, dtype=T.int64) * 3)',
    'T.bernoulli(T.ones(0, 2, dtype=T.int64))', 'T.bernoulli(T.ones(2, dtype=T.bool), 0.5)',
    'T.bernoulli(T.ones(2, dtype=T.bool))', 'T.bernoulli(T.ones(2, dtype=T.bool), out=T.zeros(2))',
    'T.bernoulli(T.ones(2), out=T.zeros(2, dtype=T.complex64))',
    'T.bernoulli(T.ones(2, dtype=T.complex64), out=T.zeros(2))',
    'T.bernoulli(T.ones(2), out=T.zeros(2, dtype=T.int32))',
    'T.bernoulli(T.ones(2), out=T.zeros(0, dtype=T.float64))',
    'T.zeros(2, dtype=T.int32).bernoulli_(0.5)', 'T.zeros(2, dtype=T.bool).bernoulli_(T.ones(2))',
    'T.zeros(2).bernoulli_(T.ones(2, dtype=T.int32))', 'T.bernoulli(T.ones(2, dtype=T.bfloat16))',
]


@pytest.mark.parametrize('src', BERNOULLI_CASES)
def test_bernoulli_dtypes(src):
    same_outcome(src)


def test_bernoulli_writes_out():
    # (out= was ignored: the result was a new tensor and out kept its zeros)
    def f(T):
        out = T.zeros(2, 3, dtype=T.float64)
        r = T.bernoulli(T.ones(2, 3), out=out)
        return r is out, out
    (e_is, e), (t_is, t) = f(ember), f(torch)
    assert e_is and t_is
    assert np.array_equal(values(e), values(t))


# -- cummin / cummax: an empty or 0-d complex input runs no kernel, so torch's autograd
# refuses the complex result (a non-empty one is the kernel's NotImplementedError) --------
@pytest.mark.parametrize('op', ['cummin', 'cummax'])
@pytest.mark.parametrize('src', [
    'T.{op}(T.zeros(0, dtype=T.complex128, requires_grad=True), 0)',
    'T.{op}(T.zeros(3, dtype=T.complex128, requires_grad=True), 0)',
    'T.{op}(T.tensor(1j, requires_grad=True), 0)', 'T.{op}(T.tensor(1j, requires_grad=True), 2)',
    'T.{op}(T.tensor(1j), 0)', 'T.{op}(T.zeros(0, dtype=T.complex128, requires_grad=True), 5)',
    'T.zeros(0, 3, dtype=T.complex64, requires_grad=True).{op}(1)',
    'T.{op}(T.zeros(0, 3, dtype=T.complex64, requires_grad=True).detach(), 1)'])
def test_cumulative_extreme_of_a_complex_tensor_that_requires_grad(op, src):
    same_outcome(src.format(op=op))


def test_cummin_of_a_complex_tensor_without_grad_mode():
    def f(T):
        with T.no_grad():
            return T.cummin(T.tensor(1j, requires_grad=True), 0).values
    e, t = f(ember), f(torch)
    assert np.array_equal(values(e), values(t))


# -- amax / amin of an empty tensor: torch walks the dims as given (wrapping each) and names
# the first empty one as given, before it looks for a dim named twice ---------------------
@pytest.mark.parametrize('op', ['amax', 'amin'])
@pytest.mark.parametrize('dim', [-1, [-1], (-1, 0), [1, 5], [5, 1], [1, 0, 1], [0, -2],
                                 [1, -2, 0], [True, 1], [1, True], [False, True], [1.5]])
@pytest.mark.parametrize('shape', [(2, 0), (0, 3), (0,)])
def test_amax_of_an_empty_tensor_with_a_repeated_dim(op, dim, shape):
    same_outcome(f'T.{op}(T.zeros{shape}, {dim!r}, True)')
    same_outcome(f'T.zeros{shape}.{op}({dim!r})')


# -- cov with one kind of weights and a single observation: torch subtracts the mean from its input in
# place (a torch bug: a plain input comes back zeroed, one that requires grad is refused by
# autograd); ember leaves the input alone and returns torch's values -----------------------
COV_CASES = [
    dict(correction=3, aweights=[0.44198648]), dict(aweights=[0.38828464]),
    dict(correction=0, aweights=[2.0]), dict(fweights=[2]), dict(correction=0, fweights=[2]),
]


@pytest.mark.parametrize('kw', COV_CASES)
@pytest.mark.parametrize('rows', [1, 2])
def test_cov_of_one_observation_with_weights(kw, rows):
    x = np.arange(1., rows + 1.).reshape(rows, 1) if rows > 1 else np.array([0.85469066])

    def weights(T, grad):
        out = {}
        for k, v in kw.items():
            if k == 'fweights':
                out[k] = T.tensor(v)
            elif k == 'aweights':
                out[k] = T.tensor(v, dtype=T.float64, requires_grad=grad)
            else:
                out[k] = v
        return out
    # torch on a plain input: the right values, and the input mutated
    tx = torch.tensor(x)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        right = torch.cov(tx.clone(), **weights(torch, False))
        torch.cov(tx, **weights(torch, False))
    assert not np.array_equal(values(tx), x)  # (torch's bug: still there?)
    # torch refuses an input that requires grad, or a view of one
    with pytest.raises(RuntimeError, match='in-place operation'), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        torch.cov(torch.tensor(x, requires_grad=True).expand(x.shape), **weights(torch, True))
    # ember: torch's values, the input untouched, and a gradient for the weights and input
    ex = ember.tensor(x, requires_grad=True)
    ew = weights(ember, True)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        r = ember.cov(ex.expand(x.shape), **ew)
    np.testing.assert_allclose(values(r), values(right), equal_nan=True)
    assert np.array_equal(values(ex), x)
    assert r.requires_grad and type(r.grad_fn).__name__ == 'SqueezeBackward0'


# -- geqrf of a rank-deficient matrix: the reflectors built from rounding remainders differ
# between LAPACK builds (torch's MKL); ember's output is scipy's LAPACK geqrf bit for bit --
GEQRF_CASES = [
    (np.full((2, 3), -0.60117 + 0.0246855j, np.complex64), 'cgeqrf'),
    (np.outer(np.arange(1., 5.), np.array([1., -2., .5, 3.])).astype(np.float32), 'sgeqrf'),
    (np.full((3, 3), 1 - 2j, np.complex128), 'zgeqrf'),
]


@pytest.mark.parametrize('a, routine', GEQRF_CASES)
def test_geqrf_of_a_rank_deficient_matrix_is_lapacks(a, routine):
    lapack = pytest.importorskip('scipy.linalg.lapack', reason='scipy is the LAPACK reference')
    qr, tau = getattr(lapack, routine)(a)[:2]
    e = ember.geqrf(ember.tensor(a))
    assert np.array_equal(values(e.a), qr) and np.array_equal(values(e.tau), tau)
    # torch (MKL) agrees on R's first row and the first reflector, where no remainder enters
    t = torch.geqrf(torch.tensor(a))
    np.testing.assert_allclose(values(e.a)[0], values(t.a)[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values(e.tau)[0], values(t.tau)[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('dtype', ['complex64', 'float32', 'complex128'])
def test_geqrf_of_a_full_rank_matrix(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 4, 3)) + (1j * rng.standard_normal((2, 4, 3))
                                          if 'complex' in dtype else 0)
    check(lambda T, x: T.geqrf(x), a.astype(dtype), grad=False)


# -- ldl_factor of a singular matrix: torch fails its own internal assert ("please report a
# bug to PyTorch", a RuntimeError); ember raises LinAlgError, a RuntimeError as torch's own
# LinAlgError is, naming the zero pivot ------------------------------------------------------
@pytest.mark.parametrize('hermitian', [False, True])
@pytest.mark.parametrize('a', [[[1., 2., 3.], [2., 4., 6.], [3., 6., 9.]], np.zeros((3, 3))])
def test_ldl_factor_of_a_singular_matrix(a, hermitian):
    e, t = run('T.linalg.ldl_factor(T.tensor(a), hermitian=h)', a=a, h=hermitian)
    assert type(t) is RuntimeError and 'INTERNAL ASSERT FAILED' in str(t)
    assert isinstance(e, RuntimeError) and type(e).__name__ == 'LinAlgError'
    assert 'is exactly zero: the input matrix is singular' in str(e)
    # (the _ex form reports it in info, as torch's)
    check(lambda T, x: T.linalg.ldl_factor_ex(x, hermitian=hermitian).info, np.array(a),
          grad=False)


# -- seeds 900-919, functions a-m: torch's errors, in torch's order ------------------------
ERROR_ORDER_CASES = [
    # div with a rounding mode: no kernel for bools or complex numbers (the in-place form's
    # cast check first)
    "T.ones(3).div_(T.ones(3, dtype=T.complex128), rounding_mode='trunc')",
    "T.ones(3, dtype=T.complex128).div(T.ones(3), rounding_mode='trunc')",
    "T.ones(3).div(T.ones(3, dtype=T.complex128), rounding_mode='floor')",
    "T.ones(3, dtype=T.int32).div_(T.ones(3, dtype=T.complex128), rounding_mode='trunc')",
    "T.ones(3, dtype=T.bool).div(False, rounding_mode='floor')",
    "T.ones(3, dtype=T.bool).div(T.ones(3, dtype=T.bool), rounding_mode='trunc')",
    "T.ones(3, dtype=T.bool).div(1, rounding_mode='floor')",
    "T.ones(0, dtype=T.bool).div(True, rounding_mode='floor')",
    "T.ones(3).div(1j, rounding_mode='floor')", "T.ones(3).div_(1j, rounding_mode='floor')",
    "T.ones(3, dtype=T.bool).div(T.ones(3, dtype=T.int8), rounding_mode='floor')",
    # aminmax of a 0-d complex tensor along a dim: a message of its own
    'T.aminmax(T.tensor(1j), dim=0)', 'T.tensor(1j, dtype=T.complex128).aminmax(dim=-1, keepdim=True)',
    'T.aminmax(T.tensor(1j))', 'T.aminmax(T.tensor([1j]), dim=0)', 'T.aminmax(T.tensor(True), dim=0)',
    # addr: alpha/beta as torch takes them; addr_ wants a matrix of the product's shape
    'T.zeros(4, dtype=T.uint8).addr_(T.zeros(4, dtype=T.uint8), T.zeros(4, dtype=T.uint8), beta=-2)',
    'T.zeros(4, 4, dtype=T.uint8).addr(T.ones(4, dtype=T.uint8), T.ones(4, dtype=T.uint8), beta=-2)',
    'T.zeros(4, 4, dtype=T.uint8).addr(T.ones(4, dtype=T.uint8), T.ones(4, dtype=T.uint8), beta=300)',
    'T.zeros(4, 4, dtype=T.uint8).addr(T.ones(4, dtype=T.uint8), T.ones(4, dtype=T.uint8), alpha=2.)',
    'T.zeros(0, dtype=T.uint8).addr(T.zeros(0, dtype=T.uint8), T.zeros(0, dtype=T.uint8), alpha=2.)',
    'T.zeros(4, 4, dtype=T.bool).addr(T.ones(4, dtype=T.bool), T.ones(4, dtype=T.bool), alpha=2.5)',
    'T.zeros(4, 4, dtype=T.uint8).addr(T.ones(4, dtype=T.uint8), T.ones(4, dtype=T.uint8), alpha=1j)',
    'T.zeros(4, 4).addr(T.zeros(4), T.zeros(4), alpha=1j)',
    'T.zeros(4, 4, dtype=T.int32).addr(T.ones(4, dtype=T.int32), T.ones(4, dtype=T.int32), beta=True)',
    'T.zeros(4, 4, dtype=T.int32).addr_(T.ones(4, dtype=T.int32), T.ones(4, dtype=T.int32), beta=2.5)',
    'T.zeros(5, 5).addr_(T.zeros(4), T.zeros(4))', 'T.zeros(2, 2, 2).addr_(T.zeros(4), T.zeros(4))',
    'T.zeros(4).addr_(T.zeros(4, 1), T.zeros(4))',
    # inner of bools: an empty operand runs no kernel; operands of two dtypes
    'T.zeros(0, dtype=T.bool).inner(T.zeros(2, 0, dtype=T.bool))',
    'T.ones(2, 0, dtype=T.bool).inner(T.ones(3, 0, dtype=T.bool))',
    'T.einsum("ij,kj->ik", T.zeros(2, 0, dtype=T.bool), T.zeros(3, 0, dtype=T.bool))',
    'T.zeros(2, dtype=T.bool).inner(T.zeros(2, dtype=T.int32))',
    'T.zeros(2, 2).inner(T.zeros(3, 2, dtype=T.float64))',
    # nll_loss / cross_entropy: a 0-d target has batch size 0
    'T.nn.functional.cross_entropy(T.zeros(3, 3), T.tensor(1.), T.zeros(3, 3), 3)',
    'T.nn.functional.nll_loss(T.zeros(3, 3), T.tensor(1))',
    'T.nn.functional.nll_loss(T.zeros(0, 3), T.tensor(1))',
    'T.nn.functional.cross_entropy(T.zeros(0, 3), T.tensor(1.))',
    # embedding with max_norm: torch renorms (row by row, in index order) before its op
    'T.nn.functional.embedding(T.tensor([0, 1]), T.ones(4, 4, dtype=T.int32), max_norm=1.)',
    'T.nn.functional.embedding(T.tensor([0, 9]), T.ones(4, 4), max_norm=1.)',
    'T.nn.functional.embedding(T.tensor([0, 9]), T.ones(4, 4, dtype=T.int32), max_norm=1.)',
    'T.nn.functional.embedding(T.tensor([-9, 0]), T.ones(4, 4, dtype=T.int32), max_norm=1.)',
    'T.nn.functional.embedding(T.tensor([-1, 0]), T.ones(4, 4), max_norm=1.)',
    'T.nn.functional.embedding(T.tensor([], dtype=T.int64), T.ones(4, 4, dtype=T.int32), max_norm=1.)',
    # ldl_solve: B's dtype, B's rows (B.size(-2)), then the pivots
    'T.linalg.ldl_solve(T.ones(1, 2, 3, 3), T.ones(3), T.ones(1))',
    'T.linalg.ldl_solve(T.ones(3, 3), T.ones(3, dtype=T.int32), T.ones(()))',
    'T.linalg.ldl_solve(T.ones(3, 3), T.ones(3), T.ones(3, 1))',
    'T.linalg.ldl_solve(T.ones(3, 3), T.ones(2, dtype=T.int32), T.ones(3, dtype=T.float64))',
    'T.linalg.ldl_solve(T.ones(3, 3), T.ones(2), T.ones(3, 1))',
    'T.linalg.ldl_solve(T.ones(3, 3), T.ones(2, dtype=T.int32), T.ones(2, 1))',
    'T.linalg.ldl_solve(T.ones(3, 3), T.ones(3, dtype=T.bool), T.ones(3, 1))',
    'T.linalg.ldl_solve(T.ones(3, 3, dtype=T.float16), T.ones(3, dtype=T.int32), T.ones(3, 1, dtype=T.float16))',
    'T.linalg.ldl_solve(T.ones(3, 3, dtype=T.float16), T.ones(2, dtype=T.int32), T.ones(3, 1, dtype=T.float16))',
    # lstm_cell reads the hidden size (w_hh.size(1)) first
    'T.lstm_cell(T.ones(2, 2), [T.ones(2, 3), T.ones(2, 3)], T.ones(12, 3), T.ones(0))',
    'T.lstm_cell(T.ones(2, 2), [T.ones(2, 3), T.ones(2, 3)], T.ones(5, 3), T.ones(12, 3))',
    # householder_product reads tau.size(-1)
    'T.linalg.householder_product(T.ones(2, 0), T.tensor(1.))',
    'T.linalg.householder_product(T.ones(3, 2, dtype=T.int32), T.tensor(1))',
    # mT / mH / H / adjoint: a 0-d tensor is itself (conjugated), H takes matrices only
    'T.tensor(2.).mT', 'T.tensor(2. + 1j).mH', 'T.tensor(2.).H', 'T.tensor(2.).adjoint()',
    'T.ones(3).mT', 'T.ones(3).mH', 'T.ones(3).H', 'T.ones(2, 3, 3).H', 'T.ones(2, 3).H',
    'T.ones(3).adjoint()', 'T.lobpcg(T.tensor(2., requires_grad=True))',
    'T.conj_physical(T.tensor(1j))', 'T.adjoint(T.tensor(1j))', 'T.tensor(1j).conj().resolve_conj()',
]


@pytest.mark.parametrize('src', ERROR_ORDER_CASES)
def test_error_order(src):
    same_outcome(src)


def test_zero_d_complex_results_are_arrays():
    # (conj of a 0-d array is a NumPy scalar: a tensor holding one had no layout, no strides)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # (adjoint of a 0-d tensor is deprecated)
        for x in (ember.tensor(1j).conj(), ember.conj_physical(ember.tensor(1j)),
                  ember.adjoint(ember.tensor(1j))):
            assert type(x._data) is np.ndarray and x.layout == ember.strided


def test_values_of_the_fixed_ops():
    # values, not only errors: addr with a wrapped beta, the 0-d H
    def f(T):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            u = T.tensor([1, 2, 3], dtype=T.uint8)
            return (T.tensor([[5, 6, 7]] * 3, dtype=T.uint8).addr(u, u, beta=-2, alpha=-3),
                    T.tensor(2. + 1j).H, T.tensor(2. + 1j).mT)
    check(f, grad=False)


# -- cross without dim: the input's own first dim of size 3, not the broadcast shape's.
# torch warns of the missing dim once per process (a test elsewhere checks that warning), so
# torch's side runs in a process of its own -------------------------------------------------
CROSS_CASES = ['T.cross(T.zeros(2, 1, 3), T.zeros(2, 3, 3))',
               'T.cross(T.zeros(2, 1, 3).permute(2, 1, 0), T.zeros(2, 3, 3))',
               'T.cross(T.ones(1, 1), T.ones(3, 3))', 'T.cross(T.ones(3, 1), T.ones(3, 3))',
               'T.cross(T.arange(6.).reshape(2, 1, 3), T.arange(18.).reshape(2, 3, 3) % 5)']


def _cross_outcomes(T, cases):
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for src in cases:
            try:
                out.append(['ok', np.asarray(eval(src, {'T': T}).tolist()).tolist()])
            except Exception as e:  # noqa: BLE001 - compared below
                out.append([type(e).__name__, str(e)])
    return out


def test_cross_default_dim():
    import json
    import subprocess
    import sys
    code = ('import json, torch, numpy as np, warnings\n'
            'from tests.fuzz.test_found_issue15_s5_h import _cross_outcomes, CROSS_CASES\n'
            'print(json.dumps(_cross_outcomes(torch, CROSS_CASES)))')
    done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          check=True)
    t = json.loads(done.stdout.strip().splitlines()[-1])
    assert _cross_outcomes(ember, CROSS_CASES) == t


def test_embedding_max_norm_values():
    def f(T):
        w = T.arange(16.).reshape(4, 4)
        r = T.nn.functional.embedding(T.tensor([[0, 2], [2, 3]]), w, max_norm=5., norm_type=1.5)
        return r, w
    e, t = f(ember), f(torch)
    for a, b in zip(e, t):
        np.testing.assert_allclose(values(a), values(b), rtol=1e-6)


# -- dtypes torch's kernels have no loop for: pooling, clamp with two bool bounds, in-place
# absolute of a complex tensor (the alias's row: abs_'s) --------------------------------
POOLS = {
    'max_pool1d': lambda F, x: F.max_pool1d(x, 1),
    'max_pool1d_indices': lambda F, x: F.max_pool1d(x, 1, return_indices=True)[0],
    'max_pool2d': lambda F, x: F.max_pool2d(x.unsqueeze(-1), 1),
    'max_pool3d': lambda F, x: F.max_pool3d(x.unsqueeze(-1).unsqueeze(-1), 1),
    'avg_pool1d': lambda F, x: F.avg_pool1d(x, 1),
    'avg_pool2d': lambda F, x: F.avg_pool2d(x.unsqueeze(-1), 1),
    'avg_pool3d': lambda F, x: F.avg_pool3d(x.unsqueeze(-1).unsqueeze(-1), 1),
    'lp_pool1d': lambda F, x: F.lp_pool1d(x, 2, 1),
    'adaptive_avg_pool1d': lambda F, x: F.adaptive_avg_pool1d(x, 2),
    'adaptive_avg_pool2d': lambda F, x: F.adaptive_avg_pool2d(x.unsqueeze(-1), (2, 1)),
    'adaptive_avg_pool2d_1': lambda F, x: F.adaptive_avg_pool2d(x.unsqueeze(-1), 1),
    'adaptive_avg_pool3d': lambda F, x: F.adaptive_avg_pool3d(x.unsqueeze(-1).unsqueeze(-1), 2),
}
DTYPES = ['bool', 'uint8', 'int16', 'int32', 'int64', 'float16', 'bfloat16', 'float32',
          'complex64']


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('op', sorted(POOLS))
def test_pooling_kernel_dtypes(op, dtype):
    def f(T):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try:
                r = POOLS[op](T.nn.functional, T.ones(2, 1, 4).to(getattr(T, dtype)))
            except Exception as e:  # noqa: BLE001 - compared below
                return type(e).__name__, str(e)
            return str(r.dtype), tuple(r.shape)
    assert f(ember) == f(torch)


@pytest.mark.parametrize('src', [
    'T.clamp(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool))',
    'T.ones(2, dtype=T.bool).clamp_(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool))',
    'T.clamp(T.zeros(0, dtype=T.bool), T.zeros(0, dtype=T.bool), T.zeros(0, dtype=T.bool))',
    'T.ones(2, dtype=T.bool).clip(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool))',
    'T.clamp(T.ones(2, dtype=T.bool), T.tensor(True), T.tensor(False))',
    'T.clamp(T.ones(2, dtype=T.bool), T.ones(3, dtype=T.bool), T.ones(2, dtype=T.bool))',
    'T.clamp(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool))',
    'T.clamp(T.ones(2, dtype=T.bool), None, T.ones(2, dtype=T.bool))',
    'T.clamp(T.ones(2, dtype=T.bool), T.tensor([1, 0]), T.ones(2, dtype=T.bool))',
    'T.ones(2, dtype=T.complex64).absolute_()', 'T.ones(0, dtype=T.complex64).absolute_()',
    'T.ones(2, dtype=T.bool).absolute_()', 'T.ones(2).absolute_()',
    'T.tensor(-5).any([])', 'T.tensor(3, dtype=T.uint8).all([])',
])
def test_kernel_dtypes(src):
    same_outcome(src)


def test_any_of_a_0d_tensor_over_no_dim_is_an_array():
    assert type(ember.tensor(-5).any([])._data) is np.ndarray


# -- ldl_factor of a matrix holding NaN: MKL (torch) reports a zero pivot and then fails its
# internal assert; the reference LAPACK (scipy's, ember's) reports none ------------------
def test_ldl_factor_of_a_nan_matrix_is_lapacks():
    lapack = pytest.importorskip('scipy.linalg.lapack', reason='scipy is the LAPACK reference')
    a = np.array([[-1., -0.9275, -0.1743], [-0.0357, 0.0108, -0.0528],
                  [np.nan, np.nan, -0.0730]], np.float32)
    ld, piv, info = lapack.ssytrf(a, lower=1)
    assert info == 0
    e = ember.linalg.ldl_factor_ex(ember.tensor(a))
    assert int(e.info) == 0
    np.testing.assert_array_equal(values(e.LD), np.tril(ld))
    with pytest.raises(RuntimeError, match='INTERNAL ASSERT'):
        torch.linalg.ldl_factor(torch.tensor(a))


# -- linear of a 1-d input with a (1, n) bias: torch's answer turns on the bias's layout ----
def test_linear_of_a_vector_with_a_row_bias():
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(4), rng.standard_normal((4, 4)), rng.standard_normal((1, 4))
    right = torch.nn.functional.linear(torch.tensor(x), torch.tensor(w), torch.tensor(b))
    strided = torch.tensor(np.repeat(b, 2, -1))[..., ::2]
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        torch.nn.functional.linear(torch.tensor(x), torch.tensor(w), strided)
    for bias in (ember.tensor(b), ember.tensor(np.repeat(b, 2, -1))[..., ::2]):
        e = ember.nn.functional.linear(ember.tensor(x), ember.tensor(w), bias)
        np.testing.assert_allclose(values(e), values(right), rtol=1e-12)


# -- creation, search, calculus and linalg dtype checks, in torch's order -------------------
@pytest.mark.parametrize('src', [
    'T.arange(2, -3, -2, dtype=T.complex64)', 'T.arange(1., dtype=T.complex128)',
    'T.arange(0, dtype=T.complex64)', 'T.arange(0, 1, dtype=T.bool)',
    'T.linspace(3, 2, 2, dtype=T.bool)', 'T.linspace(3, 2, 1, dtype=T.bool)',
    'T.linspace(3, 2, 0, dtype=T.bool)', 'T.logspace(3, 2, 2, dtype=T.bool)',
    'T.logspace(3, 2, 1, dtype=T.bool)', 'T.logspace(3, 2, 2, dtype=T.int32)',
    'T.bucketize(T.ones(2, dtype=T.complex64), T.ones(3, dtype=T.complex64))',
    'T.bucketize(T.ones(2, dtype=T.bool), T.ones(3, dtype=T.bool))',
    'T.bucketize(T.ones(0, dtype=T.bool), T.ones(3, dtype=T.bool))',
    'T.bucketize(T.ones(2, dtype=T.bool), T.ones(3))', 'T.bucketize(T.ones(2), T.ones(3, dtype=T.complex64))',
    'T.bucketize(True, T.ones(3, dtype=T.bool))', 'T.bucketize(1j, T.ones(3, dtype=T.complex64))',
    'T.bucketize(2.5, T.ones(3))', 'T.bucketize(T.ones(2, dtype=T.complex128), T.ones(3, dtype=T.complex64))',
    'T.gradient(T.ones(3, dtype=T.uint8), dim=[-3, 2, 1], edge_order=2)',
    'T.gradient(T.ones(3, dtype=T.uint8), spacing=[1, 2], dim=[0])',
    'T.cumulative_trapezoid(T.ones(3, dtype=T.bool), dx=-0.7, dim=-3)',
    'T.cumulative_trapezoid(T.ones(3, dtype=T.bool), T.ones(3), dim=-3)',
    'T.cumulative_trapezoid(T.ones(3, dtype=T.bool), T.ones(3))',
    'T.cumulative_trapezoid(T.ones(0, dtype=T.bool))',
    'T.linalg.inv(T.eye(4, dtype=T.bfloat16))', 'T.inverse(T.eye(4, dtype=T.float16))',
    'T.linalg.inv(T.ones(4, 3, dtype=T.float16))',
    'T.linalg.matrix_norm(T.ones(1, 3), "fro", dtype=T.complex64)',
    'T.linalg.matrix_norm(T.ones(1, 3), 1., dtype=T.bool)',
    'T.linalg.matrix_norm(T.ones(1, 3, dtype=T.complex64), 1., dtype=T.float32)',
    'T.linalg.matrix_norm(T.ones(1, 3, dtype=T.float64), 2, dtype=T.float16)',
    'T.linalg.matrix_norm(T.ones(1, 3), "nuc", dtype=T.float64)',
    'T.linalg.norm(T.ones(2, 3), 2, dtype=T.bool)',
    'T.linalg.vector_norm(T.ones(3, dtype=T.float64), dtype=T.float32)',
])
def test_dtype_checks(src):
    same_outcome(src)


# -- losses and norms: torch's dtype refusal before the class dim; running statistics that
# require grad are autograd's error whatever the dtype or the input's dims -----------------
@pytest.mark.parametrize('src', [
    'T.nn.functional.multilabel_soft_margin_loss(T.tensor(False), T.tensor(True), None, "sum")',
    'T.nn.functional.multilabel_soft_margin_loss(T.tensor(0.), T.tensor(1.), None, "sum")',
    'T.nn.functional.multilabel_soft_margin_loss(T.ones(2, 2, dtype=T.int32), T.ones(3, 2))',
    'T.nn.functional.batch_norm(T.ones(2, 1, 3), T.ones(1, requires_grad=True), T.ones(1))',
    'T.nn.functional.batch_norm(T.ones(2, 1, 3, dtype=T.complex128), '
    'T.ones(1, dtype=T.complex128, requires_grad=True), T.ones(1, dtype=T.complex128))',
    'T.nn.functional.batch_norm(T.ones(2, 1, 3), T.ones(1), T.ones(1, requires_grad=True), '
    'training=True)',
    'T.nn.functional.instance_norm(T.ones(2, 1, 3), T.ones(1, requires_grad=True), T.ones(1))',
    'T.nn.functional.batch_norm(T.ones(2, 2, 3), T.ones(1, requires_grad=True), T.ones(1))',
    'T.nn.functional.batch_norm(T.ones(0, 1, 3), T.ones(1, requires_grad=True), T.ones(1))',
    'T.batch_norm(T.ones(2, 1, 3), None, None, T.ones(1, requires_grad=True), T.ones(1), False, '
    '0.1, 1e-5, False)',
])
def test_loss_and_norm_checks(src):
    same_outcome(src)


def test_batch_norm_statistics_that_require_grad_without_grad_mode():
    def f(T):
        with T.no_grad():
            return T.nn.functional.batch_norm(T.arange(6.).reshape(2, 1, 3),
                                              T.ones(1, requires_grad=True), T.ones(1))
    np.testing.assert_allclose(values(f(ember)), values(f(torch)), rtol=1e-6)
