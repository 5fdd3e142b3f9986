"""PyTorch's test/test_nn.py, class TestNN: its Module, container, parameter, buffer,
state-dict and hook tests, adapted under upstream's names. Every test body is written once
and run on ember and on real torch (``lib``), so an assertion that is wrong about torch
fails too. Where upstream compares two Sequentials with ``assertEqual`` -- which for modules
compares their children -- the children are compared by identity here.

Where the line is drawn: TestNN (up to test_pickle_module_no_weights_only_warning, its
last test) mixes these Module-machinery tests with per-layer numerics (RNN/LSTM/GRU cells
and cuDNN, Transformer layers, losses, batch-norm kernels, grid_sample/affine_grid,
interpolate, pixel shuffle, pdist...); the numerics are not in this file. In scope are the
89 tests on modules as containers -- registration, traversal, dir/repr, Sequential /
ModuleList / ModuleDict / ParameterList / ParameterDict, train/eval, to/type/_apply,
zero_grad, share_memory, state_dict / load_state_dict / extra state, pickling -- plus the
nn.utils helpers that rewrite a module's parameters (parameters_to_vector,
vector_to_parameters, weight_norm, spectral_norm) and the two batch-norm tests on buffers
and state dicts.

Not adapted (2): test_parse_to (calls the private ``torch._C._nn._parse_to``) and
test_module_backcompat (downloads a pickled torch checkpoint from download.pytorch.org).
test_getattr_with_property is ``expectedFailure`` upstream and a strict xfail here on both
libraries; every other test passes on both.

Tests not named after an upstream test are ember's own additions on the same subjects
(tests/nn/test_module_upstream.py holds older scenario-by-scenario comparisons)."""
import itertools
import pickle
import warnings
from collections import OrderedDict
from copy import deepcopy

import pytest

import ember
from ..oracle.oracle import torch


@pytest.fixture(params=['ember', 'torch'])
def lib(request):
    return ember if request.param == 'ember' else torch


def same_children(a, b):
    """The two containers hold the same modules (by identity) in the same order."""
    la, lb = list(a), list(b)
    return len(la) == len(lb) and all(x is y for x, y in zip(la, lb))


def linears(lib, *sizes):
    return [lib.nn.Linear(i, o) for i, o in zip(sizes, sizes[1:])]


# -- registration, dir, traversal ----------------------------------------------------------

def test_train_errors_for_invalid_mode(lib):
    class SubclassNet(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = lib.nn.Linear(2, 2)

    for mode, module in itertools.product(['invalid_str', lib.device('cpu')],
                                          [SubclassNet(), lib.nn.Sequential(lib.nn.Linear(2, 2))]):
        with pytest.raises(ValueError):
            module.train(mode)


def test_dir(lib):
    linear = lib.nn.Linear(2, 2)
    linear._test_submodule = lib.nn.Linear(2, 2)
    linear._test_parameter = lib.nn.Parameter(lib.empty(2, 2))
    linear._test_buffer = lib.nn.Buffer(lib.empty(2, 2))
    keys = dir(linear)
    assert {'_test_submodule', '_test_parameter', '_test_buffer'} <= set(keys)
    for key in keys:
        assert hasattr(linear, key)


def test_dir_digit(lib):
    assert '0' not in dir(lib.nn.Sequential(lib.nn.Linear(2, 2)))


def test_named_children(lib):
    l1, l2, l3, l4 = [lib.nn.Linear(2, 2) for _ in range(4)]
    subnet = lib.nn.Sequential(l3, l4)
    s = lib.nn.Sequential()
    with pytest.raises(KeyError):
        s.add_module('', l1)
    with pytest.raises(KeyError):
        s.add_module('name.with.dot', l1)
    for name, m in [('layer1', l1), ('layer2', l2), ('layer3', l1), ('layer4', l2),
                    ('subnet', subnet)]:
        s.add_module(name, m)
    assert list(s.named_children()) == [('layer1', l1), ('layer2', l2), ('subnet', subnet)]


def test_named_modules(lib):
    l, l1, l2 = [lib.nn.Linear(10, 20) for _ in range(3)]
    block = lib.nn.Sequential()
    block.add_module('linear1', l1)
    block.add_module('linear2', l2)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = l
            self.l2 = l
            self.param = lib.empty(3, 5)
            self.block = block
    n = Net()
    s = lib.nn.Sequential(n, n)
    assert list(s.named_modules()) == [('', s), ('0', n), ('0.l1', l), ('0.block', block),
                                       ('0.block.linear1', l1), ('0.block.linear2', l2)]
    assert [name for name, _ in s.named_modules(remove_duplicate=False)] == [
        '', '0', '0.l1', '0.l2', '0.block', '0.block.linear1', '0.block.linear2',
        '1', '1.l1', '1.l2', '1.block', '1.block.linear1', '1.block.linear2']


# -- buffers: register_buffer and nn.Buffer ------------------------------------------------

@pytest.mark.parametrize('name,type_name', [(1, 'int'), (None, 'NoneType')])
def test_register_buffer_raises_error_if_name_is_not_string(lib, name, type_name):
    with pytest.raises(TypeError, match='buffer name should be a string. Got ' + type_name):
        lib.nn.Module().register_buffer(name, lib.rand(5))


def test_register_buffer_raises_error_if_attr_exists(lib):
    m = lib.nn.Module()
    m.attribute_name = 5
    with pytest.raises(KeyError):
        m.register_buffer('attribute_name', lib.rand(5))
    with pytest.raises(KeyError):
        m.attribute_name = lib.nn.Buffer(lib.rand(5))
    del m.attribute_name
    m.register_parameter('attribute_name', lib.nn.Parameter())
    with pytest.raises(KeyError):
        m.register_buffer('attribute_name', lib.rand(5))
    del m.attribute_name
    m.add_module('attribute_name', lib.nn.Module())
    with pytest.raises(KeyError):
        m.register_buffer('attribute_name', lib.rand(5))


def test_register_buffer_allows_overwriting_with_same_name(lib):
    m = lib.nn.Module()
    buffer1 = lib.rand(5)
    buffer2 = buffer1 + 5
    m.register_buffer('buffer_name', buffer1)
    assert m.buffer_name is buffer1
    m.register_buffer('buffer_name', buffer2)
    assert m.buffer_name is buffer2
    m.register_buffer('buffer_name', None)
    assert m.buffer_name is None
    for value in (buffer1, buffer2):
        m.buffer_name = lib.nn.Buffer(value)
        assert lib.equal(m.buffer_name, value)
    m.buffer_name = lib.nn.Buffer(None)  # Buffer() of nothing is an empty tensor
    assert m.buffer_name.shape == (0,)


def test_get_buffer(lib):
    m = lib.nn.Module()
    buffer1, buffer2 = lib.randn(2, 3), lib.randn(4, 5)
    m.foo = lib.nn.Buffer(buffer1)
    m.register_buffer('bar', buffer2)
    assert lib.equal(buffer1, m.get_buffer('foo'))
    assert m.get_buffer('bar') is buffer2


def test_get_buffer_from_submodules(lib):
    nn = lib.nn

    class SubSub(nn.Module):
        def __init__(self, bar):
            super().__init__()
            self.bar = nn.Buffer(bar)

    class Sub(nn.Module):
        def __init__(self, foo, bar):
            super().__init__()
            self.foo = nn.Buffer(foo)
            self.subsub = SubSub(bar)

    class MyModule(nn.Module):
        def __init__(self, foo, bar):
            super().__init__()
            self.sub = Sub(foo, bar)

    foo, bar = lib.randn(2, 3), lib.randn(4, 5)
    m = MyModule(foo, bar)
    assert lib.equal(foo, m.get_buffer('sub.foo'))
    assert lib.equal(bar, m.get_buffer('sub.subsub.bar'))


def test_get_submodule_parameter_buffer_errors(lib):
    m = lib.nn.Sequential(lib.nn.BatchNorm1d(2))
    m.x = 3
    errors = []
    for fn, target in [(m.get_submodule, '0.nope'), (m.get_submodule, 'x'),
                       (m.get_parameter, '0.running_mean'), (m.get_parameter, '0.nope'),
                       (m.get_buffer, '0.weight'), (m.get_buffer, '1.weight')]:
        with pytest.raises(AttributeError) as info:
            fn(target)
        errors.append(str(info.value))
    assert errors == ['BatchNorm1d has no attribute `nope`', '`x` is not an nn.Module',
                      '`running_mean` is not an nn.Parameter',
                      'BatchNorm1d has no attribute `nope`', '`weight` is not a buffer',
                      'Sequential has no attribute `1`']
    assert m.get_submodule('') is m and m.get_parameter('0.weight') is m[0].weight


def test_set_submodule_messages(lib):
    m = lib.nn.Sequential(lib.nn.Sequential(lib.nn.ReLU()))
    new = lib.nn.Tanh()
    m.set_submodule('0.0', new)
    assert m[0][0] is new
    with pytest.raises(ValueError, match='Cannot set the submodule without a target name!'):
        m.set_submodule('', new)
    with pytest.raises(AttributeError, match='Sequential has no attribute `x`'):
        m.set_submodule('0.x', new, strict=True)


def test_buffer_not_persistent(lib):
    m = lib.nn.Module()
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    assert len(list(m.buffers())) == 1 and len(m.state_dict()) == 0


def test_buffer_not_persistent_del(lib):
    m = lib.nn.Module()
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    del m.buf
    assert len(list(m.buffers())) == 0


def test_buffer_not_persistent_overwrite(lib):
    m = lib.nn.Module()
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    m.buf = lib.nn.Buffer(lib.rand(5))
    assert len(list(m.buffers())) == 1 and len(m.state_dict()) == 1
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    assert len(list(m.buffers())) == 1 and len(m.state_dict()) == 0


def test_buffer_not_persistent_assign(lib):
    m = lib.nn.Module()
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    assert len(list(m.buffers())) == 1 and len(m.state_dict()) == 0
    # None removes the value but the name stays a (non-persistent) buffer
    m.buf = None
    assert len(list(m.buffers())) == 0 and len(m.state_dict()) == 0
    m.buf = lib.rand(5)
    assert len(list(m.buffers())) == 1 and len(m.state_dict()) == 0
    # a Parameter takes the name over
    m.buf = lib.nn.Parameter(lib.rand(5))
    assert len(list(m.buffers())) == 0 and len(m.state_dict()) == 1


def test_buffer_not_persistent_load(lib):
    m = lib.nn.Module()
    m.buf = lib.nn.Buffer(lib.rand(5), persistent=False)
    m.load_state_dict({})


def test_buffer_is_a_detached_tensor(lib):
    t = lib.ones(2, requires_grad=True)
    b = lib.nn.Buffer(t * 2, persistent=False)
    assert type(b) is lib.Tensor and isinstance(b, lib.nn.Buffer)
    assert not isinstance(t, lib.nn.Buffer)
    assert b.grad_fn is None and b.requires_grad and b.persistent is False
    p = lib.nn.Buffer(lib.nn.Parameter(lib.ones(1)))
    assert type(p) is lib.Tensor
    m = lib.nn.Module()
    m.p = lib.nn.Parameter(lib.ones(1))
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'p' "
                                        r"\(torch.nn.Parameter or None expected\)"):
        m.p = lib.nn.Buffer(lib.ones(1))


