"""The C++ API of <ember/extension.h>, through one small extension built once for the file:
ember::Tensor's metadata against torch's for the same tensors and views, zero-copy access,
output allocation, EMBER_CHECK and the other errors (with torch's messages where torch has
the same error), and how tensors cross the binding."""
import numpy as np
import pytest

import ember

SOURCE = r'''
#include <string>
#include <tuple>

using Description = std::tuple<std::vector<int64_t>, std::vector<int64_t>, int64_t, int64_t,
                               std::string, bool, int64_t>;

Description describe(ember::Tensor t) {
  return {t.sizes().vec(), t.strides(), t.dim(), t.numel(), ember::name(t.scalar_type()),
          t.is_contiguous(), t.element_size()};
}

int64_t address(ember::Tensor t) { return reinterpret_cast<intptr_t>(t.data_ptr()); }

ember::Tensor fill_(ember::Tensor t, double value) {
  EMBER_CHECK(t.is_contiguous(), "fill_: expected a contiguous tensor");
  EMBER_DISPATCH_ALL_TYPES(t.scalar_type(), "fill_", [&] {
    scalar_t* p = t.data_ptr<scalar_t>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<scalar_t>(value);
  });
  ember::increment_version(t);
  return t;
}

void add_row_index_(ember::Tensor t) {
  auto a = t.accessor<float, 2>();
  for (int64_t i = 0; i < a.size(0); ++i)
    for (int64_t j = 0; j < a.size(1); ++j) a[i][j] += static_cast<float>(i);
}

double sum2d(ember::Tensor t) {
  auto a = t.accessor<float, 2>();
  double s = 0;
  for (int64_t i = 0; i < a.size(0); ++i)
    for (int64_t j = 0; j < a.size(1); ++j) s += a[i][j];
  return s;
}

ember::ScalarType type_named(const std::string& name) {
  for (int i = 0; i < ember::kNumScalarTypes; ++i) {
    auto t = static_cast<ember::ScalarType>(i);
    if (name == ember::dtype_name(t)) return t;
  }
  EMBER_CHECK_VALUE(false, "no dtype named ", name);
  return ember::kFloat;
}

ember::Tensor make(std::vector<int64_t> sizes, const std::string& dtype, bool zero) {
  return zero ? ember::zeros(sizes, type_named(dtype)) : ember::empty(sizes, type_named(dtype));
}

ember::Tensor make_default(std::vector<int64_t> sizes) { return ember::zeros(sizes); }

ember::Tensor like(ember::Tensor t, bool zero) {
  return zero ? ember::zeros_like(t) : ember::empty_like(t);
}

ember::Tensor matmul(ember::Tensor a, ember::Tensor b) { return ember::mm(a, b); }
ember::Tensor transpose(ember::Tensor t) { return t.t(); }
ember::Tensor contiguous(ember::Tensor t) { return t.contiguous(); }
int64_t size_of(ember::Tensor t, int64_t d) { return t.size(d); }
int64_t stride_of(ember::Tensor t, int64_t d) { return t.stride(d); }
double first_float(ember::Tensor t) { return *t.data_ptr<float>(); }
int64_t rows(ember::Tensor t) { return t.accessor<float, 2>().size(0); }

void check_matrix(ember::Tensor t) { EMBER_CHECK(t.dim() == 2); }
void check_type(ember::Tensor t) {
  EMBER_CHECK_TYPE(t.scalar_type() == ember::kFloat, "check_type: expected Float, got ",
                   t.scalar_type());
}
void check_value(int64_t n) { EMBER_CHECK_VALUE(n > 0, "n must be positive, got ", n); }
void check_index(int64_t i) { EMBER_CHECK_INDEX(i < 3, "index ", i, " is out of bounds"); }

int64_t floating_size(ember::Tensor t) {
  return EMBER_DISPATCH_FLOATING_TYPES(t.scalar_type(), "floating_size",
                                       [&] { return static_cast<int64_t>(sizeof(scalar_t)); });
}

ember::Tensor maybe(ember::Tensor t, bool defined) { return defined ? t : ember::Tensor(); }
std::vector<ember::Tensor> as_list(ember::Tensor a, ember::Tensor b) { return {a, b}; }
std::tuple<ember::Tensor, ember::Tensor> as_tuple(ember::Tensor a, ember::Tensor b) {
  return {a, b};
}
'''

