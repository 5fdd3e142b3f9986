"""Thread-local grad mode: no_grad, enable_grad, set_grad_enabled, inference_mode.

Inference tensors: a tensor made inside ``inference_mode()`` has ``INFERENCE_VC`` for its
version counter (the ``_vc`` slot every tensor has) instead of a one-element list. It counts
nothing: reading it while grad mode is on is what saving a tensor for backward does, so that
is refused with torch's "cannot be saved for backward" error; writing it outside inference
mode is what every in-place op does, so that is refused too (in-place ops call the
``before_write`` of any counter that is not a plain list before they write). ``is_inference``
is the identity test on ``_vc``; a view shares its base's counter, so a view of an inference
tensor is one too.

Each mode object is a context manager and also a decorator. As a decorator it enters a fresh
copy of itself (``clone``) around every call, so one decorated function can be re-entered or
run from several threads; a generator function gets the mode only while its own code runs,
not while its caller holds the generator between ``yield``\\ s (as torch does).
"""
import functools
import inspect
import threading
import warnings

__all__ = ['no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode', 'is_grad_enabled',
           'is_inference_mode_enabled', 'set_multithreading_enabled', 'is_multithreading_enabled',
           'is_view_replay_enabled']


class _State(threading.local):
    # Class attributes are the per-thread defaults: every new thread starts with grad on.
    enabled = True
    inference = False
    multithreading = True
    # Whether a view rebuilt after an in-place op replays its view ops (torch's
    # _force_original_view_tracking) rather than becoming one as_strided of its base.
    view_replay = False
    # True while forward AD derives a jvp from a backward formula (grad mode on internally):
    # what that saves is a constant of the derivation, not autograd history, so inference
    # tensors may be saved then.
    deriving_jvp = False


STATE = _State()

# How many inference_mode(True) blocks and allow_mutation_on_saved_tensors contexts are open,
# over all threads: while none is, making a tensor needs no look-up to know that it gets a
# plain counter (see new_version_counter).
SPECIAL_VC_OPEN = [0]
_OPEN_LOCK = threading.Lock()
# The counter class of the open allow_mutation_on_saved_tensors context (or None).
WATCHED_VC = [None]

_SAVE_REFUSED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")
_WRITE_REFUSED = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")


class _InferenceVersion:
    """The version counter of inference tensors (one shared instance, ``INFERENCE_VC``)."""
    __slots__ = ()

    def __getitem__(self, i):
        # Ops read a tensor's version when they save it for backward, which only happens
        # with grad mode on.
        if STATE.enabled and not STATE.deriving_jvp:
            raise RuntimeError(_SAVE_REFUSED)
        return 0

    def __setitem__(self, i, value):
        check_inference_write()

    def before_write(self):
        """Called by in-place ops before they write (for a counter that is not a list)."""
        check_inference_write()


INFERENCE_VC = _InferenceVersion()


def check_inference_write():
    """torch's refusal of an in-place change to an inference tensor outside inference mode
    (in-place ops call it before they write, when the tensor's ``_vc`` is not a list)."""
    if not STATE.inference:
        raise RuntimeError(_WRITE_REFUSED)


def new_version_counter():
    """The version counter of a tensor made now: ``INFERENCE_VC`` inside inference mode, a
    watched one inside ``allow_mutation_on_saved_tensors``, else a plain ``[0]``."""
    if STATE.inference:
        return INFERENCE_VC
    watched = WATCHED_VC[0]
    return [0] if watched is None else watched([0])


def is_grad_enabled():
    """True if operations currently record a graph for backward."""
    return STATE.enabled


def is_inference_mode_enabled():
    """True inside ``inference_mode()``."""
    return STATE.inference


def is_multithreading_enabled():
    """Whether backward may use worker threads (``set_multithreading_enabled``). ember's
    engine runs every backward on the calling thread, so the setting is only recorded."""
    return STATE.multithreading


def is_view_replay_enabled():
    """Whether views rebuilt after an in-place op replay their view ops
    (``_force_original_view_tracking(True)``); by default they become one ``as_strided`` of
    their base (grad_fn ``AsStridedBackward0``), as in torch."""
    return STATE.view_replay


