"""conv1d, conv2d, conv_transpose2d and their modules against torch: values, first and second
derivatives, reprs, construction and input errors."""
import re

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check

pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same'")


def F(lib):
    return lib.nn.functional


# -- conv2d --------------------------------------------------------------------------------
@pytest.mark.parametrize('stride', [1, 2, (2, 1)])
@pytest.mark.parametrize('padding', [0, 1, (2, 0)])
@pytest.mark.parametrize('dilation', [1, (2, 1)])
@pytest.mark.parametrize('groups,bias', [(1, True), (2, False), (2, True)])
def test_conv2d_values_and_first_derivatives(stride, padding, dilation, groups, bias):
    x, w, b = arr(2, 4, 7, 6, seed=1), arr(6, 4 // groups, 3, 2, seed=2), arr(6, seed=3)

    def f(lib, x, w, b):
        return F(lib).conv2d(x, w, b if bias else None, stride, padding, dilation, groups)
    check(f, x, w, b)


@pytest.mark.parametrize('padding', ['same', 'valid'])
@pytest.mark.parametrize('kernel,dilation', [((3, 3), 1), ((2, 3), 1), ((2, 2), (1, 3)),
                                             ((4, 1), 2)])
def test_conv2d_padding_strings(padding, kernel, dilation):
    check(lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding=padding, dilation=dilation),
          arr(2, 3, 8, 7, seed=1), arr(4, 3, *kernel, seed=2), arr(4, seed=3))


def test_conv2d_unbatched_and_float32():
    check(lambda lib, x, w: F(lib).conv2d(x, w, stride=2, padding=1),
          arr(3, 6, 5, seed=1), arr(2, 3, 3, 3, seed=2))
    check(lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding=1),
          arr(2, 3, 6, 5, dtype=np.float32, seed=1), arr(2, 3, 3, 3, dtype=np.float32, seed=2),
          arr(2, dtype=np.float32, seed=3), rtol=1e-4, atol=1e-4)


# 3x3 stride-1 convolutions, the common CNN layer: odd and even sizes, asymmetric padding,
# one output pixel, both dtypes.
@pytest.mark.parametrize('size,padding', [((6, 6), 0), ((7, 9), 1), ((3, 4), (0, 2)),
                                          ((3, 3), 0), ((5, 2), (2, 1))])
@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_conv2d_3x3_stride1(size, padding, dtype):
    tol = {'rtol': 1e-4, 'atol': 1e-4} if dtype == np.float32 else {}
    check(lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding=padding),
          arr(3, 5, *size, dtype=dtype, seed=1), arr(4, 5, 3, 3, dtype=dtype, seed=2),
          arr(4, dtype=dtype, seed=3), **tol)


def test_conv2d_3x3_second_derivatives_and_no_grad():
    check(lambda lib, x, w: F(lib).conv2d(x, w, padding=1).tanh(),
          arr(2, 3, 5, 4, seed=1), arr(2, 3, 3, 3, seed=2), double=True)
    x, w = arr(2, 3, 5, 4, seed=1), arr(2, 3, 3, 3, seed=2)
    with ember.no_grad():
        got = F(ember).conv2d(ember.tensor(x), ember.tensor(w), padding=1)
    want = F(torch).conv2d(torch.tensor(x), torch.tensor(w), padding=1)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)


def test_conv2d_depthwise_second_derivatives():
    check(lambda lib, x, w, b: F(lib).conv2d(x, w, b, stride=2, padding=1, dilation=(1, 2),
                                             groups=2),
          arr(2, 2, 5, 6, seed=1), arr(4, 1, 2, 2, seed=2), arr(4, seed=3), double=True)


def test_conv2d_second_derivatives_through_a_nonlinearity():
    check(lambda lib, x, w: F(lib).conv2d(x, w, padding='same').tanh(),
          arr(1, 2, 4, 4, seed=1), arr(3, 2, 2, 3, seed=2), double=True)


def test_conv2d_gradgradcheck():
    x = ember.tensor(arr(1, 2, 4, 5, seed=1), requires_grad=True)
    w = ember.tensor(arr(2, 1, 2, 2, seed=2), requires_grad=True)
    b = ember.tensor(arr(2, seed=3), requires_grad=True)

    def f(x, w, b):
        return ember.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2)
    assert ember.autograd.gradcheck(f, (x, w, b))
    assert ember.autograd.gradgradcheck(f, (x, w, b))


