"""The rest of torch.nn's activations against torch: ReLU6, SELU, CELU, Mish, Hardswish,
Hardsigmoid, LogSigmoid, Softsign, Softmin, Tanhshrink, Softshrink, Hardshrink, Threshold,
GLU, PReLU, RReLU, Softmax2d, their nn.functional twins, and the in-place functionals
(relu_, elu_, leaky_relu_, hardtanh_, selu_, celu_, threshold_, rrelu_): values, dtypes,
grad_fn names, first and second order gradients, reprs, defaults and errors. RReLU's random
slopes in training are checked for their properties (ember draws from its own generator)."""
import warnings

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, check, arr as _arr

DTYPES = [np.float32, np.float64]
SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4)]


def arr(*shape, scale=3.0, **kw):
    """oracle.arr scaled (by 3 by default, so every piece of the piecewise functions is hit),
    always an ndarray."""
    a = _arr(*shape, **kw)
    return np.asarray(a * scale, a.dtype)


# torch has no derivative for hardsigmoid's backward (see test_hardsigmoid_double_backward)
NO_DOUBLE = {'hardsigmoid', 'Hardsigmoid'}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        yield


# -- out-of-place functionals --------------------------------------------------------------
FUNCTIONS = {
    'relu6': lambda F, x: F.relu6(x),
    'selu': lambda F, x: F.selu(x),
    'celu': lambda F, x: F.celu(x),
    'celu_alpha': lambda F, x: F.celu(x, alpha=0.5),
    'celu_alpha_neg': lambda F, x: F.celu(x, -1.5),
    'mish': lambda F, x: F.mish(x),
    'hardswish': lambda F, x: F.hardswish(x),
    'hardsigmoid': lambda F, x: F.hardsigmoid(x),
    'logsigmoid': lambda F, x: F.logsigmoid(x),
    'softsign': lambda F, x: F.softsign(x),
    'softmin': lambda F, x: F.softmin(x, -1),
    'softmin_0': lambda F, x: F.softmin(x, dim=0),
    'softmin_dtype': lambda F, x: F.softmin(x, 0, dtype=F.torch_float64_),
    'tanhshrink': lambda F, x: F.tanhshrink(x),
    'softshrink': lambda F, x: F.softshrink(x),
    'softshrink_lambd': lambda F, x: F.softshrink(x, 1.5),
    'softshrink_0': lambda F, x: F.softshrink(x, lambd=0),
    'hardshrink': lambda F, x: F.hardshrink(x),
    'hardshrink_lambd': lambda F, x: F.hardshrink(x, lambd=2),
    'hardshrink_neg': lambda F, x: F.hardshrink(x, -1.0),
    'threshold': lambda F, x: F.threshold(x, 0.5, -2.0),
    'threshold_above': lambda F, x: F.threshold(x, -1, 20),
    'rrelu_eval': lambda F, x: F.rrelu(x),
    'rrelu_eval_bounds': lambda F, x: F.rrelu(x, 0.2, 0.7, training=False),
    'rrelu_eval_same': lambda F, x: F.rrelu(x, 0.3, 0.3),
}


class _F:
    """``lib.nn.functional`` with the float64 dtype at hand (so one lambda serves both)."""

    def __init__(self, lib):
        self._lib = lib
        self.torch_float64_ = lib.float64

    def __getattr__(self, name):
        return getattr(self._lib.nn.functional, name)


@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize('name', sorted(FUNCTIONS))
def test_functional(name, dtype, shape):
    if name.startswith('softmin_') and shape == ():
        shape = (3,)
    f = FUNCTIONS[name]
    check(lambda lib, x: f(_F(lib), x), arr(*shape, dtype=dtype, seed=3),
          double=name not in NO_DOUBLE)


# Values at the corners of the piecewise functions (gradients there are conventions).
EDGES = np.array([-7., -3., -2.5, -1., -0.5, -0.25, 0., 0.25, 0.5, 1., 2.5, 3., 6., 7.])
EDGE_FUNCTIONS = {
    'relu6': lambda F, x: F.relu6(x),
    'hardswish': lambda F, x: F.hardswish(x),
    'hardsigmoid': lambda F, x: F.hardsigmoid(x),
    'softshrink': lambda F, x: F.softshrink(x, 0.5),
    'hardshrink': lambda F, x: F.hardshrink(x, 0.5),
    'threshold': lambda F, x: F.threshold(x, 1.0, 5.0),
    'threshold_0': lambda F, x: F.threshold(x, 0.0, 0.0),
    'selu': lambda F, x: F.selu(x),
    'celu': lambda F, x: F.celu(x, 2.0),
    'rrelu': lambda F, x: F.rrelu(x),
    'prelu': lambda F, x: F.prelu(x, x.new_tensor([0.3])),
    'relu_': lambda F, x: F.relu_(x * 1),
    'hardtanh_': lambda F, x: F.hardtanh_(x * 1, -0.5, 0.5),
    'threshold_': lambda F, x: F.threshold_(x * 1, 1.0, 0.5),
}


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize('name', sorted(EDGE_FUNCTIONS))
def test_values_and_gradients_at_the_corners(name, dtype):
    f = EDGE_FUNCTIONS[name]
    check(lambda lib, x: f(lib.nn.functional, x), EDGES.astype(dtype),
          double=name not in NO_DOUBLE)


