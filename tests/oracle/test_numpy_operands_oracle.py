"""NumPy values where programs put them: a NumPy scalar on either side of an operator
(``np.sqrt(d) * x`` is a tensor, weakly typed like a Python number), a NumPy array on the
right of one (NumPy computes and wraps a tensor) or on the left (refused, as torch), ``t ==
None`` (False: the operator answers NotImplemented to its parser's TypeError), and NumPy ints
as sizes, dims and counts (``x.view(-1, np.prod(shape))``). Compared with torch."""
import operator
import warnings

import numpy as np
import pytest

import ember
from .oracle import torch

SCALARS = [np.float32(2.5), np.float64(-1.5), np.int64(3), np.int32(2), np.float16(0.5)]
OPS = ['add', 'sub', 'mul', 'truediv', 'pow', 'floordiv', 'mod', 'lt', 'eq', 'ge', 'matmul']


def outcome(fn, lib):
    """(kind, payload) of ``fn(lib)``: a tensor as type, dtype, values and grad_fn name, a
    plain value as itself, an exception as its class and message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)  # (torch's __array_wrap__)
            r = fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception is what we compare
        return ('raised', type(e).__name__, str(e))
    if isinstance(r, lib.Tensor):
        return ('tensor', str(r.dtype).split('.')[-1], r.detach().tolist(),
                type(r.grad_fn).__name__ if r.grad_fn is not None else None)
    if isinstance(r, lib.Size):
        return ('size', tuple(r), repr(r))
    return ('value', type(r).__name__, r)


def same(fn):
    e, t = outcome(fn, ember), outcome(fn, torch)
    assert e == t


@pytest.mark.parametrize('op', OPS)
@pytest.mark.parametrize('scalar', SCALARS, ids=lambda s: type(s).__name__)
def test_numpy_scalar_on_the_left(op, scalar):
    grad = op in ('add', 'sub', 'mul', 'truediv', 'pow')
    same(lambda lib: getattr(operator, op)(scalar, lib.tensor([1.0, 2.0, 4.0],
                                                                requires_grad=grad)))


@pytest.mark.parametrize('op', OPS)
@pytest.mark.parametrize('scalar', SCALARS, ids=lambda s: type(s).__name__)
def test_numpy_scalar_on_the_right(op, scalar):
    same(lambda lib: getattr(operator, op)(lib.tensor([1.0, 2.0, 4.0]), scalar))


@pytest.mark.parametrize('op', ['add', 'mul', 'sub', 'lt', 'eq'])
def test_numpy_array_operands(op):
    a = np.array([1.0, 2.0], dtype=np.float32)
    same(lambda lib: getattr(operator, op)(lib.tensor([3.0, 4.0]), a))
    same(lambda lib: getattr(operator, op)(a, lib.tensor([3.0, 4.0])))


@pytest.mark.parametrize('expr', [
    lambda t: t == None, lambda t: t != None, lambda t: t == 'a', lambda t: t + 'a',  # noqa: E711
    lambda t: t < None, lambda t: t @ 2, lambda t: [1] + t, lambda t: t * (1, 2),
    lambda t: t.__iadd__('a'), lambda t: t.__eq__(None), lambda t: t % None,
    lambda t: t | 'a', lambda t: t.add('a')])
def test_operators_answer_not_implemented_to_a_type_error(expr):
    same(lambda lib: expr(lib.ones(2)))


@pytest.mark.parametrize('fn', [
    lambda lib, i: lib.arange(24.0).view(i(2), -1),
    lambda lib, i: lib.arange(24.0).view((i(2), i(3), 4)),
    lambda lib, i: lib.arange(24.0).reshape(i(6), -1),
    lambda lib, i: lib.arange(24.0).reshape([i(6), 4]),
    lambda lib, i: lib.arange(6.0).view(2, 3).permute(i(1), 0),
    lambda lib, i: lib.zeros(i(2), i(3)),
    lambda lib, i: lib.ones((i(2), 3)),
    lambda lib, i: lib.full((i(2),), 1.5),
    lambda lib, i: lib.ones(1, 3).expand(i(2), -1),
    lambda lib, i: lib.ones(2).repeat(i(2)),
    lambda lib, i: lib.ones(2).new_zeros(i(2), 1),
    lambda lib, i: list(lib.arange(6.0).chunk(i(2))),
    lambda lib, i: list(lib.arange(6.0).tensor_split(i(3))),
    lambda lib, i: lib.arange(i(4)),
    lambda lib, i: lib.arange(i(1), i(7), i(2)),
    lambda lib, i: lib.Size([i(2), 3]),
    lambda lib, i: lib.arange(6.0).split(i(2)),
], ids=lambda f: '')
@pytest.mark.parametrize('kind', [np.int64, np.int32])
def test_numpy_ints_as_sizes(fn, kind):
    def call(lib):
        r = fn(lib, kind)
        return r if not isinstance(r, list) else lib.stack([x.sum() for x in r])
    same(call)


@pytest.mark.parametrize('fn', [
    lambda lib, i: lib.nn.MaxPool2d(i(2))(lib.arange(32.0).view(1, 2, 4, 4)),
    lambda lib, i: lib.nn.MaxPool2d(i(2), stride=i(1), padding=i(1))(lib.arange(32.0).view(1, 2, 4, 4)),
    lambda lib, i: lib.nn.AvgPool2d(i(2))(lib.arange(32.0).view(1, 2, 4, 4)),
    lambda lib, i: lib.nn.AvgPool1d(i(2), stride=i(2))(lib.arange(8.0).view(1, 2, 4)),
    lambda lib, i: lib.nn.MaxPool3d(i(2))(lib.arange(32.0).view(1, 1, 2, 4, 4)),
    lambda lib, i: lib.nn.AdaptiveAvgPool2d(i(2))(lib.arange(32.0).view(1, 2, 4, 4)),
    lambda lib, i: lib.nn.AdaptiveAvgPool1d(i(2))(lib.arange(8.0).view(1, 2, 4)),
    lambda lib, i: lib.nn.functional.adaptive_max_pool2d(lib.arange(32.0).view(1, 2, 4, 4), i(1)),
    lambda lib, i: lib.nn.LayerNorm(i(4))(lib.arange(8.0).view(2, 4)),
    lambda lib, i: lib.nn.RMSNorm(i(4))(lib.arange(8.0).view(2, 4)),
    lambda lib, i: lib.multinomial(lib.ones(3), i(3)).sort().values,
], ids=lambda f: '')
def test_numpy_ints_in_modules(fn):
    same(lambda lib: fn(lib, np.int64))


def test_numpy_conversion_of_a_tensor_that_requires_grad():
    same(lambda lib: np.asarray(lib.ones(2, requires_grad=True)))
    same(lambda lib: np.sqrt(lib.ones(2, requires_grad=True)))
    same(lambda lib: np.asarray(lib.ones(2, requires_grad=True).detach()).tolist())

    def under_no_grad(lib):
        with lib.no_grad():
            return np.asarray(lib.ones(2, requires_grad=True)).tolist()
    same(under_no_grad)
