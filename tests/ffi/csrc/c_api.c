/* C functions exercising <ember/ember_c.h>, one helper or conversion each. */
#include <string.h>

#include <ember/ember_c.h>

/* out = [dtype, ndim, writable, numel, sizes..., strides...] as int64. */
int describe(const EmberTensor *t, EmberTensor *out) {
  const int64_t n = 4 + 2 * t->ndim;
  if (!ember_check_dtype(out, EMBER_INT64) || !ember_resize(out, 1, &n)) return 0;
  int64_t *o = (int64_t *) out->data;
  o[0] = t->dtype;
  o[1] = t->ndim;
  o[2] = t->writable;
  o[3] = t->numel;
  for (int d = 0; d < t->ndim; ++d) {
    o[4 + d] = t->sizes[d];
    o[4 + t->ndim + d] = t->strides[d];
  }
  return 1;
}

double total(const EmberTensor *t) {
  double sum = 0;
  for (int64_t i = 0; i < t->numel; ++i) sum += ember_get(t, i);
  return sum;
}

int flatten_into(const EmberTensor *src, EmberTensor *dst) {
  if (!ember_check_dtype(dst, src->dtype)) return 0;
  if (!ember_resize(dst, 1, &src->numel)) return 0;
  for (int64_t i = 0; i < src->numel; ++i) ember_set(dst, i, ember_get(src, i));
  return 1;
}

int fill(EmberTensor *t, double value) { return ember_fill(t, value); }

int resize(EmberTensor *t, int ndim, int64_t a, int64_t b) {
  const int64_t sizes[2] = {a, b};
  return ember_resize(t, ndim, sizes);
}

int require_float(const EmberTensor *t) { return ember_check_dtype(t, EMBER_FLOAT32); }

int same_size(const EmberTensor *a, const EmberTensor *b) {
  const int same = ember_is_same_size(a, b);
  return ember_check_same_size(a, "a", b, "b") && same;
}

int contiguous(const EmberTensor *t) { return ember_is_contiguous(t); }

int set_2d(EmberTensor *t, int64_t i, int64_t j, double value) {
  if (t->ndim != 2) return ember_value_error("set_2d: expected a 2-D tensor, got %d-D", t->ndim);
  if (i < 0 || i >= t->sizes[0] || j < 0 || j >= t->sizes[1])
    return ember_index_error("set_2d: index (%lld, %lld) is out of bounds for size [%lld, %lld]",
                             (long long) i, (long long) j, (long long) t->sizes[0],
                             (long long) t->sizes[1]);
  if (!ember_check_dtype(t, EMBER_FLOAT64)) return 0;
  EMBER_AT2(double, t, i, j) = value;
  return 1;
}

int report(int kind, const char *message) {
  return ember_raise((EmberErrorKind) kind, "report: %s", message);
}

int report_twice(void) {
  ember_error("the first error");
  ember_type_error("the second error");
  return 1; /* the error is raised whatever the function returns */
}

EmberTensor *pick(EmberTensor *a, EmberTensor *b, int which) {
  static EmberTensor other;
  switch (which) {
    case 0: return a;
    case 1: return b;
    case 2: return NULL;
    default: return &other;
  }
}

int is_null(const EmberTensor *t) { return t == NULL; }

long long add_ints(signed char a, unsigned short b, long long c) { return a + b + c; }

float halve(float x) { return x / 2; }

_Bool negate(_Bool b) { return !b; }

void nothing(void) {}

size_t length(const char *s) { return strlen(s); }

void count_into(float *buffer, int n) {
  for (int i = 0; i < n; ++i) buffer[i] = (float) i;
}