def test_large_values_and_nan():
    x = np.array([-1000., -100., -30., -20., -1., 0., 1., 19., 21., 50., 100., 1000.])
    for dtype in DTYPES:
        for name in ('mish', 'logsigmoid', 'selu', 'celu', 'softsign', 'tanhshrink',
                     'hardswish', 'hardsigmoid'):
            check(lambda lib, x: getattr(lib.nn.functional, name)(x), x.astype(dtype),
                  double=name not in NO_DOUBLE)
    nan = np.array([np.nan, -np.inf, np.inf, 1.0])
    for name in ('softshrink', 'hardshrink', 'relu6', 'hardswish', 'hardsigmoid', 'mish',
                 'logsigmoid', 'selu', 'celu', 'softsign'):
        check(lambda lib, x: getattr(lib.nn.functional, name)(x), nan, grad=False)
    check(lambda lib, x: lib.nn.functional.threshold(x, 0.5, 3), nan, grad=False)
    check(lambda lib, x: lib.nn.functional.threshold(x, 0.5, float('nan')), nan, grad=False)
    check(lambda lib, x: lib.nn.functional.rrelu(x), nan, grad=False)


def test_float16():
    x = arr(3, 4, dtype=np.float16, seed=4)
    for name in ('relu6', 'selu', 'celu', 'mish', 'hardswish', 'hardsigmoid', 'logsigmoid',
                 'softsign', 'tanhshrink', 'softshrink', 'hardshrink', 'rrelu'):
        check(lambda lib, x: getattr(lib.nn.functional, name)(x), x, grad=False)
    check(lambda lib, x: lib.nn.functional.threshold(x, 0.5, 2.5), x, grad=False)
    check(lambda lib, x: lib.nn.functional.glu(x), x, grad=False)
    check(lambda lib, x: lib.nn.functional.softmin(x, 1), x, grad=False)
    check(lambda lib, x: lib.nn.functional.prelu(x, x.new_tensor([0.25, 0.5, 1.0, 2.0])), x.T,
          grad=False)


@pytest.mark.parametrize('inplace', [False, True])
def test_hardsigmoid_double_backward_is_not_implemented(inplace):
    x = arr(3, 4, seed=2)
    for lib in (ember, torch):
        xi = lib.tensor(x, requires_grad=True)
        w = lib.tensor(arr(3, 4, seed=3), requires_grad=True)
        y = lib.nn.functional.hardsigmoid(xi * 1 if inplace else xi, inplace=inplace)
        (g,) = lib.autograd.grad((y * w).sum(), xi, create_graph=True)
        assert g.requires_grad
        for wrt in (xi, w):
            with pytest.raises(RuntimeError, match='derivative for aten::hardsigmoid_backward '
                                                   'is not implemented'):
                lib.autograd.grad(g.sum(), wrt, retain_graph=True)
        # without create_graph the gradient is a plain tensor
        (g,) = lib.autograd.grad(lib.nn.functional.hardsigmoid(xi).sum(), xi)
        assert not g.requires_grad
        np.testing.assert_allclose(g.numpy(), np.where(np.abs(x) < 3, 1 / 6, 0))


# -- glu -----------------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize('shape,dim', [((4,), -1), ((2,), 0), ((3, 4), -1), ((4, 3), 0),
                                       ((2, 6, 3), 1), ((2, 3, 4), -1), ((2, 3, 4), -3),
                                       ((0, 4), -1), ((3, 0), 1)], ids=str)
def test_glu(dtype, shape, dim):
    check(lambda lib, x: lib.nn.functional.glu(x, dim), arr(*shape, dtype=dtype, seed=2),
          double=True)
    check(lambda lib, x: lib.nn.GLU(dim)(x), arr(*shape, dtype=dtype, seed=2), double=True)


def test_glu_default_dim_and_errors():
    check(lambda lib, x: lib.nn.functional.glu(x), arr(2, 4), double=True)
    cases = [(lambda lib, x: lib.nn.functional.glu(x), arr(3, 5)),
             (lambda lib, x: lib.nn.functional.glu(x, 0), arr(3, 4)),
             (lambda lib, x: lib.nn.functional.glu(x, 2), arr(3, 4)),
             (lambda lib, x: lib.nn.functional.glu(x, -3), arr(3, 4)),
             (lambda lib, x: lib.nn.functional.glu(x), arr()),
             (lambda lib, x: lib.nn.GLU()(x), arr()),
             (lambda lib, x: lib.nn.functional.glu(x, None), arr(4)),
             (lambda lib, x: lib.nn.functional.glu(x.long()), arr(4)),
             (lambda lib, x: lib.nn.functional.glu(x.long()), arr(3))]
    for fn, a in cases:
        check(fn, a, match_message=True)


# -- prelu -----------------------------------------------------------------------------------
PRELU_CASES = [((5,), (1,)), ((5,), ()), ((), (1,)), ((), ()), ((4, 3), (3,)), ((4, 3), (1,)),
               ((2, 3, 4), (3,)), ((2, 3, 4), ()), ((2, 3, 2, 2), (3,)), ((2, 1, 4), (1,)),
               ((0, 3), (3,))]


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize('xshape,wshape', PRELU_CASES, ids=str)
def test_prelu(dtype, xshape, wshape):
    w = _arr(*wshape, dtype=dtype, seed=9)
    check(lambda lib, x, w: lib.nn.functional.prelu(x, w), arr(*xshape, dtype=dtype, seed=1), w,
          double=True)
    # a weight that does not require grad
    check(lambda lib, x: lib.nn.functional.prelu(x, lib.tensor(w)),
          arr(*xshape, dtype=dtype, seed=1), double=True)


