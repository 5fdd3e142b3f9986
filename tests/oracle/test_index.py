"""Indexing against torch: getitem/setitem in many forms, index/gather/scatter/masked ops,
first and second order gradients, views sharing memory, and error types/messages."""
import warnings

import numpy as np
import pytest

from .oracle import check, arr, BFLOAT16
import ember

X = arr(3, 4, seed=1)
X3 = arr(2, 3, 4, seed=2)


def _ix(T, spec):
    """Builds an index from a spec where ('t', data[, dtype]) stands for a tensor."""
    if isinstance(spec, tuple) and spec and spec[0] == 't':
        return T.tensor(spec[1], dtype=getattr(T, spec[2]) if len(spec) > 2 else None)
    if type(spec) is tuple:
        return tuple(_ix(T, s) for s in spec)
    return spec


E = Ellipsis
GETITEM = [
    0, -1, 2, (0, 1), (-1, -4), slice(None), slice(1, 3), slice(None, None, 2),
    slice(-10, 2), slice(5, None), slice(2, 1), (slice(None), slice(1, None, 2)), None,
    (None, 0, None), E, (), (E, 1), (1, E), (E, None), (0, E, None), [0, 2], [-1, 0, -1],
    [[0, 1], [2, 2]], [], ('t', 1), ('t', [1, 2]), ('t', [[0], [2]]), ('t', 2, 'int32'),
    ('t', [0, 1], 'int32'), ([0, 1], [1, 3]), ([0, 2], slice(None)), (slice(None), [3, 0]),
    (slice(1, None), [0, 0]), ([[0], [1]], [0, 1, 2, 3]), (0, [1, 3]), ([1, 2], 0),
    ([0, 1], None), (None, slice(None), [0, 1]), ([0, 1], None, [0, 1]), ([0, 1], E, [1, 2]),
    True, False, (0, True), (True, [0]), ('t', True), ('t', [True, False, True]),
    [True, False, True], (slice(None), ('t', [True, False, True, False])),
    ('t', np.ones((3, 4), bool)), ('t', [[True, False, True, True]] * 3), (1, slice(None), None),
    ('t', [1, 0, 1], 'uint8'), (E, E),
]


@pytest.mark.parametrize('spec', GETITEM, ids=repr)
def test_getitem(spec):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda T, x: x[_ix(T, spec)], X, double=True)


GETITEM3 = [(0, slice(None), [1, 2]), ([0, 1], slice(None), [1, 2]), (slice(None), [0, 1], [1, 2]),
            (E, [0, 3]), ([[0], [1]], [[0, 1, 2]]), (0, ('t', [True, False, True]), 1),
            (('t', np.ones((2, 3), bool)), [1]), (None, E, None, 1), (slice(1, None, 2), E, 1)]


@pytest.mark.parametrize('spec', GETITEM3, ids=repr)
def test_getitem_3d(spec):
    check(lambda T, x: x[_ix(T, spec)], X3, double=True)


def test_getitem_0d():
    s = np.array(2.5)
    for spec in (None, E, (), True, False, (None, True), (E, None)):
        check(lambda T, x: x[spec], s, double=True)


def test_getitem_empty_tensor():
    z = np.zeros((0, 3))
    for spec in (slice(None), (slice(None), [0]), (slice(None), [3]), (slice(None), 1)):
        check(lambda T, x: x[spec], z)
    check(lambda T, x: x[T.tensor([], dtype=T.bool)], z)


BAD = [5, -4, (0, 5), (0, 0, 0), slice(None, None, -1), slice(None, None, 0), [0, 3],
       ('t', [5]), ('t', [-4]), (slice(None), ('t', [4])), ('t', [1.0]), ('t', 1.5), 1.5,
       ('t', [True, False]), ('t', [1, 2], 'int16'), ([0, 1], [0, 1, 2]),
       ('t', np.ones((3, 4, 1), bool)), (slice(None), ('t', [True, False])), '1', {0},
       [0, 0, 'a'], (0, 'a')]


@pytest.mark.parametrize('spec', BAD, ids=repr)
def test_getitem_errors(spec):
    check(lambda T, x: x[_ix(T, spec)], X, match_message=True)


