"""ember.autograd.functional against torch.autograd.functional: vjp, jvp, jacobian, hessian,
vhp, hvp on several functions, single and tuple inputs and outputs, with and without ``v``,
``create_graph`` (results differentiated again through ``check``), strict mode and errors."""
import numpy as np
import pytest

import ember
from .oracle import torch, arr, check, assert_same_tensor


def F(lib):
    return lib.autograd.functional


# Functions from Tensors to Tensors (or tuples), written once for both libraries: each takes
# the library first. Inputs: x (3,), y (2,), W (2, 3).
def poly(L, x):
    return x ** 3 - 2 * x ** 2 + x


def expsin(L, x):
    return x.exp() * x.sin()


def mat(L, x, W):
    return W @ x.tanh()


def two_out(L, x, y):
    return x * y.sum(), (x ** 2).sum() + y.prod()


def one_of_two(L, x, y):
    return (x.sin() * 3, x.sum() * 0 + 1)  # second output: a constant with a graph


FUNCS = {
    'poly': (poly, lambda: (arr(3, seed=1),)),
    'expsin': (expsin, lambda: (arr(3, seed=2),)),
    'mat': (mat, lambda: (arr(3, seed=3), arr(2, 3, seed=4))),
    'two_out': (two_out, lambda: (arr(3, seed=5), arr(2, seed=6))),
    'one_of_two': (one_of_two, lambda: (arr(3, seed=7), arr(2, seed=8))),
}

# Scalar functions for hessian / vhp / hvp.
SCALAR = {
    'poly': (lambda L, x: (x ** 3 - x ** 2 * 2).sum(), lambda: (arr(3, seed=1),)),
    'expsin': (lambda L, x: (x.exp() * x.sin()).sum(), lambda: (arr(3, seed=2),)),
    'quad': (lambda L, x, W: (W @ x).pow(2).sum() + x.sin().sum(),
             lambda: (arr(3, seed=3), arr(2, 3, seed=4))),
    'cross': (lambda L, x, y: (x.exp() * y.sum() ** 2).sum() + (y ** 3).sum(),
              lambda: (arr(3, seed=5), arr(2, seed=6))),
    'one_elem_2d': (lambda L, x: (x * x).sum().reshape(1, 1), lambda: (arr(2, 2, seed=7),)),
}


def _bind(fn, L):
    return lambda *a: fn(L, *a)


def _product(pair):
    """``(func_output, product)`` with the product passed through ``* 1``: its ``grad_fn``
    names the last op of a backward formula (ember's own business, e.g. torch's
    ``TanhBackwardBackward0``), so only whether it has one is compared. Values,
    ``requires_grad`` and gradients through it are still compared by ``check``."""
    out, res = pair
    return out, _times_one(res)


def prod(L, fname):
    """``F(L).<fname>`` whose product (for vjp/jvp/vhp/hvp) goes through ``_product``."""
    f = getattr(F(L), fname)
    if fname not in ('vjp', 'jvp', 'vhp', 'hvp'):
        return f
    return lambda *a, **k: _product(f(*a, **k))


def _times_one(res):
    if isinstance(res, tuple):
        return tuple(_times_one(r) for r in res)
    return res * 1


def _inputs(arrays, as_tuple):
    if as_tuple or len(arrays) > 1:
        return tuple(arrays)
    return arrays[0]


def _v_like(tensors_or_one, seed):
    """Random arrays shaped like a (tuple of) array(s) -- the ``v`` argument."""
    if isinstance(tensors_or_one, tuple):
        return tuple(arr(*np.shape(t), seed=seed + i) for i, t in enumerate(tensors_or_one))
    return arr(*np.shape(tensors_or_one), seed=seed)


def _out_shapes(name, arrays, as_tuple):
    """Arrays shaped like the outputs of FUNCS[name] (computed with torch)."""
    fn = FUNCS[name][0]
    out = fn(torch, *[torch.tensor(a) for a in arrays])
    if isinstance(out, tuple):
        return tuple(o.detach().numpy() for o in out)
    return out.detach().numpy()


# ---------------------------------------------------------------------------------------
# vjp / jvp


@pytest.mark.parametrize('create_graph', [False, True])
@pytest.mark.parametrize('as_tuple', [False, True])
@pytest.mark.parametrize('name', list(FUNCS))
def test_vjp(name, as_tuple, create_graph):
    fn, make = FUNCS[name]
    arrays = make()
    v = _v_like(_out_shapes(name, arrays, as_tuple), seed=10)
    check(lambda L, xs, v: prod(L, 'vjp')(_bind(fn, L), xs, v, create_graph=create_graph),
          _inputs(arrays, as_tuple), v, double=create_graph)


