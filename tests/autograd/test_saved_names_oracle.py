"""grad_fn._saved_<name>, ember against torch 2.13: every name ember gives a node is one torch's
node of that name has, and reads the same value (numbers with their type, tuples, strings,
None, tensors by value), before and after backward."""
import numpy as np
import pytest

from tests.oracle.oracle import values, torch, ember

import ember.nn.functional  # noqa: F401  (its nodes join the walk below)


def _node_classes():
    from ember.autograd.graph import Node
    seen, todo = {}, [Node]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen.values():
                seen.setdefault(sub.__name__, sub)
                todo.append(sub)
    return seen


def _saved_names(cls):
    return sorted(n for n in dir(cls) if n.startswith('_saved_')
                  and isinstance(getattr(cls, n, None), property))


def test_every_saved_name_is_torchs():
    named = {name: _saved_names(cls) for name, cls in _node_classes().items()
             if _saved_names(cls)}
    assert len(named) >= 40
    for name, attrs in named.items():
        theirs = getattr(torch._C._functions, name, None)
        assert theirs is not None, name
        raw = [n for n in dir(_node_classes()[name]) if n.startswith('_raw_saved_')]
        assert set(attrs + raw) <= set(dir(theirs)), (name, set(attrs + raw) - set(dir(theirs)))


rng = np.random.default_rng(0)
M = rng.standard_normal((3, 3)).astype(np.float32)
B = rng.standard_normal((2, 3, 3)).astype(np.float32)
I3 = rng.standard_normal((1, 2, 5)).astype(np.float32)
I4 = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
W2 = rng.standard_normal((3, 2, 2, 2)).astype(np.float32)


def leaf(lib, a):
    return lib.tensor(a, requires_grad=True)


CASES = {
    'mul': lambda l: leaf(l, M) * leaf(l, M),
    'div': lambda l: leaf(l, M) / leaf(l, M),
    'div trunc': lambda l: l.div(leaf(l, M), 2.0, rounding_mode='floor'),
    'div None': lambda l: l.div(leaf(l, M), leaf(l, M), rounding_mode=None),
    'pow': lambda l: leaf(l, M) ** 2,
    'exp': lambda l: leaf(l, M).exp(),
    'tanh': lambda l: leaf(l, M).tanh(),
    'sigmoid': lambda l: leaf(l, M).sigmoid(),
    'sin': lambda l: leaf(l, M).sin(),
    'log': lambda l: leaf(l, M).abs().log(),
    'sqrt': lambda l: leaf(l, M).abs().sqrt(),
    'abs': lambda l: leaf(l, M).abs(),
    'relu': lambda l: leaf(l, M).relu(),
    'asin': lambda l: (leaf(l, M) / 4).asin(),
    'reciprocal': lambda l: leaf(l, M).reciprocal(),
    'erf': lambda l: leaf(l, M).erf(),
    'log1p': lambda l: leaf(l, M).abs().log1p(),
    'atan2': lambda l: l.atan2(leaf(l, M), leaf(l, M)),
    'maximum': lambda l: l.maximum(leaf(l, M), leaf(l, M)),
    'copysign': lambda l: l.copysign(leaf(l, M), leaf(l, M)),
    'stack': lambda l: l.stack([leaf(l, M), leaf(l, M)], 1),
    'cat': lambda l: l.cat([leaf(l, M), leaf(l, M)], 1),
    'unsqueeze': lambda l: leaf(l, M).unsqueeze(1),
    'unbind': lambda l: leaf(l, M).unbind(1)[0],
    'view': lambda l: leaf(l, M).view(9),
    'expand': lambda l: leaf(l, M)[:1].expand(4, 3),
    'index': lambda l: leaf(l, M)[:, l.tensor([0, 2])],
    'index rows': lambda l: leaf(l, M)[l.tensor([0, 2])],
    'sum': lambda l: leaf(l, M).sum(),
    'sum dim': lambda l: leaf(l, M).sum(1, keepdim=True),
    'mean': lambda l: leaf(l, M).mean(),
    'mean dim': lambda l: leaf(l, M).mean(0),
    'mm': lambda l: leaf(l, M).mm(leaf(l, M)),
    'bmm': lambda l: leaf(l, B).bmm(leaf(l, B)),
    'addmm': lambda l: l.addmm(leaf(l, M), leaf(l, M), leaf(l, M), beta=2, alpha=0.5),
    'baddbmm': lambda l: l.baddbmm(leaf(l, B), leaf(l, B), leaf(l, B), alpha=3),
    'addbmm': lambda l: l.addbmm(leaf(l, M), leaf(l, B), leaf(l, B)),
    'conv2d': lambda l: l.nn.functional.conv2d(leaf(l, I4), leaf(l, W2), None, 2, 1),
    'conv2d bias': lambda l: l.nn.functional.conv2d(leaf(l, I4), leaf(l, W2), leaf(l, M[0])),
    'conv_transpose2d': lambda l: l.nn.functional.conv_transpose2d(
        leaf(l, I4), leaf(l, W2.transpose(1, 0, 2, 3).copy()), None, 2, 0, 1),
    'interpolate linear': lambda l: l.nn.functional.interpolate(leaf(l, I3), 7, mode='linear'),
    'interpolate bilinear scale': lambda l: l.nn.functional.interpolate(
        leaf(l, I4), scale_factor=1.5, mode='bilinear', align_corners=True),
    'interpolate nearest': lambda l: l.nn.functional.interpolate(leaf(l, I4), scale_factor=2.0),
    'unfold': lambda l: l.nn.functional.unfold(leaf(l, I4), 2, dilation=1, padding=1, stride=2),
    'fold': lambda l: l.nn.functional.fold(leaf(l, B.reshape(1, 6, 3)[:, :4]), (2, 4), 2),
    'pdist': lambda l: l.pdist(leaf(l, M), p=3),
    'logit': lambda l: l.logit(leaf(l, M).sigmoid(), 0.25),
    'qr': lambda l: l.linalg.qr(leaf(l, M), mode='complete')[0],
    'threshold': lambda l: l.threshold(leaf(l, M), 0.5, 2.0),
    'threshold int': lambda l: l.nn.functional.threshold(leaf(l, M), 1, 2),
    'as_strided': lambda l: leaf(l, M).as_strided((2, 2), (1, 2), 1),
    'nll_loss': lambda l: l.nn.functional.nll_loss(leaf(l, M), l.tensor([0, 2, 1]),
                                                   ignore_index=1, reduction='sum'),
    'nll_loss weight': lambda l: l.nn.functional.nll_loss(leaf(l, M), l.tensor([0, 2, 1]),
                                                          weight=l.tensor([1., 2., 3.])),
}


