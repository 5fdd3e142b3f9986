"""After PyTorch's test/nn/test_lazy_modules.py: lazy modules (LazyLinear, LazyConv*d),
UninitializedParameter/UninitializedBuffer and LazyModuleMixin. Every test body is written
once and run on ember and on real torch (``lib``). Left out: the CUDA, TorchScript and
LazyBatchNorm/LazyInstanceNorm/3-d convolution tests (ember has no such layers)."""
import copy
import pickle

import pytest

import ember
from ..oracle.oracle import torch

UNINIT = 'Attempted to use an uninitialized parameter in'


@pytest.fixture(params=['ember', 'torch'])
def lib(request):
    return ember if request.param == 'ember' else torch


def lazy_module(lib):
    class LazyModule(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
        pass
    return LazyModule()


def test_lazy_module_parameter(lib):
    module = lazy_module(lib)
    module.register_parameter('test_param', lib.nn.parameter.UninitializedParameter())
    assert module.has_uninitialized_params()
    state_dict = module.state_dict()
    assert isinstance(state_dict['test_param'], lib.nn.parameter.UninitializedParameter)
    new_module = lazy_module(lib)
    # an initialized parameter cannot take an uninitialized one's state
    new_module.register_parameter('test_param', lib.nn.Parameter(lib.ones(5, 5)))
    with pytest.raises(RuntimeError, match='shape of an uninitialized'):
        new_module.load_state_dict(state_dict)
    # the other way round materializes it
    new_module = lazy_module(lib)
    new_module.register_parameter('test_param', lib.nn.Parameter(lib.ones(5, 5)))
    module.load_state_dict(new_module.state_dict())
    assert lib.equal(module.test_param, lib.ones(5, 5))
    # two uninitialized ones: nothing happens
    module = lazy_module(lib)
    module.register_parameter('test_param', lib.nn.parameter.UninitializedParameter())
    assert module.has_uninitialized_params()
    new_module = lazy_module(lib)
    new_module.register_parameter('test_param', lib.nn.parameter.UninitializedParameter())
    module.load_state_dict(new_module.state_dict())
    assert module.has_uninitialized_params()


def test_lazy_module_buffer(lib):
    module = lazy_module(lib)
    module.test_buffer = lib.nn.parameter.UninitializedBuffer()
    assert 'test_buffer' in module._buffers and module.has_uninitialized_params()
    state_dict = module.state_dict()
    assert isinstance(state_dict['test_buffer'], lib.nn.parameter.UninitializedBuffer)
    new_module = lazy_module(lib)
    new_module.test_buffer = lib.nn.Buffer(lib.ones(5, 5))
    module.load_state_dict(new_module.state_dict())
    assert lib.equal(module.test_buffer, lib.ones(5, 5))
    assert type(module.test_buffer) is lib.Tensor


# (upstream calls module.share_memory(), which ember's Module does not have yet)
def test_lazy_share_memory_param(lib):
    module = lazy_module(lib)
    module.register_parameter('test_param', lib.nn.parameter.UninitializedParameter())
    with pytest.raises(RuntimeError, match='share memory on an uninitialized'):
        module.test_param.share_memory_()


def test_uninitialized_parameter(lib):
    p = lib.nn.parameter.UninitializedParameter()
    assert repr(p) == '<UninitializedParameter>'
    assert p.requires_grad and p.dtype == lib.float32
    assert lib.nn.parameter.is_lazy(p) and not lib.nn.parameter.is_lazy(lib.ones(1))
    for fn in [lambda: p + 1, lambda: p.sum(), lambda: p.numel(), lambda: p.dim()]:
        with pytest.raises(ValueError, match=UNINIT):
            fn()
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        p.shape
    assert p.size() == (0,)  # size() is allowed: the placeholder is empty
    p.materialize((2, 3), dtype=lib.float64)
    assert type(p) is lib.nn.Parameter and p.shape == (2, 3) and p.dtype == lib.float64
    assert p.requires_grad


def test_uninitialized_parameter_copies_and_pickles(lib):
    p = lib.nn.parameter.UninitializedParameter(requires_grad=False)
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is type(p) and q is not p and not q.requires_grad


def test_linear(lib):
    module = lib.nn.LazyLinear(10)
    assert isinstance(module.weight, lib.nn.parameter.UninitializedParameter)
    assert isinstance(module.bias, lib.nn.parameter.UninitializedParameter)
    assert module.in_features == 0
    input = lib.ones(5, 5)
    module(input)
    assert type(module) is lib.nn.Linear and not isinstance(
        module, lib.nn.modules.lazy.LazyModuleMixin)
    assert module.weight.shape == (10, 5) and module.bias.shape == (10,)
    assert module.in_features == 5
    y = lib.addmm(module.bias, input, module.weight.t())
    assert lib.allclose(module(input), y)


def test_lazy_linear_pickle(lib):
    module = lib.nn.LazyLinear(10)
    module = pickle.loads(pickle.dumps(module))
    assert isinstance(module, lib.nn.LazyLinear)
    assert isinstance(module.weight, lib.nn.parameter.UninitializedParameter)
    module(lib.ones(5, 5))
    module = pickle.loads(pickle.dumps(module))
    assert type(module) is lib.nn.Linear and module.weight.shape == (10, 5)


def test_linear_state(lib):
    module = lib.nn.Linear(5, 10)
    lazy = lib.nn.LazyLinear(10)
    lazy.load_state_dict(module.state_dict())
    # the class stays lazy until the first forward, when the hooks go
    assert not lazy.has_uninitialized_params()
    assert lazy.weight.shape == (10, 5) and lazy.bias.shape == (10,)
    assert isinstance(lazy, lib.nn.LazyLinear)
    lazy = lib.nn.LazyLinear(10)
    with pytest.raises(RuntimeError, match='shape of an uninitialized'):
        module.load_state_dict(lazy.state_dict())


@pytest.mark.parametrize('name,cls,input_shape,weight_shape', [
    ('LazyConv1d', 'Conv1d', (2, 4, 9), (8, 4, 3)),
    ('LazyConv2d', 'Conv2d', (2, 4, 9, 9), (8, 4, 3, 3)),
    ('LazyConvTranspose1d', 'ConvTranspose1d', (2, 4, 9), (4, 8, 3)),
    ('LazyConvTranspose2d', 'ConvTranspose2d', (2, 4, 9, 9), (4, 8, 3, 3)),
    ('LazyConv2d', 'Conv2d', (4, 9, 9), (8, 4, 3, 3))],  # an unbatched input
    ids=['conv1d', 'conv2d', 'convT1d', 'convT2d', 'conv2d_unbatched'])
def test_lazy_conv(lib, name, cls, input_shape, weight_shape):
    lib.manual_seed(0)
    module = getattr(lib.nn, name)(8, 3)
    assert isinstance(module.weight, lib.nn.parameter.UninitializedParameter)
    assert module.in_channels == 0
    input = lib.ones(*input_shape)
    out = module(input)
    assert type(module) is getattr(lib.nn, cls)
    assert module.weight.shape == weight_shape and module.bias.shape == (8,)
    assert module.in_channels == 4
    lib.manual_seed(0)
    eager = getattr(lib.nn, cls)(4, 8, 3)
    assert lib.allclose(out, eager(input))  # the same seeded initialization


@pytest.mark.parametrize('name,ctor_kwargs', [
    ('LazyConv2d', {'stride': 2, 'padding': 1, 'groups': 2, 'bias': False}),
    ('LazyConvTranspose2d', {'stride': 2, 'output_padding': 1, 'groups': 2})])
def test_lazy_conv_keywords(lib, name, ctor_kwargs):
    module = getattr(lib.nn, name)(8, 3, **ctor_kwargs)
    module(lib.ones(1, 4, 7, 7))
    reference = getattr(lib.nn, name[4:])(4, 8, 3, **ctor_kwargs)
    assert repr(module) == repr(reference)
    assert module.weight.shape == reference.weight.shape


def test_lazy_conv_wrong_input(lib):
    with pytest.raises(RuntimeError, match=r'Expected 3D \(unbatched\) or 4D \(batched\) input '
                                           'to LazyConv2d, but got input of size: '):
        lib.nn.LazyConv2d(8, 3)(lib.ones(5))
    with pytest.raises(ValueError, match='in_channels must be divisible by groups'):
        lib.nn.LazyConv2d(8, 3, groups=2)(lib.ones(1, 3, 5, 5))


def test_materialize_dtype(lib):
    module = lazy_module(lib)
    module.register_parameter('test_param', lib.nn.parameter.UninitializedParameter())
    module.test_param.materialize(10)
    assert module.test_param.dtype == lib.get_default_dtype()
    module = lazy_module(lib)
    module.register_parameter('test_param', lib.nn.parameter.UninitializedParameter())
    module.half()
    module.test_param.materialize(10)
    assert module.test_param.dtype == lib.float16


def test_lazy_forward_hook(lib):
    log = []

    class TestModule(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
        def initialize_parameters(self, input):
            log.append('initialize')

        def forward(self, input):
            return input

    def hook_function(module, input, output):
        log.append('hook')
        return output + 1

    module = TestModule()
    module.register_forward_hook(hook_function)
    output = module(lib.zeros(2, 2))
    assert lib.equal(output, lib.ones(2, 2)) and log == ['initialize', 'hook']
    assert not hasattr(module, '_initialize_hook')  # the hooks removed themselves


def test_lazy_forward_pre_hook(lib):
    class TestModule(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
        def initialize_parameters(self, input):
            return None

        def forward(self, input):
            return input

    module = TestModule()
    module.register_forward_pre_hook(lambda module, input: input[0] + 1)
    assert lib.equal(module(lib.zeros(2, 2)), lib.ones(2, 2))


def test_chained_initialization(lib):
    class MyNetwork(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear_1 = lib.nn.LazyLinear(15)
            self.linear_2 = lib.nn.LazyLinear(10)

        def forward(self, x):
            return self.linear_2(self.linear_1(x))

    net = MyNetwork()
    net(lib.ones(5, 10))
    assert net.linear_1.weight.shape == (15, 10) and net.linear_2.weight.shape == (10, 15)
    assert type(net.linear_1) is lib.nn.Linear and type(net.linear_2) is lib.nn.Linear


def test_optimizer_pass(lib):
    for optim in (lib.optim.SGD, lib.optim.Adam):
        module = lib.nn.LazyLinear(10)
        module(lib.ones(5, 5))  # parameters must exist before the optimizer sees them
        opt = optim(module.parameters(), lr=0.1)
        module(lib.ones(5, 5)).sum().backward()
        opt.step()


def test_uninitialized_module_raises(lib):
    class TestModule(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.test_param = lib.nn.parameter.UninitializedParameter()

        def initialize_parameters(self, input):
            pass  # forgets to materialize

        def forward(self, input):
            return input

    with pytest.raises(RuntimeError, match='module TestModule has not been fully '
                                           'initialized'):
        TestModule()(lib.ones(1))


def test_initialize_parameters_not_implemented(lib):
    with pytest.raises(NotImplementedError, match='initialize_parameters is not implemented '
                                                  'for LazyModule'):
        lazy_module(lib)(lib.ones(1))
