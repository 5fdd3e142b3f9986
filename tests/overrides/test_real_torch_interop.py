"""Real torch and ember in one process: nothing recurses.

Both libraries' tensors define ``__torch_function__``; without care each would hand a call
with the other's tensor to the other's handler, forever. ember refuses such calls with a
TypeError naming both libraries (the class torch raises for ``torch.add(t, ndarray)``), and
converts where torch converts a NumPy array: ``ember.tensor`` / ``as_tensor`` / ``asarray``
take a torch tensor as data, as ``torch.tensor`` / ``as_tensor`` take an ndarray.
"""
import re
import sys

import numpy as np
import pytest
import torch

import ember

MIX = ("must be ember.Tensor, not torch.Tensor: ember and torch tensors do not mix. Convert "
       "it with ember.as_tensor(x) (shares its memory) or ember.tensor(x) (a copy)")
REVERSE = ("is an ember.Tensor, not a torch.Tensor: torch and ember tensors do not mix. "
           "Convert it with torch.from_numpy(x.numpy())")


@pytest.fixture(autouse=True)
def shallow_stack():
    # A recursion would show in a few hundred frames; fail fast rather than at 1000.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(300, len(_frames()) + 200))
    yield
    sys.setrecursionlimit(limit)


def _frames():
    frame, out = sys._getframe(), []
    while frame is not None:
        out.append(frame)
        frame = frame.f_back
    return out


def test_torch_refuses_a_numpy_array_with_a_type_error_as_ember_refuses_torch():
    # The oracle for the exception class: torch's own answer to foreign array data in an op.
    with pytest.raises(TypeError, match=r"add\(\): argument 'other' \(position 2\) must be "
                                        r"Tensor, not numpy.ndarray"):
        torch.add(torch.ones(2), np.ones(2))


# -- ember ops given a torch tensor -------------------------------------------------------
@pytest.mark.parametrize('call, where', [
    (lambda e, t: ember.add(e, t), "ember.add(): argument 'other' (position 2)"),
    (lambda e, t: ember.add(e, other=t), "ember.add(): argument 'other'"),
    (lambda e, t: ember.mul(t, e), "ember.mul(): argument 'input' (position 1)"),
    (lambda e, t: e + t, "ember.Tensor.add(): argument 'other' (position 2)"),
    (lambda e, t: t + e, "ember.Tensor.add(): argument 'other' (position 2)"),
    (lambda e, t: t * e, "ember.Tensor.mul(): argument 'other' (position 2)"),
    (lambda e, t: e.matmul(t), "ember.Tensor.matmul(): argument 'other' (position 2)"),
    (lambda e, t: ember.mean(t), "ember.mean(): argument 'input' (position 1)"),
    (lambda e, t: ember.cat([e, t]), "ember.cat(): argument 'tensors' (position 1)"),
    (lambda e, t: ember.nn.functional.relu(t),
     "ember.nn.functional.relu(): argument 'input' (position 1)"),
    (lambda e, t: ember.Tensor.shape.__get__(t),
     "ember.Tensor.shape.__get__(): argument 'instance' (position 1)"),
], ids=lambda x: x if isinstance(x, str) else '')
def test_an_ember_op_given_a_torch_tensor_raises_a_type_error_naming_both(call, where):
    with pytest.raises(TypeError) as info:
        call(ember.ones(2), torch.ones(2))
    assert str(info.value) == f"{where} {MIX}"


def test_a_torch_parameter_is_refused_like_a_torch_tensor():
    p = torch.nn.Parameter(torch.ones(2))
    with pytest.raises(TypeError, match=re.escape(f"ember.sub(): argument 'other' (position 2) "
                                                  f"{MIX}")):
        ember.sub(ember.ones(2), p)


