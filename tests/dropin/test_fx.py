"""torch.fx as eager code meets it, on ember and torch: ``wrap`` and ``has_side_effect`` at a
module's top level, ``map_arg`` over plain structures, ``isinstance(x, fx.Proxy)``; and
ember's NotImplementedError for the tracer itself."""
import pytest

from tests.dropin.compare import same, error_of, script_output, torch, ember


def test_wrap_at_module_level():
    script = ("import {lib}.fx\n"
              "def f(x):\n    return x\n"
              "print({lib}.fx.wrap(f) is f, {lib}.fx.wrap('len'), {lib}.fx.has_side_effect(f) is f)")
    e, t = script_output(script)
    assert e == t == 'True len True\n'


def test_wrap_refusals():
    same(lambda lib: _module_level(lib, 3))
    same(lambda lib: (lambda: lib.fx.wrap('len'))())


def _module_level(lib, value):
    # (a call at a module's top level, through exec, with an invalid argument)
    exec(f"import {lib.__name__}.fx as fx\nfx.wrap({value!r})", {})


def test_map_arg_and_proxy_checks():
    # (torch rebuilds lists as its immutable_list: compared by what they print)
    same(lambda lib: lib.fx.map_arg((1, [2, {'a': 3}], slice(1, 2)), lambda n: n), project=repr)
    same(lambda lib: isinstance(lib.ones(2), lib.fx.Proxy))


@pytest.mark.parametrize('use', [lambda fx: fx.symbolic_trace(lambda x: x), lambda fx: fx.Graph(),
                                 lambda fx: fx.Tracer()])
def test_the_tracer_is_not_there(use):
    assert error_of(lambda lib: use(lib.fx), ember)[0] == 'NotImplementedError'
    assert error_of(lambda lib: use(lib.fx), torch)[0] != 'NotImplementedError'
