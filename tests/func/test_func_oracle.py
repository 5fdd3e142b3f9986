"""torch.func on ember against torch 2.13: vmap's options (randomness, chunk_size, kwargs,
batch size 0, gradients through it), the autograd transforms, functional_call, and the
batched gradients of autograd.grad / gradcheck. Each test runs the same code on both."""
import numpy as np
import pytest

from ..autograd._upstream import lib_fixture, eq, raises, npy

lib = lib_fixture({})


def _data(lib, *shape, seed=0):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=lib.float64)


# -- vmap ---------------------------------------------------------------------------------------
def test_vmap_randomness(lib):
    x = lib.zeros(3, 4)
    msg = "vmap: called random operation while in randomness error mode"
    with raises(RuntimeError, msg):
        lib.vmap(lambda t: t + lib.randn(4))(x)
    with raises(RuntimeError, msg):
        lib.vmap(lambda t: lib.randn_like(t))(x)
    same = lib.vmap(lambda t: t + lib.rand(4), randomness='same')(x)
    assert all(lib.equal(same[0], same[i]) for i in range(3))
    different = lib.vmap(lambda t: t + lib.rand(4), randomness='different')(x)
    assert not lib.equal(different[0], different[1])
    # nested: the outer 'same' replays the inner 'different' draws for every outer element
    nested = lib.vmap(lib.vmap(lambda t: t + lib.rand(()), randomness='different'),
                      randomness='same')(x)
    eq(nested[0], nested[2])
    assert not lib.equal(nested[0, 0], nested[0, 1])
    with raises(RuntimeError, "Only allowed values for randomness are 'error', 'different', "
                              "or 'same'. Got foo"):
        lib.vmap(lambda t: t, randomness='foo')


def test_vmap_chunk_size_and_kwargs(lib):
    x = _data(lib, 5, 3)
    eq(lib.vmap(lambda t: t.sum(), chunk_size=2)(x), x.sum(1))
    with raises(ValueError, r"vmap: chunk_size should be None or greater than 0. \(got 0\)"):
        lib.vmap(lambda t: t, chunk_size=0)

    def fn(t, scale=4.):
        return t * scale
    eq(lib.vmap(fn)(x, scale=2.), x * 2)
    # keyword arguments are not mapped: a tensor one broadcasts against every element
    eq(lib.vmap(fn)(x, scale=lib.ones(3)).shape, (5, 3))


def test_vmap_empty_batch(lib):
    eq(lib.vmap(lambda t: t * 2)(lib.ones(0, 3)).shape, (0, 3))
    eq(lib.vmap(lib.sum)(lib.ones(0, 3)).shape, (0,))
    eq(lib.vmap(lambda t: t * 2, out_dims=1)(lib.ones(0, 3)).shape, (3, 0))


def test_vmap_gradients_flow_to_inputs(lib):
    x = _data(lib, 4, 3).requires_grad_()
    w = _data(lib, 3, seed=1).requires_grad_()
    out = lib.vmap(lambda row, w: (row * w).sin().sum(), in_dims=(0, None))(x, w)
    assert out.requires_grad
    out.sum().backward()
    expected_x = (x * w).cos() * w
    eq(x.grad, expected_x)
    eq(w.grad, ((x * w).cos() * x).sum(0))


def test_vmap_messages_name_the_function(lib):
    def my_fn(t):
        return t

    with raises(ValueError, r"^vmap\(my_fn, in_dims=\[0\], \.\.\.\)\(<inputs>\): expected"):
        lib.vmap(my_fn, in_dims=[0])(lib.ones(2))
    def my_fn2(t):
        return 1.5
    with raises(ValueError, r"vmap\(my_fn2, \.\.\.\): `my_fn2` must only return Tensors"):
        lib.vmap(my_fn2)(lib.ones(2))
    x = lib.ones(2)
    with raises(ValueError, "in_dims has structure TreeSpec\\(tuple, None, \\[\\*\\]\\) but "
                            "inputs has structure TreeSpec\\(tuple, None, \\[\\*,\n  \\*\\]\\)"):
        lib.vmap(lib.mul, (0,))(x, x)


