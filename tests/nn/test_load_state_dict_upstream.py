"""PyTorch's test/nn/test_load_state_dict.py (TestLoadStateDict), adapted: every test body
is written once and run on ember and on real torch (``lib``), so an assertion that is wrong
about torch fails too. Upstream's ``@swap([True, False])`` is the ``swap`` fixture (each
test runs with ``torch.__future__``'s parameter swapping off and on). Every
TestLoadStateDict test is adapted, the meta-device ones (``test_load_state_dict_assign_meta``,
``test_load_state_dict_warn_assign``) included; ``test_load_state_dict_assign`` is the first
of them again with a CPU module in place of the meta one.

Not adapted: TestLoadStateDictSwap.test_swap_subclass -- its tensor subclasses need
``torch._C.DisableTorchFunctionSubclass`` (a private torch._C internal) and a
``__torch_dispatch__`` wrapper subclass (``Tensor._make_wrapper_subclass``).
test_load_state_dict_assign, test_load_state_dict_error_message_lists_everything,
_scalar_from_one_element_checkpoint and _copy_error_is_reported are ember's own additions
on the same subject."""
import gc
import re
from copy import deepcopy

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch


@pytest.fixture(params=['ember', 'torch'])
def lib(request):
    return ember if request.param == 'ember' else torch


@pytest.fixture(params=[False, True], ids=['noswap', 'swap'])
def swap(request, lib):
    """upstream's @swap([True, False]): the test runs with torch.__future__'s
    swap_module_params_on_conversion off and on (the body turns it on: ``use_swap``)."""
    yield request.param
    for mod in (ember, torch):
        mod.__future__.set_swap_module_params_on_conversion(False)


def use_swap(lib, swap):
    """Turns parameter swapping on for ``lib`` when ``swap``."""
    if swap:
        lib.__future__.set_swap_module_params_on_conversion(True)


def equal(a, b):
    return a.shape == b.shape and bool((a == b).all())


@pytest.mark.parametrize('value', [np.random.randn(2, 2), ((1.0, 1.0), (2.0, 2.0))],
                         ids=['ndarray', 'tuple'])
def test_load_state_dict_invalid(lib, value, swap):
    use_swap(lib, swap)
    m = lib.nn.Linear(2, 2, bias=False)
    with pytest.raises(RuntimeError, match='expected torch.Tensor or Tensor-like object from '
                                           'checkpoint but received'):
        m.load_state_dict({'weight': value})


@pytest.mark.parametrize('value', ['', 2])
def test_load_state_dict_type(lib, value, swap):
    use_swap(lib, swap)
    with pytest.raises(TypeError, match='Expected state_dict to be dict-like, got'):
        lib.nn.Module().load_state_dict(value)


def test_scalar_param_1d_tensor_raises(lib, swap):
    use_swap(lib, swap)

    class SimpleModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.threshold = lib.nn.Parameter(lib.tensor(0.0))

        def forward(self, x):
            return x

    m = SimpleModule()
    # a checkpoint of shape [3] for a 0-d parameter is refused
    with pytest.raises(RuntimeError, match='size mismatch for threshold'):
        m.load_state_dict({'threshold': lib.randn(3)})
    # one of shape [1] loads (backward compatibility)
    m.load_state_dict({'threshold': lib.tensor([1.0])})
    assert m.threshold.item() == 1.0


def _net(lib):
    nn = lib.nn
    l = nn.Linear(5, 5)
    block = nn.Module()
    block.conv1 = nn.Conv2d(3, 3, 3, bias=True)
    block.conv2 = nn.Conv2d(3, 3, 3, bias=False)
    net = nn.Module()
    net.linear1 = l
    net.linear2 = l
    net.bn = nn.BatchNorm2d(2)
    net.block = block
    net.add_module('empty', None)
    return net