@pytest.mark.parametrize('name,type_name', [(1, 'int'), (None, 'NoneType')])
def test_register_parameter_raises_error_if_name_is_not_string(lib, name, type_name):
    with pytest.raises(TypeError, match='parameter name should be a string. Got ' + type_name):
        lib.nn.Module().register_parameter(name, lib.nn.Parameter())


def test_register_parameter_raises_error_if_attr_exists(lib):
    m = lib.nn.Module()
    m.attribute_name = 5
    with pytest.raises(KeyError):
        m.register_parameter('attribute_name', lib.nn.Parameter())
    del m.attribute_name
    m.register_buffer('attribute_name', lib.rand(5))
    with pytest.raises(KeyError):
        m.register_parameter('attribute_name', lib.nn.Parameter())
    del m.attribute_name
    m.attribute_name = lib.nn.Buffer(lib.rand(5))
    with pytest.raises(KeyError):
        m.register_parameter('attribute_name', lib.nn.Parameter())
    del m.attribute_name
    m.add_module('attribute_name', lib.nn.Module())
    with pytest.raises(KeyError):
        m.register_parameter('attribute_name', lib.nn.Parameter())


@pytest.mark.parametrize('fn', ['add_module', 'register_module'])
def test_add_module_raises_error_if_attr_exists(lib, fn):
    m = lib.nn.Module()
    m.attribute_name = 5
    with pytest.raises(KeyError):
        getattr(m, fn)('attribute_name', lib.nn.Module())
    del m.attribute_name
    m.register_buffer('attribute_name', lib.rand(5))
    with pytest.raises(KeyError):
        getattr(m, fn)('attribute_name', lib.nn.Module())
    del m.attribute_name
    m.register_parameter('attribute_name', lib.nn.Parameter())
    with pytest.raises(KeyError):
        getattr(m, fn)('attribute_name', lib.nn.Module())


def test_assignment(lib):
    nn = lib.nn
    l = nn.Module()
    # (Parameters compare elementwise, so the registered objects are compared by name)
    for get_list, objs in [(l.parameters, [nn.Parameter(lib.randn(n)) for n in (2, 3, 4)]),
                           (l.children, [nn.Linear(n, n) for n in (4, 5, 6)])]:
        a, b, c = objs
        ids = {id(a): 'a', id(b): 'b', id(c): 'c'}

        def names():
            return [ids[id(x)] for x in get_list()]
        l.a = None  # None can be shadowed
        assert l.a is None and 'a' in l.__dict__
        l.a = a
        assert l.a is a and names() == ['a'] and 'a' not in l.__dict__
        l.b = None
        assert l.b is None and 'b' in l.__dict__
        l.b = b
        assert l.b is b and names() == ['a', 'b'] and 'b' not in l.__dict__
        l.a = None  # removing and adding back keeps the order
        assert l.a is None and names() == ['b']
        l.a = a
        assert names() == ['a', 'b']
        l.a = c  # so does replacing
        assert l.a is c and names() == ['c', 'b']
        del l.a  # deleting and reassigning puts it last
        assert not hasattr(l, 'a')
        l.a = a
        assert names() == ['b', 'a']
        del l.a, l.b
        assert names() == []
    buf = nn.Buffer(lib.randn(10))
    l.buf = buf
    assert l.buf is buf
    l.buf = None
    assert l.buf is None and 'buf' not in l.__dict__  # still a buffer slot
    l.buf = buf
    assert 'buf' in l.state_dict() and lib.equal(l.state_dict()['buf'], buf)


def test_parameter_assignment(lib):
    l = lib.nn.Linear(5, 5)

    def num_params():
        return len(list(l.parameters()))
    assert num_params() == 2
    new_param = lib.nn.Parameter(lib.randn(5, 5))
    l.param_name = new_param
    assert num_params() == 3 and any(p is new_param for p in l.parameters())
    var = lib.randn(5, 5)
    l.var_name = var
    assert num_params() == 3 and id(var) not in map(id, l.parameters())
    l.variable_attr = lib.empty(5, 5)
    assert num_params() == 3
    l.param_attr = lib.nn.Parameter(lib.empty(5, 5))
    assert num_params() == 4
    with pytest.raises(TypeError):
        l.param_attr = lib.empty(5, 5)
    l.param_attr = None
    assert num_params() == 3


def test_container_copy(lib):
    class Model(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(4, 5)

        def forward(self, input):
            return self.linear(input)
    input = lib.randn(2, 4)
    model = Model()
    model_cp = deepcopy(model)
    assert lib.equal(model(input).data, model_cp(input).data)
    model_cp.linear.weight.data[:] = 2
    assert not lib.equal(model(input).data, model_cp(input).data)


# -- Sequential ---------------------------------------------------------------------------

def test_Sequential_getitem(lib):
    l1, l2, l3, l4 = linears(lib, 10, 20, 30, 40, 50)
    n = lib.nn.Sequential(l1, l2, l3, l4)
    assert n[0] is l1 and n[1] is l2 and n[2] is l3 and n[3] is l4
    assert n[lib.tensor(3, dtype=lib.int64)] is l4
    assert same_children(n[1:], [l2, l3, l4])
    assert same_children(n[3:], [l4])
    assert same_children(n[:-1], [l1, l2, l3])
    assert same_children(n[:-3], [l1])
    assert same_children(n[::-1], [l4, l3, l2, l1])
    assert type(n[1:]) is lib.nn.Sequential


def test_Sequential_setitem(lib):
    l1, l2, l3, l4 = linears(lib, 10, 20, 30, 40, 50)
    n = lib.nn.Sequential(l1, l2, l3)
    n[0] = l4
    n[-1] = l4
    n[lib.tensor(1, dtype=lib.int16)] = l1
    assert n[0] is l4 and n[1] is l1 and n[2] is l4


def test_Sequential_setitem_named(lib):
    l1, l2, l3, l4 = linears(lib, 10, 20, 30, 40, 50)
    n = lib.nn.Sequential(OrderedDict([('linear1', l1), ('linear2', l2), ('linear3', l3)]))
    n[0] = l4
    n[-1] = l4
    assert n.linear1 is l4 and n.linear3 is l4


def test_Sequential_delitem(lib):
    l1, l2, l3, l4 = linears(lib, 10, 20, 30, 40, 50)
    n = lib.nn.Sequential(l1, l2, l3, l4)
    del n[-1]
    assert same_children(n, [l1, l2, l3])
    del n[1::2]
    assert same_children(n, [l1, l3])
    assert list(n._modules) == ['0', '1']  # renumbered


def test_Sequential_add(lib):
    l1, l2, l3, l4 = linears(lib, 1, 2, 3, 4, 5)
    n = lib.nn.Sequential(l1, l2)
    assert same_children(n + lib.nn.Sequential(l3, l4), [l1, l2, l3, l4])


def test_Sequential_iadd(lib):
    l1, l2, l3, l4 = linears(lib, 10, 20, 30, 40, 50)
    n = lib.nn.Sequential(l1, l2, l3)
    n2 = lib.nn.Sequential(l4)
    n += n2
    n2 += n
    assert same_children(n, [l1, l2, l3, l4])
    assert same_children(n2, [l4, l1, l2, l3, l4])


def test_Sequential_mul(lib):
    mods = linears(lib, 10, 20, 30, 40, 50)
    assert same_children(lib.nn.Sequential(*mods) * 2, mods + mods)


def test_Sequential_rmul(lib):
    mods = linears(lib, 10, 20, 30, 40, 50)
    assert same_children(2 * lib.nn.Sequential(*mods), mods + mods)


def test_Sequential_imul(lib):
    mods = linears(lib, 10, 20, 30, 40, 50)
    n = lib.nn.Sequential(*mods)
    n *= 2
    assert same_children(n, mods * 2)
    n *= 2
    assert same_children(n, mods * 4)


def test_Sequential_append(lib):
    l1, l2, l3, l4 = linears(lib, 10, 20, 30, 40, 50)
    n = lib.nn.Sequential(l1, l2, l3)
    n2 = n.append(l4)
    assert n2 is n and same_children(n, [l1, l2, l3, l4])
    assert same_children(lib.nn.Sequential(l1).append(l2).append(l4), [l1, l2, l4])


def test_Sequential_pop(lib):
    l1, l2, l3, l4 = linears(lib, 1, 2, 3, 4, 5)
    n1 = lib.nn.Sequential(l1, l2, l3, l4)
    assert n1.pop(3) is l4
    assert same_children(n1, [l1, l2, l3])
    for k, mod in zip(range(len(n1)), n1):
        assert n1[k] is mod


def test_Sequential_insert(lib):
    l1, l2, l3 = linears(lib, 1, 2, 3, 4)
    module_1 = lib.nn.Linear(4, 5)
    n1 = lib.nn.Sequential(l1, l2, l3)
    assert same_children(n1.insert(1, module_1), [l1, module_1, l2, l3])
    module_2 = lib.nn.Linear(5, 6)
    n3 = lib.nn.Sequential(l1, l2, l3)
    assert same_children(n3.insert(-2, module_2), [l1, module_2, l2, l3])


def test_Sequential_insert_fail_case(lib):
    n1 = lib.nn.Sequential(*linears(lib, 1, 2, 3, 4))
    with pytest.raises(IndexError):
        n1.insert(-5, lib.nn.Linear(5, 6))
    with pytest.raises(AssertionError):
        n1.insert(1, [lib.nn.Linear(6, 7)])


def test_Sequential_extend(lib):
    l1, l2, l3, l4 = linears(lib, 10, 20, 30, 40, 50)
    n1 = lib.nn.Sequential(l1, l2)
    n2 = lib.nn.Sequential(l3, l4)
    n3 = lib.nn.Sequential(l1, l2)
    for l in n2:
        n1.append(l)
    n3.extend(n2)
    assert same_children(n3, n1)


@pytest.mark.parametrize('op', ['add_list', 'iadd_list', 'mul0', 'mul_neg', 'mul_float',
                                'imul0', 'imul_str', 'delitem_str', 'setitem_out',
                                'insert_out', 'getitem_out'])
def test_Sequential_operator_errors(lib, op):
    # the exception class and message of each misuse, as torch words them (with its class
    # names: 'torch.nn...' in messages, which ember also prints)
    s = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Tanh())
    fn = {'add_list': lambda: s + [lib.nn.ReLU()], 'iadd_list': lambda: s.__iadd__([]),
          'mul0': lambda: s * 0, 'mul_neg': lambda: s * -1, 'mul_float': lambda: s * 1.5,
          'imul0': lambda: s.__imul__(0), 'imul_str': lambda: s.__imul__('a'),
          'delitem_str': lambda: s.__delitem__('1'), 'setitem_out': lambda: s.__setitem__(
              9, lib.nn.ReLU()), 'insert_out': lambda: s.insert(10, lib.nn.ReLU()),
          'getitem_out': lambda: s[5]}[op]
    with pytest.raises(Exception) as info:
        fn()
    text = str(info.value).replace('ember.', 'torch.')
    expected = {
        'add_list': (ValueError, "add operator supports only objects of Sequential class, "
                                 "but <class 'list'> is given."),
        'iadd_list': (ValueError, "add operator supports only objects of Sequential class, "
                                  "but <class 'list'> is given."),
        'mul0': (ValueError, "Non-positive multiplication factor 0 for <class "
                             "'torch.nn.modules.container.Sequential'>"),
        'mul_neg': (ValueError, "Non-positive multiplication factor -1 for <class "
                                "'torch.nn.modules.container.Sequential'>"),
        'mul_float': (TypeError, "unsupported operand type(s) for *: <class "
                                 "'torch.nn.modules.container.Sequential'> and <class 'float'>"),
        'imul0': (ValueError, "Non-positive multiplication factor 0 for <class "
                              "'torch.nn.modules.container.Sequential'>"),
        'imul_str': (TypeError, "unsupported operand type(s) for *: <class "
                                "'torch.nn.modules.container.Sequential'> and <class 'str'>"),
        'delitem_str': (TypeError, "'str' object cannot be interpreted as an integer"),
        'setitem_out': (IndexError, 'index 9 is out of range'),
        'insert_out': (IndexError, 'Index out of range: 10'),
        'getitem_out': (IndexError, 'index 5 is out of range'),
    }[op]
    assert (type(info.value), text) == expected