def _same(a, b, where):
    if isinstance(b, torch.Tensor):
        assert isinstance(a, ember.Tensor), where
        np.testing.assert_allclose(values(a), values(b), rtol=1e-5, atol=1e-6, err_msg=where)
    elif isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), (where, a, b)
        for x, y in zip(a, b):
            _same(x, y, where)
    else:
        assert type(a) is type(b) and a == b, (where, a, b)


def _read(fn, name):
    try:
        return fn.__getattribute__(name)
    except RuntimeError as e:
        return ('raised', str(e)[:60])


@pytest.mark.parametrize('case', sorted(CASES))
def test_saved_values_match_torch(case):
    e, t = CASES[case](ember), CASES[case](torch)
    ef, tf = e.grad_fn, t.grad_fn
    assert ef.name() == tf.name()
    names = _saved_names(type(ef))
    assert names, f"{ef.name()} names none of its saved values"
    for name in names:
        _same(_read(ef, name), _read(tf, name), f"{ef.name()}.{name}")
    e.sum().backward()
    t.sum().backward()
    for name in names:  # (tensors are freed with the graph; the other values stay)
        _same(_read(ef, name), _read(tf, name), f"{ef.name()}.{name} after backward")


def test_raw_saved_register_hooks():
    out = {}
    for lib in (ember, torch):
        log = []
        a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = a.exp()
        raw = y.grad_fn._raw_saved_result
        raw.register_hooks(lambda x: (log.append('pack'), x * 2)[1],
                           lambda x: (log.append('unpack'), x)[1])
        read = values(y.grad_fn._saved_result)
        errors = []
        for args in ((lambda x: x, lambda x: x), (1, 2)):
            try:
                raw.register_hooks(*args)
            except (RuntimeError, TypeError) as e:
                errors.append((type(e).__name__, str(e)[:40]))
        w = lib.tensor([1.0, 2.0, 3.0])
        nll = lib.nn.functional.nll_loss(a[None], lib.tensor([1]), weight=w)
        y.sum().backward()
        out[lib.__name__] = (log, read, errors, values(a.grad),
                             type(nll.grad_fn._raw_saved_weight).__name__)
    e, t = out['ember'], out['torch']
    assert e[0] == t[0] and e[2][0] == t[2][0] and e[2][1][0] == t[2][1][0] and e[4] == t[4]
    np.testing.assert_allclose(e[1], t[1], rtol=1e-6)
    np.testing.assert_allclose(e[3], t[3], rtol=1e-6)