# -- autograd transforms ----------------------------------------------------------------------
def f_scalar(lib):
    return lambda x, y: (x.sin() * y).sum() + (x * x).sum()


def test_grad_and_argnums(lib):
    x, y = _data(lib, 3), _data(lib, 3, seed=1)
    f = f_scalar(lib)
    g = lib.func.grad(f)(x, y)
    eq(g, x.cos() * y + 2 * x)
    assert not g.requires_grad
    gx, gy = lib.func.grad(f, argnums=(0, 1))(x, y)
    eq(gy, x.sin())
    eq(lib.func.grad(f, argnums=-1)(x, y), x.sin())
    g, value = lib.func.grad_and_value(f)(x, y)
    eq(value, f(x, y))
    g, aux = lib.func.grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(x)
    eq(aux, x.mean())
    with raises(RuntimeError, "Got argnum=2, but only 2 positional inputs"):
        lib.func.grad(f, argnums=2)(x, y)
    with raises(RuntimeError, "argnums elements must be unique, got \\(0, 0\\)"):
        lib.func.grad(f, argnums=(0, 0))(x, y)
    with raises(RuntimeError, "Expected f\\(\\*args\\) to return a scalar Tensor, got tensor "
                              "with 1 dims"):
        lib.func.grad(lambda x: x * 2)(x)
    with raises(RuntimeError, "output of function f should be a tuple: \\(output, aux\\)"):
        lib.func.grad(lambda x: x.sum(), has_aux=True)(x)


def test_grad_of_pytree_argument(lib):
    params = {'w': _data(lib, 3), 'b': _data(lib, 1, seed=2)}
    x = _data(lib, 3, seed=3)
    g = lib.func.grad(lambda p, x: ((p['w'] * x).sum() + p['b']).squeeze() ** 2)(params, x)
    assert set(g) == {'w', 'b'}
    s = (params['w'] * x).sum() + params['b']
    eq(g['w'], 2 * s * x)
    eq(g['b'], 2 * s)


def test_nested_grad_and_composition_with_autograd(lib):
    x = _data(lib, 3)
    eq(lib.func.grad(lambda y: lib.func.grad(lambda t: (t ** 3).sum())(y).sum())(x), 6 * x)
    xr = x.clone().requires_grad_()
    g = lib.func.grad(lambda t: (t ** 3).sum())(xr)
    assert g.requires_grad
    g.sum().backward()
    eq(xr.grad, 6 * x)


def test_vjp_jvp(lib):
    x = _data(lib, 3)
    out, fn = lib.func.vjp(lambda t: t.sin() * 2, x)
    eq(out, x.sin() * 2)
    (g,) = fn(lib.ones(3, dtype=lib.float64))
    eq(g, x.cos() * 2)
    (g,) = fn(2 * lib.ones(3, dtype=lib.float64))  # callable again
    eq(g, x.cos() * 4)
    po, to = lib.func.jvp(lambda t: t * t, (x,), (lib.ones(3, dtype=lib.float64),))
    eq(po, x * x)
    eq(to, 2 * x)
    with raises(RuntimeError, "jvp\\(f, primals, tangents\\): Expected primals to be a tuple"):
        lib.func.jvp(lambda t: t, x, x)


