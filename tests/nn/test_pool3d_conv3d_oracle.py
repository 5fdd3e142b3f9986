"""3-d pooling and convolution, fractional max pooling and conv_tbc against torch: values,
indices, first and second derivatives, grad_fn names, modules and torch's errors."""
import numpy as np
import pytest

from ..oracle.oracle import arr, check

X5 = (2, 3, 6, 7, 5)


def _F(lib):
    return lib.nn.functional


# -- 3-d pooling --------------------------------------------------------------------------------
POOL3D = [
    lambda F, x: F.max_pool3d(x, 2, return_indices=True),
    lambda F, x: F.max_pool3d(x, (3, 2, 2), (2, 1, 2), 1, 1, True, True),
    lambda F, x: F.max_pool3d(x, 2, 1, 0, 2, return_indices=True),
    lambda F, x: F.max_pool3d_with_indices(x[0], 3, 2, 1),
    lambda F, x: F.avg_pool3d(x, 2),
    lambda F, x: F.avg_pool3d(x, 3, 2, 1, True, False),
    lambda F, x: F.avg_pool3d(x[0], 3, 2, 1, divisor_override=5),
    lambda F, x: F.adaptive_avg_pool3d(x, (3, 4, 2)),
    lambda F, x: F.adaptive_avg_pool3d(x, (None, 3, 1)),
    lambda F, x: F.adaptive_avg_pool3d(x[0], 1),
    lambda F, x: F.adaptive_max_pool3d(x, (3, 4, 2), True),
    lambda F, x: F.adaptive_max_pool3d_with_indices(x[0], (4, 5, 3)),
    lambda F, x: F.adaptive_max_pool3d(x, (2, None, 2)),
    lambda F, x: F.lp_pool3d(x, 2, 2),
    lambda F, x: F.lp_pool3d(x, 3, (2, 3, 2), 1, True),
    lambda F, x: F.lp_pool3d(x, float('inf'), 2),
    lambda F, x: F.max_unpool3d(*F.max_pool3d(x[..., :6, :4], 2, return_indices=True), 2),
    lambda F, x: F.max_unpool3d(*F.max_pool3d(x[..., :6, :4], 2, return_indices=True), 2,
                                output_size=(7, 7, 5)),
    lambda F, x: F.max_unpool3d(*F.max_pool3d(x[0], 3, 2, 1, return_indices=True), 3, 2, 1),
]


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('case', range(len(POOL3D)))
def test_pool3d(case, dtype):
    x = arr(*X5, seed=case, dtype=dtype, low=0.2, high=2.0) if case in (13, 14) else \
        arr(*X5, seed=case, dtype=dtype)
    check(lambda lib, x: POOL3D[case](_F(lib), x), x, double=dtype == np.float64)


def test_pool3d_ties_and_integer_max():
    x = np.round(arr(*X5, seed=1) * 2)
    check(lambda lib, x: _F(lib).max_pool3d(x, 2, return_indices=True), x, double=True)
    check(lambda lib, x: _F(lib).max_pool3d(x, 2, return_indices=True),
          arr(*X5, dtype=np.int64, seed=2))
    check(lambda lib, x: _F(lib).avg_pool3d(x, 2), arr(*X5, dtype=np.int64, seed=2))


