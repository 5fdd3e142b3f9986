"""dtype objects (ember.float32 ...), the default dtype, and torch's type-promotion rules."""
import builtins

import numpy as np

__all__ = ['dtype', 'set_default_dtype', 'get_default_dtype', 'promote_types', 'result_type',
           'can_cast']

# Categories order the kinds of numbers: a higher category always wins in promotion.
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3

# bfloat16 arrays come from the ml_dtypes package, whose dtype has NumPy's kind 'V' (void).
# ember has no other void dtype, so array-level kind tests read 'V' as floating: 'fcV' is
# "floating or complex", 'fV' "floating". NumPy's ufuncs on such arrays compute in float32
# and round once, as torch does; what they lack goes through ``opmath`` below.
BF16_KIND = 'V'


class dtype:
    """The type of a tensor's elements, e.g. ``ember.float32``; prints as torch prints it."""
    __slots__ = ('name', 'np', 'itemsize', 'is_floating_point', 'is_complex', 'is_signed',
                 'category', '_legacy')

    def __init__(self, name, np_dtype, category, legacy, itemsize=None):
        self.name = name
        self.category = category
        self.is_floating_point = category == FLOAT
        self.is_complex = category == COMPLEX
        self._legacy = legacy  # torch's legacy type name, used in error messages
        if np_dtype is None:  # bfloat16: its NumPy dtype loads on first use (_load_bfloat16)
            self.itemsize = itemsize
            self.is_signed = True
            return
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.is_signed = self.np.kind in 'ifc'

    def __getattr__(self, name):
        # Reached only for an unset slot: bfloat16's ``np`` before ml_dtypes is imported.
        if name == 'np' and self.name == 'bfloat16':
            return _load_bfloat16()
        raise AttributeError(f"'torch.dtype' object has no attribute '{name}'")

    def __repr__(self):
        # Printed with torch's prefix so code written for torch shows what torch shows.
        return 'torch.' + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self):
        """The real dtype with the same precision (complex64 -> float32)."""
        return _COMPLEX_TO_REAL.get(self, self)

    @property
    def kernel_name(self):
        """torch's scalar-type name used in kernel errors: 'Float', 'Long', 'Bool', ..."""
        return self._legacy[:-len('Tensor')]

    def to_complex(self):
        """The complex dtype with the same precision (float32 -> complex64); torch's
        RuntimeError for integer and bool dtypes, which have none."""
        if self.category < FLOAT:
            raise RuntimeError(f"Unknown Complex ScalarType for {self.kernel_name}")
        return _REAL_TO_COMPLEX.get(self, self)

    @property
    def type_string(self):
        """How torch's C++ names a CPU tensor type of this dtype in some messages: the
        legacy 'torch.FloatTensor' where C++ has one, else 'CPUBoolType'."""
        if self.name in _CPP_LEGACY:
            return 'torch.' + self._legacy
        return f'CPU{self.kernel_name}Type'

    @property
    def cpp_name(self):
        """The C++ type torch's kernels name in some messages: 'float', 'long int',
        'c10::BFloat16', ..."""
        return _CPP_NAMES.get(self.name, self.name)


float16 = dtype('float16', np.float16, FLOAT, 'HalfTensor')
float32 = dtype('float32', np.float32, FLOAT, 'FloatTensor')
float64 = dtype('float64', np.float64, FLOAT, 'DoubleTensor')
complex64 = dtype('complex64', np.complex64, COMPLEX, 'ComplexFloatTensor')
complex128 = dtype('complex128', np.complex128, COMPLEX, 'ComplexDoubleTensor')
uint8 = dtype('uint8', np.uint8, INT, 'ByteTensor')
int8 = dtype('int8', np.int8, INT, 'CharTensor')
int16 = dtype('int16', np.int16, INT, 'ShortTensor')
int32 = dtype('int32', np.int32, INT, 'IntTensor')
int64 = dtype('int64', np.int64, INT, 'LongTensor')
bool_ = dtype('bool', np.bool_, BOOL, 'BoolTensor')
bfloat16 = dtype('bfloat16', None, FLOAT, 'BFloat16Tensor', itemsize=2)
# torch's "barebones" unsigned integers: a tensor of them is made, copied, viewed, indexed,
# compared for equality and saved, but most kernels refuse them (the dtype-refusal table
# lists which) and they promote only with floating-point dtypes (``_promote``).
uint16 = dtype('uint16', np.uint16, INT, 'UInt16Tensor')
uint32 = dtype('uint32', np.uint32, INT, 'UInt32Tensor')
uint64 = dtype('uint64', np.uint64, INT, 'UInt64Tensor')
BAREBONES_UNSIGNED = frozenset((uint16, uint32, uint64))
# complex32 (torch's ComplexHalf): NumPy has no complex of two float16s, so its arrays are of
# a structured dtype of two float16 fields -- 4 bytes an element, so strides, views, storage
# and ``view_as_real`` (the same memory as float16 pairs) hold as in torch. NumPy computes
# nothing on it: the few ops torch has for it go through complex64 (``opmath``) and round
# back (``cast``); the others refuse it by the dtype refusal table, as torch's kernels do.
CHALF_NP = np.dtype([('real', '<f2'), ('imag', '<f2')])
complex32 = dtype('complex32', CHALF_NP, COMPLEX, 'ComplexHalfTensor')
complex32.is_signed = True