def test_getitem_errors_misc():
    check(lambda T, x: x[0], np.array(1.0), match_message=True)
    check(lambda T, x: x[[0]], np.array(1.0), match_message=True)
    check(lambda T, x: x[[0], [0], [7]], X3, match_message=True)
    check(lambda T, x: x[[0], :, [7]], X3, match_message=True)
    check(lambda T, x: x[None, :, 5], X3, match_message=True)
    check(lambda T, x: x[0, :, T.tensor([True, False])], X3, match_message=True)
    check(lambda T, x: T.zeros(0, 3)[[0]], X, match_message=True)


def test_basic_index_is_a_view():
    x = ember.tensor(np.arange(12.0).reshape(3, 4))
    v = x[1:, ::2]
    assert v._base is x and v._vc is x._vc and x[2][3]._base is x
    v.mul_(10)
    assert x[1, 2].item() == 60.0 and x._version == 1
    w = x[[0, 1]]
    w.zero_()
    assert x[0, 1].item() == 1.0  # advanced indexing copies


def test_inplace_on_view_under_autograd():
    def f(T, x):
        y = x * 2
        v = y[1:, ::2]
        v.mul_(x[:2, 1::2])  # (x, not v: a factor changed in place would stop backward)
        z = y[:, None][0]
        z += 1
        return y, v * 1  # (torch's view now has an AsStridedBackward0 history)
    check(f, X, double=True)


SETITEM = [
    (0, 5.0), ((slice(None), 1), -1), ((E, 0), 2.5), (slice(None, None, 2), 0), (E, 7),
    (slice(None), 3), ((), 1), (None, 2), (True, 3), (False, 3), ([0, 2], 4), ([[0, 0]], 1),
    ((0, [1, 3]), 9), ((slice(None), [True, False, True, False]), 8), (-1, 'v4'),
    (0, 'v114'), ((slice(None), 0), 'v3'), ([0, 1], 'v4'), ([0, 2], 'v24'), ([1], 'v1134'),
    ((slice(None), [0, 1]), 'v32'), (slice(1, None), 'v24'), (E, 'v34'), ((0, 0), 'v'),
    ('mask', 0.0), ('mask', 'v'),
]


def _value(T, spec):
    if spec == 'v':
        return T.tensor(3.0, requires_grad=True)
    if isinstance(spec, str):
        shape = [int(c) for c in spec[1:]]
        return (T.arange(float(np.prod(shape))).reshape(shape) + 1).requires_grad_()
    return spec


@pytest.mark.parametrize('case', SETITEM, ids=repr)
def test_setitem_non_leaf(case):
    spec, value = case

    def f(T, x):
        y = x * 1
        v = _value(T, value)
        idx = x.detach() > 0 if spec == 'mask' else _ix(T, spec)
        y[idx] = v
        out = y * y
        return (out, v) if isinstance(v, T.Tensor) else out
    check(f, X, double=True)


def test_setitem_dtypes_and_values():
    def f(T, x):
        y = x.long()
        y[0] = 2.7
        y[1] = T.tensor([1.5, 2.5, 3.5, 4.5])
        y[:, 0] = True
        return y
    check(f, X)
    check(lambda T, x: (x.detach().clone().__setitem__(0, T.tensor(1, dtype=T.int64)), x)[1], X)


SET_BAD = [
    (0, 'v24'), (0, 'v2114'), ([0], 'v24'), ([0], 'v43'), ([0], 'f64'), ([0], 'long'),
    (5, 1.0), ([5], 1.0), (0, 'list'), (0, 'str'), (0, 'ndarray'),
]


@pytest.mark.parametrize('case', SET_BAD, ids=repr)
def test_setitem_errors(case):
    spec, value = case

    def f(T, x):
        y = x.detach() * 1
        v = {'f64': T.ones(4, dtype=T.float64), 'long': T.tensor(5), 'list': [1.0, 2.0],
             'str': 'a', 'ndarray': np.ones(4)}.get(value)
        if v is None:
            v = _value(T, value) if isinstance(value, str) else value
        y[spec] = v
        return y
    check(f, X, match_message=True)


def test_setitem_leaf_requiring_grad():
    for spec in (0, [0], E, slice(None)):
        check(lambda T, x: x.__setitem__(spec, 1.0), X, match_message=True)
    check(lambda T, x: x.view(12).__setitem__(0, 1.0), X, match_message=True)


def test_setitem_under_no_grad_on_leaf():
    def f(T, x):
        with T.no_grad():
            x[0] = 5.0
            x[[1, 2], 1] = T.tensor([7.0, 8.0])
        return x * 1
    check(f, X)


