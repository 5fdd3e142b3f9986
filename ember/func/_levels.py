"""The torch.func transforms running now, and what they ask of a custom autograd.Function
called inside them (torch's rules: ``setup_context`` style, and under vmap a ``vmap``
staticmethod or ``generate_vmap_rule=True``). ember's transforms would run any Function
(vmap loops, grad is plain autograd), but code written against ember must run on torch."""

RUNNING = []  # one entry per transform running now, innermost last: 'vmap', 'grad' or 'jvp'

_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def check_function(cls):
    """Raises torch's error when ``cls.apply`` runs inside a transform it may not."""
    if cls.__module__.startswith('ember.'):
        return  # (ember's own Functions stand for what torch does natively)
    if not cls._setup_style:
        raise RuntimeError("In order to use an autograd.Function with functorch transforms "
                           "(vmap, grad, jvp, jacrev, ...), it must override the setup_context "
                           f"staticmethod. {_DOCS}")
    from ..autograd.function import Function
    if 'vmap' in RUNNING and not cls.generate_vmap_rule and cls.vmap is Function.vmap:
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap "
                           "support. Please override and implement the vmap staticmethod or set "
                           f"generate_vmap_rule=True. {_DOCS}")


class running:
    """Context manager: a transform of ``kind`` runs inside it."""

    def __init__(self, kind):
        self.kind = kind

    def __enter__(self):
        RUNNING.append(self.kind)

    def __exit__(self, *exc):
        RUNNING.pop()
        return False
