"""The order in which the backward engine runs nodes, compared with torch's.

torch's engine keeps ready nodes in a priority queue: leaf accumulators first, then the
node with the highest sequence number (nodes are numbered as they are created). Each test
builds the same graph on ember and on torch, records the order in which hooks fire, and
compares the two records.
"""
import random
from functools import partial

import numpy as np
import pytest

from ._upstream import ember, torch

LIBS = (ember, torch)


def _same_order(scenario, *args):
    """Runs ``scenario(lib, order, *args)`` on both libraries; their records must match."""
    records = []
    for lib in LIBS:
        order = []
        scenario(lib, order, *args)
        records.append(order)
    assert records[0] == records[1], f"ember {records[0]}\ntorch {records[1]}"
    assert records[0], "the scenario recorded nothing"


def _leaf(lib, *shape, seed=0):
    data = np.random.default_rng(seed).standard_normal(shape or (3,))
    return lib.tensor(data, requires_grad=True)


def _tag(order, name, t):
    t.register_hook(lambda g: order.append(name))
    return t


def _tag_node(order, node, name):
    node.register_prehook(lambda g: order.append(f"pre {name}"))
    node.register_hook(lambda gi, go: order.append(f"post {name}"))


def _diamond(lib, order):
    x, y, w = (_tag(order, n, _leaf(lib, seed=i)) for i, n in enumerate('xyw'))
    a, b, c = _tag(order, 'a', x * 2), _tag(order, 'b', y * 3), _tag(order, 'c', w.exp())
    d, e = _tag(order, 'd', a + b), _tag(order, 'e', b * c)
    f = _tag(order, 'f', d * e + a.sin() + c)
    f.sum().backward()


def _interleaved_chains(lib, order):
    # The second chain's nodes are created between the first chain's: a node made ready
    # must wait while a node with a higher number waits.
    x, w = _leaf(lib, seed=1), _leaf(lib, seed=2)
    a1 = _tag(order, 'a1', x.exp())
    b1 = _tag(order, 'b1', w.exp())
    a2 = _tag(order, 'a2', a1.sin())
    b2 = _tag(order, 'b2', b1.sin())
    a3 = _tag(order, 'a3', a2 * 2)
    (a3 + b2).sum().backward()


def _many_leaves(lib, order, n, combine):
    leaves = [_tag(order, f"leaf{i}", _leaf(lib, 2, seed=i)) for i in range(n)]
    if combine == 'stack':
        lib.stack(leaves).sum().backward()
    elif combine == 'sum':
        sum(t * 1 for t in leaves).sum().backward()
    else:
        u = lib.cat(leaves)
        parts = u.split([1, 1, 2 * n - 2])
        (parts[0].sum() * parts[1].sum() + parts[2].sum()).backward()


def _multi_output(lib, order):
    x = _tag(order, 'x', _leaf(lib, 6, seed=3))
    y = _tag(order, 'y', x * 1)
    p, q, r = (_tag(order, n, t) for n, t in zip('pqr', y.unbind()))
    _tag(order, 's', p * q + r.exp() * p).backward()


def _roots(lib, order):
    leaves = [_tag(order, f"leaf{i}", _leaf(lib, 2, seed=i)) for i in range(6)]
    ones = lib.ones(2)
    lib.autograd.backward([leaves[0] * 1, leaves[3], leaves[1], leaves[2] * 2, leaves[3],
                           leaves[5].sum()], [ones] * 5 + [lib.tensor(1.)])


