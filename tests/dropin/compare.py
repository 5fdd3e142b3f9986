"""One helper for the drop-in namespaces: run the same code on ember and on torch and compare
what came out -- the value (after an optional projection), or the exception's class and
message -- and the warnings raised on the way (category and text)."""
import math
import warnings

import pytest

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed")
import ember  # noqa: E402


def outcome(lib, fn, project=lambda v: v, distinct=False):
    """What ``fn(lib)`` did: ('ok', projected value) or ('raised', class name, message), and
    the warnings as (category name, message) pairs (``distinct``: the sorted set of them,
    for calls where torch repeats a deprecation warning from its own internals)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        try:
            got = ('ok', project(fn(lib)))
        except NameError:
            raise
        except Exception as e:  # noqa: BLE001 - the exception is what we compare
            # a message naming a class names ember's module where torch names its own
            got = ('raised', type(e).__name__,
                   str(e).replace('ember._tensor.Tensor', 'torch.Tensor').replace(
                       "'ember.", "'torch."))
    # ember's own modules are not torch's: compare torch's deprecation text only
    # (nor the C++ source line torch's own warnings end with)
    seen = [(w.category.__name__, str(w.message).split(' (Triggered internally at ')[0])
            for w in caught if not str(w.message).startswith('The given NumPy array')]
    return got, sorted(set(seen)) if distinct else seen


def same(fn, project=lambda v: v, distinct=False, internal=()):
    """Asserts ember and torch agree on ``fn(lib)``; returns ember's outcome. Warnings that
    mention one of ``internal`` (torch's private helpers warning as it calls them) are not
    compared."""
    e, t = outcome(ember, fn, project, distinct), outcome(torch, fn, project, distinct)
    t = (t[0], [w for w in t[1] if not any(name in w[1] for name in internal)])
    assert agree(e, t), f"\nember: {e}\ntorch: {t}"
    return e


def agree(a, b):
    """Equal, except that floats need only be close (float32 rounding, as the oracle's
    tolerances allow): the same type and structure everywhere else."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a).__name__ == type(b).__name__ and len(a) == len(b) and \
            all(map(agree, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(agree(a[k], b[k]) for k in a)
    return a == b


def plain(v):
    """A tensor as (values, dtype name, shape, requires_grad); other values as they are."""
    if isinstance(v, (ember.Tensor, torch.Tensor)):
        values = [x if x == x else 'nan' for x in v.detach().numpy().ravel().tolist()]
        return (values, str(v.dtype), tuple(v.shape), v.requires_grad)
    if isinstance(v, (list, tuple)):
        return type(v)(plain(x) for x in v)
    return v


def error_of(fn, lib):
    """(exception class name, message) of ``fn(lib)``, or ('ran', '')."""
    try:
        fn(lib)
    except Exception as exc:  # noqa: BLE001 - the exception is what we compare
        return type(exc).__name__, str(exc)
    return 'ran', ''


def script_output(script):
    """What ``script`` (with ``{lib}`` for the library's name) prints in a fresh process on
    ember and on torch: for what happens once per process (a warning torch gives once)."""
    import subprocess
    import sys
    return [subprocess.run([sys.executable, '-c', script.format(lib=lib)], capture_output=True,
                           text=True).stdout for lib in ('ember', 'torch')]
