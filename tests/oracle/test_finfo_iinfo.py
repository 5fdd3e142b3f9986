"""ember.finfo / ember.iinfo against torch 2.13: every field (bit for bit), reprs, equality,
the default dtype, and torch's errors for wrong arguments."""
import pytest

from .oracle import torch, ember

FLOATS = ['float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128']
INTS = ['uint8', 'int8', 'int16', 'int32', 'int64']
NOT_FLOAT = INTS + ['bool']
NOT_INT = FLOATS + ['bool']


def both(fn):
    """``fn(lib)`` for ember and torch: the results, or the exceptions raised."""
    out = []
    for lib in (ember, torch):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001 - compared by the caller
            out.append(e)
    return out


def same_error(fn):
    e, t = both(fn)
    assert isinstance(t, Exception), f"torch returned {t!r}"
    assert isinstance(e, Exception), f"ember returned {e!r} where torch raised {t!r}"
    assert type(e) is type(t) and str(e) == str(t), f"{e!r} != {t!r}"


def same_fields(e, t, fields):
    for f in fields:
        a, b = getattr(e, f), getattr(t, f)
        assert type(a) is type(b), f"{f}: {type(a).__name__} != {type(b).__name__}"
        assert a == b, f"{f}: {a!r} != {b!r}"  # (floats: exactly, bit for bit)
    assert repr(e) == repr(t)
    assert str(e) == str(t)


@pytest.mark.parametrize('name', FLOATS)
def test_finfo_fields(name):
    e, t = both(lambda T: T.finfo(getattr(T, name)))
    same_fields(e, t, ('bits', 'eps', 'max', 'min', 'tiny', 'smallest_normal', 'resolution',
                       'dtype'))


@pytest.mark.parametrize('name', INTS)
def test_iinfo_fields(name):
    e, t = both(lambda T: T.iinfo(getattr(T, name)))
    same_fields(e, t, ('bits', 'max', 'min', 'dtype'))


@pytest.mark.parametrize('default', ['float32', 'float64', 'float16', 'bfloat16'])
def test_finfo_of_the_default_dtype(default):
    def fn(T):
        T.set_default_dtype(getattr(T, default))
        try:
            return T.finfo(), T.finfo(type=getattr(T, default))
        finally:
            T.set_default_dtype(T.float32)
    (e, e_kw), (t, t_kw) = both(fn)
    assert repr(e) == repr(t) and repr(e_kw) == repr(t_kw)


@pytest.mark.parametrize('name', NOT_FLOAT)
def test_finfo_of_a_non_float_dtype(name):
    same_error(lambda T: T.finfo(getattr(T, name)))


@pytest.mark.parametrize('name', NOT_INT)
def test_iinfo_of_a_non_integer_dtype(name):
    same_error(lambda T: T.iinfo(getattr(T, name)))


@pytest.mark.parametrize('call', [
    lambda T, info: info('float32'), lambda T, info: info(3), lambda T, info: info(None),
    lambda T, info: info(T.float32, T.float16), lambda T, info: info(dtype=T.float32),
    lambda T, info: info(T.ones(1))])
@pytest.mark.parametrize('which', ['finfo', 'iinfo'])
def test_argument_errors(which, call):
    same_error(lambda T: call(T, getattr(T, which)))


def test_iinfo_needs_a_dtype():
    same_error(lambda T: T.iinfo())


@pytest.mark.parametrize('a', FLOATS)
@pytest.mark.parametrize('b', FLOATS)
def test_finfo_equality(a, b):
    e, t = both(lambda T: (T.finfo(getattr(T, a)) == T.finfo(getattr(T, b)),
                           T.finfo(getattr(T, a)) != T.finfo(getattr(T, b))))
    assert e == t


def test_equality_with_other_objects():
    e, t = both(lambda T: (T.finfo(T.float32) == 3, T.iinfo(T.int8) == T.iinfo(T.int8),
                           T.iinfo(T.int8) == T.iinfo(T.int16), T.iinfo(T.int8) != 'int8'))
    assert e == t


@pytest.mark.parametrize('stmt', ['info.eps = 1.0', 'info.bits = 3', 'info.other = 1',
                                  'hash(info)'])
def test_read_only_and_unhashable(stmt):
    same_error(lambda T: exec(stmt, {'info': T.finfo(T.bfloat16)}))


@pytest.mark.parametrize('stmt', ['info.max = 1', 'info.other = 1', 'hash(info)'])
def test_iinfo_read_only_and_unhashable(stmt):
    same_error(lambda T: exec(stmt, {'info': T.iinfo(T.int32)}))
