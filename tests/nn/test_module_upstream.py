"""PyTorch's own Module tests (test/test_nn.py, test/nn/test_module_hooks.py), adapted:
each scenario runs on ember and on real torch (``lib``) and the observable results --
reprs, key lists, flags, exception types and messages -- must agree."""
import collections
import copy

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch


def outcome(fn):
    """fn()'s value, or (exception type name, message) when it raises."""
    try:
        return ('ok', fn())
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        # class paths in messages name the library ('ember.nn...' / 'torch.nn...')
        return (type(e).__name__, str(e).replace('ember.', 'torch.'))


def same(fn):
    """Runs ``fn(lib)`` on ember and on torch; their outcomes must be equal."""
    e, t = outcome(lambda: fn(ember)), outcome(lambda: fn(torch))
    assert e == t, f'\nember: {e!r}\ntorch: {t!r}'
    return t


def names(pairs):
    return [n for n, _ in pairs]


def net(lib):
    """A small model with a buffer, a non-persistent buffer and nested submodules."""
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(2, 3)
            self.register_buffer('count', lib.zeros(1))
            self.register_buffer('tmp', lib.ones(2), persistent=False)
            self.block = nn.Sequential(nn.Linear(3, 3), nn.Identity())
            self.scale = nn.Parameter(lib.ones(1))

        def forward(self, x):
            return self.block(self.l1(x)) * self.scale
    return Net()


# -- registration: register_buffer / register_parameter / add_module ---------------------------

@pytest.mark.parametrize('name', [3, None, ('a',)])
@pytest.mark.parametrize('method', ['register_buffer', 'register_parameter', 'add_module'])
def test_register_name_not_a_string(method, name):
    def go(lib):
        m = lib.nn.Module()
        value = {'register_buffer': lib.ones(1), 'register_parameter': lib.nn.Parameter(lib.ones(1)),
                 'add_module': lib.nn.Identity()}[method]
        getattr(m, method)(name, value)
    assert same(go)[0] == 'TypeError'


@pytest.mark.parametrize('method,name', [
    ('register_buffer', 'a.b'), ('register_buffer', ''),
    ('register_parameter', 'a.b'), ('register_parameter', ''), ('add_module', ''),
    ('add_module', 'a.b')])
def test_register_bad_name(method, name):
    def go(lib):
        m = lib.nn.Module()
        getattr(m, method)(name, None)
    assert same(go)[0] == 'KeyError'


@pytest.mark.parametrize('method', ['register_buffer', 'register_parameter', 'add_module'])
@pytest.mark.parametrize('existing', ['plain', 'buffer', 'param', 'module'])
def test_register_name_clashing_with_another_kind_of_attribute(method, existing):
    def go(lib):
        m = lib.nn.Module()
        if existing == 'plain':
            m.x = 5
        elif existing == 'buffer':
            m.register_buffer('x', lib.ones(1))
        elif existing == 'param':
            m.x = lib.nn.Parameter(lib.ones(1))
        else:
            m.x = lib.nn.Identity()
        getattr(m, method)('x', None)
        return (sorted(m._parameters), sorted(m._buffers), sorted(m._modules))
    same(go)


def test_register_overwriting_the_same_kind_is_allowed():
    def go(lib):
        m = lib.nn.Module()
        m.register_buffer('b', lib.ones(1))
        m.register_buffer('b', lib.zeros(2))
        m.register_parameter('p', lib.nn.Parameter(lib.ones(1)))
        m.register_parameter('p', lib.nn.Parameter(lib.zeros(3)))
        m.add_module('c', lib.nn.Identity())
        m.add_module('c', lib.nn.Linear(1, 1))
        return (m.b.tolist(), m.p.tolist(), repr(m))
    same(go)


def test_register_wrong_value_types():
    def go(lib):
        m = lib.nn.Module()
        out = [outcome(lambda: m.register_buffer('b', 3)),
               outcome(lambda: m.register_buffer('b', [1.0])),
               outcome(lambda: m.register_parameter('p', lib.ones(1))),
               outcome(lambda: m.register_parameter('p', 1.0)),
               outcome(lambda: m.add_module('c', lib.ones(1))),
               outcome(lambda: m.add_module('c', 'x'))]
        return [o[0] for o in out]
    assert same(go) == ('ok', ['TypeError'] * 6)


def test_register_wrong_value_type_messages():
    def go(lib):
        m = lib.nn.Module()
        return [outcome(lambda: m.register_buffer('b', 3)),
                outcome(lambda: m.register_parameter('p', lib.ones(1))),
                outcome(lambda: m.add_module('c', 'x'))]
    same(go)


def test_register_none_values():
    def go(lib):
        m = lib.nn.Module()
        m.register_parameter('p', None)
        m.register_buffer('b', None)
        m.add_module('c', None)
        return (m.p, m.b, m.c, list(m.parameters()), list(m.buffers()), list(m.children()),
                list(m.state_dict()), repr(m), names(m.named_modules()), 'p' in dir(m))
    same(go)


