"""How tensors print: ``tensor_repr`` is ``repr()``/``str()`` of a Tensor, character for
character as torch prints it, and ``set_printoptions`` / ``get_printoptions`` /
``printoptions`` tune it.

The rules, learnt from torch's output:

* One formatter per tensor (two for complex: real and imaginary parts) picks a style from the
  nonzero finite values: integer-valued floats print as ``1.``; otherwise fixed-point with
  ``precision`` decimals; scientific (``1.0000e+10``) when the largest magnitude exceeds 1e8,
  the largest/smallest ratio exceeds 1000, or (non-integer values only) the smallest is below
  1e-4. Every element is right-aligned to the widest nonzero finite value.
* Above ``threshold`` elements only ``edgeitems`` rows/columns at each end of every dimension
  print, with ``...`` between; the style is chosen from what is shown.
* Rows wrap to ``linewidth`` columns; the ``dtype=`` / ``size=`` / ``grad_fn=`` /
  ``requires_grad=`` suffixes follow, each moving to a new line when it would overflow.
"""
import contextlib
import math
import sys

import numpy as np

from . import _dtype
from ._meta import MetaArray
from ._layout import STORAGE

__all__ = ['tensor_repr', 'set_printoptions', 'get_printoptions', 'printoptions']


class _PrintOptions:
    """The current print options (one shared instance, ``OPTS``)."""
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


OPTS = _PrintOptions()