PRELU_ERRORS = [((2, 3, 4), (4,)), ((2, 3, 4), (3, 1)), ((2, 3, 4), (1, 1)), ((2, 3, 4), (1, 3)),
                ((), (3,)), ((3,), (3,)), ((2, 3, 4), (0,))]


@pytest.mark.parametrize('xshape,wshape', PRELU_ERRORS, ids=str)
def test_prelu_weight_shape_checks(xshape, wshape):
    check(lambda lib, x, w: lib.nn.functional.prelu(x, w), arr(*xshape), _arr(*wshape, seed=2),
          match_message=True)


def test_prelu_dtype_errors():
    cases = [lambda lib, x: lib.nn.functional.prelu(x, x.new_tensor([0.25]).float()),
             lambda lib, x: lib.nn.functional.prelu(x.long(), lib.tensor([0.25])),
             lambda lib, x: lib.nn.functional.prelu(x.long(), lib.tensor([1])),
             lambda lib, x: lib.nn.functional.prelu(x.bool(), lib.tensor([True])),
             lambda lib, x: lib.nn.functional.prelu(x, 0.25)]
    for fn in cases:
        check(fn, arr(2, 3), match_message=True)


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: d.__name__)
def test_prelu_module(dtype):
    for lib in (ember, torch):
        m = lib.nn.PReLU()
        assert m.num_parameters == 1 and m.init == 0.25
        assert [n for n, _ in m.named_parameters()] == ['weight']
        assert isinstance(m.weight, lib.nn.Parameter) and m.weight.requires_grad
        assert m.weight.dtype == lib.float32 and m.weight.tolist() == [0.25]
    e = ember.nn.PReLU(3, init=0.1, dtype=ember.float64)
    t = torch.nn.PReLU(3, init=0.1, dtype=torch.float64)
    assert repr(e) == repr(t) == 'PReLU(num_parameters=3)'
    assert e.weight.dtype == ember.float64 and e.weight.tolist() == t.weight.tolist()
    assert list(e.state_dict()) == list(t.state_dict()) == ['weight']
    e.weight.data.fill_(0.7)
    e.reset_parameters()
    assert e.weight.tolist() == [0.1] * 3

    x = arr(2, 3, 4, dtype=dtype, seed=6)
    w = np.array([0.1, -0.5, 2.0], dtype)

    def run(lib):
        m = lib.nn.PReLU(3, dtype=getattr(lib, np.dtype(dtype).name))
        with lib.no_grad():
            m.weight.copy_(lib.tensor(w))
        xi = lib.tensor(x, requires_grad=True)
        y = m(xi)
        y.backward(lib.tensor(np.linspace(-1, 1, y.numel()).reshape(y.shape).astype(dtype)))
        return y, xi.grad, m.weight.grad
    for a, b in zip(run(ember), run(torch)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    # a channel count that does not match
    check(lambda lib, x: lib.nn.PReLU(4)(x), arr(2, 3), match_message=True)
    check(lambda lib, x: lib.nn.PReLU(0)(x), arr(2, 3), match_message=True)


# -- modules ---------------------------------------------------------------------------------
MODULES = {
    'ReLU6': lambda nn: nn.ReLU6(),
    'SELU': lambda nn: nn.SELU(),
    'CELU': lambda nn: nn.CELU(alpha=0.7),
    'Mish': lambda nn: nn.Mish(),
    'Hardswish': lambda nn: nn.Hardswish(),
    'Hardsigmoid': lambda nn: nn.Hardsigmoid(),
    'LogSigmoid': lambda nn: nn.LogSigmoid(),
    'Softsign': lambda nn: nn.Softsign(),
    'Softmin': lambda nn: nn.Softmin(dim=1),
    'Tanhshrink': lambda nn: nn.Tanhshrink(),
    'Softshrink': lambda nn: nn.Softshrink(1.0),
    'Hardshrink': lambda nn: nn.Hardshrink(lambd=1.0),
    'Threshold': lambda nn: nn.Threshold(0.1, 20.0),
    'GLU': lambda nn: nn.GLU(0),
    'PReLU': lambda nn: nn.PReLU(),
    'RReLU_eval': lambda nn: nn.RReLU(0.1, 0.3).eval(),
    'Softmax2d': lambda nn: nn.Softmax2d(),
}


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize('name', sorted(MODULES))
def test_module(name, dtype):
    make = MODULES[name]
    shape = (2, 3, 2, 2) if name == 'Softmax2d' else (4, 3)
    if name == 'PReLU' and dtype == np.float64:
        make = lambda nn: nn.PReLU().double()  # noqa: E731
    check(lambda lib, x: make(lib.nn)(x), arr(*shape, dtype=dtype, seed=5),
          double=name not in NO_DOUBLE)
    assert repr(make(ember.nn)) == repr(make(torch.nn))


REPRS = ['ReLU6()', 'ReLU6(inplace=True)', 'SELU()', 'SELU(inplace=True)', 'CELU()',
         'CELU(0.5, inplace=True)', 'CELU(alpha=2)', 'Mish()', 'Mish(inplace=True)',
         'Hardswish()', 'Hardswish(inplace=True)', 'Hardsigmoid()', 'Hardsigmoid(True)',
         'LogSigmoid()', 'Softsign()', 'Softmin()', 'Softmin(dim=1)', 'Softmin(-1)',
         'Tanhshrink()', 'Softshrink()', 'Softshrink(1)', 'Hardshrink()',
         'Hardshrink(lambd=0.25)', 'Threshold(0.1, 20)', 'Threshold(1, 0.5, inplace=True)',
         'GLU()', 'GLU(dim=0)', 'PReLU()', 'PReLU(4, 0.5)', 'RReLU()', 'RReLU(0.1, 0.3)',
         'RReLU(lower=0.2, upper=0.4, inplace=True)', 'Softmax2d()',
         'Sequential(nn.Linear(2, 4), nn.GLU(), nn.PReLU(), nn.Linear(2, 1), nn.Mish())']
ATTRS = ('inplace', 'alpha', 'dim', 'lambd', 'threshold', 'value', 'num_parameters', 'init',
         'lower', 'upper', 'min_val', 'max_val', 'training')


@pytest.mark.parametrize('expr', REPRS)
def test_module_reprs_attributes_and_defaults(expr):
    e = eval('nn.' + expr, {'nn': ember.nn})
    t = eval('nn.' + expr, {'nn': torch.nn})
    assert repr(e) == repr(t)
    for attr in ATTRS:
        assert getattr(e, attr, 'missing') == getattr(t, attr, 'missing'), attr
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert list(e.state_dict()) == list(t.state_dict())


def test_relu6_is_a_hardtanh():
    for lib in (ember, torch):
        m = lib.nn.ReLU6(inplace=True)
        assert isinstance(m, lib.nn.Hardtanh)
        assert (m.min_val, m.max_val, m.inplace) == (0.0, 6.0, True)


def test_softmax2d_dims():
    for shape in [(3, 2, 2), (2, 3, 2, 2), (1, 1, 1, 1)]:
        check(lambda lib, x: lib.nn.Softmax2d()(x), arr(*shape, seed=1), double=True)
    for shape in [(), (3,), (3, 4), (1, 2, 3, 4, 5)]:
        check(lambda lib, x: lib.nn.Softmax2d()(x), arr(*shape), match_message=True)
    check(lambda lib, x: lib.nn.Softmax2d()(x.long()), arr(2, 2, 2), match_message=True)


# -- softmin's implicit dim ------------------------------------------------------------------
@pytest.mark.parametrize('shape', [(), (4,), (2, 3), (2, 3, 2), (2, 2, 2, 2)], ids=str)
def test_softmin_implicit_dim_warns(shape):
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match='Implicit dimension choice for softmin'):
            lib.nn.functional.softmin(lib.tensor(arr(*shape)))
        with pytest.warns(UserWarning, match='Implicit dimension choice for softmin'):
            lib.nn.Softmin()(lib.tensor(arr(*shape)))
    check(lambda lib, x: lib.nn.functional.softmin(x), arr(*shape), double=True)
    check(lambda lib, x: lib.nn.Softmin()(x), arr(*shape), double=True)


