"""CPU autocast, ember against torch 2.13, for what test_autocast_upstream.py does not pin:
ops beyond upstream's lists (composites, modules, ops torch leaves alone), gradients and the
ToCopyBackward0 nodes of the casts, the cast cache, nesting, float64/integer/out=/in-place
calls, custom_fwd/custom_bwd, backward under autocast, threads, modes, checkpointing.
"""
import threading
import warnings

import numpy as np
import pytest

from tests.autograd._upstream import lib_fixture, raises, warns
from tests.oracle.oracle import values, torch, ember

lib = lib_fixture({})

rng = np.random.default_rng(0)
M = rng.standard_normal((4, 4)).astype(np.float32)
V = rng.standard_normal(4).astype(np.float32)
B = rng.standard_normal((2, 4, 4)).astype(np.float32)
I3 = rng.standard_normal((1, 2, 6)).astype(np.float32)
I4 = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
W1 = rng.standard_normal((3, 2, 2)).astype(np.float32)
W2 = rng.standard_normal((3, 2, 2, 2)).astype(np.float32)
SPD = (M @ M.T + 4 * np.eye(4)).astype(np.float32)
SIG = np.tile(V, 8)
WIN = np.hanning(8).astype(np.float32)


def T(lib, a):
    return lib.tensor(a)


def _fill(module, lib):
    """``module`` with its parameters drawn from one seeded NumPy stream (the same values
    in both libraries)."""
    draw = np.random.default_rng(1)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.tensor(draw.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)))
    return module


def _seeded(make):
    """A module built by ``make(lib)``, its parameters filled by ``_fill``."""
    return lambda lib: _fill(make(lib), lib)


def _nn(lib):
    return lib.nn.functional


