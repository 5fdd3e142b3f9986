"""One generated call of a target, reproducible from (target name, seed).

A call is plain data -- NumPy arrays with a layout recipe, Python values, keyword values --
built into tensors of either library by ``build``, so ember and torch get the same inputs
made the same way. Shapes are drawn per call (0-d, empty, size-1, small, square) and each
tensor argument takes the call's shape, a broadcastable variant of it, or an unrelated one;
layouts are contiguous, transposed, strided (every other element) or expanded; dtypes run
over floating (incl. float16/bfloat16), complex (complex32 for a share of complex64's
draws), integer and bool; values are normal draws
with, sometimes, special values (nan, inf, -0.0, huge, tiny) or a constant tensor.
"""
import os
import random
import zlib
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

SHAPES = [(), (0,), (1,), (3,), (4,), (2, 3), (3, 3), (1, 3), (3, 1), (2, 0), (2, 3, 3),
          (2, 1, 3), (1, 2, 3, 3), (2, 2, 3, 4), (4, 4)]
# (the second CI sweep's and ``--shapes wide``: five dims, longer rows, empty middle dims,
# 1x1 matrices; set as ``SHAPES`` before a sweep starts its worker)
WIDE_SHAPES = [(), (5,), (7,), (2, 5), (5, 5), (1, 1), (0, 3), (3, 0, 2), (2, 1, 3, 1, 2),
               (1, 1, 4), (2, 3, 4, 5), (6, 2), (1, 5, 1), (3, 2, 2, 2, 2), (8, 8)]
# (``--shapes large``, on demand: rows past 16 elements, where torch's kernels change
# algorithm -- std::sort's insertion sort, vectorised lanes, blocked reductions)
LARGE_SHAPES = [(), (17,), (33,), (65,), (3, 17), (17, 17), (2, 20), (20, 1), (1, 40), (5, 33),
                (2, 3, 17), (12, 12), (4, 4, 9), (130,), (2, 0, 17)]
DTYPES = (['float32'] * 4 + ['float64'] * 6 + ['float16', 'bfloat16', 'complex64', 'complex128']
          + ['int64'] * 3 + ['int32', 'int16', 'int8', 'uint8'] + ['bool'] * 2)
if os.environ.get('EMBER_FUZZ_DTYPES'):  # (``python -m tests.fuzz --dtypes uint16,uint32``)
    DTYPES = os.environ['EMBER_FUZZ_DTYPES'].split(',')
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 1e-30, 1.0, -1.0]
DTYPE_NAMES = ['float32', 'float64', 'float16', 'bfloat16', 'complex64', 'complex128', 'int64',
               'int32', 'int16', 'int8', 'uint8', 'bool']


@dataclass
class TensorPlan:
    """A tensor argument: the values (an array in its final logical shape), the dtype name,
    the layout recipe, and whether it requires grad."""
    array: np.ndarray
    dtype: str
    layout: str = 'contiguous'
    grad: bool = False

    def describe(self):
        a = self.array
        if a.size <= 6:
            vals = np.array2string(a.astype(np.float64) if a.dtype.kind == 'V' else a,
                                   separator=', ').replace('\n', '')
        else:
            vals = f'<{a.size} values>'
        extra = '' if self.layout == 'contiguous' else f', layout={self.layout}'
        g = ', requires_grad=True' if self.grad else ''
        return f'tensor({vals}, shape={a.shape}, dtype={self.dtype}{extra}{g})'


@dataclass
class Call:
    """A generated call: positional and keyword arguments (TensorPlan, lists of them, or
    plain values), whether the receiver is the first positional (a method call), and whether
    all inputs are finite."""
    target: str
    seed: int
    args: list
    kwargs: dict = field(default_factory=dict)
    finite: bool = True
    grad: bool = False

    def describe(self):
        def d(v):
            if isinstance(v, TensorPlan):
                return v.describe()
            if isinstance(v, list) and v and isinstance(v[0], TensorPlan):
                return '[' + ', '.join(map(d, v)) + ']'
            if isinstance(v, str) and v.startswith('dtype:'):
                return v[6:]
            return repr(v)
        parts = [d(a) for a in self.args] + [f'{k}={d(v)}' for k, v in self.kwargs.items()]
        return f'{self.target}({", ".join(parts)})'


def rng_for(target, seed):
    """The two random streams of a call, from (target, seed) only."""
    h = zlib.crc32(f'{target}:{seed}'.encode())
    return random.Random(h), np.random.default_rng(h)