def test_softmin_warning_points_at_the_caller():
    for lib in (ember, torch):
        x = lib.tensor(arr(2, 3))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            lib.nn.functional.softmin(x)
        assert [w.filename for w in caught] == [__file__], lib.__name__
    # (torch's module points into torch/nn/modules/module.py; ember's, as its Softmax, at the
    # caller)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        ember.nn.Softmin()(ember.tensor(arr(2, 3)))
    assert [w.filename for w in caught] == [__file__]


# -- in place ----------------------------------------------------------------------------------
INPLACE = {
    'relu6': (lambda F, y: F.relu6(y, inplace=True), 'ReLU6', {}),
    'selu': (lambda F, y: F.selu(y, inplace=True), 'SELU', {}),
    'celu': (lambda F, y: F.celu(y, 0.5, inplace=True), 'CELU', {'alpha': 0.5}),
    'mish': (lambda F, y: F.mish(y, inplace=True), 'Mish', {}),
    'hardswish': (lambda F, y: F.hardswish(y, inplace=True), 'Hardswish', {}),
    'hardsigmoid': (lambda F, y: F.hardsigmoid(y, inplace=True), 'Hardsigmoid', {}),
    'threshold': (lambda F, y: F.threshold(y, 0.5, -1.0, inplace=True), 'Threshold',
                  {'threshold': 0.5, 'value': -1.0}),
    'threshold_up': (lambda F, y: F.threshold(y, -0.5, 2.0, inplace=True), None, {}),
    'rrelu': (lambda F, y: F.rrelu(y, 0.1, 0.3, inplace=True), None, {}),
    'relu_': (lambda F, y: F.relu_(y), None, {}),
    'elu_': (lambda F, y: F.elu_(y), None, {}),
    'elu_alpha': (lambda F, y: F.elu_(y, 0.5), None, {}),
    'elu_scales': (lambda F, y: F.elu_(y, 0.5, 2.0, 1.5), None, {}),
    'leaky_relu_': (lambda F, y: F.leaky_relu_(y), None, {}),
    'leaky_relu_slope': (lambda F, y: F.leaky_relu_(y, 0.2), None, {}),
    'leaky_relu_zero': (lambda F, y: F.leaky_relu_(y, 0.0), None, {}),
    'hardtanh_': (lambda F, y: F.hardtanh_(y), None, {}),
    'hardtanh_range': (lambda F, y: F.hardtanh_(y, -2.0, 0.5), None, {}),
    'hardtanh_kw': (lambda F, y: F.hardtanh_(y, min_val=0.0, max_val=2.0), None, {}),
    'selu_': (lambda F, y: F.selu_(y), None, {}),
    'celu_': (lambda F, y: F.celu_(y), None, {}),
    'celu_alpha': (lambda F, y: F.celu_(y, alpha=2.0), None, {}),
    'threshold_': (lambda F, y: F.threshold_(y, 0.1, 0.0), None, {}),
    'threshold_value_above': (lambda F, y: F.threshold_(y, 0.1, 1.0), None, {}),
    'rrelu_': (lambda F, y: F.rrelu_(y), None, {}),
    'rrelu_bounds': (lambda F, y: F.rrelu_(y, 0.2, 0.4, False), None, {}),
}


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize('name', sorted(INPLACE))
def test_inplace(name, dtype):
    f, mod, kwargs = INPLACE[name]

    def fn(lib, x):
        y = x * 1
        r = f(lib.nn.functional, y)
        assert r is y
        return y
    double = name not in NO_DOUBLE
    check(fn, arr(3, 4, dtype=dtype, seed=7), double=double)
    # without autograd, the tensor itself is overwritten
    ev = ember.tensor(arr(3, 4, dtype=dtype, seed=7))
    tv = torch.tensor(arr(3, 4, dtype=dtype, seed=7))
    assert f(ember.nn.functional, ev) is ev
    assert f(torch.nn.functional, tv) is tv
    np.testing.assert_allclose(ev.numpy(), tv.numpy(), rtol=1e-6)
    assert ev._version == tv._version
    # on a view of a non-leaf: the base's history goes through CopySlices
    check(lambda lib, x: (lambda b: (f(lib.nn.functional, b[1:]), b)[1])(x * 1),
          arr(3, 4, dtype=dtype, seed=8), double=double)
    # on a leaf that requires grad: torch's refusal
    check(lambda lib, x: f(lib.nn.functional, x), arr(3, 4, dtype=dtype), match_message=True)
    if mod is not None:
        check(lambda lib, x: getattr(lib.nn, mod)(inplace=True, **kwargs)(x * 1),
              arr(2, 3, dtype=dtype, seed=2), double=double)
        assert repr(getattr(ember.nn, mod)(inplace=True, **kwargs)) == \
            repr(getattr(torch.nn, mod)(inplace=True, **kwargs))