def _wrap_generator(make_ctx, fn):
    """``fn`` (a generator function) with the mode entered only while the generator runs."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with make_ctx():
                reply = gen.send(None)
            while True:
                try:
                    request = yield reply
                except GeneratorExit:
                    with make_ctx():
                        gen.close()
                    raise
                except BaseException as e:  # noqa: BLE001 - forwarded into the generator
                    with make_ctx():
                        reply = gen.throw(e)
                else:
                    with make_ctx():
                        reply = gen.send(request)
        except StopIteration as stop:
            return stop.value
    return wrapper


class _Mode:
    """Base of the grad-mode context managers; each also works as a decorator."""

    def __call__(self, fn):
        if inspect.isclass(fn):
            warnings.warn("Decorating classes is deprecated and will be disabled in future "
                          "versions. You should only decorate functions or methods. To preserve "
                          "the current behavior of class decoration, you can directly decorate "
                          "the `__init__` method and nothing else.", FutureWarning, stacklevel=2)
            cls = fn

            def fn(*args, **kwargs):
                return cls(*args, **kwargs)
        make_ctx = self.clone
        if inspect.isgeneratorfunction(fn):
            return _wrap_generator(make_ctx, fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with make_ctx():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        """A fresh, not yet entered copy of this mode (decorators enter one per call)."""
        return self.__class__()

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False


class _NoParamMode(_Mode):
    """A mode that takes no argument, usable as ``@mode()`` and also as bare ``@mode``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamMode):
    """Context manager / decorator that turns off graph recording.

    >>> x = ember.ones(2, requires_grad=True)
    >>> with ember.no_grad():
    ...     (x * 2).requires_grad
    False
    """

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = False


class enable_grad(_NoParamMode):
    """Context manager / decorator that turns graph recording back on inside ``no_grad``."""

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = True


class set_grad_enabled(_Mode):
    """Sets grad mode to ``mode``. It takes effect at once (a plain call is a setter); as a
    context manager it restores, on exit, the mode in force when it was created; as a
    decorator it leaves the caller's mode alone and applies ``mode`` around each call."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be "
                            f"bool, not {type(mode).__name__}")
        self._prev = STATE.enabled
        self.mode = mode
        STATE.enabled = mode

    def __call__(self, fn):
        # Creating the decorator switched the mode; decorating must not leave it switched.
        STATE.enabled = self._prev
        return super().__call__(fn)

    def clone(self):
        """A fresh copy with the same ``mode``."""
        return self.__class__(self.mode)

    def __enter__(self):
        pass


class inference_mode(_Mode):
    """Like ``no_grad`` (tensors made inside never record history), and the tensors made
    inside are inference tensors (see the module's docstring). ``inference_mode(False)``
    switches inference mode off and grad mode on inside it, as torch does."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        # Bare ``@inference_mode``: the argument is the function being decorated.
        return cls()(mode)

    def __init__(self, mode=True):
        if isinstance(mode, bool):
            self.mode = mode

    def clone(self):
        """A fresh copy with the same ``mode``."""
        return self.__class__(self.mode)

    def __enter__(self):
        self._prev = STATE.enabled
        self._prev_inf = STATE.inference
        STATE.enabled = not self.mode
        STATE.inference = self.mode
        if self.mode:
            with _OPEN_LOCK:
                SPECIAL_VC_OPEN[0] += 1

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        STATE.inference = self._prev_inf
        if self.mode:
            with _OPEN_LOCK:
                SPECIAL_VC_OPEN[0] -= 1
        return False


class set_multithreading_enabled(_Mode):
    """Allows or forbids backward to run on worker threads: like ``set_grad_enabled``, it
    takes effect when created and, as a context manager, restores the previous setting on
    exit. (ember's backward always runs on the calling thread; this is torch's switch for
    code that sets it.)"""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_multithreading_enabled(): argument 'enabled' (position 1) "
                            f"must be bool, not {type(mode).__name__}")
        self._prev_mt = STATE.multithreading
        self.mode = mode
        STATE.multithreading = mode

    def __call__(self, fn):
        STATE.multithreading = self._prev_mt  # (decorating leaves the caller's setting)
        return super().__call__(fn)

    def clone(self):
        """A fresh copy with the same ``mode``."""
        return self.__class__(self.mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        STATE.multithreading = self._prev_mt
        return False


class _force_original_view_tracking(set_multithreading_enabled):
    """Makes views rebuilt after an in-place op replay their view ops (``True``) or become
    one ``as_strided`` of their base (``False``, the default), for this thread: like
    ``set_grad_enabled``, it takes effect when created and restores the previous setting on
    exit (or, as a decorator, around each call)."""

    def __init__(self, mode):
        self._prev_replay = STATE.view_replay
        self.mode = mode
        STATE.view_replay = mode

    def __call__(self, fn):
        STATE.view_replay = self._prev_replay
        return _Mode.__call__(self, fn)

    def __enter__(self):
        STATE.view_replay = self.mode

    def __exit__(self, *exc):
        STATE.view_replay = self._prev_replay
        return False
