"""Custom ``autograd.Function``, gradcheck/gradgradcheck and forward AD, adapted from the
scenarios PyTorch's own test suite exercises (test/test_autograd.py).

Every test body is written once against ``lib`` and runs twice: on ember and on real torch
2.13. The torch run proves the expectation is torch's behaviour; the ember run is the test.
Where ember is known to differ, only its run is marked xfail (strict), with the reason.
"""
import gc
import warnings
import weakref
from importlib import import_module

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed; "
                            "`pip install -e '.[test]'` brings it")
torch.set_num_threads(1)


def libs(xfail=None):
    """Parametrizes a test over ember and torch; ``xfail`` marks only ember's run."""
    marks = pytest.mark.xfail(strict=True, reason=xfail) if xfail else ()
    return pytest.mark.parametrize('lib', [pytest.param(ember, id='ember', marks=marks),
                                           pytest.param(torch, id='torch')])


both = libs()


def once_differentiable(lib):
    return import_module(lib.__name__ + '.autograd.function').once_differentiable


def fwad(lib):
    return lib.autograd.forward_ad


def npy(t):
    t = t.detach()
    return np.array(t._data) if isinstance(t, ember.Tensor) else t.numpy().copy()


def close(a, b, rtol=1e-7, atol=1e-9):
    a = npy(a) if hasattr(a, 'detach') else np.asarray(a)
    b = npy(b) if hasattr(b, 'detach') else np.asarray(b)
    assert a.shape == b.shape, f"shape {a.shape} != {b.shape}"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def rnd(*shape, seed=0, low=None, high=None):
    rng = np.random.default_rng(seed)
    if low is not None:
        return np.asarray(rng.uniform(low, high, shape))
    return np.asarray(rng.standard_normal(shape))


def T(lib, a, grad=False, dtype=None):
    t = lib.tensor(np.asarray(a, dtype=dtype or np.float64))
    return t.requires_grad_() if grad else t


# -------------------------------------------------------------------------------------------
# Basics: forward/backward, Python scalars, saved tensors, graph structure
# -------------------------------------------------------------------------------------------
def _scalar_mix(lib):
    class ScalarMix(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, k, b):
            ctx.k = k
            ctx.save_for_backward(a, b)
            return a + k * b + a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            assert isinstance(a, lib.Tensor) and isinstance(g, lib.Tensor)
            return g + g * b, None, g * ctx.k + g * a
    return ScalarMix


@both
def test_python_scalar_between_tensors_and_create_graph(lib):
    F = _scalar_mix(lib)
    x, y = T(lib, rnd(4, 4), True), T(lib, rnd(4, 4, seed=1), True)
    out = F.apply(x, 2, y)
    seed = lib.ones((), dtype=lib.float64, requires_grad=True)
    out.sum().backward(seed, create_graph=True)
    close(x.grad, npy(y) + 1)
    close(y.grad, npy(x) + 2)
    # the gradients were built by differentiable ops: they have history of their own
    assert x.grad.grad_fn is not None and y.grad.grad_fn is not None
    # d(sum x.grad)/dy = 1 everywhere: differentiate the first gradient again
    g2, = lib.autograd.grad(x.grad.sum(), y)
    close(g2, np.ones((4, 4)))


@both
def test_grad_fn_class_name_and_backward_cls(lib):
    F = _scalar_mix(lib)
    x, y = T(lib, rnd(3), True), T(lib, rnd(3, seed=1))
    out = F.apply(x, 2, y)
    assert type(out.grad_fn).__name__ == 'ScalarMixBackward'
    assert out.grad_fn.name() == 'ScalarMixBackward'
    assert type(out.grad_fn) is F._backward_cls
    # one edge per tensor argument (the int has none); y needs no grad: empty edge
    nf = out.grad_fn.next_functions
    assert len(nf) == 2
    assert type(nf[0][0]).__name__ == 'AccumulateGrad' and nf[0][1] == 0
    assert nf[1] == (None, 0)
    assert nf[0][0].variable is x


@both
def test_function_returns_input_for_scalar_and_one_element(lib):
    class Id2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    for shape in [(1,), ()]:
        v = lib.ones(shape, requires_grad=True)
        Id2.apply(v).backward()
        close(v.grad, np.full(shape, 2.0, np.float32))
        with lib.no_grad():
            v.grad.zero_()
        Id2.apply(v.clone()).backward()
        close(v.grad, np.full(shape, 2.0, np.float32))


