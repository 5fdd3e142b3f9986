"""``torch.cond`` and ``torch.while_loop``: control flow torch's compiler captures as one op.
ember runs eagerly, so each is the plain Python control flow it stands for."""

__all__ = ['cond', 'while_loop']


def _truth(pred):
    from ._tensor import Tensor
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got "
                               f"{pred}.")
        return bool(pred.item())
    return bool(pred)


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` (a bool or a one-element tensor) holds, else
    ``false_fn(*operands)``."""
    return (true_fn if _truth(pred) else false_fn)(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Applies ``body_fn`` to the carried values while ``cond_fn`` of them holds; returns the
    last values (``carried_inputs`` as a tuple if the body never ran)."""
    carried = tuple(carried_inputs)
    out = carried
    while _truth(cond_fn(*carried)):
        out = body_fn(*carried)
        carried = out if isinstance(out, (tuple, list)) else (out,)
    return out
