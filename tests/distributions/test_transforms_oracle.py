"""Transforms and constraints against torch: forward, inverse, log|det J| with gradients,
domain/codomain, sign, shapes, equality, caching; the constraints' checks and reprs."""
import numpy as np
import pytest

from .helpers import arr, check, simplex, ember, torch

# name -> (make(T, lib, *params), params, x in the domain)
TRANSFORMS = {
    'Exp': (lambda T, lib: T.ExpTransform(), [], arr(2, 3)),
    'Affine_numbers': (lambda T, lib: T.AffineTransform(1.5, -2.0), [], arr(2, 3)),
    'Affine_tensors': (lambda T, lib, a, b: T.AffineTransform(a, b), [arr(3), arr(3, seed=1)],
                       arr(2, 3, seed=2)),
    'Affine_event': (lambda T, lib, a, b: T.AffineTransform(a, b, event_dim=1),
                     [arr(3), arr(3, seed=1)], arr(2, 3, seed=2)),
    'Sigmoid': (lambda T, lib: T.SigmoidTransform(), [], arr(2, 3)),
    'Tanh': (lambda T, lib: T.TanhTransform(), [], arr(2, 3)),
    'Softplus': (lambda T, lib: T.SoftplusTransform(), [], arr(2, 3)),
    'Power': (lambda T, lib, e: T.PowerTransform(e), [arr(3, low=0.5, high=2.0)],
              arr(2, 3, low=0.5, high=2.0, seed=1)),
    'StickBreaking': (lambda T, lib: T.StickBreakingTransform(), [], arr(2, 3)),
    'Compose': (lambda T, lib, a: T.ComposeTransform([T.AffineTransform(a, 2.0),
                                                      T.ExpTransform(), T.PowerTransform(
                                                          lib.tensor(0.5, dtype=a.dtype))]),
                [arr(3)], arr(2, 3, seed=1)),
    'Compose_event': (lambda T, lib: T.ComposeTransform([T.ExpTransform(),
                                                         T.StickBreakingTransform()]),
                      [], arr(2, 3)),
    'Independent': (lambda T, lib: T.IndependentTransform(T.SigmoidTransform(), 1), [],
                    arr(2, 3)),
    'Inverse': (lambda T, lib: T.SigmoidTransform().inv, [], arr(2, 3, low=0.1, high=0.9)),
    'Identity': (lambda T, lib: T.ComposeTransform([]), [], arr(2, 3)),
    'Reshape': (lambda T, lib: T.ReshapeTransform((3,), (3, 1)), [], arr(2, 3)),
    'Cat': (lambda T, lib: T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], -1, [1, 2]),
            [], arr(2, 3)),
    'Cat_batch_dim': (lambda T, lib: T.CatTransform([T.ExpTransform(), T.TanhTransform()], 0,
                                                    [1, 1]), [], arr(2, 3)),
    'Cat_event': (lambda T, lib: T.CatTransform(
        [T.StickBreakingTransform(), T.IndependentTransform(T.ExpTransform(), 1)], 0, [1, 1]),
        [], arr(2, 3)),
    'Stack': (lambda T, lib: T.StackTransform([T.ExpTransform(), T.SigmoidTransform(),
                                               T.AffineTransform(1.0, 3.0)], -1), [], arr(2, 3)),
    'CDF': (lambda T, lib, m: T.CumulativeDistributionTransform(
        lib.distributions.Normal(m, 2.0)), [arr(3)], arr(2, 3, seed=1)),
    'CorrCholesky': (lambda T, lib: T.CorrCholeskyTransform(), [], arr(2, 6, low=-2.0,
                                                                     high=2.0)),
}


@pytest.mark.parametrize('name', TRANSFORMS)
def test_forward_inverse_jacobian(name):
    make, params, x = TRANSFORMS[name]

    def fn(lib, x, *ps):
        t = make(lib.distributions.transforms, lib, *ps)
        y = t(x)
        return y, t.inv(y), t.log_abs_det_jacobian(x, y)
    check(fn, x, *params)


