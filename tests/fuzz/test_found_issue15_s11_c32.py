"""complex32 (torch's ComplexHalf, ``chalf``), each behaviour pinned against torch 2.13.

ember had no complex32: ``Tensor.chalf`` and ``complex`` of two float16 tensors were refused,
``view_as_complex`` of a float16 tensor too, and a float16 tensor with a complex number
(``h - 1j``, ``h * 1j``) gave complex64 where torch gives complex32 (the fuzzer's "left:"
entries of tests/fuzz/known.py). The dtype now exists: its arrays are a structured NumPy
dtype of two float16 fields; the few ops torch has a complex32 kernel for compute through
complex64, and the others refuse it with torch's message, from the dtype refusal table."""
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember
from tests.oracle.oracle import check

warnings.filterwarnings('ignore', 'ComplexHalf support is experimental')

H = np.array([[1.5, -2.0, 0.1], [0.25, 3.0, -1e3]], np.float64)
I = np.array([[0.25, 3.0, -0.5], [1.5, -2.0, 7.0]], np.float64)


def _c32(T, a, b):
    """A complex32 tensor of real parts ``a``, imaginary parts ``b`` (float64 inputs)."""
    return T.complex(a.half(), b.half())


def test_dtype_objects():
    """The dtype and its aliases, sizes and predicates are torch's."""
    assert repr(ember.complex32) == repr(torch.complex32) == 'torch.complex32'
    assert ember.chalf is ember.complex32
    for name in ('is_complex', 'is_floating_point', 'is_signed', 'itemsize'):
        assert getattr(ember.complex32, name) == getattr(torch.complex32, name), name
    assert repr(ember.complex32.to_real()) == repr(torch.complex32.to_real())
    assert repr(ember.float16.to_complex()) == repr(torch.float16.to_complex())
    assert ember.complex32 == pickle.loads(pickle.dumps(ember.complex32))


_DTYPES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16',
           'float32', 'float64', 'complex64', 'complex128', 'complex32', 'uint16']


@pytest.mark.parametrize('other', _DTYPES)
def test_promote_types_with_complex32(other):
    """float16 and any integer with complex32 stay complex32; bfloat16 and float32 meet it in
    complex64, float64 in complex128; the barebones unsigned refuse it."""
    def f(T):
        return (T.promote_types(T.complex32, getattr(T, other)),
                T.promote_types(getattr(T, other), T.complex32))
    check(f, grad=False, match_message=True)


@pytest.mark.parametrize('scalar', [1j, 2.5, 3, True])
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32', 'int64', 'bool'])
def test_result_type_of_a_tensor_and_a_number(dtype, scalar):
    """float16 with a complex number is complex32 (torch's lifting keeps the precision)."""
    check(lambda T: T.result_type(T.ones(2, dtype=getattr(T, dtype)), scalar), grad=False)


@pytest.mark.parametrize('op', ['sub', 'rsub', 'add', 'mul', 'radd', 'rmul'])
@pytest.mark.parametrize('number', [1j, 2 - 0.5j])
def test_float16_with_a_complex_number_is_complex32(op, number):
    """``h - 1j``, ``1j - h``, ``h * 1j``...: complex32 in torch; ember gave complex64."""
    fns = {'sub': lambda h: h - number, 'rsub': lambda h: number - h,
           'add': lambda h: h + number, 'mul': lambda h: h * number,
           'radd': lambda h: number + h, 'rmul': lambda h: number * h}
    check(lambda T, a: fns[op](a.half()), H, grad=False)


def test_chalf_and_complex_and_conversions():
    """``chalf()``, ``to(complex32)``, ``complex`` of float16 tensors and the conversions
    back (real targets take the real part)."""
    check(lambda T, a: a.half().chalf(), H, grad=False)
    check(lambda T, a: a.to(T.complex32), H, grad=False)
    check(lambda T, a: a.to(T.complex128).to(T.complex32), H, grad=False)
    check(lambda T, a, b: _c32(T, a, b), H, I, grad=False)
    for target in ('float16', 'float32', 'float64', 'complex64', 'complex128', 'bool', 'int64'):
        check(lambda T, a, b: _c32(T, a, b).to(getattr(T, target)), H, I, grad=False)
    check(lambda T, a, b: _c32(T, a, b).cfloat(), H, I, grad=False)
    check(lambda T, a, b: T.ones(2, 3).copy_(_c32(T, a, b)), H, I, grad=False)
    check(lambda T, a, b: _c32(T, a, b).copy_(T.ones(2, 3)), H, I, grad=False)


def test_overflow_to_complex32_is_inf():
    """A part beyond float16's range becomes inf when converted (not refused)."""
    check(lambda T: T.tensor([1e5 + 1e-5j, -7e4 + 1j]).to(T.complex32), grad=False)


