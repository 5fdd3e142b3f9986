/* ember's optional Winograd F(2x2, 3x3) convolution (float32, C-contiguous): see winograd.c. */


void ember_winograd_conv_forward(const float *x, const float *u, const float *bias, float *y,
                                 float *work, int64_t n, int64_t c, int64_t k, int64_t h,
                                 int64_t w, int64_t ph, int64_t pw, int64_t th, int64_t tw,
                                 int64_t oh, int64_t ow, int64_t nb);
void ember_winograd_conv_backward(const float *x, const float *g, const float *u, float *gx,
                                  float *gu, float *work, int64_t n, int64_t c, int64_t k,
                                  int64_t h, int64_t w, int64_t ph, int64_t pw, int64_t th,
                                  int64_t tw, int64_t oh, int64_t ow, int64_t nb, int lanes);