@pytest.mark.parametrize('call', [
    lambda F, x: F.max_pool3d(x, (2, 2)),
    lambda F, x: F.max_pool3d(x, 2, (1, 1)),
    lambda F, x: F.max_pool3d(x, 2, 1, (1, 1)),
    lambda F, x: F.max_pool3d(x, 2, 1, 0, (1, 1)),
    lambda F, x: F.max_pool3d(x, 0),
    lambda F, x: F.max_pool3d(x, 2, 0),
    lambda F, x: F.max_pool3d(x, 2, 1, 0, 0),
    lambda F, x: F.max_pool3d(x, 2, 1, 2),
    lambda F, x: F.max_pool3d(x, 8),
    lambda F, x: F.max_pool3d(x[0, 0], 2),
    lambda F, x: F.avg_pool3d(x, (2, 2)),
    lambda F, x: F.avg_pool3d(x, 2, (1, 1)),
    lambda F, x: F.avg_pool3d(x, 2, 1, (1, 1)),
    lambda F, x: F.avg_pool3d(x, 2, 1, 2),
    lambda F, x: F.avg_pool3d(x, 8),
    lambda F, x: F.avg_pool3d(x, 0),
    lambda F, x: F.avg_pool3d(x[0, 0], 2),
    lambda F, x: F.avg_pool3d(x, 2, divisor_override=0),
    lambda F, x: F.avg_pool3d(x.int(), 2),
    lambda F, x: F.adaptive_avg_pool3d(x, (2, 2)),
    lambda F, x: F.adaptive_avg_pool3d(x[0, 0], 2),
    lambda F, x: F.adaptive_avg_pool3d(x, -1),
    lambda F, x: F.adaptive_avg_pool3d(x[:, :, :0], 2),
    lambda F, x: F.adaptive_avg_pool3d(x.int(), 2),
    lambda F, x: F.adaptive_max_pool3d(x, (2, 2)),
    lambda F, x: F.adaptive_max_pool3d(x[0, 0], 2),
    lambda F, x: F.adaptive_max_pool3d(x, -1),
    lambda F, x: F.adaptive_max_pool3d(x[:, :, :0], 2),
    lambda F, x: F.adaptive_max_pool3d(x.int(), 2),
    lambda F, x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, output_size=(3, 3)),
    lambda F, x: F.max_unpool3d(*(t[0, 0] for t in F.max_pool3d(x, 2, return_indices=True)), 2),
    lambda F, x: F.max_unpool3d(F.max_pool3d(x, 2), F.max_pool3d(x, 2, return_indices=True)[1]
                                * 100, 2),
    lambda F, x: F.max_unpool3d(F.max_pool3d(x, 2), F.max_pool3d(x, 2, return_indices=True)[1]
                                [:, :, :1], 2),
    lambda F, x: F.max_unpool3d(F.max_pool3d(x, 2), F.max_pool3d(x, 2, return_indices=True)[1]
                                .float(), 2),
    lambda F, x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2,
                                output_size=(9, 9, 9)),
    lambda F, x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2, 0),
])
def test_pool3d_errors(call):
    check(lambda lib, x: call(_F(lib), x), arr(2, 3, 6, 6, 6, seed=3), match_message=True)


# -- fractional max pooling -----------------------------------------------------------------------
FRACTIONAL = [
    (2, dict(kernel_size=2, output_size=(4, 5)), (2, 3, 9, 11)),
    (2, dict(kernel_size=(3, 2), output_ratio=(0.5, 0.6)), (2, 3, 9, 11)),
    (2, dict(kernel_size=3, output_size=4), (3, 9, 11)),
    (2, dict(kernel_size=2, output_size=(1, 10)), (2, 3, 9, 11)),
    (3, dict(kernel_size=2, output_size=(3, 4, 3)), (2, 3, 6, 7, 5)),
    (3, dict(kernel_size=(2, 3, 2), output_ratio=0.5), (2, 3, 6, 7, 5)),
    (3, dict(kernel_size=2, output_size=3), (3, 6, 7, 5)),
]


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('nd, kw, shape', FRACTIONAL, ids=str)
def test_fractional_max_pool(nd, kw, shape, dtype):
    batch = shape[0] if len(shape) == nd + 2 else 1
    samples = arr(batch, shape[-nd - 1], nd, seed=4, low=0, high=1, dtype=dtype)

    def f(lib, x):
        F = _F(lib)
        s = lib.tensor(samples)          # (torch refuses samples that require grad)
        fn = F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d
        with_idx = (F.fractional_max_pool2d_with_indices if nd == 2
                    else F.fractional_max_pool3d_with_indices)
        return [fn(x, return_indices=True, _random_samples=s, **kw),
                with_idx(x, _random_samples=s, **kw)]
    check(f, arr(*shape, seed=5, dtype=dtype), double=dtype == np.float64)


