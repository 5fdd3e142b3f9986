"""ember.random, thread counts, ember.autograd.Variable and the legacy tensor types."""
import numpy as np
import pytest

from .compare import same, plain, ember, torch


def test_random_namespace_round_trip_restores_the_stream():
    # ember's state bytes are NumPy PCG64's, not torch's: compare behaviour, not bytes
    def run(t):
        t.random.manual_seed(7)
        state = t.random.get_rng_state()
        a = t.rand(3)
        t.random.set_rng_state(state)
        b = t.rand(3)
        return (state.dtype, state.dim(), t.equal(a, b), t.random.initial_seed(),
                t.random.seed() != 7, t.get_rng_state().dtype)
    same(lambda t: tuple(str(v) for v in run(t)))


def test_random_is_the_top_level_generator():
    assert ember.random.manual_seed is ember.manual_seed
    assert ember.random.get_rng_state is ember.get_rng_state


@pytest.mark.parametrize('kwargs', [{}, {'enabled': False}, {'devices': []}, {'devices': [0]}])
def test_fork_rng(kwargs):
    def run(t):
        t.manual_seed(3)
        with t.random.fork_rng(**kwargs):
            inside = t.rand(2)
        after = t.rand(2)
        t.manual_seed(3)
        first = t.rand(2)
        return t.equal(inside, first), t.equal(after, first)
    same(run)


@pytest.mark.parametrize('n', [0, -1, 1.5, '2', True, None])
def test_set_num_threads_argument_errors(n):
    same(lambda t: t.set_num_threads(n))


@pytest.mark.parametrize('n', [0, -3, 2.0])
def test_set_num_interop_threads_argument_errors(n):
    same(lambda t: t.set_num_interop_threads(n))


def test_set_num_threads_limits_blas():
    from threadpoolctl import threadpool_info
    before = ember.get_num_threads()
    try:
        for n in (1, 2):
            same(lambda t: (t.set_num_threads(n), t.get_num_threads()))
            blas = [lib['num_threads'] for lib in threadpool_info() if lib['user_api'] == 'blas']
            assert blas and all(c == n for c in blas)
    finally:
        ember.set_num_threads(before)
        torch.set_num_threads(1)  # the oracle suite's setting


def test_interop_threads_set_once():
    # a fresh process for each library: the count can be set once per process
    import subprocess
    import sys
    code = ("import {0}\n{0}.set_num_interop_threads(2)\nprint({0}.get_num_interop_threads())\n"
            "try:\n    {0}.set_num_interop_threads(3)\nexcept RuntimeError as e:\n    print(e)")
    outs = [subprocess.run([sys.executable, '-c', code.format(lib)], capture_output=True,
                           text=True, check=True).stdout for lib in ('ember', 'torch')]
    assert outs[0] == outs[1]


VARIABLE = [
    lambda t: plain(t.autograd.Variable(t.ones(2), requires_grad=True)),
    lambda t: plain(t.autograd.Variable(t.ones(2), True)),
    lambda t: plain(t.autograd.Variable(t.ones(2), volatile=True)),
    lambda t: t.autograd.Variable(t.ones(2), True, True),
    lambda t: t.autograd.Variable([1, 2]), lambda t: plain(t.autograd.Variable()),
    lambda t: t.autograd.Variable(t.ones(2, dtype=t.int64), requires_grad=True),
    lambda t: isinstance(t.ones(2), t.autograd.Variable),
    lambda t: isinstance(3, t.autograd.Variable),
    lambda t: type(t.autograd.Variable(t.nn.Parameter(t.ones(2)))).__name__,
    lambda t: type(t.autograd.Variable(t.ones(2))).__name__,
]


@pytest.mark.parametrize('call', VARIABLE)
def test_variable(call):
    same(call)


def test_variable_shares_memory_and_detaches():
    def run(t):
        a = t.ones(2, requires_grad=True)
        b = a * 2
        v = t.autograd.Variable(b)
        w = t.autograd.Variable(t.zeros(2))
        base = t.zeros(2)
        u = t.autograd.Variable(base)
        u.add_(1)
        return v.grad_fn, v.is_leaf, v.requires_grad, plain(base), w.is_leaf, u._version
    same(run)


LEGACY = ['FloatTensor', 'DoubleTensor', 'HalfTensor', 'LongTensor', 'IntTensor', 'ShortTensor',
          'CharTensor', 'ByteTensor', 'BoolTensor']


@pytest.mark.parametrize('name', LEGACY)
def test_legacy_constructors(name):
    def run(t):
        T = getattr(t, name)
        return (tuple(T(2, 3).shape), str(T(2, 3).dtype), plain(T([1, 0, 2])), plain(T()),
                tuple(T(t.Size([2, 1])).shape), plain(T((2, 3))), str(T.dtype), T.__name__,
                T.__module__, issubclass(T, t.Tensor), T(2).is_contiguous(),
                plain(T(np.array([1, 2]))), T(2, device='cpu').shape[0])
    same(run)


@pytest.mark.parametrize('name', LEGACY)
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'int64', 'int32', 'int16',
                                   'int8', 'uint8', 'bool'])
def test_legacy_isinstance_and_type(name, dtype):
    def run(t):
        x = t.ones(2, dtype=getattr(t, dtype))
        return (isinstance(x, getattr(t, name)), x.type(), str(x.type(getattr(t, name)).dtype),
                str(x.type('torch.' + name).dtype), isinstance(x, t.Tensor))
    same(run)


LEGACY_ERRORS = [
    lambda t: t.FloatTensor(t.ones(2, dtype=t.int64)), lambda t: t.ByteTensor(t.ones(2)),
    lambda t: t.FloatTensor(2.5), lambda t: t.FloatTensor('a'), lambda t: t.FloatTensor(-1),
    lambda t: t.FloatTensor(2, -1), lambda t: t.LongTensor(2, 3.0), lambda t: t.FloatTensor(2, 'a'),
    lambda t: t.FloatTensor([1, 2], [3]), lambda t: t.FloatTensor(t.ones(2), 3),
    lambda t: t.FloatTensor(t.Size([2, 3]), 4), lambda t: t.FloatTensor(device='cuda'),
    lambda t: t.FloatTensor(2, device='meta'), lambda t: plain(t.LongTensor([1.5, 2])),
    lambda t: t.ones(2).type('foo'), lambda t: str(t.ones(2).type(t.Tensor).dtype),
    lambda t: str(t.ones(2, dtype=t.int64).type('torch.Tensor').dtype),
    lambda t: str(t.ones(2).type(t.float64).dtype),
    lambda t: isinstance(t.nn.Parameter(t.ones(2)), t.FloatTensor),
    lambda t: isinstance(t.ones(2).requires_grad_(), t.FloatTensor),
    lambda t: plain(t.FloatTensor(t.ones(2))),
]


@pytest.mark.parametrize('call', LEGACY_ERRORS)
def test_legacy_errors_and_edges(call):
    same(call)


def test_legacy_constructor_from_tensor_aliases():
    def run(t):
        x = t.ones(2)
        y = t.FloatTensor(x)
        y.add_(1)
        return y is x, plain(x), x._version
    same(run)