def test_register_buffer_accepts_parameter_as_buffer():
    def go(lib):
        m = lib.nn.Module()
        m.register_buffer('b', lib.nn.Parameter(lib.ones(1)))
        return (names(m.named_buffers()), names(m.named_parameters()), list(m.state_dict()))
    same(go)


def test_register_parameter_computed_from_a_parameter():
    def go(lib):
        m = lib.nn.Module()
        p = lib.nn.Parameter(lib.ones(2))
        m.register_parameter('p', p * 1)  # a plain (non-leaf) tensor: TypeError
    assert same(go)[0] == 'TypeError'


def test_assign_before_init():
    def go(lib, value):
        class M(lib.nn.Module):
            def __init__(self):
                self.x = value(lib)
                super().__init__()
        M()
    for value in (lambda lib: lib.nn.Parameter(lib.ones(1)), lambda lib: lib.nn.Identity()):
        assert same(lambda lib: go(lib, value))[0] == 'AttributeError'

    def buf(lib):
        class M(lib.nn.Module):
            def __init__(self):
                self.register_buffer('b', lib.ones(1))
        M()
    assert same(buf)[0] == 'AttributeError'


# -- __setattr__ / __getattr__ / __delattr__ ------------------------------------------------------

@pytest.mark.parametrize('old,new', [
    (o, n) for o in ('plain', 'buffer', 'nonpersistent', 'param', 'module')
    for n in ('param', 'module') if o != n] + [
    ('param', 'param'), ('module', 'module')])
def test_setattr_moves_names_between_kinds(old, new):
    def go(lib):
        nn = lib.nn
        m = nn.Module()
        m.before = nn.Identity()
        m.first = nn.Parameter(lib.ones(1))
        if old == 'plain':
            m.x = 5
        elif old in ('buffer', 'nonpersistent'):
            m.register_buffer('x', lib.ones(1), persistent=old == 'buffer')
        elif old == 'param':
            m.x = nn.Parameter(lib.zeros(1))
        else:
            m.x = nn.Linear(1, 1)
        m.after = nn.Identity()
        m.last = nn.Parameter(lib.ones(1))
        value = nn.Parameter(lib.ones(2)) if new == 'param' else nn.Identity()
        res = outcome(lambda: setattr(m, 'x', value))
        return (res, 'x' in m.__dict__, list(m._parameters), list(m._buffers), list(m._modules),
                sorted(m._non_persistent_buffers_set), m.x is value, list(m.state_dict()))
    same(go)


def test_reassigning_keeps_registration_order():
    def go(lib):
        nn = lib.nn
        m = nn.Module()
        m.a = nn.Parameter(lib.ones(1))
        m.b = nn.Parameter(lib.ones(1))
        m.c = nn.Identity()
        m.d = nn.Identity()
        m.a = nn.Parameter(lib.zeros(1))
        m.c = nn.Linear(1, 1)
        return (list(m._parameters), list(m._modules), list(m.state_dict()), repr(m))
    same(go)


def test_setattr_type_errors_on_registered_names():
    def go(lib):
        nn = lib.nn
        m = nn.Module()
        m.p = nn.Parameter(lib.ones(1))
        m.c = nn.Identity()
        m.register_buffer('b', lib.ones(1))
        return [outcome(lambda: setattr(m, 'p', lib.ones(1))),
                outcome(lambda: setattr(m, 'p', 3)),
                outcome(lambda: setattr(m, 'c', lib.ones(1))),
                outcome(lambda: setattr(m, 'c', 'module')),
                sorted(m._parameters), sorted(m._modules), sorted(m._buffers)]
    same(go)


def test_setattr_non_tensor_on_buffer_name():
    # (torch 2.13's message also names torch.nn.Buffer, which ember does not have yet)
    def go(lib):
        m = lib.nn.Module()
        m.register_buffer('b', lib.ones(1))
        return (outcome(lambda: setattr(m, 'b', 2.0))[0], list(m._buffers))
    same(go)


def test_setattr_none_keeps_registration():
    def go(lib):
        nn = lib.nn
        m = nn.Module()
        m.p = nn.Parameter(lib.ones(1))
        m.c = nn.Identity()
        m.register_buffer('b', lib.ones(1))
        m.p = None
        m.c = None
        m.b = None
        return (m._parameters, m._modules, m._buffers, list(m.state_dict()), repr(m))
    same(go)


def test_setattr_tensor_on_buffer_keeps_persistence():
    def go(lib):
        m = lib.nn.Module()
        m.register_buffer('a', lib.ones(1))
        m.register_buffer('b', lib.ones(1), persistent=False)
        m.a = lib.zeros(2)
        m.b = lib.zeros(3)
        m.c = lib.zeros(1)  # a plain tensor attribute is not a buffer
        return (list(m.state_dict()), names(m.named_buffers()), m.a.tolist(), m.b.tolist(),
                'c' in m.__dict__)
    same(go)