# name -> f(lib) run inside autocast('cpu'): each result's dtype and values are compared.
CASES = {
    'mv': lambda l: l.mv(T(l, M), T(l, V)),
    'dot': lambda l: l.dot(T(l, V), T(l, V)),
    'inner vectors': lambda l: l.inner(T(l, V), T(l, V)),
    'inner matrices': lambda l: l.inner(T(l, M), T(l, M)),
    'outer': lambda l: l.outer(T(l, V), T(l, V)),
    'addmv': lambda l: l.addmv(T(l, V), T(l, M), T(l, V)),
    'chain_matmul': lambda l: l.linalg.multi_dot([T(l, M), T(l, M), T(l, M)]),
    'einsum contraction': lambda l: l.einsum('ij,jk->ik', T(l, M), T(l, M)),
    'einsum implicit': lambda l: l.einsum('i,i', T(l, V), T(l, V)),
    'einsum elementwise': lambda l: l.einsum('ij,ij->ij', T(l, M), T(l, M)),
    'einsum one operand': lambda l: l.einsum('ii', T(l, M)),
    'bilinear': lambda l: _nn(l).bilinear(T(l, M), T(l, M), T(l, B)),
    'kron': lambda l: l.kron(T(l, M), T(l, M)),
    'cosine_similarity': lambda l: l.cosine_similarity(T(l, M), T(l, M)),
    'pdist': lambda l: l.pdist(T(l, M)),
    'cdist': lambda l: l.cdist(T(l, M), T(l, M)),
    'matrix_power 3': lambda l: l.linalg.matrix_power(T(l, M), 3),
    'matrix_power 1': lambda l: l.linalg.matrix_power(T(l, M), 1),
    'matrix_exp': lambda l: l.linalg.matrix_exp(T(l, M)),
    'det': lambda l: l.linalg.det(T(l, M)),
    'solve': lambda l: l.linalg.solve(T(l, M), T(l, M)),
    'inv': lambda l: l.linalg.inv(T(l, M)),
    'inverse bfloat16': lambda l: l.inverse(T(l, M).to(l.bfloat16)),
    'cholesky': lambda l: l.linalg.cholesky(T(l, SPD)),
    'eigvalsh': lambda l: l.linalg.eigvalsh(T(l, SPD)),
    'convolution': lambda l: l.convolution(T(l, I3), T(l, W1), None, [1], [0], [1], False,
                                           [0], 1),
    'conv1d': lambda l: _nn(l).conv1d(T(l, I3), T(l, W1)),
    'conv2d': lambda l: l.conv2d(T(l, I4), T(l, W2)),
    'unfold': lambda l: _nn(l).unfold(T(l, I4), 2),
    'sdpa': lambda l: _nn(l).scaled_dot_product_attention(T(l, B), T(l, B), T(l, B)),
    'layer_norm': lambda l: _nn(l).layer_norm(T(l, M), (4,)),
    'group_norm': lambda l: _nn(l).group_norm(T(l, I4), 2),
    'softmax': lambda l: _nn(l).softmax(T(l, M), 0),
    'softmax bfloat16': lambda l: _nn(l).softmax(T(l, M).to(l.bfloat16), 0),
    'cross_entropy': lambda l: _nn(l).cross_entropy(T(l, M).to(l.bfloat16),
                                                    l.tensor([0, 1, 2, 3])),
    'kl_div': lambda l: _nn(l).kl_div(T(l, M).to(l.bfloat16), T(l, M).to(l.bfloat16),
                                      reduction='batchmean', log_target=True),
    'gaussian_nll_loss': lambda l: _nn(l).gaussian_nll_loss(T(l, M), T(l, M), T(l, SPD).abs()),
    'normalize': lambda l: _nn(l).normalize(T(l, M)),
    'pad reflect 1d': lambda l: _nn(l).pad(T(l, I3).to(l.bfloat16), (1, 1), mode='reflect'),
    'pad reflect 3d': lambda l: _nn(l).pad(T(l, B)[None, None].to(l.bfloat16), (1,) * 6,
                                           mode='reflect'),
    'pad replicate 3d': lambda l: _nn(l).pad(T(l, B)[None, None].to(l.bfloat16), (1,) * 6,
                                             mode='replicate'),
    'pad circular': lambda l: _nn(l).pad(T(l, I3).to(l.bfloat16), (1, 1), mode='circular'),
    'pad constant': lambda l: _nn(l).pad(T(l, I3).to(l.bfloat16), (1, 1)),
    'interpolate': lambda l: _nn(l).interpolate(T(l, I4), scale_factor=2, mode='bilinear'),
    'grid_sample': lambda l: _nn(l).grid_sample(T(l, I4).to(l.bfloat16),
                                                T(l, np.zeros((1, 2, 2, 2), np.float32)),
                                                align_corners=False),
    'prod': lambda l: l.prod(T(l, M).to(l.bfloat16)),
    'prod dtype': lambda l: l.prod(T(l, M).to(l.bfloat16), dtype=l.bfloat16),
    'cumprod': lambda l: l.cumprod(T(l, M).to(l.bfloat16), 0),
    'trace': lambda l: l.trace(T(l, M).to(l.bfloat16)),
    'quantile': lambda l: l.quantile(T(l, V).to(l.bfloat16), 0.5),
    'stft': lambda l: l.stft(T(l, SIG).to(l.bfloat16), 8, window=T(l, WIN),
                             return_complex=True),
    'fft': lambda l: l.fft.fft(T(l, V).to(l.bfloat16)),
    'rfft': lambda l: l.fft.rfft(T(l, V).to(l.bfloat16)),
    'polar': lambda l: l.polar(T(l, V).abs().to(l.bfloat16), T(l, V).to(l.bfloat16)),
    'view_as_complex': lambda l: l.view_as_complex(T(l, M).reshape(8, 2).to(l.bfloat16)),
    'linalg.vecdot': lambda l: l.linalg.vecdot(T(l, M), T(l, M)),
    'baddbmm': lambda l: l.baddbmm(T(l, B), T(l, B), T(l, B)),
    'matmul vectors': lambda l: l.matmul(T(l, V), T(l, V)),
    'matmul 3d @ 2d': lambda l: l.matmul(T(l, B), T(l, M)),
    '@': lambda l: T(l, M) @ T(l, M),
    'rmatmul': lambda l: T(l, M).__rmatmul__(T(l, M)),
    'cat float32 + bfloat16': lambda l: l.cat([T(l, M), T(l, M).to(l.bfloat16)]),
    'cat bfloat16 + bfloat16': lambda l: l.cat([T(l, M).to(l.bfloat16)] * 2),
    'cat float16 + bfloat16': lambda l: l.cat([T(l, M).half(), T(l, M).to(l.bfloat16)]),
    'stack float64 + bfloat16': lambda l: l.stack([T(l, M).double(),
                                                   T(l, M).to(l.bfloat16)]),
    'index_copy': lambda l: T(l, M).to(l.bfloat16).index_copy(0, l.tensor([0]), T(l, M)[:1]),
    'hstack': lambda l: l.hstack([T(l, M), T(l, M).to(l.bfloat16)]),
    'mm float64': lambda l: l.mm(T(l, M).double(), T(l, M).double()),
    'mm float16 + float32': lambda l: l.mm(T(l, M).half(), T(l, M)),
    'mm int64': lambda l: l.mm(T(l, M).long(), T(l, M).long()),
    'mse_loss float64': lambda l: _nn(l).mse_loss(T(l, M).double(), T(l, M).double()),
    'addmm out=': lambda l: l.addmm(T(l, M), T(l, M), T(l, M), out=l.empty(4, 4)),
    'addmm_ in place': lambda l: T(l, M).addmm_(T(l, M), T(l, M)),
    'mul': lambda l: T(l, M) * T(l, M),
    'exp bfloat16': lambda l: l.exp(T(l, M).to(l.bfloat16)),
    'sum': lambda l: T(l, M).sum(),
    'Linear': lambda l: _seeded(lambda l: l.nn.Linear(4, 2))(l)(T(l, M)),
    'Linear 3d input': lambda l: _seeded(lambda l: l.nn.Linear(4, 2))(l)(T(l, B)),
    'Bilinear': lambda l: _seeded(lambda l: l.nn.Bilinear(4, 4, 2))(l)(T(l, M), T(l, M)),
    'Conv2d': lambda l: _seeded(lambda l: l.nn.Conv2d(2, 2, 2))(l)(T(l, I4)),
    'ConvTranspose1d': lambda l: _seeded(lambda l: l.nn.ConvTranspose1d(2, 2, 2))(l)(T(l, I3)),
    'PReLU': lambda l: _seeded(lambda l: l.nn.PReLU())(l)(T(l, M)),
    'Embedding': lambda l: _seeded(lambda l: l.nn.Embedding(4, 2))(l)(l.tensor([0, 1])),
    'BatchNorm2d': lambda l: _seeded(lambda l: l.nn.BatchNorm2d(2))(l)(T(l, I4)),
    'GRU': lambda l: _seeded(lambda l: l.nn.GRU(4, 3))(l)(T(l, M)[None])[0],
    'RNN': lambda l: _seeded(lambda l: l.nn.RNN(4, 3))(l)(T(l, M)[None])[0],
    'MultiheadAttention': lambda l: _seeded(lambda l: l.nn.MultiheadAttention(4, 2))(l)(
        T(l, B), T(l, B), T(l, B))[0],
    'TransformerEncoderLayer': lambda l: _seeded(
        lambda l: l.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0))(l)(T(l, B)),
}
DIFFERENT = {
    'LSTM': "torch's nn.LSTM runs oneDNN's bfloat16 kernel (mkldnn_rnn_layer) under CPU "
            "autocast; ember's LSTM keeps float32",
}
CASES['LSTM'] = lambda l: _seeded(lambda l: l.nn.LSTM(4, 3))(l)(T(l, M)[None])[0]