def test_Sequential_named_children_are_renumbered(lib):
    # deleting from (or popping off) a Sequential built from an OrderedDict renumbers the
    # survivors '0', '1', ...; + and * number the result too
    s = lib.nn.Sequential(OrderedDict(a=lib.nn.ReLU(), b=lib.nn.Tanh(), c=lib.nn.ELU()))
    assert list((s + s)._modules) == [str(i) for i in range(6)]
    assert list((s * 2)._modules) == [str(i) for i in range(6)]
    del s[1]
    assert list(s._modules) == ['0', '1']
    s.append(lib.nn.ReLU())
    assert list(s._modules) == ['0', '1', '2']
    popped = s.pop(slice(0, 2))
    assert type(popped) is lib.nn.Sequential and list(s._modules) == ['0']


# -- ModuleList / ModuleDict ----------------------------------------------------------------

def test_ModuleList(lib):
    nn = lib.nn
    modules = [nn.ReLU(), nn.Linear(5, 5)]
    module_list = nn.ModuleList(modules)

    def check():
        assert len(module_list) == len(modules)
        assert same_children(module_list, modules)
        assert same_children(module_list.children(), modules)
        for i in range(len(modules)):
            assert module_list[i] is modules[i]

    check()
    modules += [nn.Conv2d(3, 4, 3)]
    module_list += [modules[-1]]
    check()
    modules = modules + [nn.Conv2d(3, 4, 3, bias=False), nn.GELU()]
    module_list = module_list + nn.ModuleList(modules[-2:])
    check()
    modules.insert(1, nn.Linear(3, 2))
    module_list.insert(1, modules[1])
    check()
    modules.append(nn.Tanh())
    module_list.append(modules[-1])
    check()
    next_modules = [nn.Linear(5, 5), nn.Sigmoid()]
    modules.extend(next_modules)
    module_list.extend(next_modules)
    check()
    modules[2] = nn.Conv2d(5, 3, 2)
    module_list[2] = modules[2]
    check()
    modules[-1] = nn.Conv2d(5, 2, 1)
    module_list[-1] = modules[-1]
    check()
    idx = lib.tensor(2, dtype=lib.int32)
    modules[2] = nn.Conv2d(5, 3, 2)
    module_list[idx] = modules[2]
    assert module_list[idx] is modules[2]
    check()
    for sl in [slice(1, None), slice(3, None), slice(None, -1), slice(None, -3),
               slice(None, None, -1)]:
        assert same_children(module_list[sl], modules[sl])
        assert type(module_list[sl]) is nn.ModuleList
    del module_list[-1]
    assert same_children(module_list, modules[:-1])
    del module_list[1::2]
    assert same_children(module_list, modules[:-1][0::2])
    with pytest.raises(TypeError):
        module_list += nn.ReLU()
    with pytest.raises(TypeError):
        module_list.extend(nn.ReLU())

    l1, l2, l3, l4 = linears(lib, 1, 2, 3, 2, 3)
    s = nn.Sequential(OrderedDict([('layer1', l1), ('layer2', l2), ('layer3', l3),
                                   ('layer4', l4), ('subnet_layer', nn.Sequential(l3, l4))]))
    modules = list(s.modules())
    module_list = nn.ModuleList()
    module_list.extend(s.modules())
    check()

    modules = [nn.ReLU(), nn.Linear(5, 5), nn.Conv2d(3, 4, 3)]
    module_list = nn.ModuleList(modules)
    assert modules.pop(1) is module_list.pop(1)
    assert same_children(module_list, modules)
    for k, mod in zip(range(len(module_list)), module_list):
        assert module_list[k] is mod
    # a ModuleList has no forward
    with pytest.raises(NotImplementedError):
        module_list()
    with pytest.raises(NotImplementedError):
        module_list(lib.rand(1, 3))


def test_ModuleList_errors(lib):
    m = lib.nn.ModuleList([lib.nn.ReLU()])
    for fn, cls, text in [
            (lambda: m.extend(3), TypeError,
             'ModuleList.extend should be called with an iterable, but got int'),
            (lambda: m[5], IndexError, 'index 5 is out of range'),
            (lambda: m.__delitem__(4), IndexError, 'index 4 is out of range'),
            (lambda: m.__setitem__(slice(0, 1), lib.nn.ReLU()), TypeError,
             "'slice' object cannot be interpreted as an integer"),
            (lambda: [lib.nn.ReLU()] + m, TypeError,
             'can only concatenate list (not "ModuleList") to list')]:
        with pytest.raises(cls) as info:
            fn()
        assert str(info.value) == text


def test_ModuleDict(lib):
    nn = lib.nn
    modules = OrderedDict([('act', nn.ReLU()), ('conv', nn.Conv2d(10, 10, 5)),
                           ('fc', nn.Linear(5, 5))])
    module_dict = nn.ModuleDict(modules)

    def check():
        assert len(module_dict) == len(modules)
        assert same_children(module_dict.children(), modules.values())
        assert list(module_dict) == list(modules)
        for k, v in module_dict.items():
            assert modules[k] is v
        assert same_children(module_dict.values(), modules.values())
        for k in modules:
            assert k in module_dict

    check()
    modules['conv'] = nn.Conv2d(3, 4, 3)
    module_dict['conv'] = modules['conv']
    check()
    next_modules = [('fc2', nn.Linear(5, 5)), ('act', nn.Sigmoid())]
    modules.update(next_modules)
    module_dict.update(next_modules)
    check()
    next_modules = OrderedDict([('fc3', nn.Linear(5, 5)), ('act2', nn.Sigmoid())])
    modules.update(next_modules)
    module_dict.update(next_modules)
    check()
    next_modules = {'fc4': nn.Linear(5, 5), 'act3': nn.Sigmoid()}
    modules.update(next_modules.items())
    module_dict.update(next_modules)
    check()
    next_modules = nn.ModuleDict([('fc5', nn.Linear(5, 5)), ('act4', nn.Sigmoid())])
    modules.update(next_modules)
    module_dict.update(next_modules)
    check()
    del module_dict['fc']
    del modules['fc']
    check()
    with pytest.raises(TypeError):
        module_dict.update(nn.ReLU())
    with pytest.raises(TypeError):
        module_dict.update([nn.ReLU()])
    with pytest.raises(ValueError):
        module_dict.update([[nn.ReLU()]])
    with pytest.raises(TypeError):
        module_dict[1] = nn.ReLU()
    s = nn.Sequential(modules)
    module_dict = nn.ModuleDict(s.named_children())
    check()
    c = module_dict.pop('conv')
    assert c is modules['conv']
    modules.pop('conv')
    check()
    module_dict.clear()
    assert len(module_dict) == 0
    modules.clear()
    check()
    with pytest.raises(NotImplementedError):
        module_dict()
    with pytest.raises(NotImplementedError):
        module_dict(lib.rand(1, 3))


def test_ModuleDict_update_errors(lib):
    d = lib.nn.ModuleDict()
    for arg, cls, text in [
            (3, TypeError, 'ModuleDict.update should be called with an iterable of key/value '
                           'pairs, but got int'),
            ([3], TypeError, 'ModuleDict update sequence element #0 should be Iterable; isint'),
            ([(1, 2, 3)], ValueError, 'ModuleDict update sequence element #0 has length 3; 2 '
                                      'is required'),
            (['ab'], TypeError, 'str is not a Module subclass')]:
        with pytest.raises(cls) as info:
            d.update(arg)
        assert str(info.value) == text
    with pytest.raises(KeyError):
        d.pop('nope')


# -- ParameterList / ParameterDict ----------------------------------------------------------

def test_ParameterList(lib):
    nn = lib.nn

    def make_param():
        return nn.Parameter(lib.randn(2, 2))
    parameters = [make_param(), make_param()]
    param_list = nn.ParameterList(parameters)

    def check():
        assert len(parameters) == len(param_list)
        assert same_children(param_list, parameters)
        assert same_children(param_list.parameters(),
                             [p for p in parameters if isinstance(p, nn.Parameter)])
        for i in range(len(parameters)):
            assert parameters[i] is param_list[i]

    check()
    parameters += [make_param()]
    param_list += [parameters[-1]]
    check()
    parameters.append(make_param())
    param_list.append(parameters[-1])
    check()
    next_params = [make_param(), make_param()]
    parameters.extend(next_params)
    param_list.extend(next_params)
    check()
    parameters[2] = make_param()
    param_list[2] = parameters[2]
    check()
    parameters[-1] = make_param()
    param_list[-1] = parameters[-1]
    check()
    idx = lib.tensor(2, dtype=lib.int32)
    parameters[2] = make_param()
    param_list[idx] = parameters[2]
    assert param_list[idx] is parameters[2]
    check()
    for sl in [slice(1, None), slice(3, None), slice(None, -1), slice(None, -3),
               slice(None, None, -1)]:
        assert same_children(param_list[sl], parameters[sl])
    with pytest.raises(TypeError):
        param_list += make_param()
    with pytest.raises(TypeError):
        param_list.extend(make_param())
    s = nn.Sequential(OrderedDict([('layer1', nn.Linear(1, 2)), ('layer2', nn.Linear(2, 3))]))
    parameters = list(s.parameters())
    param_list = nn.ParameterList()
    param_list.extend(s.parameters())
    check()
    param_list.append(lib.rand(2, 2))
    assert isinstance(param_list[-1], nn.Parameter)
    parameters.append(param_list[-1])
    param_list.extend([lib.rand(2, 2), 'foo'])
    assert isinstance(param_list[-2], nn.Parameter) and isinstance(param_list[-1], str)
    parameters.extend(param_list[-2:])
    param_list += ['bar', lib.rand(2, 2)]
    assert isinstance(param_list[-2], str) and isinstance(param_list[-1], nn.Parameter)
    parameters += param_list[-2:]
    check()