def test_setitem_gradient_example():
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y[0] = 5
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0]
    assert type(y.grad_fn).__name__ == 'CopySlices'


# -- functions ---------------------------------------------------------------------------
I2 = np.array([[0, 1], [2, 0]])
M = X > 0


FUNCS = {
    'index_select0': (lambda T, x: T.index_select(x, 0, T.tensor([2, 0, 2])), X),
    'index_select1': (lambda T, x: x.index_select(-1, T.tensor([3, 1], dtype=T.int32)), X),
    'index_select_0d_index': (lambda T, x: T.index_select(x, 1, T.tensor(1)), X),
    'index_select_empty': (lambda T, x: T.index_select(x, 0, T.tensor([], dtype=T.long)), X),
    'index_select_0d': (lambda T, x: T.index_select(x, 0, T.tensor([0])), np.array(2.0)),
    'gather1': (lambda T, x: T.gather(x, 1, T.tensor(I2)), X),
    'gather0_rep': (lambda T, x: x.gather(0, T.tensor([[0, 0, 2, 2]] * 5)), X),
    'gather_small': (lambda T, x: T.gather(x, 0, T.tensor([[1], [0]])), X),
    'gather_0d': (lambda T, x: T.gather(x, 0, T.tensor([0, 0])), np.array(2.0)),
    'scatter_src': (lambda T, x, s: T.scatter(x, 1, T.tensor([[0, 1], [2, 3]]), s), X,
                    arr(2, 2, seed=3)),
    # src larger than index: only its leading part is used (torch's backward then refuses)
    'scatter_src_big': (lambda T, x, s: T.scatter(x, 1, T.tensor([[0, 1], [2, 3]]), s), X,
                        arr(2, 3, seed=3)),
    'scatter_value': (lambda T, x: T.scatter(x, 0, T.tensor([[2, 0, 1]]), 2.5), X),
    'scatter_value_kw': (lambda T, x: x.scatter(1, T.tensor([[1], [0]]), value=-1.0), X),
    'scatter_add': (lambda T, x, s: T.scatter_add(x, 0, T.tensor([[0, 0, 2], [0, 1, 1]]), s), X,
                    arr(2, 3, seed=4)),
    'scatter_reduce_add': (lambda T, x, s: T.scatter(x.detach(), 1, T.tensor(I2), s.detach(),
                                                     reduce='add'), X, arr(2, 2)),
    'scatter_reduce_mul': (lambda T, x: T.scatter(x.detach(), 1, T.tensor(I2), 2.0,
                                                  reduce='multiply'), X),
    'index_add': (lambda T, x, s: T.index_add(x, 0, T.tensor([0, 0, 2]), s), X, arr(3, 4)),
    'index_add_alpha': (lambda T, x, s: x.index_add(1, T.tensor([3, 1]), s, alpha=-2.0), X,
                        arr(3, 2)),
    'index_add_0d': (lambda T, x, s: T.index_add(x, 0, T.tensor([0]), s), np.array(1.0),
                     np.array(2.0)),
    'index_copy': (lambda T, x, s: T.index_copy(x, 1, T.tensor([3, 0]), s), X, arr(3, 2)),
    'index_fill': (lambda T, x: T.index_fill(x, 1, T.tensor([0, -1]), -1.5), X),
    'index_fill_t': (lambda T, x, v: x.index_fill(0, T.tensor(1), v), X, np.array(4.0)),
    'index_fill_int': (lambda T, x: T.index_fill(x.long(), 0, T.tensor([0]), 1.9), X),
    'masked_fill': (lambda T, x: T.masked_fill(x, x.detach() > 0, 0.5), X),
    'masked_fill_t': (lambda T, x, v: x.masked_fill(x.detach() > 0, v), X, np.array(-2.0)),
    'masked_fill_bcast': (lambda T, x: T.masked_fill(x[0], T.tensor(M), 3.0), X),
    'masked_fill_0d': (lambda T, x: T.masked_fill(x, T.tensor(True), 3.0), X),
    'masked_select': (lambda T, x: T.masked_select(x, T.tensor(M)), X),
    'masked_select_bcast': (lambda T, x: x[0].masked_select(T.tensor(M)), X),
    'masked_select_row': (lambda T, x: x.masked_select(T.tensor([True, False, True, True])), X),
    'masked_scatter': (lambda T, x, s: T.masked_scatter(x, T.tensor(M), s), X, arr(12, seed=5)),
    'masked_scatter_2d': (lambda T, x, s: x.masked_scatter(T.tensor(M), s), X, arr(3, 5)),
    'masked_scatter_bcast': (lambda T, x, s: T.masked_scatter(x[0], T.tensor(M), s), X,
                             arr(12)),
    'nonzero': (lambda T, x: T.nonzero(x > 0), X),
    'nonzero_tuple': (lambda T, x: T.nonzero(x > 0, as_tuple=True), X),
    'nonzero_0d': (lambda T, x: (T.nonzero(x), T.nonzero(x, as_tuple=True)), np.array(2.0)),
    'nonzero_0d_zero': (lambda T, x: (T.nonzero(x), x.nonzero(as_tuple=True)), np.array(0.0)),
    'nonzero_empty': (lambda T, x: T.nonzero(x), np.zeros((0, 3))),
    'argwhere': (lambda T, x: T.argwhere(x > 0), X),
    'take': (lambda T, x: T.take(x, T.tensor([[0, 11], [-1, 0]])), X),
    'take_0d': (lambda T, x: x.take(T.tensor(3)), X),
    'take_along_dim': (lambda T, x: T.take_along_dim(x, T.tensor([[0], [2], [1]]), 1), X),
    'take_along_dim_bcast': (lambda T, x: T.take_along_dim(x, T.tensor([[0, 1, 2, 0]] * 2), 0),
                             arr(3, 1)),
    'take_along_dim_flat': (lambda T, x: T.take_along_dim(x, T.tensor([5, 0, 5])), X),
    'index_put': (lambda T, x, v: T.index_put(x, (T.tensor([0, 1]), T.tensor([1, 2])), v), X,
                  arr(2)),
    'index_put_acc': (lambda T, x, v: x.index_put((T.tensor([0, 0, 2]),), v, accumulate=True),
                      X, arr(4)),
    'index_put_mask': (lambda T, x, v: T.index_put(x, (T.tensor(M),), v), X, np.array(2.0)),
    'index_put_list': (lambda T, x, v: T.index_put(x, [T.tensor([2])], v), X, arr(1, 4)),
}


