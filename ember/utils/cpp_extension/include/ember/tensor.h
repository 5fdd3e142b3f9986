// ember/tensor.h: ember::Tensor, a zero-copy C++ view of an ember tensor.
//
// An ember tensor keeps its elements in a NumPy array (`tensor._data`); ember::Tensor holds
// a reference to the Python tensor and reads the array's pointer, shape and strides
// straight from the array struct, so passing a tensor to C++ copies nothing, and a kernel
// writing through data_ptr<T>() changes the Python tensor's memory. Tensors made here
// (empty, zeros, empty_like, zeros_like, mm, contiguous, t) are real ember Tensors owned by
// Python, handed back to it without a copy.
//
// Kernels run with the GIL held. Release it around long loops that touch no Python object
// with `nanobind::gil_scoped_release`; make and return tensors while holding it.
#pragma once

#include <Python.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include <nanobind/nanobind.h>

#ifndef NPY_NO_DEPRECATED_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#endif
// Only the array struct and its inline accessors: no NumPy C-API table to import, so this
// header works in any number of translation units without PY_ARRAY_UNIQUE_SYMBOL games.
#include <numpy/ndarraytypes.h>

#include "ember/check.h"
#include "ember/scalar_type.h"

namespace ember {

static_assert(sizeof(npy_intp) == sizeof(int64_t), "ember extensions need a 64-bit platform");

// A read-only view of a list of int64 (sizes, shapes): from a std::vector, a braced list
// {2, 3}, or a tensor's sizes(). It does not own its elements.
class IntArrayRef {
 public:
  IntArrayRef(const int64_t* data, size_t size) : data_(data), size_(size) {}
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}
  IntArrayRef(std::initializer_list<int64_t> l) : data_(l.begin()), size_(l.size()) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* data() const { return data_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t operator[](size_t i) const { return data_[i]; }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }

 private:
  const int64_t* data_;
  size_t size_;
};

// Prints as [2, 3], the way torch prints sizes in messages.
inline std::ostream& operator<<(std::ostream& out, IntArrayRef a) {
  out << '[';
  for (size_t i = 0; i < a.size(); ++i) out << (i ? ", " : "") << a[i];
  return out << ']';
}

// Indexing an N-D tensor element by element: acc[i][j] with the tensor's strides, so it
// works on non-contiguous tensors too. Made by Tensor::accessor<T, N>(); it holds a raw
// pointer, so it must not outlive the tensor.
template <typename T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides) : data_(data) {
    for (size_t d = 0; d < N; ++d) {
      sizes_[d] = sizes[d];
      strides_[d] = strides[d];
    }
  }
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(data_ + i * strides_[0], sizes_.data() + 1,
                                    strides_.data() + 1);
  }
  int64_t size(size_t d) const { return sizes_[d]; }
  int64_t stride(size_t d) const { return strides_[d]; }
  T* data() const { return data_; }

 private:
  T* data_;
  std::array<int64_t, N> sizes_;
  std::array<int64_t, N> strides_;
};

template <typename T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), size_(sizes[0]), stride_(strides[0]) {}
  T& operator[](int64_t i) const { return data_[i * stride_]; }
  int64_t size(size_t = 0) const { return size_; }
  int64_t stride(size_t = 0) const { return stride_; }
  T* data() const { return data_; }

 private:
  T* data_;
  int64_t size_;
  int64_t stride_;
};

