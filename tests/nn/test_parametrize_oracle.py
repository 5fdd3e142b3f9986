"""nn.utils.parametrize and nn.utils.parametrizations against torch: registering, chaining,
assigning through right_inverse, removing, caching, state dicts, the class swap, torch's
errors, and weight_norm / spectral_norm / orthogonal with their gradients. Random starts
(spectral norm's u and v, orthogonal's completion) are copied from torch's module into
ember's, so both compute the same thing."""
import copy
import pickle

import numpy as np
import pytest

from tests.dropin.compare import same, plain, error_of, torch, ember


def _linear(lib, n_in=3, n_out=4, seed=0):
    rng = np.random.default_rng(seed)
    m = lib.nn.Linear(n_in, n_out)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(rng.standard_normal((n_out, n_in)), dtype=lib.float32))
        m.bias.copy_(lib.tensor(rng.standard_normal(n_out), dtype=lib.float32))
    return m


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()
    return Symmetric()


def _scale(lib, k):
    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * k

        def right_inverse(self, A):
            return A / k
    return Scale()


def test_register_access_assign_remove():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib, 4, 4)
        P.register_parametrization(m, 'weight', _symmetric(lib))
        seen = [type(m).__name__, P.is_parametrized(m), P.is_parametrized(m, 'weight'),
                P.is_parametrized(m, 'bias'), P.type_before_parametrizations(m).__name__,
                sorted(m.state_dict()), sorted(n for n, _ in m.named_parameters()),
                plain(m.weight), bool((m.weight == m.weight.T).all())]
        P.register_parametrization(m, 'weight', _scale(lib, 2.0))
        seen.append(plain(m.weight))
        target = lib.arange(16.).reshape(4, 4)
        m.weight = target + target.T
        seen += [plain(m.weight), plain(m.parametrizations.weight.original)]
        x = lib.ones(2, 4)
        m(x).sum().backward()
        seen.append(plain(m.parametrizations.weight.original.grad))
        P.remove_parametrizations(m, 'weight')
        seen += [type(m).__name__, P.is_parametrized(m), hasattr(m, 'parametrizations'),
                 sorted(m.state_dict()), plain(m.weight), isinstance(m.weight, lib.nn.Parameter)]
        return seen
    same(run)


def test_remove_keeping_the_original():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        P.register_parametrization(m, 'weight', _scale(lib, 3.0))
        P.register_parametrization(m, 'bias', _scale(lib, 2.0))
        P.remove_parametrizations(m, 'weight', leave_parametrized=False)
        return type(m).__name__, plain(m.weight), plain(m.bias), sorted(m.state_dict())
    same(run)


def test_cached_computes_once():
    def run(lib):
        P = lib.nn.utils.parametrize
        calls = []

        class Counting(lib.nn.Module):
            def forward(self, X):
                calls.append(1)
                return X * 2
        m = _linear(lib)
        P.register_parametrization(m, 'weight', Counting())
        with P.cached():
            a, b = m.weight, m.weight
            same_object = a is b
        after = m.weight
        return same_object, len(calls), plain(after)
    same(run)


@pytest.mark.parametrize('case', ['dtype', 'shape', 'bad-name', 'not-a-tensor',
                                  'inverse-dtype', 'no-inverse', 'remove-twice'])
def test_errors(case):
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)

        class Cast(lib.nn.Module):
            def forward(self, X):
                return X.double()

        class Flat(lib.nn.Module):
            def forward(self, X):
                return X.flatten()

        class NotTensor(lib.nn.Module):
            def forward(self, X):
                return 3

        class NoInverse(lib.nn.Module):
            def forward(self, X):
                return X
        if case == 'dtype':
            P.register_parametrization(m, 'weight', Cast())
        elif case == 'shape':
            P.register_parametrization(m, 'weight', Flat())
        elif case == 'bad-name':
            P.register_parametrization(m, 'nope', Cast())
        elif case == 'not-a-tensor':
            P.register_parametrization(m, 'weight', NotTensor())
        elif case == 'inverse-dtype':
            class BadInverse(lib.nn.Module):
                def forward(self, X):
                    return X

                def right_inverse(self, X):
                    return X.double()
            P.register_parametrization(m, 'weight', BadInverse())
        elif case == 'no-inverse':
            P.register_parametrization(m, 'weight', NoInverse())
            m.weight = lib.zeros(4, 3)
        else:
            P.register_parametrization(m, 'weight', NoInverse())
            P.remove_parametrizations(m, 'weight')
            P.remove_parametrizations(m, 'weight')
    e, t = [error_of(run, lib) for lib in (ember, torch)]
    assert e[0] == t[0]
    assert e[1].split('\n')[0].replace('ember', 'torch').split("'")[0] == \
        t[1].split('\n')[0].split("'")[0]



def test_unsafe_allows_a_new_shape():
    def run(lib):
        P = lib.nn.utils.parametrize

        class Flat(lib.nn.Module):
            def forward(self, X):
                return X.flatten()
        m = _linear(lib)
        P.register_parametrization(m, 'weight', Flat(), unsafe=True)
        return tuple(m.weight.shape), m.parametrizations.weight.unsafe
    same(run)