@pytest.mark.parametrize('name', list(FUNCS))
def test_functions(name):
    fn, *args = FUNCS[name]
    check(fn, *args, double=True)


INPLACE = {
    'scatter_': lambda T, y, s: y.scatter_(1, T.tensor(I2), s[:2, :2]),
    'scatter_value_': lambda T, y, s: y.scatter_(1, T.tensor(I2), 4.0),
    'scatter_add_': lambda T, y, s: y.scatter_add_(0, T.tensor([[0, 0, 2, 1]]), s[:1]),
    'index_add_': lambda T, y, s: y.index_add_(0, T.tensor([1, 1]), s[:2], alpha=3),
    'index_copy_': lambda T, y, s: y.index_copy_(0, T.tensor([2]), s[:1]),
    'index_fill_': lambda T, y, s: y.index_fill_(1, T.tensor([0, 2]), 7.0),
    'masked_fill_': lambda T, y, s: y.masked_fill_(y.detach() > 0, s[0, 0]),
    'masked_scatter_': lambda T, y, s: y.masked_scatter_(y.detach() > 0, s),
    'index_put_': lambda T, y, s: y.index_put_((T.tensor([0, 2]), T.tensor([3, 3])), s[0, :2],
                                               accumulate=True),
}


@pytest.mark.parametrize('name', list(INPLACE))
def test_inplace(name):
    def f(T, x, s):
        y = x * 1
        r = INPLACE[name](T, y, s)
        assert r is y
        v = x * 1
        INPLACE[name](T, v[1:], s)  # on a view: the base takes a CopySlices history
        return y, v
    check(f, X, arr(3, 4, seed=7), double=True)


def test_inplace_leaf_errors():
    check(lambda T, x: x.masked_fill_(x > 0, 1.0), X, match_message=True)
    check(lambda T, x: x[0].index_fill_(0, T.tensor([0]), 1.0), X, match_message=True)


