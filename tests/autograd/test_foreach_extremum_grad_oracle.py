"""``_foreach_maximum``/``_foreach_minimum`` with numbers against real torch: one node for the
whole list (torch's ForeachMaximumBackward0/1...), its saved values, and the gradient rule
torch's node applies (the gradient passes where the tensor won, halved where it tied with
the number, and where it is NaN), plain and double backward."""
import pytest

from ..oracle.oracle import torch
from ._upstream import oracle


@pytest.mark.parametrize('op', ['_foreach_maximum', '_foreach_minimum'])
@pytest.mark.parametrize('other', [1.0, [1.0, 2], 2], ids=['number', 'numbers', 'int'])
def test_extremum_with_numbers(op, other):
    def run(lib):
        ts = [lib.tensor([float('nan'), 0., 1., 2.], dtype=lib.float64, requires_grad=True),
              lib.tensor([1., 2., 3., 4.], dtype=lib.float64)]
        outs = getattr(lib, op)(ts, other)
        node = outs[0].grad_fn
        saved = getattr(node, '_saved_scalars', None) or getattr(node, '_saved_scalar', None)
        (g,) = lib.autograd.grad((outs[0] * lib.arange(4.)).sum(), ts[0], create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), ts[0], allow_unused=True)
        return (type(node).__name__, node is outs[1].grad_fn, outs[1].output_nr,
                [o.requires_grad for o in outs], saved, len(node._saved_self),
                list(outs), g, gg)
    oracle(run)


def test_extremum_without_grad_and_in_place():
    # no node when nothing requires grad; the in-place forms keep their own rules
    def run(lib):
        a = [lib.tensor([0., 1., 2.])]
        out = lib._foreach_maximum(a, 1.0)
        lib._foreach_minimum_(a, 1.0)
        return out[0].grad_fn is None, out[0], a[0]
    oracle(run)
