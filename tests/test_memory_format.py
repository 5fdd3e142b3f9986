"""Memory formats against torch: ``channels_last``/``channels_last_3d`` layouts made by
``contiguous``, ``to``, ``clone``, ``empty`` and the ``*_like`` factories, the strides they
report, ``is_contiguous(memory_format=...)``, layouts kept by elementwise ops and by
``clone``'s default, ``Module.to(memory_format=...)``, ``empty_strided``, the layout of a
leaf's ``.grad``, and the errors for a wrong rank."""
import pickle

import numpy as np
import pytest

import ember
from .oracle.oracle import torch

LIBS = pytest.mark.parametrize('lib', [ember, torch], ids=['ember', 'torch'])
X = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)


def _both(fn):
    """``fn(lib, x)`` on each library; a tensor result's values and strides, or the raised
    exception's class and message."""
    out = []
    for lib in (ember, torch):
        try:
            r = fn(lib, lib.tensor(X))
        except Exception as e:  # noqa: BLE001 - compared
            out.append((type(e).__name__, str(e)))
            continue
        if isinstance(r, lib.Tensor):
            out.append((r.detach().numpy().tolist(), r.stride(), r.is_contiguous()))
        else:
            out.append(r)
    return out


@pytest.mark.parametrize('fn', [
    lambda lib, x: x.contiguous(memory_format=lib.channels_last),
    lambda lib, x: x.to(memory_format=lib.channels_last),
    lambda lib, x: x.clone(memory_format=lib.channels_last),
    lambda lib, x: x.to(memory_format=lib.channels_last).contiguous(),
    lambda lib, x: x.to(memory_format=lib.channels_last) * 2 + 1,
    lambda lib, x: x.to(memory_format=lib.channels_last).clone(),
    lambda lib, x: x.transpose(0, 1).clone(),
    lambda lib, x: x[:, ::2].clone(),
    lambda lib, x: lib.zeros_like(x.to(memory_format=lib.channels_last)),
    lambda lib, x: lib.ones_like(x, memory_format=lib.channels_last),
    lambda lib, x: lib.full_like(x.transpose(1, 3), 2.0),
    lambda lib, x: lib.empty(2, 3, 4, 5, memory_format=lib.channels_last).fill_(1),
    lambda lib, x: x.to(lib.float64, memory_format=lib.channels_last),
    lambda lib, x: x[0].contiguous(memory_format=lib.channels_last),
    lambda lib, x: x.contiguous(memory_format=lib.channels_last_3d),
    lambda lib, x: x.unsqueeze(2).contiguous(memory_format=lib.channels_last_3d),
    lambda lib, x: [x.to(memory_format=lib.channels_last).is_contiguous(memory_format=f)
                    for f in (lib.contiguous_format, lib.channels_last)],
    lambda lib, x: x[:1, :1].contiguous(memory_format=lib.channels_last).is_contiguous(),
    lambda lib, x: lib.empty_strided((2, 2), (4, 2)).copy_(x[0, 0, :2, :2]),
    lambda lib, x: lib.empty_strided((2, 2), (4,)),
    lambda lib, x: x.new_empty_strided((3, 2), (1, 3)).fill_(0),
    lambda lib, x: repr(lib.channels_last) + repr(lib.preserve_format),
])
def test_layouts_match_torch(fn):
    e, t = _both(fn)
    assert e == t


@LIBS
def test_a_leaf_grad_takes_the_leaf_layout(lib):
    a = lib.rand(2, 3, 4, 5).to(memory_format=lib.channels_last).requires_grad_()
    (a * 3).sum().backward()
    assert a.grad.stride() == a.stride() and lib.equal(a.grad, lib.full_like(a, 3.0))
    sq = lib.rand(3, 3).t().requires_grad_()  # a dense transposed leaf
    (sq * lib.arange(9.0).reshape(3, 3)).sum().backward()
    assert sq.grad.stride() == sq.stride()
    assert lib.equal(sq.grad, lib.arange(9.0).reshape(3, 3))


@LIBS
def test_module_to_channels_last(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4), lib.nn.Linear(6, 2))
    assert m.to(memory_format=lib.channels_last) is m
    assert m[0].weight.is_contiguous(memory_format=lib.channels_last)
    assert m[2].weight.is_contiguous()  # 2-D: untouched
    x = lib.randn(2, 3, 8, 8).to(memory_format=lib.channels_last)
    assert m(x).shape == (2, 4, 6, 2)
    assert pickle.loads(pickle.dumps(lib.channels_last)) is lib.channels_last


def test_to_copies_unless_the_strides_suggest_the_format():
    # torch's rule: ``to(memory_format=f)`` returns the tensor itself exactly when its
    # strides suggest f (a transposed matrix stays for contiguous_format; an (N, 1, H, W)
    # tensor, both contiguous and channels-last, is copied for channels_last), and a copy
    # counts size-1 dims in its strides
    import torch as real

    def probe(lib):
        out = []
        for make, fmt in [
                (lambda: lib.empty(3, 4).t(), 'contiguous_format'),
                (lambda: lib.empty(2, 3, 4, 5).permute(0, 2, 3, 1), 'contiguous_format'),
                (lambda: lib.empty(2, 3, 4, 5).permute(0, 1, 3, 2), 'channels_last'),
                (lambda: lib.empty(2, 2, 1, 1), 'channels_last'),
                (lambda: lib.empty(2, 1, 3, 3), 'channels_last'),
                (lambda: lib.empty(2, 3, 4, 5, memory_format=lib.channels_last),
                 'channels_last'),
                (lambda: lib.empty(2, 3, 4, 5, memory_format=lib.channels_last),
                 'contiguous_format'),
                (lambda: lib.empty(2, 3, 1, 1, 2), 'channels_last_3d'),
                (lambda: lib.empty(2, 3, 4, 5, 6).permute(0, 2, 3, 4, 1), 'contiguous_format')]:
            x = make()
            y = x.to(memory_format=getattr(lib, fmt))
            out.append((y is x, y.stride(), x.clone(memory_format=lib.channels_last).stride()
                        if x.dim() == 4 else None))
        return out
    assert probe(ember) == probe(real)
