"""nn.utils.prune against torch on the same weights: L1 and Ln-structured pruning (masks,
pruned values, the reparametrization's parameters and buffers, gradients), iterative pruning
through a PruningContainer, custom masks, global pruning, removal, and torch's errors.
Random pruning is checked by its counts (the draws differ)."""
import numpy as np
import pytest

from tests.dropin.compare import same, plain, error_of, torch, ember
import torch.nn.utils.prune  # noqa: E402,F401  (torch.nn.utils does not import it itself)


def _model(lib):
    rng = np.random.default_rng(0)
    m = lib.nn.Sequential(lib.nn.Linear(6, 5), lib.nn.ReLU(), lib.nn.Linear(5, 4))
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)), dtype=lib.float32))
    return m


def _report(lib, m, layer):
    x = lib.tensor(np.linspace(-1, 1, 12).reshape(2, 6), dtype=lib.float32)
    m(x).sum().backward()
    return (sorted(layer.state_dict()), sorted(n for n, _ in layer.named_parameters()),
            plain(layer.weight), plain(layer.weight_mask), plain(layer.weight_orig.grad))


@pytest.mark.parametrize('how', [
    lambda P, l: P.l1_unstructured(l, 'weight', amount=0.3),
    lambda P, l: P.l1_unstructured(l, 'weight', amount=7),
    lambda P, l: P.ln_structured(l, 'weight', amount=0.4, n=2, dim=0),
    lambda P, l: P.ln_structured(l, 'weight', amount=2, n=1, dim=1),
    lambda P, l: P.ln_structured(l, 'weight', amount=1, n=float('inf'), dim=-1),
    lambda P, l: P.identity(l, 'weight'),
    lambda P, l: P.custom_from_mask(l, 'weight', mask=(l.weight > 0).float()),
    lambda P, l: P.l1_unstructured(l, 'weight', amount=0.2,
                                   importance_scores=l.weight.detach() ** 3),
])
def test_deterministic_pruning(how):
    def run(lib):
        m = _model(lib)
        how(lib.nn.utils.prune, m[0])
        return _report(lib, m, m[0])
    same(run)


def test_iterative_pruning_combines_masks():
    def run(lib):
        P = lib.nn.utils.prune
        m = _model(lib)
        P.l1_unstructured(m[0], 'weight', amount=0.2)
        P.ln_structured(m[0], 'weight', amount=1, n=2, dim=0)
        P.l1_unstructured(m[0], 'weight', amount=3)
        hook = next(iter(m[0]._forward_pre_hooks.values()))
        return (type(hook).__name__, len(hook), [type(h).__name__ for h in hook],
                _report(lib, m, m[0]))
    same(run)


def test_remove_makes_it_permanent():
    def run(lib):
        P = lib.nn.utils.prune
        m = _model(lib)
        P.l1_unstructured(m[2], 'weight', amount=0.5)
        before = P.is_pruned(m)
        P.remove(m[2], 'weight')
        return (before, P.is_pruned(m), sorted(m[2].state_dict()), plain(m[2].weight),
                isinstance(m[2].weight, lib.nn.Parameter), len(m[2]._forward_pre_hooks))
    same(run)


def test_global_unstructured():
    def run(lib):
        P = lib.nn.utils.prune
        m = _model(lib)
        P.global_unstructured([(m[0], 'weight'), (m[2], 'weight')],
                              pruning_method=P.L1Unstructured, amount=0.4)
        return plain(m[0].weight_mask), plain(m[2].weight_mask)
    same(run)


def test_random_pruning_counts():
    def run(lib):
        P = lib.nn.utils.prune
        m = _model(lib)
        P.random_unstructured(m[0], 'weight', amount=0.5)
        P.random_structured(m[2], 'weight', amount=2, dim=0)
        zero_rows = int((m[2].weight_mask.sum(1) == 0).sum())
        return int((m[0].weight_mask == 0).sum()), zero_rows, sorted(m[2].state_dict())
    same(run)


def test_prune_method_on_a_tensor():
    def run(lib):
        t = lib.tensor([[0.5, -2.0, 0.1], [3.0, -0.2, 1.0]])
        return plain(lib.nn.utils.prune.L1Unstructured(amount=2).prune(t))
    same(run)


@pytest.mark.parametrize('how', [
    lambda P, l: P.l1_unstructured(l, 'weight', amount=1.5),
    lambda P, l: P.l1_unstructured(l, 'weight', amount=-1),
    lambda P, l: P.l1_unstructured(l, 'weight', amount='a'),
    lambda P, l: P.l1_unstructured(l, 'weight', amount=100),
    lambda P, l: P.ln_structured(l, 'bias', amount=1, n=2, dim=0),
    lambda P, l: P.ln_structured(l, 'weight', amount=1, n=2, dim=4),
    lambda P, l: P.remove(l, 'weight'),
    lambda P, l: P.global_unstructured(3, pruning_method=P.L1Unstructured, amount=1),
    lambda P, l: P.global_unstructured([(l, 'weight')], pruning_method=P.LnStructured,
                                       amount=1, n=2, dim=0),
    lambda P, l: P.l1_unstructured(l, 'nope', amount=1),
])
def test_errors(how):
    def run(lib):
        m = _model(lib)
        how(lib.nn.utils.prune, m[0])
        return sorted(m[0].state_dict())
    e, t = [error_of(run, lib) for lib in (ember, torch)]
    assert e[0] == t[0] and e[1].replace('ember', 'torch')[:40] == t[1][:40]