NEGATIVE_SLOPE_INPLACE = [
    lambda F, y: F.elu_(y, -0.5),
    lambda F, y: F.elu(y, -0.5, inplace=True),
    lambda F, y: F.leaky_relu_(y, -0.5),
    lambda F, y: F.leaky_relu(y, -0.1, True),
    lambda F, y: F.celu_(y, -0.5),
    lambda F, y: F.celu(y, -2.0, inplace=True),
    lambda F, y: F.rrelu_(y, -0.5, -0.1),
    lambda F, y: F.rrelu(y, -0.5, 0.1, inplace=True),
]


@pytest.mark.parametrize('i', range(len(NEGATIVE_SLOPE_INPLACE)))
def test_inplace_with_a_negative_slope_refuses_backward(i):
    f = NEGATIVE_SLOPE_INPLACE[i]
    x = arr(2, 3, seed=3)
    got = []
    for lib in (ember, torch):
        xi = lib.tensor(x, requires_grad=True)
        y = f(lib.nn.functional, xi * 1)  # the forward is fine...
        with pytest.raises(RuntimeError) as info:  # ...the backward is refused
            y.sum().backward()
        got.append(str(info.value).split('\n')[0])
        # out of place (or without autograd) the same slope is fine
        with lib.no_grad():
            f(lib.nn.functional, lib.tensor(x))
    assert got[0] == got[1]


def test_rrelu_training_inplace_with_negative_slopes_differentiates():
    x = arr(3, 4, seed=1)
    for lib in (ember, torch):
        xi = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.rrelu_(xi * 1, -0.5, -0.1, training=True)
        y.sum().backward()
        neg = x <= 0
        slopes = y.detach().numpy()[neg] / x[neg]
        np.testing.assert_allclose(xi.grad.numpy()[neg], slopes, rtol=1e-6)
        assert np.all(xi.grad.numpy()[~neg] == 1)


def test_threshold_inplace_gradient():
    # replaced elements get no gradient, in place too (even where the value is above the
    # threshold)
    x = np.array([-2., -0.5, 0.0, 0.5, 2.0])
    check(lambda lib, x: lib.nn.functional.threshold_(x * 1, 0.0, 1.0), x, double=True)
    check(lambda lib, x: lib.nn.functional.threshold(x * 1, 0.0, 1.0, inplace=True) * 1, x)
    for lib in (ember, torch):
        xi = lib.tensor(x, requires_grad=True)
        lib.nn.functional.threshold_(xi * 1, 0.0, 1.0).sum().backward()
        assert xi.grad.tolist() == [0.0, 0.0, 0.0, 1.0, 1.0]


def test_inplace_activations_chained():
    def fn(lib, x):
        F = lib.nn.functional
        y = F.selu_(x * 1)
        z = F.hardtanh_(y * 2, -1.0, 0.5)
        return F.threshold_(z + 0.1, 0.2, -3.0), F.celu_(y - 1.0, 0.7)
    check(fn, arr(3, 4, seed=4), double=True)


