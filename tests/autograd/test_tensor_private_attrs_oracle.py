"""Tensor's private autograd attributes torch exposes (``_grad_fn``, ``_backward_hooks``,
``_post_accumulate_grad_hooks``): reading, writing and deleting them as torch does, against
real torch."""
import pytest

torch = pytest.importorskip("torch", reason="real PyTorch 2.13 (the oracle) is not installed")
import ember  # noqa: E402


def _outcome(fn):
    try:
        return ('ok', fn())
    except Exception as e:  # (compared between the libraries: class and message)
        return (type(e).__name__, str(e))


@pytest.mark.parametrize('name', ['_grad_fn', '_backward_hooks', '_post_accumulate_grad_hooks',
                                  'data', 'requires_grad', 'grad'])
@pytest.mark.parametrize('leaf', [True, False])
def test_delete_refused_like_torch(name, leaf):
    def run(lib):
        x = lib.randn(3, requires_grad=True)
        t = x if leaf else x * 2

        def go():
            delattr(t, name)
        return _outcome(go)
    assert run(ember) == run(torch)


def test_grad_fn_read_and_write():
    def run(lib):
        x = lib.randn(3, requires_grad=True)
        y = x * 2
        seen = [type(y._grad_fn).__name__, x._grad_fn]
        y._grad_fn = None  # (torch allows it: y becomes a leaf)
        seen += [y.grad_fn, y.is_leaf]
        return seen
    assert run(ember) == run(torch)


def test_backward_hooks_read_and_write():
    def run(lib):
        x = lib.randn(3, requires_grad=True)
        seen = [x._backward_hooks, x._post_accumulate_grad_hooks]
        x.register_hook(lambda g: g * 3)
        x.register_post_accumulate_grad_hook(lambda t: None)
        seen += [len(x._backward_hooks), len(x._post_accumulate_grad_hooks)]
        (x * 1).sum().backward()
        seen.append(x.grad.tolist())
        x.grad = None
        x._backward_hooks = {}  # (drops the hooks)
        (x * 1).sum().backward()
        seen.append(x.grad.tolist())
        return seen
    assert run(ember) == run(torch)