ALL = (float16, bfloat16, float32, float64, complex64, complex128, uint8, int8, int16, int32,
       int64, bool_, uint16, uint32, uint64, complex32)
_BY_NAME = {d.name: d for d in ALL}
# The array dtype -> ember dtype map every op result goes through (bfloat16 joins it when
# ml_dtypes loads: no bfloat16 array can exist before).
FROM_NP = {d.np: d for d in ALL if d is not bfloat16}
_COMPLEX_TO_REAL = {complex64: float32, complex128: float64, complex32: float16}
_REAL_TO_COMPLEX = {float16: complex32, bfloat16: complex64, float32: complex64,
                    float64: complex128}
FLOAT32_NP = float32.np
# the dtypes with a legacy tensor type in torch's C++ (``toString``'s 'torch.FloatTensor')
_CPP_LEGACY = frozenset(('uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'float32',
                         'float64'))
_CPP_NAMES = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half',
              'bfloat16': 'c10::BFloat16', 'int64': 'long int', 'int32': 'int',
              'int16': 'short int', 'int8': 'signed char', 'uint8': 'unsigned char',
              'complex64': 'c10::complex<float>', 'complex128': 'c10::complex<double>',
              'uint16': 'short unsigned int', 'uint32': 'unsigned int',
              'uint64': 'long unsigned int', 'complex32': 'c10::complex<c10::Half>'}

# torch's aliases
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble, chalf = complex64, complex128, complex32


def refuse_barebones(kernel, d, chalf=False):
    """torch's NotImplementedError where kernel ``kernel`` (a factory that computes values:
    ``arange_cpu``, ``eye``...) is asked for uint16, uint32 or uint64 (with ``chalf``, or
    complex32)."""
    if d in BAREBONES_UNSIGNED or chalf and d is complex32:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{d.kernel_name}\'')


def _dtype_by_name(name):
    return _BY_NAME[name]


def _load_bfloat16():
    """Imports ml_dtypes (on first use: it is not needed to import ember) and gives
    ``bfloat16`` its NumPy dtype; returns that dtype."""
    try:
        import ml_dtypes
    except ImportError:
        raise ImportError("ember.bfloat16 needs the ml_dtypes package (pip install ml_dtypes)") \
            from None
    np_dtype = np.dtype(ml_dtypes.bfloat16)
    bfloat16.np = np_dtype
    FROM_NP[np_dtype] = bfloat16
    return np_dtype


def _is_bfloat16(np_dtype):
    """True for ml_dtypes' bfloat16 (the only NumPy dtype of kind 'V' ember accepts); loads
    ml_dtypes when it looks like it."""
    return np_dtype.kind == BF16_KIND and np_dtype.name == 'bfloat16' and \
        _load_bfloat16() == np_dtype


def opmath(arr):
    """``arr`` as the array an op computes on: bfloat16 becomes float32 and complex32
    complex64 (torch's opmath types; the caller rounds the result back), other dtypes are
    returned as they are."""
    if arr.dtype.kind != BF16_KIND:
        return arr
    if arr.dtype is CHALF_NP or arr.dtype == CHALF_NP:
        return chalf_to_complex64(arr)
    return arr.astype(FLOAT32_NP)


COMPLEX64_NP = np.dtype(np.complex64)
_WARNED_CHALF = []  # whether a complex32 tensor has been made (torch warns once a process)


def warn_chalf():
    """torch's UserWarning, once a process, when a complex32 tensor is first made."""
    if not _WARNED_CHALF:
        _WARNED_CHALF.append(True)
        from .overrides import _warn_at_caller
        _warn_at_caller("ComplexHalf support is experimental and many operators don't "
                        "support it yet.")


