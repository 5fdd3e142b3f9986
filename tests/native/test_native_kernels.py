"""ember.backends.native: the optional compiled float32 kernels agree with torch (and so with
ember's NumPy path) on values and gradients, edge values included, and ember falls back to
NumPy with one warning when they cannot be built."""
import importlib.util
import shutil

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from ember import _native
from ember.backends import native

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec('cffi') is None or shutil.which('cc') is None,
    reason="the compiled kernels need cffi (the 'native' extra) and a C compiler")

# Sizes above _native.MIN_SIZE; odd widths exercise the kernels' partial last block.
SHAPES = [(_native.MIN_SIZE // 200 + 1, 203), (64, 512)]


@pytest.fixture
def on(monkeypatch):
    monkeypatch.setattr(native, 'enabled', True)
    assert _native.build() is not None


def _data(shape, seed, edges=True):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    if edges:
        x.reshape(-1)[:12] = [np.nan, np.inf, -np.inf, 100, -100, 0.0, -0.0, 1e-30, -90,
                              -104, 88.7, 20]
    return x


def _run(lib, fn, x, g, *params):
    xs = lib.tensor(x, requires_grad=True)
    ps = [lib.tensor(p, requires_grad=True) for p in params]
    y = fn(lib, xs, *ps)
    y.backward(lib.tensor(g))
    return [y.detach().numpy(), xs.grad.numpy()] + [p.grad.numpy() for p in ps]


def _close(a, b, rtol, atol):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


POINTWISE = {
    'gelu': lambda lib, x: lib.nn.functional.gelu(x),
    'silu': lambda lib, x: lib.nn.functional.silu(x),
    'softmax': lambda lib, x: lib.softmax(x, -1),
    'log_softmax': lambda lib, x: lib.nn.functional.log_softmax(x, dim=-1),
}


@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('name', POINTWISE)
def test_pointwise_and_rows_as_torch(on, name, shape):
    edges = name in ('gelu', 'silu')   # (softmax rows with inf/nan: see the next test)
    x, g = _data(shape, 1, edges), _data(shape, 2, False)
    ours, theirs = _run(ember, POINTWISE[name], x, g), _run(torch, POINTWISE[name], x, g)
    if name == 'gelu':   # gelu(+inf) is inf in ember (README: differences); torch says nan
        assert ours[0].reshape(-1)[1] == np.inf and np.isnan(theirs[0].reshape(-1)[1])
        theirs[0].reshape(-1)[1] = np.inf
    for a, b in zip(ours, theirs):
        _close(a, b, 2e-5, 2e-6)


@pytest.mark.parametrize('name', ['softmax', 'log_softmax'])
def test_softmax_rows_with_nan_and_inf_as_torch(on, name):
    x, g = _data((128, 200), 3, False), _data((128, 200), 4, False)
    x[0, 3], x[1, 5], x[2, :] = np.nan, np.inf, -np.inf
    x[3, 7] = -np.inf
    for a, b in zip(_run(ember, POINTWISE[name], x, g), _run(torch, POINTWISE[name], x, g)):
        _close(a, b, 2e-5, 2e-6)


@pytest.mark.parametrize('affine', ['none', 'weight', 'both'])
def test_layer_norm_as_torch(on, affine):
    shape = (100, 333)
    x, g = _data(shape, 5, False), _data(shape, 6, False)
    rng = np.random.default_rng(7)
    params = [rng.standard_normal(333).astype(np.float32) for _ in range(
        {'none': 0, 'weight': 1, 'both': 2}[affine])]

    def fn(lib, x, *p):
        return lib.nn.functional.layer_norm(x, (333,), *p)
    for a, b in zip(_run(ember, fn, x, g, *params), _run(torch, fn, x, g, *params)):
        _close(a, b, 1e-4, 1e-4)


def test_embedding_backward_with_repeated_indices_as_torch(on):
    rng = np.random.default_rng(8)
    idx = rng.integers(0, 50, (40, 30))
    idx[:, :10] = 0                        # a padding-like index repeated hundreds of times
    w = rng.standard_normal((50, 64)).astype(np.float32)
    g = rng.standard_normal((40, 30, 64)).astype(np.float32)
    grads = []
    for lib in (ember, torch):
        weight = lib.tensor(w, requires_grad=True)
        lib.nn.functional.embedding(lib.tensor(idx), weight).backward(lib.tensor(g))
        grads.append(weight.grad.numpy())
    _close(grads[0], grads[1], 1e-5, 1e-5)


def test_same_values_with_and_without_the_kernels(monkeypatch):
    """The NumPy path and the kernels agree to float32 rounding on ordinary inputs."""
    x, g = _data((64, 300), 9, False), _data((64, 300), 10, False)
    results = {}
    for flag in (False, True):
        monkeypatch.setattr(native, 'enabled', flag)
        results[flag] = [_run(ember, fn, x, g) for fn in POINTWISE.values()]
    for a, b in zip(results[False], results[True]):
        for u, v in zip(a, b):
            _close(u, v, 2e-5, 2e-6)


def test_off_by_default_and_small_or_other_dtypes_keep_numpy(monkeypatch):
    monkeypatch.delenv('EMBER_NATIVE', raising=False)
    assert importlib.reload(native).enabled is False
    monkeypatch.setattr(native, 'enabled', True)
    assert _native.kernels(np.zeros(_native.MIN_SIZE - 1, np.float32)) is None
    assert _native.kernels(np.zeros(_native.MIN_SIZE, np.float64)) is None
    assert _native.kernels(np.zeros((_native.MIN_SIZE, 2), np.float32).T) is None
    assert _native.kernels(np.zeros(_native.MIN_SIZE, np.float32)) is not None


def test_a_failed_build_warns_once_and_numpy_computes(monkeypatch):
    import ember.utils.ffi as ffi

    def broken(*args, **kwargs):
        raise RuntimeError('no compiler here')
    monkeypatch.setattr(ffi, 'load', broken)
    monkeypatch.setattr(_native, '_built', [])
    monkeypatch.setattr(native, 'enabled', True)
    x = ember.tensor(_data((100, 200), 11, False))
    with pytest.warns(RuntimeWarning, match='could not be built.*no compiler here'):
        y = F.gelu(x)
    assert not native.is_available()
    _close(y.numpy(), torch.nn.functional.gelu(torch.tensor(x.numpy())).numpy(), 2e-5, 2e-6)


# Winograd convolutions (3x3, stride 1): odd/even and rectangular sizes, paddings 0..2, with
# and without bias, batches that leave a shorter last block of samples; MIN_SIZE lowered so
# that small shapes take the kernels too.
WINOGRAD = [((64, 16, 14, 14), 32, 1, True), ((3, 8, 13, 11), 9, 1, True),
            ((2, 9, 20, 17), 8, 2, False), ((4, 8, 30, 9), 10, 0, True),
            ((5, 12, 7, 26), 8, (0, 1), False), ((3, 8, 4, 3), 8, (2, 0), True)]


def _conv(lib, shape, k, padding, bias):
    x = lib.tensor(_data(shape, 12, False), requires_grad=True)
    w = lib.tensor(_data((k, shape[1], 3, 3), 13, False), requires_grad=True)
    b = lib.tensor(_data((k,), 14, False), requires_grad=True) if bias else None
    y = lib.nn.functional.conv2d(x, w, b, padding=padding)
    if lib is ember:                              # (the Winograd path, in C when switched on)
        assert y.grad_fn.winograd[2].native is native.enabled
    y.backward(lib.tensor(_data(tuple(y.shape), 15, False)))
    return [y.detach().numpy()] + [t.grad.numpy() for t in (x, w, b) if t is not None]


@pytest.mark.parametrize('shape,k,padding,bias', WINOGRAD)
@pytest.mark.parametrize('block', ['default', 'one sample'])
def test_winograd_convolution_as_torch_and_as_the_numpy_path(on, monkeypatch, shape, k, padding,
                                                             bias, block):
    monkeypatch.setattr(_native, 'MIN_SIZE', 1)
    if block == 'one sample':     # (blocks of one sample, or the fewest that make 16 tiles;
        for name in ('BLOCK_BYTES', 'LONG_BLOCK_BYTES', 'MIN_TILES', 'LANES_MAX'):
            monkeypatch.setattr(_native, name, 0)        # the weight gradient as products)
    ours = _conv(ember, shape, k, padding, bias)
    for a, b in zip(ours, _conv(torch, shape, k, padding, bias)):
        scale = np.abs(b).max()
        _close(a / scale, b / scale, 0, 1e-5)          # (float32 sums of up to 10^4 terms)
    monkeypatch.setattr(native, 'enabled', False)
    for a, b in zip(ours, _conv(ember, shape, k, padding, bias)):   # the NumPy path
        scale = np.abs(b).max()
        _close(a / scale, b / scale, 0, 1e-5)


@pytest.mark.parametrize('wanted', ['input', 'weight'])
def test_winograd_convolution_one_gradient_alone_as_torch(on, wanted):
    shape, k = (8, 16, 12, 12), 16
    out = {}
    for lib in (ember, torch):
        x = lib.tensor(_data(shape, 12, False), requires_grad=wanted == 'input')
        w = lib.tensor(_data((k, shape[1], 3, 3), 13, False), requires_grad=wanted == 'weight')
        y = lib.nn.functional.conv2d(x, w, padding=1)
        if lib is ember:
            assert y.grad_fn.winograd[2].native
        y.backward(lib.tensor(_data(tuple(y.shape), 15, False)))
        assert (x.grad is None, w.grad is None) == (wanted != 'input', wanted != 'weight')
        out[lib] = [y.detach().numpy(), (x if wanted == 'input' else w).grad.numpy()]
    for a, b in zip(out[ember], out[torch]):
        scale = np.abs(b).max()
        _close(a / scale, b / scale, 0, 1e-5)


def _batch_norm(lib, shape, affine, grads=True, create_graph=False):
    x = lib.tensor(_data(shape, 16, False) + 1, requires_grad=True)
    m = {3: lib.nn.BatchNorm1d, 4: lib.nn.BatchNorm2d, 5: lib.nn.BatchNorm3d}[len(shape)](
        shape[1], affine=affine)
    if affine:
        with lib.no_grad():
            m.weight.copy_(lib.tensor(_data((shape[1],), 17, False)))
            m.bias.copy_(lib.tensor(_data((shape[1],), 18, False)))
    y = m(x)
    out = [y.detach().numpy(), m.running_mean.numpy(), m.running_var.numpy()]
    if grads:
        g = lib.tensor(_data(shape, 19, False))
        gx, = lib.autograd.grad(y, x, g, create_graph=create_graph, retain_graph=True)
        out.append(gx.detach().numpy())
        if create_graph:                        # a second derivative, through ember ops
            out.append(lib.autograd.grad((gx * gx).sum(), x)[0].numpy())
        if affine:
            y.backward(g)
            out += [m.weight.grad.numpy(), m.bias.grad.numpy()]
    return out, y


@pytest.mark.parametrize('shape', [(32, 16, 32, 32), (8, 5, 33, 17), (4, 6, 1000),
                                   (2, 3, 30, 20, 11)])
@pytest.mark.parametrize('affine', [True, False])
def test_batch_norm_training_as_torch(on, shape, affine):
    ours, y = _batch_norm(ember, shape, affine)
    assert y.grad_fn.kernel_mean is not None                  # (the kernels' path)
    for a, b in zip(ours, _batch_norm(torch, shape, affine)[0]):
        scale = max(np.abs(b).max(), 1)
        _close(a / scale, b / scale, 0, 1e-5)


def test_batch_norm_second_derivative_and_kernels_switched_off_before_backward(on, monkeypatch):
    shape = (16, 4, 20, 20)
    ours, _ = _batch_norm(ember, shape, True, create_graph=True)
    for a, b in zip(ours, _batch_norm(torch, shape, True, create_graph=True)[0]):
        scale = max(np.abs(b).max(), 1)
        _close(a / scale, b / scale, 0, 1e-5)
    x = ember.tensor(_data(shape, 16, False), requires_grad=True)
    y = F.batch_norm(x, None, None, training=True)
    monkeypatch.setattr(native, 'enabled', False)
    y.backward(ember.tensor(_data(shape, 19, False)))
    tx = torch.tensor(_data(shape, 16, False), requires_grad=True)
    torch.nn.functional.batch_norm(tx, None, None, training=True).backward(
        torch.tensor(_data(shape, 19, False)))
    _close(x.grad.numpy(), tx.grad.numpy(), 1e-4, 1e-5)
