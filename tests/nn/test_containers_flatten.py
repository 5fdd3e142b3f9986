"""nn.ParameterList / nn.ParameterDict / nn.Flatten / nn.Unflatten against torch: reprs,
registration names, state_dict, container behaviour, gradients, errors."""
import collections

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check, assert_same_tensor


def both(fn):
    """``fn(lib)`` for ember and torch; each result is made comparable by ``plain``."""
    return [plain(fn(lib)) for lib in (ember, torch)]


def plain(x):
    """A library-independent description: tensors by kind, dtype, values and requires_grad;
    modules by repr; containers element-wise; exceptions by type and message."""
    if isinstance(x, BaseException):
        return ('raised', type(x).__name__, str(x))
    if isinstance(x, (ember.Tensor, torch.Tensor)):
        kind = 'Parameter' if isinstance(x, (ember.nn.Parameter, torch.nn.Parameter)) else 'Tensor'
        return (kind, str(x.dtype), np.asarray(x.detach().numpy()).tolist(), x.requires_grad)
    if isinstance(x, (ember.nn.Module, torch.nn.Module)):
        return ('module', repr(x))
    if isinstance(x, (list, tuple)):
        return type(x)(plain(v) for v in x)
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    return x


def raised(fn):
    """Whatever ``fn()`` raised (or returned)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return e


def summary(m):
    """What a container shows the outside: repr, parameter names, state_dict."""
    return [repr(m), [n for n, _ in m.named_parameters()], m.state_dict(),
            [n for n, _ in m.named_modules()]]


def linear(lib, n):
    """An n-by-n Linear with fixed weights (the libraries' random streams differ)."""
    m = lib.nn.Linear(n, n)
    with lib.no_grad():
        m.weight.copy_(t(lib, n, n, seed=20))
        m.bias.copy_(t(lib, n, seed=21))
    return m


def t(lib, *shape, seed=0, dtype=np.float32):
    return lib.tensor(arr(*shape, dtype=dtype, seed=seed))


# -- ParameterList --------------------------------------------------------------------------

def test_parameter_list_mixed_contents_repr_names_state_dict():
    def fn(lib):
        nn = lib.nn
        pl = nn.ParameterList([t(lib, 3, 4), nn.Parameter(t(lib, 2, dtype=np.float64)), 5,
                               linear(lib, 2), t(lib, dtype=np.float32, seed=3), 'text'])
        outer = nn.Module()
        outer.plist = pl
        outer.empty = nn.ParameterList()
        return summary(pl) + summary(outer) + [repr(nn.ParameterList([t(lib, 2)]))]
    e, tr = both(fn)
    for a, b in zip(e, tr):
        if isinstance(a, dict):
            assert list(a) == list(b)
    assert e[0] == tr[0] and e == tr


def test_parameter_list_operations():
    def fn(lib):
        nn = lib.nn
        pl = nn.ParameterList(iter([t(lib, 2, seed=1), t(lib, 3, seed=2)]))
        out = [len(pl)]
        out.append(pl.append(t(lib, 1, seed=3)) is pl)
        out.append(pl.extend([t(lib, 2, 2, seed=4), nn.Parameter(t(lib, 1, seed=5), False)]) is pl)
        pl += (t(lib, 4, seed=6),)
        pl[-1] = t(lib, 5, seed=7)
        pl[0] = None
        out += [len(pl), list(pl), pl[2], pl[-2]]
        for sl in (slice(None), slice(1, 4), slice(None, None, 2), slice(None, None, -1),
                   slice(-2, None), slice(5, 1)):
            sub = pl[sl]
            out += [type(sub).__name__, list(sub), list(sub.state_dict())]
        out += [summary(pl), [k for k in dir(pl) if k.isdigit()], 'append' in dir(pl)]
        out.append(list(nn.ParameterList(nn.ParameterList([t(lib, 2)]))))
        return out
    e, tr = both(fn)
    assert e == tr


def test_parameter_list_wraps_tensors_sharing_storage_and_trains():
    results = []
    for lib in (ember, torch):
        src = t(lib, 3, seed=1)
        pl = lib.nn.ParameterList([src, t(lib, 3, seed=2)])
        with lib.no_grad():
            src.add_(1.0)  # the Parameter shares the tensor's storage
        x = t(lib, 3, seed=3)
        loss = (pl[0] * x + pl[-1] ** 2).sum()
        loss.backward()
        results.append((pl[0], loss, pl[0].grad, pl[1].grad, pl[0].is_leaf))
    (e0, el, eg0, eg1, eleaf), (t0, tl, tg0, tg1, tleaf) = results
    assert_same_tensor(e0, t0, 'param')
    assert_same_tensor(el, tl, 'loss')
    assert_same_tensor(eg0, tg0, 'grad 0')
    assert_same_tensor(eg1, tg1, 'grad 1')
    assert eleaf and tleaf


def _list_errors(lib):
    nn = lib.nn
    pl = nn.ParameterList([t(lib, 2), t(lib, 3)])
    return [raised(f) for f in [
        lambda: pl[2], lambda: pl[-3], lambda: pl['a'], lambda: pl[1.0],
        lambda: pl.__setitem__(2, t(lib, 1)), lambda: pl.__setitem__(-3, t(lib, 1)),
        lambda: pl.extend(t(lib, 2)), lambda: pl.extend(3), lambda: nn.ParameterList(5),
        lambda: pl(t(lib, 2)), lambda: pl + pl, lambda: pl.__setitem__(0, 3),
        lambda: pl.__setitem__(0, t(lib, 2) * 2)]] + [len(pl), list(pl)]


def test_parameter_list_errors():
    e, tr = both(_list_errors)
    assert e == tr


# -- ParameterDict --------------------------------------------------------------------------

def test_parameter_dict_construction_repr_names_state_dict():
    def fn(lib):
        nn = lib.nn
        out = []
        for values in ({'b': t(lib, 3), 'a': t(lib, 2, 2, seed=1), 'c': 'str'},
                       collections.OrderedDict([('z', t(lib, 1)), ('y', nn.Parameter(
                           t(lib, 2, dtype=np.float64)))]),
                       [('q', t(lib, 2, dtype=np.float16)), ['p', None], ('m', linear(lib, 1))],
                       (), None):
            pd = nn.ParameterDict(values)
            out += [summary(pd), list(pd), list(pd.keys()), len(pd)]
        outer = nn.Module()
        outer.d = nn.ParameterDict({'w': t(lib, 2, 3)})
        out += [summary(outer), repr(nn.ParameterDict({'w': t(lib, 2)}))]
        return out
    e, tr = both(fn)
    assert e == tr


def test_parameter_dict_operations():
    def fn(lib):
        nn = lib.nn
        pd = nn.ParameterDict({'a': t(lib, 2, seed=1), 'b': t(lib, 3, seed=2)})
        out = [pd['a'], 'a' in pd, 'zz' in pd, 1 in pd]
        pd['c'] = t(lib, 1, seed=3)
        pd['a'] = nn.Parameter(t(lib, 2, seed=4), requires_grad=False)
        pd['obj'] = 'x'
        out += [list(pd.keys()), list(pd.values()), list(pd.items()), list(reversed(pd))]
        out += [pd.get('c'), pd.get('zz'), pd.get('zz', 7)]
        out += [pd.setdefault('b', t(lib, 9)), pd.setdefault('d', t(lib, 2, seed=5)),
                pd.setdefault('e')]
        out += [pd.pop('obj'), pd.popitem(), list(pd)]
        del pd['d']
        pd.update({'y': t(lib, 1, seed=6), 'x': t(lib, 1, seed=7)})
        pd.update(collections.OrderedDict([('v', t(lib, 1, seed=8)), ('u', t(lib, 1, seed=9))]))
        pd.update([('t', t(lib, 2, seed=10)), ('a', t(lib, 2, seed=11))])
        out += [summary(pd)]
        cp = pd.copy()
        out += [summary(cp), cp['b'] is pd['b']]
        fk = pd.fromkeys(['k1', 'k2'], t(lib, 2, seed=12))
        out += [summary(fk), summary(pd.fromkeys(['n']))]
        other = nn.ParameterDict({'b': t(lib, 1, seed=13), 'new': t(lib, 1, seed=14)})
        out += [summary(pd | other), summary(other | pd)]
        other |= pd
        out += [summary(other)]
        pd.clear()
        out += [summary(pd), len(pd)]
        return out
    e, tr = both(fn)
    assert e == tr


def test_parameter_dict_gradients():
    results = []
    for lib in (ember, torch):
        pd = lib.nn.ParameterDict({'w': t(lib, 3, 2, seed=1), 'b': t(lib, 2, seed=2)})
        x = t(lib, 4, 3, seed=3)
        y = (x @ pd['w'] + pd['b']).tanh().sum()
        y.backward()
        results.append((y, pd['w'].grad, pd['b'].grad))
    for a, b, what in zip(*results, ('y', 'w.grad', 'b.grad')):
        assert_same_tensor(a, b, what)


def _dict_errors(lib):
    nn = lib.nn
    pd = nn.ParameterDict({'a': t(lib, 2)})
    out = [raised(f) for f in [
        lambda: pd[1], lambda: pd['zz'], lambda: pd.pop('zz'), lambda: pd.__delitem__('zz'),
        lambda: pd.update(3), lambda: pd.update([(1,)]), lambda: pd.update([3]),
        lambda: pd.update([('k', 1, 2)]), lambda: pd(t(lib, 2)), lambda: nn.ParameterDict(5),
        lambda: pd.__setitem__('a.b', t(lib, 1)), lambda: pd.__setitem__('', t(lib, 1)),
        lambda: pd.__setitem__('a', 3), lambda: pd.__setitem__('a', t(lib, 2) * 2),
        lambda: pd.__setitem__(2, t(lib, 1)), lambda: nn.ParameterDict().popitem()]]
    return out + [list(pd)]


def test_parameter_dict_errors():
    e, tr = both(_dict_errors)
    assert e == tr


# -- Flatten / Unflatten --------------------------------------------------------------------

def test_flatten_unflatten_reprs():
    def fn(lib):
        nn = lib.nn
        return [repr(nn.Flatten()), repr(nn.Flatten(0, 2)), repr(nn.Flatten(start_dim=-3)),
                repr(nn.Unflatten(1, (2, 3))), repr(nn.Unflatten(-1, [2, -1])),
                repr(nn.Unflatten(1, lib.Size([2, 3]))),
                repr(nn.Sequential(nn.Flatten(), nn.Linear(6, 6), nn.Unflatten(1, (3, 2)))),
                list(nn.Flatten().state_dict())]
    e, tr = both(fn)
    assert e == tr


@pytest.mark.parametrize('start,end', [(1, -1), (0, -1), (0, 1), (1, 2), (-2, -1), (2, 2)])
def test_flatten_forward_backward(start, end):
    check(lambda lib, x: lib.nn.Flatten(start, end)(x), arr(2, 3, 4, 5), match_message=True)


@pytest.mark.parametrize('dim,size', [(1, (2, 3)), (-1, [4, -1]), (0, (2, 1)),
                                      (1, (6,)), (2, (2, 2, 1))])
def test_unflatten_forward_backward(dim, size):
    check(lambda lib, x: lib.nn.Unflatten(dim, size)(x), arr(2, 6, 4), match_message=True)


def test_unflatten_with_size_and_in_sequential():
    check(lambda lib, x: lib.nn.Sequential(lib.nn.Flatten(0), lib.nn.Unflatten(
        0, lib.Size([3, 4])))(x), arr(3, 2, 2))


@pytest.mark.parametrize('case', range(8))
def test_flatten_unflatten_errors(case):
    def fn(lib, x):
        nn = lib.nn
        return [lambda: nn.Unflatten(1, 3), lambda: nn.Unflatten(1, (2, 3.0)),
                lambda: nn.Unflatten(1, 'ab'), lambda: nn.Unflatten(1, (2, 4))(x),
                lambda: nn.Flatten(2, 1)(x), lambda: nn.Flatten(3)(x),
                lambda: nn.Unflatten(3, (1, 1))(x), lambda: nn.Unflatten(1, ())(x)][case]()
    check(fn, arr(2, 6, 4), match_message=True)
