"""torch's top-level names that live elsewhere in ember or nowhere else: the math constants,
the dtype questions (``result_type``, ``can_cast``, ``typename``, ``is_storage``), ``fill``,
the in-place functions torch has besides the methods (``torch.acosh_(t)``), and the
nn.functional ops torch also has at the top (``torch.pixel_shuffle``); each compared with
torch, with how torch's ``overrides`` listings place them."""
import math

import numpy as np
import pytest

from tests.dropin.compare import same, plain, outcome, error_of, script_output, torch, ember
from tests.oracle.oracle import check, arr


@pytest.mark.parametrize('name', ['pi', 'e', 'inf', 'nan', 'newaxis', 'has_lapack',
                                  'has_spectral'])
def test_constants(name):
    a, b = getattr(ember, name), getattr(torch, name)
    assert (a == b) or (math.isnan(a) and math.isnan(b))


def test_newaxis_indexes():
    check(lambda T, a: a[:, T.newaxis, None], arr(2, 3))


@pytest.mark.parametrize('call', [
    lambda T: T.result_type(T.ones(2, dtype=T.int32), T.tensor(1.5, dtype=T.float64)),
    lambda T: T.result_type(T.ones(2, dtype=T.int32), T.ones(2, dtype=T.int64)),
    lambda T: T.result_type(T.ones(2, dtype=T.int32), 2.5),
    lambda T: T.result_type(T.ones(2, dtype=T.float16), 2.5),
    lambda T: T.result_type(2, T.ones(2, dtype=T.int32)),
    lambda T: T.result_type(1j, T.ones(2, dtype=T.int32)),
    lambda T: T.result_type(1j, T.ones(2, dtype=T.float64)),
    lambda T: T.result_type(1, 2.0),
    lambda T: T.result_type(True, False),
    lambda T: T.result_type(True, 2),
    lambda T: T.result_type(T.tensor(True), T.tensor(3)),
    lambda T: T.result_type(T.ones(2, dtype=T.bfloat16), T.ones(2, dtype=T.float16)),
])
def test_result_type(call):
    same(lambda lib: str(call(lib)).replace('ember.', 'torch.'))


@pytest.mark.parametrize('call', [
    lambda T: T.result_type(T.ones(2), 'a'), lambda T: T.result_type(T.ones(2), None),
    lambda T: T.result_type(T.ones(2)), lambda T: T.result_type('a', 1),
])
def test_result_type_refuses(call):
    check(call, match_message=True)


@pytest.mark.parametrize('pair', [('float32', 'int32'), ('int32', 'float32'), ('bool', 'uint8'),
                                  ('uint8', 'bool'), ('complex64', 'float64'),
                                  ('float64', 'complex64'), ('int64', 'int8')])
def test_can_cast(pair):
    same(lambda lib: lib.can_cast(getattr(lib, pair[0]), getattr(lib, pair[1])))


def test_can_cast_wants_dtypes():
    same(lambda lib: lib.can_cast(1, lib.float32))


@pytest.mark.parametrize('make', [
    lambda lib: lib.ones(2, dtype=lib.int32), lambda lib: lib.ones(2).double(),
    lambda lib: lib.nn.Parameter(lib.ones(1)), lambda lib: 1, lambda lib: 'x',
    lambda lib: [1], lambda lib: lib.ones(2, dtype=lib.bool),
])
def test_typename(make):
    same(lambda lib: lib.typename(make(lib)))


def test_typename_of_a_module_names_its_class():
    # (ember's classes live in ember's modules: the same path, under its own name)
    assert ember.typename(ember.nn.Linear(1, 1)).replace('ember.', 'torch.', 1) == \
        torch.typename(torch.nn.Linear(1, 1))


def test_is_storage():
    same(lambda lib: [lib.is_storage(lib.ones(2).untyped_storage()),
                      lib.is_storage(lib.ones(2)), lib.is_storage(None)])


# -- fill and the in-place functions -------------------------------------------------------------
def test_fill():
    check(lambda T, a: T.fill(a, 2.5), arr(2, 3))
    check(lambda T, a, v: T.fill(a * 1, v), arr(2, 3), arr())
    check(lambda T, a: T.fill(a.long(), 2.7), arr(3), grad=False)
    check(lambda T, a: T.fill(a.long(), T.tensor(2.7)), arr(3), grad=False)
    check(lambda T, a: T.fill(a > 0, 2.7), arr(3), grad=False)
    check(lambda T, a: T.fill(a, T.ones(2)), arr(2, 3), match_message=True)


