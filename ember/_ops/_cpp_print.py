"""A tensor as torch's C++ ``operator<<`` prints it (ATen's Formatting): what torch's C++
error messages show of a tensor (``torch.meshgrid: Expected 0D or 1D tensor in the tensor
list but got:  1  1  1 ...``). Values as doubles (a complex tensor's real parts), columns of
one width and format chosen from the whole tensor, a matrix at a time for more dims, then
``[ torch.FloatTensor{2,3} ]``."""
import math

import numpy as np

_LINESIZE = 80


def _format(values):
    """(scale, width, fmt) of torch's ``__printFormat`` for the doubles ``values``."""
    if not values.size:
        return 1.0, 0, _general
    finite = values[np.isfinite(values)]
    int_mode = bool(np.all(finite == np.ceil(finite)))
    exp_min = exp_max = 1.0
    if finite.size:
        a = np.abs(finite)
        lo, hi = float(a.min()), float(a.max())
        exp_min = math.floor(math.log10(lo)) + 1 if lo != 0 else 1
        exp_max = math.floor(math.log10(hi)) + 1 if hi != 0 else 1
    if int_mode:
        if exp_max > 9:
            return 1.0, 11, _scientific
        return 1.0, exp_max + 1, _general
    if exp_max - exp_min > 4:
        width = 12 if abs(exp_max) > 99 or abs(exp_min) > 99 else 11
        return 1.0, width, _scientific
    if exp_max > 5 or exp_max < 0:
        return 10.0 ** (exp_max - 1), 7, _fixed
    return 1.0, 7 if exp_max == 0 else exp_max + 6, _fixed


def _c_special(v):
    if math.isnan(v):
        return '-nan' if math.copysign(1, v) < 0 else 'nan'
    if math.isinf(v):
        return 'inf' if v > 0 else '-inf'
    return None


def _general(v):  # (C++'s defaultfloat, precision 6)
    return _c_special(v) or f'{v:g}'


def _fixed(v):
    return _c_special(v) or f'{v:.4f}'


def _scientific(v):
    return _c_special(v) or f'{v:.4e}'


def _scale_line(scale):  # (a power of ten: up as an integer, down as %g)
    return (f'{int(scale)}' if scale >= 1 else f'{scale:g}') + ' *\n'


def _matrix(out, m, indent):
    scale, width, fmt = _format(m)
    rows, cols = m.shape
    per_line = (_LINESIZE - indent) // (width + 1)
    first = 0
    while first < cols:
        last = first + per_line - 1 if first + per_line <= cols else cols - 1
        if per_line < cols:
            if first:
                out.append('\n')
            out.append(f'Columns {first + 1} to {last + 1}')
            out.append(' ' * indent)
        if scale != 1:
            out.append(_scale_line(scale))
            out.append(' ' * indent)
        for r in range(rows):
            for c in range(first, last + 1):
                out.append(fmt(float(m[r, c]) / scale).rjust(width))
                if c == last:
                    out.append('\n')
                    if r != rows - 1:
                        out.append(' ' * indent + (' ' if scale != 1 else ''))
                else:
                    out.append(' ')
        first = last + 1


def cpp_str(t):
    """``t`` (an ember Tensor) as torch's C++ prints it."""
    x = t._data
    if x.dtype.kind == 'c':
        x = x.real
    x = np.asarray(x, np.float64) if x.dtype.kind != 'V' else \
        np.asarray(t.double()._data, np.float64)
    out = []
    name = t.dtype.type_string
    if x.ndim == 0:
        out.append(_general(float(x)) + '\n')
        out.append(f'[ {name}{{}}')
    elif x.ndim == 1:
        if x.size:
            scale, width, fmt = _format(x)
            if scale != 1:
                out.append(_scale_line(scale))
            for v in x:
                out.append(fmt(float(v) / scale).rjust(width) + '\n')
        out.append(f'[ {name}{{{x.shape[0]}}}')
    else:
        if x.size:
            if x.ndim == 2:
                _matrix(out, x, 0)
            else:
                first = True
                # (the first of the leading dims counts fastest)
                for back in np.ndindex(*x.shape[-3::-1]):
                    index = back[::-1]
                    if not first:
                        out.append('\n')
                    first = False
                    out.append('(' + ''.join(f'{i + 1},' for i in index) + '.,.) = \n')
                    _matrix(out, x[index], 1)
        out.append(f'[ {name}{{' + ','.join(str(s) for s in x.shape) + '}')
    out.append(' ]')
    return ''.join(out)


# -- the order in which torch's C++ walks the keyword arguments of a call ------------------
# torch's "invalid combination of arguments" message copies a call's keywords into a
# ``std::unordered_map<std::string, ...>`` and lists them in its iteration order, which
# libstdc++ settles from each name's hash (``std::_Hash_bytes``, a 64-bit Murmur variant)
# and the bucket count: ``kwargs_order`` replays those insertions.
_MASK = (1 << 64) - 1
_MUL = (0xc6a4a793 << 32) + 0x5bd1e995
_SMALL_BUCKETS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)


def _mix(v):
    return v ^ (v >> 47)


def _string_hash(name):
    """libstdc++'s ``std::hash<std::string>`` of ``name`` (64-bit)."""
    b = name.encode()
    n = len(b)
    whole = n & ~7
    h = (0xc70f6907 ^ (n * _MUL)) & _MASK
    for i in range(0, whole, 8):
        h ^= (_mix((int.from_bytes(b[i:i + 8], 'little') * _MUL) & _MASK) * _MUL) & _MASK
        h = (h * _MUL) & _MASK
    if n & 7:
        h ^= int.from_bytes(b[whole:], 'little')
        h = (h * _MUL) & _MASK
    return _mix((_mix(h) * _MUL) & _MASK)


def _next_prime(n):
    while any(n % d == 0 for d in range(2, int(n ** 0.5) + 1)):
        n += 1
    return n


def kwargs_order(names):
    """``names`` (in the call's order) as an ``std::unordered_map`` built by emplacing them
    one by one iterates them: each node goes first in its bucket, a bucket not yet used goes
    to the front of the list; the table starts at 13 buckets and at each overflow grows to
    the next prime past twice the count, re-inserting the nodes in list order."""
    buckets, limit, nodes = 1, 0, []

    def insert(name):
        b = hashes[name] % buckets
        for i, other in enumerate(nodes):
            if hashes[other] % buckets == b:
                nodes.insert(i, name)
                return
        nodes.insert(0, name)

    hashes = {}
    for name in names:
        if name in hashes:
            continue
        hashes[name] = _string_hash(name)
        if len(nodes) + 1 > limit:
            least = max(len(nodes) + 1, 11 if not limit else 0)
            if least >= buckets:
                want = max(least + 1, 2 * buckets)
                buckets = _SMALL_BUCKETS[want] if want < len(_SMALL_BUCKETS) else \
                    _next_prime(want)
                old, nodes = nodes, []
                for other in old:
                    insert(other)
            limit = buckets
        insert(name)
    return nodes