def test_ParameterDict(lib):
    nn = lib.nn
    P = lambda: nn.Parameter(lib.randn(10, 10))  # noqa: E731
    parameters = OrderedDict([('p1', P()), ('p2', P()), ('p3', P())])
    parameter_dict = nn.ParameterDict(parameters)

    def check():
        assert len(parameter_dict) == len(parameters)
        for k1, (k2, m2) in zip(parameters, parameter_dict.named_parameters()):
            assert k1 == k2 and parameters[k1] is m2
        for k1, k2 in zip(parameters, parameter_dict):
            assert parameters[k1] is parameter_dict[k2]
        for k, v in parameter_dict.items():
            assert v is parameters[k]
        assert same_children(parameter_dict.values(), parameters.values())
        for k in parameters:
            assert k in parameter_dict

    check()
    parameters['p4'] = P()
    parameter_dict['p4'] = parameters['p4']
    check()
    next_parameters = [('p5', P()), ('p2', P())]
    parameters.update(next_parameters)
    parameter_dict.update(next_parameters)
    check()
    next_parameters = OrderedDict([('p6', P()), ('p5', P())])
    parameters.update(next_parameters)
    parameter_dict.update(next_parameters)
    check()
    next_parameters = {'p8': P(), 'p7': P()}
    parameters.update(sorted(next_parameters.items()))  # a plain dict goes in sorted
    parameter_dict.update(next_parameters)
    check()
    next_parameters = nn.ParameterDict([('p10', P()), ('p9', P())])
    parameters.update(next_parameters)
    parameter_dict.update(next_parameters)
    check()
    del parameter_dict['p3']
    del parameters['p3']
    check()
    with pytest.raises(TypeError):
        parameter_dict.update(1)
    with pytest.raises(TypeError):
        parameter_dict.update([1])
    with pytest.raises(ValueError):
        parameter_dict.update(P())
    with pytest.raises(TypeError):
        parameter_dict[1] = P()


# -- state_dict -----------------------------------------------------------------------------

def test_state_dict(lib):
    nn = lib.nn
    l = nn.Linear(5, 5)
    block = nn.Module()
    block.conv = nn.Conv2d(3, 3, 3, bias=False)
    net = nn.Module()
    net.linear1 = l
    net.linear2 = l
    net.bn = nn.BatchNorm2d(2)
    net.block = block
    net.add_module('empty', None)
    state_dict = net.state_dict()
    assert len(state_dict) == 10
    assert list(state_dict._metadata) == ['', 'linear1', 'linear2', 'bn', 'block',
                                          'block.conv']
    assert state_dict._metadata['bn'] == {'version': 2}
    assert state_dict._metadata['block.conv'] == {'version': 1}
    assert list(state_dict) == [
        'linear1.weight', 'linear1.bias', 'linear2.weight', 'linear2.bias', 'bn.weight',
        'bn.bias', 'bn.running_mean', 'bn.running_var', 'bn.num_batches_tracked',
        'block.conv.weight']
    for k, v in state_dict.items():
        param = net
        for component in k.split('.'):
            param = getattr(param, component)
        assert v.data_ptr() == param.data_ptr()  # the same memory, detached
        assert not v.requires_grad
    l = nn.Linear(5, 5)
    state_dict = l.state_dict()
    assert len(state_dict) == 2 and list(state_dict._metadata) == ['']
    assert state_dict._metadata['']['version'] >= 0
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        l.state_dict(destination={})  # a destination without _metadata does not warn


def test_state_dict_positional_arguments_are_deprecated(lib):
    l = lib.nn.Linear(1, 1)
    destination = OrderedDict()
    with pytest.warns(FutureWarning, match='Positional args are being deprecated, use kwargs '
                                           'instead'):
        out = l.state_dict(destination, 'pre.')
    assert out is destination and list(out) == ['pre.weight', 'pre.bias']


def test_extra_state(lib):
    class SubModule(lib.nn.Module):
        def __init__(self, foo):
            super().__init__()
            self.foo = foo

        def get_extra_state(self):
            return {'foo': self.foo}

        def set_extra_state(self, state):
            self.foo = state['foo']

    class MyModule(lib.nn.Module):
        def __init__(self, foo, bar):
            super().__init__()
            self.sub = SubModule(foo)
            self.bar = bar

        def get_extra_state(self):
            return {'bar': self.bar}

        def set_extra_state(self, state):
            self.bar = state['bar']

    m = MyModule(3, 'something')
    m2 = MyModule(5, 'something else')
    m2.load_state_dict(m.state_dict())
    assert m.state_dict() == m2.state_dict()
    assert list(m.state_dict()) == ['_extra_state', 'sub._extra_state']
    assert m2.bar == m.bar and m2.sub.foo == m.sub.foo


def test_extra_state_non_dict(lib):
    class MyModule(lib.nn.Module):
        def __init__(self, foo):
            super().__init__()
            self.foo = foo

        def get_extra_state(self):
            return self.foo

        def set_extra_state(self, state):
            self.foo = state

    for state in ('something', 5, MyModule(3)):
        m = MyModule(state)
        m2 = MyModule('something else')
        m2.load_state_dict(m.state_dict())
        assert m.state_dict() == m2.state_dict() and m.foo == m2.foo


def test_extra_state_missing_set_extra_state(lib):
    class MyModule(lib.nn.Module):
        def get_extra_state(self):
            return {'foo': 5}

    m = MyModule()
    with pytest.raises(RuntimeError, match='Unexpected key'):
        m.load_state_dict(m.state_dict())


def test_extra_state_missing_get_extra_state(lib):
    class MyModule(lib.nn.Module):
        def set_extra_state(self):
            pass

    m = MyModule()
    with pytest.raises(RuntimeError, match='Missing key'):
        m.load_state_dict(m.state_dict())


def test_get_extra_state_base_raises(lib):
    with pytest.raises(RuntimeError, match=r'Reached a code path in Module.get_extra_state\(\) '
                                           'that should never be called'):
        lib.nn.Linear(1, 1).get_extra_state()


# -- conversion -----------------------------------------------------------------------------

@pytest.mark.parametrize('args,kwargs', [((), {'copy': True}), (('cpu',), {'copy': False}),
                                         (('float64',), {'copy': True})])
def test_to_refuses_copy(lib, args, kwargs):
    args = tuple(getattr(lib, a) if a == 'float64' else a for a in args)
    with pytest.raises(RuntimeError, match=r'^\.to\(\) does not accept copy argument$'):
        lib.nn.Linear(1, 1).to(*args, **kwargs)


def test_module_to_argparse(lib):
    net = lib.nn.Sequential(lib.nn.Linear(3, 3))
    cpu = lib.device('cpu')
    long_tensor = lib.tensor(3, dtype=lib.long)
    for fn in [lambda: net.to(cpu, True), lambda: net.to(lib.long), lambda: net.to(None, True),
               lambda: net.to(cpu, lib.long, True),
               lambda: net.to(cpu, dtype=lib.long, non_blocking=True), lambda: net.to([]),
               lambda: net.to({}, non_blocking=True),
               lambda: net.to(long_tensor, non_blocking=True),
               lambda: net.to(cpu, long_tensor, non_blocking=True)]:
        with pytest.raises(TypeError):
            fn()


def test_module_to_invalid_arguments_message(lib):
    with pytest.raises(TypeError) as info:
        lib.nn.Linear(1, 1).to(lib.device('cpu'), lib.ones(1), non_blocking=True)
    assert str(info.value) == (
        'to() received an invalid combination of arguments - got (torch.device, Tensor, '
        'non_blocking=bool), but expected one of:\n'
        ' * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, '
        'bool copy = False, *, torch.memory_format memory_format = None)\n'
        ' * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, '
        'torch.memory_format memory_format = None)\n'
        ' * (Tensor tensor, bool non_blocking = False, bool copy = False, *, '
        'torch.memory_format memory_format = None)\n')


@pytest.mark.parametrize('args,kwargs', [
    (('cpu', 'float64', True), {}), (('float64', True), {}), ((), {'dtype': 'float64'}),
    (('cpu',), {'dtype': 'float64', 'non_blocking': True}), ((), {'tensor': 'float64'})])
def test_module_to_signatures(lib, args, kwargs):
    def arg(a):
        return getattr(lib, a) if a == 'float64' else a
    kwargs = {k: (lib.ones(1, dtype=lib.float64) if k == 'tensor' else arg(v))
              for k, v in kwargs.items()}
    m = lib.nn.Linear(1, 1)
    assert m.to(*[arg(a) for a in args], **kwargs) is m and m.weight.dtype == lib.float64


def test_to_takes_positional_non_blocking(lib):
    m = lib.nn.Linear(1, 1)
    assert m.to('cpu', lib.float64, True) is m
    assert m.weight.dtype == lib.float64


# -- fusion (torch.nn.utils.fusion) ---------------------------------------------------------

@pytest.mark.parametrize('transpose', [False, True])
@pytest.mark.parametrize('bias,affine', [(True, True), (False, False)])
def test_fuse_conv_bn_eval(lib, transpose, bias, affine):
    lib.manual_seed(0)
    conv = (lib.nn.ConvTranspose2d if transpose else lib.nn.Conv2d)(3, 4, 3, bias=bias)
    bn = lib.nn.BatchNorm2d(4, affine=affine)
    with lib.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    conv.eval()
    bn.eval()
    fused = lib.nn.utils.fusion.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    x = lib.randn(2, 3, 6, 6)
    assert lib.allclose(fused(x), bn(conv(x)), atol=1e-5)
    assert type(fused) is type(conv) and fused is not conv
    assert isinstance(fused.bias, lib.nn.Parameter) and fused.weight.requires_grad
    assert fused.bias.requires_grad is bias  # a made-up zero bias does not require grad


def test_fuse_linear_bn_eval(lib):
    lib.manual_seed(0)
    linear, bn = lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4)
    with lib.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    linear.eval()
    bn.eval()
    fused = lib.nn.utils.fusion.fuse_linear_bn_eval(linear, bn)
    x = lib.randn(5, 3)
    assert lib.allclose(fused(x), bn(linear(x)), atol=1e-5)