METHOD_FUNCTIONS = [
    ('acosh_', lambda T, x: T.acosh_(x.abs() + 1)), ('asinh_', lambda T, x: T.asinh_(x)),
    ('atanh_', lambda T, x: T.atanh_(x * 0.1)), ('arccos_', lambda T, x: T.arccos_(x * 0.1)),
    ('arccosh_', lambda T, x: T.arccosh_(x.abs() + 1)),
    ('arcsin_', lambda T, x: T.arcsin_(x * 0.1)), ('arcsinh_', lambda T, x: T.arcsinh_(x)),
    ('arctan_', lambda T, x: T.arctan_(x)), ('arctanh_', lambda T, x: T.arctanh_(x * 0.1)),
    ('clamp_max_', lambda T, x: T.clamp_max_(x, 0.2)),
    ('clamp_min_', lambda T, x: T.clamp_min_(x, 0.2)),
    ('fix_', lambda T, x: T.fix_(x * 3)), ('negative_', lambda T, x: T.negative_(x)),
    ('round_', lambda T, x: T.round_(x * 3)), ('square_', lambda T, x: T.square_(x)),
    ('nan_to_num_', lambda T, x: T.nan_to_num_(x / 0)), ('zero_', lambda T, x: T.zero_(x)),
    ('fill_', lambda T, x: T.fill_(x, 3.0)),
    ('addmv_', lambda T, x: T.addmv_(x.sum(0), T.ones(3, 2, dtype=x.dtype), x[:, 0])),
    ('index_put_', lambda T, x: T.index_put_(x, (T.tensor([0]),), T.tensor(5.0,
                                                                             dtype=x.dtype))),
    ('as_strided_', lambda T, x: T.as_strided_(x, (2,), (1,))),
    ('resize_as_', lambda T, x: T.resize_as_(x.detach().clone(), T.ones(3))),
]


@pytest.mark.parametrize('name,call', METHOD_FUNCTIONS, ids=[n for n, _ in METHOD_FUNCTIONS])
def test_method_functions(name, call):
    # (on a non-leaf, so autograd records the in-place op: values, grad_fn and gradients)
    check(lambda T, a: call(T, a * 1), arr(2, 3, seed=3))
    same(lambda lib: (lambda x: call(lib, x) is x)(lib.ones(2, 3)))


def test_detach_function():
    same(lambda lib: (lambda y: (lib.detach_(y) is y, y.requires_grad, y.grad_fn))(
        lib.ones(2, requires_grad=True) * 2))


NN_INPLACE = [
    ('celu_', lambda T, x: T.celu_(x, 0.5)), ('selu_', lambda T, x: T.selu_(x)),
    ('threshold_', lambda T, x: T.threshold_(x, 0.1, -2.0)),
    ('rrelu_', lambda T, x: T.rrelu_(x, 0.1, 0.3, False)),
    ('dropout_', lambda T, x: T.dropout_(x, 0.5, False)),
    ('alpha_dropout_', lambda T, x: T.alpha_dropout_(x, 0.5, False)),
    ('feature_dropout_', lambda T, x: T.feature_dropout_(x, 0.5, False)),
    ('embedding_renorm_', lambda T, x: T.embedding_renorm_(x, T.tensor([0, 1, 1]), 1.0, 2.0)),
]


@pytest.mark.parametrize('name,call', NN_INPLACE, ids=[n for n, _ in NN_INPLACE])
def test_nn_inplace_functions(name, call):
    same(lambda lib: (lambda x: (call(lib, x) is x, plain(x)))(
        lib.tensor(np.linspace(-2, 2, 12).reshape(3, 4))))


def test_dropout_functions_refuse_a_bad_p():
    for name in ('dropout_', 'alpha_dropout_', 'feature_dropout_'):
        same(lambda lib: getattr(lib, name)(lib.ones(2, 3), 1.5, True))


@pytest.mark.parametrize('call', [
    lambda T, x: T.pixel_shuffle(x.reshape(1, 4, 1, 3), 2),
    lambda T, x: T.pixel_unshuffle(x.reshape(1, 1, 2, 6), 2),
    lambda T, x: T.channel_shuffle(x.reshape(1, 4, 3), 2),
    lambda T, x: T.hardshrink(x, 0.3), lambda T, x: T.hardshrink(x),
    lambda T, x: T.avg_pool1d(x.reshape(1, 2, 6), 2),
    lambda T, x: T.avg_pool1d(x.reshape(1, 2, 6), 3, 2, 1, True, False),
    lambda T, x: T.adaptive_avg_pool1d(x.reshape(1, 2, 6), 4),
    lambda T, x: T.bilinear(x[:2], x[1:3], x.reshape(3, 4, 1).expand(3, 4, 4) * 1,
                            x[0, :3] * 1),
])
def test_functional_ops_at_the_top(call):
    check(call, arr(3, 4, seed=1))