FUNCTIONS = ['describe', 'address', 'fill_', 'add_row_index_', 'sum2d', 'make', 'make_default',
             'like', 'matmul', 'transpose', 'contiguous', 'size_of', 'stride_of', 'first_float',
             'rows', 'check_matrix', 'check_type', 'check_value', 'check_index',
             'floating_size', 'maybe', 'as_list', 'as_tuple']


@pytest.fixture(scope='module')
def ext(toolchain):
    from ember.utils.cpp_extension import load_inline
    return load_inline('tensor_api', SOURCE, functions=FUNCTIONS)


@pytest.fixture(scope='module')
def torch():
    return pytest.importorskip('torch', reason="real PyTorch 2.13 (the oracle) is not installed")


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def _torch_error(fn):
    """torch's exception for the same mistake (it must raise)."""
    return _error(fn)


VIEWS = {
    'contiguous': lambda lib, x: x,
    'transposed': lambda lib, x: x.transpose(0, 2),
    'sliced': lambda lib, x: x[:, 1:, ::2],
    'sliced transposed': lambda lib, x: x[:, 1:, ::2].transpose(0, 1),
    'row': lambda lib, x: x[1, 2],
    'scalar': lambda lib, x: x[1, 2, 3],
    'empty': lambda lib, x: x[:, :0],
    'expanded': lambda lib, x: x[:1, :1, :1].expand(2, 3, 4),
}
DTYPES = ['float32', 'float64', 'float16', 'int64', 'int32', 'int16', 'int8', 'uint8', 'bool',
          'complex64', 'complex128']


@pytest.mark.parametrize('view', VIEWS)
def test_metadata_matches_torch_for_views(ext, torch, view):
    def make(lib):
        return VIEWS[view](lib, lib.arange(24.0).reshape(2, 3, 4))
    e, t = make(ember), make(torch)
    sizes, strides, dim, numel, name, contiguous, itemsize = ext.describe(e)
    assert (sizes, strides, dim, numel, contiguous, itemsize) == (
        list(t.shape), list(t.stride()), t.dim(), t.numel(), t.is_contiguous(),
        t.element_size())


@pytest.mark.parametrize('dtype', DTYPES)
def test_scalar_type_names_are_torchs(ext, torch, dtype):
    e = ember.zeros(2, dtype=getattr(ember, dtype))
    t = torch.zeros(2, dtype=getattr(torch, dtype))
    # torch's legacy type name 'torch.FloatTensor' holds the C++ scalar type name 'Float'.
    assert ext.describe(e)[4] == t.type()[len('torch.'):-len('Tensor')]
    assert ext.describe(e)[6] == t.element_size()


def test_size_and_stride_wrap_negative_dims_and_refuse_out_of_range(ext, torch):
    x = ember.arange(24.0).reshape(2, 3, 4)[:, :, ::2]
    assert [ext.size_of(x, d) for d in (0, -1)] == [2, 2]
    assert [ext.stride_of(x, d) for d in (1, -1)] == [4, 2]
    e = _error(lambda: ext.size_of(x, 5))
    t = _torch_error(lambda: torch.ones(2, 3, 2).size(5))
    assert (type(e), str(e)) == (type(t), str(t))


def test_kernel_sees_and_writes_the_tensors_own_memory(ext):
    base = ember.zeros(3, 4)
    assert ext.address(base) == base.data_ptr()
    row = base[1]
    assert ext.address(row) == row.data_ptr()
    before = base._version
    out = ext.fill_(row, 2.5)
    assert out is row                      # the same Python object comes back
    assert base.tolist()[1] == [2.5] * 4   # written in place, seen through the base
    assert base.tolist()[0] == [0.0] * 4
    assert base._version == before + 1     # increment_version bumps the shared counter


