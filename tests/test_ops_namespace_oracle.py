"""``ember.ops`` against ``torch.ops``: operator packets and overloads (names, reprs, calls,
errors), the profiler's range ops and ``load_library``."""
import _ctypes

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed")
import ember  # noqa: E402

LIBS = pytest.mark.parametrize('lib', [ember, torch], ids=['ember', 'torch'])


def _both(fn):
    """``fn(lib)`` on each library, exceptions as (class name, message)."""
    out = []
    for lib in (ember, torch):
        try:
            r = fn(lib)
        except Exception as e:  # (compared between the libraries)
            r = (type(e).__name__, str(e))
        out.append(r)
    return out


def _value(t):
    return (np.round(t.detach().numpy(), 12).tolist(), str(t.dtype).split('.')[-1])


# (op, overload or None for the packet, arguments built from lib and x)
CALLS = [
    ('add', None, lambda lib, x: (x, x)), ('add', 'Tensor', lambda lib, x: (x, x * 2)),
    ('add', 'Scalar', lambda lib, x: (x, 2)), ('mul', 'Tensor', lambda lib, x: (x, x)),
    ('sub', 'Tensor', lambda lib, x: (x, 1.5 * x)), ('mul', 'Scalar', lambda lib, x: (x, 3)),
    ('div', 'Tensor', lambda lib, x: (x, x + 1)), ('sin', 'default', lambda lib, x: (x,)),
    ('relu', None, lambda lib, x: (x - 2,)), ('mm', 'default', lambda lib, x: (x, x.t())),
    ('sum', 'dim_IntList', lambda lib, x: (x, [1])), ('sum', 'default', lambda lib, x: (x,)),
    ('mean', 'dim', lambda lib, x: (x, [0])), ('transpose', 'int', lambda lib, x: (x, 0, 1)),
    ('softmax', 'int', lambda lib, x: (x, -1)), ('pow', 'Tensor_Scalar', lambda lib, x: (x, 2)),
    ('where', 'self', lambda lib, x: (x > 2, x, -x)), ('clone', 'default', lambda lib, x: (x,)),
    ('linear', 'default', lambda lib, x: (x, x)), ('t', 'default', lambda lib, x: (x,)),
    ('cat', 'default', lambda lib, x: ([x, x],)), ('max', 'default', lambda lib, x: (x,)),
]


@pytest.mark.parametrize('op,overload,make', CALLS, ids=[f'{o}.{v}' for o, v, _ in CALLS])
def test_calls_like_torch(op, overload, make):
    def run(lib):
        x = lib.tensor(np.arange(6.).reshape(2, 3))
        fn = getattr(lib.ops.aten, op)
        if overload is not None:
            fn = getattr(fn, overload)
        return _value(fn(*make(lib, x)))
    ours, theirs = _both(run)
    assert ours == theirs


def test_inplace_overload_like_torch():
    def run(lib):
        x = lib.ones(3)
        r = lib.ops.aten.add_.Tensor(x, lib.full((3,), 2.))
        return r is x, _value(x)
    assert _both(run)[0] == _both(run)[1]


@pytest.mark.parametrize('op', ['add', 'sub', 'mul', 'div', 'add_', 'div_', 'transpose',
                                'softmax', 'log_softmax', 'empty', 'mean', 'where', 'select',
                                'flatten', 'fill_', 'masked_fill', 'relu', 'clone', 'mm',
                                'sin', 'exp', 't', 'reshape'])
def test_overload_names_like_torch(op):
    # ember lists torch's tensor overloads, in torch's order, without those on Python numbers
    # (add.int, sin.float... are TorchScript's own)
    ours, theirs = _both(lambda lib: getattr(lib.ops.aten, op).overloads())
    assert ours and ours == [n for n in theirs if n in ours]
    numbers = {'t', 'str', 'int', 'float', 'complex', 'bool', 'Scalar_Scalar', 'int_to_int'}
    assert not set(ours) & numbers or op in ('transpose', 'select', 'softmax', 'log_softmax')


def test_names_and_reprs_like_torch():
    def run(lib):
        a = lib.ops.aten
        p, o = a.add, a.add.Tensor
        return [repr(p), str(p), p.__name__, p._qualified_op_name, repr(o), str(o), o.__name__,
                o.name(), o.overloadpacket is p, o._overloadname, a.add is p,
                a.add.Tensor is o, a.name, lib.ops.profiler.name, a.sin.default.name()]
    ours, theirs = _both(run)
    assert ours == theirs


@pytest.mark.parametrize('expr', ['aten.not_an_op_at_all', 'aten.add.NoSuchOverload',
                                  'aten.transpose.default', 'some_ns.bar',
                                  'aten.add.Tensor.Tensor', 'profiler.bar'])
def test_unknown_names_like_torch(expr):
    def run(lib):
        obj = lib.ops
        for part in expr.split('.'):
            obj = getattr(obj, part)
        return 'found'
    ours, theirs = _both(run)
    assert ours == theirs


def test_record_function_ops_like_torch():
    def run(lib):
        x = lib.ones(3)
        with lib.autograd.profiler.profile() as p:
            h = lib.ops.profiler._record_function_enter("bar", None)
            y = x * 2
            lib.ops.profiler._record_function_exit(h)
            h2 = lib.ops.profiler._record_function_enter_new("baz", None)
            y = y + 1
            lib.ops.profiler._record_function_exit._RecordFunction(h2)
        names = [e.name for e in p.function_events]
        tree = {e.name: [c.name for c in e.cpu_children] for e in p.function_events
                if e.name in ('bar', 'baz')}
        return (isinstance(h, lib.Tensor), [n for n in names if n in ('bar', 'baz')], tree,
                lib.ops.profiler._record_function_exit.overloads())
    ours, theirs = _both(run)
    assert ours == theirs


def test_ops_go_through_the_profiler_like_torch():
    def run(lib):
        x = lib.ones(3)
        with lib.autograd.profiler.profile() as p:
            lib.ops.aten.add.Tensor(x, x)
        return [e.name for e in p.function_events]
    ours, theirs = _both(run)
    assert ours == theirs


def test_load_library_like_torch():
    path = _ctypes.__file__  # (a shared library every Python has)

    def run(lib):
        lib.ops.load_library(path)
        return path in lib.ops.loaded_libraries
    ours, theirs = _both(run)
    assert ours == theirs
    ours, theirs = _both(lambda lib: lib.ops.load_library('/no/such/lib.so'))
    assert ours[0] == theirs[0] == 'OSError'