@both
def test_backward_returning_none_leaves_grad_undefined(lib):
    class Drop(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return None

    x = lib.ones(1, requires_grad=True)
    Drop.apply(x).backward()
    assert x.grad is None
    Drop.apply(x ** 2).backward()
    assert x.grad is None
    Drop.apply(x).sum().backward()
    assert x.grad is None
    assert lib.autograd.grad(Drop.apply(x), x, allow_unused=True)[0] is None


@both
def test_save_none_for_backward(lib):
    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(None, x, None)
            return x * x

        @staticmethod
        def backward(ctx, g):
            n1, x, n2 = ctx.saved_tensors
            assert n1 is None and n2 is None
            return 2 * x * g

    x = T(lib, rnd(3, 3), True)
    Sq.apply(x).sum().backward()
    close(x.grad, 2 * npy(x))


@both
def test_saved_tensors_on_grad_fn_and_empty_when_nothing_saved(lib):
    def make(save):
        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                if save:
                    ctx.save_for_backward(x, None)
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        return Keep

    a = T(lib, rnd(5), True)
    y = make(True).apply(a)
    s = y.grad_fn.saved_tensors
    assert len(s) == 2 and s[0] is a and s[1] is None
    y = make(False).apply(a)
    assert y.grad_fn.saved_tensors == ()


@both
def test_saved_tensors_freed_after_backward(lib):
    stash = []

    class Id(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            stash.append(ctx)
            return ctx.saved_tensors

    p = lib.zeros(1, requires_grad=True)
    loss = Id.apply(p)
    loss.backward(retain_graph=True)
    assert stash[0].saved_tensors[0] is p  # retained: still readable
    loss.backward()
    close(p.grad, np.zeros(1, np.float32))  # backward returned the (zero) saved input
    del loss
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        stash[0].saved_tensors


@libs()
def test_save_for_backward_rejects_non_tensors(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="save_for_backward can only save variables, but "
                                        "argument 1 is of type int"):
        Bad.apply(lib.ones(2, requires_grad=True))


@both
def test_too_many_gradients_trailing_none_are_dropped(lib):
    class Id(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    x = T(lib, rnd(5, 5), True)
    Id.apply(x).sum().backward()
    close(x.grad, np.ones((5, 5)))


@both
def test_gradient_with_wrong_numel_is_rejected(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return lib.ones(10)

    x = lib.ones(5, 5, requires_grad=True)
    with pytest.raises(RuntimeError, match="expected shape"):
        Bad.apply(x).sum().backward()


@both
def test_gradient_of_other_dtype_is_cast_to_the_inputs(lib):
    class Wide(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return (g * 3).to(lib.float64)

    x = lib.ones(3, requires_grad=True)  # float32
    Wide.apply(x).sum().backward()
    assert x.grad.dtype == lib.float32
    close(x.grad, np.full(3, 3., np.float32))


@both
def test_gradient_for_input_not_requiring_grad_is_ignored(lib):
    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a  # computes both regardless of needs_input_grad

    a, b = T(lib, rnd(3)), T(lib, rnd(3, seed=1), True)
    Mul.apply(a, b).sum().backward()
    assert a.grad is None
    close(b.grad, npy(a))


@both
def test_needs_input_grad_reflects_each_argument(lib):
    seen = []

    class Probe(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k, c, d):
            seen.append(ctx.needs_input_grad)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.needs_input_grad)
            return g * 2, None, None, None, None

    a = lib.ones(2, requires_grad=True)
    b = lib.ones(2)
    c = lib.ones(2, dtype=lib.float64, requires_grad=True)
    Probe.apply(a, b, 3.0, c, None).sum().backward()
    assert seen == [(True, False, False, True, False)] * 2


@both
def test_no_grad_input_gives_output_without_history(lib):
    class Id(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = T(lib, rnd(5), True)
    with lib.no_grad():
        y = Id.apply(x)
    assert not y.requires_grad and y.grad_fn is None
    z = Id.apply(T(lib, rnd(5)))  # nothing requires grad: nothing recorded either
    assert not z.requires_grad and z.grad_fn is None


@both
def test_grad_mode_inside_forward_and_backward(lib):
    modes = {}

    class Probe(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            modes['forward'] = lib.is_grad_enabled()
            inner = x * 2
            modes['inner_requires_grad'] = inner.requires_grad
            return inner

        @staticmethod
        def backward(ctx, g):
            modes.setdefault('backward', []).append(lib.is_grad_enabled())
            return g * 2

    x = lib.ones(2, requires_grad=True)
    y = Probe.apply(x)
    assert modes['forward'] is False and modes['inner_requires_grad'] is False
    # the only node is the Function's own: the multiplication inside was not recorded
    assert type(y.grad_fn).__name__ == 'ProbeBackward'
    y.sum().backward(retain_graph=True)
    lib.autograd.grad(y.sum(), x, create_graph=True)
    assert modes['backward'] == [False, True]


@both
def test_non_tensor_inputs_and_outputs(lib):
    once = once_differentiable(lib)

    class Mixed(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t1, t2, scale, t3):
            t4 = (t1 + t2 * t3) * scale
            t5 = (t1 * t2 + t3) * scale
            ctx.scale = scale
            ctx.save_for_backward(t1, t2, t3)
            return scale, t4, None, True, t5, "bar", t1

        @staticmethod
        @once
        def backward(ctx, *grads):
            assert len(grads) == 7
            s = ctx.scale
            v1, v2, v3 = ctx.saved_tensors
            return (grads[1] * s + grads[4] * v2 * s + grads[6],
                    grads[1] * v3 * s + grads[4] * v1 * s,
                    None,
                    grads[1] * v2 * s + grads[4] * s)

    t1, t2 = T(lib, rnd(6, seed=1), True), T(lib, rnd(6, seed=2), True)
    t3 = T(lib, rnd(6, seed=3))
    res = Mixed.apply(t1, t2, 4, t3)
    assert res[0] == 4 and res[2] is None and res[3] is True and res[5] == "bar"
    close(res[1], (npy(t1) + npy(t2) * npy(t3)) * 4)
    close(res[4], (npy(t1) * npy(t2) + npy(t3)) * 4)
    close(res[6], npy(t1))
    lib.autograd.backward([res[1].sum(), res[4].sum(), res[6].sum()])
    close(t1.grad, 4 + 4 * npy(t2) + 1)
    close(t2.grad, 4 * npy(t3) + 4 * npy(t1))
    assert t3.grad is None

    def pick(a, b, c):
        r = Mixed.apply(a, b, 4, c)
        return r[1], r[4], r[6]
    assert lib.autograd.gradcheck(pick, (t1, t2, t3))


@libs()
def test_backward_gets_none_for_non_tensor_outputs(lib):
    seen = []

    class Mixed(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return 3, x * 2, None, True, "bar"

        @staticmethod
        def backward(ctx, *grads):
            seen.append([g is None for g in grads])
            return grads[1] * 2

    x = T(lib, rnd(3), True)
    Mixed.apply(x)[1].sum().backward()
    assert seen == [[True, False, True, True, True]]
    close(x.grad, np.full(3, 2.))


@both
def test_no_tensor_arguments_at_all(lib):
    class Plain(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, scale, c):
            return scale, (a + b * c) * scale, None, True, "bar", a

        @staticmethod
        def backward(ctx, *grads):
            return grads

    res = Plain.apply(0.5, 0.25, 3, 2.0)
    assert res == (3, (0.5 + 0.25 * 2.0) * 3, None, True, "bar", 0.5)


@both
def test_exception_in_backward_propagates(lib):
    once = once_differentiable(lib)

    class Boom(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        @once
        def backward(ctx, g):
            raise ValueError("Simulate error on backward pass")

    t1, t2 = T(lib, rnd(3, 3), True), T(lib, rnd(3, 3, seed=1), True)
    tmp = (t1 + t2) * (t1 + t2)
    with pytest.raises(ValueError, match="Simulate error on backward pass"):
        Boom.apply(tmp).sum().backward()


# -------------------------------------------------------------------------------------------
# Errors for badly written Functions
# -------------------------------------------------------------------------------------------
@both
def test_missing_forward_raises_not_implemented(lib):
    class NoFw(lib.autograd.Function):
        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(NotImplementedError, match="must implement the forward"):
        NoFw.apply(lib.ones(1, requires_grad=True))


@both
def test_missing_backward_raises_at_backward_time(lib):
    class NoBw(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

    y = NoBw.apply(lib.ones(1, requires_grad=True))  # forward alone is fine
    with pytest.raises(RuntimeError, match="must implement either the backward or vjp"):
        y.sum().backward()


@libs()
def test_defining_both_backward_and_vjp_is_an_error(lib):
    class Both(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def vjp(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="Implementing both 'backward' and 'vjp'"):
        Both.apply(lib.ones(1, requires_grad=True)).sum().backward()


@both
def test_instantiating_a_function_warns_and_calling_it_raises(lib):
    class Id(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        f = Id()
    assert isinstance(f, Id)
    with pytest.raises(RuntimeError, match="non-static forward method is deprecated"):
        f(lib.zeros(1, requires_grad=True))
    assert Id.apply(lib.zeros(1, requires_grad=True)).grad_fn.name() == 'IdBackward'


@both
def test_legacy_non_static_forward_raises(lib):
    class Legacy(lib.autograd.Function):
        def forward(self, x):
            return x

        def backward(self, g):
            return g

    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        inst = Legacy()
    with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward "
                                           "method is deprecated"):
        inst(lib.ones(3, 4))


# -------------------------------------------------------------------------------------------
# once_differentiable
# -------------------------------------------------------------------------------------------
@both
def test_once_differentiable_runs_without_grad_and_blocks_double_backward(lib):
    once = once_differentiable(lib)
    modes = []

    class Mix(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, k, b):
            ctx.k = k
            ctx.save_for_backward(a, b)
            return a + k * b + a * b

        @staticmethod
        @once
        def backward(ctx, g):
            modes.append(lib.is_grad_enabled())
            a, b = ctx.saved_tensors
            return g + g * b, None, g * ctx.k + g * a

    x, y = T(lib, rnd(3, 3), True), T(lib, rnd(3, 3, seed=1), True)
    seed = lib.ones((), dtype=lib.float64, requires_grad=True)
    Mix.apply(x, 2, y).sum().backward(seed, create_graph=True)
    assert modes == [False]
    close(x.grad, npy(y) + 1)
    close(y.grad, npy(x) + 2)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was "
                                           "marked with @once_differentiable"):
        x.grad.sum().backward()


@both
def test_once_differentiable_without_create_graph_gives_plain_grads(lib):
    once = once_differentiable(lib)

    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = T(lib, rnd(4), True)
    g, = lib.autograd.grad(Sq.apply(x).sum(), x)
    assert not g.requires_grad and g.grad_fn is None
    close(g, 2 * npy(x))


@both
def test_gradgradcheck_fails_on_once_differentiable(lib):
    once = once_differentiable(lib)

    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = T(lib, rnd(3), True)
    assert lib.autograd.gradcheck(Sq.apply, (x,))
    # torch reports a zero analytical second derivative, ember the once_differentiable error
    with pytest.raises(RuntimeError):
        lib.autograd.gradgradcheck(Sq.apply, (x,))


@libs()
def test_once_differentiable_gradient_wrt_the_seed_is_unused(lib):
    once = once_differentiable(lib)

    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = T(lib, rnd(3), True)
    seed = T(lib, np.ones(3), True)
    g, = lib.autograd.grad(Sq.apply(x), x, seed, create_graph=True)
    assert g.requires_grad
    assert lib.autograd.grad(g.sum(), x, allow_unused=True) == (None,)
    assert lib.autograd.grad(g.sum(), seed, allow_unused=True) == (None,)


# -------------------------------------------------------------------------------------------
# materialize_grads and non-differentiable outputs
# -------------------------------------------------------------------------------------------
@both
def test_unused_output_gets_zeros_of_its_own_shape_and_dtype(lib):
    seen = []

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, (x.sum(0) * 3).to(lib.float32)

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((tuple(g2.shape), g2.dtype, bool((g2 == 0).all())))
            return g1 * 2 + g2.to(g1.dtype) * 3

    x = T(lib, rnd(2, 3), True)
    a, b = Two.apply(x)
    a.sum().backward()
    assert seen == [((3,), lib.float32, True)]
    close(x.grad, np.full((2, 3), 2.))


@both
def test_non_differentiable_output_gets_zero_grad_by_default(lib):
    seen = []

    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out0, out1 = x.clone(), x.clone()
            ctx.mark_non_differentiable(out1)
            return out0, out1

        @staticmethod
        def backward(ctx, g0, g1):
            seen.append(g1 is not None and bool((g1 == 0).all()))
            return g0

    a = lib.tensor(1.0, requires_grad=True)
    out0, out1 = F.apply(a)
    assert out0.requires_grad and not out1.requires_grad and out1.grad_fn is None
    out0.backward()
    assert seen == [True]


@both
def test_mark_non_differentiable_mask(lib):
    class Mask(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x > 0
            ctx.mark_non_differentiable(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return (g * 0).to(lib.float64)

    x = T(lib, rnd(5, 5), True)
    mask = Mask.apply(x)
    assert not mask.requires_grad
    x.masked_fill(mask, 0).sum().backward()
    close(x.grad, (npy(x) <= 0).astype(np.float64))


@both
def test_mark_non_differentiable_mixed(lib):
    class Mixed(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x + 1, x + 2
            ctx.mark_non_differentiable(a)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            assert bool((ga == 0).all()) and bool((gb == 1).all())
            return gb

    x = T(lib, rnd(5, 5), True)
    a, b = Mixed.apply(x)
    assert not a.requires_grad and b.requires_grad
    b.sum().backward()
    close(x.grad, np.ones((5, 5)))


@both
def test_mark_non_differentiable_returning_none_gradient(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.clone()
            ctx.mark_non_differentiable(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return None

    x = T(lib, rnd(5, 5), True)
    r = F.apply(x * x)
    (r * x).sum().backward()
    close(x.grad, npy(x) ** 2)


@both
def test_non_differentiable_output_feeding_another_function(lib):
    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = lib.zeros_like(x) + 7
            ctx.mark_non_differentiable(out)
            return x, out

        @staticmethod
        def backward(ctx, g, ignored):
            return g

    class Take(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, ignored):
            return x

        @staticmethod
        def backward(ctx, g):
            return g, None

    x = T(lib, rnd(5), True)
    a, b = Split.apply(x)
    b = b + 1
    assert a.requires_grad and not b.requires_grad
    c = Take.apply(a, b)
    c.backward(lib.ones(c.size(), dtype=lib.float64))
    close(x.grad, np.ones(5))


@both
def test_set_materialize_grads_false_with_two_outputs(lib):
    seen = []

    class Pair(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.set_materialize_grads(False)
            return x.clone(), y.clone()

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1 is None, g2 is None))
            return g1, g2

    x, y = T(lib, rnd(2), True), T(lib, rnd(2, seed=1), True)
    a, b = Pair.apply(x, y)
    b.sum().backward()
    assert seen == [(True, False)]
    assert x.grad is None
    close(y.grad, np.ones(2))


@both
def test_integer_outputs_never_require_grad(lib):
    class ArgSort(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            v, i = x.sort()
            return v, i

        @staticmethod
        def backward(ctx, gv, gi):
            return gv

    v, i = ArgSort.apply(T(lib, rnd(4), True))
    assert v.requires_grad and not i.requires_grad and i.grad_fn is None


# -------------------------------------------------------------------------------------------
# Returning inputs, duplicates, mark_dirty
# -------------------------------------------------------------------------------------------
@both
def test_returned_leaf_gets_only_its_own_gradient_through_hooks(lib):
    called = []

    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a, a + b

        @staticmethod
        def backward(ctx, ga, gb):
            return ga + gb, gb

    x, y = T(lib, rnd(5, 5), True), T(lib, rnd(5, 5, seed=1), True)
    q, p = Ident.apply(x, y)
    assert q is not x

    def hook(g):
        called.append(True)
        close(g, np.ones((5, 5)))
    q.register_hook(hook)
    (q + p + x).sum().backward()
    close(x.grad, np.full((5, 5), 3.))
    close(y.grad, np.ones((5, 5)))
    assert called == [True]


@both
def test_mark_dirty_on_input_not_requiring_grad(lib):
    class Inplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_dirty(a)
            return a.add_(b), b + 2

        @staticmethod
        def backward(ctx, ga, gb):
            return ga, ga + gb

    x, y = T(lib, rnd(5, 5)), T(lib, rnd(5, 5, seed=1), True)
    xv = npy(x)
    q, p = Inplace.apply(x, y)
    assert q is x
    assert type(q.grad_fn) is Inplace._backward_cls and q.requires_grad
    close(q, xv + npy(y))
    q.sum().backward()
    close(y.grad, np.ones((5, 5)))


@both
def test_duplicate_outputs_are_the_same_object_and_check(lib):
    class Dup(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            return out, out

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 2

    def fn(x):
        a, b = Dup.apply(x)
        assert a is b
        return a + b

    x = T(lib, rnd(5, 5), True)
    assert lib.autograd.gradcheck(fn, [x])
    assert lib.autograd.gradgradcheck(fn, [x])


@both
def test_duplicate_outputs_of_an_inplace_function(lib):
    class DoubleInplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 2

    def fn(x):
        a, b = DoubleInplace.apply(x.clone())
        assert a is b
        return a + b

    x = T(lib, rnd(5, 5), True)
    assert lib.autograd.gradcheck(fn, [x])
    assert lib.autograd.gradgradcheck(fn, [x])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        DoubleInplace.apply(x)


@libs()
def test_inplace_function_on_view_must_return_one_output(lib):
    class DoubleInplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 2

    x = T(lib, rnd(5, 5), True)
    with pytest.raises(RuntimeError, match="modifies inplace an input that is a view of another "
                                           "Tensor, your Function cannot return more than one "
                                           "Tensor"):
        DoubleInplace.apply(x.clone()[0])


@both
def test_mark_dirty_then_save_the_modified_input(lib):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            out, = ctx.saved_tensors
            ctx.seen = npy(out)
            return g * 2

    leaf = T(lib, rnd(3), True)
    z = leaf.clone()
    y = Twice.apply(z)
    assert y is z and z._version >= 1
    y.sum().backward()
    close(leaf.grad, np.full(3, 2.))
    close(y.grad_fn.seen, 2 * npy(leaf))


@libs()
def test_mark_dirty_on_view_rewrites_the_base(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    leaf = T(lib, [1., 2., 3.], True)
    base = leaf.clone()
    view = base[:2]
    Double.apply(view)
    close(base, [2., 4., 3.])
    base.sum().backward()
    close(leaf.grad, [2., 2., 1.])


@both
def test_mark_dirty_of_a_tensor_not_returned_raises(lib):
    class Lost(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            tmp = x * 1
            tmp.add_(1)
            ctx.mark_dirty(tmp)
            return tmp * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="inplace must all be outputs"):
        Lost.apply(T(lib, rnd(3), True))


@both
def test_local_inplace_in_forward_keeps_function_grad_fn(lib):
    class Local(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp, inplace):
            view = inp.clone()[:3]
            if inplace:
                view += 2
            return view

        @staticmethod
        def backward(ctx, g):
            return g, None

    base = T(lib, rnd(10), True)
    assert type(Local.apply(base, False).grad_fn).__name__ == 'LocalBackward'
    assert type(Local.apply(base, True).grad_fn).__name__ == 'LocalBackward'


@both
def test_view_returned_in_no_grad_does_not_require_grad(lib):
    class Alias(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:]

        @staticmethod
        def backward(ctx, g):
            return g

    inp = T(lib, rnd(2), True)
    with lib.no_grad():
        out = Alias.apply(inp)
        expected = inp[:]
    assert out.requires_grad == expected.requires_grad
    assert out.grad_fn is None


@libs()
def test_view_made_in_no_grad_keeps_requires_grad_and_refuses_inplace(lib):
    class Alias(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:]

        @staticmethod
        def backward(ctx, g):
            return g

    inp = T(lib, rnd(2), True)
    with lib.no_grad():
        out = Alias.apply(inp)
    assert out.requires_grad
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being "
                                           "modified inplace with grad mode enabled"):
        out.zero_()


@libs()
def test_inplace_on_view_returned_by_function_is_refused(lib):
    class ViewFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp.view_as(inp)

        @staticmethod
        def backward(ctx, g):
            return g

    view_a = ViewFn.apply(T(lib, rnd(1, 2)))
    b = T(lib, rnd(1), True)
    with pytest.raises(RuntimeError, match="This view was created inside a custom Function"):
        view_a += b


# -------------------------------------------------------------------------------------------
# Version counters of saved tensors
# -------------------------------------------------------------------------------------------
@both
def test_saved_output_modified_in_place_is_caught(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

    x = T(lib, rnd(3), True)
    y = Exp.apply(x)
    with lib.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@both
def test_saved_input_modified_makes_saved_tensors_raise(lib):
    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = T(lib, rnd(3), True)
    z = x * 1
    y = Sq.apply(z)
    before = z._version
    assert len(y.grad_fn.saved_tensors) == 1
    with lib.no_grad():
        z.mul_(2)
    assert z._version == before + 1
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        y.grad_fn.saved_tensors


@both
def test_saved_tensor_shares_version_with_original(lib):
    class Keep(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3

    a = T(lib, rnd(2), True)
    b = a.exp()
    y = Keep.apply(b)
    s, = y.grad_fn.saved_tensors
    close(s, b)
    assert s._version == b._version


# -------------------------------------------------------------------------------------------
# setup_context style
# -------------------------------------------------------------------------------------------
@both
def test_setup_context_simple(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x

    x = T(lib, rnd(), True)
    gx, = lib.autograd.grad(Square.apply(x), x)
    close(gx, 2 * npy(x))


@both
def test_setup_context_multi_output_with_python_value(lib):
    once = once_differentiable(lib)

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 2, x.item() * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, two_x = output
            ctx.two_x = two_x

        @staticmethod
        @once
        def backward(ctx, g, _):
            return g * ctx.two_x

    x = T(lib, rnd(), True)
    y, two_x = Square.apply(x)
    assert isinstance(two_x, float)
    gx, = lib.autograd.grad(y, x)
    close(gx, 2 * npy(x))


@both
def test_setup_context_multi_input_matches_ctx_style(lib):
    class Reshape(lib.autograd.Function):
        @staticmethod
        def forward(x, shape, scale_forward, scale_backward):
            return x.reshape(shape) * scale_forward

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, shape, scale_forward, scale_backward = inputs
            ctx.scale_backward = scale_backward
            ctx.x_shape = x.shape

        @staticmethod
        def backward(ctx, g):
            return g.reshape(ctx.x_shape) * ctx.scale_backward, None, None, None

    class ReshapeRef(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, shape, scale_forward, scale_backward):
            ctx.scale_backward = scale_backward
            ctx.x_shape = x.shape
            return x.reshape(shape) * scale_forward

        @staticmethod
        def backward(ctx, g):
            return g.reshape(ctx.x_shape) * ctx.scale_backward, None, None, None

    for shape_in, shape, sf, sb in [((24,), (3, 8), 7, 11), ((2, 3, 4), (6, 4), -1, 2)]:
        x = T(lib, rnd(*shape_in), True)
        y = Reshape.apply(x, shape, sf, sb)
        ref = ReshapeRef.apply(x, shape, sf, sb)
        assert tuple(y.shape) == shape
        close(y, ref)
        gx, = lib.autograd.grad(y.sum(), x)
        gref, = lib.autograd.grad(ref.sum(), x)
        close(gx, gref)
        close(gx, np.full(shape_in, float(sb)))


@both
def test_setup_context_forward_runs_without_grad_and_needs_input_grad(lib):
    seen = {}

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(x, k):
            seen['forward_grad'] = lib.is_grad_enabled()
            return x ** 3 * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen['needs'] = ctx.needs_input_grad
            ctx.save_for_backward(inputs[0])
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2 * ctx.k, None

    x = T(lib, rnd(3), True)
    y = Cube.apply(x, 2.0)
    assert seen == {'forward_grad': False, 'needs': (True, False)}
    g, = lib.autograd.grad(y.sum(), x, create_graph=True)
    close(g, 6 * npy(x) ** 2)
    g2, = lib.autograd.grad(g.sum(), x)
    close(g2, 12 * npy(x))


# -------------------------------------------------------------------------------------------
# Higher order, reentrant backward, memory
# -------------------------------------------------------------------------------------------
def _double_fns(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x ** 2
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            x, _ = ctx.saved_tensors
            return g * 2 * x

    class Double2(Double):
        # same derivative, computed from the saved output
        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * 2 * y / x
    return Double, Double2


@both
def test_gradcheck_and_gradgradcheck_with_saved_output(lib):
    Double, Double2 = _double_fns(lib)
    x = T(lib, rnd(2, low=0.5, high=2.), True)
    for F in (Double, Double2):
        assert lib.autograd.gradcheck(F.apply, x)
        assert lib.autograd.gradgradcheck(F.apply, x)


@both
def test_subclassed_function_gets_its_own_node_class(lib):
    Double, Double2 = _double_fns(lib)
    x = T(lib, rnd(2, low=0.5, high=2.), True)
    assert type(Double2.apply(x).grad_fn).__name__ == 'Double2Backward'
    assert Double2._backward_cls is not Double._backward_cls


@both
def test_repeated_grad_of_grad_is_stable(lib):
    class Mult(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.prod(dim=-1).prod(dim=-1)
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return (g * y)[:, None, None] / x

    def plain(x):
        return x.prod(dim=-1).prod(dim=-1)

    x = T(lib, rnd(2, 3, 3, low=0.5, high=1.5), True)
    results = []
    for f in (plain, Mult.apply):
        ggs = []
        for _ in range(2):
            gy, = lib.autograd.grad(f(x)[0], x, create_graph=True)
            ggy, = lib.autograd.grad(gy[0, 0, 0], x, retain_graph=True)
            ggs.append(npy(ggy))
        np.testing.assert_array_equal(ggs[0], ggs[1])
        results.append(ggs[0])
    np.testing.assert_allclose(results[0], results[1], rtol=1e-10, atol=1e-12)


@both
def test_backward_calls_another_function_under_create_graph(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            # the gradient is itself produced by this Function: differentiable
            return Scale.apply(g, ctx.k), None

    x = T(lib, rnd(3), True)
    y = Scale.apply(x, 3.0)
    g, = lib.autograd.grad(y, x, lib.ones(3, dtype=lib.float64, requires_grad=True),
                           create_graph=True)
    assert type(g.grad_fn).__name__ == 'ScaleBackward'
    close(g, np.full(3, 3.))


@both
def test_reentrant_backward_inside_backward(lib):
    y_data = rnd(2, 2, seed=5)

    class Reenter(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = x.detach().requires_grad_()
                ctx.y = T(lib, y_data, True)
                ctx.out = ctx.x * ctx.y
            return ctx.out.detach()

        @staticmethod
        def backward(ctx, g):
            with lib.enable_grad():
                ctx.out.sum().backward()
            return ctx.x.grad * g

    x = T(lib, rnd(2, 2), True)
    Reenter.apply(x).sum().backward()
    close(x.grad, y_data)


@both
def test_reentrant_autograd_grad_like_checkpointing(lib):
    class Checkpointed(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin() * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            with lib.enable_grad():
                xx = x.detach().requires_grad_()
                out = xx.sin() * xx
            gx, = lib.autograd.grad(out, xx, g)
            return gx

    x = T(lib, rnd(4), True)
    Checkpointed.apply(x).sum().backward()
    xv = npy(x)
    close(x.grad, np.cos(xv) * xv + np.sin(xv))


@both
def test_error_in_reentrant_child_reaches_the_caller(lib):
    once = once_differentiable(lib)

    class Boom(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        @once
        def backward(ctx, g):
            raise ValueError("Simulate error")

    b = T(lib, rnd(3, 3), True)
    reentrant_root = Boom.apply(b * b).sum()

    class Outer(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            reentrant_root.backward()
            return g

    a = T(lib, rnd(3, 3, seed=1), True)
    d = Outer.apply(a * a)
    with pytest.raises(ValueError, match="Simulate error"):
        d.sum().backward()


@both
def test_graph_with_metadata_cycle_is_collected(lib):
    class Meta(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, metadata):
            x = x.clone()
            ctx.meta = metadata
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            assert float(x) == pytest.approx(3.14) and ctx.meta["foo"] == 3.14
            return g * x, None

    def make(with_backward):
        a = lib.tensor(3.14, requires_grad=True)
        metadata = {}
        out = Meta.apply(a, metadata)
        metadata["foo"] = 3.14
        metadata["out"] = out  # ctx -> metadata -> out -> ctx: a reference cycle
        if with_backward:
            out.sum().backward()
            close(a.grad, npy(a))
        return weakref.ref(out)

    for with_backward in (False, True):
        gc.disable()
        try:
            ref = make(with_backward)
            assert ref() is not None  # only the cycle keeps it
        finally:
            gc.enable()
        gc.collect()
        assert ref() is None


@both
def test_node_hooks_on_function_grad_fn(lib):
    calls = []

    class Mul3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = T(lib, [1., 2.], True)
    y = Mul3.apply(x)
    y.grad_fn.register_prehook(lambda gout: calls.append('pre') or (gout[0] * 10,))
    y.grad_fn.register_hook(lambda gin, gout: calls.append(('post', npy(gin[0]).tolist(),
                                                            npy(gout[0]).tolist())))
    y.sum().backward()
    assert calls == ['pre', ('post', [30., 30.], [10., 10.])]
    close(x.grad, [30., 30.])


# -------------------------------------------------------------------------------------------
# gradcheck / gradgradcheck
# -------------------------------------------------------------------------------------------
@both
def test_gradcheck_single_tensor_and_unrelated_inputs(lib):
    x = T(lib, rnd(6, low=0.1, high=1.), True)
    y = T(lib, rnd(6, seed=1, low=0.1, high=1.), True)
    assert lib.autograd.gradcheck(lambda a: a * a, x)
    assert lib.autograd.gradcheck(lambda a, b: a * a, (x, y))
    assert lib.autograd.gradgradcheck(lambda a, b: a * a, (x, y))


@both
def test_gradcheck_no_outputs_and_non_differentiable_outputs(lib):
    x = lib.ones(1, dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradcheck(lambda t: (), (x,))
    # an output not requiring grad whose value nevertheless changes with the input
    with pytest.raises(RuntimeError, match="Numerical gradient for function expected to be "
                                           "zero"):
        lib.autograd.gradcheck(lambda t: t.detach() * 2, (x,))
    assert not lib.autograd.gradcheck(lambda t: t.detach() * 2, (x,), raise_exception=False)


def _wrong_second_output(lib):
    class Pair(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b, a + b * b

        @staticmethod
        def backward(ctx, g1, g2):
            a, b = ctx.saved_tensors
            return g1 * b + g2, g1 * a + g2 * 3 * b  # 3b: should be 2b
    return Pair


@pytest.mark.parametrize('fast_mode', [False, True])
@both
def test_gradcheck_names_the_mismatching_output_and_input(lib, fast_mode):
    Pair = _wrong_second_output(lib)
    a, b = T(lib, rnd(3), True), T(lib, rnd(3, seed=1), True)
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 1 with respect to "
                                           "input 1"):
        lib.autograd.gradcheck(Pair.apply, (a, b), fast_mode=fast_mode)
    assert not lib.autograd.gradcheck(Pair.apply, (a, b), fast_mode=fast_mode,
                                      raise_exception=False)


@both
def test_gradcheck_error_is_a_gradcheck_error(lib):
    Pair = _wrong_second_output(lib)
    a, b = T(lib, rnd(3), True), T(lib, rnd(3, seed=1), True)
    GradcheckError = import_module(lib.__name__ + '.autograd.gradcheck').GradcheckError
    with pytest.raises(GradcheckError):
        lib.autograd.gradcheck(Pair.apply, (a, b))


@pytest.mark.parametrize('fast_mode', [False, True])
@both
def test_gradcheck_backward_not_multiplied_by_grad_output(lib, fast_mode):
    class Shifted(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g + 1e-2

    x = lib.ones(1, dtype=lib.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="backward not multiplied by grad_output"):
        lib.autograd.gradcheck(Shifted.apply, (x,), atol=1e-1, fast_mode=fast_mode)


def _nondet(lib):
    class NonDet(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, jitter=0.0):
            ctx._jitter = jitter
            return x

        @staticmethod
        def backward(ctx, g):
            return (NonDet.apply(g, ctx._jitter) * (1 + lib.rand_like(g) * ctx._jitter),
                    None)
    return NonDet


@both
def test_gradcheck_nondeterministic_backward_slow_mode(lib):
    NonDet = _nondet(lib)
    x = T(lib, rnd(5, 5), True)
    assert lib.autograd.gradcheck(lambda t: NonDet.apply(t, 0.0), x)
    with pytest.raises(RuntimeError, match="Backward is not reentrant"):
        lib.autograd.gradcheck(lambda t: NonDet.apply(t, 1e-6), x)
    with pytest.raises(RuntimeError, match="Backward is not reentrant"):
        lib.autograd.gradgradcheck(lambda t: NonDet.apply(t, 1e-12), x)
    assert lib.autograd.gradcheck(lambda t: NonDet.apply(t, 1e-6), x, nondet_tol=1e-5)
    assert lib.autograd.gradgradcheck(lambda t: NonDet.apply(t, 1e-12), x, nondet_tol=1e-5)


@libs()
def test_gradcheck_nondeterministic_backward_fast_mode(lib):
    NonDet = _nondet(lib)
    x = T(lib, rnd(5, 5), True)
    assert lib.autograd.gradcheck(lambda t: NonDet.apply(t, 0.0), x, fast_mode=True)
    with pytest.raises(RuntimeError, match="Backward is not reentrant"):
        lib.autograd.gradcheck(lambda t: NonDet.apply(t, 1e-6), x, fast_mode=True)


@both
def test_gradgradcheck_catches_a_non_differentiable_backward(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x.detach() ** 2  # right first derivative, wrong second

    x = T(lib, rnd(4, low=0.5, high=1.5), True)
    assert lib.autograd.gradcheck(Cube.apply, (x,))
    with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to "
                                           "input 0"):
        lib.autograd.gradgradcheck(Cube.apply, (x,))


@both
def test_gradgradcheck_with_explicit_grad_outputs(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2

    x = T(lib, rnd(4, low=0.5, high=1.5), True)
    go = T(lib, rnd(4, seed=3), True)
    assert lib.autograd.gradgradcheck(Cube.apply, (x,), (go,))
    assert lib.autograd.gradgradcheck(Cube.apply, (x,), gen_non_contig_grad_outputs=True)


@libs()
def test_gradcheck_detects_backward_failing_on_undefined_grads(lib):
    class Fragile(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            if g is None:
                raise RuntimeError("cannot handle an undefined gradient")
            return g

    x = lib.ones(1, dtype=lib.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="Backwards compatibility: New undefined gradient "
                                         "support checking feature"):
        with pytest.raises(RuntimeError, match="Expected backward function to handle "
                                               "undefined output grads"):
            lib.autograd.gradcheck(Fragile.apply, (x,))
    assert lib.autograd.gradcheck(Fragile.apply, (x,), check_undefined_grad=False)


@libs()
def test_gradcheck_output_shape_depending_on_values(lib):
    def fn(x):
        return lib.cat([x, x]) if bool((x >= 1).all()) else x

    a = lib.ones(1, dtype=lib.float64, requires_grad=True)
    with pytest.raises(AssertionError, match="return outputs with the same shape when inputs "
                                             "are perturbed"):
        lib.autograd.gradcheck(fn, (a,))


@both
def test_gradcheck_requires_one_check(lib):
    x = lib.ones(2, dtype=lib.float64, requires_grad=True)
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        lib.autograd.gradcheck(lambda t: t * 2, (x.detach(),))


# -------------------------------------------------------------------------------------------
# Forward mode AD: Function.jvp
# -------------------------------------------------------------------------------------------
@both
def test_jvp_skips_non_tensor_arguments(lib):
    fw = fwad(lib)

    class Lin(lib.autograd.Function):
        @staticmethod
        def forward(ctx, nt, x, nt2, y):
            return x * 2 + y * 3

        @staticmethod
        def backward(ctx, g):
            return None, g * 2, None, g * 3

        @staticmethod
        def jvp(ctx, nt, x_t, nt2, y_t):
            assert nt is None and nt2 is None
            return x_t * 2 + y_t * 3

    x, y = T(lib, rnd(3)), T(lib, rnd(3, seed=1))
    tx, ty = T(lib, rnd(3, seed=2)), T(lib, rnd(3, seed=3))
    with fw.dual_level():
        out = Lin.apply(1, fw.make_dual(x, tx), 2, fw.make_dual(y, ty))
        p, t = fw.unpack_dual(out)
        close(p, 2 * npy(x) + 3 * npy(y))
        close(t, 2 * npy(tx) + 3 * npy(ty))


@both
def test_jvp_gets_zeros_for_inputs_without_tangent(lib):
    fw = fwad(lib)
    seen = []

    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.a, ctx.b = a, b
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g

        @staticmethod
        def jvp(ctx, ta, tb):
            a, b = ctx.a, ctx.b
            seen.append(tb is not None and bool((tb == 0).all()))
            return ta * b + a * tb

    a, b = T(lib, rnd(3)), T(lib, rnd(3, seed=1))
    ta = T(lib, rnd(3, seed=2))
    with fw.dual_level():
        out = Mul.apply(fw.make_dual(a, ta), b)
        close(fw.unpack_dual(out).tangent, npy(ta) * npy(b))
    assert seen == [True]


@both
def test_jvp_respects_set_materialize_grads_false(lib):
    fw = fwad(lib)
    seen = []

    class Add(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.set_materialize_grads(False)
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, g

        @staticmethod
        def jvp(ctx, ta, tb):
            seen.append((ta is None, tb is None))
            return ta if tb is None else (tb if ta is None else ta + tb)

    a, b, ta = T(lib, rnd(3)), T(lib, rnd(3, seed=1)), T(lib, rnd(3, seed=2))
    with fw.dual_level():
        out = Add.apply(fw.make_dual(a, ta), b)
        close(fw.unpack_dual(out).tangent, ta)
    assert seen == [(False, True)]


@both
def test_jvp_not_called_without_tangents_or_outside_a_level(lib):
    fw = fwad(lib)
    calls = []

    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            calls.append(1)
            return t * 2

    x = T(lib, rnd(3))
    Twice.apply(x)
    with fw.dual_level():
        out = Twice.apply(x)
        assert fw.unpack_dual(out).tangent is None
    assert calls == []


@both
def test_jvp_with_several_outputs_and_chain_rule(lib):
    fw = fwad(lib)

    class SinCos(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, gs, gc):
            raise AssertionError("not used")

        @staticmethod
        def jvp(ctx, t):
            x = ctx.x
            return t * x.cos(), -t * x.sin()

    x, tx = T(lib, rnd(4)), T(lib, rnd(4, seed=1))
    with fw.dual_level():
        s, c = SinCos.apply(fw.make_dual(x, tx))
        out = s * c  # a built-in op after the Function uses its tangents
        xv, tv = npy(x), npy(tx)
        close(fw.unpack_dual(s).tangent, tv * np.cos(xv))
        close(fw.unpack_dual(c).tangent, -tv * np.sin(xv))
        close(fw.unpack_dual(out).tangent, tv * np.cos(2 * xv))
    assert fw.unpack_dual(out).tangent is None  # gone with the level


@both
def test_jvp_with_setup_context_style(lib):
    fw = fwad(lib)

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)
            ctx.y = output

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

        @staticmethod
        def jvp(ctx, t):
            return t * ctx.y

    x, tx = T(lib, rnd(3)), T(lib, rnd(3, seed=1))
    with fw.dual_level():
        out = Exp.apply(fw.make_dual(x, tx))
        close(fw.unpack_dual(out).tangent, npy(tx) * np.exp(npy(x)))


@both
def test_forward_and_backward_together_with_save_for_forward(lib):
    fw = fwad(lib)

    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, z):
            ctx.save_for_backward(x, y)
            ctx.save_for_forward(x, y)
            ctx.z = z
            return z * x * y

        @staticmethod
        def jvp(ctx, x_t, y_t, _):
            x, y = ctx.saved_tensors
            return ctx.z * (y * x_t + x * y_t)

        @staticmethod
        def vjp(ctx, g):
            x, y = ctx.saved_tensors
            return ctx.z * g * y, ctx.z * g * x, None

    a = lib.tensor(1., dtype=lib.float64, requires_grad=True)
    t = lib.tensor(1., dtype=lib.float64)
    b = lib.tensor(2., dtype=lib.float64, requires_grad=True)
    with fw.dual_level():
        out = Func.apply(fw.make_dual(a, t), b, 4)
        close(fw.unpack_dual(out).tangent, 4 * 2.)
        out.backward()
    close(a.grad, 8.)
    close(b.grad, 4.)


@libs()
def test_saved_for_backward_is_not_visible_in_jvp(lib):
    fw = fwad(lib)
    lens = []

    class Func(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def jvp(ctx, x_t):
            lens.append(len(ctx.saved_tensors))
            return x_t

        @staticmethod
        def vjp(ctx, g):
            lens.append(len(ctx.saved_tensors))
            return g

    a = lib.tensor(1., dtype=lib.float64, requires_grad=True)
    with fw.dual_level():
        out = Func.apply(fw.make_dual(a, lib.tensor(1., dtype=lib.float64)))
        out.backward()
    assert lens == [0, 1]


@libs()
def test_gradcheck_check_forward_ad_on_a_function(lib):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, wrong):
            ctx.wrong = wrong
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

        @staticmethod
        def jvp(ctx, t, _):
            return t * (3 if ctx.wrong else 2)

    x = T(lib, rnd(3), True)
    assert lib.autograd.gradcheck(Twice.apply, (x, False), check_forward_ad=True)
    with pytest.raises(RuntimeError, match="Jacobian computed with forward mode mismatch for "
                                           "output 0"):
        lib.autograd.gradcheck(Twice.apply, (x, True), check_forward_ad=True)


@libs()
def test_gradcheck_check_forward_ad_on_builtin_ops(lib):
    x = T(lib, rnd(2), True)
    y = T(lib, rnd(2, seed=1), True)
    assert lib.autograd.gradcheck(lambda a, b: (a * b.sin(), b), (x, y), check_forward_ad=True)


@libs()
def test_jvp_of_inplace_function_must_update_tangent_in_place(lib):
    fw = fwad(lib)

    class InplaceMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 2  # not in place

    with fw.dual_level():
        d = fw.make_dual(T(lib, rnd(3)), T(lib, rnd(3, seed=1)))
        with pytest.raises(RuntimeError, match="not modifying the forward mode gradients "
                                               "inplace"):
            InplaceMul.apply(d)


@libs()
def test_jvp_of_inplace_function_updating_tangent_in_place(lib):
    fw = fwad(lib)

    class InplaceMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            t.mul_(2)
            return t

    x, tx = T(lib, rnd(3)), T(lib, rnd(3, seed=1))
    with fw.dual_level():
        d = fw.make_dual(x.clone(), tx.clone())
        out = InplaceMul.apply(d)
        assert out is d
        p, t = fw.unpack_dual(out)
        close(p, 2 * npy(x))
        close(t, 2 * npy(tx))


@both
def test_jvp_returning_a_view_for_a_view_output(lib):
    fw = fwad(lib)

    class Head(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.narrow(0, 0, 2)

        @staticmethod
        def backward(ctx, g):
            raise AssertionError("not used")

        @staticmethod
        def jvp(ctx, t):
            return t.narrow(0, 0, 2)

    x, tx = T(lib, rnd(4)), T(lib, rnd(4, seed=1))
    with fw.dual_level():
        out = Head.apply(fw.make_dual(x, tx))
        close(fw.unpack_dual(out).primal, npy(x)[:2])
        close(fw.unpack_dual(out).tangent, npy(tx)[:2])


@both
def test_dual_input_requiring_grad_supports_both_modes(lib):
    fw = fwad(lib)

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2

        @staticmethod
        def jvp(ctx, t):
            x, = ctx.saved_tensors
            return t * 3 * x ** 2

    x = T(lib, rnd(3), True)
    tx = T(lib, rnd(3, seed=1))
    with fw.dual_level():
        out = Cube.apply(fw.make_dual(x, tx))
        assert out.requires_grad and type(out.grad_fn).__name__ == 'CubeBackward'
        close(fw.unpack_dual(out).tangent, 3 * npy(x) ** 2 * npy(tx))
        out.sum().backward()
    close(x.grad, 3 * npy(x) ** 2)


@libs()
def test_save_for_forward_without_any_input_requiring_grad(lib):
    fw = fwad(lib)

    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_forward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            raise AssertionError("not used")

        @staticmethod
        def jvp(ctx, ta, tb):
            a, b = ctx.saved_tensors
            return ta * b + a * tb

    a, b = T(lib, rnd(3)), T(lib, rnd(3, seed=1))
    ta, tb = T(lib, rnd(3, seed=2)), T(lib, rnd(3, seed=3))
    with fw.dual_level():
        out = Mul.apply(fw.make_dual(a, ta), fw.make_dual(b, tb))
        close(fw.unpack_dual(out).tangent, npy(ta) * npy(b) + npy(a) * npy(tb))


@libs()
def test_forward_sees_no_tangents(lib):
    fw = fwad(lib)
    seen = {}

    class Probe(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            seen['input'] = fw.unpack_dual(x).tangent
            seen['inner'] = fw.unpack_dual(y).tangent
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 5  # deliberately not 2: the output's tangent is jvp's, whatever ops did

    with fw.dual_level():
        out = Probe.apply(fw.make_dual(T(lib, [1., 2.]), T(lib, [1., 1.])))
        close(fw.unpack_dual(out).tangent, [5., 5.])
    assert seen == {'input': None, 'inner': None}


@libs()
def test_jvp_returning_wrong_number_of_tangents(lib):
    fw = fwad(lib)

    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 2, t

    with fw.dual_level():
        d = fw.make_dual(T(lib, rnd(2)), T(lib, rnd(2, seed=1)))
        with pytest.raises(RuntimeError, match=r"Function's jvp returned an invalid number of "
                                               r"forward gradients \(expected 1 but got 2\)"):
            Bad.apply(d)


@libs()
def test_jvp_wrong_shape_message(lib):
    fw = fwad(lib)

    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t.sum()

    with fw.dual_level():
        d = fw.make_dual(T(lib, rnd(2)), T(lib, rnd(2, seed=1)))
        with pytest.raises(RuntimeError, match=r"Trying to set a forward gradient that has a "
                                               r"different size than that of the original "
                                               r"Tensor.*Tensor is of size \[2\] while the given "
                                               r"forward gradient is of size \[\]"):
            Bad.apply(d)


@libs()
def test_gradcheck_with_nothing_to_check_is_refused(lib):
    x = lib.ones(2, dtype=lib.float64, requires_grad=True)
    with pytest.raises(AssertionError, match="Expected at least one of check_forward_ad or "
                                             "check_backward_ad to be True"):
        lib.autograd.gradcheck(lambda t: t * 2, (x,), check_forward_ad=False,
                               check_backward_ad=False)


@libs()
def test_mark_dirty_of_an_input_not_returned_raises(lib):
    class Lost(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="Some elements marked as dirty during the forward "
                                           "method were not returned as output"):
        Lost.apply(T(lib, rnd(3), True).clone())


# -------------------------------------------------------------------------------------------
# More graph wiring
# -------------------------------------------------------------------------------------------
@both
def test_tensors_inside_a_list_argument_are_not_tracked(lib):
    needs = []

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, xs, y):
            needs.append(ctx.needs_input_grad)
            return xs[0] * y

        @staticmethod
        def backward(ctx, g):
            return None, g * 3

    a, y = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    out = Scale.apply([a], y)
    assert needs == [(False, True)] and len(out.grad_fn.next_functions) == 1
    out.sum().backward()
    assert a.grad is None
    close(y.grad, np.full(2, 3., np.float32))


@both
def test_one_element_tuple_output_stays_a_tuple(lib):
    class One(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (x * 2,)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T(lib, rnd(3), True)
    r = One.apply(x)
    assert type(r) is tuple and len(r) == 1
    r[0].sum().backward()
    close(x.grad, np.full(3, 2.))


@both
def test_edge_to_the_second_output_of_a_function(lib):
    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2 + gb * 3

    class Id(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    x = T(lib, rnd(3), True)
    p, q = Two.apply(x)
    assert p.output_nr == 0 and q.output_nr == 1
    r = Id.apply(q)
    assert r.grad_fn.next_functions[0] == (q.grad_fn, 1)
    r.sum().backward()
    close(x.grad, np.full(3, 3.))


@both
def test_inplace_on_an_unsaved_output_is_allowed(lib):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T(lib, rnd(3), True)
    z = Twice.apply(x)
    z.mul_(2)
    assert type(z.grad_fn).__name__ == 'MulBackward0' and z._version == 1
    z.sum().backward()
    close(x.grad, np.full(3, 4.))


@both
def test_backward_twice_through_saved_tensors_needs_retain_graph(lib):
    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = T(lib, rnd(3), True)
    y = Sq.apply(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                           "time"):
        y.backward()


@both
def test_function_on_a_view_sends_gradient_to_the_base(lib):
    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    base = T(lib, rnd(2, 3), True)
    Sq.apply(base[1]).sum().backward()
    expected = np.zeros((2, 3))
    expected[1] = 2 * npy(base)[1]
    close(base.grad, expected)


@both
def test_retain_grad_and_hook_on_function_output(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = T(lib, rnd(3), True)
    y = Cube.apply(x)
    y.retain_grad()
    y.register_hook(lambda g: g * 2)
    (y * 5).sum().backward()
    close(y.grad, np.full(3, 10.))
    close(x.grad, 30 * npy(x) ** 2)


@both
def test_variadic_forward(lib):
    class Total(lib.autograd.Function):
        @staticmethod
        def forward(ctx, *xs):
            ctx.n = len(xs)
            out = xs[0].clone()
            for x in xs[1:]:
                out = out + x
            return out

        @staticmethod
        def backward(ctx, g):
            return (g,) * ctx.n

    xs = [T(lib, rnd(2, seed=i), True) for i in range(3)]
    out = Total.apply(*xs)
    assert len(out.grad_fn.next_functions) == 3
    out.sum().backward()
    for x in xs:
        close(x.grad, np.ones(2))


@both
def test_function_called_inside_forward_is_not_recorded(lib):
    class Inner(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise AssertionError("the inner Function must not be part of the graph")

    class Outer(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = Inner.apply(x)
            assert not y.requires_grad and y.grad_fn is None
            return y + 1

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = T(lib, rnd(3), True)
    Outer.apply(x).sum().backward()
    close(x.grad, np.full(3, 2.))


@both
def test_gradcheck_tolerances_decide(lib):
    class Off(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2.02  # 1% off

    x = T(lib, rnd(3), True)
    assert not lib.autograd.gradcheck(Off.apply, (x,), raise_exception=False)
    assert lib.autograd.gradcheck(Off.apply, (x,), atol=1e-1)
    assert lib.autograd.gradcheck(Off.apply, (x,), rtol=2e-2)


@both
def test_gradcheck_fast_mode_on_a_correct_multi_output_function(lib):
    class SinCos(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x.sin() * y, x.cos()

        @staticmethod
        def backward(ctx, g1, g2):
            x, y = ctx.saved_tensors
            return g1 * x.cos() * y - g2 * x.sin(), g1 * x.sin()

    x, y = T(lib, rnd(4), True), T(lib, rnd(4, seed=1), True)
    assert lib.autograd.gradcheck(SinCos.apply, (x, y), fast_mode=True)
    assert lib.autograd.gradcheck(SinCos.apply, (x, y))
    assert lib.autograd.gradgradcheck(SinCos.apply, (x, y))
