/* ember/ember_c.h: ember tensors for C extensions built with ember.utils.ffi.
 *
 * A C function of an extension takes `EmberTensor *` arguments; Python passes ember Tensors
 * and the extension's generated wrapper hands the C function zero-copy views of them:
 *
 *   #include <ember/ember_c.h>
 *
 *   int scale(EmberTensor *input, EmberTensor *output, double factor) {
 *     if (!ember_check_dtype(input, EMBER_FLOAT64) || !ember_check_dtype(output, EMBER_FLOAT64))
 *       return 0;                                      // (resize keeps output's dtype)
 *     if (!ember_resize_as(output, input)) return 0;   // reallocates output's memory
 *     for (int64_t i = 0; i < input->numel; ++i)
 *       *(double *) ember_element(output, i) = *(double *) ember_element(input, i) * factor;
 *     return 1;
 *   }
 *
 * called from Python as `lib.scale(x, out, 2.0)`. Sizes and strides count elements (as in
 * torch); `data` points at the first element. The view is valid during the call only.
 *
 * Errors: a function reports one with ember_error("...", ...) (printf-style; RuntimeError),
 * ember_type_error, ember_value_error or ember_index_error; each returns 0, so `return
 * ember_error(...)` reads naturally. When the C function returns, the wrapper raises the
 * first error reported as that Python exception with that message, whatever the function
 * returned. The helpers below that can fail report their own error and return 0.
 *
 * Kernels run with the GIL held (ember_resize calls into Python to allocate). Plain C99; the
 * helpers are defined once per extension module by the code ember generates for it.
 */
#ifndef EMBER_EMBER_C_H
#define EMBER_EMBER_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most dimensions a tensor can have (NumPy's limit). */
#define EMBER_MAX_DIMS 64

/* Element types, in the order of ember's C++ ScalarType. */
typedef enum EmberDtype {
  EMBER_BOOL,
  EMBER_UINT8,
  EMBER_INT8,
  EMBER_INT16,
  EMBER_INT32,
  EMBER_INT64,
  EMBER_FLOAT16, /* no C arithmetic type: read the bits through data */
  EMBER_FLOAT32,
  EMBER_FLOAT64,
  EMBER_COMPLEX64,
  EMBER_COMPLEX128,
  EMBER_NUM_DTYPES
} EmberDtype;

/* A zero-copy view of an ember tensor's memory. Read the fields; change a tensor's size only
 * through ember_resize / ember_resize_as. */
typedef struct EmberTensor {
  void *data;                        /* the first element */
  EmberDtype dtype;
  int ndim;
  int writable;                      /* 0 for read-only memory (e.g. an expanded tensor) */
  int64_t numel;                     /* the product of sizes */
  int64_t sizes[EMBER_MAX_DIMS];
  int64_t strides[EMBER_MAX_DIMS];   /* in elements */
  void *impl_;                       /* ember's: the Python objects behind the view */
} EmberTensor;

typedef enum EmberErrorKind {
  EMBER_RUNTIME_ERROR,
  EMBER_TYPE_ERROR,
  EMBER_VALUE_ERROR,
  EMBER_INDEX_ERROR
} EmberErrorKind;

/* Reports an error (the first one of a call wins) and returns 0. */
int ember_raise(EmberErrorKind kind, const char *format, ...);
#define ember_error(...) ember_raise(EMBER_RUNTIME_ERROR, __VA_ARGS__)
#define ember_type_error(...) ember_raise(EMBER_TYPE_ERROR, __VA_ARGS__)
#define ember_value_error(...) ember_raise(EMBER_VALUE_ERROR, __VA_ARGS__)
#define ember_index_error(...) ember_raise(EMBER_INDEX_ERROR, __VA_ARGS__)

/* torch's name of a dtype ("Float", "Long", ...) and ember's ("float32", "int64", ...). */
const char *ember_dtype_name(EmberDtype dtype);
const char *ember_dtype_torch_name(EmberDtype dtype);
/* Bytes per element. */
int64_t ember_element_size(EmberDtype dtype);

/* 1 if t has that dtype; else reports torch's RuntimeError "expected scalar type Float but
 * found Double" and returns 0. */
int ember_check_dtype(const EmberTensor *t, EmberDtype dtype);
/* 1 if a and b have the same sizes (THTensor_isSameSizeAs). */
int ember_is_same_size(const EmberTensor *a, const EmberTensor *b);
/* 1 if a and b have the same sizes; else reports a RuntimeError naming both and returns 0. */
int ember_check_same_size(const EmberTensor *a, const char *a_name, const EmberTensor *b,
                          const char *b_name);
/* 1 if the elements are laid out row-major without gaps (sizes-1 dimensions may have any
 * stride, and an empty tensor is contiguous, as in torch). */
int ember_is_contiguous(const EmberTensor *t);

/* Gives the tensor `ndim` dimensions of `sizes` (torch's resize_): nothing happens when the
 * sizes are already those; otherwise the Python tensor gets new contiguous memory holding its
 * first elements (the rest uninitialised) and `t` is updated to view it. Fails (returns 0) on
 * a tensor that requires grad, as in torch. */
int ember_resize(EmberTensor *t, int ndim, const int64_t *sizes);
/* ember_resize to the sizes of `like` (THTensor_resizeAs). */
int ember_resize_as(EmberTensor *t, const EmberTensor *like);

/* The address of element `index` in row-major order (0 <= index < numel), honouring the
 * strides, so it works on non-contiguous tensors too. */
void *ember_element(const EmberTensor *t, int64_t index);
/* Element `index` (as above) converted to double, and stored from a double. */
double ember_get(const EmberTensor *t, int64_t index);
void ember_set(EmberTensor *t, int64_t index, double value);
/* Sets every element to `value` (THTensor_fill); fails on read-only memory. */
int ember_fill(EmberTensor *t, double value);

/* The element at (i), (i, j), (i, j, k) of a 1-, 2- or 3-D tensor as an lvalue of C type T:
 *   EMBER_AT2(float, out, i, j) = EMBER_AT2(float, a, i, j) + 1;  */
#define EMBER_AT1(T, t, i) (((T *) (t)->data)[(i) * (t)->strides[0]])
#define EMBER_AT2(T, t, i, j) (((T *) (t)->data)[(i) * (t)->strides[0] + (j) * (t)->strides[1]])
#define EMBER_AT3(T, t, i, j, k) \
  (((T *) (t)->data)[(i) * (t)->strides[0] + (j) * (t)->strides[1] + (k) * (t)->strides[2]])

#ifdef __cplusplus
}
#endif

#endif /* EMBER_EMBER_C_H */
