"""The note's "Extending torch" examples, with ember imported as torch, and the
__torch_function__ rules they rely on. (ember names functions as the user reaches them in
ember -- 'ember.mul' -- where the note prints 'torch.mul'.)"""
import copy
import functools
import logging
import pickle

import pytest

import ember as torch

HANDLED_FUNCTIONS = {}


class ScalarTensor(object):
    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return "DiagonalTensor(N={}, value={})".format(self._N, self._value)

    def tensor(self):
        return self._value * torch.eye(self._N)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
            issubclass(t, (torch.Tensor, ScalarTensor))
            for t in types
        ):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def implements(torch_function):
    """Register a torch function override for ScalarTensor"""
    def decorator(func):
        functools.update_wrapper(func, torch_function)
        HANDLED_FUNCTIONS[torch_function] = func
        return func
    return decorator


@implements(torch.mean)
def mean(input):
    return float(input._value) / input._N


def ensure_tensor(data):
    if isinstance(data, ScalarTensor):
        return data.tensor()
    return torch.as_tensor(data)


@implements(torch.add)
def add(input, other):
    try:
        if input._N == other._N:
            return ScalarTensor(input._N, input._value + other._value)
        else:
            raise ValueError("Shape mismatch!")
    except AttributeError:
        return torch.add(ensure_tensor(input), ensure_tensor(other))


def test_scalar_tensor_dispatch_table():
    d = ScalarTensor(5, 2)
    assert repr(d) == 'DiagonalTensor(N=5, value=2)'
    assert repr(d.tensor()) == ('tensor([[2., 0., 0., 0., 0.],\n        [0., 2., 0., 0., 0.],\n'
                                '        [0., 0., 2., 0., 0.],\n        [0., 0., 0., 2., 0.],\n'
                                '        [0., 0., 0., 0., 2.]])')
    assert torch.mean(d) == 0.4
    s = ScalarTensor(2, 2)
    assert repr(torch.add(s, s)) == 'DiagonalTensor(N=2, value=4)'
    t = torch.tensor([[1, 1, ], [1, 1]])
    assert repr(torch.add(s, t)) == 'tensor([[3., 1.],\n        [1., 3.]])'
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        torch.add(s, s, alpha=2)
    with pytest.raises(TypeError, match=r"no implementation found for 'ember.mul' on types "
                                        r"that implement __torch_function__: \[ScalarTensor\]"):
        torch.mul(s, 3)


def test_without_torch_function_the_type_is_refused():
    class Plain:
        pass
    with pytest.raises(TypeError, match="mean"):
        torch.mean(Plain())


class ScalarTensorFallback(ScalarTensor):
    """The note's second variant: unhandled functions get the data as a Tensor."""
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
                issubclass(t, (torch.Tensor, ScalarTensor)) for t in types):
            args = [a.tensor() if hasattr(a, 'tensor') else a for a in args]
            return func(*args, **kwargs)
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def test_fallback_variant_returns_plain_tensors():
    s = ScalarTensorFallback(2, 2)
    assert repr(torch.mul(s, s)) == 'tensor([[4., 0.],\n        [0., 4.]])'


class SubTensor(torch.Tensor):
    pass


class SubTensor2(SubTensor):
    pass


class OtherSubTensor(torch.Tensor):
    pass


def test_subclass_results_are_the_lowest_subclass():
    assert type(torch.add(SubTensor([0]), SubTensor([1]))).__name__ == 'SubTensor'
    assert type(torch.add(SubTensor([0]), torch.tensor([1]))).__name__ == 'SubTensor'
    assert type(torch.add(SubTensor2([0]), SubTensor([1]))).__name__ == 'SubTensor2'
    assert type(torch.add(SubTensor2([0]), torch.tensor([1]))).__name__ == 'SubTensor2'
    with pytest.raises(TypeError, match=r"no implementation found for 'ember.add' on types "
                                        r"that implement __torch_function__: \[SubTensor, "
                                        r"OtherSubTensor\]"):
        torch.add(SubTensor([0]), OtherSubTensor([1]))


def test_methods_operators_and_lists_keep_the_subclass():
    s = SubTensor([1., 2.])
    for r in (s + 1, 1 + s, s * s, s.sum(), s[0], s.exp(), torch.exp(s), torch.cat([s, s]),
              torch.stack([s, torch.ones(2)]), s.max(0).values, s.detach()):
        assert type(r) is SubTensor
    assert type(s.max(0)).__name__ == 'max'
    assert repr(s) == 'SubTensor([1., 2.])'


class LoggingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # NOTE: Logging calls Tensor.__repr__, so we can't log __repr__ without infinite
        # recursion
        if func is not torch.Tensor.__repr__:
            logging.info(f"func: {func.__name__}, args: {args!r}, kwargs: {kwargs!r}")
        if kwargs is None:
            kwargs = {}
        return super().__torch_function__(func, types, args, kwargs)


def test_logging_tensor_sees_the_function_the_user_called(caplog):
    t = LoggingTensor([1., 2.])
    with caplog.at_level(logging.INFO):
        r = torch.mul(t, 2) + t.sum()
    assert type(r) is LoggingTensor
    names = [m.split(',')[0] for m in caplog.messages]
    assert names == ['func: mul', 'func: sum', 'func: add']


class MetadataTensor001(object):
    """The note's oldest MetadataTensor (a plain-method __torch_function__)."""
    def __init__(self, data, metadata=None, **kwargs):
        self._t = torch.as_tensor(data, **kwargs)
        self._metadata = metadata

    def __repr__(self):
        return "Metadata:\n{}\n\ndata:\n{}".format(self._metadata, self._t)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        args = [a._t if hasattr(a, '_t') else a for a in args]
        ret = func(*args, **kwargs)
        return MetadataTensor001(ret, metadata=self._metadata)


class MetadataTensor(object):
    """The newest MetadataTensor (classmethod, metadata from every operand). The note prints
    it with a syntax error (an `if` without `else` in a generator) and unwraps before reading
    the metadata; this is its evident intent."""
    def __init__(self, data, metadata=None, **kwargs):
        self._t = torch.as_tensor(data, **kwargs)
        self._metadata = metadata

    def __repr__(self):
        return "Metadata:\n{}\n\ndata:\n{}".format(self._metadata, self._t)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        metadatas = tuple(a._metadata for a in args if hasattr(a, '_metadata'))
        args = [a._t if hasattr(a, '_t') else a for a in args]
        assert len(metadatas) > 0
        ret = func(*args, **kwargs)
        return MetadataTensor(ret, metadata=metadatas[0])


@pytest.mark.parametrize('cls', [MetadataTensor001, MetadataTensor])
def test_metadata_tensor(cls):
    metadata = {'owner': 'Ministry of Silly Walks'}
    m = cls([[1, 2], [3, 4]], metadata=metadata)
    t = torch.tensor([[1, 2], [1, 2]])
    added = torch.add(t, m)  # (torch warns about plain methods only for Tensor subclasses)
    assert repr(added) == ("Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\ndata:\n"
                           "tensor([[2, 4],\n        [4, 6]])")
    multiplied = torch.mul(t, m)
    assert repr(multiplied) == ("Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\ndata:\n"
                                "tensor([[1, 4],\n        [3, 8]])")


def test_calling_func_directly_inside_the_handler_does_not_recurse():
    class Naive(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))   # not super(): still must terminate
    r = torch.add(Naive([1.]), 1)
    assert r.tolist() == [2.] and type(r) is torch.Tensor


def test_disable_torch_function_subclass_and_as_subclass():
    s = SubTensor([1., 2.])
    with torch._C.DisableTorchFunctionSubclass():
        assert type(s + 1) is torch.Tensor
    assert type(s + 1) is SubTensor
    assert type(torch.ones(2).as_subclass(SubTensor)) is SubTensor


def test_subclasses_survive_copy_and_pickle():
    s = SubTensor([1., 2.])
    s.note = 'kept'
    for c in (copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert type(c) is SubTensor and c.note == 'kept' and c.tolist() == [1., 2.]


def test_make_subclass_and_autograd_through_a_subclass():
    real = pytest.importorskip("torch", reason="real PyTorch (the oracle) is not installed")

    def run(lib):
        class Sub(lib.Tensor):
            pass
        base = lib.tensor([1., 2.])
        p = lib.Tensor._make_subclass(Sub, base, True)
        y = (p * 3).sum()
        y.backward()
        return [type(p).__name__, p.requires_grad, p.is_leaf, type(y).__name__,
                type(p.grad).__name__, p.grad.tolist(), type(p.detach()).__name__,
                p.detach().requires_grad]
    assert run(torch) == run(real)