def test_inplace_without_grad_mode_and_on_integers():
    for lib in (ember, torch):
        x = lib.tensor(arr(3, 4, seed=5), requires_grad=True)
        with lib.no_grad():
            y = x * 1
            lib.nn.functional.celu_(y)
        assert y.grad_fn is None and not y.requires_grad
    ints = np.array([-3, -1, 0, 2, 7])
    for expr in ('F.relu_(x)', 'F.hardtanh_(x)', 'F.hardtanh_(x, 0, 6)', 'F.relu6(x, True)',
                 'F.threshold_(x, 1, 9)', 'F.threshold(x, 1.5, -2.7, inplace=True)'):
        e = ember.tensor(ints)
        t = torch.tensor(ints)
        er = eval(expr, {'F': ember.nn.functional, 'x': e})
        tr = eval(expr, {'F': torch.nn.functional, 'x': t})
        assert er is e and tr is t
        assert e.tolist() == t.tolist(), expr
        assert e.dtype == ember.int64


def test_f_inplace_functions_signatures():
    x = arr(2, 3, seed=6)
    for expr in ['F.elu_(x, alpha=0.3)', 'F.leaky_relu_(x, negative_slope=0.3)',
                 'F.hardtanh_(x, 1.0, -1.0)', 'F.hardtanh_(x, 0.5, 0.5)',
                 'F.celu_(x, alpha=3.0)', 'F.threshold_(x, threshold=0.0, value=2.0)',
                 'F.rrelu_(x, lower=0.1, upper=0.2)', 'F.rrelu_(x, 0.1, 0.2, False, None)',
                 'F.elu_(x, 1.0, scale=2.0, input_scale=0.5)']:
        check(lambda lib, x: eval(expr, {'F': lib.nn.functional, 'x': x * 1}), x, double=True)


# -- rrelu in training -----------------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize('lower,upper', [(1 / 8, 1 / 3), (0.0, 1.0), (0.5, 0.5), (-0.3, 0.2),
                                         (-0.5, -0.5)])
@pytest.mark.parametrize('how', ['functional', 'inplace', 'rrelu_', 'module', 'module_inplace'])
def test_rrelu_training_slopes(dtype, lower, upper, how):
    x = arr(40, 50, dtype=dtype, seed=11)
    x[0, :3] = 0.0
    xi = ember.tensor(x, requires_grad=True)
    F = ember.nn.functional
    y0 = xi * 1
    if how == 'functional':
        y = F.rrelu(xi, lower, upper, training=True)
    elif how == 'inplace':
        y = F.rrelu(y0, lower, upper, True, True)
    elif how == 'rrelu_':
        y = F.rrelu_(y0, lower, upper, training=True)
    else:
        m = ember.nn.RReLU(lower, upper, inplace=how == 'module_inplace')
        assert m.training
        y = m(y0 if how == 'module_inplace' else xi)
    name = 'RreluWithNoiseBackward0' if how in ('functional', 'module') else \
        'RreluWithNoiseBackward1'
    assert type(y.grad_fn).__name__ == name
    assert y.dtype == xi.dtype and y.shape == xi.shape
    if how in ('inplace', 'rrelu_', 'module_inplace'):
        assert y is y0
    yv = y.detach().numpy()
    pos = x > 0
    np.testing.assert_array_equal(yv[pos], x[pos])  # positive: unchanged
    neg = x < 0
    slopes = yv[neg] / x[neg]
    eps = 1e-6 if dtype == np.float32 else 1e-12
    assert np.all(slopes >= lower - eps) and np.all(slopes <= upper + eps)
    assert np.all(yv[x == 0] == 0)
    if upper - lower > 0.1:  # really random: many distinct slopes, spread over the range
        assert len(np.unique(slopes)) > 0.9 * slopes.size
        assert slopes.min() < lower + 0.1 * (upper - lower)
        assert slopes.max() > upper - 0.1 * (upper - lower)
    g = np.linspace(-2, 2, x.size).reshape(x.shape).astype(dtype)
    y.backward(ember.tensor(g))
    grad = xi.grad.numpy()
    np.testing.assert_allclose(grad[pos], g[pos])  # gradient 1 where positive
    np.testing.assert_allclose(grad[neg], g[neg] * slopes, rtol=1e-5)  # the drawn slope
    # the drawn slopes are constants: the second derivative is zero
    xi2 = ember.tensor(x, requires_grad=True)
    y2 = F.rrelu(xi2, lower, upper, training=True)
    (gx,) = ember.autograd.grad(y2.sum(), xi2, create_graph=True)
    assert not gx.requires_grad or not np.any(
        ember.autograd.grad(gx.sum(), xi2, allow_unused=True)[0] or 0)


def test_rrelu_training_follows_embers_generator():
    x = ember.tensor(arr(5, 6, seed=2))
    ember.manual_seed(123)
    a = ember.nn.functional.rrelu(x, training=True)
    ember.manual_seed(123)
    b = ember.nn.functional.rrelu(x, training=True)
    c = ember.nn.functional.rrelu(x, training=True)
    assert a.tolist() == b.tolist()
    assert a.tolist() != c.tolist()
    gen = ember.Generator().manual_seed(7)
    d = ember.nn.functional.rrelu_(x.clone(), training=True, generator=gen)
    gen.manual_seed(7)
    e = ember.nn.functional.rrelu_(x.clone(), training=True, generator=gen)
    assert d.tolist() == e.tolist()


def test_rrelu_module_eval_matches_torch_and_train_does_not_repeat():
    x = arr(4, 5, seed=3)
    check(lambda lib, x: lib.nn.RReLU().eval()(x), x, double=True)
    check(lambda lib, x: lib.nn.RReLU(0.2, 0.6, inplace=True).eval()(x * 1), x, double=True)
    check(lambda lib, x: lib.nn.functional.rrelu(x, training=False, inplace=False), x,
          double=True)
    m = ember.nn.RReLU()
    xi = ember.tensor(x)
    assert m(xi).tolist() != m(xi).tolist()
    m.eval()
    assert m(xi).tolist() == m(xi).tolist()