def test_fractional_max_pool_random_samples_and_modules():
    # without _random_samples the windows are random: the shapes and the module forms agree
    def f(lib, x):
        nn = lib.nn
        a = nn.FractionalMaxPool2d(3, output_ratio=0.5)(x)
        b = nn.FractionalMaxPool3d(2, output_size=(1, 3, 4), return_indices=True)(x[None])
        return [a.shape, b[0].shape, b[1].shape, repr(nn.FractionalMaxPool2d(2, 3))]
    check(f, arr(2, 3, 8, 9, seed=6), grad=False)


@pytest.mark.parametrize('call', [
    lambda F, x, s: F.fractional_max_pool2d(x, 2),
    lambda F, x, s: F.fractional_max_pool2d(x, 2, output_size=(8, 8), _random_samples=s),
    lambda F, x, s: F.fractional_max_pool2d(x, 2, output_size=(7, 9), _random_samples=s),
    lambda F, x, s: F.fractional_max_pool2d(x, 2, output_size=(7, 8), _random_samples=s[:1]),
    lambda F, x, s: F.fractional_max_pool2d(x[0, 0], 2, output_size=3, _random_samples=s),
    lambda F, x, s: F.fractional_max_pool2d(x, 2, output_size=3,
                                            _random_samples=s.requires_grad_()),
    lambda F, x, s: F.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s),
    lambda F, x, s: F.fractional_max_pool3d(x[None], 2, output_size=(2, 3, 4),
                                            _random_samples=s[:1]),
    lambda F, x, s: F.fractional_max_pool3d(x[None], 2, output_size=(1, 7, 4),
                                            _random_samples=s[:1]),
    lambda F, x, s: F.fractional_max_pool3d(x[None], 2, output_size=(1, 3, 8),
                                            _random_samples=s[:1]),
])
def test_fractional_max_pool_errors(call):
    samples = arr(2, 3, 3, seed=8, low=0, high=1)
    check(lambda lib, x: call(_F(lib), x, lib.tensor(samples)), arr(2, 3, 8, 9, seed=7),
          match_message=True)


@pytest.mark.parametrize('make', [
    lambda nn: nn.FractionalMaxPool2d(2),
    lambda nn: nn.FractionalMaxPool2d(2, 3, 0.5),
    lambda nn: nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda nn: nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 0)),
])
def test_fractional_module_errors(make):
    check(lambda lib: make(lib.nn), match_message=True)


# -- 3-d convolution and conv_tbc -------------------------------------------------------------------
CONV3D = [
    (lambda F, x, w, b: F.conv3d(x, w, b, 1, 1), (4, 3, 2, 3, 2)),
    (lambda F, x, w, b: F.conv3d(x, w, None, (2, 1, 2), 'valid'), (4, 3, 2, 3, 2)),
    (lambda F, x, w, b: F.conv3d(x, w, b, 1, 'same', 2), (4, 3, 2, 3, 2)),
    (lambda F, x, w, b: F.conv3d(x[0], w, b, 1, (0, 1, 1), 1, 3), (3, 1, 2, 2, 2)),
    (lambda F, x, w, b: F.conv_transpose3d(x, w, b[:2], 2, 1, 1), (3, 2, 2, 3, 2)),
    (lambda F, x, w, b: F.conv_transpose3d(x, w, None, 1, 0, 0, 3), (3, 1, 2, 2, 2)),
    (lambda F, x, w, b: F.conv_transpose3d(x[0], w, None, (1, 2, 1), 0, (0, 1, 0), 1, 2),
     (3, 2, 2, 2, 2)),
]


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
@pytest.mark.parametrize('case', range(len(CONV3D)))
def test_conv3d(case, dtype):
    fn, wshape = CONV3D[case]
    check(lambda lib, x, w, b: fn(_F(lib), x, w, b), arr(2, 3, 5, 6, 4, seed=case, dtype=dtype),
          arr(*wshape, seed=10 + case, dtype=dtype), arr(4, seed=20, dtype=dtype),
          double=dtype == np.float64)


