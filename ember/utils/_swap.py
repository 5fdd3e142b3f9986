"""``utils.swap_tensors``: two tensor objects exchange everything -- class, data, autograd
state, attributes -- so that every reference to the first now sees the second's content.

A graph built before the swap must not run afterwards: the leaf's AccumulateGrad node gets
a pre-hook that raises, and the version counters jump, so that a node that saved either
tensor for backward raises the same error when it unpacks it (torch's saved tensors keep
the old data; ember's keep the object, which no longer holds it)."""
import copyreg
import weakref

__all__ = ['swap_tensors', 'POISONED']

POISONED = ("Trying to execute AccumulateGrad node that was poisoned by swap_tensors this can "
            "happen when you try to run backward on a tensor that was swapped. For a module m "
            "with `torch.__future__.set_swap_module_params_on_conversion(True)` you should not "
            "change the device or dtype of the module (e.g. `m.cpu()` or `m.half()`) between "
            "running forward and backward. To resolve this, please only change the "
            "device/dtype before running forward (or after both forward and backward).")


def _poisoned(grad_outputs):
    raise RuntimeError(POISONED)


def _poison(t):
    ref = t.__dict__.get('_grad_acc')
    node = ref() if ref is not None else None
    if node is not None:
        node.register_prehook(_poisoned)


def swap_tensors(t1, t2):
    """Swaps the contents of the tensors ``t1`` and ``t2`` (of classes with the same slots),
    keeping each object's identity."""
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    slots = set(copyreg._slotnames(t1.__class__))
    if slots != set(copyreg._slotnames(t2.__class__)):
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    _poison(t1)
    _poison(t2)
    # Both version counters (shared with the tensors' views) jump past every version a graph
    # may have saved them at, and remember that jump in a second slot: a node that saved
    # either tensor, or a view of it, then raises POISONED (see autograd.graph) rather than
    # the in-place-modification error.
    swapped_at = max(t1._vc[0], t2._vc[0]) + 1
    for vc in (t1._vc, t2._vc):
        vc[0] = swapped_at
        vc[1:] = [swapped_at]
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    for slot in slots:
        has1, has2 = hasattr(t1, slot), hasattr(t2, slot)
        v1, v2 = getattr(t1, slot, None), getattr(t2, slot, None)
        if has2:
            setattr(t1, slot, v2)
        elif has1:
            delattr(t1, slot)
        if has1:
            setattr(t2, slot, v1)
        elif has2:
            delattr(t2, slot)
