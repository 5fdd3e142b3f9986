/* ember/ember_c_impl.h: the definitions of <ember/ember_c.h>'s helpers (private to ember).
 *
 * Included once per extension by <ember/ember_c_module.h>, in the C source ember.utils.ffi
 * generates for the cffi module: errors (per thread), dtype names, checks, element access,
 * fill, and resize (which allocates through NumPy, with the GIL held); and the views
 * themselves: an EmberTensor filled from an ember Tensor's NumPy array, read straight from
 * the array struct.
 */
#ifndef EMBER_EMBER_C_IMPL_H
#define EMBER_EMBER_C_IMPL_H

#include <Python.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifndef NPY_NO_DEPRECATED_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#endif
/* Only the array struct and its inline accessors: no NumPy C-API table to import. */
#include <numpy/ndarraytypes.h>

#include "ember/ember_c.h"

#if defined(_MSC_VER)
#define EMBER_THREAD_LOCAL __declspec(thread)
#else
#define EMBER_THREAD_LOCAL __thread
#endif

/* float16 <-> double: public in CPython 3.11, underscored before. */
#if PY_VERSION_HEX < 0x030B0000
#define EMBER_PACK2(x, p) _PyFloat_Pack2((x), (unsigned char *) (p), PY_LITTLE_ENDIAN)
#define EMBER_UNPACK2(p) _PyFloat_Unpack2((const unsigned char *) (p), PY_LITTLE_ENDIAN)
#else
#define EMBER_PACK2(x, p) PyFloat_Pack2((x), (char *) (p), PY_LITTLE_ENDIAN)
#define EMBER_UNPACK2(p) PyFloat_Unpack2((const char *) (p), PY_LITTLE_ENDIAN)
#endif

#define EMBER_MESSAGE_SIZE 1024

/* -- the Python objects the views use, looked up once by ember__install (ember_c_module.h) */
static PyObject *ember__tensor_type, *ember__ndarray_type, *ember__np_empty;
static PyObject *ember__data_name, *ember__vc_name, *ember__requires_grad_name;
static PyObject *ember__dtypes[EMBER_NUM_DTYPES];

static const char *const ember__dtype_names[EMBER_NUM_DTYPES] = {
    "bool", "uint8", "int8", "int16", "int32", "int64",
    "float16", "float32", "float64", "complex64", "complex128"};
static const char *const ember__torch_names[EMBER_NUM_DTYPES] = {
    "Bool", "Byte", "Char", "Short", "Int", "Long",
    "Half", "Float", "Double", "ComplexFloat", "ComplexDouble"};
static const int64_t ember__element_sizes[EMBER_NUM_DTYPES] = {1, 1, 1, 2, 4, 8, 2, 4, 8, 8, 16};

/* -- errors: per thread, because ember_resize runs Python, which may switch threads ------- */
static EMBER_THREAD_LOCAL int ember__error_pending;
static EMBER_THREAD_LOCAL EmberErrorKind ember__error_kind;
static EMBER_THREAD_LOCAL char ember__error_message[EMBER_MESSAGE_SIZE];

int ember_raise(EmberErrorKind kind, const char *format, ...) {
  if (!ember__error_pending) {
    va_list args;
    va_start(args, format);
    vsnprintf(ember__error_message, EMBER_MESSAGE_SIZE, format, args);
    va_end(args);
    ember__error_kind = kind;
    ember__error_pending = 1;
  }
  return 0;
}

/* Sets the Python exception for the pending error, if any; 1 if there was an error. A Python
 * exception already set (by ember_resize's allocation) wins. */
static int ember__take_error(void) {
  int pending = ember__error_pending;
  ember__error_pending = 0;
  if (PyErr_Occurred()) return 1;
  if (!pending) return 0;
  PyObject *type = ember__error_kind == EMBER_TYPE_ERROR    ? PyExc_TypeError
                   : ember__error_kind == EMBER_VALUE_ERROR ? PyExc_ValueError
                   : ember__error_kind == EMBER_INDEX_ERROR ? PyExc_IndexError
                                                            : PyExc_RuntimeError;
  PyErr_SetString(type, ember__error_message);
  return 1;
}