namespace detail {

// The Python objects the header calls into, looked up once per extension module. A plain
// pointer rather than a function-local static: initialising a static runs Python imports
// under a C++ guard, which deadlocks if another thread takes the GIL meanwhile.
struct PyRefs {
  PyObject* tensor_type;  // ember.Tensor
  PyObject* make;         // ember._tensor.make: wraps an ndarray as a Tensor, no copy
  PyObject* ndarray_type;
  PyObject* np_empty;
  PyObject* np_zeros;
  PyObject* np_matmul;
  PyObject* np_ascontiguousarray;
  PyObject* data_name;    // "_data", interned
  PyObject* version_name;  // "_vc", interned
  PyObject* dtypes[kNumScalarTypes];  // numpy.dtype per ScalarType
};

inline PyObject* attr(PyObject* module, const char* name) {
  PyObject* r = PyObject_GetAttrString(module, name);
  if (!r) throw nanobind::python_error();
  return r;
}

inline PyRefs* load_refs() {
  nanobind::object ember_tensor = nanobind::module_::import_("ember._tensor");
  nanobind::object numpy = nanobind::module_::import_("numpy");
  auto r = std::make_unique<PyRefs>();
  r->tensor_type = attr(ember_tensor.ptr(), "Tensor");
  r->make = attr(ember_tensor.ptr(), "make");
  r->ndarray_type = attr(numpy.ptr(), "ndarray");
  r->np_empty = attr(numpy.ptr(), "empty");
  r->np_zeros = attr(numpy.ptr(), "zeros");
  r->np_matmul = attr(numpy.ptr(), "matmul");
  r->np_ascontiguousarray = attr(numpy.ptr(), "ascontiguousarray");
  r->data_name = PyUnicode_InternFromString("_data");
  r->version_name = PyUnicode_InternFromString("_vc");
  PyObject* dtype = attr(numpy.ptr(), "dtype");
  for (int i = 0; i < kNumScalarTypes; ++i) {
    r->dtypes[i] = PyObject_CallFunction(dtype, "s", dtype_name(static_cast<ScalarType>(i)));
    if (!r->dtypes[i]) throw nanobind::python_error();
  }
  return r.release();
}

// Never freed: extension modules are not unloaded, and these must outlive every kernel.
inline PyRefs& refs() {
  static PyRefs* r = nullptr;
  if (!r) r = load_refs();
  return *r;
}

inline ScalarType scalar_type_of_array(PyArrayObject* a) {
  switch (PyArray_TYPE(a)) {
    case NPY_BOOL: return kBool;
    case NPY_UBYTE: return kByte;
    case NPY_BYTE: return kChar;
    case NPY_SHORT: return kShort;
    case NPY_INT: return kInt;
    case NPY_LONG: return sizeof(long) == 8 ? kLong : kInt;
    case NPY_LONGLONG: return kLong;
    case NPY_HALF: return kHalf;
    case NPY_FLOAT: return kFloat;
    case NPY_DOUBLE: return kDouble;
    case NPY_CFLOAT: return kComplexFloat;
    case NPY_CDOUBLE: return kComplexDouble;
  }
  throw nanobind::type_error(
      str("ember extensions do not support NumPy type number ", PyArray_TYPE(a)).c_str());
}

inline int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim > 0 ? ndim : 1;
  EMBER_CHECK_INDEX(dim >= -n && dim < n, "Dimension out of range (expected to be in range of [",
                    -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

}  // namespace detail

class Tensor {
 public:
  // An undefined tensor (defined() is false); returned to Python as None.
  Tensor() = default;

  // The tensor behind a Python object; TypeError unless it is an ember Tensor.
  static Tensor from_python(nanobind::handle obj) {
    detail::PyRefs& r = detail::refs();
    EMBER_CHECK_TYPE(PyObject_TypeCheck(obj.ptr(), (PyTypeObject*) r.tensor_type),
                     "expected an ember Tensor, got ", Py_TYPE(obj.ptr())->tp_name);
    nanobind::object data = nanobind::steal(PyObject_GetAttr(obj.ptr(), r.data_name));
    if (!data.is_valid()) throw nanobind::python_error();
    return Tensor(nanobind::borrow(obj), std::move(data));
  }

  // Wraps an ndarray (owning a new reference to it) as a new ember Tensor, without a copy.
  static Tensor from_array(nanobind::object array) {
    PyObject* t = PyObject_CallOneArg(detail::refs().make, array.ptr());
    if (!t) throw nanobind::python_error();
    return Tensor(nanobind::steal(t), std::move(array));
  }

