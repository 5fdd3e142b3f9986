/* ember's optional Winograd F(2x2, 3x3) transforms (float32, C-contiguous): see winograd.c. */


void ember_winograd_input(const float *x, float *v, int64_t n, int64_t c, int64_t h,
                          int64_t w, int64_t ph, int64_t pw, int64_t th, int64_t tw);
void ember_winograd_output(const float *m, const float *bias, float *y, int64_t n, int64_t k,
                           int64_t th, int64_t tw, int64_t oh, int64_t ow);
void ember_winograd_grad(const float *g, float *dm, int64_t n, int64_t k, int64_t th,
                         int64_t tw, int64_t oh, int64_t ow);
void ember_winograd_input_grad(const float *gv, float *gx, int64_t n, int64_t c, int64_t h,
                               int64_t w, int64_t ph, int64_t pw, int64_t th, int64_t tw);
void ember_winograd_products(const float *a, const float *b, float *out, int64_t rows,
                             int64_t inner, int64_t q, int transpose_a);
void ember_winograd_weight_products(const float *a, const float *b, float *out, int64_t rows,
                                    int64_t cols, int64_t q);
