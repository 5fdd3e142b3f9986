/* ember's optional compiled kernels (float32, C-contiguous): see __init__.py. */


void ember_gelu_forward(const float *x, float *y, float *h, int64_t n);
void ember_gelu_backward(const float *x, const float *h, const float *g, float *gx, int64_t n);
void ember_silu_forward(const float *x, float *y, float *s, int64_t n);
void ember_silu_backward(const float *x, const float *s, const float *g, float *gx, int64_t n);
void ember_softmax_forward(const float *x, float *y, int64_t rows, int64_t cols, int log);
void ember_softmax_backward(const float *y, const float *g, float *gx, int64_t rows,
                            int64_t cols, int log);
void ember_standardise_rows(const float *x, float *xhat, float *rstd, int64_t rows,
                            int64_t cols, double eps);
void ember_affine_rows(const float *xhat, const float *w, const float *b, float *y,
                       int64_t rows, int64_t cols);
void ember_layer_norm_backward(const float *g, const float *xhat, const float *w,
                               const float *rstd, float *gx, float *gw, float *gb,
                               int64_t rows, int64_t cols);
void ember_batch_norm_forward(const float *x, const float *w, const float *b, float *y,
                              float *mean, float *var, float *rstd, int64_t n, int64_t c,
                              int64_t l, double eps);
void ember_batch_norm_backward(const float *x, const float *g, const float *mean,
                               const float *rstd, const float *w, float *gx, float *gw,
                               float *gb, int64_t n, int64_t c, int64_t l);
void ember_add_rows_at(float *out, const int64_t *idx, const float *rows, int64_t n,
                       int64_t width);