def _values(r, g, shape, dtype, special, constant):
    n = int(np.prod(shape)) if shape else 1
    if dtype == 'bool':
        a = g.random(n) < 0.5
    elif dtype.startswith('uint'):
        a = g.integers(0, 10, n)
    elif dtype.startswith('int'):
        a = g.integers(-5, 6, n)
    else:
        a = g.standard_normal(n) * r.choice([1.0, 1.0, 3.0, 0.3])
        if dtype.startswith('complex'):
            a = a + 1j * g.standard_normal(n)
        if special and n:
            for i in g.integers(0, n, max(1, n // 3)):
                a[i] = r.choice(SPECIAL)
    if constant and n:
        a[:] = a[0]
    if dtype == 'bfloat16':
        return a.astype(np.float32).astype(ml_dtypes.bfloat16).reshape(shape)
    if dtype == 'complex32':
        # (NumPy has no complex32: complex64 values whose parts are float16's, built into
        # complex32 tensors by ``compare.build``)
        out = np.empty(a.shape, np.complex64)
        out.real, out.imag = a.real.astype(np.float16), a.imag.astype(np.float16)
        return out.reshape(shape)
    return a.astype(dtype).reshape(shape)


# The share of complex64 draws (a call's dtype, a dtype argument) that become complex32,
# decided on a stream of their own so every other draw of a seed stays as it was.
CHALF = float(os.environ.get('EMBER_FUZZ_CHALF', '0.3'))


def _chalf_stream(key, seed):
    return random.Random(zlib.crc32(f'chalf:{key}:{seed}'.encode())).random()


def _variant(r, shape):
    """The call's shape, a broadcastable variant, or another shape."""
    u = r.random()
    if u < 0.6 or not shape:
        return shape
    if u < 0.85:
        s = list(shape)
        if r.random() < 0.5 and len(s) > 0:
            s = s[r.randrange(len(s)):]  # fewer leading dims
        elif s:
            s[r.randrange(len(s))] = 1
        return tuple(s)
    return r.choice(SHAPES)


class Generator:
    """Draws one call of ``target`` for ``seed``."""

    def __init__(self, target, seed):
        self.target, self.seed = target, seed
        self.r, self.g = rng_for(target.name, seed)
        r = self.r
        self.shape = r.choice(SHAPES)
        self.dtype = r.choice(DTYPES)
        if self.dtype == 'complex64' and _chalf_stream(target.name, seed) < CHALF:
            self.dtype = 'complex32'
        self.mixed = r.random() < 0.15
        self.special = r.random() < 0.15
        self.constant = r.random() < 0.08
        self.grad = (not target.random and r.random() < 0.7
                     and self.dtype in ('float64', 'complex128'))
        if self.grad:
            self.special = False
        self.finite = True

    def tensor(self, shape=None):
        r = self.r
        shape = _variant(r, self.shape) if shape is None else shape
        dtype = r.choice(DTYPES) if self.mixed and r.random() < 0.5 else self.dtype
        if self.grad and dtype not in ('float64', 'complex128'):
            dtype = 'float64'
        special = self.special and dtype not in ('bool',) and not dtype.startswith(('int', 'u'))
        a = _values(r, self.g, shape, dtype, special, self.constant)
        if a.dtype.kind in 'fcV' and not np.all(np.isfinite(a.astype(np.complex128))):
            self.finite = False
        layout = 'contiguous'
        u = r.random()
        if len(shape) >= 2 and u < 0.15:
            layout = 'transposed'
        elif len(shape) >= 1 and u < 0.25:
            layout = 'strided'
        elif len(shape) >= 1 and 0 not in shape and u < 0.32:
            axis = r.randrange(len(shape))
            layout = f'expanded:{axis}'
            a = np.broadcast_to(a.take([0], axis=axis), shape).copy()
        return TensorPlan(a, dtype, layout, self.grad and dtype in ('float64', 'complex128'))

    def scalar(self, name):
        r = self.r
        if self.dtype == 'bool' and r.random() < 0.5:
            return r.random() < 0.5
        if self.dtype.startswith(('int', 'uint')) and r.random() < 0.6:
            return r.randint(-3, 4)
        if self.dtype.startswith('complex') and r.random() < 0.3:
            return complex(round(r.gauss(0, 1), 3), round(r.gauss(0, 1), 3))
        if r.random() < 0.06 and not self.grad:
            self.finite = False
            return r.choice([float('nan'), float('inf'), float('-inf')])
        return r.choice([0.5, 1.0, 2.0, -1.0, 0.0, 1.5, -0.7, 3, 2, 0, -2])

    def int_(self, name):
        r = self.r
        nd = len(self.shape)
        if 'dim' in name or name == 'axis':
            if r.random() < 0.92:
                return r.randrange(-max(nd, 1), max(nd, 1))
            return r.choice([nd, -nd - 1, 5])
        if name in ('diagonal', 'offset', 'k', 'shifts', 'shift'):
            return r.randint(-2, 2)
        if r.random() < 0.05:
            return r.choice([-1, -3])
        return r.randint(0, 3)

    def int_list(self, name):
        r = self.r
        nd = len(self.shape)
        if 'dim' in name or name in ('axis', 'dims'):
            if nd == 0:
                return r.choice([[], [0], [-1]])
            k = r.randint(0, nd) if r.random() < 0.8 else r.randint(1, nd + 1)
            dims = r.sample(range(nd), min(k, nd))
            if len(dims) < k:
                dims.append(nd)  # out of range
            return [d - nd if r.random() < 0.3 else d for d in dims]
        if name in ('size', 'shape', 'sizes'):
            n = int(np.prod(self.shape)) if self.shape else 1
            u = r.random()
            if u < 0.3:
                return list(self.shape)
            if u < 0.5:
                return [-1]
            if u < 0.65:
                return list(reversed(self.shape))
            if u < 0.8:
                return [n, 1]
            return list(r.choice(SHAPES))
        if name in ('shifts', 'repeats', 'pad', 'padding'):
            return [r.randint(-2, 3) if name == 'shifts' else r.randint(0, 2)
                    for _ in range(r.randint(1, max(nd, 1) + (name == 'shifts')))]
        return [r.randint(1, 3) for _ in range(r.randint(0, max(nd, 1)))]

    def value(self, a):
        """A value for template argument ``a``."""
        r = self.r
        k = a.kind
        if a.optional and r.random() < 0.25:
            return None
        if k == 'Tensor':
            return self.tensor()
        if k == 'List[Tensor]' or k == 'List[Optional[Tensor]]':
            return [self.tensor() for _ in range(r.randint(1, 3))]
        if k == 'number':
            return self.scalar(a.name)
        if k == 'int':
            return self.int_(a.name)
        if k == 'float':
            if a.name == 'dropout_p':  # (any other value makes the op random)
                return 0.0
            if a.name in ('eps',):
                return r.choice([1e-5, 1e-8, 0.1])
            if a.name == 'p':
                return r.choice([1.0, 2.0, 0.5, 3.0, float('inf'), 0.0])
            if r.random() < 0.05 and not self.grad:
                self.finite = False
                return r.choice([float('nan'), float('inf')])
            return r.choice([0.5, 1.0, 2.0, -1.0, 0.0, 0.25, 1.5])
        if k == 'bool':
            return r.random() < 0.5
        if k == 'List[int]':
            return self.int_list(a.name)
        if k == 'List[bool]':
            return [r.random() < 0.5 for _ in range(3)]
        if k in ('List[float]', 'List[number]'):
            return [r.choice([0.5, 1.0, 2.0]) for _ in range(r.randint(1, 3))]
        if k == 'complex':
            return complex(r.gauss(0, 1), r.gauss(0, 1))
        if k == 'ScalarType':
            name = r.choice(DTYPE_NAMES)
            if name == 'complex64' and _chalf_stream(f'{self.target.name}:{a.name}',
                                                      self.seed) < CHALF:
                name = 'complex32'
            return 'dtype:' + name
        if k == 'str':
            from .targets import _STR_CHOICES
            if a.name in _STR_CHOICES:
                return r.choice(_STR_CHOICES[a.name])
            return a.default
        return a.default


def generate(target, seed):
    """The call of ``target`` for ``seed``, or None when no template fits (a method whose
    templates all lack a tensor ``self``)."""
    gen = Generator(target, seed)
    r = gen.r
    templates = target.templates
    if target.method:
        templates = [t for t in templates
                     if any(a.name == 'self' and a.kind == 'Tensor' for a in t)]
    if not templates:
        return None
    tmpl = r.choice(templates)
    args, kwargs = [], {}
    receiver = None
    # Keep optional trailing positionals only up to the last one we draw a value for.
    drawn = []
    for a in tmpl:
        use = not a.has_default or r.random() < 0.5
        drawn.append((a, gen.value(a) if use else None, use))
    last = max([i for i, (a, _, use) in enumerate(drawn) if use and not a.kwarg_only],
               default=-1)
    names = []
    for i, (a, v, use) in enumerate(drawn):
        if target.method and a.name == 'self' and receiver is None:
            receiver = v
            continue
        if a.kwarg_only:
            if use:
                kwargs[a.name] = v
        elif i <= last:
            args.append(v if use else a.default)
            names.append('input' if a.name == 'self' else a.name)
    if _with_out(target, seed, args, kwargs):
        # (no input requires grad: torch's refusal of autograd through out= depends on how
        # each op is registered -- see the README's differences)
        for v in args + list(kwargs.values()) + [receiver]:
            for p in (v if isinstance(v, list) else [v]):
                if isinstance(p, TensorPlan):
                    p.grad = False
        gen.grad = False
    _in_place(target, seed, kwargs)
    _wrong_type(target, seed, args, kwargs, receiver is not None)
    _by_keyword(target, seed, args, names, kwargs)
    if target.method:
        args.insert(0, receiver)
    return Call(target.name, seed, args, kwargs, gen.finite, gen.grad)


KEYWORDS = float(os.environ.get('EMBER_FUZZ_KEYWORDS', '0.2'))
WRONG_TYPES = float(os.environ.get('EMBER_FUZZ_WRONG_TYPES', '0.1'))
OUTS = float(os.environ.get('EMBER_FUZZ_OUT', '0.1'))


INPLACE = float(os.environ.get('EMBER_FUZZ_INPLACE', '0.2'))


def _in_place(target, seed, kwargs):
    """With probability ``INPLACE``, an ``nn.functional`` activation taking ``inplace=`` is
    called with ``inplace=True`` (as ``nn.ReLU(inplace=True)`` calls it), on a stream of its
    own: the result must be the input itself, rewritten."""
    r = random.Random(zlib.crc32(f'inplace:{target.name}:{seed}'.encode()))
    if target.inplace and r.random() < INPLACE:
        kwargs['inplace'] = True


def _with_out(target, seed, args, kwargs):
    """With probability ``OUTS``, a function taking ``out=`` gets an out tensor, on a stream
    of its own: mostly of the first tensor's dtype, empty (resized, as scripts pass one) or
    of the first tensor's shape, sometimes of another dtype or shape (refused, or resized
    with a warning). Returns whether it did."""
    r = random.Random(zlib.crc32(f'out:{target.name}:{seed}'.encode()))
    if not target.out or r.random() >= OUTS:
        return False
    first = next((v for v in list(args) + list(kwargs.values()) if isinstance(v, TensorPlan)),
                 None)
    dtype = first.dtype if first is not None and r.random() < 0.7 else r.choice(DTYPE_NAMES)
    u = r.random()
    shape = (0,) if u < 0.4 or first is None else first.array.shape if u < 0.8 else \
        r.choice(SHAPES)
    g = np.random.default_rng(r.randrange(2 ** 32))
    kwargs['out'] = TensorPlan(_values(r, g, shape, dtype, False, False), dtype)
    return True


def _misfit(v, r):
    """A value of another type than ``v``'s, as a bad call passes one."""
    if isinstance(v, TensorPlan) or isinstance(v, list) and v and isinstance(v[0], TensorPlan):
        return r.choice([1.5, 2, 'x', None, [1, 2], (0.5,), True])
    if isinstance(v, bool):
        return r.choice(['x', [True], 0.5])
    if isinstance(v, int):
        return r.choice([1.5, 'x', [1, 'a'], (1.0,), None])
    if isinstance(v, float):
        return r.choice(['x', [0.5], (1, 2), 1j])
    if isinstance(v, list):
        return r.choice([1.5, 'x', [0.5, 1.5], [None], (1, 'a')])
    if isinstance(v, str) and not v.startswith('dtype:'):
        return r.choice([1, 0.5, None, ['x']])
    if isinstance(v, str):
        return r.choice(['float32', 1, None])
    return r.choice([object(), 'x', 1.5])


def _wrong_type(target, seed, args, kwargs, method):
    """With probability ``WRONG_TYPES``, one argument (not a method's receiver) becomes a
    value of another type (a float for a tensor, a string for an int...), on a stream of
    its own: torch's parser refuses it with a TypeError, and so must ember."""
    r = random.Random(zlib.crc32(f'type:{target.name}:{seed}'.encode()))
    if r.random() >= WRONG_TYPES:
        return
    # (not an out= tensor: torch's parser takes a number there, as a new 0-d out)
    places = [('a', i) for i in range(len(args))] + [('k', k) for k in kwargs if k != 'out']
    if not places:
        return
    kind, where = r.choice(places)
    if kind == 'a':
        args[where] = _misfit(args[where], r)
    else:
        kwargs[where] = _misfit(kwargs[where], r)


def _by_keyword(target, seed, args, names, kwargs):
    """Passes a tail of the positional arguments by their names (torch's), on a stream of
    its own so the other draws stay as they were: a call is then checked for ember's
    parameter names too."""
    r = random.Random(zlib.crc32(f'kw:{target.name}:{seed}'.encode()))
    if not args or r.random() >= KEYWORDS:
        return
    cut = r.randrange(0 if target.space != 'torch' or len(args) == 1 else 1, len(args))
    for name, v in zip(names[cut:], args[cut:]):
        kwargs.setdefault(name, v)
    del args[cut:]