def test_factories():
    """The factories that take complex32 make it; those whose kernels lack it refuse."""
    for make in (lambda T: T.zeros(2, 3, dtype=T.chalf), lambda T: T.ones(2, dtype=T.chalf),
                 lambda T: T.full((2,), 1 + 2j, dtype=T.chalf),
                 lambda T: T.full((2,), 3.0, dtype=T.chalf),
                 lambda T: T.tensor([1 + 2j, 3.5], dtype=T.chalf),
                 lambda T: T.tensor([1, 2], dtype=T.chalf),
                 lambda T: T.tensor(1j, dtype=T.chalf),
                 lambda T: T.ones_like(T.zeros(2, dtype=T.chalf)),
                 lambda T: T.full_like(T.zeros(2, dtype=T.chalf), 2j),
                 lambda T: T.zeros(2, dtype=T.chalf).new_tensor([1, 2]),
                 lambda T: T.empty(2, 2, dtype=T.chalf).shape,
                 lambda T: T.arange(3, dtype=T.chalf), lambda T: T.eye(2, dtype=T.chalf),
                 lambda T: T.linspace(0, 1, 3, dtype=T.chalf),
                 lambda T: T.logspace(0, 1, 3, dtype=T.chalf),
                 lambda T: T.randperm(3, dtype=T.chalf)):
        check(make, grad=False, match_message=True)


def test_element_size_strides_and_memory():
    """Four bytes an element, so strides and storage are torch's."""
    def f(T, a, b):
        x = _c32(T, a, b)
        return (x.element_size(), x.itemsize, x.nbytes, x.t().stride(),
                x.untyped_storage().nbytes(), x.type(), x.is_complex(), x.is_floating_point(),
                T.is_complex(x), x.dtype.is_complex)
    check(f, H, I, grad=False)


def test_view_as_real_and_view_as_complex_share_memory():
    """view_as_real of complex32 is a float16 view (same memory); view_as_complex of a
    float16 (..., 2) tensor is a complex32 view; real/imag are float16 views."""
    def f(T, a, b):
        x = _c32(T, a, b)
        v = T.view_as_real(x)
        v[0, 0, 1] = 9
        w = T.view_as_complex(v)
        w[1, 2] = 4j
        return x, v, w, x.real, x.imag, T.view_as_real(x.t()).stride()
    check(f, H, I, grad=False)
    check(lambda T, a: T.view_as_complex(a.half().reshape(3, 2)), H, grad=False)
    check(lambda T, a: T.view_as_complex_copy(a.half().reshape(3, 2)), H, grad=False)
    check(lambda T, a: T.view_as_complex(a.half()), H, grad=False, match_message=True)
    check(lambda T, a, b: T.view_as_real(_c32(T, a, b).conj()), H, I, grad=False,
          match_message=True)


def test_supported_ops():
    """The ops torch has complex32 kernels for, computed through complex64 and rounded."""
    ops = [lambda T, x: x + x, lambda T, x: x - x.conj(), lambda T, x: x * x,
           lambda T, x: T.add(x, x, alpha=2), lambda T, x: x + 1.5, lambda T, x: -x,
           lambda T, x: x.conj(), lambda T, x: x.conj().is_conj(),
           lambda T, x: x.conj().resolve_conj(), lambda T, x: T.conj_physical(x),
           lambda T, x: x.sgn(), lambda T, x: x.abs(), lambda T, x: x == x.conj(),
           lambda T, x: x != 1j, lambda T, x: x.isnan(), lambda T, x: x.isfinite(),
           lambda T, x: x.isinf(), lambda T, x: x.isreal(), lambda T, x: x.any(),
           lambda T, x: x.all(), lambda T, x: x.nonzero(), lambda T, x: T.count_nonzero(x),
           lambda T, x: T.where(x.real > 0, x, x.conj()), lambda T, x: T.where(x.real > 0, x, 0),
           lambda T, x: x.masked_fill(x.real > 0, 2j), lambda T, x: T.cat([x, x]),
           lambda T, x: T.cat([x, x.real]), lambda T, x: T.stack([x, x]),
           lambda T, x: x[0], lambda T, x: x[x.real > 0], lambda T, x: x.reshape(6),
           lambda T, x: x.flip(0), lambda T, x: x.t().contiguous(), lambda T, x: x.clone(),
           lambda T, x: x.clone().fill_(3j), lambda T, x: x.clone().zero_(),
           lambda T, x: x.clone().add_(1), lambda T, x: x.clone().mul_(x),
           lambda T, x: x.index_select(0, T.tensor([1])), lambda T, x: x.roll(1),
           lambda T, x: x.tolist(), lambda T, x: x[0, 1].item(),
           lambda T, x: T.isclose(x, x + 0.001), lambda T, x: T.allclose(x, x),
           lambda T, x: x + T.ones(3), lambda T, x: T.ones(3) + T.tensor(1j, dtype=T.chalf),
           lambda T, x: x + T.tensor(1j), lambda T, x: x.half().dtype]
    for op in ops:
        check(lambda T, a, b: op(T, _c32(T, a, b)), H, I, grad=False, match_message=True)


