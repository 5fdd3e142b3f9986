"""torch's top-level names that live elsewhere in ember or nowhere else: the math constants,
the dtype questions (``result_type``, ``can_cast``, ``typename``, ``is_storage``), ``fill``,
the in-place functions torch has besides the methods (``torch.acosh_(t)``), and the
nn.functional ops torch also has at the top (``torch.pixel_shuffle``); each compared with
torch, with how torch's ``overrides`` listings place them."""
import math

import numpy as np
import pytest

from tests.dropin.compare import same, plain, torch, ember
from tests.oracle.oracle import check, arr


@pytest.mark.parametrize('name', ['pi', 'e', 'inf', 'nan', 'newaxis', 'has_lapack',
                                  'has_spectral'])
def test_constants(name):
    a, b = getattr(ember, name), getattr(torch, name)
    assert (a == b) or (math.isnan(a) and math.isnan(b))


def test_newaxis_indexes():
    check(lambda T, a: a[:, T.newaxis, None], arr(2, 3))


@pytest.mark.parametrize('call', [
    lambda T: T.result_type(T.ones(2, dtype=T.int32), T.tensor(1.5, dtype=T.float64)),
    lambda T: T.result_type(T.ones(2, dtype=T.int32), T.ones(2, dtype=T.int64)),
    lambda T: T.result_type(T.ones(2, dtype=T.int32), 2.5),
    lambda T: T.result_type(T.ones(2, dtype=T.float16), 2.5),
    lambda T: T.result_type(2, T.ones(2, dtype=T.int32)),
    lambda T: T.result_type(1j, T.ones(2, dtype=T.int32)),
    lambda T: T.result_type(1j, T.ones(2, dtype=T.float64)),
    lambda T: T.result_type(1, 2.0),
    lambda T: T.result_type(True, False),
    lambda T: T.result_type(True, 2),
    lambda T: T.result_type(T.tensor(True), T.tensor(3)),
    lambda T: T.result_type(T.ones(2, dtype=T.bfloat16), T.ones(2, dtype=T.float16)),
])
def test_result_type(call):
    same(lambda lib: str(call(lib)).replace('ember.', 'torch.'))


@pytest.mark.parametrize('call', [
    lambda T: T.result_type(T.ones(2), 'a'), lambda T: T.result_type(T.ones(2), None),
    lambda T: T.result_type(T.ones(2)), lambda T: T.result_type('a', 1),
])
def test_result_type_refuses(call):
    check(call, match_message=True)


@pytest.mark.parametrize('pair', [('float32', 'int32'), ('int32', 'float32'), ('bool', 'uint8'),
                                  ('uint8', 'bool'), ('complex64', 'float64'),
                                  ('float64', 'complex64'), ('int64', 'int8')])
def test_can_cast(pair):
    same(lambda lib: lib.can_cast(getattr(lib, pair[0]), getattr(lib, pair[1])))


def test_can_cast_wants_dtypes():
    same(lambda lib: lib.can_cast(1, lib.float32))


@pytest.mark.parametrize('make', [
    lambda lib: lib.ones(2, dtype=lib.int32), lambda lib: lib.ones(2).double(),
    lambda lib: lib.nn.Parameter(lib.ones(1)), lambda lib: 1, lambda lib: 'x',
    lambda lib: [1], lambda lib: lib.ones(2, dtype=lib.bool),
])
def test_typename(make):
    same(lambda lib: lib.typename(make(lib)))


def test_typename_of_a_module_names_its_class():
    assert ember.typename(ember.nn.Linear(1, 1)) == 'ember.nn.modules.linear.Linear'


def test_is_storage():
    same(lambda lib: [lib.is_storage(lib.ones(2).untyped_storage()),
                      lib.is_storage(lib.ones(2)), lib.is_storage(None)])


# -- fill and the in-place functions -------------------------------------------------------------
def test_fill():
    check(lambda T, a: T.fill(a, 2.5), arr(2, 3))
    check(lambda T, a, v: T.fill(a * 1, v), arr(2, 3), arr())
    check(lambda T, a: T.fill(a.long(), 2.7), arr(3), grad=False)
    check(lambda T, a: T.fill(a.long(), T.tensor(2.7)), arr(3), grad=False)
    check(lambda T, a: T.fill(a > 0, 2.7), arr(3), grad=False)
    check(lambda T, a: T.fill(a, T.ones(2)), arr(2, 3), match_message=True)


METHOD_FUNCTIONS = [
    ('acosh_', lambda T, x: T.acosh_(x.abs() + 1)), ('asinh_', lambda T, x: T.asinh_(x)),
    ('atanh_', lambda T, x: T.atanh_(x * 0.1)), ('arccos_', lambda T, x: T.arccos_(x * 0.1)),
    ('arccosh_', lambda T, x: T.arccosh_(x.abs() + 1)),
    ('arcsin_', lambda T, x: T.arcsin_(x * 0.1)), ('arcsinh_', lambda T, x: T.arcsinh_(x)),
    ('arctan_', lambda T, x: T.arctan_(x)), ('arctanh_', lambda T, x: T.arctanh_(x * 0.1)),
    ('clamp_max_', lambda T, x: T.clamp_max_(x, 0.2)),
    ('clamp_min_', lambda T, x: T.clamp_min_(x, 0.2)),
    ('fix_', lambda T, x: T.fix_(x * 3)), ('negative_', lambda T, x: T.negative_(x)),
    ('round_', lambda T, x: T.round_(x * 3)), ('square_', lambda T, x: T.square_(x)),
    ('nan_to_num_', lambda T, x: T.nan_to_num_(x / 0)), ('zero_', lambda T, x: T.zero_(x)),
    ('fill_', lambda T, x: T.fill_(x, 3.0)),
    ('addmv_', lambda T, x: T.addmv_(x.sum(0), T.ones(3, 2, dtype=x.dtype), x[:, 0])),
    ('index_put_', lambda T, x: T.index_put_(x, (T.tensor([0]),), T.tensor(5.0,
                                                                             dtype=x.dtype))),
    ('as_strided_', lambda T, x: T.as_strided_(x, (2,), (1,))),
    ('resize_as_', lambda T, x: T.resize_as_(x.detach().clone(), T.ones(3))),
]


