"""Tensor's device/layout predicates, element maps with Python callables, resize_/set_,
the dunders torch defines, and torch's sym_* helpers, compared with torch 2.13."""
import pickle
import warnings

import numpy as np
import pytest

from .oracle import check, arr, torch
import ember

PREDICATES = ['is_cpu', 'is_ipu', 'is_maia', 'is_mkldnn', 'is_mps', 'is_mtia', 'is_nested',
              'is_sparse_csr', 'is_vulkan', 'is_xla', 'is_xpu', 'name', 'grad_dtype']


@pytest.mark.parametrize('name', PREDICATES)
def test_properties(name):
    check(lambda T, a: getattr(a, name), arr(2, 3))
    check(lambda T, a: getattr(a, name), arr(2, dtype=np.int32))


def test_volatile_warns_and_is_false():
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match='volatile was removed'):
            assert lib.ones(1).volatile is False


def test_cuda_array_interface_is_absent():
    for lib in (ember, torch):
        assert not hasattr(lib.ones(1), '__cuda_array_interface__')
    check(lambda T: T.ones(2).__cuda_array_interface__, match_message=True)


@pytest.mark.parametrize('name', ['is_distributed', 'is_neg', 'is_inference', 'is_signed',
                                  'get_device', 'resolve_neg'])
@pytest.mark.parametrize('dtype', [np.float32, np.uint8, np.bool_, np.int64])
def test_function_predicates(name, dtype):
    check(lambda T, a: getattr(T, name)(a), arr(3, dtype=dtype))
    check(lambda T, a: getattr(a, name)(), arr(3, dtype=dtype))


def test_resolve_neg_is_identity():
    check(lambda T, a: T.resolve_neg(a) is a, arr(3))


@pytest.mark.parametrize('name', ['is_pinned', 'dense_dim', 'sparse_dim', 'const_data_ptr',
                                  'to_dense', 'dim_order'])
@pytest.mark.parametrize('x', [arr(2, 3), arr(2, 1, 3), arr()])
def test_layout_methods(name, x):
    def f(T, a):
        r = getattr(a, name)()
        return (r == a.data_ptr()) if name == 'const_data_ptr' else r
    check(f, x)
    check(lambda T, a: getattr(a.t() if a.dim() == 2 else a, name)() if name != 'const_data_ptr'
          else 0, x)


def test_to_dense_with_a_dtype():
    check(lambda T, a: (a.to_dense() is a, a.to_dense(T.float32)), arr(3))


@pytest.mark.parametrize('fn', [lambda T: T.ones(2).pin_memory(), lambda T: T.ones(2).ipu(),
                                lambda T: T.ones(2).xpu()])
def test_devices_this_build_lacks(fn):
    check(fn, match_message=True)


def test_mtia_is_refused():
    for lib in (ember, torch):
        with pytest.raises(AssertionError, match='Torch not compiled with MTIA enabled'):
            lib.ones(2).mtia()


def test_is_set_to():
    def f(T, a):
        b = a.clone()
        c = T.empty(0, dtype=a.dtype).set_(b)
        return (b.is_set_to(b), b.is_set_to(b.view(6)), b.is_set_to(a), c.is_set_to(b),
                b[0].is_set_to(b[0]), c, c._version)
    check(f, arr(2, 3), grad=False)


def test_set_():
    def f(T, a):
        b = a.clone()
        c = T.zeros(5, dtype=a.dtype)
        v = c._version
        c.set_(b)
        c.mul_(2)  # shares b's memory now
        e = T.ones(3, dtype=a.dtype).set_()
        return b, c, c._version - v, e
    check(f, arr(2, 3), grad=False)
    check(lambda T, a: T.zeros(2).set_(a), arr(2), grad=False, match_message=True)


@pytest.mark.parametrize('x', [arr(2, 3), arr(3, dtype=np.int64)])
def test_apply_map_map2(x):
    def f(T, a):
        b, c, d = a.clone(), a.clone(), a.clone()
        b.apply_(lambda v: v * 2 + 1)
        c.map_(a[..., :1] if a.dim() > 1 else a, lambda s, o: s - o * 3)
        d.map2_(a, a, lambda s, p, q: s + p * q)
        return b, c, d, b._version
    check(f, x, grad=False)
    check(lambda T, a: a.apply_(lambda v: v), arr(2), match_message=True)
    check(lambda T, a: a.clone().map_(T.ones(4, dtype=a.dtype), lambda s, o: s), arr(2, 3),
          grad=False)


@pytest.mark.parametrize('size', [(1, 3), (3,), (2, 3), (2, 1), ()])
def test_sum_to_size(size):
    check(lambda T, a: a.sum_to_size(*size) if size else a.sum_to_size(size), arr(2, 3),
          double=True)
    check(lambda T, a: (a * 1).sum_to_size(size), arr(2, 3))


def test_sum_to_size_errors():
    check(lambda T, a: a.sum_to_size(4), arr(2, 3), match_message=True)


@pytest.mark.parametrize('sizes', [(3, 2), (2,), (6,), (0,), (2, 2, 2)])
def test_resize_(sizes):
    def f(T, a):
        b = a.clone()
        v = b._version
        b.resize_(*sizes)
        n = min(b.numel(), a.numel())
        return b.shape, b.reshape(-1)[:n], b._version - v, b.is_contiguous()
    check(f, arr(2, 3), grad=False)
    check(lambda T, a: a.clone().resize_as_(T.empty(sizes)).shape, arr(2, 3), grad=False)