def test_refused_ops():
    """The ops torch has no complex32 kernel for refuse it with torch's error (from the
    dtype refusal table, or the kernel refusals of ember's own bodies)."""
    ops = [lambda T, x: x / x, lambda T, x: x.exp(), lambda T, x: x.sum(),
           lambda T, x: x.mean(), lambda T, x: x.prod(), lambda T, x: x @ x.t(),
           lambda T, x: T.matmul(x, x.t()), lambda T, x: x.pow(2), lambda T, x: x.sqrt(),
           lambda T, x: x.square(), lambda T, x: x.reciprocal(), lambda T, x: x.angle(),
           lambda T, x: x.max(), lambda T, x: x.cumsum(0),
           lambda T, x: T.dot(x[0], x[0]), lambda T, x: T.vdot(x[0], x[0]),
           lambda T, x: x.gather(0, T.tensor([[0, 1]])), lambda T, x: x.take(T.tensor([0])),
           lambda T, x: T.zeros(2, 3, dtype=T.chalf).scatter(0, T.tensor([[1, 0]]), x),
           lambda T, x: x.sign(), lambda T, x: x.clone().abs_(), lambda T, x: x < x,
           lambda T, x: x.tanh(), lambda T, x: x.sigmoid(), lambda T, x: x.numpy(),
           lambda T, x: x ** 2, lambda T, x: 2 ** x, lambda T, x: x ** x,
           lambda T, x: x % 2, lambda T, x: 1 / x]
    for op in ops:
        check(lambda T, a, b: op(T, _c32(T, a, b)), H, I, grad=False, match_message=True)


def test_printing():
    """repr shows complex32's values as torch does, with its dtype."""
    def f(T, a, b):
        return repr(_c32(T, a, b)), repr(T.zeros(0, dtype=T.chalf)), \
            repr(T.tensor(1j, dtype=T.chalf))
    check(f, H, I, grad=False)


def test_save_and_load_across_libraries(tmp_path):
    """A complex32 tensor saved by either library loads in the other with its values."""
    import io
    for save_lib, load_lib in ((ember, torch), (torch, ember), (ember, ember)):
        buf = io.BytesIO()
        save_lib.save(save_lib.tensor([1 + 2j, 3 - 1j, 0.1j], dtype=save_lib.chalf), buf)
        buf.seek(0)
        got = load_lib.load(buf)
        assert str(got.dtype) == 'torch.complex32'
        assert got.cfloat().tolist() == torch.tensor([1 + 2j, 3 - 1j, 0.1j],
                                                     dtype=torch.chalf).cfloat().tolist()


@pytest.mark.parametrize('op', ['sub', 'rsub', 'add', 'mul'])
def test_float16_with_inf_and_a_complex_number(op):
    """Non-finite float16 with a complex number: torch's complex kernels (``1j - inf`` is
    -inf+nanj, through its complex multiply by alpha), as for complex64 (a fuzzer finding
    once complex32 existed)."""
    fns = {'sub': lambda h: h - 1j, 'rsub': lambda h: 1j - h, 'add': lambda h: h + 1j,
           'mul': lambda h: h * (1 + 1j)}
    check(lambda T, a: fns[op](a.half()), np.array([0.5, np.inf, -np.inf, np.nan]),
          grad=False)


def test_experimental_warning():
    """torch warns once a process that ComplexHalf support is experimental; ember too."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, 'PYTHONPATH': root + os.pathsep + os.environ.get('PYTHONPATH', '')}
    code = ("import warnings; warnings.simplefilter('always'); import {0} as T\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    T.zeros(2, dtype=T.complex32); T.ones(2, dtype=T.float16) + 1j\n"
            "print([str(x.message).split(' (Triggered')[0] for x in w])")
    outs = [subprocess.run([sys.executable, '-c', code.format(lib)], capture_output=True,
                           text=True, env=env).stdout for lib in ('torch', 'ember')]
    assert outs[0] == outs[1] and 'ComplexHalf support is experimental' in outs[0]


def test_float16_with_a_complex_number_in_other_ops():
    """Where float16 with a complex number promotes to complex32: ``where`` makes it, and
    the operators without a complex32 kernel refuse it as torch's (``h ** 1j``, ``h // 1j``;
    ember's Python operators declined with a TypeError)."""
    h = np.array([1.5, -2.0, 0.0, np.inf])
    z = 2 - 1j
    for op in (lambda T, a: T.where(a > 0, a, z), lambda T, a: T.where(a > 0, z, a),
               lambda T, a: a ** z, lambda T, a: z ** a, lambda T, a: a // z,
               lambda T, a: a / z, lambda T, a: a % z, lambda T, a: a.masked_fill(a > 0, z),
               lambda T, a: a.clone().add_(z)):
        check(lambda T, a: op(T, a.half()), h, grad=False)