# -- conv1d --------------------------------------------------------------------------------
@pytest.mark.parametrize('kw', [{}, {'stride': 2, 'padding': 1}, {'dilation': 2, 'groups': 3},
                                {'padding': 'same', 'dilation': 3}, {'padding': 'valid'},
                                {'padding': (2,), 'stride': (3,)}])
def test_conv1d_values_and_first_derivatives(kw):
    g = kw.get('groups', 1)
    check(lambda lib, x, w, b: F(lib).conv1d(x, w, b, **kw),
          arr(2, 6, 11, seed=1), arr(3, 6 // g, 4, seed=2), arr(3, seed=3))


def test_conv1d_unbatched_and_second_derivatives():
    check(lambda lib, x, w: F(lib).conv1d(x, w, padding=1), arr(2, 7, seed=1),
          arr(3, 2, 3, seed=2))
    check(lambda lib, x, w, b: F(lib).conv1d(x, w, b, stride=2, padding='valid'),
          arr(2, 2, 7, seed=1), arr(3, 2, 3, seed=2), arr(3, seed=3), double=True)


# -- conv_transpose2d ----------------------------------------------------------------------
@pytest.mark.parametrize('kw', [{}, {'stride': 2}, {'stride': 2, 'output_padding': 1},
                                {'stride': (2, 3), 'padding': (1, 2), 'output_padding': (1, 2)},
                                {'dilation': 2, 'output_padding': 1, 'padding': 1},
                                {'groups': 2, 'stride': 2, 'padding': 1}])
@pytest.mark.parametrize('bias', [True, False])
def test_conv_transpose2d_values_and_first_derivatives(kw, bias):
    g = kw.get('groups', 1)
    check(lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b if bias else None, **kw),
          arr(2, 4, 4, 5, seed=1), arr(4, 6 // g, 3, 2, seed=2), arr(6, seed=3))


def test_conv_transpose2d_unbatched_and_second_derivatives():
    check(lambda lib, x, w: F(lib).conv_transpose2d(x, w, stride=2), arr(2, 3, 3, seed=1),
          arr(2, 3, 2, 2, seed=2))
    check(lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b, stride=2, padding=1,
                                                       output_padding=1, groups=2),
          arr(1, 2, 3, 3, seed=1), arr(2, 2, 3, 2, seed=2), arr(4, seed=3), double=True)


# -- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize('call', [
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 2, 3, 3, dtype=lib.float64)),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 1, 3, 3, dtype=lib.float64), groups=2),
    lambda lib, x: F(lib).conv2d(x, lib.ones(3, 1, 3, 3, dtype=lib.float64), groups=2),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 1, 3, 3, dtype=lib.float64), groups=3),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 7, 7, dtype=lib.float64)),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64), stride=2,
                                 padding='same'),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64), padding='full'),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64), stride=0),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64), padding=-1),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64), dilation=0),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64), groups=0),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64), stride=(1, 1, 1)),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64), lib.ones(3)),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64),
                                 lib.ones(3, dtype=lib.float64)),
    lambda lib, x: F(lib).conv2d(x, lib.ones(4, 3, 3, 3)),
    lambda lib, x: F(lib).conv2d(x[0, 0], lib.ones(4, 3, 3, 3, dtype=lib.float64)),
    lambda lib, x: F(lib).conv2d(x[None], lib.ones(4, 3, 3, 3, dtype=lib.float64)),
    lambda lib, x: F(lib).conv1d(x, lib.ones(4, 3, 3, dtype=lib.float64)),
    lambda lib, x: F(lib).conv_transpose2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float64)),
    lambda lib, x: F(lib).conv_transpose2d(x, lib.ones(3, 3, 3, 3, dtype=lib.float64),
                                           stride=2, output_padding=2),
    lambda lib, x: F(lib).conv_transpose2d(x, lib.ones(3, 3, 3, 3, dtype=lib.float64),
                                           padding='same'),
])
def test_conv_errors(call):
    check(call, arr(1, 3, 5, 5), match_message=True)