FUNC_BAD = {
    'is_2d_index': lambda T, x: T.index_select(x, 0, T.tensor([[1]])),
    'is_float_index': lambda T, x: T.index_select(x, 0, T.tensor([1.0])),
    'is_oob': lambda T, x: T.index_select(x, 0, T.tensor([5])),
    'is_neg': lambda T, x: T.index_select(x, 1, T.tensor([-1])),
    'is_dim': lambda T, x: T.index_select(x, 2, T.tensor([1])),
    'gather_ndim': lambda T, x: T.gather(x, 1, T.tensor([0, 1])),
    'gather_oob': lambda T, x: T.gather(x, 1, T.tensor([[5]])),
    'gather_neg': lambda T, x: T.gather(x, 1, T.tensor([[-1]])),
    'gather_size': lambda T, x: T.gather(x, 0, T.zeros(1, 5, dtype=T.long)),
    'gather_dtype': lambda T, x: T.gather(x, 1, T.tensor([[0.0]])),
    'scatter_dtype': lambda T, x: T.scatter(x, 1, T.tensor(I2), T.ones(2, 2, dtype=T.float64)),
    'scatter_src_small': lambda T, x: T.scatter(x, 1, T.tensor(I2), T.ones(1, 1)),
    'scatter_self_small': lambda T, x: T.scatter(x, 1, T.zeros(4, 1, dtype=T.long), 1.0),
    'scatter_ndim': lambda T, x: T.scatter(x, 1, T.zeros(5, dtype=T.long), 1.0),
    'scatter_oob': lambda T, x: T.scatter(x, 1, T.tensor([[9]]), T.ones(2, 2)),
    'scatter_reduce': lambda T, x: T.scatter(x, 1, T.tensor(I2), T.ones(2, 2), reduce='mean'),
    'scatter_idx_dtype': lambda T, x: T.scatter_add(x, 1, T.tensor(I2).float(), x),
    'scatter_reduce_grad': lambda T, x: T.scatter(x, 1, T.tensor(I2), 1.0,
                                                  reduce='add').sum().backward(),
    'ia_count': lambda T, x: T.index_add(x, 0, T.tensor([0, 0]), T.ones(3, 4)),
    'ia_shape': lambda T, x: T.index_add(x, 0, T.tensor([0, 0]), T.ones(2, 5)),
    'ia_dtype': lambda T, x: T.index_add(x, 0, T.tensor([0, 0]), T.ones(2, 4, dtype=T.float64)),
    'ia_oob': lambda T, x: T.index_add(x, 0, T.tensor([0, 5]), T.ones(2, 4)),
    'ia_idx_dtype': lambda T, x: T.index_add(x, 0, T.tensor([0.0, 0.0]), T.ones(2, 4)),
    'ia_2d': lambda T, x: T.index_add(x, 0, T.tensor([[0, 0]]), T.ones(2, 4)),
    'ic_shape': lambda T, x: T.index_copy(x, 0, T.tensor([0, 2]), T.ones(2, 5)),
    'ic_int': lambda T, x: T.index_copy(x, 0, T.tensor([0, 2]).int(), T.ones(2, 4)),
    'ic_count': lambda T, x: T.index_copy(x, 0, T.tensor([0, 2]), T.ones(3, 4)),
    'ic_neg': lambda T, x: T.index_copy(x, 0, T.tensor([-1]), T.ones(1, 4)),
    'ic_dtype': lambda T, x: T.index_copy(x, 0, T.tensor([1]), T.ones(1, 4, dtype=T.float64)),
    'if_value': lambda T, x: T.index_fill(x, 1, T.tensor([0, 2]), T.tensor([-1.0])),
    'if_oob': lambda T, x: T.index_fill(x, 1, T.tensor([0, 9]), 1),
    'if_int': lambda T, x: T.index_fill(x, 1, T.tensor([0, 2]).int(), 1),
    'if_2d': lambda T, x: T.index_fill(x, 0, T.tensor([[0]]), 1.5),
    'mf_mask': lambda T, x: T.masked_fill(x, (x > 0).float(), 0.0),
    'mf_value': lambda T, x: T.masked_fill(x, x > 0, T.tensor([1.0])),
    'mf_bcast': lambda T, x: T.masked_fill(x, T.tensor([True, False, True]), 0.0),
    'mf_inplace_bcast': lambda T, x: x.detach().masked_fill_(T.ones(2, 3, 4, dtype=T.bool), 1.),
    'ms_mask': lambda T, x: T.masked_select(x, (x > 0).float()),
    'ms_bcast': lambda T, x: T.masked_select(x, T.tensor([True, False, True])),
    'msc_few': lambda T, x: T.masked_scatter(x, x > -10, T.ones(5)),
    'msc_dtype': lambda T, x: T.masked_scatter(x, x > 0, T.ones(12, dtype=T.float64)),
    'msc_mask': lambda T, x: T.masked_scatter(x, (x > 0).float(), T.ones(12)),
    'take_oob': lambda T, x: T.take(x, T.tensor([12])),
    'take_neg': lambda T, x: T.take(x, T.tensor([-13])),
    'take_int': lambda T, x: T.take(x, T.tensor([1]).int()),
    'take_empty': lambda T, x: T.take(T.zeros(0), T.tensor([0])),
    'tad_bcast': lambda T, x: T.take_along_dim(x, T.tensor(I2), 1),
    'tad_ndim': lambda T, x: T.take_along_dim(x, T.tensor([0, 1]), 1),
    'tad_dtype': lambda T, x: T.take_along_dim(x, T.tensor([[0, 1]]).int(), 1),
    'ip_shape': lambda T, x: T.index_put(x, (T.tensor([0, 1]),), T.tensor([1.0, 2, 3])),
    'ip_many': lambda T, x: T.index_put(x, (T.tensor([0]),) * 3, T.tensor(1.0)),
    'ip_oob': lambda T, x: T.index_put(x, (T.tensor([0, 5]),), T.tensor(1.0)),
    'ip_dtype': lambda T, x: T.index_put(x, (T.tensor([0]),), T.tensor(1.0, dtype=T.float64)),
    'ip_float': lambda T, x: T.index_put(x, (T.tensor([0.0]),), T.tensor(1.0)),
    'ip_values': lambda T, x: T.index_put(x, (T.tensor([0]),), 1.0),
    'ip_none': lambda T, x: T.index_put(x, (None, T.tensor([0])), T.tensor(1.0)),
    'ip_tensor': lambda T, x: T.index_put(x, T.tensor([0]), T.tensor(1.0)),
    'ip_bcast': lambda T, x: T.index_put(x, (T.tensor([0, 1]), T.tensor([0, 1, 2])),
                                         T.tensor(1.0)),
}