@pytest.mark.parametrize('pad', [0, 1, 2])
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_conv_tbc(pad, dtype):
    def f(lib, x, w, b):
        return [lib.nn.functional.conv_tbc(x, w, b, pad), lib.conv_tbc(x, w, b, pad)]
    check(f, arr(7, 2, 5, seed=1, dtype=dtype), arr(3, 5, 4, seed=2, dtype=dtype),
          arr(4, seed=3, dtype=dtype), double=dtype == np.float64)


@pytest.mark.parametrize('call', [
    lambda lib, x, w, b: lib.conv_tbc(x[0], w, b),
    lambda lib, x, w, b: lib.conv_tbc(x, w[0], b),
    lambda lib, x, w, b: lib.conv_tbc(x, w, b[None]),
    lambda lib, x, w, b: lib.conv_tbc(x[..., :4], w, b),
    lambda lib, x, w, b: lib.conv_tbc(x, w, b[:3]),
    lambda lib, x, w, b: lib.nn.functional.conv3d(x, w[None, None]),
    lambda lib, x, w, b: lib.nn.functional.conv_transpose3d(
        x[None, None], w[None, None].expand(1, 2, 3, 5, 4), stride=2, output_padding=2),
])
def test_conv3d_tbc_errors(call):
    check(call, arr(7, 2, 5, seed=1), arr(3, 5, 4, seed=2), arr(4, seed=3), match_message=True)


def test_torch_level_forms():
    def f(lib, x, w):
        return [lib.max_pool3d(x, 2), lib.max_pool3d(x, 3, (), 1, 1, True),
                lib.conv3d(x, w, None, 1, 1), lib.conv_transpose3d(x, w.transpose(0, 1), None, 2)]
    check(f, arr(2, 3, 5, 6, 4, seed=4), arr(4, 3, 2, 2, 2, seed=5), double=True)


MODULES = [
    lambda nn: nn.MaxPool3d(2, return_indices=True), lambda nn: nn.MaxPool3d((2, 3, 2), 1, 1),
    lambda nn: nn.AvgPool3d(2), lambda nn: nn.AvgPool3d(3, 2, 1, True, False, 4),
    lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)), lambda nn: nn.AdaptiveMaxPool3d(2, True),
    lambda nn: nn.LPPool3d(2, 2), lambda nn: nn.LPPool3d(1.5, (2, 3, 2), 1),
]


@pytest.mark.parametrize('make', MODULES)
def test_pool3d_modules(make):
    check(lambda lib, x: [make(lib.nn)(x), repr(make(lib.nn))], arr(*X5, seed=9, low=0.1,
                                                                     high=2.0))


def test_unpool_and_conv3d_modules():
    def f(lib, x, w, b):
        nn = lib.nn
        conv = nn.Conv3d(3, 4, (2, 3, 2), padding=1, bias=True)
        convt = nn.ConvTranspose3d(3, 4, 2, stride=2, output_padding=1, bias=False)
        with lib.no_grad():
            conv.weight.copy_(w)
            conv.bias.copy_(b)
            convt.weight.copy_(w.transpose(0, 1)[:, :, :2, :2])
        out, idx = nn.MaxPool3d(2, return_indices=True)(x[..., :6, :4])
        lazy = nn.LazyConv3d(4, 2)
        return [conv(x), convt(x), convt(x, output_size=(11, 13, 9)), repr(conv), repr(convt),
                nn.MaxUnpool3d(2)(out, idx), repr(nn.MaxUnpool3d(2)), lazy(x).shape,
                type(lazy).__name__, nn.Conv3d(3, 3, 2, padding_mode='circular', padding=1)(
                    x).shape]
    check(f, arr(*X5, seed=10), arr(4, 3, 2, 3, 2, seed=11), arr(4, seed=12))
