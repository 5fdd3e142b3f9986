"""Reentrant backward (a backward started inside a node's backward) nested deeper than
Python's recursion limit allows on one stack, compared with torch: the gradients, the
state the deep levels see, and an exception raised at the bottom."""
import sys

import pytest

from ._upstream import ember, torch, eq


def _deep(lib, depth, seen, fail_at=None):
    """A custom Function whose backward runs the backward of a fresh copy of itself, one
    level less deep, until ``depth`` levels are open; returns the leaf's gradient."""
    class Nest(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, level):
            ctx.level = level
            return x * 1

        @staticmethod
        def backward(ctx, g):
            seen.append((ctx.level, lib.is_grad_enabled()))
            if ctx.level == fail_at:
                raise ValueError(f"stop at level {ctx.level}")
            if ctx.level < depth:
                inner = lib.tensor(1.0, requires_grad=True)
                with lib.enable_grad():
                    Nest.apply(inner, ctx.level + 1).backward()
                g = g + inner.grad
            return g, None

    x = lib.tensor(0.5, requires_grad=True)
    Nest.apply(x, 1).backward()
    return x.grad


@pytest.mark.parametrize('depth', [3, 1200])
def test_deep_reentrant_gradients_and_grad_mode(depth):
    results = []
    for lib in (ember, torch):
        seen = []
        results.append((_deep(lib, depth, seen), seen))
    (ember_grad, ember_seen), (torch_grad, torch_seen) = results
    eq(ember_grad, torch_grad)
    assert ember_seen == torch_seen


def test_deep_reentrant_error_reaches_the_caller():
    depth = sys.getrecursionlimit() * 2
    errors = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as info:
            _deep(lib, depth, [], fail_at=depth - 1)
        errors.append(str(info.value))
    assert errors[0] == errors[1] == f"stop at level {depth - 1}"