def _close(a, b):
    x, y = values(a), values(b)
    assert x.shape == y.shape
    np.testing.assert_allclose(x, y, rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize('name', [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=DIFFERENT[n]))
    if n in DIFFERENT else n for n in sorted(CASES)])
def test_op_under_autocast(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        out = []
        for l in (ember, torch):
            with l.autocast('cpu'):
                try:
                    out.append(CASES[name](l))
                except RuntimeError as e:
                    out.append(str(e))
    e, t = out
    if isinstance(t, str) or isinstance(e, str):
        assert e == t
        return
    assert str(e.dtype) == str(t.dtype)
    if t.dtype.is_floating_point or t.dtype.is_complex:
        _close(e, t)
    else:
        assert (values(e) == values(t)).all()


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
def test_training_step_gradients(lib, dtype):
    """A Linear + ReLU + Linear + cross-entropy step: the activations in the low dtype, the
    loss in float32, every gradient back in its parameter's dtype, through ToCopyBackward0."""
    model = _fill(lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3)),
                  lib)
    x = T(lib, M)
    with lib.autocast('cpu', dtype=getattr(lib, dtype)):
        h = model(x)
        loss = lib.nn.functional.cross_entropy(h, lib.tensor([0, 1, 2, 0]))
    assert h.dtype == getattr(lib, dtype) and loss.dtype == lib.float32
    loss.backward()
    grads = [p.grad for p in model.parameters()]
    assert all(g.dtype == lib.float32 for g in grads)
    cast = h.grad_fn.next_functions
    return [values(g) for g in grads], h.grad_fn.name(), [type(n).__name__ for n, _ in cast]