  bool defined() const { return obj_.is_valid(); }

  int64_t dim() const { return PyArray_NDIM(arr()); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes()) n *= s;
    return n;
  }
  IntArrayRef sizes() const {
    return IntArrayRef(reinterpret_cast<const int64_t*>(PyArray_DIMS(arr())), dim());
  }
  int64_t size(int64_t d) const { return sizes()[detail::wrap_dim(d, dim())]; }
  // Strides in elements (NumPy counts bytes), as torch reports them.
  std::vector<int64_t> strides() const {
    std::vector<int64_t> s(dim());
    const npy_intp* bytes = PyArray_STRIDES(arr());
    const int64_t item = element_size();
    for (int64_t d = 0; d < dim(); ++d) s[d] = bytes[d] / item;
    return s;
  }
  int64_t stride(int64_t d) const {
    return PyArray_STRIDES(arr())[detail::wrap_dim(d, dim())] / element_size();
  }
  ScalarType scalar_type() const { return detail::scalar_type_of_array(arr()); }
  int64_t element_size() const { return ember::element_size(scalar_type()); }
  // Row-major without gaps (sizes-1 dimensions may have any stride, as in torch).
  bool is_contiguous() const { return PyArray_FLAGS(arr()) & NPY_ARRAY_C_CONTIGUOUS; }

  void* data_ptr() const { return PyArray_DATA(arr()); }
  // The first element as T*; RuntimeError unless T is the tensor's element type.
  template <typename T>
  T* data_ptr() const {
    check_scalar_type(scalar_type_of<T>());
    return static_cast<T*>(PyArray_DATA(arr()));
  }

  // acc[i][j]... indexing with the tensor's own strides; RuntimeError on a wrong T or N.
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    EMBER_CHECK(dim() == static_cast<int64_t>(N), "TensorAccessor expected ", N,
                " dims but tensor has ", dim());
    std::vector<int64_t> st = strides();
    return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), st.data());
  }
  // An accessor of a temporary would dangle: bind the tensor to a name first.
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  // This tensor if it is contiguous, else a contiguous copy.
  Tensor contiguous() const {
    if (is_contiguous()) return *this;
    return from_array(call(detail::refs().np_ascontiguousarray, arr_));
  }

  // The transpose of a 2-D tensor (a 0-D or 1-D tensor is returned as is). It shares
  // memory with this tensor but is a new ember Tensor, not an autograd view of it.
  Tensor t() const {
    EMBER_CHECK(dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", dim(),
                "D");
    if (dim() < 2) return *this;
    PyObject* transposed = PyObject_GetAttrString(arr_.ptr(), "T");
    if (!transposed) throw nanobind::python_error();
    return from_array(nanobind::steal(transposed));
  }

  // The Python ember Tensor and its NumPy array (borrowed handles).
  nanobind::handle ptr() const { return obj_; }
  nanobind::handle array() const { return arr_; }

  void check_scalar_type(ScalarType expected) const {
    const ScalarType actual = scalar_type();
    EMBER_CHECK(actual == expected, "expected scalar type ", expected, " but found ", actual);
  }

  static nanobind::object call(PyObject* fn, nanobind::handle arg) {
    PyObject* r = PyObject_CallOneArg(fn, arg.ptr());
    if (!r) throw nanobind::python_error();
    return nanobind::steal(r);
  }

 private:
  Tensor(nanobind::object obj, nanobind::object array)
      : obj_(std::move(obj)), arr_(std::move(array)) {
    EMBER_CHECK_TYPE(PyObject_TypeCheck(arr_.ptr(), (PyTypeObject*) detail::refs().ndarray_type),
                     "ember Tensor whose _data is a ", Py_TYPE(arr_.ptr())->tp_name,
                     ", not a numpy.ndarray");
  }
  PyArrayObject* arr() const {
    EMBER_CHECK(defined(), "the tensor is undefined");
    return reinterpret_cast<PyArrayObject*>(arr_.ptr());
  }

  nanobind::object obj_;  // the ember Tensor
  nanobind::object arr_;  // its _data, held so the memory outlives a `t.data = ...` in Python
};