def test_rrelu_errors():
    cases = [lambda lib, x: lib.nn.functional.rrelu(x, 0.5, 0.1),
             lambda lib, x: lib.nn.functional.rrelu(x, 0.5, 0.1, training=True),
             lambda lib, x: lib.nn.functional.rrelu(x * 1, 0.5, 0.1, inplace=True),
             lambda lib, x: lib.nn.functional.rrelu_(x * 1, 0.5, 0.1),
             lambda lib, x: lib.nn.RReLU(0.5, 0.1)(x),
             lambda lib, x: lib.nn.functional.rrelu(x.long()),
             lambda lib, x: lib.nn.functional.rrelu(x.long(), training=True),
             lambda lib, x: lib.nn.functional.rrelu(x.half(), training=True),
             lambda lib, x: lib.nn.functional.rrelu(x.bool(), training=True),
             lambda lib, x: lib.nn.functional.rrelu_(x.int()),
             lambda lib, x: lib.nn.functional.rrelu_(x.int(), training=True)]
    for fn in cases:
        check(fn, arr(2, 3), match_message=True)
    # the module is built without complaint (torch checks the bounds only when run)
    assert repr(ember.nn.RReLU(0.5, 0.1)) == repr(torch.nn.RReLU(0.5, 0.1))


# -- dtypes ------------------------------------------------------------------------------------
INT_DTYPES = ['long', 'int', 'short', 'char', 'byte', 'bool']
ON_INTEGERS = {
    'relu6': lambda F, x: F.relu6(x),
    'relu6_ip': lambda F, x: F.relu6(x, inplace=True),
    'selu': lambda F, x: F.selu(x),
    'selu_': lambda F, x: F.selu_(x),
    'celu': lambda F, x: F.celu(x),
    'celu_': lambda F, x: F.celu_(x),
    'mish': lambda F, x: F.mish(x),
    'mish_ip': lambda F, x: F.mish(x, True),
    'hardswish': lambda F, x: F.hardswish(x),
    'hardsigmoid': lambda F, x: F.hardsigmoid(x, inplace=True),
    'logsigmoid': lambda F, x: F.logsigmoid(x),
    'softsign': lambda F, x: F.softsign(x),
    'softmin': lambda F, x: F.softmin(x, 0),
    'tanhshrink': lambda F, x: F.tanhshrink(x),
    'softshrink': lambda F, x: F.softshrink(x),
    'softshrink_neg': lambda F, x: F.softshrink(x, -1),
    'hardshrink': lambda F, x: F.hardshrink(x),
    'threshold': lambda F, x: F.threshold(x, 1, 20),
    'threshold_float_args': lambda F, x: F.threshold(x, 0.5, 2.5),
    'threshold_trunc': lambda F, x: F.threshold(x, -1.5, -2.7),
    'threshold_': lambda F, x: F.threshold_(x, 1, 2),
    'glu': lambda F, x: F.glu(x),
    'prelu': lambda F, x: F.prelu(x, x[:1]),
    'rrelu': lambda F, x: F.rrelu(x),
    'relu_': lambda F, x: F.relu_(x),
    'elu_': lambda F, x: F.elu_(x),
    'leaky_relu_': lambda F, x: F.leaky_relu_(x),
    'hardtanh_': lambda F, x: F.hardtanh_(x),
    'hardtanh_pos': lambda F, x: F.hardtanh_(x, 0, 2),
    'hardtanh_frac': lambda F, x: F.hardtanh(x, -1.5, 2.7),
    'hardtanh': lambda F, x: F.hardtanh(x),
}


@pytest.mark.parametrize('dt', INT_DTYPES)
@pytest.mark.parametrize('name', sorted(ON_INTEGERS))
def test_integer_and_bool_inputs(name, dt):
    f = ON_INTEGERS[name]
    check(lambda lib, x: f(lib.nn.functional, getattr(x, dt)()),
          np.array([-2, -1, 0, 1, 3, 4]), match_message=True)


def test_threshold_scalars_are_converted_as_torch_converts_them():
    cases = [(v, t) for v in (1e300, 1e5, -200, -200.0, 200.5, float('inf'), float('nan'), True,
                              2 ** 63, 70000, -1)
             for t in ('value', 'threshold')]
    for dt in ('char', 'short', 'int', 'long', 'byte', 'half', 'float', 'double'):
        for v, which in cases:
            args = (v, 5) if which == 'threshold' else (1, v)
            check(lambda lib, x: lib.nn.functional.threshold(getattr(x, dt)(), *args),
                  np.array([0, 1, 2, 3]), match_message=True, grad=False)
    check(lambda lib, x: lib.nn.functional.threshold(x, 1 + 1e-9, 2.0),
          np.array([1.0, 2.0], np.float32))


def test_shrink_lambda_checks():
    for dt in ('half', 'float', 'double'):
        for lambd in (-0.5, -1, 1e300, 70000, float('inf'), float('nan'), -1e-8, -1.23456789,
                      -1234567.89, 0):
            for name in ('softshrink', 'hardshrink'):
                check(lambda lib, x: getattr(lib.nn.functional, name)(getattr(x, dt)(), lambd),
                      arr(4), match_message=True, grad=False)