@pytest.mark.parametrize('create_graph', [False, True])
@pytest.mark.parametrize('as_tuple', [False, True])
@pytest.mark.parametrize('name', list(FUNCS))
def test_jvp(name, as_tuple, create_graph):
    fn, make = FUNCS[name]
    arrays = make()
    xs = _inputs(arrays, as_tuple)
    v = _v_like(xs, seed=20)
    check(lambda L, xs, v: prod(L, 'jvp')(_bind(fn, L), xs, v, create_graph=create_graph),
          xs, v, double=create_graph)


@pytest.mark.parametrize('grad', [False, True])
def test_vjp_jvp_without_v(grad):
    """``v`` may be left out for a one-element output (vjp) / input (jvp)."""
    x = arr(3, seed=1)
    check(lambda L, x: prod(L, 'vjp')(lambda a: (a.exp() * a).sum(), x), x, grad=grad)
    check(lambda L, x: prod(L, 'vjp')(lambda a: (a ** 2).sum().reshape(1, 1), x,
                                 create_graph=True), x, grad=grad)
    s = arr(1, seed=2)
    check(lambda L, s: prod(L, 'jvp')(lambda a: (a.sin() * 2, a.expand(3) ** 2), s), s, grad=grad)
    check(lambda L, s: prod(L, 'jvp')(lambda a: a.exp(), s.reshape(())), s, grad=grad)
    check(lambda L, s: prod(L, 'jvp')(lambda a: a ** 3, (s,), create_graph=True), s, grad=grad)


def test_vjp_jvp_v_tuple_of_one_for_single_tensor():
    """A one-tensor tuple ``v`` is accepted where a Tensor is expected (and vice versa)."""
    x = arr(3, seed=1)
    v = arr(3, seed=2)
    check(lambda L, x, v: prod(L, 'vjp')(lambda a: a.sin(), x, (v,)), x, v)
    check(lambda L, x, v: prod(L, 'jvp')(lambda a: a.sin(), (x,), v), x, v)


def test_inputs_not_requiring_grad_and_create_graph():
    """``create_graph`` with inputs that do not require grad: the results stay connected to
    nothing but the function's own leaves (torch decides which require grad)."""
    x, v = arr(3, seed=1), arr(3, seed=2)
    for fname in ('vjp', 'jvp'):
        check(lambda L, x, v: prod(L, fname)(lambda a: a.exp() * a, x, v,
                                                   create_graph=True), x, v, grad=False)
        check(lambda L, x, v: prod(L, fname)(lambda a: a * 2, x, v,
                                                   create_graph=True), x, v, grad=False)
        # only v requires grad
        check(lambda L, x, v: prod(L, fname)(lambda a: a.exp(), x.detach(), v,
                                                   create_graph=True), x, v)


def test_closure_over_the_given_input_is_a_constant():
    """The function is called with new tensors: a use of the caller's own tensor (captured)
    is not differentiated, as in torch."""
    x, v = arr(3, seed=1), arr(3, seed=2)
    check(lambda L, x, v: prod(L, 'vjp')(lambda a: a * x, x, v), x, v)
    check(lambda L, x, v: prod(L, 'jvp')(lambda a: a * x.exp(), x, v), x, v)
    check(lambda L, x: F(L).jacobian(lambda a: a * x, x), x)
    check(lambda L, x: F(L).hessian(lambda a: (a * a * x).sum(), x), x)