def test_parametrized_modules_deepcopy_but_do_not_pickle():
    def run(lib):
        P = lib.nn.utils.parametrize
        m = _linear(lib)
        P.register_parametrization(m, 'weight', _scale(lib, 2.0))
        twin = copy.deepcopy(m)
        try:
            pickle.dumps(m)
            pickled = 'pickled'
        except RuntimeError as e:
            pickled = str(e).split(' See')[0]
        return type(twin).__name__, plain(twin.weight), pickled
    same(run)


def test_state_dict_round_trip_between_libraries():
    tm = _linear(torch)
    torch.nn.utils.parametrize.register_parametrization(tm, 'weight', _scale(torch, 2.0))
    em = _linear(ember, seed=5)
    ember.nn.utils.parametrize.register_parametrization(em, 'weight', _scale(ember, 2.0))
    em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    assert np.allclose(em.weight.detach().numpy(), tm.weight.detach().numpy())


# -- parametrizations ---------------------------------------------------------------------------
@pytest.mark.parametrize('dim', [0, 1, None, -1])
def test_weight_norm(dim):
    def run(lib):
        m = _linear(lib)
        lib.nn.utils.parametrizations.weight_norm(m, dim=dim)
        y = m(lib.ones(2, 3))
        y.sum().backward()
        orig = m.parametrizations.weight
        return (sorted(m.state_dict()), plain(m.weight), type(m.weight.grad_fn).__name__,
                plain(orig.original0), plain(orig.original0.grad), plain(orig.original1.grad))
    same(run)


def test_weight_norm_loads_the_old_keys():
    def run(lib):
        old = lib.nn.utils.weight_norm(_linear(lib))
        new = lib.nn.utils.parametrizations.weight_norm(_linear(lib, seed=3))
        new.load_state_dict(old.state_dict())
        return plain(new.weight), plain(old.weight)
    same(run)


def _copy_buffers(src, dst):
    for name, b in src.named_buffers():
        dict(dst.named_buffers())[name].data.copy_(ember.tensor(b.numpy()))


@pytest.mark.parametrize('make', ['linear', 'conv_transpose', 'conv'])
def test_spectral_norm(make):
    def build(lib):
        if make == 'linear':
            return _linear(lib, 5, 3)
        torch_like = lib.nn.ConvTranspose2d(2, 3, 2) if make == 'conv_transpose' else \
            lib.nn.Conv2d(2, 3, 2)
        with lib.no_grad():
            w = np.random.default_rng(1).standard_normal(tuple(torch_like.weight.shape))
            torch_like.weight.copy_(lib.tensor(w, dtype=lib.float32))
        return torch_like
    t, e = build(torch), build(ember)
    torch.nn.utils.parametrizations.spectral_norm(t)
    ember.nn.utils.parametrizations.spectral_norm(e)
    assert sorted(e.state_dict()) == sorted(t.state_dict())
    _copy_buffers(t, e)
    for step in range(3):
        tw, ew = t.weight, e.weight
        assert np.allclose(ew.detach().numpy(), tw.detach().numpy(), atol=1e-5), step
    e.eval()
    t.eval()
    assert np.allclose(e.weight.detach().numpy(), t.weight.detach().numpy(), atol=1e-5)


@pytest.mark.parametrize('case', [dict(n_power_iterations=0), dict(dim=3), dict(name='nope')])
def test_spectral_norm_errors(case):
    same(lambda lib: lib.nn.utils.parametrizations.spectral_norm(_linear(lib), **case))


@pytest.mark.parametrize('shape,kind', [((4, 4), None), ((5, 3), None), ((3, 5), None),
                                        ((4, 4), 'cayley'), ((5, 3), 'householder'),
                                        ((4, 4), 'matrix_exp')])
def test_orthogonal(shape, kind):
    def run(lib):
        m = _linear(lib, shape[1], shape[0])
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=kind)
        W = m.weight
        small = W.T @ W if shape[0] >= shape[1] else W @ W.T
        eye = lib.eye(min(shape))
        return (sorted(m.state_dict()), tuple(W.shape),
                bool(lib.allclose(small, eye, atol=1e-5)),
                type(m.parametrizations.weight[0].orthogonal_map).__name__)
    same(run)


def test_orthogonal_of_an_orthogonal_matrix_keeps_it():
    def run(lib):
        m = lib.nn.Linear(3, 3)
        q = np.linalg.qr(np.random.default_rng(2).standard_normal((3, 3)))[0]
        with lib.no_grad():
            m.weight.copy_(lib.tensor(q, dtype=lib.float32))
        lib.nn.utils.parametrizations.orthogonal(m)
        out = m(lib.ones(1, 3))
        out.sum().backward()
        return plain(m.weight), plain(m.parametrizations.weight.original.grad)
    same(run)


@pytest.mark.parametrize('case', [dict(orthogonal_map='nope'), dict(name='bias'),
                                  dict(name='nope')])
def test_orthogonal_errors(case):
    same(lambda lib: lib.nn.utils.parametrizations.orthogonal(_linear(lib), **case))
