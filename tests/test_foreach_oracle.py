"""``torch._foreach_*`` against torch: every one torch has exists, and each form (a number,
a list of numbers, a list of tensors, a 0-d tensor; in place and not) gives torch's values,
dtypes, return type and errors; gradients flow through the out-of-place forms."""
import numpy as np
import pytest

import ember
from .oracle.oracle import torch

TORCH_FOREACH = sorted(n for n in dir(torch) if n.startswith('_foreach_'))
UNARY = sorted({n.rstrip('_')[len('_foreach_'):] for n in TORCH_FOREACH} -
               {'add', 'sub', 'mul', 'div', 'clamp_max', 'clamp_min', 'maximum', 'minimum',
                'pow', 'addcmul', 'addcdiv', 'lerp', 'zero', 'clone', 'copy', 'norm',
                'powsum', 'max', 'mm'})


def _lists(lib, seed=0):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.uniform(0.1, 0.9, s)) for s in ((2, 3), (4,))]


def _outcome(fn, lib):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - compared
        return type(e).__name__, str(e).split('\n')[0]
    if isinstance(r, (list, tuple)):
        return type(r).__name__, [(t.dtype.__repr__(), np.round(t.detach().numpy(), 10).tolist())
                                  for t in r]
    return r


def test_every_foreach_op_of_torch_exists():
    assert [n for n in TORCH_FOREACH if not hasattr(ember, n)] == []


@pytest.mark.parametrize('op', UNARY)
@pytest.mark.parametrize('inplace', [False, True])
def test_unary(op, inplace):
    name = f'_foreach_{op}' + ('_' if inplace else '')
    fn = (lambda lib: getattr(lib, name)(_lists(lib))) if not inplace else \
        (lambda lib: (lambda xs: (getattr(lib, name)(xs) is xs, xs))(_lists(lib)))
    e, t = fn(ember), fn(torch)
    if inplace:
        assert e[0] is t[0] is True
        e, t = e[1], t[1]
    np.testing.assert_allclose([x.numpy().sum() for x in e], [x.numpy().sum() for x in t],
                               rtol=1e-12)


SECOND = {
    'number': lambda lib: 0.5,
    'numbers': lambda lib: [0.5, 2.0],
    'tensors': lambda lib: _lists(lib, 1),
    '0-d tensor': lambda lib: lib.tensor(0.75),
}


@pytest.mark.parametrize('op', ['add', 'sub', 'mul', 'div', 'clamp_max', 'clamp_min',
                                'maximum', 'minimum', 'pow'])
@pytest.mark.parametrize('kind', list(SECOND))
@pytest.mark.parametrize('inplace', [False, True])
def test_binary(op, kind, inplace):
    name = f'_foreach_{op}' + ('_' if inplace else '')

    def fn(lib):
        xs = _lists(lib)
        r = getattr(lib, name)(xs, SECOND[kind](lib))
        return xs if inplace and r is xs else r
    assert _outcome(fn, ember) == _outcome(fn, torch)


@pytest.mark.parametrize('call', [
    lambda lib: lib._foreach_add(_lists(lib), _lists(lib, 1), alpha=2),
    lambda lib: lib._foreach_sub_(_lists(lib), _lists(lib, 1), alpha=0.5),
    lambda lib: lib._foreach_pow(2.0, _lists(lib)),
    lambda lib: lib._foreach_addcmul(_lists(lib), _lists(lib, 1), _lists(lib, 2), [1.0, 2.0]),
    lambda lib: lib._foreach_addcdiv(_lists(lib), _lists(lib, 1), _lists(lib, 2),
                                     lib.tensor([1.0, -2.0])),
    lambda lib: lib._foreach_addcmul_(_lists(lib), _lists(lib, 1), _lists(lib, 2), value=3),
    lambda lib: lib._foreach_lerp(_lists(lib), _lists(lib, 1), 0.25),
    lambda lib: lib._foreach_lerp_(_lists(lib), _lists(lib, 1), _lists(lib, 2)),
    lambda lib: lib._foreach_norm(_lists(lib)),
    lambda lib: lib._foreach_norm(_lists(lib), 1),
    lambda lib: lib._foreach_norm(_lists(lib), float('inf')),
    lambda lib: lib._foreach_powsum(_lists(lib), 3),
    lambda lib: lib._foreach_powsum(_lists(lib), 2, dtype=lib.complex64),
    lambda lib: lib._foreach_powsum([lib.ones(2, dtype=lib.int32)], 2),
    lambda lib: lib._foreach_norm([lib.zeros(2, 0)], -0.7),
    lambda lib: lib._foreach_norm([lib.zeros(2, 0)], float('inf')),
    lambda lib: lib._foreach_powsum([lib.ones(2)], 2, dtype=lib.int32),
    lambda lib: lib._foreach_powsum([lib.ones(2, dtype=lib.complex64)], 2, dtype=lib.int64),
    lambda lib: lib._foreach_powsum([lib.ones(2, dtype=lib.int16)], 1.5, dtype=lib.float64),
    lambda lib: lib._foreach_max(_lists(lib)),
    lambda lib: lib._foreach_mm([lib.ones(2, 3)], [lib.ones(3, 2)]),
    lambda lib: lib._foreach_clone(_lists(lib)),
    lambda lib: lib._foreach_copy_(_lists(lib), _lists(lib, 1)),
    lambda lib: lib._foreach_zero_(_lists(lib)),
    lambda lib: lib._foreach_add([lib.ones(2, dtype=lib.int64)], 2),
    # errors
    lambda lib: lib._foreach_add([], 1),
    lambda lib: lib._foreach_add(_lists(lib), [1.0]),
    lambda lib: lib._foreach_add(_lists(lib), _lists(lib)[:1]),
    lambda lib: lib._foreach_add(_lists(lib), [lib.ones(2), 'x']),
    lambda lib: lib._foreach_mul(_lists(lib), lib.tensor([2.0, 3.0])),
    lambda lib: lib._foreach_exp(lib.ones(2)),
    lambda lib: lib._foreach_add([lib.ones(2)], [lib.ones(3)]),
    lambda lib: lib._foreach_addcmul(_lists(lib), _lists(lib), _lists(lib), [1.0]),
])
def test_other_forms_and_errors(call):
    assert _outcome(call, ember) == _outcome(call, torch)


@pytest.mark.parametrize('lib', [ember, torch], ids=['ember', 'torch'])
def test_gradients_and_leaves(lib):
    xs = [lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)]
    ys = lib._foreach_mul(lib._foreach_exp(xs), [2.0, 3.0])
    sum(y.sum() for y in ys).backward()
    assert np.allclose(xs[0].grad.numpy(), 2 * np.e) and np.allclose(xs[1].grad.numpy(), 3 * np.e)
    with pytest.raises(RuntimeError, match='a leaf Variable that requires grad'):
        lib._foreach_mul_(xs, 2.0)