def test_getattr_error_messages():
    def go(lib):
        class Model(lib.nn.Module):
            @property
            def some_property(self):
                return self.something_that_doesnt_exist
        m = Model()
        return [outcome(lambda: m.missing), outcome(lambda: m.some_property),
                outcome(lambda: lib.nn.Linear(1, 1).weights)]
    out = same(go)
    assert all(o[0] == 'AttributeError' for o in out[1])


def test_delattr_of_each_kind():
    def go(lib):
        nn = lib.nn
        m = nn.Module()
        m.p = nn.Parameter(lib.ones(1))
        m.register_buffer('b', lib.ones(1), persistent=False)
        m.c = nn.Identity()
        m.plain = 1
        for n in ('p', 'b', 'c', 'plain'):
            delattr(m, n)
        res = [hasattr(m, n) for n in ('p', 'b', 'c', 'plain')]
        res += [list(m._parameters), list(m._buffers), list(m._modules),
                sorted(m._non_persistent_buffers_set)]
        res.append(outcome(lambda: delattr(m, 'p'))[0])
        m.register_buffer('b', lib.ones(1))  # persistent again after re-registration
        res.append(list(m.state_dict()))
        return res
    same(go)


def test_dir_lists_registered_names():
    def go(lib):
        m = net(lib)
        d = dir(m)
        return [n in d for n in ('l1', 'count', 'tmp', 'block', 'scale', 'forward', 'training')]
    assert same(go) == ('ok', [True] * 7)


# -- traversal: named_* with prefix / recurse / remove_duplicate, shared parameters -------------

def test_named_parameters_prefix_and_recurse():
    def go(lib):
        m = net(lib)
        return (names(m.named_parameters()), names(m.named_parameters(prefix='net')),
                names(m.named_parameters(recurse=False)),
                names(m.named_parameters(prefix='x', recurse=False)),
                names(m.named_buffers()), names(m.named_buffers(prefix='p', recurse=False)),
                len(list(m.parameters(recurse=False))), len(list(m.buffers(recurse=False))))
    same(go)


def test_shared_parameter_remove_duplicate():
    def go(lib):
        nn = lib.nn
        m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
        m[1].register_parameter('weight', m[0].weight)  # (keeps the key order; see above)
        m.register_buffer('b0', lib.ones(1))
        m[1].register_buffer('b1', m.b0)
        return (names(m.named_parameters()), names(m.named_parameters(remove_duplicate=False)),
                len(list(m.parameters())), names(m.named_buffers()),
                names(m.named_buffers(remove_duplicate=False)), list(m.state_dict()))
    same(go)


def test_shared_module_remove_duplicate():
    def go(lib):
        nn = lib.nn
        l = nn.Linear(2, 2)
        m = nn.Sequential(l, nn.Identity(), l)
        m.extra = l
        return (names(m.named_modules()), names(m.named_modules(remove_duplicate=False)),
                names(m.named_modules(prefix='root')), names(m.named_children()),
                len(list(m.modules())), len(list(m.children())),
                names(m.named_parameters()), names(m.named_parameters(remove_duplicate=False)),
                list(m.state_dict()))
    same(go)


def test_parameters_shared_between_module_tree_and_self():
    def go(lib):
        nn = lib.nn
        p = nn.Parameter(lib.ones(1))
        a = nn.Module()
        a.p = p
        b = nn.Module()
        b.q = p
        b.a = a
        return (names(b.named_parameters()), names(b.named_parameters(remove_duplicate=False)))
    same(go)


def test_named_modules_nested_names():
    def go(lib):
        nn = lib.nn
        m = nn.Sequential(collections.OrderedDict([
            ('enc', nn.Sequential(nn.Linear(1, 2), nn.ModuleList([nn.Identity(), nn.Linear(2, 2)]))),
            ('heads', nn.ModuleDict({'a': nn.Linear(2, 1), 'b': nn.Identity()}))]))
        return (names(m.named_modules()), names(m.named_parameters()),
                [type(c).__name__ for c in m.modules()])
    same(go)


# -- state_dict ---------------------------------------------------------------------------------

def test_state_dict_order_and_contents():
    def go(lib):
        m = net(lib)
        sd = m.state_dict()
        return (type(sd).__name__, list(sd), [v.requires_grad for v in sd.values()],
                [type(v).__name__ for v in sd.values()])
    same(go)


def test_state_dict_keep_vars():
    for lib in (ember, torch):
        m = net(lib)
        sd = m.state_dict(keep_vars=True)
        assert sd['l1.weight'] is m.l1.weight and sd['scale'] is m.scale
        assert isinstance(sd['scale'], lib.nn.Parameter) and sd['count'] is m.count
        plain = m.state_dict()
        assert plain['l1.weight'] is not m.l1.weight
        assert not isinstance(plain['scale'], lib.nn.Parameter)
        plain['count'].add_(1)  # detached, yet sharing memory
        assert m.count.tolist() == [1.0]