def test_an_ember_subclass_handler_may_still_take_a_call_with_a_torch_tensor():
    # The refusal comes after the other arguments' handlers, in the protocol's order.
    class Takes(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return 'taken', types

    s = ember.ones(2).as_subclass(Takes)
    assert ember.add(s, torch.ones(2)) == ('taken', (Takes, torch.Tensor))


def test_a_default_subclass_gives_the_call_back_and_it_is_refused():
    class Plain(ember.Tensor):
        pass

    with pytest.raises(TypeError, match=re.escape(MIX)):
        ember.add(ember.ones(2).as_subclass(Plain), torch.ones(2))


def test_a_mode_sees_the_call_and_its_func_call_is_refused():
    seen = []

    class Log(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(ember.overrides.resolve_name(func))
            return func(*args, **(kwargs or {}))

    e, t = ember.ones(2), torch.ones(2)
    with Log(), pytest.raises(TypeError, match=re.escape(MIX)):
        ember.add(e, t)
    assert seen == ['ember.add']


# -- torch ops given an ember tensor ------------------------------------------------------
@pytest.mark.parametrize('call, name', [
    (lambda e, t: torch.add(t, e), "torch.add(): argument (position 2)"),
    (lambda e, t: torch.add(t, other=e), "torch.add(): argument 'other'"),
    (lambda e, t: torch.cat([t, e]), "torch.cat(): argument (position 1)"),
    (lambda e, t: t.add(e), "torch.Tensor.add(): argument (position 2)"),
    (lambda e, t: torch.nn.functional.relu(e),
     "torch.nn.functional.relu(): argument (position 1)"),
], ids=lambda x: x if isinstance(x, str) else '')
def test_a_torch_op_given_an_ember_tensor_raises_a_type_error_naming_both(call, name):
    with pytest.raises(TypeError) as info:
        call(ember.ones(2), torch.ones(2))
    assert str(info.value) == f"{name} {REVERSE}"


def test_torch_tensor_of_an_ember_tensor_copies_it():
    # torch.tensor reads an ember tensor through DLPack (Tensor.__dlpack__) and copies it,
    # as it copies any array it is given; nothing recurses.
    e = ember.arange(3.0)
    t = torch.tensor(e)
    assert t.dtype == torch.float32 and t.tolist() == [0.0, 1.0, 2.0]
    t[0] = 5.0
    assert e.tolist() == [0.0, 1.0, 2.0]
    assert torch.equal(torch.from_numpy(e.numpy()), torch.arange(3.0))


# -- conversion where torch converts NumPy data -------------------------------------------
@pytest.mark.parametrize('data', [torch.arange(6.0).reshape(2, 3), torch.arange(4),
                                  torch.tensor([True, False]), torch.tensor(2.5, dtype=torch.float64),
                                  torch.ones(2, 2).t()], ids=['float', 'int', 'bool', '0-d', 'transposed'])
@pytest.mark.parametrize('factory', ['tensor', 'as_tensor', 'asarray'])
def test_ember_factories_take_a_torch_tensor_as_torch_takes_an_ndarray(factory, data):
    e = getattr(ember, factory)(data)
    t = getattr(torch, factory)(data.numpy())  # torch's answer for the same data from NumPy
    assert type(e) is ember.Tensor
    assert str(e.dtype) == str(t.dtype) and list(e.shape) == list(t.shape)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parametrize('factory, shares', [('tensor', False), ('as_tensor', True),
                                             ('asarray', True)])
def test_memory_is_shared_where_torch_shares_an_ndarray(factory, shares):
    data = torch.zeros(3)
    e = getattr(ember, factory)(data)
    arr = np.zeros(3, dtype=np.float32)
    t = getattr(torch, factory)(arr)
    data[0] = 1.0
    arr[0] = 1.0
    assert (e[0].item() == 1.0) == (t[0].item() == 1.0) == shares


def test_dtype_argument_converts_a_torch_tensor():
    e = ember.tensor(torch.arange(3), dtype=ember.float64)
    t = torch.tensor(np.arange(3), dtype=torch.float64)
    assert str(e.dtype) == str(t.dtype) and e.tolist() == t.tolist()


def test_a_torch_tensor_that_requires_grad_is_copied_without_its_graph():
    # as torch.tensor(tensor): the values, no history (ember cannot join torch's graph).
    src = torch.ones(2, requires_grad=True) * 3
    e = ember.tensor(src)
    t = torch.tensor(src.detach().numpy())
    assert e.tolist() == t.tolist() and e.requires_grad is t.requires_grad is False
    assert ember.tensor(src, requires_grad=True).requires_grad


def test_from_numpy_refuses_a_torch_tensor_as_torch_does():
    with pytest.raises(TypeError) as t:
        torch.from_numpy(torch.ones(2))
    with pytest.raises(TypeError) as e:
        ember.from_numpy(torch.ones(2))
    assert str(e.value) == str(t.value)


def test_conversion_factories_are_listed_as_ignored_like_torch():
    for name in ('tensor', 'as_tensor', 'asarray', 'from_numpy'):
        assert (getattr(torch, name) in torch.overrides.get_ignored_functions()) is \
            (getattr(ember, name) in ember.overrides.get_ignored_functions()) is True


def test_detection_never_imports_torch():
    from ember.overrides import is_torch_tensor_type, is_torch_callable
    assert is_torch_tensor_type(torch.Tensor) and is_torch_tensor_type(torch.nn.Parameter)
    assert not is_torch_tensor_type(ember.Tensor) and not is_torch_tensor_type(np.ndarray)
    assert is_torch_callable(torch.add) and is_torch_callable(torch.Tensor.add)
    assert is_torch_callable(torch.Tensor.shape.__get__)
    assert is_torch_callable(torch.Tensor.split)  # (a method written in Python)
    assert is_torch_callable(torch.nn.functional.relu)
    assert not is_torch_callable(ember.add) and not is_torch_callable(len)