def test_fuse_refuses_training_mode(lib):
    with pytest.raises(AssertionError, match='Fusion only for eval!'):
        lib.nn.utils.fusion.fuse_conv_bn_eval(lib.nn.Conv2d(1, 1, 1), lib.nn.BatchNorm2d(1))
    bn = lib.nn.BatchNorm2d(1, track_running_stats=False).eval()
    with pytest.raises(AssertionError, match='bn.running_mean and bn.running_var must not be '
                                             'None'):
        lib.nn.utils.fusion.fuse_conv_bn_eval(lib.nn.Conv2d(1, 1, 1).eval(), bn)


def test_type(lib):
    # upstream's test_type without its CUDA half: parameters, buffers and grads follow
    l = lib.nn.Linear(10, 20)
    net = lib.nn.Module()
    net.l = l
    net.l2 = l
    net.add_module('empty', None)
    net.indices = lib.nn.Buffer(lib.LongTensor(1))
    net.float()
    assert isinstance(l.weight.data, lib.FloatTensor)
    assert isinstance(net.indices, lib.LongTensor)
    net.double()
    assert isinstance(l.weight.data, lib.DoubleTensor)
    net.type(lib.FloatTensor)
    assert isinstance(l.weight.data, lib.FloatTensor)
    net.type(lib.DoubleTensor)
    assert isinstance(l.weight.data, lib.DoubleTensor)


def test_type_with_dtypes_and_names(lib):
    # the same through dtypes and type names, which ember has
    l = lib.nn.Linear(10, 20)
    net = lib.nn.Module()
    net.l = l
    net.l2 = l
    net.add_module('empty', None)
    net.indices = lib.nn.Buffer(lib.zeros(1, dtype=lib.long))
    net.double()
    assert l.weight.dtype == lib.float64 and net.indices.dtype == lib.long
    net.to(lib.half)
    assert l.weight.dtype == lib.half and net.indices.dtype == lib.long
    net.type('torch.FloatTensor')
    assert l.weight.dtype == lib.float32 and net.indices.dtype == lib.float32
    net.type(lib.float64)
    assert l.weight.dtype == lib.float64 and net.indices.dtype == lib.float64


def test_module_to_empty(lib):
    m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
    params = list(m.parameters())
    assert m.to_empty(device='cpu') is m
    assert [p.shape for p in m.parameters()] == [p.shape for p in params]
    assert all(a is b for a, b in zip(m.parameters(), params))  # the same Parameters
    assert m[1].running_mean.shape == (3,)


def test_apply_without_recursing(lib):
    s = lib.nn.Sequential(lib.nn.Linear(1, 1))
    s.register_buffer('own', lib.ones(1))
    s._apply(lambda t: t.double(), recurse=False)
    assert s.own.dtype == lib.float64 and s[0].weight.dtype == lib.float32
    s._apply(lambda t: t.double())
    assert s[0].weight.dtype == lib.float64


def _check_container_replication(lib, container):
    """The replica of a ParameterList/Dict has no parameters of its own; the replication code
    sets views in their place (done by hand: DataParallel cannot run on the CPU)."""
    def make_param():
        return lib.nn.Parameter(lib.randn(2, 2))
    if container == 'ParameterList':
        original = lib.nn.ParameterList([make_param(), make_param()])
    else:
        original = lib.nn.ParameterDict({'foo': make_param(), 'bar': make_param()})
    replica = original._replicate_for_data_parallel()
    assert replica._is_replica and list(replica.parameters()) == []
    for n, p in original.named_parameters():
        setattr(replica, n, p.view_as(p))
    values = (lambda c: list(c)) if container == 'ParameterList' else \
        (lambda c: [c[k] for k in c])
    for p, p2 in zip(values(original), values(replica)):
        assert lib.equal(p, p2) and p2.grad_fn is not None and p2._base is p
    if container == 'ParameterDict':
        assert lib.equal(original['foo'], replica['foo'])


def test_ParameterList_replication(lib):
    _check_container_replication(lib, 'ParameterList')


def test_ParameterDict_replication(lib):
    _check_container_replication(lib, 'ParameterDict')


def test_lazy_module_refuses_replication(lib):
    with pytest.raises(RuntimeError, match="Modules with uninitialized parameters can't be "
                                           "used with `DataParallel`"):
        lib.nn.LazyLinear(2)._replicate_for_data_parallel()


def _create_basic_net(lib):
    nn = lib.nn

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer_dummy_param = nn.Parameter(lib.empty(3, 5))
            self.layer_dummy_buf = nn.Buffer(lib.zeros(1, 3, 3, 7))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = Layer()
            self.dummy_param = nn.Parameter(lib.empty(3, 5))
            self.dummy_buf = nn.Buffer(lib.zeros(7, 3, 3, 1))

    l, n = Layer(), Net()
    return l, n, nn.Sequential(n, n)


def test_requires_grad_(lib):
    m = _create_basic_net(lib)[-1]
    assert list(m.buffers()) and all(not b.requires_grad for b in m.buffers())
    assert list(m.parameters()) and all(p.requires_grad for p in m.parameters())
    for requires_grad in (False, True):
        assert m.requires_grad_(requires_grad) is m
        assert all(p.requires_grad == requires_grad for p in m.parameters())
        assert all(not b.requires_grad for b in m.buffers())


def test_module_super_init(lib):
    class MyMixin:
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.mixin_init = True

    class MyModuleWithMixinBefore(MyMixin, lib.nn.Module):
        pass

    class MyModuleWithMixinAfter(lib.nn.Module, MyMixin):
        pass

    assert hasattr(MyModuleWithMixinBefore(), 'mixin_init')
    assert not hasattr(MyModuleWithMixinAfter(), 'mixin_init')
    lib.nn.Module.call_super_init = True
    try:
        assert hasattr(MyModuleWithMixinBefore(), 'mixin_init')
        assert hasattr(MyModuleWithMixinAfter(), 'mixin_init')
    finally:
        lib.nn.Module.call_super_init = False
    MyModuleWithMixinBefore.call_super_init = True
    MyModuleWithMixinAfter.call_super_init = True
    assert hasattr(MyModuleWithMixinBefore(), 'mixin_init')
    assert hasattr(MyModuleWithMixinAfter(), 'mixin_init')


def test_to(lib):
    m = lib.nn.Linear(3, 5)
    assert m is m.to('cpu')
    assert m is m.to('cpu', dtype=lib.float32)
    assert m.double() is m.to(lib.float64)
    with pytest.raises(RuntimeError):
        m.to('cpu', copy=True)


def test_zero_grad(lib):
    i = lib.randn(2, 5, requires_grad=True)
    module = lib.nn.Linear(5, 5)
    for p in module.parameters():
        p.requires_grad = False
    module.zero_grad()
    module.weight.requires_grad = True
    module.zero_grad()
    assert module.weight.grad is None
    module(i).sum().backward()
    assert module.weight.grad is not None and module.weight.grad.data.abs().sum() > 0
    module.zero_grad()
    assert module.weight.grad is None
    module.bias.requires_grad = True
    module.zero_grad()
    assert module.weight.grad is None and module.bias.grad is None
    module(i).sum().backward()
    assert module.weight.grad.data.abs().sum() > 0 and module.bias.grad.data.abs().sum() > 0
    module.zero_grad(set_to_none=False)
    assert lib.equal(module.weight.grad.data, module.weight.data.clone().zero_())
    assert lib.equal(module.bias.grad.data, module.bias.data.clone().zero_())
    module.zero_grad()
    assert module.weight.grad is None and module.bias.grad is None


@pytest.mark.parametrize('dtype', ['float', 'double'])  # (upstream also runs bfloat16)
def test_no_grad(lib, dtype):
    dtype = getattr(lib, dtype)
    module = lib.nn.Conv2d(2, 5, kernel_size=3, padding=1).to(dtype)
    input = lib.randn(1, 2, 10, 10).to(dtype)
    output = module(input)
    assert output.requires_grad
    output.backward(lib.ones(1, 5, 10, 10, dtype=dtype))
    with lib.no_grad():
        output2 = module(input.clone())
        assert not output2.requires_grad
        with pytest.raises(RuntimeError):
            output2.backward(lib.ones(1, 5, 10, 10, dtype=dtype))


def test_parameters_and_named_parameters(lib):
    l, n, s = _create_basic_net(lib)
    assert [k for k, _ in l.named_parameters()] == ['layer_dummy_param']
    assert [k for k, _ in n.named_parameters()] == ['dummy_param', 'l1.layer_dummy_param']
    assert [k for k, _ in n.named_parameters(recurse=False)] == ['dummy_param']
    assert len(list(n.parameters(recurse=False))) == 1
    assert [k for k, _ in s.named_parameters()] == ['0.dummy_param', '0.l1.layer_dummy_param']