namespace detail {

inline nanobind::object new_array(PyObject* factory, IntArrayRef sizes, ScalarType dtype) {
  nanobind::object shape = nanobind::steal(PyTuple_New(sizes.size()));
  if (!shape.is_valid()) throw nanobind::python_error();
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0, "Trying to create tensor with negative dimension ", sizes[i],
                ": ", sizes);
    PyTuple_SET_ITEM(shape.ptr(), i, PyLong_FromLongLong(sizes[i]));
  }
  PyObject* args[2] = {shape.ptr(), refs().dtypes[static_cast<int>(dtype)]};
  PyObject* r = PyObject_Vectorcall(factory, args, 2, nullptr);
  if (!r) throw nanobind::python_error();
  return nanobind::steal(r);
}

}  // namespace detail

// A new tensor of the given sizes and dtype, its elements uninitialised.
inline Tensor empty(IntArrayRef sizes, ScalarType dtype = kFloat) {
  return Tensor::from_array(detail::new_array(detail::refs().np_empty, sizes, dtype));
}

// A new tensor of the given sizes and dtype, filled with zeros.
inline Tensor zeros(IntArrayRef sizes, ScalarType dtype = kFloat) {
  return Tensor::from_array(detail::new_array(detail::refs().np_zeros, sizes, dtype));
}

// A new contiguous tensor with t's sizes and dtype, uninitialised.
inline Tensor empty_like(const Tensor& t) { return empty(t.sizes(), t.scalar_type()); }

// A new contiguous tensor with t's sizes and dtype, filled with zeros.
inline Tensor zeros_like(const Tensor& t) { return zeros(t.sizes(), t.scalar_type()); }

// The matrix product of two 2-D tensors of one dtype, computed by NumPy (BLAS for float and
// double): kernels call it for their matrix products instead of hand-written loops.
// Transposed operands (a.t()) cost no copy.
inline Tensor mm(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 2, "self must be a matrix");
  EMBER_CHECK(b.dim() == 2, "mat2 must be a matrix");
  EMBER_CHECK(a.size(1) == b.size(0), "mat1 and mat2 shapes cannot be multiplied (", a.size(0),
              "x", a.size(1), " and ", b.size(0), "x", b.size(1), ")");
  EMBER_CHECK(a.scalar_type() == b.scalar_type(),
              "expected m1 and m2 to have the same dtype, but got: ",
              cpp_type_name(a.scalar_type()), " != ", cpp_type_name(b.scalar_type()));
  PyObject* args[2] = {a.array().ptr(), b.array().ptr()};
  PyObject* r = PyObject_Vectorcall(detail::refs().np_matmul, args, 2, nullptr);
  if (!r) throw nanobind::python_error();
  return Tensor::from_array(nanobind::steal(r));
}

// Tells autograd that a kernel wrote into t in place: bumps t's version counter (shared with
// its views), so a backward that saved t before the write raises instead of using stale
// values. Call it once per in-place kernel on each tensor it modified.
inline void increment_version(const Tensor& t) {
  nanobind::object counter =
      nanobind::steal(PyObject_GetAttr(t.ptr().ptr(), detail::refs().version_name));
  if (!counter.is_valid()) throw nanobind::python_error();
  PyObject* list = counter.ptr();
  EMBER_CHECK(PyList_Check(list) && PyList_GET_SIZE(list) == 1,
              "ember Tensor with an unexpected version counter");
  nanobind::object next = nanobind::steal(PyNumber_Add(PyList_GET_ITEM(list, 0),
                                                       nanobind::int_(1).ptr()));
  if (!next.is_valid()) throw nanobind::python_error();
  PyList_SetItem(list, 0, next.release().ptr());
}

}  // namespace ember
