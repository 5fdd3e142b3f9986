"""torch.einsum's sublist form -- ``einsum(a, [0, 1], b, [1, 2], [0, 2])``, integers 0-51 for
subscripts and Ellipsis for ``...``, the output list optional -- as tensor-network code
writes it: values, gradients, grad_fn and the range error, compared with torch."""
import numpy as np
import pytest

from .oracle import arr, check

CASES = [
    ('matmul', lambda t, a, b: t.einsum(a, [0, 1], b, [1, 2], [0, 2]), [(3, 4), (4, 2)]),
    ('implicit', lambda t, a, b: t.einsum(a, [0, 1], b, [2, 1]), [(3, 4), (2, 4)]),
    ('ellipsis', lambda t, a, b: t.einsum(a, [Ellipsis, 0, 1], b, [Ellipsis, 1, 2],
                                          [Ellipsis, 0, 2]), [(2, 3, 4), (2, 4, 2)]),
    ('lowercase range', lambda t, a: t.einsum(a, [27, 51], [51]), [(3, 4)]),
    ('trace', lambda t, a: t.einsum(a, [5, 5], []), [(3, 3)]),
    ('three operands', lambda t, a, b, c: t.einsum(a, [0, 1], b, [1, 2], c, [2, 3], [0, 3]),
     [(2, 3), (3, 4), (4, 2)]),
]


@pytest.mark.parametrize('name,fn,shapes', CASES, ids=[c[0] for c in CASES])
def test_einsum_sublist_matches_torch(name, fn, shapes):
    check(fn, *[arr(*s, seed=i) for i, s in enumerate(shapes)])


@pytest.mark.parametrize('sub', [[0, 52], [-1, 0]])
def test_einsum_sublist_out_of_range_is_torch_error(sub):
    check(lambda t, a: t.einsum(a, sub), arr(2, 3), match_message=True)