def test_resize_errors():
    check(lambda T, a: (a * 1).resize_(3), arr(2, 3), match_message=True)
    check(lambda T, a: a.clone().resize_(-1), arr(2), grad=False)


@pytest.mark.parametrize('sizes', [(3, 2), (6,), (4,)])
def test_deprecated_out_of_place_resize(sizes):
    def f(T, a):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return a.resize(*sizes), a.resize_as(T.empty(sizes))
    check(f, arr(2, 3), grad=False, match_message=True)


def test_dunders():
    def f(T, a, i):
        return (a.__reversed__(), reversed(a[0]) if 0 else a[0].__reversed__(),
                i[0].__long__(), a[0, :1].__nonzero__(), T.tensor(2.5).__reversed__())
    check(f, arr(2, 3), np.array([7, 1]))
    check(lambda T, a: a.__nonzero__(), arr(2), match_message=True)
    check(lambda T, a: a.__long__(), arr(2), grad=False)


def test_array_wrap_makes_tensors():
    def f(T, a):
        return np.exp(a.detach()), np.greater(a.detach(), 0), a.detach().__array_wrap__(
            np.array([True, False]))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)  # (torch's own signature)
        check(f, arr(3), grad=False)


@pytest.mark.parametrize('state', ['set_', 'variable', 'flags'])
def test_setstate_of_the_legacy_protocols(state):
    def f(T, a):
        t = T.empty(0, dtype=a.dtype)
        src = a.detach().clone()
        t.__setstate__({'set_': (src, 1, (2,), (2,)), 'variable': (src, None, None, True, None),
                        'flags': (True, None, None)}[state])
        return t, t.requires_grad
    check(f, arr(2, 3), grad=False)
    check(lambda T, a: (a * 1).__setstate__((True, None, None)), arr(2), match_message=True)


# -- sym_* -------------------------------------------------------------------------------------
SYM = [('sym_float', (3,)), ('sym_float', (2.5,)), ('sym_float', (True,)),
       ('sym_max', (2, 3)), ('sym_max', (3, 2.5)), ('sym_min', (1, 2.5)), ('sym_min', (4, 2)),
       ('sym_max', (np.int64(2), 1.5)), ('sym_not', (True,)), ('sym_not', (0,)),
       ('sym_sqrt', (4,)), ('sym_sqrt', (2.0,)), ('sym_ite', (True, 1, 2)),
       ('sym_ite', (False, 'a', 'b')), ('sym_sum', ([1, 2, 3],)), ('sym_sum', ([],)),
       ('sym_sum', ([1.5, 2],)), ('sym_max', (2, '3')), ('sym_ite', (1, 1, 2)),
       ('sym_sqrt', (-1,)), ('sym_float', ('a',))]


@pytest.mark.parametrize('name,args', SYM)
def test_sym(name, args):
    def f(T):
        r = getattr(T, name)(*args)
        return r, type(r).__name__
    check(f, match_message=True)


def test_sym_on_tensors():
    check(lambda T, a: (T.sym_float(a), T.sym_sqrt(a), T.sym_sum([a, a])), arr(low=1, high=2))


def test_detach_function():
    check(lambda T, a: T.detach(a), arr(3))


# -- storages ------------------------------------------------------------------------------------
@pytest.mark.parametrize('make_x', [lambda T: T.arange(6.).reshape(2, 3)[1:],
                                    lambda T: T.tensor([1, 2], dtype=T.uint8),
                                    lambda T: T.ones(3, dtype=T.int64).t()])
def test_untyped_storage(make_x):
    def f(T):
        x = make_x(T)
        u = x.untyped_storage()
        return (type(u).__name__, u.nbytes(), u.size(), len(u), u.element_size(), str(u.device),
                u[0], u.tolist(), u.is_shared(),
                u.data_ptr() == x.data_ptr() - x.storage_offset() * x.element_size(), repr(u))
    check(f)


@pytest.mark.parametrize('dtype', ['float32', 'int64', 'bool', 'float64'])
def test_typed_storage_and_storage_type(dtype):
    def f(T):
        x = T.arange(5).to(getattr(T, dtype))[1:]
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', UserWarning)
            s = x.storage()
        cls = x.storage_type()
        return (type(s).__name__, s.size(), len(s), s.dtype, s.nbytes(), s[1], s.tolist(),
                s.element_size(), s.data_ptr() == x.untyped_storage().data_ptr(),
                type(s.untyped()).__name__, repr(s), cls.__name__, cls.__module__)
    check(f)


def test_storage_warns_once_per_process():
    script = ("import warnings, {lib}\n"
              "with warnings.catch_warnings(record=True) as w:\n"
              "    warnings.simplefilter('always')\n"
              "    {lib}.zeros(3).storage(); {lib}.ones(2).storage(); {lib}.FloatStorage(2)\n"
              "print([str(x.message)[:30] for x in w])")
    from tests.dropin.compare import script_output
    e, t = script_output(script)
    assert e == t and 'TypedStorage is deprecated' in e


def test_storage_shares_memory():
    for lib in (ember, torch):
        x = lib.zeros(3)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', UserWarning)
            s = x.storage()
        s[1] = 5.0
        x.untyped_storage()[0] = 1
        assert x.tolist()[1] == 5.0 and x.untyped_storage()[0] == 1
        assert lib.UntypedStorage(4).nbytes() == 4