@pytest.mark.parametrize('name', list(FUNC_BAD))
def test_function_errors(name):
    check(FUNC_BAD[name], X, match_message=True)


AUG = {
    'iadd_basic': lambda T, y, v: _aug(y, 0, v[0]),
    'iadd_adv': lambda T, y, v: _aug(y, [0, 2, 0], v[:3]),
    'iadd_slice': lambda T, y, v: _aug(y, (slice(None), slice(1, 3)), v[:, :2]),
    'iadd_mask': lambda T, y, v: _aug(y, y.detach() > 0, 2.0),
}


def _aug(y, idx, v):
    y[idx] += v
    return y


@pytest.mark.parametrize('name', list(AUG))
def test_augmented_assignment(name):
    def f(T, x, v):
        y = x * 1
        return AUG[name](T, y, v)
    check(f, X, arr(3, 4, seed=9), double=True)


def test_setitem_more_forms():
    def chain(T, x, v):
        y = x * 1
        col = y[:, 1]
        col[0] = v[0]      # setitem on a view: the base sees it
        y[1][2] = v[1]     # chained views
        y[0, True] = v[2]  # a bool inside a tuple goes through index_put
        return y * y
    check(chain, X, arr(3, seed=3), double=True)

    def no_grad_base(T, v):
        y = T.zeros(2, 3)
        y[1] = v
        return y
    check(no_grad_base, arr(3).astype(np.float32), double=True)

    def zero_d(T, s, v):
        y = s * 1
        y[...] = v
        z = s * 1
        z[None] = 4.0
        return y, z
    check(zero_d, np.array(1.5), np.array(2.5), double=True)

    def list_of_tensors(T, x):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return x[[T.tensor(0), T.tensor(2)]], x[T.tensor(0):T.tensor(2), np.int64(1)]
    check(list_of_tensors, X, double=True)


SRC = np.array([[1.0, 0.0, 2.0], [3.0, 1.0, 1.0], [0.0, 0.0, 2.0]])
SR_INDEX = [[0, 1, 0], [1, 1, 3], [0, 3, 3]]