def test_state_dict_prefix_and_destination():
    def go(lib):
        m = net(lib)
        dest = collections.OrderedDict(first=lib.zeros(1))
        out = m.state_dict(destination=dest, prefix='model.')
        return (out is dest, list(dest), list(m.block.state_dict(prefix='b.')))
    same(go)


def test_state_dict_nonpersistent_buffers():
    def go(lib):
        m = lib.nn.Module()
        m.register_buffer('a', lib.ones(1), persistent=False)
        m.register_buffer('b', lib.ones(1))
        before = list(m.state_dict())
        m.register_buffer('a', lib.ones(1))  # re-registered persistent
        m.register_buffer('b', lib.ones(1), persistent=False)
        return (before, list(m.state_dict()), names(m.named_buffers()))
    same(go)


def test_state_dict_round_trip_into_fresh_module():
    e, t = net(ember), net(torch)
    with torch.no_grad():
        for p in t.parameters():
            p.uniform_(-1, 1)
        t.count.fill_(7)
    # torch -> ember via lists, then ember -> ember
    e.load_state_dict({k: ember.tensor(v.tolist()) for k, v in t.state_dict().items()})
    e2 = net(ember)
    res = e2.load_state_dict(e.state_dict())
    assert repr(res) == '<All keys matched successfully>'
    for k, v in t.state_dict().items():
        assert np.allclose(np.array(e2.state_dict()[k].tolist()), v.numpy())
    assert e2.tmp.tolist() == [1.0, 1.0]


# -- load_state_dict --------------------------------------------------------------------------

def _load(lib, sd_fn, strict=True):
    m = net(lib)
    res = m.load_state_dict(sd_fn(lib, m), strict=strict)
    return (type(res).__name__, res.missing_keys, res.unexpected_keys, repr(res))


def _drop(keys, extra=()):
    def sd(lib, m):
        d = collections.OrderedDict((k, v) for k, v in m.state_dict().items() if k not in keys)
        for k in extra:
            d[k] = lib.ones(1)
        return d
    return sd


_CASES = [((), ()), (('l1.bias',), ()), ((), ('zzz', 'l1.extra')), ((), ('tmp',)),
          ((), ('zzz', 'l1.extra', 'block.0.weight.extra'))]


@pytest.mark.parametrize('strict,drop,extra', [(s, d, x) for s in (True, False) for d, x in _CASES]
                         + [(False, ('count', 'block.0.weight'), ('block.5.weight',))])
def test_load_state_dict_missing_and_unexpected(strict, drop, extra):
    # (strict with both kinds at once: see the message-order test below)
    same(lambda lib: _load(lib, _drop(drop, extra), strict))


def test_load_state_dict_strict_message_order_missing_then_unexpected():
    same(lambda lib: _load(lib, _drop(('count', 'block.0.weight'), ('block.5.weight',))))


def test_load_state_dict_unexpected_keys_listed_module_by_module():
    same(lambda lib: _load(lib, _drop((), ('l1.extra', 'zzz', 'block.0.x', 'yyy')), False))


def test_load_state_dict_size_mismatch_message():
    def sd(lib, m):
        d = m.state_dict()
        d['l1.weight'] = lib.ones(5, 5)
        d['count'] = lib.ones(3)
        return d
    for strict in (True, False):
        out = same(lambda lib: _load(lib, sd, strict))
        assert out[0] == 'RuntimeError' and 'size mismatch for l1.weight' in out[1]


def test_load_state_dict_size_mismatch_leaves_other_keys_loaded():
    def go(lib):
        m = lib.nn.Linear(2, 1)
        outcome(lambda: m.load_state_dict({'weight': lib.ones(3, 3), 'bias': lib.full((1,), 4.0)}))
        return m.bias.tolist()
    same(go)


def test_load_state_dict_all_errors_together():
    def sd(lib, m):
        d = _drop(('count',), ('bogus',))(lib, m)
        d['l1.weight'] = lib.ones(5, 5)
        return d
    same(lambda lib: _load(lib, sd, True))


def test_load_state_dict_non_tensor_value():
    def sd(lib, m):
        d = m.state_dict()
        d['scale'] = [1.0]
        return d
    out = same(lambda lib: _load(lib, sd, True))
    assert out[0] == 'RuntimeError'


def test_load_state_dict_not_a_mapping():
    same(lambda lib: lib.nn.Linear(1, 1).load_state_dict([('weight', lib.ones(1, 1))]))


def test_load_state_dict_copies_in_place_and_keeps_identity():
    def go(lib):
        m = net(lib)
        w = m.l1.weight
        src = {k: v.clone().fill_(0.25) for k, v in m.state_dict().items()}
        m.load_state_dict(src)
        src['l1.weight'].fill_(9)  # no aliasing with the source
        return (m.l1.weight is w, m.l1.weight.tolist(), m.l1.weight.requires_grad,
                m.l1.weight.is_leaf, type(m.l1.weight).__name__, m.count.tolist())
    same(go)