@pytest.mark.parametrize('name', TRANSFORMS)
def test_properties(name):
    make, params, x = TRANSFORMS[name]

    def fn(lib, x, *ps):
        t = make(lib.distributions.transforms, lib, *ps)
        sign = t.sign if name not in ('StickBreaking', 'Compose_event', 'Reshape', 'Cat',
                                      'Cat_batch_dim', 'Cat_event', 'Stack') else None
        return (repr(t.domain), repr(t.codomain), t.domain.event_dim, t.codomain.event_dim,
                t.bijective, sign, t.forward_shape(x.shape), t.inverse_shape(t(x).shape),
                t == make(lib.distributions.transforms, lib, *ps), repr(t))
    check(fn, x, *params, grad=False)


def test_cache():
    def fn(lib, x):
        t = lib.distributions.transforms.ExpTransform(cache_size=1)
        y = t(x)
        return t.inv(y) is x, t(x) is y, t.with_cache(0)._cache_size
    check(fn, arr(3), grad=False)


def test_cache_size_error():
    check(lambda lib: lib.distributions.transforms.ExpTransform(cache_size=2), grad=False)


def test_softmax_transform():
    def fn(lib, x):
        t = lib.distributions.transforms.SoftmaxTransform()
        return t(x), t.inv(t(x))
    check(fn, arr(2, 4))


def test_tanh_transformed_normal():
    # The squashed Gaussian of soft actor-critic: log_prob through a TanhTransform.
    def fn(lib, m, s, v):
        D = lib.distributions
        d = D.TransformedDistribution(D.Normal(m, s), [D.transforms.TanhTransform()])
        return d.log_prob(v), d.support.check(v)
    check(fn, arr(3), arr(3, low=0.5, high=1.5), arr(4, 3, low=-0.9, high=0.9))


def test_transformed_cdf_icdf_decreasing():
    def fn(lib, m, s, v):
        D = lib.distributions
        d = D.TransformedDistribution(D.Normal(m, s), [D.transforms.AffineTransform(0.0, -2.0)])
        return d.cdf(v), d.icdf(lib.tensor([0.2, 0.5, 0.7], dtype=v.dtype)), d.batch_shape
    check(fn, arr(3), arr(3, low=0.5, high=1.5), arr(3, seed=4))


def test_transformed_broadcasting_base():
    def fn(lib, loc, v):
        D = lib.distributions
        d = D.TransformedDistribution(D.Normal(0.0, 1.0),
                                      [D.transforms.AffineTransform(loc, 1.0)])
        return d.batch_shape, d.log_prob(v), d.sample((2,)).shape
    check(fn, arr(3), arr(3, seed=1))


CONSTRAINTS = {
    'real': lambda C: C.real, 'positive': lambda C: C.positive,
    'nonnegative': lambda C: C.nonnegative, 'unit_interval': lambda C: C.unit_interval,
    'boolean': lambda C: C.boolean, 'nonnegative_integer': lambda C: C.nonnegative_integer,
    'positive_integer': lambda C: C.positive_integer,
    'integer_interval': lambda C: C.integer_interval(0, 3),
    'interval': lambda C: C.interval(-1.0, 1.0),
    'half_open_interval': lambda C: C.half_open_interval(-1.0, 1.0),
    'greater_than': lambda C: C.greater_than(0.5), 'greater_than_eq': lambda C: C.greater_than_eq(0.5),
    'less_than': lambda C: C.less_than(0.5), 'real_vector': lambda C: C.real_vector,
    'independent': lambda C: C.independent(C.positive, 1), 'simplex': lambda C: C.simplex,
    'one_hot': lambda C: C.one_hot, 'multinomial': lambda C: C.multinomial(3),
    'lower_triangular': lambda C: C.lower_triangular,
    'lower_cholesky': lambda C: C.lower_cholesky, 'square': lambda C: C.square,
    'symmetric': lambda C: C.symmetric, 'positive_definite': lambda C: C.positive_definite,
    'positive_semidefinite': lambda C: C.positive_semidefinite,
    'corr_cholesky': lambda C: C.corr_cholesky,
    'cat': lambda C: C.cat([C.positive, C.real], 0, [1, 2]),
    'stack': lambda C: C.stack([C.positive, C.real, C.unit_interval], -1),
}

