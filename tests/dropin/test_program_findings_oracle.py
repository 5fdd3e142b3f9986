"""What the program corpus (tests/programs/) found ember doing differently from torch, each
pinned by the same code run on both and compared (tests/dropin/compare.py)."""
import pytest

from .compare import same

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed")


@pytest.mark.parametrize('convert', ['float', 'complex', 'int', 'bool', 'item'])
@pytest.mark.parametrize('requires_grad', [True, False])
@pytest.mark.parametrize('mode', ['grad', 'no_grad', 'inference_mode'])
def test_scalar_conversion_of_a_grad_tensor_warns_as_torch(convert, requires_grad, mode):
    # float()/complex() of a tensor that requires grad warn with grad mode on (once a
    # process, every time under set_warn_always); int(), bool() and .item() do not, nor
    # anything under no_grad (LBFGS's float(closure()) runs there).
    import contextlib

    def fn(lib):
        ctx = {'grad': contextlib.nullcontext, 'no_grad': lib.no_grad,
               'inference_mode': lib.inference_mode}[mode]
        t = lib.ones((1, 1), requires_grad=requires_grad) * 2
        with ctx():
            return convert_twice(lib, t)

    def convert_twice(lib, t):
        before = lib.is_warn_always_enabled()
        lib.set_warn_always(True)
        try:
            f = {'float': float, 'complex': complex, 'int': int, 'bool': bool,
                 'item': lambda x: x.item()}[convert]
            return f(t), f(t)
        finally:
            lib.set_warn_always(before)
    same(fn)


def test_scalar_conversion_warning_points_at_the_caller():
    # the warning names the line that called float(), not a frame inside the framework
    import warnings
    import ember
    for lib in (ember, torch):
        before = lib.is_warn_always_enabled()
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter('always')
                float(lib.ones((), requires_grad=True))
        finally:
            lib.set_warn_always(before)
        assert [w.filename for w in caught] == [__file__], lib.__name__


@pytest.mark.parametrize('api', ['script', 'trace', 'fork'])
def test_jit_deprecation_is_attributed_to_the_framework(api):
    # torch warns from inside torch.jit, so Python's default filters keep the
    # DeprecationWarning out of a script's output; ember's must not name the caller either
    import warnings
    import ember

    def f(x):
        return x * 2

    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            if api == 'script':
                lib.jit.script(f)
            elif api == 'trace':
                lib.jit.trace(f, lib.ones(2))
            else:
                lib.jit.wait(lib.jit.fork(f, lib.ones(2)))
        deprecations = [w for w in caught if w.category is DeprecationWarning]
        assert deprecations and all(w.filename != __file__ for w in deprecations), lib.__name__