NEW_NAMES = ([n for n, _ in METHOD_FUNCTIONS] + ['detach_'] + [n for n, _ in NN_INPLACE] +
             ['pixel_shuffle', 'pixel_unshuffle', 'channel_shuffle', 'hardshrink', 'avg_pool1d',
              'adaptive_avg_pool1d', 'bilinear', 'fill', 'result_type', 'can_cast', 'typename',
              'is_storage', 'hann_window', 'hamming_window', 'blackman_window',
              'bartlett_window', 'kaiser_window'])


@pytest.mark.parametrize('name', NEW_NAMES)
def test_listed_as_torch_lists_them(name):
    def where(lib):
        listed = lib.overrides.get_overridable_functions()[lib]
        return (getattr(lib, name) in listed,
                getattr(lib, name) in lib.overrides.get_ignored_functions())
    assert where(ember) == where(torch)


def test_threshold_writes_an_expanded_tensor():
    # (torch's threshold_ kernel skips the overlap check other in-place ops make)
    same(lambda lib: plain(lib.threshold_(lib.tensor([[1., -2., 3.]]).expand(2, 3), 0., -5.)))
    same(lambda lib: plain(lib.nn.functional.threshold(lib.tensor([[1., -2.]]).expand(3, 2),
                                                       0., 7., inplace=True)))
    # (the others refuse it; ember's message names the op where torch's does not)
    check(lambda T: T.selu_(T.tensor([[1., -2.]]).expand(3, 2)))