_PROFILES = {
    'default': dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    'short': dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    'full': dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Sets how tensors print, as ``torch.set_printoptions`` does.

    ``profile`` ('default', 'short' or 'full') first resets the four numeric options; the
    explicit arguments then override it. ``sci_mode`` (True/False forces scientific notation
    on/off, None lets each tensor choose) is set by every call, so leaving it out resets it.
    """
    # An unknown profile name is ignored, as torch ignores it.
    for name, value in _PROFILES.get(profile, {}).items():
        setattr(OPTS, name, value)
    for name, value in (('precision', precision), ('threshold', threshold),
                        ('edgeitems', edgeitems), ('linewidth', linewidth)):
        if value is not None:
            setattr(OPTS, name, value)
    OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current print options as a dict (precision, threshold, edgeitems, linewidth,
    sci_mode), in the form ``set_printoptions(**d)`` accepts."""
    return {name: getattr(OPTS, name)
            for name in ('precision', 'threshold', 'edgeitems', 'linewidth', 'sci_mode')}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager that sets print options (``set_printoptions``' arguments) inside the
    ``with`` block and restores the previous ones after it."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Formats the elements of one real array to a common width, in the style its values
    call for (see the module doc)."""

    def __init__(self, values):
        precision = OPTS.precision
        self.floating = values.dtype.kind in 'fV'
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not self.floating:
            self.width = max([self.width] + [len(str(v)) for v in flat.tolist()])
        else:
            picked = flat[np.isfinite(flat) & (flat != 0)]
            if picked.size:
                magnitudes = np.abs(picked.astype(np.float64))
                lo, hi = magnitudes.min(), magnitudes.max()
                with np.errstate(over='ignore'):  # a huge/tiny ratio is just 'big'
                    big_spread = hi / lo > 1000.0 or hi > 1.0e8
                self.int_mode = bool(np.all(picked == np.ceil(picked)))
                self.sci_mode = big_spread or (not self.int_mode and lo < 1.0e-4)
                # A forced notation applies only when some value is nonzero and finite
                # (otherwise zeros stay '0.'), as in torch.
                if OPTS.sci_mode is not None:
                    self.sci_mode = OPTS.sci_mode
                if self.sci_mode:
                    spec, extra = f'.{precision}e', 0
                elif self.int_mode:
                    spec, extra = '.0f', 1  # room for the '.' that follows an integer value
                else:
                    spec, extra = f'.{precision}f', 0
                self.width = max(len(format(v, spec)) + extra for v in picked.tolist())

    def __call__(self, value):
        """``value`` (a Python number) as a string, right-aligned to the common width."""
        if not self.floating:
            s = str(value)
        elif self.sci_mode:
            s = format(value, f'{self.width}.{OPTS.precision}e')
        elif self.int_mode:
            s = format(value, '.0f')
            if math.isfinite(value):
                s += '.'
        else:
            s = format(value, f'.{OPTS.precision}f')
        return s.rjust(self.width)


def _shown(a, edge):
    """The part of ``a`` that a summarized print shows: ``edge`` items at each end of every
    dimension (what the formatters are fitted to)."""
    if a.ndim == 0:
        return a
    if edge <= 0:
        # Only '...' prints: no value to fit.
        return a[(slice(0, 0),) * a.ndim]
    for axis, n in enumerate(a.shape):
        if n > 2 * edge:
            a = np.take(a, list(range(edge)) + list(range(n - edge, n)), axis=axis)
    return a


def _element_formatter(a, summarize):
    """A function turning one element of ``a`` into its string, and that string's width."""
    shown = _shown(a, OPTS.edgeitems) if summarize else a
    if a.dtype.kind != 'c':
        fmt = _Formatter(shown)
        return fmt, fmt.width
    real, imag = _Formatter(shown.real), _Formatter(shown.imag)

    def fmt_complex(z):
        im = (imag(z.imag) + 'j').lstrip()
        # The imaginary part brings its own sign when negative (or a '+' of a nan/inf).
        return real(z.real) + (im if im[0] in '+-' else '+' + im)
    return fmt_complex, real.width + imag.width + 1


def _body(a, indent, summarize, fmt, width):
    """The bracketed contents of ``a`` starting at column ``indent``."""
    edge = OPTS.edgeitems
    if a.ndim == 0:
        return fmt(a.item())
    n = a.shape[0]
    cut = summarize and n > 2 * edge
    if a.ndim == 1:
        if summarize and not edge:
            items = ['...']
        elif cut:
            items = ([fmt(v) for v in a[:edge].tolist()] + [' ...']
                     + [fmt(v) for v in a[n - edge:].tolist()])
        else:
            items = [fmt(v) for v in a.tolist()]
        # Every element takes its width plus ', '; at least one goes on each line.
        per_line = max(1, math.floor((OPTS.linewidth - indent) / (width + 2)))
        lines = [', '.join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return '[' + (',\n' + ' ' * (indent + 1)).join(lines) + ']'
    rows = range(edge) if cut else range(n)
    parts = [_body(a[i], indent + 1, summarize, fmt, width) for i in rows]
    if cut:
        parts += ['...'] + [_body(a[i], indent + 1, summarize, fmt, width)
                            for i in range(n - edge, n)]
    # Sub-blocks of a k-d tensor are separated by k-1 newlines (blank lines between matrices).
    return '[' + (',' + '\n' * (a.ndim - 1) + ' ' * (indent + 1)).join(parts) + ']'


def _contents(a, indent):
    """The printed values of a non-empty array ``a`` whose text starts at column ``indent``."""
    summarize = a.size > OPTS.threshold
    fmt, width = _element_formatter(a, summarize)
    return _body(a, indent, summarize, fmt, width)


def _with_suffixes(text, suffixes, indent, newline=False):
    """``text`` followed by ``, suffix`` for each suffix, each put on a new line (at
    ``indent``) when it would pass the line width (the first one always with ``newline``),
    and the closing ')'."""
    out = [text]
    # torch counts the last line two characters longer than it is; kept for identical wraps.
    line_len = len(text) - text.rfind('\n') + 1
    for suffix in suffixes:
        if newline or line_len + len(suffix) + 2 > OPTS.linewidth:
            newline = False
            out.append(',\n' + ' ' * indent + suffix)
            line_len = indent + len(suffix)
        else:
            out.append(', ' + suffix)
            line_len += len(suffix) + 2
    out.append(')')
    return ''.join(out)


def _sparse_parts(a, prefix, indent):
    """The stored arrays of sparse storage ``a`` (its indices, then its values), each as
    ``name=tensor(...)`` on its own line, without their dtypes (the tensor's shows once)."""
    if a.layout.name == 'sparse_coo':
        parts = (('indices', a.indices), ('values', a.values))
    else:
        first, second = {'sparse_csr': ('crow', 'col'), 'sparse_bsr': ('crow', 'col')}.get(
            a.layout.name, ('ccol', 'row'))
        parts = ((first + '_indices', a.compressed), (second + '_indices', a.plain),
                 ('values', a.values))
    lines = []
    for name, arr in parts:
        at = indent + len(name) + len('=tensor(')
        body = _contents(arr, at) if arr.size else f'[], size={tuple(arr.shape)}'
        lines.append(f'{name}=tensor({body})')
    return prefix + (',\n' + ' ' * indent).join(lines)


def _parameter_class():
    # nn.Parameter prints like a plain tensor; looked up lazily because ember.nn imports us
    # indirectly and may not be loaded (then no Parameter exists to print).
    module = sys.modules.get('ember.nn.parameter')
    return getattr(module, 'Parameter', None) if module is not None else None


def tensor_repr(t, prefix=None, tensor_contents=None):
    """The text ``repr(t)`` and ``str(t)`` give for a Tensor, exactly as torch prints it.

    ``prefix`` opens the text: by default ``'tensor('`` for a Tensor or Parameter and
    ``'ClassName('`` for other subclasses (as torch does). ``tensor_contents``, when given,
    replaces the printed values (torch's ``Tensor.__repr__(tensor_contents=...)``); the
    suffixes stay.
    """
    from ._tensor import Tensor
    param_cls = _parameter_class()
    plain = type(t) is Tensor or (param_cls is not None and type(t) is param_cls)
    if prefix is None:
        prefix = 'tensor(' if plain else type(t).__name__ + '('
    indent = len(prefix)
    a = t._data
    dt = _dtype.FROM_NP[a.dtype]
    default_float = _dtype.get_default_dtype()
    suffixes = []
    if type(a) is MetaArray:  # no values: the device, the size and any non-default dtype
        suffixes.append(f"device='meta', size={tuple(a.shape)}")
        if dt is not default_float:
            suffixes.append(f'dtype={dt!r}')
        text = '...'
    elif type(a) in STORAGE:
        text = _sparse_parts(a, prefix, indent)
        suffixes += [f'size={tuple(a.shape)}', f'nnz={a.nnz}']
        if dt not in (default_float, _dtype.int64, _dtype.bool_):
            suffixes.append(f'dtype={dt!r}')
        suffixes.append(f'layout={a.layout!r}')
    elif a.size == 0:
        # NumPy-style: the shape shows unless it is (0,); the dtype shows unless it is the
        # default float, since no element hints at it.
        if a.ndim != 1:
            suffixes.append(f'size={tuple(a.shape)}')
        if dt is not default_float:
            suffixes.append(f'dtype={dt!r}')
        text = tensor_contents if tensor_contents is not None else '[]'
    else:
        if not OPTS.edgeitems:
            suffixes.append(f'size={tuple(a.shape)}')
        default_complex = (_dtype.complex128 if default_float is _dtype.float64
                           else _dtype.complex64)
        if dt not in (default_float, default_complex, _dtype.int64, _dtype.bool_):
            suffixes.append(f'dtype={dt!r}')
        if a.dtype.names is not None:  # complex32: printed as its complex64 values
            a = _dtype.chalf_to_complex64(a)
        text = tensor_contents if tensor_contents is not None else _contents(a, indent)
    try:
        grad_fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    except RuntimeError:
        # (a view made under no_grad whose memory was written since: its grad_fn is
        # refused, and torch prints it so)
        grad_fn = 'Invalid'
    if grad_fn is not None:
        suffixes.append(f'grad_fn=<{grad_fn}>')
    elif t.requires_grad:
        suffixes.append('requires_grad=True')
    if t._fw is not None:
        from .autograd.forward_ad import tangent_of
        tangent = tangent_of(t)
        if tangent is not None:
            suffixes.append(f'tangent={tensor_repr(tangent)}')
    sparse = type(a) in STORAGE
    out = _with_suffixes(text if sparse else prefix + text, suffixes, indent,
                         sparse and a.layout.name == 'sparse_coo')
    if param_cls is not None and isinstance(t, param_cls) and not plain:
        # A subclass of Parameter names itself and says it is a Parameter.
        out = f'Parameter({out})'
    return out