VALUES = [
    np.array([[0.0, 1.0, 0.5], [2.0, -1.0, 3.0], [np.nan, 1.0, 0.0]]),
    np.array([[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.2, 0.1, 2.0]]),
    np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]]),
    np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]]),
    np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
]


@pytest.mark.parametrize('i', range(len(VALUES)))
@pytest.mark.parametrize('name', CONSTRAINTS)
def test_constraint(name, i):
    def fn(lib, v):
        c = CONSTRAINTS[name](lib.distributions.constraints)
        return c.check(v), repr(c), c.event_dim, c.is_discrete
    check(fn, VALUES[i], grad=False)


def test_dependent_constraints():
    def fn(lib):
        C = lib.distributions.constraints
        dep = C.dependent(is_discrete=True, event_dim=1)
        try:
            C.dependent.check(lib.ones(1))
        except ValueError as e:
            msg = str(e)
        return (C.is_dependent(dep), dep.is_discrete, dep.event_dim, msg,
                C.is_dependent(lib.distributions.Uniform.support),
                C.is_dependent(C.real))
    check(fn, grad=False)


REGISTRY_CASES = ['real', 'positive', 'nonnegative', 'greater_than', 'greater_than_eq',
                  'less_than', 'unit_interval', 'interval', 'half_open_interval', 'simplex',
                  'independent', 'real_vector', 'lower_cholesky', 'positive_definite',
                  'positive_semidefinite', 'boolean', 'one_hot', 'stack', 'corr_cholesky']


@pytest.mark.parametrize('registry', ['biject_to', 'transform_to'])
@pytest.mark.parametrize('name', REGISTRY_CASES)
def test_constraint_registry(name, registry):
    def fn(lib, x):
        D = lib.distributions
        t = getattr(D, registry)(CONSTRAINTS[name](D.constraints))
        x = x if t.domain.event_dim < 2 else x.reshape(2, 2)
        y = t(x)
        return (repr(t), y, t.codomain.check(y), t.inv(y) if t.bijective else y,
                t.log_abs_det_jacobian(x, y) if t.bijective else y)
    check(fn, arr(4), message=False)


def test_registry_register_errors_and_custom_entries():
    def fn(lib):
        D = lib.distributions
        reg = D.constraint_registry.ConstraintRegistry()
        reg.register(D.constraints.positive, lambda c: D.transforms.ExpTransform())
        try:
            reg.register(3, lambda c: None)
        except TypeError as e:
            err = str(e)
        try:
            reg(D.constraints.real)
        except NotImplementedError as e:
            missing = str(e)
        return repr(reg(D.constraints.positive)), err, missing
    check(fn, grad=False)


@pytest.mark.parametrize('case', ['cat_wrong_length', 'stack_wrong_length', 'reshape_numel',
                                  'reshape_shape'])
def test_structural_transform_errors(case):
    def fn(lib):
        T = lib.distributions.transforms
        if case == 'cat_wrong_length':
            return T.CatTransform([T.ExpTransform()], 0, [2])(lib.zeros(3))
        if case == 'stack_wrong_length':
            return T.StackTransform([T.ExpTransform()], 0)(lib.zeros(3))
        if case == 'reshape_numel':
            return T.ReshapeTransform((3,), (2, 2))
        return T.ReshapeTransform((3,), (3, 1)).forward_shape((2, 4))
    check(fn, grad=False)
