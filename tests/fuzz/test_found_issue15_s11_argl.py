"""Findings of the fuzzer's out= and wrong-type modes (issue 15, session 11, helper argl):
exception classes where torch checks something else before its kernel's dtype refusal,
each pinned against torch."""
import pytest

from tests.oracle.oracle import check

# (op, refused input dtype, number of tensor operands, out dtype): torch's elementwise ops
# check out's dtype before their kernel's dtype support
_OUT_FIRST = [
    ('bitwise_not', 'float64', 1, 'bfloat16'),
    ('bitwise_not', 'complex64', 1, 'int16'),
    ('abs', 'bool', 1, 'float32'),
    ('frac', 'int64', 1, 'float32'),
    ('round', 'complex64', 1, 'float32'),
    ('floor', 'bool', 1, 'uint8'),
    ('trunc', 'bool', 1, 'float64'),
    ('bitwise_or', 'complex128', 2, 'bool'),
    ('bitwise_and', 'float32', 2, 'int64'),
    ('gcd', 'float64', 2, 'uint8'),
    ('lcm', 'complex64', 2, 'float32'),
    ('atan2', 'complex64', 2, 'float64'),
    ('hypot', 'int64', 2, 'bool'),
    ('special.i0e', 'complex64', 1, 'int32'),
    ('special.log_ndtr', 'complex128', 1, 'bfloat16'),
    ('special.xlogy', 'complex64', 2, 'float32'),
    ('special.gammainc', 'complex64', 2, 'float32'),
    ('special.chebyshev_polynomial_w', 'float16', 2, 'bool'),
    ('special.hermite_polynomial_he', 'float16', 2, 'int64'),
    # (the kernel's refusal stands: out castable, or an op whose refusal comes first)
    ('bitwise_or', 'float64', 2, 'complex128'),
    ('ceil', 'complex64', 1, 'float32'),
    ('gt', 'complex64', 2, 'float32'),
    ('lcm', 'float64', 2, 'complex64'),
]


@pytest.mark.parametrize('op,dtype,n,out_dtype', _OUT_FIRST,
                         ids=[f'{o}-{d}-{od}' for o, d, _, od in _OUT_FIRST])
def test_elementwise_out_dtype_checked_before_kernel_dtype(op, dtype, n, out_dtype):
    """A refused input dtype with out= of another dtype: torch's iterator first checks that
    the common dtype casts into out ("result type ComplexDouble can't be cast to the desired
    output type Bool"), or, for the same-dtype unary ops, that out has the input's dtype
    ("Found dtype BFloat16 but expected Double"); ember raised the kernel's
    NotImplementedError."""
    def f(T):
        fn = T
        for part in op.split('.'):
            fn = getattr(fn, part)
        x = T.tensor([[0.5, 1.5], [2.0, 3.0]]).to(getattr(T, dtype))
        return fn(*([x] * n), out=T.empty(0, dtype=getattr(T, out_dtype)))
    check(f, grad=False, match_message=True)