@pytest.mark.parametrize('include_self', [True, False])
@pytest.mark.parametrize('how', ['sum', 'mean', 'amax', 'amin', 'prod'])
def test_scatter_reduce(how, include_self):
    x = np.array([[1.0, 2.0, 0.0, 1.0], [2.0, 2.0, 0.5, 2.0], [0.0, 1.0, 2.0, 3.0]])

    def f(T, x, s):
        return T.scatter_reduce(x, 1, T.tensor(SR_INDEX), s, how, include_self=include_self)
    check(f, x, SRC, double=how != 'prod')
    check(lambda T, x, s: (x * 1).scatter_reduce_(1, T.tensor(SR_INDEX), s, how,
                                                   include_self=include_self), x, SRC)
    xi = (x * 3).astype(np.int64)
    check(lambda T, x, s: T.scatter_reduce(x, 0, T.tensor(SR_INDEX[:2]), s, how,
                                           include_self=include_self), xi,
          (SRC * -5).astype(np.int64))


def test_scatter_reduce_errors():
    check(lambda T, x: T.scatter_reduce(x, 1, T.tensor(I2), x, 'add'), X, match_message=True)
    check(lambda T, x: T.scatter_reduce(x, 1, T.tensor(I2), x, 'max'), X)
    check(lambda T, x: T.scatter_reduce(x, 1, T.tensor(I2), x.float(), 'sum'), X,
          match_message=True)


def test_put():
    check(lambda T, x, s: T.put(x, T.tensor([[0, -1], [5, 5]]), s), X, arr(2, 2), double=True)
    check(lambda T, x, s: x.put(T.tensor([0, 11, 0]), s, accumulate=True), X, arr(3),
          double=True)
    check(lambda T, x, s: (x * 1).put_(T.tensor([3, 1]), s), X, arr(2), double=True)
    for bad in ([0, 1], [12, 0, 1], [-13, 0, 1]):
        check(lambda T, x, s: T.put(x, T.tensor(bad), s), X, arr(3), match_message=True)
    check(lambda T, x, s: T.put(x, T.tensor([0, 1, 2]).int(), s), X, arr(3),
          match_message=True)
    check(lambda T, x, s: T.put(x, T.tensor([0, 1, 2]), s), X, arr(3, dtype=np.float32),
          match_message=True)


@pytest.mark.parametrize('dtype', [np.int64, np.int32, np.int16, np.int8, np.uint8, np.float64,
                                   np.float16, BFLOAT16])
def test_mask_dtype_errors(dtype):
    mask = np.ones(4, dtype)
    check(lambda T, x, m: x.masked_fill(m, 1.0), X, mask, match_message=True)
    check(lambda T, x, m: x.masked_scatter(m, x), X, mask, match_message=True)
    check(lambda T, x, m: x.masked_select(m), X, mask, match_message=True)


@pytest.mark.parametrize('dtype', [np.int64, np.int32, np.uint8, np.bool_, np.float32])
def test_index_other_dtypes(dtype):
    x = arr(3, 4, dtype=dtype, seed=4)

    def f(T, x):
        y = x.clone()
        y[0, [1, 2]] = y[1, 1:3]
        y[y == y[2, 2]] = y[0, 0]
        return (x[1], x[[2, 0]], x[x == x[0, 0]], y, x.gather(1, T.tensor([[0], [3], [1]])),
                x.index_select(1, T.tensor([0, 0])), x.masked_fill(x == x[0, 0], 1),
                x.take(T.tensor([11, 0])), x.nonzero())
    check(f, x)