def test_training_step_matches_torch():
    for dtype in ('bfloat16', 'float16'):
        e = test_training_step_gradients(ember, dtype)
        t = test_training_step_gradients(torch, dtype)
        assert e[1:] == t[1:]
        for a, b in zip(e[0], t[0]):
            np.testing.assert_allclose(a, b, rtol=5e-2, atol=5e-2)


def test_cast_cache(lib):
    """A float32 leaf requiring grad is cast once per outermost region (one node); views,
    non-leaves and a region with cache_enabled=False cast each time."""
    w = lib.randn(3, 3, requires_grad=True)
    a = lib.randn(3, 3)

    def cast_node(y):
        return y.grad_fn.next_functions[1][0]
    with lib.autocast('cpu'):
        first = cast_node(lib.mm(a, w))
        assert cast_node(lib.mm(a, w)) is first
        with lib.autocast('cpu', enabled=False):
            assert lib.mm(a, w).dtype == lib.float32
        with lib.autocast('cpu'):
            assert cast_node(lib.mm(a, w)) is first
        v = w[:3]
        assert cast_node(lib.mm(a, v)) is not cast_node(lib.mm(a, v))
        u = w * 1
        assert cast_node(lib.mm(a, u)) is not cast_node(lib.mm(a, u))
    with lib.autocast('cpu'):
        assert cast_node(lib.mm(a, w)) is not first
    with lib.autocast('cpu', cache_enabled=False):
        assert cast_node(lib.mm(a, w)) is not cast_node(lib.mm(a, w))
    assert lib.is_autocast_cache_enabled()


def test_nesting_and_state(lib):
    a = lib.randn(2, 2)
    assert not lib.is_autocast_enabled('cpu')
    with lib.autocast('cpu'):
        assert lib.mm(a, a).dtype == lib.bfloat16
        with lib.autocast('cpu', dtype=lib.float16):
            assert lib.get_autocast_dtype('cpu') == lib.float16
            assert lib.mm(a, a).dtype == lib.float16
            with lib.autocast('cpu', enabled=False):
                assert not lib.is_autocast_enabled('cpu')
                assert lib.mm(a, a).dtype == lib.float32
            assert lib.mm(a, a).dtype == lib.float16
        assert lib.get_autocast_dtype('cpu') == lib.bfloat16
        assert lib.is_autocast_enabled('cpu')
    assert lib.mm(a, a).dtype == lib.float32
    # the functions under the context
    lib.set_autocast_enabled('cpu', True)
    try:
        assert lib.is_autocast_enabled('cpu') and lib.mm(a, a).dtype == lib.bfloat16
        lib.set_autocast_dtype('cpu', lib.float16)
        assert lib.mm(a, a).dtype == lib.float16
    finally:
        lib.set_autocast_enabled('cpu', False)
        lib.set_autocast_dtype('cpu', lib.bfloat16)
    assert lib.mm(a, a).dtype == lib.float32
    assert lib.autocast_increment_nesting() == 1
    assert lib.autocast_decrement_nesting() == 0
    with raises(TypeError, r"set_autocast_enabled\(\): argument 'enabled' \(position 2\) must "
                "be bool, not int"):
        lib.set_autocast_enabled('cpu', 1)


def test_decorator_and_unsupported_dtype(lib):
    a = lib.randn(2, 2)

    @lib.autocast('cpu')
    def f(x):
        return lib.mm(x, x).dtype
    assert f(a) == lib.bfloat16
    with warns(UserWarning, "In CPU autocast, but the target dtype is not supported"):
        ctx = lib.autocast('cpu', dtype=lib.float64)
    with ctx:
        assert lib.mm(a, a).dtype == lib.float32


def test_deprecated_spellings_warn(lib):
    for name, new in (('is_autocast_cpu_enabled', "is_autocast_enabled('cpu')"),
                      ('get_autocast_cpu_dtype', "get_autocast_dtype('cpu')"),
                      ('get_autocast_gpu_dtype', "get_autocast_dtype('cuda')")):
        with warns(DeprecationWarning, rf"torch.{name}\(\) is deprecated. Please use "
                   rf"torch.{new.replace('(', '[(]').replace(')', '[)]')} instead."):
            getattr(lib, name)()


