"""torch.compiler, torch._dynamo's config, torch.xpu and torch.mps (absent devices),
torch.types and torch.utils.hooks, each run on ember and torch and compared."""
import collections
import importlib

import pytest

from .compare import same, torch, ember  # noqa: F401


def sub(lib, name):
    """lib's submodule ``name`` (imported as a script would: ``import torch.<name>``)."""
    return importlib.import_module(f'{lib.__name__}.{name}')


@pytest.mark.parametrize('call', [
    lambda c: c.is_compiling(), lambda c: c.is_dynamo_compiling(), lambda c: c.is_exporting(),
    lambda c: c.reset(), lambda c: c.cudagraph_mark_step_begin(), lambda c: c.list_backends(),
    lambda c: c.get_default_backend(),
    lambda c: c.disable(abs)(-3), lambda c: c.disable(recursive=False)(abs)(-2),
    lambda c: c.allow_in_graph(abs)(-1), lambda c: c.assume_constant_result(_twice)(2),
    lambda c: c.substitute_in_graph(_twice)(_thrice)(2),
])
def test_compiler(call):
    # (torch's reset() warns about TorchScript from its own internals)
    same(lambda lib: call(sub(lib, 'compiler')), internal=('torch.jit',))


def _twice(x):
    return 2 * x


def _thrice(x):
    return 3 * x


def test_compiler_set_stance_as_context_and_decorator():
    def run(lib):
        c = sub(lib, 'compiler')
        with c.set_stance('force_eager'):
            inside = c.is_compiling()

        @c.set_stance('eager_on_recompile')
        def f(x):
            return x + 1
        return inside, f(1)
    same(run)


def test_compiled_model_under_disable():
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        fast = lib.compile(m)
        plain = sub(lib, 'compiler').disable(m.forward)
        x = lib.ones(1, 3)
        return bool(lib.allclose(fast(x), plain(x)))  # (inductor's code may round otherwise)
    # (torch's first compile in a process imports modules that warn about its own
    # jit.script_method: run alone, this test saw them)
    same(run, internal=('torch.jit.script_method',))


@pytest.mark.parametrize('name,value', [('suppress_errors', True), ('cache_size_limit', 64),
                                        ('capture_scalar_outputs', True), ('optimize_ddp', False),
                                        ('no_such_switch', 1)])
def test_dynamo_config(name, value):
    def run(lib):
        config = sub(lib, '_dynamo').config
        before = getattr(config, name)
        setattr(config, name, value)
        try:
            return before, getattr(config, name)
        finally:
            setattr(config, name, before)
    same(run)


def test_dynamo_helpers():
    def run(lib):
        d = sub(lib, '_dynamo')
        x = lib.ones(2, 3)
        d.mark_dynamic(x, 0)
        d.reset()
        return d.is_compiling(), d.disable(abs)(-4), d.is_dynamo_supported()
    same(run)


@pytest.mark.parametrize('call', [
    lambda x: x.is_available(), lambda x: x.device_count(), lambda x: x.is_initialized(),
    lambda x: x.is_bf16_supported(), lambda x: x.manual_seed(3), lambda x: x.manual_seed_all(3),
    lambda x: x.current_device(), lambda x: x.synchronize(), lambda x: x.get_device_name(),
])
def test_xpu(call):
    same(lambda lib: call(lib.xpu))


@pytest.mark.parametrize('call', [
    lambda m: m.is_available(), lambda m: m.device_count(), lambda m: m.manual_seed(3),
    lambda m: m.synchronize(), lambda m: m.empty_cache(), lambda m: m.seed(),
    lambda m: m.get_rng_state(), lambda m: m.current_allocated_memory(),
    lambda m: m.driver_allocated_memory(), lambda m: m.recommended_max_memory(),
])
def test_mps(call):
    same(lambda lib: call(lib.mps))


def test_types():
    def run(lib):
        t = sub(lib, 'types')
        return (str(t.Number), t._Number, isinstance(3, t._Number), t.Size is lib.Size,
                t.Tensor is lib.Tensor, t._int is int, t._bool is bool)
    same(run)


def test_removable_handle():
    def run(lib):
        hooks = sub(lib, 'utils.hooks')
        table, extra = collections.OrderedDict(), collections.OrderedDict()
        h1 = hooks.RemovableHandle(table)
        table[h1.id] = 'a'
        h2 = hooks.RemovableHandle(table, extra_dict=extra)
        table[h2.id], extra[h2.id] = 'b', True
        with hooks.RemovableHandle(table, extra_dict=[extra]) as h3:
            table[h3.id], extra[h3.id] = 'c', True
            inside = list(table.values())
        h2.remove()
        h2.remove()
        module = lib.nn.Linear(2, 2)
        handle = module.register_forward_hook(lambda *a: None)
        return (inside, list(table.values()), list(extra), h2.id > h1.id,
                isinstance(handle, hooks.RemovableHandle), handle.hooks_dict_ref() is
                module._forward_hooks, hooks.unserializable_hook(abs).__torch_unserializable__)
    same(run)