def test_outputs_independent_of_an_input_give_zeros():
    x, y = arr(3, seed=1), arr(2, seed=2)
    v = (arr(3, seed=3), arr(3, seed=4))
    check(lambda L, x, y, v: prod(L, 'vjp')(lambda a, b: (a.exp(), a * 2), (x, y), v), x, y, v)
    check(lambda L, x, y, v: prod(L, 'jvp')(lambda a, b: (a.exp(), a * 2), (x, y), (v[0], y)),
          x, y, v)
    # outputs that are constants (no graph at all)
    check(lambda L, x, v: prod(L, 'vjp')(lambda a: (a.detach() * 2, a.sin()), x, v), x, v)
    check(lambda L, x, v: prod(L, 'jvp')(lambda a: (a.detach() * 2, a.sin()), x, v[0]), x, v)
    check(lambda L, x, v: prod(L, 'vjp')(lambda a: L.ones(3), x, v[0]), x, v)
    check(lambda L, x, v: prod(L, 'jvp')(lambda a: L.ones(3), x, v[0]), x, v)
    check(lambda L, x, y: F(L).jacobian(lambda a, b: (a.exp(), L.zeros(2)), (x, y)), x, y)
    check(lambda L, x, y: F(L).hessian(lambda a, b: (a ** 3).sum(), (x, y)), x, y)
    check(lambda L, x, y, v: prod(L, 'vhp')(lambda a, b: (a ** 3).sum(), (x, y), (v[0], y)),
          x, y, v)
    check(lambda L, x, y, v: prod(L, 'hvp')(lambda a, b: (a ** 3).sum(), (x, y), (v[0], y)),
          x, y, v)


def test_grad_mode_disabled_outside():
    """The functions turn grad mode on for ``func``; results follow ``create_graph``."""
    x, v = arr(3, seed=1), arr(3, seed=2)

    def under_no_grad(fname, create_graph):
        def run(L, x, v):
            with L.no_grad():
                out = prod(L, fname)(lambda a: (a.exp() * a).sum() if fname in ('vhp', 'hvp')
                                           else a.exp() * a, x, v, create_graph=create_graph)
            return out + (L.is_grad_enabled(),)
        return run
    for fname in ('vjp', 'jvp', 'vhp', 'hvp'):
        for cg in (False, True):
            check(under_no_grad(fname, cg), x, v)
    check(lambda L, x: _with_no_grad(L, lambda: F(L).jacobian(lambda a: a.exp(), x,
                                                                create_graph=True)), x)
    check(lambda L, x: _with_no_grad(L, lambda: F(L).hessian(lambda a: a.exp().sum(), x)), x)


def _with_no_grad(L, fn):
    with L.no_grad():
        return fn()


def test_results_are_new_objects():
    """Nothing returned is the caller's own tensor object, even for the identity."""
    x, v = ember.randn(3, requires_grad=True), ember.randn(3)
    for fname in ('vjp', 'jvp'):
        for cg in (False, True):
            out, res = getattr(ember.autograd.functional, fname)(lambda a: a, x, v,
                                                                  create_graph=cg)
            assert out is not x and res is not v and res is not x
            np.testing.assert_array_equal(out._data, x._data)
            np.testing.assert_array_equal(res._data, v._data)
            assert out.requires_grad is cg
    o2, (r1, r2) = ember.autograd.functional.vjp(lambda a, b: a + b, (x, x), v)
    assert r1 is not r2 and r1 is not v


def test_float32_and_dtypes():
    x, W = arr(3, seed=1, dtype=np.float32), arr(2, 3, seed=2, dtype=np.float32)
    v2 = arr(2, seed=3, dtype=np.float32)
    check(lambda L, x, W, v: prod(L, 'vjp')(_bind(mat, L), (x, W), v), x, W, v2)
    check(lambda L, x, W: F(L).jacobian(_bind(mat, L), (x, W)), x, W)
    check(lambda L, x: F(L).hessian(lambda a: a.exp().sum(), x), x)


# ---------------------------------------------------------------------------------------
# jacobian / hessian


@pytest.mark.parametrize('vectorize', [False, True])
@pytest.mark.parametrize('create_graph', [False, True])
@pytest.mark.parametrize('as_tuple', [False, True])
@pytest.mark.parametrize('name', list(FUNCS))
def test_jacobian(name, as_tuple, create_graph, vectorize):
    fn, make = FUNCS[name]
    check(lambda L, xs: F(L).jacobian(_bind(fn, L), xs, create_graph=create_graph,
                                      vectorize=vectorize),
          _inputs(make(), as_tuple), double=create_graph)


def test_jacobian_shapes_of_2d_and_0d():
    x = arr(2, 3, seed=1)
    s = arr(seed=2)
    check(lambda L, x: F(L).jacobian(lambda a: a.t() @ a, x), x)
    check(lambda L, x, s: F(L).jacobian(lambda a, b: (a * b, b.exp(), (a * b).sum()), (x, s)),
          x, s)
    check(lambda L, s: F(L).jacobian(lambda a: a.sin(), s), s)
    check(lambda L, x, s: F(L).jacobian(lambda a, b: (a * b).sum(1), (x, s), vectorize=True),
          x, s)