def test_load_state_dict(lib, swap):
    use_swap(lib, swap)
    net = _net(lib)
    dtype = net.block.conv1.bias.dtype
    state_dict = net.state_dict()
    state_dict.update({'linear1.weight': lib.ones(5, 5),
                       'block.conv1.bias': lib.arange(1, 4, dtype=dtype),
                       'bn.running_mean': lib.randn(2)})
    # a DDP checkpoint ('module.' prefix) loads into the local model once the prefix is gone
    ddp_state_dict = net.state_dict()
    ddp_state_dict.update({'module.linear1.weight': lib.ones(5, 5),
                           'module.block.conv1.bias': lib.arange(1, 4, dtype=dtype),
                           'module.bn.running_mean': lib.randn(2)})
    lib.nn.modules.utils.consume_prefix_in_state_dict_if_present(ddp_state_dict, 'module.')
    for sd in [state_dict, ddp_state_dict]:
        keys = net.load_state_dict(sd)
        assert len(keys.missing_keys) == 0 and len(keys.unexpected_keys) == 0
        assert 'Incompatible' not in str(keys)
        assert equal(net.linear1.weight, sd['linear1.weight'])
        assert equal(net.block.conv1.bias, sd['block.conv1.bias'])
        assert equal(net.bn.running_mean, sd['bn.running_mean'])

    state_dict = net.state_dict()
    state_dict.update({'extra': lib.ones(5)})
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    keys = net.load_state_dict(state_dict, strict=False)
    assert keys.missing_keys == [] and keys.unexpected_keys == ['extra']
    assert 'Incompatible' in str(keys)

    state_dict = net.state_dict()
    state_dict.update({'extra.param': lib.ones(5)})
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    keys = net.load_state_dict(state_dict, strict=False)
    assert keys.missing_keys == [] and keys.unexpected_keys == ['extra.param']

    state_dict = net.state_dict()
    del state_dict['linear1.weight']
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    keys = net.load_state_dict(state_dict, strict=False)
    assert keys.missing_keys == ['linear1.weight'] and keys.unexpected_keys == []
    state_dict.update({'extra.param': lib.ones(5)})
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    keys = net.load_state_dict(state_dict, strict=False)
    assert keys.missing_keys == ['linear1.weight'] and keys.unexpected_keys == ['extra.param']

    state_dict = net.state_dict()
    state_dict.update({'bn.running_mean': lib.rand(14, 4)})  # wrong size
    with pytest.raises(RuntimeError):
        net.load_state_dict(state_dict)
    with pytest.raises(RuntimeError):  # a size mismatch is an error even when not strict
        net.load_state_dict(state_dict, strict=False)

    old_state_dict = deepcopy(net.state_dict())
    state_dict = {'linear1.weight': lib.ones(5, 5),
                  'block.conv1.bias': lib.arange(1, 4, dtype=dtype),
                  'bn.running_mean': lib.randn(2),
                  'nonexistent_key': lib.rand(3)}
    net.load_state_dict(state_dict, strict=False)
    for k in ['linear1.weight', 'block.conv1.bias', 'bn.running_mean']:
        assert equal(net.state_dict()[k], state_dict[k])
        del old_state_dict[k]
    new_state_dict = net.state_dict()
    for k, v in old_state_dict.items():
        assert v.equal(new_state_dict[k])


def test_load_state_dict_BC(lib, swap):
    use_swap(lib, swap)
    # BatchNorm's version 2 added num_batches_tracked: a checkpoint of version 1 (or of no
    # version) loads with the default 0
    bn = lib.nn.BatchNorm2d(3)
    state_dict = bn.state_dict()
    del state_dict['num_batches_tracked']
    state_dict._metadata['']['version'] = 1
    bn.load_state_dict(state_dict)
    assert bn.num_batches_tracked.dtype == lib.long and bn.num_batches_tracked.item() == 0
    del state_dict._metadata['']['version']
    bn.load_state_dict(state_dict)
    assert bn.num_batches_tracked.dtype == lib.long and bn.num_batches_tracked.item() == 0


def test_load_state_dict_child(lib, swap):
    use_swap(lib, swap)
    model = lib.nn.Linear(1, 1)
    for _ in range(3):
        model = lib.nn.Sequential(*[deepcopy(model) for _ in range(10)])
    seen = []

    def hook_fn(module, state_dict, prefix, local_metadata, strict, missing_keys,
                unexpected_keys, error_msgs):
        # a child's hook sees only the keys under its own prefix
        seen.append((len(module.state_dict()), len(state_dict)))

    model[0][0].register_load_state_dict_pre_hook(hook_fn)
    model.load_state_dict(model.state_dict(), strict=True)
    assert seen == [(20, 20)]


def test_load_state_dict_ref_cycle(lib):
    # load_state_dict creates no reference cycle involving tensors
    m = lib.nn.LSTM(16, 16, bidirectional=True)
    gc.collect()
    m.load_state_dict(deepcopy(m).state_dict())
    assert gc.collect() == 0


def _custom_state(lib):
    nn = lib.nn

    class CustomState(nn.Module):
        def __init__(self):
            super().__init__()
            self.param = nn.Parameter(lib.ones(1))
            self.sub = nn.Linear(5, 5)

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            destination[prefix + 'serialized'] = self.param.data + 1

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                                  missing_keys, unexpected_keys, error_msgs):
            # skips the error handling on purpose
            self.param.data.copy_(state_dict[prefix + 'serialized'] - 1)
    return CustomState()