def test_load_state_dict_with_none_submodule_and_param():
    def go(lib):
        nn = lib.nn
        m = nn.Sequential(nn.Linear(2, 2, bias=False), nn.Identity())
        m.add_module('gone', None)
        sd = {'0.weight': lib.ones(2, 2), '0.bias': lib.ones(2), 'gone.weight': lib.ones(1)}
        res = m.load_state_dict(sd, strict=False)
        return (res.missing_keys, res.unexpected_keys, m[0].weight.tolist())
    same(go)


# -- train / eval / requires_grad_ / zero_grad / apply ---------------------------------------

def test_train_eval_propagation():
    def go(lib):
        m = net(lib)
        out = [[x.training for x in m.modules()]]
        assert m.eval() is m
        out.append([x.training for x in m.modules()])
        m.block.train()
        out.append([x.training for x in m.modules()])
        assert m.train(False) is m
        m.late = lib.nn.Linear(1, 1)  # a module added later keeps its own flag
        out.append([x.training for x in m.modules()])
        return out
    same(go)


@pytest.mark.parametrize('mode', [1, 'True', None])
def test_train_rejects_non_bool(mode):
    same(lambda lib: lib.nn.Linear(1, 1).train(mode))


def test_requires_grad_propagation():
    def go(lib):
        m = net(lib)
        r = m.requires_grad_(False)
        out = [r is m, [p.requires_grad for p in m.parameters()],
               [b.requires_grad for b in m.buffers()]]
        m.block.requires_grad_()
        out.append([p.requires_grad for p in m.parameters()])
        return out
    same(go)


def test_zero_grad_set_to_none_and_zeros():
    def go(lib):
        nn = lib.nn
        m = nn.Linear(2, 2)
        res = [m.zero_grad()]  # no grads yet: a no-op
        m(lib.ones(1, 2)).sum().backward()
        m.zero_grad(set_to_none=False)
        res.append((m.weight.grad.tolist(), m.bias.grad.tolist(), m.weight.grad.requires_grad))
        g = m.weight.grad
        m(lib.ones(1, 2)).sum().backward()  # accumulates into the zeroed grad
        res.append((m.weight.grad is g, m.weight.grad.tolist()))
        m.zero_grad()
        res.append((m.weight.grad, m.bias.grad))
        return res
    same(go)


def test_apply_order_and_return():
    def go(lib):
        m = net(lib)
        seen = []
        r = m.apply(lambda mod: seen.append(type(mod).__name__))
        return (r is m, seen)
    same(go)


def test_apply_initialises_weights():
    def go(lib):
        nn = lib.nn

        def init(mod):
            if isinstance(mod, nn.Linear):
                with lib.no_grad():
                    mod.weight.fill_(1.0)
                    mod.bias.fill_(0.5)
        m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1))).apply(init)
        return (m(lib.ones(1, 2)).tolist(), [p.requires_grad for p in m.parameters()],
                [p.is_leaf for p in m.parameters()])
    same(go)


# -- dtype conversion ---------------------------------------------------------------------------

@pytest.mark.parametrize('how', ['to_dtype', 'to_kw', 'to_tensor', 'double', 'to_cpu_dtype'])
def test_to_keeps_parameters_and_converts_grads(how):
    def go(lib):
        m = net(lib)
        m(lib.ones(1, 2)).sum().backward()
        w = m.l1.weight
        conv = {'to_dtype': lambda: m.to(lib.float64),
                'to_kw': lambda: m.to(dtype=lib.float64),
                'to_tensor': lambda: m.to(lib.zeros(1, dtype=lib.float64)),
                'double': lambda: m.double(),
                'to_cpu_dtype': lambda: m.to('cpu', lib.float64)}[how]
        r = conv()
        return (r is m, m.l1.weight is w, [type(p).__name__ for p in m.parameters()],
                [str(p.dtype) for p in m.parameters()], [str(p.grad.dtype) for p in m.parameters()],
                [p.requires_grad for p in m.parameters()], [p.is_leaf for p in m.parameters()],
                [str(b.dtype) for b in m.buffers()], list(m.state_dict()))
    same(go)


def test_float_half_double_round_trip():
    def go(lib):
        m = lib.nn.Linear(2, 2)
        out = []
        for f in ('half', 'double', 'float'):
            getattr(m, f)()
            out.append([str(p.dtype) for p in m.parameters()])
        out.append(str(m(lib.ones(1, 2)).dtype))
        return out
    same(go)


def test_to_rejects_integer_dtype():
    out = same(lambda lib: lib.nn.Linear(1, 1).to(lib.int64))
    assert out[0] == 'TypeError'


def test_to_with_shared_parameter_converts_once():
    def go(lib):
        nn = lib.nn
        m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
        m[1].weight = m[0].weight
        m.double()
        return (m[1].weight is m[0].weight, str(m[1].weight.dtype), str(m[0].weight.dtype))
    same(go)