@pytest.mark.parametrize('as_tuple', [False, True])
@pytest.mark.parametrize('name', list(FUNCS))
def test_jacobian_forward_mode(name, as_tuple):
    """Forward mode (which torch supports only with ``vectorize=True``): same values as
    torch, and the same containers (torch gives lists where both levels are kept). ember's
    tangents carry no graph back to the primals, so ``requires_grad`` of the result is not
    compared (torch's has a graph when the inputs require grad)."""
    fn, make = FUNCS[name]
    xs = _inputs(make(), as_tuple)
    check(lambda L, xs: _values(F(L).jacobian(_bind(fn, L), xs, vectorize=True,
                                              strategy='forward-mode')), xs)


def _values(res):
    """Detached copies of a nested result (to compare values, shapes, dtypes only)."""
    if isinstance(res, (tuple, list)):
        return type(res)(_values(r) for r in res)
    return res.detach()


@pytest.mark.parametrize('vectorize', [False, True])
@pytest.mark.parametrize('create_graph', [False, True])
@pytest.mark.parametrize('as_tuple', [False, True])
@pytest.mark.parametrize('name', list(SCALAR))
def test_hessian(name, as_tuple, create_graph, vectorize):
    fn, make = SCALAR[name]
    check(lambda L, xs: F(L).hessian(_bind(fn, L), xs, create_graph=create_graph,
                                     vectorize=vectorize),
          _inputs(make(), as_tuple), double=create_graph)


@pytest.mark.parametrize('fn', [
    lambda L, x: (x ** 3).sum(),
    lambda L, x: (x.sin() * x ** 2).sum(),
    lambda L, x, y: (x.sin() * y.sum() ** 2).sum(),
])
def test_hessian_forward_over_reverse(fn):
    x, y = arr(3, seed=1), arr(2, seed=2)
    xs = (x, y) if fn.__code__.co_argcount == 3 else x
    check(lambda L, xs: _values(F(L).hessian(_bind(fn, L), xs, vectorize=True,
                                             outer_jacobian_strategy='forward-mode')),
          xs, grad=False)


def test_hessian_forward_over_reverse_through_saved_output():
    x = arr(3, seed=1)
    check(lambda L, x: _values(F(L).hessian(lambda a: (a.exp() * a.sin()).sum(), x,
                                            vectorize=True,
                                            outer_jacobian_strategy='forward-mode')),
          x, grad=False)


# ---------------------------------------------------------------------------------------
# vhp / hvp


@pytest.mark.parametrize('fname', ['vhp', 'hvp'])
@pytest.mark.parametrize('create_graph', [False, True])
@pytest.mark.parametrize('as_tuple', [False, True])
@pytest.mark.parametrize('name', list(SCALAR))
def test_vhp_hvp(fname, name, as_tuple, create_graph):
    fn, make = SCALAR[name]
    xs = _inputs(make(), as_tuple)
    v = _v_like(xs, seed=30)
    check(lambda L, xs, v: prod(L, fname)(_bind(fn, L), xs, v,
                                                create_graph=create_graph),
          xs, v, double=create_graph)


@pytest.mark.parametrize('fname', ['vhp', 'hvp'])
def test_vhp_hvp_without_v(fname):
    s = arr(1, seed=1)
    check(lambda L, s: prod(L, fname)(lambda a: (a.exp() * a ** 3).sum(), s), s)
    check(lambda L, s: prod(L, fname)(lambda a: (a ** 4).sum(), (s,), create_graph=True),
          s, double=True)