def chalf_to_complex64(arr):
    """A complex32 array's values as a new complex64 array (exact)."""
    if type(arr) is not np.ndarray:  # (a sparse stand-in casts its values)
        return arr.astype(COMPLEX64_NP)
    out = np.empty(arr.shape, COMPLEX64_NP)
    out.real = arr['real']
    out.imag = arr['imag']
    return out


def chalf_scalar(value):
    """A Python number as a complex32 array element (both parts rounded to float16)."""
    warn_chalf()
    value = complex(value)
    return np.array((value.real, value.imag), CHALF_NP)[()]


def is_chalf(np_dtype):
    """True for the NumPy dtype of complex32."""
    return np_dtype.kind == BF16_KIND and np_dtype == CHALF_NP


def cast(arr, np_dtype):
    """``arr.astype(np_dtype)`` where either side may be complex32, whose structured dtype
    NumPy cannot cast: to it both parts round to float16 (a real array's imaginary part is
    0); from it its complex64 values are cast (a real target takes the real part: the caller
    warns as for any complex-to-real copy)."""
    if arr.dtype.kind != BF16_KIND and np_dtype.kind != BF16_KIND:
        return arr.astype(np_dtype)
    if type(arr) is not np.ndarray and not isinstance(arr, np.generic):
        return arr.astype(np_dtype)  # (a sparse stand-in casts its values, through here)
    if is_chalf(arr.dtype):
        if np_dtype == CHALF_NP:
            return arr.copy()
        arr = chalf_to_complex64(arr)
        if np_dtype.kind not in 'cb':
            arr = arr.real
        return arr.astype(np_dtype)
    if is_chalf(np_dtype):
        warn_chalf()
        if arr.dtype.kind == BF16_KIND:  # (bfloat16)
            arr = arr.astype(FLOAT32_NP)
        out = np.empty(arr.shape, CHALF_NP)
        if arr.dtype.kind == 'c':
            out['real'] = arr.real
            out['imag'] = arr.imag
        else:
            out['real'] = arr
            out['imag'] = 0
        return out
    return arr.astype(np_dtype)


def from_numpy_dtype(np_dtype):
    """The ember dtype of a NumPy dtype; TypeError for dtypes ember has no counterpart for."""
    try:
        return FROM_NP[np_dtype]
    except KeyError:
        np_dtype = np.dtype(np_dtype)
        if _is_bfloat16(np_dtype):  # an ml_dtypes array met before ember.bfloat16 was used
            return bfloat16
        raise TypeError(f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. "
                        "The only supported types are: float64, float32, float16, complex64, "
                        "complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
                        "and bool.") from None


class _Defaults:
    float = float32
    np_float = np.dtype(np.float32)
    complex = complex64


DEFAULT = _Defaults()


def set_default_dtype(d):
    """Sets the dtype that Python floats and float factories (``ember.zeros``) produce."""
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError(("" if isinstance(d, dtype) else "invalid dtype object: ") +
                        "only floating-point types are supported as the default type")
    DEFAULT.float = d
    DEFAULT.np_float = d.np
    DEFAULT.complex = d.to_complex()


def get_default_dtype():
    """The current default floating-point dtype (``ember.float32`` unless changed)."""
    return DEFAULT.float


def promote_types(a, b):
    """The smallest dtype both ``a`` and ``b`` convert to, by torch's rules."""
    if a is b:
        return a
    key = (a, b)
    r = _PROMOTE_CACHE.get(key)
    if r is None:
        r = _PROMOTE_CACHE[key] = _promote(a, b)
    return r


_PROMOTE_CACHE = {}


def _promote(a, b):
    if a in BAREBONES_UNSIGNED or b in BAREBONES_UNSIGNED:
        # torch lets these meet only a floating-point dtype, which wins
        if a.category == FLOAT or b.category == FLOAT:
            return a if a.category == FLOAT else b
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {a.kernel_name} and {b.kernel_name}")
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        if hi.category == COMPLEX and lo.category == FLOAT:
            # complex64 with float64 needs complex128 to keep float64's precision.
            return promote_types(hi.to_real(), lo).to_complex()
        return hi
    if a.category == BOOL:
        return a
    if a.category == COMPLEX and (a is complex32 or b is complex32):
        return promote_types(a.to_real(), b.to_real()).to_complex()
    if a is bfloat16 or b is bfloat16:
        # The wider float wins, and float16 with bfloat16 meet in float32, which holds both
        # exactly (decided here: NumPy cannot promote those two, nor without ml_dtypes).
        other = b if a is bfloat16 else a
        return float32 if other is float16 else other
    return FROM_NP[np.promote_types(a.np, b.np)]


