"""The fused array kernels of the pointwise activations (erf, gelu, silu, sigmoid, relu, softplus) against
torch on arrays large enough to take them (small arrays take exact per-element paths):
values over the whole range, first derivatives computed on arrays (no graph wanted), first
and second derivatives through the graph (create_graph), float32 and float64, with and
without scipy."""
import subprocess
import sys

import numpy as np
import pytest

from ember._ops import _scipy
from ..oracle.oracle import check, torch  # noqa: F401  (torch: skips without the oracle)

OPS = {
    'erf': lambda T, x: T.erf(x),
    'gelu': lambda T, x: T.nn.functional.gelu(x),
    'gelu_tanh': lambda T, x: T.nn.functional.gelu(x, approximate='tanh'),
    'silu': lambda T, x: T.nn.functional.silu(x),
    'sigmoid': lambda T, x: T.sigmoid(x),
    'relu': lambda T, x: T.relu(x),
    'softplus': lambda T, x: T.nn.functional.softplus(x),
    'softplus_beta': lambda T, x: T.nn.functional.softplus(x, beta=2.5, threshold=4.0),
}
DTYPES = [np.float32, np.float64]


def _wide(dtype, n=3000):
    """Points over [-9, 9] (erf saturates, sigmoid underflows), dense near 0, shuffled."""
    rng = np.random.default_rng(1)
    a = np.concatenate([np.linspace(-9, 9, n // 2), rng.standard_normal(n // 4),
                        np.geomspace(1e-30, 1, n // 8), -np.geomspace(1e-20, 2, n // 8)])
    return rng.permutation(a).astype(dtype).reshape(-1, 50)


@pytest.fixture(params=['scipy', 'no scipy'])
def scipy_or_not(request, monkeypatch):
    if request.param == 'no scipy':
        monkeypatch.setitem(_scipy._modules, 'special', None)
    elif _scipy.special() is None:
        pytest.skip('scipy is not installed')


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('op', OPS)
def test_values_and_gradient_on_arrays(op, dtype, scipy_or_not):
    check(OPS[op], _wide(dtype))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('op', OPS)
def test_first_and_second_derivatives_through_the_graph(op, dtype):
    check(OPS[op], _wide(dtype, 600), double=True)


@pytest.mark.parametrize('dtype', DTYPES + [np.float16])
@pytest.mark.parametrize('op', OPS)
def test_special_values(op, dtype):
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 3.9, -3.9, 4.5, 1e-30, -1e-30] * 3,
                 dtype)
    if op == 'gelu' and dtype in (np.float32, np.float16):
        # torch's vectorised float32 kernel gives nan for gelu(+inf) (its one-element and
        # float64 kernels give the limit, inf, as ember does everywhere); float16 runs it
        # too on CPUs with AVX-512 FP16
        x = x[x != np.inf]
    out = check(OPS[op], x, grad=False)
    expected = OPS[op](torch, torch.tensor(x)).numpy()
    numbers = ~np.isnan(expected)           # (a NaN's sign bit means nothing)
    if op == 'relu' and dtype == np.float16:
        numbers &= expected != 0                # (NumPy's float16 maximum gives +0 for -0)
    assert np.array_equal(np.signbit(out._data[numbers]), np.signbit(expected[numbers]))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('op', ['gelu', 'gelu_tanh', 'silu'])
def test_gradient_arrays_broadcast_output_gradient(op, dtype):
    """A sum's backward hands the op an expanded (stride 0) gradient."""
    check(lambda T, x: OPS[op](T, x).sum(), _wide(dtype, 400))


def test_erf_float32_is_within_its_stated_accuracy():
    """erf in float32 against torch's float32 erf, on every 97th float32 of [-4.5, 4.5]."""
    bits = np.arange(np.float32(-4.5).view(np.int32), np.int32(-1), 97, dtype=np.int32)
    x = np.concatenate([bits.view(np.float32), -bits.view(np.float32)])
    check(lambda T, x: T.erf(x), x, grad=False, rtol=5e-7, atol=1e-7)


def test_scipy_loads_on_first_use_not_at_import():
    code = ("import sys, ember; assert 'scipy' not in sys.modules, 'scipy imported'; "
            "ember.erf(ember.zeros(100, dtype=ember.float64)); "
            "from ember._ops import _scipy; "
            "assert ('scipy.special' in sys.modules) == (_scipy.special() is not None)")
    subprocess.run([sys.executable, '-c', code], check=True)