def test_jacobians_and_hessian(lib):
    x = _data(lib, 3)
    y = _data(lib, 2, seed=1)

    def f(x, y):
        return x.sin()[:2] * y, (x * x).sum()
    for jac in (lib.func.jacrev, lib.func.jacfwd):
        (j0x, j0y), (j1x, j1y) = jac(f, argnums=(0, 1))(x, y)
        eq(j0x.shape, (2, 3))
        eq(j0y, lib.diag(x.sin()[:2]))
        eq(j1x, 2 * x)
        eq(j1y.shape, (2,))
        eq(jac(lambda t: t.exp())(x), lib.diag(x.exp()))
    h = lib.func.hessian(lambda t: (t.sin() * t).sum())(x)
    eq(h, lib.diag(2 * x.cos() - x * x.sin()))
    eq(lib.func.vmap(lib.func.jacrev(lambda t: t.sin()))(lib.stack([x, 2 * x])),
       lib.stack([lib.diag(x.cos()), lib.diag((2 * x).cos())]))


def test_per_sample_gradients(lib):
    # the torch.func tutorial's pattern: vmap over grad of a functional_call
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2).double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    xs, ts = _data(lib, 4, 3), _data(lib, 4, 2, seed=5)

    def loss(p, x, t):
        out = lib.func.functional_call(model, p, (x.unsqueeze(0),))
        return ((out - t.unsqueeze(0)) ** 2).sum()
    per = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, xs, ts)
    eq(per['weight'].shape, (4, 2, 3))
    for i in range(4):
        eq(per['weight'][i], lib.func.grad(loss)(params, xs[i], ts[i])['weight'])
    # the module keeps its own parameters
    assert isinstance(model.weight, lib.nn.Parameter)


def test_functional_call(lib):
    m = lib.nn.Linear(3, 2).double()
    x = _data(lib, 3)
    w, b = lib.ones(2, 3, dtype=lib.float64), lib.zeros(2, dtype=lib.float64)
    eq(lib.func.functional_call(m, {'weight': w, 'bias': b}, (x,)), w @ x)
    eq(lib.func.functional_call(m, ({'weight': w}, {'bias': b}), x), w @ x)
    with raises(ValueError, "appeared in multiple dictionaries"):
        lib.func.functional_call(m, ({'weight': w}, {'weight': w}), x)
    with raises(RuntimeError, "Missing key\\(s\\): 'bias'"):
        lib.func.functional_call(m, {'weight': w}, x, strict=True)
    eq(lib.func.functional_call(m, {'weight': w}, x), w @ x + m.bias)


# -- batched gradients ------------------------------------------------------------------------
def test_grad_is_grads_batched(lib):
    x = _data(lib, 3).requires_grad_()
    y = (x * x).sum()
    v = lib.tensor([1., 2., 3.], dtype=lib.float64)
    (g,) = lib.autograd.grad(y, x, v, is_grads_batched=True)
    eq(g, v[:, None] * 2 * x)
    out = x * 2
    (g,) = lib.autograd.grad(out, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True,
                             retain_graph=True)
    eq(g, 2 * lib.eye(3))
    with raises(RuntimeError, "If `is_grads_batched=True`, we interpret the first dimension of "
                              "each grad_output as the batch dimension. The sizes of the "
                              r"remaining dimensions are expected to match the shape of "
                              r"corresponding output, but a mismatch was detected: "
                              r"grad_output\[0\] has a shape of torch.Size\(\[\]\) and "
                              r"output\[0\] has a shape of torch.Size\(\[3\]\)"):
        lib.autograd.grad(out, x, lib.ones(3, 2, dtype=lib.float64), is_grads_batched=True)
    z = _data(lib, 2).requires_grad_()
    gx, gz = lib.autograd.grad(out, (x, z), lib.eye(3, dtype=lib.float64),
                               is_grads_batched=True, allow_unused=True, retain_graph=True)
    assert gz is None
    gx, gz = lib.autograd.grad(out, (x, z), lib.eye(3, dtype=lib.float64),
                               is_grads_batched=True, materialize_grads=True)
    eq(gz.shape, (2,))  # (torch: the materialized zeros are not batched)


