"""torch.cuda.nvtx: NVIDIA's range markers for profilers. A CPU build has no NVTX library, so
every call raises torch's RuntimeError (scripts guard these calls with
``torch.cuda.is_available()``)."""
import contextlib

__all__ = ['range_push', 'range_pop', 'range_start', 'range_end', 'mark', 'range']

_MISSING = "NVTX functions not installed. Are you sure you have a CUDA build?"


def _unavailable(*args, **kwargs):
    raise RuntimeError(_MISSING)


def range_push(msg):
    """Opens a nested range named ``msg`` (CUDA builds only)."""
    _unavailable()


def range_pop():
    """Closes the innermost range (CUDA builds only)."""
    _unavailable()


def range_start(msg):
    """Opens a range that may span threads (CUDA builds only)."""
    _unavailable()


def range_end(range_id):
    """Closes a range opened by ``range_start`` (CUDA builds only)."""
    _unavailable()


def mark(msg):
    """Marks an instant event (CUDA builds only)."""
    _unavailable()


@contextlib.contextmanager
def range(msg, *args, **kwargs):  # noqa: A001 - torch's name
    """A range around the ``with`` body (CUDA builds only)."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