def test_to_then_train_step():
    def go(lib):
        m = lib.nn.Linear(2, 1)
        with lib.no_grad():
            m.weight.fill_(0.5)
            m.bias.fill_(0.1)
        m.double()
        y = m(lib.full((3, 2), 2.0, dtype=lib.float64))
        y.sum().backward()
        return (y.tolist(), m.weight.grad.tolist(), str(m.weight.grad.dtype))
    same(go)


# -- repr ---------------------------------------------------------------------------------------

def test_repr_nested_and_extra_repr():
    def go(lib):
        nn = lib.nn

        class Leaf(nn.Module):
            def extra_repr(self):
                return 'k=1'

        class Multi(nn.Module):
            def __init__(self):
                super().__init__()
                self.child = Leaf()

            def extra_repr(self):
                return 'line one\nline two'

        class Single(nn.Module):
            def __init__(self):
                super().__init__()
                self.child = nn.Sequential(Leaf(), nn.Linear(1, 2, bias=False))

            def extra_repr(self):
                return 'a=1, b=2'
        return [repr(nn.Module()), repr(Leaf()), repr(Multi()), repr(Single()),
                repr(net(lib)), repr(nn.Sequential()), str(Single())]
    same(go)


def test_repr_of_containers():
    def go(lib):
        nn = lib.nn
        return [repr(nn.Sequential(collections.OrderedDict(a=nn.Linear(1, 1), b=nn.Identity()))),
                repr(nn.ModuleDict({'x': nn.Linear(2, 2), 'y': nn.Sequential(nn.Identity())})),
                repr(nn.ModuleList()), repr(nn.ModuleDict()),
                repr(nn.ModuleList([nn.Linear(1, 2), nn.Identity()]))]
    same(go)


def test_repr_modulelist_groups_repeats():
    same(lambda lib: repr(lib.nn.ModuleList([lib.nn.Linear(2, 2) for _ in range(3)]
                                            + [lib.nn.Identity()])))


def test_repr_with_none_child():
    def go(lib):
        m = lib.nn.Sequential(lib.nn.Identity())
        m.add_module('none', None)
        return repr(m)
    same(go)


# -- Sequential -----------------------------------------------------------------------------------

def _seq(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(1, 2), nn.Identity(), nn.Linear(2, 3), nn.Linear(3, 1))


def test_sequential_indexing():
    def go(lib):
        s = _seq(lib)
        mods = list(s._modules.values())
        return ([s[i] is mods[i] for i in range(4)], [s[-i] is mods[-i] for i in range(1, 5)],
                outcome(lambda: s[4]), outcome(lambda: s[-5]))
    same(go)


def test_sequential_slicing_keeps_names():
    def go(lib):
        s = _seq(lib)
        out = []
        for sl in (slice(1, 3), slice(None, None, 2), slice(None, None, -1), slice(5, 9),
                   slice(-2, None)):
            sub = s[sl]
            out.append((type(sub).__name__, list(sub._modules),
                        [a is b for a, b in zip(sub, list(s._modules.values())[sl])]))
        named = lib.nn.Sequential(collections.OrderedDict(a=lib.nn.Identity(), b=lib.nn.Identity()))
        out.append(list(named[1:]._modules))
        return out
    same(go)


def test_sequential_len_iter_append_forward():
    def go(lib):
        nn = lib.nn
        s = nn.Sequential()
        out = [len(s), list(s)]
        r = s.append(nn.Linear(1, 1))
        s.append(nn.Identity())
        out += [r is s, len(s), [type(m).__name__ for m in s], list(s._modules)]
        with lib.no_grad():
            s[0].weight.fill_(2.0)
            s[0].bias.fill_(1.0)
        out.append(s(lib.ones(2, 1)).tolist())
        out.append(lib.nn.Sequential()(lib.ones(1)).tolist())  # empty: identity
        return out
    same(go)


def test_sequential_ordereddict_and_add_module():
    def go(lib):
        nn = lib.nn
        s = nn.Sequential(collections.OrderedDict([('conv', nn.Linear(1, 1)), ('act', nn.Identity())]))
        s.add_module('last', nn.Identity())
        return (list(s._modules), type(s.conv).__name__, s[2] is s.last, names(s.named_parameters()))
    same(go)


def test_sequential_rejects_non_module():
    out = same(lambda lib: lib.nn.Sequential(lib.nn.Identity(), 3))
    assert out[0] == 'TypeError'


# -- ModuleList ---------------------------------------------------------------------------------