def test_load_state_dict_custom(lib, swap):
    use_swap(lib, swap)
    m = lib.nn.Sequential(_custom_state(lib))  # a Sequential checks the nesting
    with lib.no_grad():
        m[0].param[0] = 10
        m[0].sub.weight[0, 0] = 555
    state_dict = m.state_dict()
    assert state_dict['0.serialized'].item() == 11
    assert '0.sub.weight' in state_dict
    assert '0.param' not in state_dict
    mm = lib.nn.Sequential(_custom_state(lib))
    assert mm[0].param[0].item() == 1
    mm.load_state_dict(state_dict)
    assert mm[0].param[0].item() == 10
    assert mm[0].sub.weight[0, 0].item() == 555


def _assign_module(lib):
    nn = lib.nn

    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 5)
            self.bn = nn.BatchNorm1d(5)
            self.x = nn.Parameter(lib.rand(5), requires_grad=False)

        def forward(self, input):
            return self.x + self.bn(self.fc1(input))
    return MyModule()


@pytest.mark.parametrize('keep_vars', [True, False])
def test_load_state_dict_assign(lib, keep_vars):
    # upstream's test_load_state_dict_assign_meta with a CPU module in place of the meta one
    net = _assign_module(lib)
    state_dict = net.state_dict(keep_vars=keep_vars)
    for v in state_dict.values():
        v.requires_grad_(False)
    other = _assign_module(lib)
    old = other.state_dict(keep_vars=True)
    other.load_state_dict(state_dict, assign=True)
    new = other.state_dict(keep_vars=True)
    for key in state_dict:
        if key in other._parameters:
            if keep_vars:
                assert state_dict[key] is new[key]  # the Parameter itself is put in place
            else:
                assert new[key] is not old[key]
            # the model's requires_grad wins over the checkpoint's
            assert new[key].requires_grad == old[key].requires_grad
            assert equal(state_dict[key], new[key])
        elif key in other._buffers and key not in other._non_persistent_buffers_set:
            assert state_dict[key] is new[key]
    assert [n for n, _ in net.named_parameters()] == [n for n, _ in other.named_parameters()]
    assert [n for n, _ in net.named_buffers()] == [n for n, _ in other.named_buffers()]
    t = lib.randn(4, 3)
    assert lib.allclose(net(t), other(t.clone()))


def test_load_state_dict_assign_with_optimizer(lib, swap):
    use_swap(lib, swap)
    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(3, 5)
            self.bn = lib.nn.BatchNorm1d(5)

        def forward(self, input):
            return self.bn(self.fc1(input))

    net = MyModule()
    opt = lib.optim.Adam(net.parameters(), lr=1000)
    x = lib.randn(4, 3)
    for _ in range(3):
        opt.zero_grad()
        net(x).sum().backward()
        opt.step()
    opt_state_dict = deepcopy(opt.state_dict())
    net_state_dict = deepcopy(net.state_dict())
    other = MyModule()
    other.load_state_dict(net_state_dict, assign=True)
    # with assign=True the optimizer must be made after loading
    opt2 = lib.optim.Adam(other.parameters(), lr=1000)
    opt2.load_state_dict(opt_state_dict)
    y = x.clone()
    for _ in range(3):
        opt.zero_grad()
        net(x).sum().backward()
        opt.step()
        opt2.zero_grad()
        other(y).sum().backward()
        opt2.step()
    for k, v in net.state_dict().items():
        assert lib.allclose(v.double(), other.state_dict()[k].double())


def test_load_state_dict_assign_shape_stride(lib, swap):
    use_swap(lib, swap)
    # an assigned tensor may differ from the model's in everything but its shape
    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(3, 5)
            self.bn = lib.nn.BatchNorm1d(5)

    state_dict = MyModule().state_dict()
    state_dict['fc1.weight'] = lib.randn(3, 5).transpose(0, 1)  # other strides: fine
    net2 = MyModule()
    net2.load_state_dict(state_dict, strict=False, assign=True)
    state_dict['fc1.weight'] = lib.randn(2, 4)
    with pytest.raises(RuntimeError, match='size mismatch for fc1.weight: copying a param '
                                           'with shape'):
        net2.load_state_dict(state_dict, strict=False, assign=True)