# -- settings ------------------------------------------------------------------------------------
def test_anomaly_switch():
    def run(lib):
        seen = [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        lib.set_anomaly_enabled(True, False)
        seen += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        lib.set_anomaly_enabled(False)
        return seen + [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
    same(run)
    same(lambda lib: lib.set_anomaly_enabled(1))
    same(lambda lib: lib.set_anomaly_enabled(False, 'yes'))


def test_warn_always_and_flush_denormal():
    def run(lib):
        before = lib.is_warn_always_enabled()
        lib.set_warn_always(True)
        during = lib.is_warn_always_enabled()
        lib.set_warn_always(False)
        return before, during, lib.is_warn_always_enabled()
    same(run)
    same(lambda lib: lib.set_warn_always(None))
    same(lambda lib: lib.set_flush_denormal(0))
    # (torch flushes on x86 and answers True; NumPy has no such switch: ember answers False)
    assert ember.set_flush_denormal(True) is False


@pytest.mark.parametrize('kind', [
    lambda lib: lib.DoubleTensor, lambda lib: 'torch.DoubleTensor', lambda lib: lib.IntTensor,
    lambda lib: 'torch.IntTensor', lambda lib: lib.float64, lambda lib: 3,
    lambda lib: 'torch.Nope'])
def test_set_default_tensor_type(kind):
    def run(lib):
        try:
            lib.set_default_tensor_type(kind(lib))
            return str(lib.get_default_dtype()).replace('ember.', 'torch.')
        finally:
            lib.set_default_dtype(lib.float32)
    # (torch warns once per process: the warning is not compared)
    e, t = [outcome_of(run, lib) for lib in (ember, torch)]
    assert e == t, (e, t)


def outcome_of(fn, lib):
    """What ``fn(lib)`` did, without the warnings."""
    return outcome(lib, fn)[0]


def test_set_default_tensor_type_warns_once():
    script = ("import warnings, {lib}\nwarnings.simplefilter('always')\n"
              "with warnings.catch_warnings(record=True) as w:\n"
              "    {lib}.set_default_tensor_type({lib}.DoubleTensor)\n"
              "    {lib}.set_default_tensor_type({lib}.FloatTensor)\n"
              "print(len(w), str(w[0].message).split(' (Triggered')[0])")
    e, t = script_output(script)
    assert e == t and e.startswith('1 ')


@pytest.mark.parametrize('device', ['cpu', 'cuda:0', 'meta', 'mps', None, 'xpu', 3, 'foo'])
def test_get_device_module(device):
    same(lambda lib: lib.get_device_module(device).__name__.split('.', 1)[1])


def test_small_switches():
    same(lambda lib: (lib.init_num_threads(), lib.compiled_with_cxx11_abi()))


@pytest.mark.parametrize('name', [
    'is_autocast_cpu_enabled', 'is_autocast_ipu_enabled', 'is_autocast_xla_enabled',
    'get_autocast_cpu_dtype', 'get_autocast_gpu_dtype', 'get_autocast_ipu_dtype',
    'get_autocast_xla_dtype'])
def test_old_autocast_queries(name):
    same(lambda lib: str(getattr(lib, name)()).replace('ember.', 'torch.'))


@pytest.mark.parametrize('device,dtype', [('cpu', 'float16'), ('gpu', 'bfloat16'),
                                          ('ipu', 'bfloat16'), ('xla', 'float16')])
def test_old_autocast_setters(device, dtype):
    query = 'cuda' if device == 'gpu' else device

    def run(lib):
        before = lib.get_autocast_dtype(query)
        getattr(lib, f'set_autocast_{device}_dtype')(getattr(lib, dtype))
        after = lib.get_autocast_dtype(query)
        lib.set_autocast_dtype(query, before)
        return str(after).replace('ember.', 'torch.')
    same(run)
    same(lambda lib: getattr(lib, f'set_autocast_{device}_dtype')(1))
    if device != 'gpu':
        def flip(lib):
            getattr(lib, f'set_autocast_{device}_enabled')(True)
            on = lib.is_autocast_enabled(query)
            getattr(lib, f'set_autocast_{device}_enabled')(False)
            return on, lib.is_autocast_enabled(query)
        same(flip)
        same(lambda lib: getattr(lib, f'set_autocast_{device}_enabled')(1))


# -- range, frombuffer, cond, while_loop, the removed functions ---------------------------------
@pytest.mark.parametrize('call', [
    lambda T: T.range(0, 1, 0.3), lambda T: T.range(3, 1, -1), lambda T: T.range(1, 2.5),
    lambda T: T.range(1, 4, dtype=T.int64), lambda T: T.range(1, 4, 0.5, dtype=T.float64),
    lambda T: T.range(0, 3, requires_grad=True), lambda T: T.range(1, 4, 0),
    lambda T: T.range(4, 1), lambda T: T.range(0, float('inf')), lambda T: T.range(2, 2),
    # (an integer dtype reads the bounds and the step truncated)
    lambda T: T.range(-0.7, 0.5, dtype=T.int32), lambda T: T.range(1.5, 3, 1.0, dtype=T.int8),
    lambda T: T.range(-0.7, 2, dtype=T.uint8), lambda T: T.range(1, 3, dtype=T.bool),
    lambda T: T.range(1, 3, dtype=T.complex64),
])
def test_range(call):
    check(call, match_message=True)
    same(lambda lib: plain(call(lib)))  # (and its deprecation warning)


def test_frombuffer_shares_the_buffer():
    def run(lib):
        b = bytearray(b'\x01\x00\x02\x00\x03\x00')
        t = lib.frombuffer(b, dtype=lib.int16)
        b[0] = 9
        part = lib.frombuffer(b, dtype=lib.int8, count=2, offset=1)
        t[1] = 7
        return plain(t), plain(part), bytes(b)
    same(run)


@pytest.mark.parametrize('kw', [dict(dtype='int32'), dict(dtype='int8', count=10),
                                dict(dtype='int8', offset=7), dict(dtype='int8', count=0),
                                dict(dtype='int8', requires_grad=True),
                                dict(dtype='float32', requires_grad=True)])
def test_frombuffer_checks(kw):
    def run(lib):
        args = dict(kw, dtype=getattr(lib, kw['dtype']))
        return plain(lib.frombuffer(bytearray(b'\x01\x00\x02\x00\x03\x00\x00\x00'), **args))
    same(run)


def test_frombuffer_of_an_empty_buffer():
    same(lambda lib: lib.frombuffer(bytearray(), dtype=lib.uint8))


@pytest.mark.parametrize('call', [
    lambda T: T.cond(T.ones(1) > 0, lambda a: a + 1, lambda a: a - 1, (T.ones(2),)),
    lambda T: T.cond(False, lambda a: a + 1, lambda a: a - 1, [T.ones(2)]),
    lambda T: T.cond(T.tensor(0), lambda a, b: a + b, lambda a, b: a * b,
                     (T.ones(2), T.full((2,), 3.))),
    lambda T: T.cond(T.ones(3) > 0, lambda a: a, lambda a: a, (T.ones(2),)),
    lambda T: T.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2),
                           (T.tensor(0), T.ones(2))),
    lambda T: T.while_loop(lambda i: i < 3, lambda i: (i + 1,), (T.tensor(0),)),
    lambda T: T.while_loop(lambda i: i < 3, lambda i: i + 1, (T.tensor(0),)),
    lambda T: T.while_loop(lambda i: i > 3, lambda i: (i + 1,), [T.tensor(0)]),
])
def test_cond_and_while_loop(call):
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('name', ['solve', 'lstsq', 'eig', 'symeig', 'matrix_rank'])
def test_removed_functions_say_so(name):
    # (ember's advice after the first sentence is its own, shorter, text)
    e, t = [error_of(lambda lib: getattr(lib, name)(lib.ones(2, 2), lib.ones(2, 2)), lib)
            for lib in (ember, torch)]
    assert e[0] == t[0] == 'RuntimeError'
    assert e[1].split('.')[0] == t[1].split('.')[0]


