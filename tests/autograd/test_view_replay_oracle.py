"""How a view is rebuilt after an in-place op, against torch: by default one as_strided of its
base (grad_fn AsStridedBackward0, its saved size/stride/offset), a replay of its view ops under
``autograd._force_original_view_tracking(True)`` (as a context, a call, a decorator; per
thread), a replay always for views of another dtype or with lazy conjugation; gradients the
same either way, including an in-place op on a view of an expanded tensor."""
import threading

import pytest

from tests.dropin.compare import same

VIEWS = [lambda a: a[0], lambda a: a[:, 1], lambda a: a.view(6), lambda a: a.t(),
         lambda a: a.narrow(1, 0, 2), lambda a: a.unsqueeze(0), lambda a: a.diagonal(),
         lambda a: a[:, ::2], lambda a: a.expand(2, 2, 3)[1], lambda a: a.t()[1:]]


def _rebuilt(lib, make, replay):
    leaf = lib.ones(2, 3, requires_grad=True)
    with lib.autograd._force_original_view_tracking(replay):
        v = make(leaf * 1)
        w = lib.arange(1., v.numel() + 1).reshape(v.shape)
        v.mul_(w)
        node = v.grad_fn
        (v * w).sum().backward()
    saved = (node._saved_size, node._saved_stride, node._saved_storage_offset) \
        if type(node).__name__ == 'AsStridedBackward0' else None
    return (type(node).__name__, saved, [type(n).__name__ for n, _ in node.next_functions],
            leaf.grad.tolist())


@pytest.mark.parametrize('make', VIEWS)
@pytest.mark.parametrize('replay', [False, True])
def test_rebuilt_view(make, replay):
    same(lambda lib: _rebuilt(lib, make, replay))


def test_switch_as_call_context_and_decorator():
    def run(lib):
        ag = lib.autograd
        seen = [ag.is_view_replay_enabled()]
        ag._force_original_view_tracking(True)
        seen.append(ag.is_view_replay_enabled())
        ag._force_original_view_tracking(False)
        with ag._force_original_view_tracking(True):
            seen.append(ag.is_view_replay_enabled())
        seen.append(ag.is_view_replay_enabled())

        @ag._force_original_view_tracking(True)
        def inside():
            return ag.is_view_replay_enabled()
        seen += [ag.is_view_replay_enabled(), inside(), ag.is_view_replay_enabled()]
        other = []
        with ag._force_original_view_tracking(True):
            t = threading.Thread(target=lambda: other.append(ag.is_view_replay_enabled()))
            t.start()
            t.join()
        return seen + other
    same(run)


def test_other_views_replay():
    def run(lib):
        a = (lib.ones(2, 3, requires_grad=True) * 1).to(lib.complex64)
        c = a.conj()
        c.mul_(2)
        r = lib.view_as_real(a * 1)
        r.mul_(2)
        return type(c.grad_fn).__name__, type(r.grad_fn).__name__
    same(run)