def test_gradcheck_batched_checks(lib):
    x = _data(lib, 3).requires_grad_()
    assert lib.autograd.gradcheck(lambda t: t.sin() * t, (x,), check_batched_grad=True)
    assert lib.autograd.gradcheck(lambda t: t.sin() * t, (x,), check_forward_ad=True,
                                  check_batched_forward_grad=True)
    assert lib.autograd.gradgradcheck(lambda t: t.sin() * t, (x,), check_batched_grad=True)
    with raises(AssertionError, "Setting check_batched_grad=True requires check_backward_ad "
                                "to be True"):
        lib.autograd.gradcheck(lambda t: t, (x,), check_batched_grad=True,
                               check_forward_ad=True, check_backward_ad=False)
    with raises(AssertionError, "Setting check_batched_forward_grad=True requires "
                                "check_forward_ad to be True"):
        lib.autograd.gradcheck(lambda t: t, (x,), check_batched_forward_grad=True)

    class Noisy(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2 + 0 * lib.randn_like(g)
    with raises(RuntimeError, "While computing batched gradients, got: vmap: We do not yet "
                              "support calling random operations inside of vmap"):
        lib.autograd.gradcheck(Noisy.apply, (x,), check_batched_grad=True)
    assert not lib.autograd.gradcheck(Noisy.apply, (x,), check_batched_grad=True,
                                      raise_exception=False)


# -- ensembles and the rest of torch.func -----------------------------------------------------
def test_stack_module_state_ensemble(lib):
    lib.manual_seed(0)
    models = [lib.nn.Linear(3, 2).double() for _ in range(4)]
    params, buffers = lib.func.stack_module_state(models)
    assert buffers == {}
    eq(params['weight'].shape, (4, 2, 3))
    assert params['weight'].requires_grad and params['weight'].is_leaf
    x = _data(lib, 5, 3)
    out = lib.func.vmap(lambda p, x: lib.func.functional_call(models[0], p, (x,)),
                        in_dims=(0, None))(params, x)
    for i, m in enumerate(models):
        eq(out[i], m(x))
    with raises(RuntimeError, "stack_module_state: Expected at least one model, got 0."):
        lib.func.stack_module_state([])
    models[1].eval()
    with raises(RuntimeError, "Expected all models to have the same training/eval mode."):
        lib.func.stack_module_state(models)
    with raises(RuntimeError, "Expected all models to be of the same class."):
        lib.func.stack_module_state([lib.nn.Linear(3, 2), lib.nn.Identity()])


def test_linearize_functionalize_batch_norm(lib):
    x = _data(lib, 3)
    out, jvp_fn = lib.func.linearize(lambda t: t.sin() * t, x)
    eq(out, x.sin() * x)
    v = _data(lib, 3, seed=4)
    eq(jvp_fn(v), (x.cos() * x + x.sin()) * v)
    with raises(RuntimeError, r"tangent:0 with shape torch.Size\(\[2\]\) in flattened pytree "
                              r"doesn't match the shape torch.Size\(\[3\]\) of the "
                              "corresponding primal."):
        jvp_fn(lib.ones(2, dtype=lib.float64))
    y = lib.zeros(2)
    eq(lib.func.functionalize(lambda t: t.add_(1))(y), lib.ones(2))
    eq(y, lib.ones(2))
    with raises(RuntimeError, "received invalid argument for remove=foo"):
        lib.func.functionalize(lambda t: t, remove='foo')
    m = lib.nn.Sequential(lib.nn.BatchNorm1d(3), lib.nn.Linear(3, 3))
    assert lib.func.replace_all_batch_norm_modules_(m) is m
    assert m[0].running_mean is None and not m[0].track_running_stats
    assert lib.func.debug_unwrap(x) is x


def _tied_module(lib):
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = lib.nn.Parameter(lib.ones(()))
            self.foo_tied = self.foo
            self.register_buffer('count', lib.zeros(()))

        def forward(self, x):
            self.count = self.count + 1
            return x + self.foo + self.foo_tied
    return Tied()


def test_functional_call_tied_weights_and_writeback(lib):
    m = _tied_module(lib)
    zero = lib.zeros(())
    eq(lib.func.functional_call(m, {'foo': zero}, (zero,)), 0.)
    eq(lib.func.functional_call(m, {'foo': zero}, (zero,), tie_weights=False), 1.)
    with raises(ValueError, r"functional_call got multiple values for keys \['foo', "
                            r"'foo_tied'\], which are tied. Consider using tie_weights=False"):
        lib.func.functional_call(m, {'foo': zero, 'foo_tied': lib.ones(())}, (zero,))
    eq(m.count, 2.)  # (the calls above ran with the module's own buffer)
    state = {'count': lib.zeros(())}
    lib.func.functional_call(m, state, (zero,))
    eq(state['count'], 1.)  # the buffer the module assigned comes back in the dict
    eq(m.count, 2.)
    with raises(RuntimeError, "Error\\(s\\) in reparametrizing for Tied:\n\tUnexpected "
                              "key\\(s\\): 'bar'.\n\tMissing key\\(s\\): 'count'."):
        lib.func.functional_call(m, {'foo': zero, 'bar': zero}, (zero,), strict=True)
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
        out = lib.nn.utils.stateless.functional_call(m, {'foo': zero}, (zero,))
    eq(out, 0.)


def _functions(lib):
    class Old(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class New(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 2

    class NewGen(New):
        generate_vmap_rule = True
    return Old, New, NewGen


def test_custom_function_under_transforms(lib):
    Old, New, NewGen = _functions(lib)
    x = _data(lib, 3)
    setup = "it must override the setup_context staticmethod"
    with raises(RuntimeError, setup):
        lib.vmap(Old.apply)(x)
    with raises(RuntimeError, setup):
        lib.func.grad(lambda t: Old.apply(t).sum())(x)
    with raises(RuntimeError, setup):
        lib.func.jvp(Old.apply, (x,), (x,))
    with raises(RuntimeError, "You tried to vmap over New, but it does not have vmap support. "
                              "Please override and implement the vmap staticmethod or set "
                              "generate_vmap_rule=True."):
        lib.vmap(New.apply)(x)
    eq(lib.func.grad(lambda t: New.apply(t).sum())(x), 2 * lib.ones(3))
    eq(lib.func.jacrev(New.apply)(x), 2 * lib.eye(3))
    eq(lib.func.jvp(New.apply, (x,), (x,))[1], 2 * x)
    eq(lib.vmap(NewGen.apply)(x), 2 * x)
    eq(lib.func.jacfwd(NewGen.apply)(x), 2 * lib.eye(3))
    # the older vmap behind is_grads_batched takes any Function
    y = x.clone().requires_grad_()
    eq(lib.autograd.grad(Old.apply(y), y, lib.eye(3, dtype=lib.float64),
                         is_grads_batched=True)[0], 2 * lib.eye(3))


def test_one_tensor_returned_twice(lib):
    x = lib.ones(2, 3)
    a, b = lib.vmap(lambda t: (lambda y: (y, y))(t * 2))(x)
    assert a is b
    a, b = lib.vmap(lambda t: (lambda y: (y, y))(t * 2), out_dims=(0, 1))(x)
    assert b._base is a
    eq(b, a.t())


def test_vmap_internals(lib):
    with pytest.warns(FutureWarning, match="Please use `torch.vmap` instead of "
                                           "`torch._vmap_internals.vmap`."):
        f = lib._vmap_internals.vmap(lambda t: t * 2)
    eq(f(lib.ones(2, 3)), 2 * lib.ones(2, 3))
    out = lib._vmap_internals._vmap(lambda t: (t, None), allow_none_pass_through=True)(
        lib.ones(2))
    assert out[1] is None
    with raises(RuntimeError, "vmap: We do not yet support calling random operations inside "
                              "of vmap. Please perform random operations outside of vmap as a "
                              "workaround"):
        lib._vmap_internals._vmap(lambda t: lib.randn_like(t))(lib.ones(2))
