"""nn.utils.parametrize and nn.utils.parametrizations (weight_norm, spectral_norm) and
torch._weight_norm, run the same way on ember and torch and compared: values, gradients,
grad_fn names, state_dict keys, classes, and the errors (class and message)."""
import copy
import pickle

import numpy as np
import pytest

from ..dropin.compare import plain, same

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed")

RNG = np.random.default_rng(0)
W = RNG.normal(size=(4, 4)).astype(np.float32)
X = RNG.normal(size=(3, 4)).astype(np.float32)


def _linear(lib, w=W, out=4, inp=4):
    m = lib.nn.Linear(inp, out)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(w))
        m.bias.zero_()
    return m


def _parametrizations(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

        def right_inverse(self, a):
            return a.triu()

    class Scale(lib.nn.Module):
        def forward(self, x):
            return 2 * x

    class RankOne(lib.nn.Module):
        def forward(self, x, y):
            return x.unsqueeze(-1) @ y.unsqueeze(-2)

        def right_inverse(self, z):
            return z[:, 0], z[0, :]

    class Flatten(lib.nn.Module):
        def forward(self, x):
            return x.flatten()

    return Symmetric, Scale, RankOne, Flatten


def test_register_read_backward_and_state_dict():
    def fn(lib):
        Symmetric, Scale, _, _ = _parametrizations(lib)
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        weight = m.weight
        P.register_parametrization(m, 'weight', Symmetric())
        P.register_parametrization(m, 'weight', Scale())
        original = m.parametrizations.weight.original
        m(lib.tensor(X)).pow(2).sum().backward()
        return (type(m).__name__, P.type_before_parametrizations(m).__name__,
                P.is_parametrized(m), P.is_parametrized(m, 'weight'),
                P.is_parametrized(m, 'bias'), original is weight, plain(m.weight),
                type(m.weight.grad_fn).__name__, plain(original.grad), sorted(m.state_dict()),
                [n for n, _ in m.named_parameters()], repr(m))
    same(fn)


def test_assignment_runs_right_inverse_and_remove():
    def fn(lib):
        Symmetric, _, _, _ = _parametrizations(lib)
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        P.register_parametrization(m, 'weight', Symmetric())
        m.weight = lib.tensor(W.T.copy())
        stored = plain(m.parametrizations.weight.original)
        kept = P.remove_parametrizations(m, 'weight', leave_parametrized=True)
        n = _linear(lib)
        P.register_parametrization(n, 'weight', Symmetric())
        P.remove_parametrizations(n, 'weight', leave_parametrized=False)
        return (stored, type(kept).__name__, type(m.weight).__name__, plain(m.weight),
                hasattr(m, 'parametrizations'), plain(n.weight))
    same(fn)


def test_several_originals():
    def fn(lib):
        _, _, RankOne, _ = _parametrizations(lib)
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        P.register_parametrization(m, 'weight', RankOne())
        plist = m.parametrizations.weight
        got = (plist.is_tensor, plist.ntensors, sorted(m.state_dict()), plain(m.weight),
               type(plist.original0).__name__)
        P.remove_parametrizations(m, 'weight', leave_parametrized=False)
        return got
    same(fn)


@pytest.mark.parametrize('case', ['shape', 'missing', 'not_parametrized', 'no_inverse',
                                  'second_shape', 'pickle'])
def test_errors(case):
    def fn(lib):
        Symmetric, Scale, _, Flatten = _parametrizations(lib)
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        if case == 'shape':
            P.register_parametrization(m, 'weight', Flatten())
        elif case == 'missing':
            P.register_parametrization(m, 'nope', Scale())
        elif case == 'not_parametrized':
            P.remove_parametrizations(m, 'bias')
        elif case == 'no_inverse':
            P.register_parametrization(m, 'weight', Scale())
            m.weight = lib.zeros(4, 4)
        elif case == 'second_shape':
            P.register_parametrization(m, 'weight', Scale())
            P.register_parametrization(m, 'weight', Flatten())
        else:
            P.register_parametrization(m, 'weight', Scale())
            pickle.dumps(m)
    # (the module's repr inside a message names ember's or torch's class alike)
    same(fn)


def test_unsafe_allows_a_change_of_shape_and_deepcopy_and_cached():
    def fn(lib):
        _, Scale, _, Flatten = _parametrizations(lib)
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        P.register_parametrization(m, 'weight', Flatten(), unsafe=True)
        flat = tuple(m.weight.shape)
        n = _linear(lib)
        P.register_parametrization(n, 'weight', Scale())
        c = copy.deepcopy(n)
        with P.cached():
            first_is_second = n.weight is n.weight
        return (flat, type(c).__name__, plain(c.weight), c.parametrizations.weight.original
                is n.parametrizations.weight.original, first_is_second, n.weight is n.weight)
    same(fn)


@pytest.mark.parametrize('dim', [0, 1, None, -1])
def test_weight_norm(dim):
    def fn(lib):
        m = lib.nn.utils.parametrizations.weight_norm(_linear(lib, W[:3], 3, 4), dim=dim)
        plist = m.parametrizations.weight
        m(lib.tensor(X)).sum().backward()
        return (plain(m.weight), type(m.weight.grad_fn).__name__, plain(plist.original0),
                plain(plist.original0.grad), plain(plist.original1.grad), sorted(m.state_dict()),
                repr(m))
    same(fn)


def test_weight_norm_loads_the_hook_based_state_dict():
    def fn(lib):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # (the hook-based form's deprecation)
            old = lib.nn.utils.weight_norm(_linear(lib))
        new = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(4, 4))
        result = new.load_state_dict(old.state_dict())
        return plain(new.weight), str(result)
    same(fn)