def test_accessor_writes_through_strides_of_a_view(ext):
    base = ember.zeros(4, 3)
    view = base.t()[:, 1:]                 # 3 x 3, non-contiguous
    ext.add_row_index_(view)
    expected = np.zeros((4, 3), np.float32)
    expected[1:, :] = np.arange(3, dtype=np.float32)[None, :]
    np.testing.assert_array_equal(base.numpy(), expected)


def test_accessor_reads_non_contiguous_views(ext):
    x = ember.arange(30.0).reshape(5, 6)
    for view in (x, x.t(), x[1:, ::2], x[::2].t()):
        assert ext.sum2d(view) == pytest.approx(float(view.sum()))


def test_in_place_kernel_is_caught_by_autograd_saved_tensor_check(ext):
    x = ember.ones(3, requires_grad=True)
    y = x * 1
    z = y.exp()                            # saves its output z for backward
    ext.fill_(z.detach(), 0.0)             # the kernel writes z's memory and bumps its version
    with pytest.raises(RuntimeError, match='modified by an inplace operation'):
        z.sum().backward()


@pytest.mark.parametrize('dtype', DTYPES)
def test_allocation_returns_real_ember_tensors(ext, torch, dtype):
    z = ext.make([2, 3], dtype, True)
    t = torch.zeros(2, 3, dtype=getattr(torch, dtype))
    assert type(z) is ember.Tensor
    assert (z.dtype, tuple(z.shape), z.requires_grad, z.is_leaf) == \
        (getattr(ember, dtype), tuple(t.shape), False, True)
    np.testing.assert_array_equal(z.numpy(), t.numpy())
    e = ext.make([0, 4], dtype, False)
    assert (e.dtype, tuple(e.shape)) == (getattr(ember, dtype), (0, 4))
    assert ext.make_default([2]).dtype == ember.float32


def test_allocation_is_owned_by_python(ext):
    import gc
    a = ext.make([1000], 'float64', True)
    gc.collect()
    a += 1                                 # memory still valid, and ember ops work on it
    assert float(a.sum()) == 1000.0
    assert (a * 2).grad_fn is None


def test_negative_size_error_matches_torch(ext, torch):
    e = _error(lambda: ext.make([-1, 2], 'float32', False))
    t = _torch_error(lambda: torch.empty(-1, 2))
    assert (type(e), str(e)) == (type(t), str(t))


def test_like_keeps_sizes_and_dtype_and_is_contiguous(ext):
    x = ember.arange(12, dtype=ember.int32).reshape(3, 4).t()
    for zero in (True, False):
        y = ext.like(x, zero)
        assert (tuple(y.shape), y.dtype, y.is_contiguous()) == ((4, 3), ember.int32, True)
    assert ext.like(x, True).tolist() == [[0] * 3] * 4


def test_mm_matches_torch_on_views(ext, torch):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((4, 3))
    e = ext.matmul(ember.tensor(a), ext.transpose(ember.tensor(b)))
    t = torch.tensor(a) @ torch.tensor(b).t()
    assert e.dtype == ember.float64
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-12)


@pytest.mark.parametrize('shapes', [((2, 3), (2, 3)), ((3,), (3, 2)), ((2, 3), (3,))])
def test_mm_shape_errors_match_torch(ext, torch, shapes):
    a, b = shapes
    e = _error(lambda: ext.matmul(ember.ones(*a), ember.ones(*b)))
    t = _torch_error(lambda: torch.mm(torch.ones(*a), torch.ones(*b)))
    assert (type(e), str(e)) == (type(t), str(t))


@pytest.mark.parametrize('dtype', ['float64', 'int64', 'float16', 'int16', 'complex64'])
def test_mm_dtype_error_matches_torch(ext, torch, dtype):
    e = _error(lambda: ext.matmul(ember.ones(2, 3, dtype=getattr(ember, dtype)),
                                  ember.ones(3, 2)))
    t = _torch_error(lambda: torch.mm(torch.ones(2, 3, dtype=getattr(torch, dtype)),
                                      torch.ones(3, 2)))
    assert (type(e), str(e)) == (type(t), str(t))


