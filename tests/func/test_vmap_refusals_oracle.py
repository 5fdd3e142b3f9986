"""What vmap refuses inside the vmapped function, against torch 2.13: each case runs the same
function under ember's vmap and torch's, and compares the exception class and message (or,
where both run, the result's values and shape).

torch's BatchedTensor refuses a tensor batched at a running vmap -- an input's per-element
slice or anything an op made from one -- in ``.item()`` and the other conversions to Python
numbers, ``bool()``, ``.data``, ``out=``, ops with a non-tensor result and ops whose output
shape depends on the values. Tensors the function makes from nothing batched (factories,
closed-over tensors) work as outside vmap.
"""
import importlib

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed")
import ember  # noqa: E402

LIBS = (ember, torch)


def _outcome(lib, case, *shape):
    x = lib.tensor(np.arange(np.prod(shape or (2, 3)), dtype=np.float64)
                   .reshape(shape or (2, 3)) - 2.5)
    try:
        r = case(lib, x)
    except Exception as e:  # noqa: BLE001 - the exception itself is what we compare
        return type(e).__name__, str(e)
    return 'result', np.asarray(r.detach().tolist()), tuple(r.shape)


def _same(case, *shape):
    """Runs ``case(lib, x)`` on both libraries and compares what happened."""
    got, want = (_outcome(lib, case, *shape) for lib in LIBS)
    assert got[:2] == want[:2] if want[0] != 'result' else (
        got[0] == 'result' and got[2] == want[2] and np.allclose(got[1], want[1])), (got, want)
    return want


def _vmap(f):
    return lambda lib, x: lib.vmap(lambda v: f(lib, v))(x)


def _keep(f):
    """A vmapped function that does ``f`` for its effect (or its refusal) and returns v."""
    return _vmap(lambda lib, v: (f(lib, v), v)[1])


# -- refused: a batched tensor read into Python ----------------------------------------------
ITEM = {
    'item': lambda lib, v: v.sum().item(),
    'int': lambda lib, v: int(v.sum()),
    'float': lambda lib, v: float(v[0]),
    'complex': lambda lib, v: complex(v[0]),
    'index': lambda lib, v: [1, 2, 3][v.long()[1]],
    'format_0d': lambda lib, v: f"{v.sum():.2f}",
    'format_0d_no_spec': lambda lib, v: f"{v.sum()}",
    'contains': lambda lib, v: 3. in v,
    'bool': lambda lib, v: 1 if v.sum() else 0,
    'is_nonzero': lambda lib, v: v.sum().is_nonzero(),
    'is_nonzero_function': lambda lib, v: lib.is_nonzero(v.sum()),
    'tolist': lambda lib, v: v.tolist(),
    'numpy': lambda lib, v: v.numpy(),
    'asarray': lambda lib, v: np.asarray(v),
    'data_ptr': lambda lib, v: v.data_ptr(),
    'data': lambda lib, v: v.data,
    'equal': lambda lib, v: lib.equal(v, v),
    'equal_method': lambda lib, v: v.equal(v),
    'equal_with_unbatched': lambda lib, v: lib.equal(lib.ones(3), v),
    'allclose': lambda lib, v: lib.allclose(v, v),
    'allclose_method': lambda lib, v: v.allclose(v),
    # derived from a batched input: an op's result is batched
    'item_of_zeros_like': lambda lib, v: lib.zeros_like(v).sum().item(),
    'item_of_detach': lambda lib, v: v.detach().sum().item(),
    'item_of_new_zeros': lambda lib, v: v.new_zeros(()).item(),
    'item_of_mixed': lambda lib, v: (lib.ones(3) + v)[0].item(),
    'data_of_empty_like': lambda lib, v: lib.empty_like(v).data,
    'item_of_unbind': lambda lib, v: v.unbind()[0].item(),
}