@pytest.mark.parametrize('name', ['solve', 'lstsq', 'eig', 'symeig', 'reinforce'])
def test_removed_tensor_methods_say_so(name):
    """The removed methods still exist on Tensor, raise torch's RuntimeError with its first
    line, and are listed as ignored (not overridable) functions."""
    e, t = [error_of(lambda lib: getattr(lib.ones(2, 2), name)(lib.ones(2, 2)), lib)
            for lib in (ember, torch)]
    assert e[0] == t[0] == 'RuntimeError'
    assert e[1].split('.')[0] == t[1].split('.')[0]
    for lib in (ember, torch):
        f = getattr(lib.Tensor, name)
        assert f in lib.overrides.get_ignored_functions()
        assert f not in lib.overrides.get_overridable_functions()[lib.Tensor]


MORE_NAMES = ['set_anomaly_enabled', 'is_anomaly_enabled', 'is_anomaly_check_nan_enabled',
              'set_warn_always', 'is_warn_always_enabled', 'set_flush_denormal',
              'set_default_tensor_type', 'init_num_threads', 'compiled_with_cxx11_abi',
              'get_device_module', 'range', 'frombuffer', 'cond', 'while_loop', 'solve',
              'lstsq', 'eig', 'symeig', 'matrix_rank', 'set_autocast_cpu_enabled',
              'get_autocast_xla_dtype', 'set_autocast_gpu_dtype']


@pytest.mark.parametrize('name', MORE_NAMES)
def test_more_names_listed_as_torch_lists_them(name):
    test_listed_as_torch_lists_them(name)


# -- storages, runtime types ----------------------------------------------------------------------
@pytest.mark.parametrize('call', [
    lambda lib: lib.FloatStorage().tolist(), lambda lib: lib.DoubleStorage([1, 2]).tolist(),
    lambda lib: str(lib.BoolStorage(2).dtype).replace('ember.', 'torch.'),
    lambda lib: len(lib.LongStorage(3)), lambda lib: lib.ByteStorage((1, 2)).tolist(),
    lambda lib: lib.FloatStorage('a'), lambda lib: lib.HalfStorage([1.5]).tolist(),
    lambda lib: isinstance(lib.FloatStorage(2), lib.FloatStorage),
    lambda lib: isinstance(lib.FloatStorage(2), lib.DoubleStorage),
    lambda lib: lib.is_storage(lib.IntStorage(1)), lambda lib: lib.Storage.__name__,
    lambda lib: plain(lib.FloatTensor(lib.FloatStorage([1.5, 2]))),
    lambda lib: plain(lib.FloatTensor(lib.FloatStorage([1.5, 2]).untyped())),
    lambda lib: lib.FloatTensor(lib.DoubleStorage([1.5, 2])),
    lambda lib: isinstance(lib.ones(2, dtype=lib.bfloat16), lib.BFloat16Tensor),
])
def test_legacy_storages(call):
    same(call, distinct=True)


def test_a_legacy_tensor_shares_its_storage():
    def run(lib):
        s = lib.FloatStorage([1., 2.])
        t = lib.FloatTensor(s)
        t[0] = 7
        return s.tolist(), t.data_ptr() == s.data_ptr()
    same(run, distinct=True)