/* -- dtypes and simple queries ------------------------------------------------------------ */
const char *ember_dtype_name(EmberDtype dtype) {
  return (unsigned) dtype < EMBER_NUM_DTYPES ? ember__dtype_names[dtype] : "?";
}

const char *ember_dtype_torch_name(EmberDtype dtype) {
  return (unsigned) dtype < EMBER_NUM_DTYPES ? ember__torch_names[dtype] : "?";
}

int64_t ember_element_size(EmberDtype dtype) {
  return (unsigned) dtype < EMBER_NUM_DTYPES ? ember__element_sizes[dtype] : 0;
}

int ember_check_dtype(const EmberTensor *t, EmberDtype dtype) {
  if (t->dtype == dtype) return 1;
  return ember_error("expected scalar type %s but found %s", ember_dtype_torch_name(dtype),
                     ember_dtype_torch_name(t->dtype));
}

int ember_is_same_size(const EmberTensor *a, const EmberTensor *b) {
  if (a->ndim != b->ndim) return 0;
  for (int d = 0; d < a->ndim; ++d)
    if (a->sizes[d] != b->sizes[d]) return 0;
  return 1;
}

/* "[5, 5]" into buf. */
static const char *ember__sizes_text(const int64_t *sizes, int ndim, char *buf, size_t size) {
  size_t n = (size_t) snprintf(buf, size, "[");
  for (int d = 0; d < ndim && n < size; ++d)
    n += (size_t) snprintf(buf + n, size - n, d ? ", %lld" : "%lld", (long long) sizes[d]);
  if (n < size) snprintf(buf + n, size - n, "]");
  return buf;
}

int ember_check_same_size(const EmberTensor *a, const char *a_name, const EmberTensor *b,
                          const char *b_name) {
  if (ember_is_same_size(a, b)) return 1;
  char sa[256], sb[256];
  return ember_error("%s and %s must have the same size, but got %s and %s", a_name, b_name,
                     ember__sizes_text(a->sizes, a->ndim, sa, sizeof sa),
                     ember__sizes_text(b->sizes, b->ndim, sb, sizeof sb));
}

int ember_is_contiguous(const EmberTensor *t) {
  if (t->numel == 0) return 1; /* as torch: no elements, no gaps */
  int64_t expected = 1;
  for (int d = t->ndim - 1; d >= 0; --d) {
    if (t->sizes[d] == 1) continue;
    if (t->strides[d] != expected) return 0;
    expected *= t->sizes[d];
  }
  return 1;
}

void *ember_element(const EmberTensor *t, int64_t index) {
  int64_t offset = 0;
  for (int d = t->ndim - 1; d >= 0; --d) {
    const int64_t size = t->sizes[d];
    offset += (index % size) * t->strides[d];
    index /= size;
  }
  return (char *) t->data + offset * ember__element_sizes[t->dtype];
}

double ember_get(const EmberTensor *t, int64_t index) {
  const void *p = ember_element(t, index);
  switch (t->dtype) {
    case EMBER_BOOL: return *(const unsigned char *) p != 0;
    case EMBER_UINT8: return *(const uint8_t *) p;
    case EMBER_INT8: return *(const int8_t *) p;
    case EMBER_INT16: return *(const int16_t *) p;
    case EMBER_INT32: return *(const int32_t *) p;
    case EMBER_INT64: return (double) *(const int64_t *) p;
    case EMBER_FLOAT32: return *(const float *) p;
    case EMBER_FLOAT64: return *(const double *) p;
    case EMBER_COMPLEX64: return *(const float *) p; /* the real part */
    case EMBER_COMPLEX128: return *(const double *) p;
    default: return EMBER_UNPACK2(p); /* float16, native byte order */
  }
}