@pytest.mark.parametrize('name', ITEM)
def test_reading_a_batched_tensor_is_refused(name):
    assert _same(_keep(ITEM[name]))[0] == 'RuntimeError'


@pytest.mark.parametrize('name', ['item', 'bool', 'data'])
def test_refused_in_nested_vmap_for_either_level(name):
    f = ITEM[name]
    # batched at both levels, at the outer level only, at the inner level only
    assert _same(lambda lib, x: lib.vmap(lib.vmap(lambda v: (f(lib, v), v)[1]))(x))[0] == \
        'RuntimeError'
    assert _same(lambda lib, x: lib.vmap(lambda v: lib.vmap(
        lambda w: (f(lib, v), w)[1])(lib.ones(2)))(x))[0] == 'RuntimeError'
    assert _same(lambda lib, x: lib.vmap(lambda v: lib.vmap(
        lambda w: (f(lib, w), w)[1])(lib.ones(2, 3)) + v)(x))[0] == 'RuntimeError'


def test_item_of_a_gradient_inside_vmap_is_refused():
    # the gradient of a batched function is batched
    assert _same(_keep(lambda lib, v: lib.func.grad(
        lambda u: (u ** 2).sum())(v).sum().item()))[0] == 'RuntimeError'


DATA_SET = {
    'batched_self': lambda lib, v: setattr(v, 'data', lib.ones(3)),
    'batched_value': lambda lib, v: setattr(lib.ones(3), 'data', v),
}


@pytest.mark.parametrize('name', DATA_SET)
def test_setting_data_is_refused(name):
    assert _same(_keep(DATA_SET[name]))[0] == 'RuntimeError'


OUT = {
    'abs': lambda lib, v: lib.abs(v, out=lib.empty(3)),
    'abs_into_input': lambda lib, v: lib.abs(v, out=v),
    'add': lambda lib, v: lib.add(v, 1, out=lib.empty(3)),
    'add_unbatched_first': lambda lib, v: lib.add(lib.ones(3), v, out=lib.empty(3)),
    'mul': lambda lib, v: lib.mul(v, v, out=lib.empty(3)),
    'exp': lambda lib, v: lib.exp(v, out=lib.empty(3)),
    'clamp': lambda lib, v: lib.clamp(v, 0, out=lib.empty(3)),
    'mm': lambda lib, v: lib.mm(v[None], v[:, None], out=lib.empty(1, 1)),
    'linalg': lambda lib, v: lib.linalg.vector_norm(v, out=lib.empty(())),
    'special': lambda lib, v: lib.special.expit(v, out=lib.empty(3)),
    'only_out_batched': lambda lib, v: lib.abs(lib.ones(3), out=v),
    'zeros_into_batched': lambda lib, v: lib.zeros(3, out=v),
}


@pytest.mark.parametrize('name', OUT)
def test_out_with_a_batched_tensor_is_refused(name):
    assert _same(_vmap(OUT[name]))[0] == 'RuntimeError'


DYNAMIC = {
    'nonzero': lambda lib, v: lib.nonzero(v),
    'nonzero_method': lambda lib, v: v.nonzero(),
    'unique': lambda lib, v: lib.unique(v),
    'batched_mask': lambda lib, v: v[v > 0],
    'batched_mask_on_unbatched': lambda lib, v: lib.ones(3)[v > 0],
}


@pytest.mark.parametrize('name', DYNAMIC)
def test_value_dependent_shapes_are_refused(name):
    assert _same(_vmap(DYNAMIC[name]))[0] == 'RuntimeError'


def test_returning_an_op_of_a_batched_input_with_out_dims_none_is_refused():
    assert _same(lambda lib, x: lib.vmap(lambda v: v * 0, out_dims=None)(x))[0] == 'ValueError'


LEGACY = {name: ITEM[name] for name in ('item', 'int', 'contains', 'bool', 'is_nonzero', 'equal',
                                         'allclose', 'tolist', 'data')}