@pytest.mark.parametrize('call', [
    lambda lib: issubclass(lib.OutOfMemoryError, RuntimeError),
    lambda lib: issubclass(lib.AcceleratorError, RuntimeError),
    lambda lib: lib.cuda.OutOfMemoryError is lib.OutOfMemoryError,
    lambda lib: lib.GradScaler is lib.amp.GradScaler,
    lambda lib: lib.DisableTorchFunction is lib._C.DisableTorchFunction,
    lambda lib: lib.DisableTorchFunctionSubclass is lib._C.DisableTorchFunctionSubclass,
    lambda lib: repr(lib.Stream()), lambda lib: (lib.Stream().query(), lib.Stream().device.type),
    lambda lib: repr(lib.Event()), lambda lib: lib.Event().record(),
    lambda lib: lib.Stream() == lib.Stream(),
    lambda lib: [lib.sym_int(a) for a in (3.7, -3.7, True, 5)],
    lambda lib: lib.sym_constrain_range(5, min=6),
    lambda lib: lib.sym_constrain_range(5, max=4),
    lambda lib: lib.sym_constrain_range_for_size(-1),
    lambda lib: (lib.sym_constrain_range_for_size(3), lib.sym_fresh_size(4)),
    lambda lib: isinstance(3, (lib.SymInt, lib.SymFloat, lib.SymBool)),
])
def test_runtime_types(call):
    same(call)


def test_torch_functional_is_the_top_level():
    import importlib
    for lib in (ember, torch):
        module = importlib.import_module(f'{lib.__name__}.functional')
        assert all(getattr(module, n) is getattr(lib, n) for n in module.__all__)
    assert ember.functional.__all__ == torch.functional.__all__


@pytest.mark.parametrize('call', [
    lambda T: T.empty_permuted((2, 3, 4), (0, 2, 1)).stride(),
    lambda T: T.empty_permuted((2, 3), (1, 0), dtype=T.float64, requires_grad=True).is_leaf,
    lambda T: T.empty_permuted((2, 3), (0,)), lambda T: T.empty_permuted((2, 3), (0, 0)),
    lambda T: T.empty_permuted((2, 3), (0, 2)),
    lambda T: T.legacy_contiguous_format is T.contiguous_format,
    lambda T: T.is_vulkan_available(),
    lambda T: T.wait(T.fork(lambda x: x * 2, 3)),
    lambda T: T.from_dlpack(T.to_dlpack(T.arange(3))).tolist(),
])
def test_small_top_level_names(call):
    same(call)


@pytest.mark.parametrize('name', ['empty_permuted', 'fork', 'wait', 'is_vulkan_available',
                                  'to_dlpack'])
def test_small_names_listed_as_torch_lists_them(name):
    test_listed_as_torch_lists_them(name)


@pytest.mark.parametrize('name', ['sym_int', 'sym_constrain_range', 'sym_fresh_size',
                                  'from_dlpack', 'to_dlpack', 'sym_constrain_range_for_size'])
def test_sym_names_listed_as_torch_lists_them(name):
    test_listed_as_torch_lists_them(name)


def test_every_lazy_callable_is_listed_as_torch_lists_it():
    # (every name loaded: the listings must not depend on what a process happened to load)
    from ember.overrides import _unlisted
    listed_e = set(ember.overrides.get_overridable_functions()[ember])
    ignored_e = ember.overrides.get_ignored_functions() | _unlisted()
    listed_t = set(torch.overrides.get_overridable_functions()[torch])
    wrong = []
    for name in ember._LAZY:
        f, g = getattr(ember, name), getattr(torch, name, None)
        if g is None or isinstance(f, type) or not callable(f) or not callable(g):
            continue
        if (f in listed_e) != (g in listed_t) or (f not in listed_e and f not in ignored_e):
            wrong.append(name)
    assert wrong == []


@pytest.mark.parametrize('args', [
    lambda T: (T.ones(4), T.tensor([0, 1])), lambda T: (T.ones(2, 2, 2, 2), T.tensor([0])),
    lambda T: (T.ones(4, 3), T.tensor([0.5])), lambda T: (T.ones(4, 3), T.tensor([9])),
    lambda T: (T.ones(4, 3).int(), T.tensor([0])), lambda T: (T.ones(4, 3), T.tensor([[0, 1]])),
])
def test_embedding_renorm_checks(args):
    # (found by the fuzzer: NumPy's IndexError leaked out)
    check(lambda T: T.embedding_renorm_(*args(T), 1.0, 2.0), match_message=True)


def test_random_namespace_holds_the_default_generator():
    """``torch.random.default_generator`` is the generator ``torch.manual_seed`` seeds."""
    for lib in (ember, torch):
        assert lib.random.default_generator is lib.default_generator
        lib.random.manual_seed(5)
        assert lib.random.default_generator.initial_seed() == 5