# This module rebinds float/int (torch's aliases), so Python's types come from builtins.
_PY_BOOL, _PY_INT, _PY_FLOAT = builtins.bool, builtins.int, builtins.float


def scalar_dtype(value):
    """The dtype a Python number gets when it becomes a tensor (``tensor(2.5)``)."""
    t = type(value)
    if t is _PY_BOOL:
        return bool_
    if t is _PY_INT:
        return int64
    if t is complex:
        return default_complex()
    return DEFAULT.float


def default_complex():
    """The dtype a tensor made from Python complex numbers gets (torch has none for a
    bfloat16 default)."""
    if DEFAULT.float is bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return DEFAULT.complex


def result_type(tensor_dtype, scalar):
    """dtype of an op between a tensor and a Python scalar: the scalar never upcasts within
    its category, but lifts the category (int tensor * 2.5 -> default float)."""
    t = type(scalar)
    if t is _PY_FLOAT:
        cat = FLOAT
    elif t is _PY_INT:
        cat = INT
    elif t is _PY_BOOL:
        cat = BOOL
    elif t is complex:
        cat = COMPLEX
    else:
        cat = FLOAT
    if cat <= tensor_dtype.category:
        return tensor_dtype
    if cat == FLOAT:
        return DEFAULT.float
    if cat == COMPLEX:
        return DEFAULT.complex if tensor_dtype.category < FLOAT else tensor_dtype.to_complex()
    return int64


def promote_tensors(a, a_dim, b, b_dim):
    """dtype of an op between two tensors: a 0-d tensor only matters if it is of a
    higher category than the dimensioned one (torch's 'wrapped number' rule)."""
    if a is b:
        return a
    if (a_dim == 0) == (b_dim == 0):
        return promote_types(a, b)
    dim_t, zero_t = (a, b) if a_dim else (b, a)
    if zero_t.category > dim_t.category:
        return _lift(dim_t, zero_t)
    return dim_t


def promote_all(tensors):
    """dtype of an op over several tensors (``addcmul``'s three), by torch's rules: the
    tensors with dims promote among themselves, as do the 0-d ones, and the 0-d result
    counts only if it is of a higher category."""
    dims, zeros = None, None
    for t in tensors:
        d = FROM_NP[t._data.dtype]
        if t._data.ndim:
            dims = d if dims is None else promote_types(dims, d)
        else:
            zeros = d if zeros is None else promote_types(zeros, d)
    if dims is None or zeros is None:
        return zeros if dims is None else dims
    return promote_tensors(dims, 1, zeros, 0)


def _lift(dim_t, zero_t):
    # The 0-d tensor's category wins with its own precision (int32 + 0-d float64 -> float64),
    # except that a float tensor keeps its precision when lifted to complex.
    if zero_t.category == COMPLEX and dim_t.category == FLOAT:
        return dim_t.to_complex()
    return zero_t


def can_cast(from_, to):
    """Whether torch allows casting ``from_`` into ``to`` in an in-place op or ``out=``."""
    return from_.category <= to.category


_WARNED_COMPLEX_CAST = []  # whether a complex-to-real copy has warned (once per process)


def real_part_for(arr, np_dtype):
    """``arr`` ready to be copied into ``np_dtype``: a complex array going to a real dtype
    other than bool gives its real part, with torch's UserWarning (once per process unless
    ``set_warn_always(True)``, as torch's copy warns; not for an empty array), so NumPy's own
    ComplexWarning never reaches the user. Anything else is returned as it is, but that a
    complex32 array (read as complex64) or one going to complex32 comes back cast."""
    if arr.dtype.kind == BF16_KIND and arr.dtype.names is not None:
        arr = chalf_to_complex64(arr)
        if is_chalf(np.dtype(np_dtype)):
            return cast(arr, CHALF_NP)
    elif getattr(np_dtype, 'names', None) is not None:  # (to complex32)
        return cast(arr, CHALF_NP)
    if arr.dtype.kind != 'c' or np.dtype(np_dtype).kind in 'cb':
        return arr
    if arr.size:
        from ._settings import is_warn_always_enabled
        if not _WARNED_COMPLEX_CAST or is_warn_always_enabled():
            _WARNED_COMPLEX_CAST.append(True)
            from .overrides import _warn_at_caller
            _warn_at_caller("Casting complex values to real discards the imaginary part")
    return arr.real