def test_modulelist_operations():
    def go(lib):
        nn = lib.nn
        mods = [nn.Linear(1, 1), nn.Identity(), nn.Linear(1, 2)]
        ml = nn.ModuleList(mods[:2])
        out = [len(ml), [a is b for a, b in zip(ml, mods)]]
        r = ml.append(mods[2])
        out += [r is ml, len(ml), ml[-1] is mods[2], ml[0] is mods[0]]
        e = ml.extend([nn.Identity(), nn.Identity()])
        out += [e is ml, len(ml), list(ml._modules)]
        new = nn.Linear(3, 3)
        ml[1] = new
        ml[-1] = new
        out += [ml[1] is new, ml[4] is new, list(ml._modules), len(list(ml.parameters()))]
        out += [outcome(lambda: ml[5]), outcome(lambda: ml[-6]),
                outcome(lambda: ml.__setitem__(7, nn.Identity()))]
        return out
    same(go)


def test_modulelist_slice_renumbers():
    def go(lib):
        nn = lib.nn
        ml = nn.ModuleList([nn.Linear(1, 1), nn.Identity(), nn.Linear(1, 2), nn.Identity()])
        sub = ml[1:]
        rev = ml[::-1]
        return (type(sub).__name__, list(sub._modules), sub[0] is ml[1],
                list(rev._modules), rev[0] is ml[3], repr(ml[::2]))
    same(go)


def test_modulelist_registers_for_traversal():
    def go(lib):
        nn = lib.nn
        m = nn.Module()
        m.layers = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
        m.layers.append(nn.Linear(1, 1, bias=False))
        return (names(m.named_parameters()), list(m.state_dict()), names(m.named_modules()))
    same(go)


def test_modulelist_rejects_non_module():
    def go(lib):
        nn = lib.nn
        ml = nn.ModuleList()
        return [outcome(lambda: ml.append(3)), outcome(lambda: nn.ModuleList([nn.Identity(), 'x']))]
    same(go)


def test_modulelist_from_generator_and_ordering():
    def go(lib):
        nn = lib.nn
        ml = nn.ModuleList(nn.Linear(i + 1, 1) for i in range(3))
        return [m.in_features for m in ml]
    same(go)


# -- ModuleDict ---------------------------------------------------------------------------------

def test_moduledict_operations():
    def go(lib):
        nn = lib.nn
        a, b, c = nn.Linear(1, 1), nn.Identity(), nn.Linear(2, 2)
        md = nn.ModuleDict(collections.OrderedDict([('b', b), ('a', a)]))
        out = [len(md), list(md), list(md.keys()), [v is w for v, w in zip(md.values(), (b, a))],
               [k for k, _ in md.items()], 'a' in md, 'z' in md, md['a'] is a]
        md['c'] = c
        md['a'] = nn.Identity()  # overwrites in place, keeps position
        out += [list(md), md['c'] is c, type(md['a']).__name__, names(md.named_parameters())]
        out.append(outcome(lambda: md['zz']))
        out.append(outcome(lambda: md.__setitem__('bad', 3))[0])
        return out
    same(go)


def test_moduledict_from_dict_keeps_insertion_order():
    def go(lib):
        nn = lib.nn
        md = nn.ModuleDict({'z': nn.Identity(), 'a': nn.Linear(1, 1), 'm': nn.Identity()})
        return (list(md), list(md.state_dict()), repr(md))
    same(go)


def test_moduledict_from_pairs():
    same(lambda lib: list(lib.nn.ModuleDict([('a', lib.nn.Identity()), ('b', lib.nn.Identity())])))


def test_moduledict_bad_keys():
    def go(lib):
        md = lib.nn.ModuleDict()
        return [outcome(lambda: md.__setitem__('a.b', lib.nn.Identity()))[0],
                outcome(lambda: md.__setitem__('', lib.nn.Identity()))[0]]
    same(go)


# -- forward hooks ------------------------------------------------------------------------------

def _scaler(lib):
    class Scale(lib.nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor
    return Scale()


def test_forward_hooks_order_and_arguments():
    def go(lib):
        m = _scaler(lib)
        log = []
        m.register_forward_pre_hook(lambda mod, args: log.append(('pre1', type(args).__name__,
                                                                   len(args), mod is m)))
        m.register_forward_pre_hook(lambda mod, args: log.append(('pre2',)))
        m.register_forward_hook(lambda mod, args, out: log.append(('fwd1', out.tolist(),
                                                                   type(args).__name__)))
        m.register_forward_hook(lambda mod, args, out: log.append(('fwd2',)))
        y = m(lib.ones(2), factor=3.0)  # keyword arguments reach forward, not the hooks
        return (log, y.tolist())
    same(go)


def test_forward_hook_return_values_chain():
    def go(lib):
        m = _scaler(lib)
        m.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))      # tuple
        m.register_forward_pre_hook(lambda mod, args: args[0] * 10)        # single value
        m.register_forward_pre_hook(lambda mod, args: None)                # unchanged
        m.register_forward_hook(lambda mod, args, out: out - args[0])      # sees modified args
        m.register_forward_hook(lambda mod, args, out: None)
        m.register_forward_hook(lambda mod, args, out: out + 100)
        return m(lib.full((2,), 2.0), factor=2.0).tolist()
    same(go)