def test_named_parameters_remove_duplicate(lib):
    class M1(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.param1 = lib.nn.Parameter(lib.empty(3, 3))
            self.param2 = self.param1

    m1 = M1()
    assert [k for k, _ in m1.named_parameters()] == ['param1']
    assert [k for k, _ in m1.named_parameters(remove_duplicate=False)] == ['param1', 'param2']

    class M2(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.mod1 = lib.nn.Linear(3, 4, bias=False)
            self.mod2 = self.mod1

    m2 = M2()
    assert [k for k, _ in m2.named_parameters()] == ['mod1.weight']
    assert [k for k, _ in m2.named_parameters(remove_duplicate=False)] == ['mod1.weight',
                                                                           'mod2.weight']


def test_buffers_and_named_buffers(lib):
    l, n, s = _create_basic_net(lib)
    assert [k for k, _ in l.named_buffers()] == ['layer_dummy_buf']
    assert [k for k, _ in n.named_buffers()] == ['dummy_buf', 'l1.layer_dummy_buf']
    assert [k for k, _ in n.named_buffers(recurse=False)] == ['dummy_buf']
    assert [k for k, _ in s.named_buffers()] == ['0.dummy_buf', '0.l1.layer_dummy_buf']

    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.buffer1 = lib.nn.Buffer(lib.empty(3, 5))
            self.buffer2 = self.buffer1

    m = M()
    assert [k for k, _ in m.named_buffers()] == ['buffer1']
    assert [k for k, _ in m.named_buffers(remove_duplicate=False)] == ['buffer1', 'buffer2']


def test_buffer_bad_module_subclass(lib):
    class MyBadModule(lib.nn.Linear):
        def __init__(self):
            super().__init__(2, 2)
            self.bar = lib.nn.Buffer(lib.rand(2, 2))

        def register_buffer(self, name, value):
            # persistent is explicitly missing!
            super().register_buffer(name, value, True)

    foo = MyBadModule()
    assert foo.bar is not None
    with pytest.raises(RuntimeError, match='Registering a non-persistent buffer on a Module '
                                           'subclass that implements register_buffer\\(\\) '
                                           'without the persistent argument is not allowed.'):
        foo.baz = lib.nn.Buffer(lib.rand(2), persistent=False)


def test_call_supports_python_dict_output(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = lib.nn.Linear(10, 20)
            self.register_backward_hook(self.hook)
            self.check_backward_hook_flag = False

        def hook(self, module, grad_out, grad_in):
            self.check_backward_hook_flag = True

        def forward(self, inputs):
            return {'output': self.l1(inputs).sum()}

    net = Net()
    with pytest.warns(FutureWarning, match='does not return a single Tensor or a tuple of '
                                           'Tensors'):
        model_output = net(lib.randn([5, 10]))
    model_output['output'].backward()
    assert net.check_backward_hook_flag


def test_children(lib):
    l1, l2, l3, l4 = [lib.nn.Linear(2, 2) for _ in range(4)]
    subnet = lib.nn.Sequential(l3, l4)
    s = lib.nn.Sequential(l1, l2, l1, l2, subnet)
    assert same_children(s.children(), [l1, l2, subnet])


def test_modules(lib):
    l = lib.nn.Linear(10, 20)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = l
            self.l2 = l
            self.param = lib.empty(3, 5)

    n = Net()
    s = lib.nn.Sequential(n, n, n, n)
    assert same_children(s.modules(), [s, n, l])


def test_repr(lib):
    assert repr(lib.nn.Sequential()) == 'Sequential()'
    linear = lib.nn.Linear(1, 1)
    assert repr(linear) == 'Linear(in_features=1, out_features=1, bias=True)'
    assert repr(lib.nn.Sequential(linear)) == (
        'Sequential(\n  (0): Linear(in_features=1, out_features=1, bias=True)\n)')


def test_ParameterDict_more(lib):
    # the second half of upstream's test_ParameterDict: pop, reversed, copy, popitem,
    # setdefault, |, |=, get, clear, fromkeys, tensors and other objects
    P = lambda: lib.nn.Parameter(lib.randn(2, 2))  # noqa: E731
    parameters = OrderedDict([('p1', P()), ('p4', P())])
    parameter_dict = lib.nn.ParameterDict(parameters)

    def check():
        assert list(parameter_dict) == list(parameters)
        assert all(parameter_dict[k] is v for k, v in parameters.items())

    assert parameter_dict.pop('p4') is parameters.pop('p4')
    check()
    assert list(reversed(parameter_dict)) == list(reversed(list(parameter_dict)))
    copy = parameter_dict.copy()
    assert all(copy[k] is parameter_dict[k] for k in parameter_dict)
    parameter_dict['p20'] = P()
    copy['p21'] = P()
    assert 'p20' in parameter_dict and 'p20' not in copy
    assert 'p21' not in parameter_dict and 'p21' in copy
    parameter_dict.pop('p20')
    p = P()
    parameter_dict['p12'] = p
    k, v = parameter_dict.popitem()
    assert k == 'p12' and v is p
    check()
    parameters['p11'] = P()
    assert parameter_dict.setdefault('p11', parameters['p11']) is parameters['p11']
    assert parameter_dict.setdefault('p11', P()) is parameters['p11']
    assert parameter_dict.setdefault('p26') is None
    del parameter_dict['p26']
    check()
    parameters2 = OrderedDict([('p13', P()), ('p1', P())])
    parameters.update(parameters2)
    parameter_dict |= lib.nn.ParameterDict(parameters2)
    check()
    parameters2 = OrderedDict([('p20', P())])
    parameters.update(parameters2)
    parameter_dict = parameter_dict | lib.nn.ParameterDict(parameters2)
    check()
    parameters2 = OrderedDict([('p23', P())])
    parameter_dict = lib.nn.ParameterDict(parameters2) | parameter_dict
    parameters2.update(parameters)
    parameters = parameters2
    check()
    temp_param = P()
    assert parameter_dict.get('p13') is parameters['p13']
    assert parameter_dict.get('p13', temp_param) is parameters['p13']
    assert parameter_dict.get('p18') is None and parameter_dict.get('p18', temp_param) is \
        temp_param
    parameter_dict.clear()
    parameters.clear()
    check()
    d2 = parameter_dict.fromkeys(['p19', 'p20'], temp_param)
    assert list(d2) == ['p19', 'p20'] and d2['p19'] is temp_param
    parameter_dict['p21'] = lib.rand(2, 2)
    assert isinstance(parameter_dict['p21'], lib.nn.Parameter)
    parameter_dict.update({'p22': lib.rand(2, 2), 'foo': 'bar'})
    assert isinstance(parameter_dict['p22'], lib.nn.Parameter)
    assert parameter_dict['foo'] == 'bar'


@pytest.mark.parametrize('fn', ['add_module', 'register_module'])
def test_add_module(lib, fn):
    l = lib.nn.Linear(10, 20)
    net = lib.nn.Module()
    net.l = l
    net.l2 = l
    getattr(net, fn)('empty', None)
    assert net.l is l and net.l2 is l and net.empty is None
    getattr(net, fn)('l3', l)
    assert net.l3 is l
    l3 = lib.nn.Linear(20, 10)
    getattr(net, fn)('l', l3)
    assert net.l is l3
    with pytest.raises(TypeError):
        getattr(net, fn)('x', 'non-module')
    with pytest.raises(TypeError, match='module name should be a string. Got int'):
        getattr(net, fn)(1, l)
    with pytest.raises(TypeError, match='module name should be a string. Got NoneType'):
        getattr(net, fn)(None, l)


def test_set_submodule(lib):
    nn = lib.nn
    A = nn.Module()
    A.set_submodule('net_b', nn.Module())
    A.set_submodule('net_b.net_c', nn.Module())
    A.set_submodule('net_b.net_c.conv', nn.Conv2d(3, 3, 3))
    A.set_submodule('net_b.linear', nn.Linear(3, 3))
    new_linear = nn.Linear(1, 1)
    A.set_submodule('net_b.net_c.conv', new_linear)
    assert A.get_submodule('net_b.net_c.conv') is new_linear
    new_linear = nn.Linear(1, 2)
    A.set_submodule('net_b.net_c.conv', new_linear, True)
    assert A.get_submodule('net_b.net_c.conv') is new_linear
    new_conv = nn.Conv2d(1, 1, 1)
    with pytest.raises(AttributeError):
        A.set_submodule('net_b.conv', new_conv, True)
    A.set_submodule('net_b.conv', new_conv)
    assert A.get_submodule('net_b.conv') is new_conv
    net = nn.Module()
    net.t = nn.Module()
    l = nn.Linear(1, 2)
    net.t.l = l
    assert net.get_submodule('t.l') is l
    l2 = nn.Linear(2, 1)
    net.set_submodule('t.l', l2)
    assert net.get_submodule('t.l') is l2
    with pytest.raises(ValueError):
        net.set_submodule('', l)
    with pytest.raises(AttributeError):
        net.set_submodule('a.l', l)
    with pytest.raises(AttributeError):
        net.set_submodule('0', l, True)
    net.set_submodule('0', l, False)
    assert net.get_submodule('0') is l
    l3 = nn.Linear(1, 1)
    net.set_submodule('0', l3, True)
    assert net.get_submodule('0') is l3
    net.foo = 'bar'
    with pytest.raises(AttributeError):
        net.set_submodule('foo', l)
    with pytest.raises(ValueError):
        net.set_submodule('t.l', 'bazz')


def test_module_apply_inplace_op(lib):
    def add_one_inplace(t):
        return t.add_(1.0)

    # an in-place fn bumps the parameters' version counters
    m = lib.nn.Linear(20, 10)
    pvm = m.weight.mul(m.weight)
    saved = m.weight._version
    m = m._apply(add_one_inplace)
    assert m.weight._version > saved
    with pytest.raises(RuntimeError, match='modified by an inplace operation'):
        pvm.backward(lib.randn(10, 20))
    # and the gradients'
    m = lib.nn.Linear(20, 10)
    m.weight.grad = lib.randn(10, 20).requires_grad_()
    pgm = m.weight.grad.mul(m.weight.grad)
    saved = m.weight.grad._version
    m = m._apply(add_one_inplace)
    assert m.weight.grad._version > saved
    with pytest.raises(RuntimeError, match='modified by an inplace operation'):
        pgm.backward(lib.randn(10, 20))


def test_conversion_keeps_parameter_objects_not_views(lib):
    # upstream's test_overwrite_module_params_on_conversion, default setting: after
    # double(), a view taken before still sees float memory while its base is double
    m = lib.nn.Linear(20, 10).float()
    weight = m.weight
    mw = m.weight[:]
    m.double()
    assert m.weight is weight
    with lib.no_grad():
        mw[0][0] = 5
    assert mw[0][0].dtype == lib.float and mw._base[0][0].dtype == lib.double


def test_conversion_keeps_gradient_objects(lib):
    # by default _apply replaces a gradient's data, as it does a parameter's: references to
    # the .grad tensor see the new dtype
    m = lib.nn.Linear(2, 2)
    m(lib.randn(1, 2)).sum().backward()
    grad = m.weight.grad
    m.double()
    assert m.weight.grad is grad and grad.dtype == lib.float64
    m.half()
    assert m.weight.grad is grad and grad.dtype == lib.float16


def test_non_leaf_parameters(lib):
    l1, l2 = lib.nn.Linear(10, 10), lib.nn.Linear(10, 10)
    with pytest.raises(TypeError):
        l2.weight = l1.weight + 2
    l2.weight = lib.nn.Parameter(lib.randn(10, 10))  # this works


def _param_containers(lib):
    return [lib.nn.ParameterList(map(lib.nn.Parameter, [lib.rand(2), lib.rand(2)])),
            lib.nn.ParameterDict({'a': lib.nn.Parameter(lib.rand(2)),
                                  'b': lib.nn.Parameter(lib.rand(2))})]


def test_parameterlistdict_setting_attributes(lib):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for mod in _param_containers(lib):
            mod.train()
            mod.eval()


def test_parameterlistdict_pickle(lib):
    import pickle
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for m in _param_containers(lib):
            m2 = pickle.loads(pickle.dumps(m))
            assert [n for n, _ in m2.named_parameters()] == [n for n, _ in
                                                              m.named_parameters()]
        # a checkpoint of an older version, without some hook tables, loads too
        for m in _param_containers(lib):
            del m._forward_pre_hooks, m._state_dict_hooks, m._load_state_dict_pre_hooks, \
                m._non_persistent_buffers_set
            m = pickle.loads(pickle.dumps(m))
            m.state_dict()
            m.load_state_dict(m.state_dict())


# -- the rest of TestNN's Module / parameter tests --------------------------------------------

def xfail_on_ember(request, reason):
    """Marks the running test a strict expected failure when its ``lib`` is ember."""
    if request.node.callspec.params.get('lib') == 'ember':
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=reason))


def test_share_memory(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.p = lib.nn.Parameter(lib.eye(5))
            self.par = lib.nn.ParameterList()
            self.par.append(lib.nn.Parameter(lib.randn(10)))

        def forward(self, inp):
            return inp.clone()

    net = Net()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)  # TypedStorage is deprecated
        assert not any(p.storage().is_shared() for p in net.parameters())
        assert not any(b.storage().is_shared() for b in net.buffers())
        assert net.share_memory() is net
        assert all(p.storage().is_shared() for p in net.parameters())
        assert all(b.storage().is_shared() for b in net.buffers())
        assert all(p.untyped_storage().is_shared() for p in net.parameters())


def test_register_buffer_raises_error_if_not_tensor(lib):
    m = lib.nn.Module()
    with pytest.raises(TypeError):
        m.register_buffer('attribute_name', 5)


def test_register_parameter_allows_overwriting_with_same_name(lib):
    m = lib.nn.Module()
    param1 = lib.nn.Parameter(lib.rand(5))
    param2 = lib.nn.Parameter(param1.data + 5)
    m.register_parameter('param_name', param1)
    assert m.param_name is param1
    m.register_parameter('param_name', param2)
    assert m.param_name is param2
    m.register_parameter('param_name', None)
    assert m.param_name is None


@pytest.mark.xfail(strict=True, reason="upstream marks it expectedFailure: an AttributeError "
                   "raised inside a property makes Module.__getattr__ report the property's "
                   "name ('some_property'), in torch as in ember")
def test_getattr_with_property(lib):
    class Model(lib.nn.Module):
        @property
        def some_property(self):
            return self.something_that_doesnt_exist

    with pytest.raises(AttributeError,
                       match=r"'Model' object has no attribute 'something_that_doesnt_exist'"):
        Model().some_property


def test_ParameterList_meta(lib, request):
    p = lib.nn.Parameter(lib.empty(1, device='meta'))
    assert str(p) == ("Parameter containing:\n"
                      "tensor(..., device='meta', size=(1,), requires_grad=True)")
    pl = lib.nn.ParameterList([p])
    assert str(pl) == "ParameterList(  (0): Parameter containing: [torch.float32 of size 1])"


def test_overwrite_module_params_on_conversion(lib):
    # a conversion that changes the layout always replaces the parameters
    m = lib.nn.Linear(20, 10)
    m.weight.grad = lib.randn(10, 20)
    weight_ref, weight_grad_ref = m.weight, m.weight.grad
    m = m._apply(lambda t: lib.sparse_coo_tensor(lib.zeros([2, 1]), lib.ones([1]),
                                                 lib.Size([10, 20])))
    assert weight_ref.layout != m.weight.layout
    assert weight_grad_ref.layout != m.weight.grad.layout
    _check_overwrite_module_params(lib)


def _check_overwrite_module_params(lib):
    future = lib.__future__
    # by default, a view taken before double() keeps the float memory
    m = lib.nn.Linear(20, 10).float()
    mw = m.weight[:]
    m.double()
    with lib.no_grad():
        mw[0][0] = 5
    assert mw[0][0].dtype == lib.float and mw._base[0][0].dtype == lib.double
    try:
        future.set_overwrite_module_params_on_conversion(True)
        # the view still shares memory with its (old) base
        m = lib.nn.Linear(20, 10).float()
        mw = m.weight[:]
        m.double()
        with lib.no_grad():
            mw[0][0] = 5
        assert mw[0][0] == mw._base[0][0]
        # double() makes new parameters and gradients
        m = lib.nn.Linear(20, 10).float()
        m.weight.grad = lib.randn(10, 20).float()
        weight_ref, weight_grad_ref = m.weight, m.weight.grad
        m.double()
        assert weight_ref.dtype != m.weight.dtype
        assert weight_grad_ref.dtype != m.weight.grad.dtype

        def add_one_inplace(t):
            return t.add_(1.0)

        # an in-place conversion bumps the original parameter's (and gradient's) version
        m = lib.nn.Linear(20, 10)
        pvm = m.weight.mul(m.weight)
        weight_ref = m.weight
        version = weight_ref._version
        m = m._apply(add_one_inplace)
        assert weight_ref._version > version
        with pytest.raises(RuntimeError, match='modified by an inplace operation'):
            pvm.backward(lib.randn(10, 20))
        m = lib.nn.Linear(20, 10)
        m.weight.grad = lib.randn(10, 20).requires_grad_()
        pgm = m.weight.grad.mul(m.weight.grad)
        weight_grad_ref = m.weight.grad
        version = weight_grad_ref._version
        m = m._apply(add_one_inplace)
        assert weight_grad_ref._version > version
        with pytest.raises(RuntimeError, match='modified by an inplace operation'):
            pgm.backward(lib.randn(10, 20))
        # an out-of-place conversion leaves the originals' versions alone
        m = lib.nn.Linear(20, 10)
        weight_ref = m.weight
        version = weight_ref._version
        m = m._apply(lambda t: lib.randn(t.shape))
        assert weight_ref._version == version
        m = lib.nn.Linear(20, 10)
        m.weight.grad = lib.randn(10, 20).requires_grad_()
        weight_grad_ref = m.weight.grad
        version = weight_grad_ref._version
        m = m._apply(lambda t: lib.randn(t.shape))
        assert weight_grad_ref._version == version
    finally:
        future.set_overwrite_module_params_on_conversion(False)


def test_swap_module_params_poisons_acc_grad(lib):
    future = lib.__future__
    try:
        future.set_swap_module_params_on_conversion(True)
        # backward cannot run after _apply swapped the parameters a graph saved
        m = lib.nn.Linear(2, 3)
        inp = lib.randn(2, 2)
        out = m(inp)
        m.half()
        assert all(p.dtype == lib.float16 for p in m.parameters())
        with pytest.raises(RuntimeError, match='Trying to execute AccumulateGrad node that was '
                                               'poisoned by swap_tensors'):
            out.sum().backward()
        # _apply can run after backward freed the saved tensors
        out2 = m(lib.randn(2, 2, dtype=lib.half))
        out2.sum().backward()
        m.float()
        assert all(p.dtype == lib.float32 for p in m.parameters())
        m(inp)
    finally:
        future.set_swap_module_params_on_conversion(False)


def test_parameters_to_vector(lib):
    model = lib.nn.Sequential(lib.nn.Conv2d(3, 10, 5), lib.nn.Linear(10, 20))
    vec = lib.nn.utils.parameters_to_vector(model.parameters())
    assert vec.size(0) == 980


def test_vector_to_parameters(lib):
    model = lib.nn.Sequential(lib.nn.Conv2d(3, 10, 5), lib.nn.Linear(10, 20))
    vec = lib.arange(0., 980)
    lib.nn.utils.vector_to_parameters(vec, model.parameters())
    sample = next(model.parameters())[0, 0, 0]
    assert lib.equal(sample.data, vec.data[:5])


# -- nn.utils.weight_norm / spectral_norm (the hook-based parameter reparametrisations) -------

_TOLERANCES = {'float32': (1.3e-6, 1e-5), 'float64': (1e-7, 1e-7), 'float16': (1e-3, 1e-5),
               'bfloat16': (1.6e-2, 1e-5)}


def close(lib, a, b):
    """``assertEqual``'s default closeness for floating tensors: rtol/atol by dtype."""
    rtol, atol = _TOLERANCES[str(a.dtype).rpartition('.')[2]]
    return a.shape == b.shape and lib.allclose(a, b, rtol=rtol, atol=atol)

@pytest.fixture
def no_deprecation():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)  # weight_norm's deprecation
        yield