def _node_hooks_on_module(lib, order):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2))
    x = _tag(order, 'x', lib.randn(3, 4, requires_grad=True))
    loss = model(x).pow(2).sum()
    seen = set()
    todo = [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        _tag_node(order, node, node.name())
        todo.extend(n for n, _ in node.next_functions if n is not None)
    for name, p in model.named_parameters():
        _tag(order, name, p)
        p.register_post_accumulate_grad_hook(partial(lambda n, t: order.append(f"acc {n}"),
                                                     name))
    loss.backward()


def _set_sequence_nr(lib, order):
    x, y, z = (_leaf(lib, seed=i) for i in range(3))
    a, b, c, d = x + y, y + z, z * x, x - z
    # reverse the creation order of the four branches
    for k, t in enumerate((a, b, c, d)):
        t.grad_fn._set_sequence_nr(1000 + 10 * (4 - k))
        _tag(order, 'abcd'[k], t)
    order.append([t.grad_fn._sequence_nr() - 1000 for t in (a, b, c, d)])
    (a * b + c * d).sum().backward()


def _grad_with_inputs(lib, order):
    x, y = _leaf(lib, seed=1), _leaf(lib, seed=2)
    a = _tag(order, 'a', x.sin())
    b = _tag(order, 'b', y.cos() * a)
    c = _tag(order, 'c', a.exp())
    d = _tag(order, 'd', b + c)
    gs = lib.autograd.grad(d.sum(), [a, y])
    order.append([round(float(g.sum()), 6) for g in gs])


def _double_backward(lib, order):
    x, y = _leaf(lib, seed=4), _leaf(lib, seed=5)
    z = _tag(order, 'z', (x * y).sin() + x.exp() * y)
    gx, gy = lib.autograd.grad(z.sum(), [x, y], create_graph=True)
    _tag(order, 'gx', gx)
    _tag(order, 'gy', gy)
    (gx * gy).sum().backward()
    order.append(round(float(x.grad.sum()), 6))


def _reentrant(lib, order):
    class Reenter(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 1

        @staticmethod
        def backward(ctx, g):
            order.append('reenter')
            with lib.enable_grad():
                inner = _tag(order, 'inner', _leaf(lib, seed=7) * 2)
                inner.sum().backward()
            return g

    x, w = _tag(order, 'x', _leaf(lib, seed=8)), _tag(order, 'w', _leaf(lib, seed=9))
    a = _tag(order, 'a', x.exp())
    r = _tag(order, 'r', Reenter.apply(a))
    b = _tag(order, 'b', w * 3)
    (r * b).sum().backward()


def _inplace_on_view(lib, order):
    x = _tag(order, 'x', _leaf(lib, 4, seed=10))
    base = _tag(order, 'base', x * 1)
    view = base[1:3]
    y = _tag(order, 'y', _leaf(lib, 2, seed=11).exp())
    view.mul_(y)
    _tag(order, 'out', base * 2 + view.sum()).sum().backward()


@pytest.mark.parametrize('scenario', [
    _diamond, _interleaved_chains, _multi_output, _roots, _node_hooks_on_module,
    _set_sequence_nr, _grad_with_inputs, _double_backward, _reentrant, _inplace_on_view,
], ids=lambda f: f.__name__.strip('_'))
def test_hook_order(scenario):
    _same_order(scenario)


@pytest.mark.parametrize('combine', ['stack', 'sum', 'split'])
@pytest.mark.parametrize('n', [2, 3, 7, 12])
def test_accumulator_ties(n, combine):
    # Accumulators share one number; several ready together leave torch's binary heap in
    # an order that depends on when each was pushed.
    _same_order(_many_leaves, n, combine)


def _random_graph(lib, order, seed):
    """A random graph of unary, binary and multi-output ops over a few leaves, with a hook
    on every tensor, and one backward from a sum of some of its tensors."""
    rng = random.Random(seed)
    ts = [_tag(order, f"leaf{i}", _leaf(lib, 4, seed=seed * 10 + i))
          for i in range(rng.randint(1, 4))]
    for k in range(rng.randint(3, 14)):
        kind = rng.choice(['unary', 'binary', 'binary', 'split', 'stack'])
        if kind == 'unary':
            op = rng.choice(['sin', 'exp', 'tanh', 'neg'])
            new = [getattr(rng.choice(ts), op)()]
        elif kind == 'binary':
            a, b = rng.choice(ts), rng.choice(ts)
            new = [a * b if rng.random() < 0.5 else a + b]
        elif kind == 'split':  # a node with two outputs
            p, q = (_tag(order, f"t{k}.{h}", t) for h, t in zip('pq', rng.choice(ts).split(2)))
            new = [lib.cat([q, p]), lib.cat([p * q, q])]
        else:
            new = [lib.stack(rng.sample(ts, min(len(ts), 3))).sum(0)]
        ts.extend(_tag(order, f"t{k}.{j}", t) for j, t in enumerate(new))
    roots = rng.sample(ts[-6:], rng.randint(1, min(3, len(ts))))
    sum(t.sum() for t in roots).backward()


@pytest.mark.parametrize('seed', range(12))
def test_random_graphs(seed):
    _same_order(_random_graph, seed)


def test_sequence_numbers():
    # Numbers grow with creation; an accumulator has the largest 64-bit number.
    for lib in LIBS:
        x = _leaf(lib)
        a = x * 2
        b = a.sin()
        c = x.exp()
        nrs = [t.grad_fn._sequence_nr() for t in (a, b, c)]
        assert nrs == sorted(nrs) and len(set(nrs)) == 3, lib.__name__
        assert b.grad_fn.next_functions[0][0]._sequence_nr() == nrs[0]
        acc = a.grad_fn.next_functions[0][0]
        assert acc._sequence_nr() == 2 ** 64 - 1, lib.__name__


def _profiled_backward(lib):
    """The backward nodes a profile records, in order, each with the forward operation that
    carries its sequence number (None for the accumulators) and whether its forward thread
    is the thread of that operation."""
    with lib.autograd.profiler.profile() as prof:
        x = lib.randn(4, 3, requires_grad=True)
        w = lib.randn(3, 2, requires_grad=True)
        h = lib.mm(x, w)
        y = lib.tanh(h) * h
        loss = lib.sum(y)
        loss.backward()
    events = prof.function_events
    forward = {e.sequence_nr: e for e in events if e.sequence_nr >= 0 and e.cpu_parent is None
               and e.name in ('aten::mm', 'aten::tanh', 'aten::mul', 'aten::sum')}
    prefix = 'autograd::engine::evaluate_function: '
    out = []
    for e in events:
        if e.name.startswith(prefix):
            inner = [c for c in e.cpu_children if c.name == e.name[len(prefix):]]
            assert len(inner) == 1 and inner[0].sequence_nr == e.sequence_nr
            f = forward.get(e.sequence_nr)
            out.append((e.name, f.name if f is not None else None,
                        f.thread == e.fwd_thread if f is not None else e.fwd_thread))
    return out


def test_profiled_backward_events():
    assert _profiled_backward(ember) == _profiled_backward(torch)


@pytest.mark.parametrize('value', ['a', -1, 2 ** 64, 1.5, True, 2 ** 64 - 1])
def test_set_sequence_nr_arguments(value):
    results = []
    for lib in LIBS:
        node = (_leaf(lib) * 2).grad_fn
        try:
            node._set_sequence_nr(value)
            results.append(node._sequence_nr())
        except (TypeError, OverflowError) as e:
            results.append((type(e), str(e)))
    assert results[0] == results[1]
