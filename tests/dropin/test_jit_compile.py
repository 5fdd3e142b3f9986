"""ember.jit, ember.compile, ember.onnx: torch's entry points, running eagerly."""
import typing

import numpy as np
import pytest

from .compare import same, outcome, plain, ember, torch


def double(x):
    return x * 2 + 1


def _net(t):
    t.manual_seed(0)
    net = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(), t.nn.Linear(4, 2))
    with t.no_grad():  # the same weights on both sides
        for i, p in enumerate(net.parameters()):
            p.copy_(t.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)) * (i + 1),
                             dtype=t.float32))
    return net


X = np.arange(6, dtype=np.float32).reshape(2, 3) / 5


def test_script_function_runs_the_function():
    same(lambda t: (type(t.jit.script(double)).__name__,
                    plain(t.jit.script(double)(t.tensor([1.0, 2.0])))))


def test_script_and_trace_modules_give_identical_results():
    def run(t):
        net = _net(t)
        x = t.tensor(X, requires_grad=True)
        outs = [net(x), t.jit.script(net)(x), t.jit.trace(net, t.tensor(X))(x)]
        outs[1].sum().backward()
        return [o.detach().numpy().tolist() for o in outs], \
            x.grad.numpy().tolist(), isinstance(t.jit.script(net), t.nn.Module)
    same(run, internal=('trace_method',))


def test_trace_function():
    same(lambda t: (type(t.jit.trace(double, t.ones(2))).__name__,
                    plain(t.jit.trace(double, (t.ones(2),))(t.tensor([3.0])))), distinct=True)
    same(lambda t: t.jit.trace(double))


DECORATORS = [
    lambda t: t.jit.ignore(double) is double, lambda t: t.jit.unused(double) is double,
    lambda t: t.jit.export(double) is double, lambda t: t.jit.ignore(drop=True)(double) is double,
    lambda t: t.jit.annotate(int, 3), lambda t: t.jit.is_scripting(), lambda t: t.jit.is_tracing(),
    lambda t: plain(t.jit.script_if_tracing(double)(t.ones(1))),
    lambda t: t.jit.Attribute(3, int), lambda t: t.jit.Final is typing.Final,
    lambda t: t.jit.isinstance(3, int), lambda t: t.jit.isinstance([1, 2], typing.List[int]),
    lambda t: t.jit.isinstance([1, 'a'], typing.List[int]),
    lambda t: t.jit.isinstance({'a': 1}, typing.Dict[str, int]),
    lambda t: t.jit.isinstance(None, typing.Optional[int]),
    lambda t: t.jit.isinstance((1, 'a'), typing.Tuple[int, str]),
    lambda t: plain(t.jit.wait(t.jit.fork(double, t.ones(1)))),
    lambda t: t.jit.interface(Interface) is Interface,
    lambda t: t.onnx.is_in_onnx_export(),
    lambda t: (t.jit.enable_onednn_fusion(True), t.jit.onednn_fusion_enabled(),
               t.jit.enable_onednn_fusion(False), t.jit.onednn_fusion_enabled()),
]


@pytest.mark.parametrize('call', DECORATORS)
def test_jit_helpers(call):
    same(call)


class Interface:
    def forward(self, x: int) -> int:
        pass


def test_script_module_subclass_with_script_methods():
    def run(t):
        class Net(t.jit.ScriptModule):
            def __init__(self):
                super().__init__()
                self.scale = t.nn.Parameter(t.tensor([2.0]))

            @t.jit.script_method
            def forward(self, x):
                return x * self.scale
        net = Net()
        return plain(net(t.tensor([1.0, 2.0]))), [n for n, _ in net.named_parameters()]
    e = same(run)
    assert e[0][0] == 'ok'


def test_save_and_load_are_not_supported():
    with pytest.raises(NotImplementedError, match='ember.save'):
        ember.jit.save(ember.nn.Linear(1, 1), 'x.pt')
    with pytest.raises(NotImplementedError, match='ember.jit.load'):
        ember.jit.load('x.pt')
    with pytest.raises(NotImplementedError, match='cannot export ONNX'):
        ember.onnx.export(ember.nn.Linear(1, 1), ember.ones(1), 'x.onnx')


def test_compile_module_wraps_and_matches():
    def run(t):
        net = _net(t)
        c = t.compile(net)
        x = t.tensor(X)
        return (type(c).__name__, list(c.state_dict()), c._orig_mod is net,
                np.round(c(x).detach().numpy(), 6).tolist() ==
                np.round(net(x).detach().numpy(), 6).tolist(),
                c.training, c.eval().training, net.training)
    same(run, internal=('script_method',))


COMPILE_CALLS = [
    lambda t: plain(t.compile(double)(t.ones(2))), lambda t: t.compile(double).__name__,
    lambda t: t.compile(double, disable=True) is double,
    lambda t: plain(t.compile(fullgraph=True, dynamic=False)(double)(t.ones(1))),
    lambda t: plain(t.compile(double, backend='eager', mode='max-autotune')(t.ones(1))),
    lambda t: t.compile(double, mode='default', options={'a': 1}),
    lambda t: t.compile(double, mode='foo'), lambda t: t.compile(double, backend='foo'),
    lambda t: t.compile(3), lambda t: callable(t.compile(mode='default', options=None)),
]


@pytest.mark.parametrize('call', COMPILE_CALLS)
def test_compile_checks_and_calls(call):
    e, t = outcome(ember, call), outcome(torch, call)
    t = (t[0], [w for w in t[1] if 'script_method' not in w[1]])
    # torch raises its own InvalidBackend (a RuntimeError); ember raises RuntimeError
    if t[0][0] == 'raised' and t[0][1] == 'InvalidBackend':
        t = (('raised', 'RuntimeError', t[0][2]), t[1])
    assert e == t, f'\nember: {e}\ntorch: {t}'