def test_weight_norm_warns_deprecated(lib):
    with pytest.warns(FutureWarning, match=r'`torch.nn.utils.weight_norm` is deprecated in '
                                           r'favor of `torch.nn.utils.parametrizations'):
        lib.nn.utils.weight_norm(lib.nn.Linear(4, 5))


def test_rnn_weight_norm(lib, no_deprecation):
    def check_weight_norm(l, name, num_params):
        # weight-normalising one of the flat weights turns it into a plain tensor
        l = lib.nn.utils.weight_norm(l, name=name)
        assert sum(isinstance(p, lib.nn.Parameter) for p in l._flat_weights) == num_params - 1
        # removing it restores the Parameter, and drops the _v and _g parameters
        l = lib.nn.utils.remove_weight_norm(l, name=name)
        assert sum(isinstance(p, lib.nn.Parameter) for p in l._flat_weights) == num_params
        assert l._parameters.get(name) is not None
        assert name + '_v' not in l._parameters and name + '_g' not in l._parameters
        named = dict(l.named_parameters())
        assert named.get(name) is not None
        assert name + '_v' not in named and name + '_g' not in named

    check_weight_norm(lib.nn.LSTM(32, 32), 'weight_ih_l0', 4)
    check_weight_norm(lib.nn.LSTM(32, 32, proj_size=16), 'weight_hr_l0', 5)


@pytest.mark.parametrize('dtype,atol', [('float', 1e-5), ('bfloat16', 1e-1), ('float16', 1e-2)])
def test_weight_norm(lib, no_deprecation, dtype, atol):
    dtype = getattr(lib, dtype)
    input = lib.randn(3, 4, dtype=dtype)
    m = lib.nn.Linear(4, 5).to(dtype=dtype)
    expected_output = m(input)

    m = lib.nn.utils.weight_norm(m)
    assert m.weight_v.size() == m.weight.size() and m.weight_g.size() == (5, 1)
    assert lib.allclose(m(input), expected_output, atol=atol, rtol=0)

    m = lib.nn.utils.remove_weight_norm(m)
    assert not hasattr(m, 'weight_g') and not hasattr(m, 'weight_v')
    assert lib.allclose(m(input), expected_output, atol=atol, rtol=0)

    m = lib.nn.utils.weight_norm(m, dim=1)
    assert m.weight_v.size() == m.weight.size() and m.weight_g.size() == (1, 4)
    assert lib.allclose(m(input), expected_output, atol=atol, rtol=0)

    m = lib.nn.Linear(4, 5).to(dtype=dtype)
    expected_output = m(input)
    m = lib.nn.utils.weight_norm(m, dim=None)
    assert lib.allclose(m(input), expected_output, atol=atol, rtol=0)

    with pytest.raises(RuntimeError, match='register two weight_norm hooks'):
        m = lib.nn.utils.weight_norm(m)
        m = lib.nn.utils.weight_norm(m)

    # a float16 module can be weight-normalised (before it is moved to an accelerator)
    lib.nn.utils.weight_norm(lib.nn.Linear(4, 5, dtype=lib.float16))


def test_weight_norm_pickle(lib, no_deprecation):
    m = lib.nn.utils.weight_norm(lib.nn.Linear(5, 7))
    m = pickle.loads(pickle.dumps(m))
    assert isinstance(m, lib.nn.Linear)


def test_remove_weight_norm_not_found(lib):
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in Linear"):
        lib.nn.utils.remove_weight_norm(lib.nn.Linear(2, 2))


def test_spectral_norm(lib):
    old = lib.get_default_dtype()
    lib.set_default_dtype(lib.double)
    try:
        _check_spectral_norm(lib)
    finally:
        lib.set_default_dtype(old)