@pytest.mark.parametrize('name,call', METHOD_FUNCTIONS, ids=[n for n, _ in METHOD_FUNCTIONS])
def test_method_functions(name, call):
    # (on a non-leaf, so autograd records the in-place op: values, grad_fn and gradients)
    check(lambda T, a: call(T, a * 1), arr(2, 3, seed=3))
    same(lambda lib: (lambda x: call(lib, x) is x)(lib.ones(2, 3)))


def test_detach_function():
    same(lambda lib: (lambda y: (lib.detach_(y) is y, y.requires_grad, y.grad_fn))(
        lib.ones(2, requires_grad=True) * 2))


NN_INPLACE = [
    ('celu_', lambda T, x: T.celu_(x, 0.5)), ('selu_', lambda T, x: T.selu_(x)),
    ('threshold_', lambda T, x: T.threshold_(x, 0.1, -2.0)),
    ('rrelu_', lambda T, x: T.rrelu_(x, 0.1, 0.3, False)),
    ('dropout_', lambda T, x: T.dropout_(x, 0.5, False)),
    ('alpha_dropout_', lambda T, x: T.alpha_dropout_(x, 0.5, False)),
    ('feature_dropout_', lambda T, x: T.feature_dropout_(x, 0.5, False)),
    ('embedding_renorm_', lambda T, x: T.embedding_renorm_(x, T.tensor([0, 1, 1]), 1.0, 2.0)),
]


@pytest.mark.parametrize('name,call', NN_INPLACE, ids=[n for n, _ in NN_INPLACE])
def test_nn_inplace_functions(name, call):
    same(lambda lib: (lambda x: (call(lib, x) is x, plain(x)))(
        lib.tensor(np.linspace(-2, 2, 12).reshape(3, 4))))


def test_dropout_functions_refuse_a_bad_p():
    for name in ('dropout_', 'alpha_dropout_', 'feature_dropout_'):
        same(lambda lib: getattr(lib, name)(lib.ones(2, 3), 1.5, True))


@pytest.mark.parametrize('call', [
    lambda T, x: T.pixel_shuffle(x.reshape(1, 4, 1, 3), 2),
    lambda T, x: T.pixel_unshuffle(x.reshape(1, 1, 2, 6), 2),
    lambda T, x: T.channel_shuffle(x.reshape(1, 4, 3), 2),
    lambda T, x: T.hardshrink(x, 0.3), lambda T, x: T.hardshrink(x),
    lambda T, x: T.avg_pool1d(x.reshape(1, 2, 6), 2),
    lambda T, x: T.avg_pool1d(x.reshape(1, 2, 6), 3, 2, 1, True, False),
    lambda T, x: T.adaptive_avg_pool1d(x.reshape(1, 2, 6), 4),
    lambda T, x: T.bilinear(x[:2], x[1:3], x.reshape(3, 4, 1).expand(3, 4, 4) * 1,
                            x[0, :3] * 1),
])
def test_functional_ops_at_the_top(call):
    check(call, arr(3, 4, seed=1))


NEW_NAMES = ([n for n, _ in METHOD_FUNCTIONS] + ['detach_'] + [n for n, _ in NN_INPLACE] +
             ['pixel_shuffle', 'pixel_unshuffle', 'channel_shuffle', 'hardshrink', 'avg_pool1d',
              'adaptive_avg_pool1d', 'bilinear', 'fill', 'result_type', 'can_cast', 'typename',
              'is_storage', 'hann_window', 'hamming_window', 'blackman_window',
              'bartlett_window', 'kaiser_window'])


@pytest.mark.parametrize('name', NEW_NAMES)
def test_listed_as_torch_lists_them(name):
    def where(lib):
        listed = lib.overrides.get_overridable_functions()[lib]
        return (getattr(lib, name) in listed,
                getattr(lib, name) in lib.overrides.get_ignored_functions())
    assert where(ember) == where(torch)


def test_threshold_writes_an_expanded_tensor():
    # (torch's threshold_ kernel skips the overlap check other in-place ops make)
    same(lambda lib: plain(lib.threshold_(lib.tensor([[1., -2., 3.]]).expand(2, 3), 0., -5.)))
    same(lambda lib: plain(lib.nn.functional.threshold(lib.tensor([[1., -2.]]).expand(3, 2),
                                                       0., 7., inplace=True)))
    # (the others refuse it; ember's message names the op where torch's does not)
    check(lambda T: T.selu_(T.tensor([[1., -2.]]).expand(3, 2)))
