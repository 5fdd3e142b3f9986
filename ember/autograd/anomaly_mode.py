"""Anomaly detection: detect_anomaly / set_detect_anomaly.

While enabled, every graph node remembers where in the user's code it was created (a few
(file, line, function) triples -- cheap to take, formatted only on error), and backward
checks each node's gradients for NaN. An error in a node's backward is reported with the
forward call that created the node.
"""
import functools
import linecache
import os
import sys
import warnings

__all__ = ['detect_anomaly', 'set_detect_anomaly', 'is_anomaly_enabled',
           'is_anomaly_check_nan_enabled']


class _State:
    enabled = False
    check_nan = True


ANOMALY = _State()
_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_DEPTH = 40


def is_anomaly_enabled():
    """True while anomaly detection is on."""
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled():
    """True if anomaly detection also checks backward results for NaN."""
    return ANOMALY.check_nan


def _warn_enabled():
    warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and "
                  "should only be enabled for debugging.", stacklevel=3)


class detect_anomaly:
    """Context manager / decorator turning anomaly detection on: a backward that produces
    NaN raises, naming the op and the forward line that created it.

    >>> with ember.autograd.detect_anomaly():
    ...     loss.backward()  # doctest: +SKIP
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self.prev = ANOMALY.enabled
        self.prev_check_nan = ANOMALY.check_nan
        _warn_enabled()

    def __enter__(self):
        self.prev, self.prev_check_nan = ANOMALY.enabled, ANOMALY.check_nan
        ANOMALY.enabled, ANOMALY.check_nan = True, self.check_nan

    def __exit__(self, *exc):
        ANOMALY.enabled, ANOMALY.check_nan = self.prev, self.prev_check_nan
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turns anomaly detection on or off at once; as a context manager, restores the
    previous setting on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = ANOMALY.enabled, ANOMALY.check_nan
        ANOMALY.enabled, ANOMALY.check_nan = bool(mode), check_nan

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        ANOMALY.enabled, ANOMALY.check_nan = self.prev, self.prev_check_nan
        return False


def record(node):
    """Remembers where ``node`` is being created: the user's frames, innermost last."""
    frames = []
    f = sys._getframe(2)
    while f is not None and len(frames) < _DEPTH:
        code = f.f_code
        if not code.co_filename.startswith(_EMBER_DIR):
            frames.append((code.co_filename, f.f_lineno, code.co_name))
        f = f.f_back
    frames.reverse()
    node.__dict__['_anomaly_trace'] = frames
    if _RUNNING:  # made by the backward of another node (double backward): its parent
        node.__dict__['_anomaly_parent'] = _RUNNING[-1]


# The nodes whose backward is running under anomaly mode, innermost last.
_RUNNING = []


def forward_trace(node):
    """The forward call that created ``node``, formatted like a traceback."""
    lines = []
    for filename, lineno, name in node.__dict__.get('_anomaly_trace', ()):
        lines.append(f'  File "{filename}", line {lineno}, in {name}\n')
        src = linecache.getline(filename, lineno).strip()
        if src:
            lines.append(f'    {src}\n')
    return ''.join(lines)


def report(node):
    """Warns with the forward traceback of the node whose backward failed."""
    trace = forward_trace(node)
    if trace:
        msg = (f"Error detected in {node.name()}. Traceback of forward call that caused the "
               f"error:\n{trace}")
    else:
        msg = (f"Error detected in {node.name()}. No forward pass information available. "
               "Enable detect anomaly during forward pass for more information.")
    _warn(msg)
    parent = node.__dict__.get('_anomaly_parent')
    while parent is not None:  # the backward calls that made this node, as torch lists them
        _warn(f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward "
              f"call that induced the previous calculation:\n{forward_trace(parent)}")
        parent = parent.__dict__.get('_anomaly_parent')


def _warn(msg):
    try:
        warnings.warn(msg, stacklevel=5)
    except Exception:  # (warnings turned into errors: the report goes to stderr, as torch's)
        sys.stderr.write(msg + '\n')


def check_call(node, grads_out):
    """Runs ``node`` (anomaly mode): errors get the forward trace, NaN results raise."""
    import numpy as np
    _RUNNING.append(node)
    try:
        grads_in = node.apply(grads_out)
    except Exception:
        report(node)
        raise
    finally:
        _RUNNING.pop()
    if ANOMALY.check_nan:
        for i, g in enumerate(grads_in):
            if g is not None and g._data.dtype.kind in 'fcV' and np.isnan(g._data).any():
                report(node)
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                                   "output.")
    return grads_in
