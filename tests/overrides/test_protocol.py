"""ember.overrides: modes, the listings derived from the registry, coverage, helpers."""
import inspect

import pytest

import ember
from ember.overrides import (TorchFunctionMode, get_overridable_functions,
                             get_testing_overrides, get_ignored_functions, has_torch_function,
                             handle_torch_function, is_tensor_like, resolve_name, coverage,
                             wrap_torch_function, is_tensor_method_or_property)


class Recording(TorchFunctionMode):
    def __init__(self, tag=None, log=None):
        self.tag, self.log = tag, log if log is not None else []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.log.append((self.tag, func.__name__))
        return func(*args, **(kwargs or {}))


def test_mode_intercepts_functions_methods_and_operators():
    x = ember.ones(2)
    with Recording() as mode:
        y = (x * 2 + x).sum().exp()
        ember.cat([x, x])
    assert [name for _, name in mode.log] == ['mul', 'add', 'sum', 'exp', 'cat']
    assert y.item() == pytest.approx(403.4287934927351)
    z = x * 2  # outside the mode: not recorded
    assert len(mode.log) == 5 and z.tolist() == [2., 2.]


def test_modes_nest_innermost_first_and_are_off_inside_their_handler():
    log = []
    x = ember.ones(2)
    with Recording('outer', log):
        with Recording('inner', log):
            x.neg()
            ember.zeros(1)   # factories are intercepted too
    assert log == [('inner', 'neg'), ('outer', 'neg'), ('inner', 'zeros'), ('outer', 'zeros')]


def test_mode_receives_the_four_arguments():
    seen = {}

    class Capture(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.update(func=func, types=types, args=args, kwargs=kwargs)
            return 'intercepted'

    x = ember.ones(2)
    with Capture():
        assert ember.add(x, 3, alpha=2) == 'intercepted'
    assert seen['func'] is ember.add and seen['types'] == ()
    assert seen['args'] == (x, 3) and seen['kwargs'] == {'alpha': 2}


def test_testing_overrides_have_the_signatures():
    overrides = get_testing_overrides()
    assert str(inspect.signature(overrides[ember.add])) == '(input, other, out=None)'
    assert overrides[ember.add](1, 2) == -1
    assert str(inspect.signature(overrides[ember.Tensor.sum])).startswith('(input, dim=None')
    assert ember.Tensor.__add__ in overrides and ember.mul in overrides


def test_every_public_callable_is_overridable_or_ignored():
    # (or, as in torch, one of the in-place forms that both listings leave out: each is
    # checked against torch's own listings in tests/dropin/test_top_level_names_oracle.py)
    from ember.overrides import _unlisted
    overridable = set(get_overridable_functions()[ember])
    ignored = get_ignored_functions()
    unlisted = _unlisted()
    missing = []
    for name in dir(ember):
        obj = getattr(ember, name)
        if name.startswith('_') or not callable(obj) or isinstance(obj, type):
            continue
        if obj not in overridable and obj not in ignored and obj not in unlisted:
            missing.append(name)
    assert missing == [], f"neither overridable nor ignored: {missing}"


def test_unlisted_functions_are_neither_in_torch():
    torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle)")
    listed = set(torch.overrides.get_overridable_functions()[torch]) | \
        torch.overrides.get_ignored_functions()
    from ember.overrides import _unlisted
    names = [f.__name__ for f in _unlisted()]
    assert names and all(getattr(torch, n) not in listed for n in names), names


def test_helpers():
    class Like:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ('like', resolve_name(func))
    assert is_tensor_like(ember.ones(1)) and is_tensor_like(Like()) and not is_tensor_like(3)
    assert has_torch_function((ember.ones(1), Like())) and not has_torch_function((1, 'a'))
    assert handle_torch_function(ember.mul, (Like(),), Like(), 2) == ('like', 'ember.mul')
    assert resolve_name(ember.Tensor.add) == 'ember.Tensor.add'
    assert is_tensor_method_or_property(ember.Tensor.add)
    assert not is_tensor_method_or_property(ember.add)

    @wrap_torch_function(lambda a, b: (a, b))
    def my_op(a, b):
        return 'plain'
    assert my_op(1, 2) == 'plain'
    assert my_op(Like(), 2)[0] == 'like'


def test_coverage_sorts_every_function():
    HANDLED = {}

    class Scalar:
        def __init__(self, value=2):
            self.value = value

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func not in HANDLED:
                return NotImplemented
            return HANDLED[func](*args, **(kwargs or {}))

    HANDLED[ember.mean] = lambda input: input.value
    HANDLED[ember.add] = lambda a, b: Scalar(a.value + b.value)
    HANDLED[ember.sub] = lambda a, b: 1 / 0
    report = coverage(Scalar)
    assert report['handled'] == ['ember.add', 'ember.mean']
    assert ('ember.sub', 'ZeroDivisionError: division by zero') in report['raised']
    assert 'ember.mul' in report['not_implemented'] and 'ember.Tensor.add' in \
        report['not_implemented']
    total = sum(len(v) for v in report.values())
    assert total == len(get_testing_overrides())


def test_property_getters_dispatch_with_their_get_as_func():
    seen = []

    class Watch(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    w = Watch([[1., 2.]])
    assert w.shape == (1, 2) and w.dtype is ember.float32
    assert type(w.T) is Watch and type(w.data) is Watch and w.grad is None
    assert seen[0] == ember.Tensor.shape.__get__
    assert resolve_name(seen[1]) == 'ember.Tensor.dtype.__get__'
    assert ember.Tensor.shape.__get__ in get_overridable_functions()[ember.Tensor]
    with Recording() as mode:
        ember.ones(2).requires_grad
    assert mode.log[-1][1] == '__get__'


def test_nn_functional_is_overridable_and_listed():
    F = ember.nn.functional
    assert F.linear in get_overridable_functions()[F]
    assert str(inspect.signature(get_testing_overrides()[F.linear])) == \
        '(input, weight, bias=None)'

    class Like:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return resolve_name(func)
    assert F.relu(Like()) == 'ember.nn.functional.relu'


def test_modes_are_per_thread():
    import threading
    started, release = threading.Event(), threading.Event()
    log = []

    def other_thread():
        with Recording('other', log):
            started.set()
            release.wait(5)

    t = threading.Thread(target=other_thread)
    t.start()
    started.wait(5)
    try:
        ember.ones(2).neg()   # this thread has no mode: nothing is recorded
        assert log == []
        with Recording('here', log):
            ember.ones(1).exp()
        assert log == [('here', 'ones'), ('here', 'exp')]
    finally:
        release.set()
        t.join()
