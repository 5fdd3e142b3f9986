"""torch.library's custom operators on ember and torch: schema inference, calling an op and
its ``torch.ops`` packet, the gradient formula from register_autograd (and the error without
one), the fake implementation on 'meta' tensors, the alias check, mutation, the schema-first
Library API, and opcheck. Operator names are unique per test: torch's registry is global."""
import itertools
from typing import Optional, Sequence

import pytest

from tests.dropin.compare import same, plain, error_of, torch, ember

_COUNT = itertools.count()


def fresh(stem):
    """A namespace::name no other test (nor an earlier run in this process) registered."""
    return f'embertest::{stem}_{next(_COUNT)}'


def _sig_func(lib):
    T = lib.Tensor

    def f(x: T, y: Optional[T], z: Sequence[int], s: str, d: lib.dtype, dev: lib.device,
          b: bool = True, *, n: Optional[int] = None, fl: Optional[list[float]] = None) -> list[T]:
        pass
    return f


def _ret_func(lib):
    def h(x: lib.Tensor, q: float = 1e-3, w: int = -2, s: str = "a") -> tuple[lib.Tensor, int,
                                                                                  float, bool]:
        pass
    return h


@pytest.mark.parametrize('call', [
    lambda lib: lib.library.infer_schema(_sig_func(lib), mutates_args=('x',)),
    lambda lib: lib.library.infer_schema(_sig_func(lib), mutates_args='unknown'),
    lambda lib: lib.library.infer_schema(_ret_func(lib), mutates_args=()),
    lambda lib: lib.library.infer_schema(lambda x: x, mutates_args=()),
])
def test_infer_schema(call):
    same(lambda lib: call(lib).split(' Got func')[0])


def _mysin(lib, name):
    @lib.library.custom_op(name, mutates_args=())
    def mysin(x: lib.Tensor, k: float = 1.0) -> lib.Tensor:
        return x.sin() * k
    return mysin


def _register_grad(op):
    def setup_context(ctx, inputs, output):
        x, k = inputs
        ctx.save_for_backward(x)
        ctx.k = k

    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * x.cos() * ctx.k, None
    op.register_autograd(backward, setup_context=setup_context)


def test_call_and_gradient():
    name = fresh('mysin')

    def run(lib):
        op = _mysin(lib, name)
        x = lib.tensor([0.5, 1.0, -2.0], requires_grad=True)
        y = op(x, 2.0)
        seen = [plain(y), type(y.grad_fn).__name__, repr(op).replace('ember', 'torch')]
        try:
            y.sum().backward()
        except RuntimeError as e:
            seen.append(str(e))
        _register_grad(op)
        ns, short = name.split('::')
        packet = getattr(getattr(lib.ops, ns), short)
        z = packet(x, k=3.0) + packet.default(x)
        z.sum().backward()
        seen += [plain(x.grad), str(packet), packet.default.name(), packet.overloads()]
        with lib.no_grad():
            seen.append(op(x).requires_grad)
        return seen
    same(run)


def test_output_may_not_alias_an_input():
    name = fresh('alias')

    def run(lib):
        @lib.library.custom_op(name, mutates_args=())
        def bad(x: lib.Tensor) -> lib.Tensor:
            return x[0]
        bad(lib.ones(2))
    e, t = [error_of(run, lib) for lib in (ember, torch)]
    assert e[0] == t[0] == 'RuntimeError' and 'must not also be an input' in e[1]



def test_mutation_and_missing_mutates_args():
    name = fresh('addone_')

    def run(lib):
        @lib.library.custom_op(name, mutates_args={'x'})
        def addone_(x: lib.Tensor) -> None:
            x.add_(1)
        t = lib.zeros(2)
        r = addone_(t)
        return r, plain(t)
    same(run)
    same(lambda lib: lib.library.custom_op(fresh('nomut'))(lambda x: x))
    same(lambda lib: lib.library.custom_op('nocolon', mutates_args=())(lambda x: x))


def test_fake_implementation_on_meta_tensors():
    name, plain_name = fresh('double_len'), fresh('nofake')

    def run(lib):
        @lib.library.custom_op(name, mutates_args=())
        def double_len(x: lib.Tensor) -> lib.Tensor:
            return x.new_zeros(x.shape[0] * 2)

        @double_len.register_fake
        def _(x):
            return x.new_empty(x.shape[0] * 2)
        out = double_len(lib.ones(3, device='meta'))
        checks = lib.library.opcheck(double_len, (lib.randn(3),))
        return tuple(out.shape), out.device.type, sorted(k for k, v in checks.items()
                                                         if k != 'test_aot_dispatch_dynamic')
    same(run)

    def no_fake(lib):
        @lib.library.custom_op(plain_name, mutates_args=())
        def nofake(x: lib.Tensor) -> lib.Tensor:
            return x.clone()
        nofake(lib.ones(3, device='meta'))
    assert error_of(no_fake, ember)[0] == error_of(no_fake, torch)[0]


def test_schema_first_library():
    ns = fresh('lib').replace('::', '_')

    def run(lib):
        lb = lib.library.Library(ns, 'DEF')
        lb.define('twice(Tensor x) -> Tensor')
        lb.impl('twice', lambda x: x * 2, 'CPU')
        lib.library.define(f'{ns}::thrice', '(Tensor x) -> Tensor')

        @lib.library.impl(f'{ns}::thrice', 'CPU')
        def thrice(x):
            return x * 3
        ops = getattr(lib.ops, ns)
        return plain(ops.twice(lib.ones(2))), plain(ops.thrice.default(lib.ones(2)))
    same(run)


def test_register_autograd_by_name():
    name = fresh('cube')

    def run(lib):
        @lib.library.custom_op(name, mutates_args=())
        def cube(x: lib.Tensor) -> lib.Tensor:
            return x ** 3

        def setup(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
        lib.library.register_autograd(name, lambda ctx, g: g * 3 * ctx.saved_tensors[0] ** 2,
                                      setup_context=setup)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        cube(x).sum().backward()
        return plain(x.grad), lib.autograd.gradcheck(cube, (lib.tensor([0.3, -1.2],
                                                                          dtype=lib.float64,
                                                                          requires_grad=True),))
    same(run)