def test_forward_hook_removal_through_handles():
    def go(lib):
        m = _scaler(lib)
        log = []
        h1 = m.register_forward_hook(lambda *a: log.append(1))
        h2 = m.register_forward_hook(lambda *a: log.append(2))
        p1 = m.register_forward_pre_hook(lambda *a: log.append('p'))
        m(lib.ones(1))
        h1.remove()
        m(lib.ones(1))
        h1.remove()  # twice is harmless
        p1.remove()
        h3 = m.register_forward_hook(lambda *a: log.append(3))
        m(lib.ones(1))
        h2.remove()
        h3.remove()
        m(lib.ones(1))
        return log
    assert same(go) == ('ok', ['p', 1, 2, 'p', 2, 2, 3])


def test_forward_hook_handle_as_context_manager():
    def go(lib):
        m = _scaler(lib)
        log = []
        with m.register_forward_hook(lambda *a: log.append('in')):
            m(lib.ones(1))
        m(lib.ones(1))
        return log
    same(go)


def test_hooks_on_submodules_fire_in_execution_order():
    def go(lib):
        nn = lib.nn
        s = nn.Sequential(nn.Identity(), nn.Sequential(nn.Identity()), nn.Identity())
        log = []
        for name, mod in s.named_modules():
            mod.register_forward_pre_hook(lambda m_, a, name=name: log.append('pre:' + name))
            mod.register_forward_hook(lambda m_, a, o, name=name: log.append('post:' + name))
        s(lib.ones(1))
        return log
    same(go)


def test_hook_removing_itself_during_call():
    def go(lib):
        m = _scaler(lib)
        log = []
        handle = []

        def once(mod, args, out):
            log.append('once')
            handle[0].remove()
        handle.append(m.register_forward_hook(once))
        m.register_forward_hook(lambda *a: log.append('always'))
        m(lib.ones(1))
        m(lib.ones(1))
        return log
    same(go)


def test_forward_hook_gradient_flows_through_modified_output():
    def go(lib):
        m = lib.nn.Linear(2, 1)
        with lib.no_grad():
            m.weight.fill_(1.0)
            m.bias.zero_()
        m.register_forward_hook(lambda mod, args, out: out * 3)
        m(lib.ones(1, 2)).sum().backward()
        return m.weight.grad.tolist()
    same(go)


# -- misc: Module() construction, forward missing, deepcopy -------------------------------------

def test_module_init_unexpected_arguments():
    def go(lib):
        return [outcome(lambda: lib.nn.Module(1)), outcome(lambda: lib.nn.Module(foo=1))]
    same(go)


def test_module_without_forward():
    out = same(lambda lib: lib.nn.Module()(lib.ones(1)))
    assert out[0] == 'NotImplementedError'


def test_deepcopy_preserves_structure_and_sharing():
    def go(lib):
        nn = lib.nn
        m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
        m[1].register_parameter('weight', m[0].weight)
        m.register_buffer('b', lib.ones(1), persistent=False)
        c = copy.deepcopy(m)
        return (repr(c) == repr(m), c[1].weight is c[0].weight, c[0].weight is m[0].weight,
                type(c[0].weight).__name__, c[0].weight.requires_grad, list(c.state_dict()),
                names(c.named_buffers()), c[0].weight.tolist() == m[0].weight.tolist())
    same(go)


def test_none_children_are_skipped_everywhere():
    def go(lib):
        nn = lib.nn
        m = nn.Sequential(nn.Linear(1, 1))
        m.add_module('empty', None)
        m.register_parameter('nothing', None)
        seen = []
        m.apply(lambda mod: seen.append(type(mod).__name__))
        m.eval()
        m.requires_grad_(False)
        m.double()
        m.zero_grad()
        return (seen, [x.training for x in m.modules()], names(m.named_children()),
                list(m.state_dict()), [str(p.dtype) for p in m.parameters()], len(m))
    same(go)


def test_load_state_dict_into_shared_submodule():
    def go(lib):
        nn = lib.nn
        m = nn.Module()
        m.a = nn.Linear(1, 1)
        m.b = m.a
        sd = m.state_dict()
        res = m.load_state_dict({'a.weight': lib.full((1, 1), 2.0), 'a.bias': lib.zeros(1),
                                 'b.weight': lib.full((1, 1), 3.0), 'b.bias': lib.ones(1)})
        return (list(sd), repr(res), m.a.weight.tolist(), m.b.bias.tolist(),
                names(m.named_parameters()), names(m.named_modules()))
    same(go)


def test_zero_grad_on_shared_and_frozen_parameters():
    def go(lib):
        nn = lib.nn
        m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
        m[1].register_parameter('weight', m[0].weight)
        m[1].bias.requires_grad_(False)
        m(lib.ones(1, 2)).sum().backward()
        before = [p.grad is None for p in m.parameters()]
        m.zero_grad(set_to_none=False)
        return (before, [None if p.grad is None else p.grad.abs().sum().item()
                         for p in m.parameters()])
    same(go)