def test_activation_errors():
    cases = [(lambda lib, x: lib.nn.functional.celu(x, 0.0), arr(3)),
             (lambda lib, x: lib.nn.functional.celu_(x * 1, 0), arr(3)),
             (lambda lib, x: lib.nn.CELU(0.0)(x), arr(3)),
             (lambda lib, x: lib.nn.functional.hardtanh(x, 1.0, -1.0, inplace=True), arr(3)),
             (lambda lib, x: lib.nn.functional.relu6(x.bool()), arr(3)),
             (lambda lib, x: lib.nn.functional.hardtanh(x.byte(), -1.0, 1.0), arr(3)),
             (lambda lib, x: lib.nn.functional.hardtanh_(x.byte(), 0.0, -1.0), arr(3)),
             (lambda lib, x: lib.nn.functional.softmin(x, 2), arr(3)),
             (lambda lib, x: lib.nn.functional.softmin(x.bool(), 0), arr(3)),
             (lambda lib, x: lib.nn.functional.threshold(x.bool(), 0, 1), arr(3))]
    for fn, a in cases:
        check(fn, a, match_message=True)


# -- forward-mode AD ---------------------------------------------------------------------------
FORWARD_AD = {
    'relu6': lambda F, x: F.relu6(x * 3), 'selu': lambda F, x: F.selu(x),
    'celu': lambda F, x: F.celu(x, 0.7), 'mish': lambda F, x: F.mish(x),
    'hardswish': lambda F, x: F.hardswish(x * 3), 'hardsigmoid': lambda F, x: F.hardsigmoid(x * 3),
    'hardsigmoid_': lambda F, x: F.hardsigmoid(x * 3, True),
    'logsigmoid': lambda F, x: F.logsigmoid(x), 'softsign': lambda F, x: F.softsign(x),
    'softmin': lambda F, x: F.softmin(x, 1), 'tanhshrink': lambda F, x: F.tanhshrink(x),
    'softshrink': lambda F, x: F.softshrink(x), 'hardshrink': lambda F, x: F.hardshrink(x),
    'threshold': lambda F, x: F.threshold(x, 0.1, 2.0), 'glu': lambda F, x: F.glu(x, 0),
    'prelu': lambda F, x: F.prelu(x, x.new_tensor([0.2, 0.3, 0.4])),
    'prelu_dual_weight': lambda F, x: F.prelu(x, x[0] * 1),
    'rrelu': lambda F, x: F.rrelu(x), 'elu_': lambda F, x: F.elu_(x * 1),
    'celu_': lambda F, x: F.celu_(x * 1), 'selu_': lambda F, x: F.selu_(x * 1),
    'threshold_': lambda F, x: F.threshold_(x * 1, 0.1, 2.0),
    'leaky_relu_': lambda F, x: F.leaky_relu_(x * 1, 0.2),
    'rrelu_': lambda F, x: F.rrelu_(x * 1),  # (torch: not implemented)
    'rrelu_inplace': lambda F, x: F.rrelu(x * 1, inplace=True),
}


@pytest.mark.parametrize('name', sorted(FORWARD_AD))
def test_forward_ad(name):
    f = FORWARD_AD[name]
    p, t = _arr(2, 3, seed=1), _arr(2, 3, seed=2)
    got = []
    for lib in (ember, torch):
        fw = lib.autograd.forward_ad
        try:
            with fw.dual_level():
                out = f(lib.nn.functional, fw.make_dual(lib.tensor(p), lib.tensor(t)))
                primal, tangent = fw.unpack_dual(out)
                got.append((primal.detach().numpy().copy(), tangent.detach().numpy().copy()))
        except Exception as e:  # noqa: BLE001 - compared below
            got.append((type(e), str(e)))
    (ep, et), (tp, tt) = got
    if isinstance(tp, type):
        assert ep is tp and et == tt
    else:
        np.testing.assert_allclose(ep, tp, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(et, tt, rtol=1e-8, atol=1e-10)


# -- the protocol ------------------------------------------------------------------------------
NEW = ['relu6', 'selu', 'celu', 'mish', 'hardswish', 'hardsigmoid', 'logsigmoid', 'softsign',
       'softmin', 'tanhshrink', 'softshrink', 'hardshrink', 'threshold', 'glu', 'prelu', 'rrelu',
       'relu_', 'elu_', 'leaky_relu_', 'hardtanh_', 'selu_', 'celu_', 'threshold_', 'rrelu_']


def test_new_functions_are_listed_and_overridable():
    from ember.overrides import get_overridable_functions, resolve_name
    F = ember.nn.functional
    listed = get_overridable_functions()[F]
    for name in NEW:
        assert name in F.__all__ and hasattr(torch.nn.functional, name), name
        f = getattr(F, name)
        assert f in listed, name
        assert resolve_name(f) == 'ember.nn.functional.' + name

    class Like:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return resolve_name(func)
    assert F.glu(Like()) == 'ember.nn.functional.glu'
    assert F.prelu(ember.zeros(2), Like()) == 'ember.nn.functional.prelu'
    assert F.threshold_(Like(), 0.0, 1.0) == 'ember.nn.functional.threshold_'
    for name in ('ReLU6', 'SELU', 'CELU', 'Mish', 'Hardswish', 'Hardsigmoid', 'LogSigmoid',
                 'Softsign', 'Softmin', 'Tanhshrink', 'Softshrink', 'Hardshrink', 'Threshold',
                 'GLU', 'PReLU', 'RReLU', 'Softmax2d'):
        assert name in ember.nn.modules.__all__, name
        assert issubclass(getattr(ember.nn, name), ember.nn.Module)