LEGACY.update(out=OUT['abs'], data_set=DATA_SET['batched_self'], nonzero=DYNAMIC['nonzero'])


@pytest.mark.parametrize('name', LEGACY)
def test_older_vmap_refusals(name):
    # torch._vmap_internals._vmap (autograd.grad's is_grads_batched, gradcheck's batched
    # checks): fewer refusals, in other words
    f = LEGACY[name]
    _same(lambda lib, x: importlib.import_module(lib.__name__ + '._vmap_internals')._vmap(
        lambda v: (f(lib, v), v * 1)[1])(x))


# -- kept working: what is not batched --------------------------------------------------------
WORKS = {
    'item_of_factory': lambda lib, v: v + lib.ones(()).item(),
    'item_of_closure': lambda lib, v: v + lib.arange(3.)[1].item(),
    'bool_of_factory': lambda lib, v: v if lib.ones(()) else -v,
    'int_of_shape': lambda lib, v: v * int(lib.tensor(v.shape[0])),
    'data_of_factory': lambda lib, v: v + lib.ones(3).data,
    'data_set_unbatched': lambda lib, v: v + _set_data(lib.ones(3), lib.zeros(3)),
    'out_unbatched': lambda lib, v: v + lib.abs(lib.ones(3), out=lib.empty(3)),
    'equal_unbatched': lambda lib, v: v * lib.equal(lib.ones(2), lib.ones(2)),
    'allclose_unbatched': lambda lib, v: v * lib.allclose(lib.ones(2), lib.ones(2)),
    'tolist_unbatched': lambda lib, v: v + lib.tensor(lib.ones(3).tolist()),
    'nonzero_unbatched': lambda lib, v: v + lib.nonzero(lib.ones(3)).sum(),
    'unbatched_mask': lambda lib, v: v[lib.tensor([True, False, True])],
    'masked_select_unbatched_mask': lambda lib, v: lib.masked_select(
        v, lib.tensor([True, False, True])),
    'format_1d': lambda lib, v: (f"{v}", v)[1],
    'len': lambda lib, v: v * len(v),
    'iter': lambda lib, v: lib.stack(list(v)),
    'shape': lambda lib, v: v.reshape(v.shape[0], 1),
    'is_same_size': lambda lib, v: v * v.is_same_size(v),
    'any': lambda lib, v: v.any(),
    'isclose': lambda lib, v: lib.isclose(v, v),
    'index_by_batched': lambda lib, v: v[v.argmax()],
    'inplace': lambda lib, v: v.mul_(2),
}


def _set_data(t, value):
    t.data = value
    return t


@pytest.mark.parametrize('name', WORKS)
def test_unbatched_tensors_keep_working(name):
    assert _same(_vmap(WORKS[name]))[0] == 'result'


def test_out_dims_none_with_an_unbatched_result():
    assert _same(lambda lib, x: lib.vmap(lambda v: lib.ones(3) * 2, out_dims=None)(x))[0] == \
        'result'


def test_transforms_around_vmap_keep_working():
    def f(lib, v):
        return (v.sin() * v).sum()
    # nested, with in_dims/out_dims, grad of vmap, vmap of grad
    assert _same(lambda lib, x: lib.vmap(lib.vmap(lambda v: f(lib, v)[None]))(x[..., None]),
                 2, 3)[0] == 'result'
    assert _same(lambda lib, x: lib.vmap(lambda v: v.cos(), in_dims=1, out_dims=1)(x))[0] == \
        'result'
    assert _same(lambda lib, x: lib.func.grad(
        lambda u: lib.vmap(lambda v: f(lib, v))(u).sum())(x))[0] == 'result'
    assert _same(lambda lib, x: lib.vmap(lib.func.grad(lambda v: f(lib, v)))(x))[0] == 'result'
    assert _same(lambda lib, x: lib.func.jacrev(lambda v: v.sin() * 2)(x[0]))[0] == 'result'