def test_load_state_dict_with_unexpected_key(lib, swap):
    use_swap(lib, swap)
    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(5, 10)

    m = MyModule()
    state_dict = m.state_dict()
    state_dict['fc1.bad_suffix'] = lib.randn(5, 10)
    with pytest.raises(RuntimeError, match='Unexpected key'):
        m.load_state_dict(state_dict)
    assert 'fc1.bad_suffix' in m.load_state_dict(state_dict, strict=False).unexpected_keys
    # a key whose prefix is a valid key
    state_dict = m.state_dict()
    state_dict['fc1.weight.bad_suffix'] = lib.randn(5, 10)
    with pytest.raises(RuntimeError, match='Unexpected key'):
        m.load_state_dict(state_dict)
    assert 'fc1.weight.bad_suffix' in m.load_state_dict(state_dict,
                                                        strict=False).unexpected_keys


def _meta_module(lib):
    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(3, 5)
            self.bn = lib.nn.BatchNorm1d(5)
            self.x = lib.nn.Parameter(lib.rand(5), requires_grad=False)

        def forward(self, input):
            return self.x + self.bn(self.fc1(input))
    return MyModule


@pytest.mark.parametrize('keep_vars', [True, False])
def test_load_state_dict_assign_meta(lib, keep_vars, swap, request):
    use_swap(lib, swap)
    MyModule = _meta_module(lib)
    net = MyModule()
    state_dict = net.state_dict(keep_vars=keep_vars)
    for v in state_dict.values():
        v.requires_grad_(False)
    with lib.device('meta'):
        net_meta = MyModule()
    old = net_meta.state_dict(keep_vars=True)
    net_meta.load_state_dict(state_dict, assign=True)
    new = net_meta.state_dict(keep_vars=True)
    for key in state_dict:
        if key in net_meta._parameters:
            if keep_vars and not swap:
                assert state_dict[key] is new[key]  # the Parameter itself is put in place
            elif swap:
                assert new[key] is old[key]         # swapped into the old object
            else:
                assert new[key] is not old[key]
            assert old[key].requires_grad == new[key].requires_grad
            assert equal(state_dict[key], new[key])
        elif key in net_meta._buffers and key not in net_meta._non_persistent_buffers_set:
            assert state_dict[key] is new[key] and equal(state_dict[key], new[key])
    assert [n for n, _ in net.named_parameters()] == [n for n, _ in net_meta.named_parameters()]
    assert [n for n, _ in net.named_buffers()] == [n for n, _ in net_meta.named_buffers()]
    t = lib.randn(4, 3)
    assert lib.allclose(net(t), net_meta(t.clone()))


def test_load_state_dict_warn_assign(lib, swap, request):
    use_swap(lib, swap)
    with lib.device('meta'):
        m = lib.nn.Linear(3, 5)
    state_dict = m.state_dict()
    state_dict['weight'] = lib.empty_like(state_dict['weight'], device='cpu')
    with pytest.warns(UserWarning, match='for weight: copying from a non-meta parameter in '
                                         'the checkpoint to a meta'):
        m.load_state_dict(state_dict)


def test_load_state_dict_error_message_lists_everything(lib):
    # the exact text of the strict error: missing keys first, then unexpected, then the
    # size mismatches, each on its own tab-indented line
    m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 3))
    sd = m.state_dict()
    del sd['0.bias']
    sd['1.weight'] = lib.zeros(4, 4)
    sd['2.weight'] = lib.zeros(1)
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(sd)
    assert str(info.value) == (
        'Error(s) in loading state_dict for Sequential:\n\t'
        'Missing key(s) in state_dict: "0.bias". \n\t'
        'Unexpected key(s) in state_dict: "2.weight". \n\t'
        'size mismatch for 1.weight: copying a param with shape torch.Size([4, 4]) from '
        'checkpoint, the shape in current model is torch.Size([3, 2]).')


def test_load_state_dict_scalar_from_one_element_checkpoint(lib):
    # checkpoints of torch 0.3 stored 0-d tensors as 1-element ones: they still load
    m = lib.nn.Module()
    m.register_buffer('s', lib.tensor(1.0))
    m.load_state_dict({'s': lib.tensor([5.0])})
    assert m.s.shape == () and m.s.item() == 5.0


def test_load_state_dict_copy_error_is_reported(lib):
    # an exception while copying becomes one of the listed errors (here: writing into an
    # expanded tensor, whose elements share memory)
    m = lib.nn.Module()
    m.register_buffer('i', lib.zeros(1).expand(2))
    with pytest.raises(RuntimeError, match=re.escape(
            'While copying the parameter named "i", whose dimensions in the model are '
            'torch.Size([2]) and whose dimensions in the checkpoint are torch.Size([2]), an '
            'exception occurred :')):
        m.load_state_dict({'i': lib.ones(2)})