@pytest.mark.parametrize('dev', ['not a real device', 'cpu:x', 'foo', 'CPU', ''])
def test_device_strings(dev):
    out = []
    for l in (ember, torch):
        try:
            with l.autocast(device_type=dev):
                pass
            out.append('ok')
        except RuntimeError as e:
            out.append(str(e))
    assert out[0] == out[1]


def test_custom_fwd_bwd(lib):
    seen = {}

    class Mm(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type='cpu', cast_inputs=lib.float32)
        def forward(ctx, a, b):
            seen['fwd'] = (a.dtype, b.dtype, lib.is_autocast_enabled('cpu'))
            ctx.save_for_backward(a, b)
            return a.mm(b)

        @staticmethod
        @lib.amp.custom_bwd(device_type='cpu')
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen['bwd'] = lib.is_autocast_enabled('cpu')
            return g.mm(b.t()), a.t().mm(g)

    class Plain(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type='cpu')
        def forward(ctx, a):
            seen['plain fwd'] = lib.is_autocast_enabled('cpu')
            return a * 2

        @staticmethod
        @lib.amp.custom_bwd(device_type='cpu')
        def backward(ctx, g):
            seen['plain bwd'] = (lib.is_autocast_enabled('cpu'), lib.get_autocast_dtype('cpu'),
                                 lib.mm(g, g).dtype)
            return g

    a = lib.randn(2, 2, requires_grad=True)
    b = lib.randn(2, 2).to(lib.bfloat16).requires_grad_()
    with lib.autocast('cpu', dtype=lib.float16):
        out = Mm.apply(a, b)
        p = Plain.apply(a)
    assert out.dtype == lib.float32
    (out.sum() + p.sum()).backward()
    assert b.grad.dtype == lib.bfloat16 and a.grad.dtype == lib.float32
    return {k: str(v) for k, v in seen.items()}


def test_custom_fwd_bwd_matches_torch():
    assert test_custom_fwd_bwd(ember) == test_custom_fwd_bwd(torch)


def test_backward_under_autocast(lib):
    """Ops run by a backward inside an autocast region are cast too (the state is the
    thread's); outside, they are not."""
    seen = []

    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            seen.append((lib.is_autocast_enabled('cpu'), str(lib.mm(g, g).dtype)))
            return g

    x = lib.randn(2, 2, requires_grad=True)
    with lib.autocast('cpu'):
        F.apply(x).sum().backward()
        y = F.apply(x)
    y.sum().backward()
    return seen


def test_backward_under_autocast_matches_torch():
    assert test_backward_under_autocast(ember) == test_backward_under_autocast(torch)


def test_threads_do_not_inherit(lib):
    a = lib.randn(2, 2)
    res = []
    with lib.autocast('cpu'):
        t = threading.Thread(target=lambda: res.append(
            (lib.is_autocast_enabled('cpu'), lib.mm(a, a).dtype)))
        t.start()
        t.join()
        assert lib.mm(a, a).dtype == lib.bfloat16
    assert res == [(False, lib.float32)]


def test_function_mode_sees_uncast_arguments(lib):
    log = []

    class Mode(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append([str(a.dtype) for a in args if isinstance(a, lib.Tensor)])
            r = func(*args, **(kwargs or {}))
            log.append(str(r.dtype))
            return r
    a = lib.randn(2, 2)
    with lib.autocast('cpu'):
        with Mode():
            lib.mm(a, a)
    return log


def test_function_mode_matches_torch():
    assert test_function_mode_sees_uncast_arguments(ember) == \
        test_function_mode_sees_uncast_arguments(torch)


@pytest.mark.parametrize('reentrant', [True, False])
def test_checkpoint_recomputes_under_forward_autocast(lib, reentrant):
    x = lib.randn(3, 3, requires_grad=True)
    dtypes = []

    def f(x):
        y = lib.mm(x, x)
        dtypes.append(y.dtype)
        return y.float().sin()
    with lib.autocast('cpu'):
        out = lib.utils.checkpoint.checkpoint(f, x, use_reentrant=reentrant)
    out.sum().backward()
    assert dtypes == [lib.bfloat16, lib.bfloat16]
    assert x.grad.dtype == lib.float32