def _check_spectral_norm(lib):
    m = lib.nn.utils.spectral_norm(lib.nn.Linear(5, 7))
    assert m.weight_u.size() == lib.Size([m.weight.size(0)])
    # weight_orig is the trainable parameter, weight_u and weight_v are buffers, and weight
    # is a plain attribute over weight_orig's memory
    assert hasattr(m, 'weight_orig') and 'weight_orig' in m._parameters
    assert hasattr(m, 'weight_u') and 'weight_u' in m._buffers and 'weight_v' in m._buffers
    assert 'weight' not in m._buffers and 'weight' not in m._parameters
    assert m.weight_orig.data_ptr() == m.weight.data_ptr()
    assert m.weight_orig.size() == m.weight.size()
    assert m.weight_orig.stride() == m.weight.stride()

    m = lib.nn.utils.remove_spectral_norm(m)
    assert not hasattr(m, 'weight_orig') and not hasattr(m, 'weight_u')
    assert hasattr(m, 'weight') and 'weight' in m._parameters

    with pytest.raises(RuntimeError, match='register two spectral_norm hooks'):
        m = lib.nn.utils.spectral_norm(m)
        m = lib.nn.utils.spectral_norm(m)

    # training and eval behaviour (upstream also wraps the module in DataParallel on two
    # GPUs; only the CPU case is adaptable)
    for requires_grad in (True, False):
        m = lib.nn.Linear(3, 4)
        m.weight.requires_grad_(requires_grad)
        m = lib.nn.utils.spectral_norm(m)
        u0, v0 = m.weight_u.clone(), m.weight_v.clone()

        # a training call advances u and v
        input = lib.randn(2, 3)
        out = m(input)
        assert not lib.equal(u0, m.weight_u) and not lib.equal(v0, m.weight_v)
        # backprop reaches weight_orig
        if requires_grad:
            lib.autograd.grad(out.sum(), m.weight_orig)

        # backward through several calls (u and v reset to the same start for gradcheck)
        saved_u, saved_v = m.weight_u.clone(), m.weight_v.clone()

        def fn(input):
            m.weight_u.data.copy_(saved_u)
            m.weight_v.data.copy_(saved_v)
            return m(input) + m(input)

        assert lib.autograd.gradcheck(fn, (input.clone().requires_grad_(),),
                                      check_batched_grad=False)

        # removing keeps the last function
        pre_remove_out = m(input)
        m = lib.nn.utils.remove_spectral_norm(m)
        assert close(lib, m(input), pre_remove_out)
        m = lib.nn.utils.spectral_norm(m)
        for _ in range(3):
            pre_remove_out = m(input)
        m = lib.nn.utils.remove_spectral_norm(m)
        assert close(lib, m(input), pre_remove_out)

        # eval calls repeat the last training call and leave u and v alone
        m = lib.nn.utils.spectral_norm(m)
        m(input)
        last_train_out = m(input)
        last_train_u, last_train_v = m.weight_u.clone(), m.weight_v.clone()
        m.zero_grad()
        m.eval()
        eval_out0 = m(input)
        assert close(lib, eval_out0, last_train_out)
        assert close(lib, eval_out0, m(input))
        assert lib.equal(last_train_u, m.weight_u) and lib.equal(last_train_v, m.weight_v)

        # backward through calls in mixed training and eval modes
        saved_u, saved_v = m.weight_u.clone(), m.weight_v.clone()

        def fn(input):
            m.weight_u.data.copy_(saved_u)
            m.weight_v.data.copy_(saved_v)
            m.train()
            out0 = m(input)
            m.eval()
            out1 = m(input)
            m.train()
            out2 = m(input)
            m.eval()
            out3 = m(input)
            return out0 + out1 + out2 + out3

        assert lib.autograd.gradcheck(fn, (input.clone().requires_grad_(),))
        # backprop reaches weight_orig in eval mode
        if requires_grad:
            assert lib.autograd.gradcheck(lambda weight: m(input), (m.weight_orig,))


def test_spectral_norm_load_state_dict(lib):
    inp = lib.randn(2, 3)
    for activate_times in (0, 3):
        # version None -> 1: weight stopped being a buffer and the v vector became one
        m = lib.nn.Linear(3, 5)
        snm = lib.nn.utils.spectral_norm(m)
        snm.train()
        for _ in range(activate_times):
            snm(inp)

        version_latest_ref_state_dict = deepcopy(snm.state_dict())
        assert set(version_latest_ref_state_dict.keys()) == \
            {'weight_orig', 'bias', 'weight_u', 'weight_v'}

        # non-strict loading
        non_strict_state_dict = deepcopy(version_latest_ref_state_dict)
        non_strict_state_dict['nonsense'] = 'nonsense'
        with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "nonsense"'):
            snm.load_state_dict(non_strict_state_dict, strict=True)
        snm.load_state_dict(non_strict_state_dict, strict=False)
        for key in ('weight_orig', 'weight_u', 'weight_v'):
            del non_strict_state_dict[key]
            snm.load_state_dict(non_strict_state_dict, strict=False)
        non_strict_state_dict['weight'] = snm.weight.detach().clone()  # W as a buffer
        snm.load_state_dict(non_strict_state_dict, strict=False)
        del non_strict_state_dict._metadata['']['spectral_norm']       # no metadata
        snm.load_state_dict(non_strict_state_dict, strict=False)
        del non_strict_state_dict['weight']                            # no W buffer
        snm.load_state_dict(non_strict_state_dict, strict=False)
        del non_strict_state_dict['bias']
        snm.load_state_dict(non_strict_state_dict, strict=False)

        # a version None state_dict, crafted
        version_none_state_dict = deepcopy(version_latest_ref_state_dict)
        assert 'spectral_norm' in version_none_state_dict._metadata['']
        del version_none_state_dict._metadata['']['spectral_norm']
        del version_none_state_dict['weight_v']
        version_none_state_dict['weight'] = snm.weight.detach().clone()

        for version_latest_with_metadata in (True, False):
            version_latest_state_dict = deepcopy(version_latest_ref_state_dict)
            if not version_latest_with_metadata:
                # a user-crafted state_dict without the metadata still loads
                del version_latest_state_dict._metadata['']['spectral_norm']

            # re-wrapping does not matter
            m = lib.nn.utils.remove_spectral_norm(snm)
            snm = lib.nn.utils.spectral_norm(m)
            snm.load_state_dict(version_latest_ref_state_dict)
            with lib.no_grad():
                snm.eval()
                out0_eval = snm(inp)
                snm.train()
                out1_train = snm(inp)
                out2_train = snm(inp)
                snm.eval()
                out3_eval = snm(inp)

            m = lib.nn.utils.remove_spectral_norm(snm)
            snm = lib.nn.utils.spectral_norm(m)
            snm.load_state_dict(version_none_state_dict)
            if activate_times > 0:
                # a version None state_dict is assumed to have seen at least one forward
                with lib.no_grad():
                    snm.eval()
                    assert close(lib, out0_eval, snm(inp))
                    snm.train()
                    assert close(lib, out1_train, snm(inp))
                    assert close(lib, out2_train, snm(inp))
                    snm.eval()
                    assert close(lib, out3_eval, snm(inp))

            m = lib.nn.utils.remove_spectral_norm(snm)
            snm = lib.nn.utils.spectral_norm(m)
            snm.load_state_dict(version_latest_state_dict)
            with lib.no_grad():
                snm.eval()
                assert close(lib, out0_eval, snm(inp))
                snm.train()
                assert close(lib, out1_train, snm(inp))
                assert close(lib, out2_train, snm(inp))
                snm.eval()
                assert close(lib, out3_eval, snm(inp))


def test_spectral_norm_dim(lib):
    inp = lib.randn(2, 3, 10, 12)
    m = lib.nn.utils.spectral_norm(lib.nn.ConvTranspose2d(3, 4, (5, 6)))
    m(inp)  # no shape error: u runs along the output channels (dim 1)
    assert m.weight_u.shape == m.weight_orig[0, :, 0, 0].shape


def test_spectral_norm_forward(lib):
    input = lib.randn(3, 5)
    m = lib.nn.utils.spectral_norm(lib.nn.Linear(5, 7))
    F = lib.nn.functional
    # naive forward
    _weight, _bias, _u = m.weight_orig, m.bias, m.weight_u
    _weight_mat = _weight.view(_weight.size(0), -1)
    _v = F.normalize(lib.mv(_weight_mat.t(), _u), dim=0, eps=1e-12)
    _u = F.normalize(lib.mv(_weight_mat, _v), dim=0, eps=1e-12)
    _weight.data /= lib.dot(_u, lib.matmul(_weight_mat, _v))
    out_hat = F.linear(input, _weight, _bias)
    expect_out = m(input)
    assert close(lib, expect_out, out_hat)


def test_spectral_norm_pickle(lib):
    m = lib.nn.utils.spectral_norm(lib.nn.Linear(5, 7))
    m = pickle.loads(pickle.dumps(m))
    assert isinstance(m, lib.nn.Linear)


def test_spectral_norm_errors(lib):
    with pytest.raises(ValueError, match='Expected n_power_iterations to be positive, but got '
                                         'n_power_iterations=0'):
        lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in Linear"):
        lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 2))


# -- the module-level tests near the end of TestNN -------------------------------------------

def test_batchnorm_buffer_update_when_stats_are_not_tracked(lib):
    # buffers that exist but track_running_stats is turned off: used, never updated
    bn = lib.nn.BatchNorm1d(4, track_running_stats=True)
    bn.track_running_stats = False
    num_batches = bn.num_batches_tracked.clone()
    running_mean, running_var = bn.running_mean.clone(), bn.running_var.clone()
    bn(lib.rand(32, 4))
    assert lib.equal(num_batches, bn.num_batches_tracked)
    assert lib.equal(running_mean, bn.running_mean)
    assert lib.equal(running_var, bn.running_var)


def test_batchnorm_load_state_dict(lib, request):
    bn = lib.nn.BatchNorm2d(3)
    assert lib.equal(bn.state_dict()['num_batches_tracked'], lib.tensor(0))
    bn.num_batches_tracked = lib.tensor(10)
    assert lib.equal(bn.state_dict()['num_batches_tracked'], lib.tensor(10))
    empty_dict = OrderedDict()
    bn.load_state_dict(empty_dict, strict=False)
    assert lib.equal(bn.state_dict()['num_batches_tracked'], lib.tensor(10))
    # a meta num_batches_tracked missing from the loaded dict becomes a real 0
    with lib.device('meta'):
        meta_bn = lib.nn.BatchNorm2d(3)
    assert meta_bn.num_batches_tracked.device == lib.device('meta')
    meta_bn.load_state_dict(empty_dict, assign=True, strict=False)
    assert lib.equal(meta_bn.state_dict()['num_batches_tracked'], lib.tensor(0))


def test_pickle_module_no_weights_only_warning(lib):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        pickle.loads(pickle.dumps(lib.nn.Linear(10, 10)))
    assert len(w) == 0