@pytest.mark.parametrize('dim', [0, 1, -1])
def test_weight_norm_op(dim):
    def fn(lib):
        v = lib.tensor(W[:3].astype(np.float64), requires_grad=True)
        gshape = {0: (3, 1), 1: (1, 4), -1: ()}[dim]
        g = lib.tensor(np.full(gshape, 1.5), requires_grad=True)
        w = lib._weight_norm(v, g, dim)
        w.pow(3).sum().backward()
        return plain(w), type(w.grad_fn).__name__, plain(v.grad), plain(g.grad)
    same(fn)


@pytest.mark.parametrize('module', ['linear', 'conv_transpose', 'bias'])
def test_spectral_norm(module):
    def fn(lib):
        if module == 'bias':  # a 1-D tensor is normalised, no power iteration
            m = lib.nn.utils.parametrizations.spectral_norm(_linear(lib), 'bias')
            with lib.no_grad():
                m.parametrizations.bias.original.copy_(lib.tensor([3.0, 0.0, 4.0, 0.0]))
            return plain(m.bias), sorted(m.state_dict())
        if module == 'linear':
            m = lib.nn.utils.parametrizations.spectral_norm(_linear(lib), n_power_iterations=2)
        else:
            m = lib.nn.ConvTranspose2d(2, 3, 2)
            with lib.no_grad():
                m.weight.copy_(lib.tensor(RNG_CONV))
            m = lib.nn.utils.parametrizations.spectral_norm(m)
        sn = m.parametrizations.weight[0]
        # the power iteration starts from random vectors: fix them, then compare
        with lib.no_grad():
            sn._u.copy_(lib.ones_like(sn._u) / sn._u.numel() ** 0.5)
            sn._v.copy_(lib.ones_like(sn._v) / sn._v.numel() ** 0.5)
        w_train = m.weight
        m.eval()
        w_eval = m.weight
        return (sn.dim, type(sn).__name__, plain(w_train), plain(w_eval), plain(sn._u),
                type(w_train.grad_fn).__name__, sorted(m.state_dict()))
    same(fn)


RNG_CONV = RNG.normal(size=(2, 3, 2, 2)).astype(np.float32)


def test_spectral_norm_errors():
    for call in (lambda lib: lib.nn.utils.parametrizations.spectral_norm(_linear(lib), 'nope'),
                 lambda lib: lib.nn.utils.parametrizations.spectral_norm(_linear(lib), dim=2),
                 lambda lib: lib.nn.utils.parametrizations.spectral_norm(
                     _linear(lib), n_power_iterations=0)):
        same(call)


@pytest.mark.parametrize('shape', [(4, 4), (4, 3), (3, 4)])
@pytest.mark.parametrize('orth_map', [None, 'matrix_exp', 'cayley', 'householder'])
@pytest.mark.parametrize('trivial', [True, False])
def test_orthogonal(shape, orth_map, trivial):
    w = RNG.normal(size=shape)

    def fn(lib):
        m = lib.nn.Linear(shape[1], shape[0], bias=False).double()
        with lib.no_grad():
            m.weight.copy_(lib.tensor(w))
        m = lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orth_map,
                                                     use_trivialization=trivial)
        q = m.weight
        m(lib.tensor(X.astype(np.float64)[:, :shape[1]])).pow(2).sum().backward()
        orig = m.parametrizations.weight.original
        # (a non-square base is completed with random columns: the gradient depends on them)
        grad = plain(orig.grad) if shape[0] == shape[1] or not trivial else None
        return (plain(q), plain(orig), grad, type(q.grad_fn).__name__,
                sorted(m.state_dict()), m.parametrizations.weight[0].orthogonal_map.name)
    same(fn)


@pytest.mark.parametrize('case', ['vector', 'map', 'missing'])
def test_orthogonal_errors(case):
    def fn(lib):
        m = _linear(lib)
        if case == 'vector':
            lib.nn.utils.parametrizations.orthogonal(m, 'bias')
        elif case == 'map':
            lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map='qr')
        else:
            lib.nn.utils.parametrizations.orthogonal(m, 'nope')
    same(fn)