def test_hvp_is_vhp_transposed():
    """For a twice continuously differentiable function ``hvp == vhp``; and ``vhp`` is a
    row combination of the Hessian."""
    x, W, v = ember.randn(3), ember.randn(2, 3), ember.randn(3)
    f = SCALAR['quad'][0]
    _, a = ember.autograd.functional.vhp(lambda x: f(ember, x, W), x, v)
    _, b = ember.autograd.functional.hvp(lambda x: f(ember, x, W), x, v)
    H = ember.autograd.functional.hessian(lambda x: f(ember, x, W), x)
    np.testing.assert_allclose(a._data, b._data, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(a._data, (v @ H)._data, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------
# strict mode


def _strict_cases():
    two = lambda L, a, b: (a.exp() * 2).sum()             # independent of b   # noqa: E731
    lin = lambda L, a: (a * 3).sum()                     # gradient constant  # noqa: E731
    const = lambda L, a: a.detach().sum()                # no graph at all    # noqa: E731
    ident = lambda L, a: a * 2                           # linear             # noqa: E731
    cube = lambda L, a: (a ** 3).sum()                   # noqa: E731
    return [
        ('vjp', two, 2, False), ('vjp', const, 1, False), ('vjp', ident, 1, True),
        ('vjp', lin, 1, True), ('vjp', cube, 1, True),
        ('jvp', two, 2, False), ('jvp', const, 1, False), ('jvp', ident, 1, False),
        ('jvp', ident, 1, True), ('jvp', cube, 1, True),
        ('jacobian', two, 2, False), ('jacobian', const, 1, False),
        ('jacobian', ident, 1, True), ('jacobian', cube, 1, True),
        ('hessian', two, 2, False), ('hessian', lin, 1, False), ('hessian', const, 1, False),
        ('hessian', cube, 1, False), ('hessian', cube, 1, True),
        ('hessian', lambda L, a: (a ** 2).sum(), 1, True),
        ('vhp', two, 2, False), ('vhp', lin, 1, False), ('vhp', const, 1, False),
        ('vhp', lambda L, a: (a ** 2).sum(), 1, True), ('vhp', cube, 1, True),
        ('hvp', two, 2, False), ('hvp', lin, 1, False), ('hvp', const, 1, False),
        ('hvp', lambda L, a: (a ** 2).sum(), 1, True), ('hvp', cube, 1, True),
    ]


@pytest.mark.parametrize('case', range(len(_strict_cases())))
def test_strict(case):
    fname, fn, n_inputs, create_graph = _strict_cases()[case]
    x, y = arr(3, seed=1), arr(2, seed=2)

    def run(L, x, y):
        xs = (x, y) if n_inputs == 2 else x
        f = prod(L, fname)
        kw = dict(strict=True, create_graph=create_graph)
        if fname in ('jacobian', 'hessian'):
            return f(_bind(fn, L), xs, **kw)
        out0 = fn(L, *(xs if isinstance(xs, tuple) else (xs,)))
        v = (L.ones_like(xs[0]), L.ones_like(xs[1])) if n_inputs == 2 else L.ones_like(
            out0 if fname == 'vjp' else xs)
        return f(_bind(fn, L), xs, v, **kw)
    check(run, x, y, match_message=True, double=create_graph)


def test_strict_with_inputs_not_requiring_grad():
    x = arr(3, seed=1)
    for fname in ('vjp', 'jvp'):
        check(lambda L, x: prod(L, fname)(lambda a: a.sin(), x, L.ones(3), strict=True,
                                                create_graph=True), x, grad=False,
              match_message=True)


# ---------------------------------------------------------------------------------------
# errors


def _err(fn, *args):
    check(fn, *args, match_message=True)


def test_errors_inputs_and_outputs_must_be_tensors():
    x = arr(3, seed=1)
    sq = lambda a: (a * a).sum()  # noqa: E731
    for fname in ('vjp', 'jvp', 'jacobian', 'hessian', 'vhp', 'hvp'):
        _err(lambda L, x: prod(L, fname)(sq, [x, x]), x)
        _err(lambda L, x: prod(L, fname)(sq, (x, 2.0)), x)
        _err(lambda L, x: prod(L, fname)(sq, 3.0), x)
    for fname in ('vjp', 'jvp', 'jacobian'):
        _err(lambda L, x: prod(L, fname)(lambda a: [a, a], x), x)
        _err(lambda L, x: prod(L, fname)(lambda a: (a, 1), x), x)
        _err(lambda L, x: prod(L, fname)(lambda a: a.sum().item(), x), x)
    for fname in ('hessian', 'vhp', 'hvp'):
        _err(lambda L, x: prod(L, fname)(lambda a: [a.sum()], x), x)
        _err(lambda L, x: prod(L, fname)(lambda a: 1.0, x), x)
    _err(lambda L, x: prod(L, 'vjp')(lambda a: a * 2, x, [L.ones(3)]), x)
    _err(lambda L, x: prod(L, 'jvp')(lambda a: a * 2, x, 1.0), x)
    _err(lambda L, x: prod(L, 'vhp')(sq, x, (L.ones(3), 'a')), x)


def test_errors_v():
    x, y = arr(3, seed=1), arr(2, seed=2)
    sq = lambda a: (a * a).sum()  # noqa: E731
    sq2 = lambda a, b: (a * a).sum() + b.sum()  # noqa: E731
    # v=None needs a single one-element output (vjp) / input (others)
    _err(lambda L, x: prod(L, 'vjp')(lambda a: a * 2, x), x)
    _err(lambda L, x: prod(L, 'vjp')(lambda a: (a.sum(), a.sum()), x), x)
    for fname in ('jvp', 'vhp', 'hvp'):
        _err(lambda L, x: prod(L, fname)(sq, x), x)
        _err(lambda L, x: prod(L, fname)(lambda a: a.sum(), (x[:1], x[:1])), x)
    # wrong number of entries, wrong shapes
    _err(lambda L, x: prod(L, 'vjp')(lambda a: a * 2, x, (L.ones(3), L.ones(3))), x)
    _err(lambda L, x: prod(L, 'vjp')(lambda a: (a, a), x, (L.ones(3),)), x)
    _err(lambda L, x: prod(L, 'vjp')(lambda a: a * 2, x, L.ones(4)), x)
    _err(lambda L, x: prod(L, 'vjp')(lambda a: (a, a.sum()), x, (L.ones(3), L.ones(1))), x)
    for fname in ('jvp', 'vhp', 'hvp'):
        _err(lambda L, x: prod(L, fname)(sq, x, (L.ones(3), L.ones(3))), x)
        _err(lambda L, x: prod(L, fname)(sq, x, L.ones(3, 1)), x)
        _err(lambda L, x, y: prod(L, fname)(sq2, (x, y), (L.ones(3),)), x, y)
        _err(lambda L, x, y: prod(L, fname)(sq2, (x, y), (L.ones(3), L.ones(3))), x, y)


def test_errors_scalar_function_required():
    x = arr(3, seed=1)
    for fname in ('vhp', 'hvp'):
        _err(lambda L, x: prod(L, fname)(lambda a: a * 2, x, L.ones(3)), x)
        _err(lambda L, x: prod(L, fname)(lambda a: (a.sum(),), x, L.ones(3)), x)
    _err(lambda L, x: F(L).hessian(lambda a: a * 2, x), x)
    _err(lambda L, x: F(L).hessian(lambda a: (a.sum(),), x), x)


def test_errors_strategies():
    x = arr(3, seed=1)
    f = lambda a: a.exp()  # noqa: E731
    _err(lambda L, x: F(L).jacobian(f, x, strategy='sideways'), x)
    _err(lambda L, x: F(L).jacobian(f, x, strategy='forward-mode'), x)
    _err(lambda L, x: F(L).jacobian(f, x, strategy='forward-mode', create_graph=True), x)
    _err(lambda L, x: F(L).jacobian(f, x, strategy='forward-mode', strict=True,
                                    vectorize=True), x)
    _err(lambda L, x: F(L).jacobian(f, x, strict=True, vectorize=True), x)
    _err(lambda L, x: F(L).hessian(lambda a: a.exp().sum(), x,
                                   outer_jacobian_strategy='sideways'), x)
    _err(lambda L, x: F(L).hessian(lambda a: a.exp().sum(), x,
                                   outer_jacobian_strategy='forward-mode'), x)


def test_lazy_module_access():
    import ember.autograd.functional as mod
    assert ember.autograd.functional is mod
    for name in mod.__all__:
        assert getattr(mod, name).__doc__
    assert sorted(mod.__all__) == sorted(torch.autograd.functional.__all__)


def _structure(r):
    """The containers of a result, by type, with 'T' for each tensor."""
    if isinstance(r, (tuple, list)):
        return (type(r).__name__,) + tuple(_structure(e) for e in r)
    return 'T'


@pytest.mark.parametrize('single_in', [True, False])
@pytest.mark.parametrize('single_out', [True, False])
def test_returned_structure_matches_torch(single_in, single_out):
    """Tuple (or list) at every level of the result, for each combination of single/tuple
    inputs and outputs -- ``check`` alone does not tell a list from a tuple."""
    x = arr(3, seed=1)
    got = []
    for L in (ember, torch):
        t = L.tensor(x)
        xs = t if single_in else (t,)
        f = (lambda a: a * 2) if single_out else (lambda a: (a * 2,))
        s = (lambda a: (a * a).sum())
        vo = L.ones(3) if single_out else (L.ones(3),)
        got.append([_structure(r) for r in (
            F(L).jacobian(f, xs), F(L).jacobian(f, xs, vectorize=True),
            F(L).jacobian(f, xs, vectorize=True, strategy='forward-mode'),
            F(L).hessian(s, xs), F(L).hessian(s, xs, vectorize=True),
            F(L).hessian(s, xs, vectorize=True, outer_jacobian_strategy='forward-mode'),
            F(L).vjp(f, xs, vo), F(L).jvp(f, xs, L.ones(3)), F(L).vhp(s, xs, L.ones(3)),
            F(L).hvp(s, xs, L.ones(3)))])
    assert got[0] == got[1]


def test_edge_cases():
    x, y = arr(2, seed=1), arr(1, seed=2)
    # vectorized rows span all outputs: a block an output does not depend on still has the
    # graph of its input's batch (as in torch), unlike the row-by-row path
    for vec in (False, True):
        check(lambda L, x, y: F(L).jacobian(lambda a, b: (a.exp(), b * a.sum()), (x, y),
                                            vectorize=vec, create_graph=True), x, y)
    # empty outputs / inputs
    _err(lambda L, x: F(L).jacobian(lambda a: a[:0], x), x)
    _err(lambda L, x: F(L).jacobian(lambda a: a[:0], x, vectorize=True), x)
    check(lambda L, x: F(L).jacobian(lambda a: (a[:0], a * 2), x, vectorize=True), x)
    check(lambda L, x: F(L).jacobian(lambda a: a.sum() + 1, x[:0]), x)
    check(lambda L, x: F(L).jacobian(lambda a: a * 2, x[:0].detach(), vectorize=True,
                                     strategy='forward-mode'), x)
    check(lambda L, x: _values(F(L).jacobian(lambda a, b: a * 2, (x, x[:0]), vectorize=True,
                                             strategy='forward-mode')), x)
    # no inputs, no outputs
    _err(lambda L: F(L).jacobian(lambda: L.ones(2), ()))
    _err(lambda L: F(L).vjp(lambda: L.ones(2), (), L.ones(2)))
    _err(lambda L, x: F(L).jacobian(lambda a: (), x), x)
    _err(lambda L, x: F(L).vjp(lambda a: (), x), x)
    _err(lambda L, x: F(L).jacobian(lambda a: (a, 1), x, vectorize=True,
                                    strategy='forward-mode'), x)
    # integer outputs are constants; integer inputs cannot require grad
    check(lambda L, x: prod(L, 'vjp')(lambda a: (a > 0).long(), x, L.tensor([1, 1])), x)
    check(lambda L, x: F(L).jacobian(lambda a: ((a > 0).long(), a * 2), x), x)
    _err(lambda L: F(L).vjp(lambda a: a * 2, L.tensor([1, 2]), L.tensor([1, 1])))
    # v of another dtype is cast to the output's
    check(lambda L, x: prod(L, 'vjp')(lambda a: a * 2, x, L.tensor([1, 2])), x)
    check(lambda L, x: prod(L, 'jvp')(lambda a: a * 2, x.float(), L.ones(2, dtype=L.float64)),
          x)
    # a 0-d input; a (1, 1) output of hessian is squeezed
    check(lambda L, x: _values(F(L).jacobian(lambda a: (a * 2, a.sum()), x[0], vectorize=True,
                                             strategy='forward-mode')), x)
    check(lambda L, x: F(L).hessian(lambda a: (a ** 3).sum().reshape(1, 1), x), x)
    # the function returns its own argument
    check(lambda L, x, v: prod(L, 'jvp')(lambda a: a, x, v, create_graph=True), x, y.repeat(2))
    check(lambda L, x, v: prod(L, 'vjp')(lambda a: a, x, v, create_graph=True), x, y.repeat(2))
    check(lambda L, x: F(L).jacobian(lambda a: a, x, create_graph=True), x)


def test_create_graph_result_differentiates_to_the_input():
    """``hessian(create_graph=True)`` is differentiable: its derivative is the third
    derivative, compared element by element with torch."""
    x = arr(3, seed=4)
    out = []
    for L in (ember, torch):
        t = L.tensor(x, requires_grad=True)
        H = F(L).hessian(lambda a: (a ** 4 * a.sin()).sum(), t, create_graph=True)
        g, = L.autograd.grad(H.sum(), t)
        out.append((H, g))
    assert_same_tensor(out[0][0], out[1][0], 'hessian')
    assert_same_tensor(out[0][1], out[1][1], 'third derivative')