# -- modules -------------------------------------------------------------------------------
def test_module_reprs_parameter_names_and_shapes():
    def describe(nn):
        mods = [nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(4, 8, (3, 2), stride=2, padding=(1, 0),
                                                        dilation=2, groups=2, bias=False),
                nn.Conv2d(4, 8, 3, padding='same'), nn.Conv2d(4, 8, 3, padding='valid'),
                nn.Conv2d(4, 8, 3, padding=1, padding_mode='reflect'),
                nn.Conv1d(4, 8, 3, stride=2), nn.Conv1d(2, 4, 5, padding='same', groups=2),
                nn.ConvTranspose2d(4, 8, 3, stride=2, output_padding=1, groups=2, dilation=2,
                                   padding=1),
                nn.ConvTranspose2d(4, 8, 3, bias=False)]
        return [(repr(m), [(n, tuple(p.shape)) for n, p in m.named_parameters()],
                 m.kernel_size, m.stride, m.padding, m.dilation, m.groups, m.transposed,
                 m.output_padding, m.padding_mode) for m in mods]
    assert describe(ember.nn) == describe(torch.nn)


def test_default_initialisation_bounds():
    ember.manual_seed(0)
    m = ember.nn.Conv2d(4, 6, 3, groups=2)
    bound = 1 / np.sqrt(2 * 9)  # fan_in = in_channels / groups * kernel area
    assert np.abs(m.weight.detach().numpy()).max() <= bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound
    assert np.abs(m.weight.detach().numpy()).max() > 0.7 * bound


def _copy_module(make, x, call=lambda m, x: m(x)):
    """Builds the module in both libraries, copies ember's parameters into torch's, runs
    ``call`` and compares through check (gradients of input and parameters included)."""
    em = make(ember.nn)
    params = [p.detach().numpy().copy() for p in em.parameters()]

    def f(lib, x, *ps):
        m = em if lib is ember else make(torch.nn)
        with lib.no_grad():
            for p, v in zip(m.parameters(), ps):
                p.copy_(v)
        return call(m, x)
    check(f, x, *params, grad=True)


@pytest.mark.parametrize('make,shape', [
    (lambda nn: nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 7, 7)),
    (lambda nn: nn.Conv2d(3, 2, (2, 3), padding='same', bias=False), (3, 5, 6)),
    (lambda nn: nn.Conv2d(3, 2, 3, padding=(1, 2), padding_mode='reflect'), (1, 3, 5, 6)),
    (lambda nn: nn.Conv2d(3, 2, 3, padding='same', padding_mode='circular'), (1, 3, 5, 6)),
    (lambda nn: nn.Conv1d(4, 2, 3, dilation=2, padding=1), (2, 4, 9)),
    (lambda nn: nn.Conv1d(2, 2, 2, padding='same', padding_mode='replicate'), (2, 8)),
    (lambda nn: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
     (2, 4, 3, 4)),
])
def test_modules_against_torch_with_the_same_weights(make, shape):
    _copy_module(make, arr(*shape, seed=4).astype(np.float32))


def test_conv_transpose2d_output_size():
    _copy_module(lambda nn: nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1),
                 arr(1, 2, 4, 4, seed=4).astype(np.float32),
                 call=lambda m, x: m(x, output_size=[8, 8]))


def test_module_forward_input_channel_error():
    for lib in (ember, torch):
        m = lib.nn.Conv2d(3, 8, 3)
        with pytest.raises(RuntimeError) as info:
            m(lib.ones(1, 4, 5, 5))
        assert str(info.value).startswith(
            "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 "
            "channels, but got 4 channels instead")


@pytest.mark.parametrize('make', [
    lambda nn: nn.Conv2d(3, 8, 3, groups=2), lambda nn: nn.Conv2d(4, 9, 3, groups=2),
    lambda nn: nn.Conv2d(4, 8, 3, groups=0), lambda nn: nn.Conv2d(4, 8, 3, padding='foo'),
    lambda nn: nn.Conv2d(4, 8, 3, padding='same', stride=2),
    lambda nn: nn.Conv1d(4, 8, 3, padding_mode='foo'),
    lambda nn: nn.ConvTranspose2d(4, 8, 3, padding_mode='reflect'),
])
def test_module_construction_errors(make):
    raised = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            make(lib.nn)
        # torch prints a set, whose order varies between runs: compare its items sorted
        msg = re.sub(r'\{([^}]*)\}', lambda m: str(sorted(m.group(1).split(', '))),
                     str(info.value))
        raised.append((type(info.value), msg))
    assert raised[0] == raised[1]


def test_dtype_mismatch_names_any_dtype_as_torch():
    # regression: the message printed NumPy's 'int64' where torch prints 'Long'
    check(lambda lib, x: lib.nn.functional.conv2d(x, lib.ones(1, 1, 2, 2, dtype=lib.int64)),
          arr(1, 1, 3, 3, dtype=np.float32), match_message=True)