def test_t_and_contiguous(ext, torch):
    x = ember.arange(6.0).reshape(2, 3)
    xt = ext.transpose(x)
    assert xt.tolist() == x.t().tolist() and xt.data_ptr() == x.data_ptr()
    v = ember.arange(3.0)
    assert ext.transpose(v) is v
    c = ext.contiguous(xt)
    assert c.is_contiguous() and c.tolist() == xt.tolist() and c.data_ptr() != x.data_ptr()
    assert ext.contiguous(x) is x
    e = _error(lambda: ext.transpose(ember.ones(2, 2, 2)))
    t = _torch_error(lambda: torch.ones(2, 2, 2).t())
    assert (type(e), str(e)) == (type(t), str(t))


def test_wrong_element_type_is_a_runtime_error(ext):
    with pytest.raises(RuntimeError, match='^expected scalar type Float but found Double$'):
        ext.first_float(ember.ones(2, dtype=ember.float64))
    assert ext.first_float(ember.full((2,), 1.5)) == 1.5


def test_accessor_of_wrong_rank_is_a_runtime_error(ext):
    with pytest.raises(RuntimeError, match='^TensorAccessor expected 2 dims but tensor has 1$'):
        ext.rows(ember.ones(3))
    assert ext.rows(ember.ones(3, 2)) == 3


def test_ember_check_family_raises_the_named_python_exceptions(ext):
    with pytest.raises(RuntimeError, match=r'^Expected t\.dim\(\) == 2 to be true, but got '
                                           r'false\.$'):
        ext.check_matrix(ember.ones(3))
    ext.check_matrix(ember.ones(3, 3))
    with pytest.raises(TypeError, match='^check_type: expected Float, got Long$'):
        ext.check_type(ember.ones(3, dtype=ember.int64))
    with pytest.raises(ValueError, match='^n must be positive, got -2$'):
        ext.check_value(-2)
    with pytest.raises(IndexError, match='^index 7 is out of bounds$'):
        ext.check_index(7)
    with pytest.raises(RuntimeError, match='^fill_: expected a contiguous tensor$'):
        ext.fill_(ember.ones(3, 3).t(), 1.0)


def test_dispatch_error_matches_torchs_format(ext, torch):
    assert ext.floating_size(ember.ones(1)) == 4
    assert ext.floating_size(ember.ones(1, dtype=ember.float64)) == 8
    e = _error(lambda: ext.floating_size(ember.ones(1, dtype=ember.int64)))
    t = _torch_error(lambda: torch.nn.functional.gelu(torch.ones(1, dtype=torch.long)))
    assert type(e) is type(t) is NotImplementedError
    assert str(e) == str(t).replace('GeluKernelImpl', 'floating_size')


def test_non_tensor_arguments_are_a_type_error(ext):
    with pytest.raises(TypeError, match='incompatible function arguments'):
        ext.describe(np.ones(3))
    with pytest.raises(TypeError, match='incompatible function arguments'):
        ext.describe([1.0, 2.0])


def test_tensors_cross_the_binding_unchanged(ext):
    p = ember.nn.Parameter(ember.ones(2))  # a Tensor subclass is accepted and comes back
    assert ext.maybe(p, True) is p
    assert ext.maybe(p, False) is None     # an undefined ember::Tensor is None
    a, b = ember.ones(1), ember.zeros(1)
    pair = ext.as_list(a, b)
    assert isinstance(pair, list) and pair[0] is a and pair[1] is b
    pair = ext.as_tuple(a, b)
    assert isinstance(pair, tuple) and pair[0] is a and pair[1] is b
    x = ember.ones(2, requires_grad=True)  # kernels see data; autograd is the Function's job
    y = ext.like(x, True)
    assert not y.requires_grad
