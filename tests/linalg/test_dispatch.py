"""The new linear-algebra functions take part in ``__torch_function__`` as torch's do: a
subclass handler receives the very object the user called (``ember.linalg.lu_factor``,
``ember.lu``, ``ember.Tensor.lu``...) -- run on torch too -- and the overrides listings name
them."""
import pytest

import ember
from ember.overrides import get_overridable_functions, get_testing_overrides

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed")

CALLS = [
    ('linalg.lu_factor', lambda E, x: E.linalg.lu_factor(x)),
    ('linalg.lu_solve', lambda E, x: E.linalg.lu_solve(x, x, x)),
    ('linalg.solve_triangular', lambda E, x: E.linalg.solve_triangular(x, x, upper=True)),
    ('linalg.matrix_exp', lambda E, x: E.linalg.matrix_exp(x)),
    ('linalg.eig', lambda E, x: E.linalg.eig(x)),
    ('linalg.householder_product', lambda E, x: E.linalg.householder_product(x, x)),
    ('linalg.ldl_factor', lambda E, x: E.linalg.ldl_factor(x)),
    ('linalg.cond', lambda E, x: E.linalg.cond(x)),
    ('linalg.vander', lambda E, x: E.linalg.vander(x)),
    ('lu', lambda E, x: E.lu(x)),
    ('lu_unpack', lambda E, x: E.lu_unpack(x, x)),
    ('triangular_solve', lambda E, x: E.triangular_solve(x, x)),
    ('cholesky_solve', lambda E, x: E.cholesky_solve(x, x)),
    ('ormqr', lambda E, x: E.ormqr(x, x, x)),
    ('svd_lowrank', lambda E, x: E.svd_lowrank(x)),
    ('lobpcg', lambda E, x: E.lobpcg(x)),
    ('Tensor.lu', lambda E, x: x.lu()),
    ('Tensor.matrix_exp', lambda E, x: x.matrix_exp()),
    ('Tensor.geqrf', lambda E, x: x.geqrf()),
    ('Tensor.cholesky_inverse', lambda E, x: x.cholesky_inverse()),
]


def _seen(lib):
    class Seen(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return func
    return Seen


@pytest.mark.parametrize('lib', [torch, ember], ids=['torch', 'ember'])
@pytest.mark.parametrize('name, call', CALLS, ids=[c[0] for c in CALLS])
def test_handler_receives_the_public_object(name, call, lib):
    x = lib.eye(3).as_subclass(_seen(lib))
    obj = lib
    for part in name.split('.'):
        obj = getattr(obj, part)
    assert call(lib, x) is obj


def test_listed_as_overridable():
    listing = get_overridable_functions()
    testing = get_testing_overrides()
    for name, _ in CALLS:
        ns, _, attr = name.rpartition('.')
        owner = {'': ember, 'linalg': ember.linalg, 'Tensor': ember.Tensor}[ns]
        fn = getattr(owner, attr)
        assert fn in listing[owner], name
        assert fn in testing, name
