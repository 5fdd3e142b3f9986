"""Helpers for comparing ember.utils.data with torch.utils.data: run one function of the
library on both, compare the results structurally (containers by type, tensors with
``assert_same_tensor``) or the exceptions by type and message."""
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

import ember
from ..oracle.oracle import torch, assert_same_tensor

LIBS = (ember, torch)


def outcome(fn, lib):
    """``fn(lib)``, or the exception it raised."""
    try:
        return fn(lib)
    except Exception as exc:  # noqa: BLE001 - the exception is what gets compared
        return exc


def assert_same_data(e, t, where='result'):
    """Same structure: tensors alike in shape, dtype, values, requires_grad and grad_fn;
    containers (mappings, sequences other than strings) of the same Python type holding
    alike items; NumPy arrays equal with the same dtype; anything else equal, same type."""
    if isinstance(t, torch.Tensor):
        assert_same_tensor(e, t, where)
        return
    assert type(e) is type(t), f"{where}: ember {type(e).__name__}, torch {type(t).__name__}"
    if isinstance(t, Mapping):
        assert list(e) == list(t), f"{where}: keys {list(e)} != {list(t)}"
        for k in t:
            assert_same_data(e[k], t[k], f"{where}[{k!r}]")
    elif isinstance(t, Sequence) and not isinstance(t, (str, bytes)):
        assert len(e) == len(t), f"{where}: {len(e)} items, torch {len(t)}"
        for i, (a, b) in enumerate(zip(e, t)):
            assert_same_data(a, b, f"{where}[{i}]")
    elif isinstance(t, np.ndarray):
        assert e.dtype == t.dtype, f"{where}: dtype {e.dtype} != {t.dtype}"
        np.testing.assert_array_equal(e, t, err_msg=where)
    else:
        assert e == t, f"{where}: {e!r} != {t!r}"


def check_same(fn):
    """Runs ``fn(lib)`` on both libraries: both raise the same exception type with the same
    message, or both return alike data (compared with ``assert_same_data``)."""
    e, t = (outcome(fn, lib) for lib in LIBS)
    if isinstance(t, Exception):
        assert isinstance(e, Exception), f"torch raised {t!r}; ember returned {e!r}"
        assert type(e) is type(t), f"ember raised {e!r} where torch raised {t!r}"
        assert str(e) == str(t), f"message\n  ember: {e}\n  torch: {t}"
        return e
    if isinstance(e, Exception):
        raise AssertionError(f"ember raised where torch returned {t!r}") from e
    assert_same_data(e, t)
    return e


def warnings_of(fn, lib):
    """The messages of the warnings ``fn(lib)`` emits."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        fn(lib)
    return [str(w.message) for w in caught]
