"""CopySlices runs the in-place op's node inside itself, as torch's does: the base's graph
has the op's other inputs as its edges, the view's old node is bypassed (hooks registered on
the view before the in-place op do not fire), and gradients, double backward, forward AD and
the release of saved tensors match torch."""
import numpy as np
import pytest

from ..oracle.oracle import arr, check, torch
from ._upstream import ember


def _graph(node, depth=3):
    """A node's name and, ``depth`` levels down, its next functions' (None for an empty
    edge)."""
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return (node.name(), [_graph(n, depth - 1) for n, _ in node.next_functions])


def _mul_into_row(T, x, o):
    b = x * 1
    b[1].mul_(o)
    return b.sin()


def _add_other_dtype(T, x, o):
    b = x.clone()
    b[:, 1:].add_(o)  # a float64 operand into a float32 view
    return b * b


def _copy_into_grad_free_base(T, s):
    base = T.zeros(3, 4, dtype=s.dtype)
    base[1].copy_(s * 2)
    return base ** 2


def _twice_through_one_view(T, x, o):
    b = x * 1
    v = b[:, ::2]
    v.mul_(o)
    v.add_(o * o)
    return b.exp()


@pytest.mark.parametrize('fn, args', [
    (_mul_into_row, (arr(4, 3, seed=1), arr(3, seed=2))),
    (_add_other_dtype, (arr(2, 3, dtype=np.float32, seed=3), arr(2, 2, seed=4))),
    (_copy_into_grad_free_base, (arr(4, seed=5),)),
    (_twice_through_one_view, (arr(3, 4, seed=6), arr(3, 2, seed=7))),
], ids=['mul_into_row', 'add_other_dtype', 'copy_into_grad_free_base', 'twice_through_one_view'])
def test_values_gradients_and_graph(fn, args):
    check(fn, *args, double=True)
    # the graph itself, node names and edges, as torch builds it
    graphs = []
    for lib in (ember, torch):
        ins = [lib.tensor(a, requires_grad=True) for a in args]
        graphs.append(_graph(fn(lib, *ins).grad_fn, 4))
    assert graphs[0] == graphs[1]


def test_hooks_on_the_views_old_node_do_not_fire():
    records = []
    for lib in (ember, torch):
        seen = []
        base = lib.tensor(arr(4, seed=8), requires_grad=True).clone()
        view = base[1:3]
        other = base[2:]
        view.register_hook(lambda g: seen.append('view before'))
        other.register_hook(lambda g: seen.append('other before'))
        view.mul_(3)
        view.register_hook(lambda g: seen.append(('view after', g.tolist())))
        other.grad_fn  # (rebuilt on the base's new history)
        other.register_hook(lambda g: seen.append(('other after', g.tolist())))
        (view * 2 + other.sum()).sum().backward()
        records.append(seen)
    assert records[0] == records[1]


def test_saved_tensors_of_the_op_are_released():
    messages = []
    for lib in (ember, torch):
        x = lib.tensor(arr(3, seed=9), requires_grad=True)
        b = x * 1
        b[:2].mul_(x[1:])
        b.sum().backward()
        with pytest.raises(RuntimeError) as info:
            b.sum().backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_forward_ad_through_an_inplace_op_on_a_view():
    tangents = []
    for lib in (ember, torch):
        fwd = lib.autograd.forward_ad
        with fwd.dual_level():
            p = fwd.make_dual(lib.tensor(arr(4, seed=10)), lib.tensor(arr(4, seed=11)))
            q = p * 2
            q[1:3].mul_(p[:2])
            tangents.append(fwd.unpack_dual(q).tangent.numpy().copy())
    np.testing.assert_allclose(tangents[0], tangents[1], rtol=1e-12)