EDGE = {
    # which kernel torch uses decides its wording; ember follows
    'is_dim1_msg': lambda T, x: T.index_select(x, 1, T.tensor([0, 2, -1])),
    'is_dim2_msg': lambda T, x: T.index_select(x, 2, T.tensor([-1])),
    'is_0d_many': lambda T, x: T.index_select(x[0, 0, 0], 0, T.tensor([0, 0])),
    'ia_dim0': lambda T, x: T.index_add(x, 0, T.tensor([7]), T.ones(1, 3, 4)),
    'ia_dim1': lambda T, x: T.index_add(x, 1, T.tensor([7]), T.ones(2, 1, 4)),
    'ia_alpha': lambda T, x: T.index_add(x, 2, T.tensor([7]), T.ones(2, 3, 1), alpha=2),
    'ia_1d': lambda T, x: T.index_add(x[0, 0], 0, T.tensor([-1]), T.ones(1)),
    'ia_0d_src': lambda T, x: T.index_add(x[0, 0], 0, T.tensor([0]), T.tensor(1.0)),
    'ia_0d_src2': lambda T, x: T.index_add(x[0, 0], 0, T.tensor([0, 1]), T.tensor(1.0)),
    'two_ellipses': lambda T, x: x[..., ..., ::2],  # each ellipsis skips the same dims
    'two_ellipses_none': lambda T, x: x[..., ..., None],
    'ellipsis_twice_ok': lambda T, x: x[..., 0, ...],
    'bare_slice_0d': lambda T, x: x[0, 0, 0][0:1],
    'tuple_int_0d': lambda T, x: x[0, 0, 0][(0,)],
    'empty_dim_index': lambda T, x: x[:, :0][[0, -1]],
    'zero_size_dim': lambda T, x: x[:0][[0]],
    'empty_result_unchecked': lambda T, x: x[:, :0, [9]],
    'tad_clash': lambda T, x: T.take_along_dim(x, T.zeros(3, 2, 1, dtype=T.long), -1),
    'tad_0d': lambda T, x: T.take_along_dim(x[0, 0, 0], T.tensor(0), 0),
    'put_empty': lambda T, x: x[:0].put(T.tensor([0]), T.ones(1, dtype=x.dtype)),
}


@pytest.mark.parametrize('name', list(EDGE))
def test_edge_cases(name):
    check(EDGE[name], X3, match_message=True)


def test_index_fill_tensor_value_with_repeats():
    check(lambda T, x, v: x.index_fill(0, T.tensor([0, 0, 2]), v), X, np.array(1.5),
          double=True)


VIEW_WRITES = {
    # a write through a view of a view updates that view's history too
    'row_then_use': lambda T, y: (lambda r: (r.__setitem__(0, 7.0), r * 1)[1])(y[1]),
    'transposed': lambda T, y: (lambda z: (z.__setitem__((0, [1, 2]), 7.0), z * 1)[1])(y.t()),
    'iadd_columns': lambda T, y: _iadd_columns(y.t()),
    'self_copy': lambda T, y: (y.__setitem__(slice(None), y), y * 1)[1],
    'overlap': lambda T, y: (y.__setitem__(slice(1, None), y[:-1]), y)[1],
    'overlap_strided': lambda T, y: (y.__setitem__((slice(None), slice(0, 2)), y[:, 2:]),
                                     y * 1)[1],
}


def _iadd_columns(z):
    z[:, 0] += z[:, 1]  # (the statement's __setitem__ refreshes z's history)
    return z * 1


@pytest.mark.parametrize('name', list(VIEW_WRITES))
def test_writes_through_views(name):
    check(lambda T, x: VIEW_WRITES[name](T, x * 1), X, double=True, match_message=True)


FORWARD = {
    'getitem': lambda T, d: d[1:, [0, 2]],
    'mask': lambda T, d: d[d > 0],
    'gather': lambda T, d: d.gather(1, T.tensor([[0], [3], [1]])),
    'scatter_add': lambda T, d: d.scatter_add(0, T.tensor([[0, 0, 2, 1]]), d[:1] * 2),
    'masked_fill': lambda T, d: d.masked_fill(d > 0, 0.0),
    'index_put': lambda T, d: d.index_put((T.tensor([0, 0]),), d[1], accumulate=True),
    'setitem_basic': lambda T, d: _set(d * 1, (0, slice(1, 3)), 5.0),
    'setitem_adv': lambda T, d: _set(T.zeros(3, 4, dtype=d.dtype), ([1, 2], 0), d[0, :2]),
    'setitem_mask': lambda T, d: _set(d * 2, d > 0, 0.0),
}


def _set(y, idx, v):
    y[idx] = v
    return y


@pytest.mark.parametrize('name', list(FORWARD))
def test_forward_mode(name):
    """Tangents through indexing match torch's forward AD."""
    import torch
    tangent = arr(3, 4, seed=11)
    got = []
    for T in (ember, torch):
        fwd = T.autograd.forward_ad
        with fwd.dual_level():
            d = fwd.make_dual(T.tensor(X), T.tensor(tangent))
            got.append(np.asarray(fwd.unpack_dual(FORWARD[name](T, d)).tangent.numpy()))
    np.testing.assert_allclose(got[0], got[1], rtol=1e-12, atol=1e-12)