void ember_set(EmberTensor *t, int64_t index, double value) {
  void *p = ember_element(t, index);
  switch (t->dtype) {
    case EMBER_BOOL: *(unsigned char *) p = value != 0; break;
    case EMBER_UINT8: *(uint8_t *) p = (uint8_t) value; break;
    case EMBER_INT8: *(int8_t *) p = (int8_t) value; break;
    case EMBER_INT16: *(int16_t *) p = (int16_t) value; break;
    case EMBER_INT32: *(int32_t *) p = (int32_t) value; break;
    case EMBER_INT64: *(int64_t *) p = (int64_t) value; break;
    case EMBER_FLOAT32: *(float *) p = (float) value; break;
    case EMBER_FLOAT64: *(double *) p = value; break;
    case EMBER_COMPLEX64: ((float *) p)[0] = (float) value; ((float *) p)[1] = 0; break;
    case EMBER_COMPLEX128: ((double *) p)[0] = value; ((double *) p)[1] = 0; break;
    default: EMBER_PACK2(value, p); break;
  }
}

int ember_fill(EmberTensor *t, double value) {
  if (!t->writable) return ember_error("ember_fill: the tensor's memory is read-only");
  if (t->numel == 0) return 1;
  ember_set(t, 0, value);
  const int64_t item = ember__element_sizes[t->dtype];
  const void *first = ember_element(t, 0);
  for (int64_t i = 1; i < t->numel; ++i) memcpy(ember_element(t, i), first, (size_t) item);
  return 1;
}

/* -- views of NumPy arrays ---------------------------------------------------------------- */
/* What impl_ points at during a call: the Python tensor and the array the view reads. */
typedef struct EmberSlot {
  PyObject *tensor; /* borrowed: the call's argument */
  PyObject *array;  /* owned */
} EmberSlot;

static int ember__dtype_of(PyArrayObject *a, EmberDtype *dtype) {
  switch (PyArray_TYPE(a)) {
    case NPY_BOOL: *dtype = EMBER_BOOL; return 1;
    case NPY_UBYTE: *dtype = EMBER_UINT8; return 1;
    case NPY_BYTE: *dtype = EMBER_INT8; return 1;
    case NPY_SHORT: *dtype = EMBER_INT16; return 1;
    case NPY_INT: *dtype = EMBER_INT32; return 1;
    case NPY_LONG: *dtype = sizeof(long) == 8 ? EMBER_INT64 : EMBER_INT32; return 1;
    case NPY_LONGLONG: *dtype = EMBER_INT64; return 1;
    case NPY_HALF: *dtype = EMBER_FLOAT16; return 1;
    case NPY_FLOAT: *dtype = EMBER_FLOAT32; return 1;
    case NPY_DOUBLE: *dtype = EMBER_FLOAT64; return 1;
    case NPY_CFLOAT: *dtype = EMBER_COMPLEX64; return 1;
    case NPY_CDOUBLE: *dtype = EMBER_COMPLEX128; return 1;
  }
  return 0;
}

/* Fills t from slot->array; 0 with a Python TypeError for an array C cannot view. */
static int ember__view(EmberTensor *t, EmberSlot *slot, const char *function, int position) {
  PyArrayObject *a = (PyArrayObject *) slot->array;
  if (!PyObject_TypeCheck(slot->array, (PyTypeObject *) ember__ndarray_type)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument %d is an ember Tensor whose _data is a %s, "
                 "not a numpy.ndarray", function, position, Py_TYPE(slot->array)->tp_name);
    return 0;
  }
  if (!ember__dtype_of(a, &t->dtype)) {
    PyObject *name = PyObject_Str((PyObject *) PyArray_DESCR(a));
    PyErr_Format(PyExc_TypeError, "%s(): argument %d has dtype %s, which C extensions do "
                 "not support", function, position, name ? PyUnicode_AsUTF8(name) : "?");
    Py_XDECREF(name);
    return 0;
  }
  const int ndim = PyArray_NDIM(a);
  const npy_intp *dims = PyArray_DIMS(a), *bytes = PyArray_STRIDES(a);
  const int64_t item = ember__element_sizes[t->dtype];
  int64_t numel = 1;
  for (int d = 0; d < ndim; ++d) {
    t->sizes[d] = dims[d];
    t->strides[d] = bytes[d] / item;
    numel *= dims[d];
  }
  t->data = PyArray_DATA(a);
  t->ndim = ndim;
  t->numel = numel;
  t->writable = (PyArray_FLAGS(a) & NPY_ARRAY_WRITEABLE) != 0;
  t->impl_ = slot;
  return 1;
}

