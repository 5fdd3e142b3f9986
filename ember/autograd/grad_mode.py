"""Thread-local grad mode: no_grad, enable_grad, set_grad_enabled, inference_mode."""
import functools
import threading

__all__ = ['no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode', 'is_grad_enabled',
           'is_inference_mode_enabled']


class _State(threading.local):
    # Class attributes are the per-thread defaults: every new thread starts with grad on.
    enabled = True
    inference = False


STATE = _State()


def is_grad_enabled():
    """True if operations currently record a graph for backward."""
    return STATE.enabled


def is_inference_mode_enabled():
    """True inside ``inference_mode()``."""
    return STATE.inference


class _Mode:
    """Base of the grad-mode context managers; each also works as a decorator."""

    def __call__(self, fn):
        mode = self

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with mode.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False


class no_grad(_Mode):
    """Context manager / decorator that turns off graph recording.

    >>> x = ember.ones(2, requires_grad=True)
    >>> with ember.no_grad():
    ...     (x * 2).requires_grad
    False
    """

    def __init__(self, orig_func=None):
        # ``@no_grad`` without parentheses is accepted, as torch does.
        self._fn = orig_func

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if orig_func is not None and callable(orig_func):
            self.__init__()
            return self(orig_func)
        return self

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = False


class enable_grad(no_grad):
    """Context manager / decorator that turns graph recording back on inside ``no_grad``."""

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = True


class set_grad_enabled(_Mode):
    """Sets grad mode to ``mode``; takes effect at once, and as a context manager restores
    the previous mode on exit."""

    def __init__(self, mode):
        self._prev = STATE.enabled
        self.mode = bool(mode)
        STATE.enabled = self.mode

    def clone(self):
        return set_grad_enabled(self.mode)

    def __enter__(self):
        pass


class inference_mode(_Mode):
    """Like ``no_grad`` (tensors made inside never record history); ``mode=False`` is a no-op."""

    def __init__(self, mode=True):
        self.mode = mode

    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if callable(mode) and not isinstance(mode, bool):
            self.__init__()
            return self(mode)
        return self

    def clone(self):
        return inference_mode(self.mode)

    def __enter__(self):
        self._prev = STATE.enabled
        self._prev_inf = STATE.inference
        if self.mode:
            STATE.enabled = False
            STATE.inference = True

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        STATE.inference = self._prev_inf
        return False