/* -- resize: new memory for the Python tensor, allocated by NumPy ------------------------- */
static int ember__set_version(PyObject *tensor) {
  PyObject *counter = PyObject_GetAttr(tensor, ember__vc_name);
  if (!counter) return 0;
  int ok = 0;
  if (PyList_Check(counter) && PyList_GET_SIZE(counter) == 1) {
    const long long version = PyLong_AsLongLong(PyList_GET_ITEM(counter, 0));
    PyObject *next = PyErr_Occurred() ? NULL : PyLong_FromLongLong(version + 1);
    ok = next && PyList_SetItem(counter, 0, next) == 0;
  } else {
    PyErr_SetString(PyExc_RuntimeError, "ember Tensor with an unexpected version counter");
  }
  Py_DECREF(counter);
  return ok;
}

int ember_resize(EmberTensor *t, int ndim, const int64_t *sizes) {
  char text[512];
  if (ndim < 0 || ndim > EMBER_MAX_DIMS)
    return ember_value_error("ember_resize: %d dimensions (at most %d)", ndim, EMBER_MAX_DIMS);
  int same = ndim == t->ndim;
  for (int d = 0; d < ndim; ++d) {
    if (sizes[d] < 0)
      return ember_error("Trying to create tensor with negative dimension %lld: %s",
                         (long long) sizes[d], ember__sizes_text(sizes, ndim, text, sizeof text));
    same = same && sizes[d] == t->sizes[d];
  }
  if (same) return 1;
  EmberSlot *slot = (EmberSlot *) t->impl_;
  if (!slot) return ember_error("ember_resize: the tensor is not an argument of this call");
  int requires_grad = 0;
  PyObject *flag = PyObject_GetAttr(slot->tensor, ember__requires_grad_name);
  if (flag) {
    requires_grad = PyObject_IsTrue(flag);
    Py_DECREF(flag);
  }
  if (!flag || requires_grad < 0) return 0;
  if (requires_grad) return ember_error("cannot resize variables that require grad");

  PyObject *shape = PyTuple_New(ndim);
  if (!shape) return 0;
  for (int d = 0; d < ndim; ++d) PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(sizes[d]));
  PyObject *args[2] = {shape, ember__dtypes[t->dtype]};
  PyObject *array = PyObject_Vectorcall(ember__np_empty, args, 2, NULL);
  Py_DECREF(shape);
  if (!array) return 0;
  /* Keep the first elements, as torch's resize_ does (in row-major order). */
  int64_t numel = 1;
  for (int d = 0; d < ndim; ++d) numel *= sizes[d];
  const int64_t keep = numel < t->numel ? numel : t->numel;
  const size_t item = (size_t) ember__element_sizes[t->dtype];
  char *dst = (char *) PyArray_DATA((PyArrayObject *) array);
  if (ember_is_contiguous(t)) {
    if (keep) memcpy(dst, t->data, (size_t) keep * item);
  } else {
    for (int64_t i = 0; i < keep; ++i) memcpy(dst + i * item, ember_element(t, i), item);
  }
  if (PyObject_SetAttr(slot->tensor, ember__data_name, array) < 0 ||
      !ember__set_version(slot->tensor)) {
    Py_DECREF(array);
    return 0;
  }
  Py_SETREF(slot->array, array);
  return ember__view(t, slot, "ember_resize", 0);
}

int ember_resize_as(EmberTensor *t, const EmberTensor *like) {
  return ember_resize(t, like->ndim, like->sizes);
}

#endif /* EMBER_EMBER_C_IMPL_H */
