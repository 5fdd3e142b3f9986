/* ember's optional compiled kernels: the elementwise and row-wise float32 work that NumPy
 * does in many passes over memory (GELU, SiLU, softmax, layer_norm, batch_norm) done in one
 * or two, and the embedding backward's scatter-add (the convolutions': winograd.c). exp and
 * erf are ember's own branch-free polynomials on vectors (below), not libm's scalar calls.
 * Every kernel takes C-contiguous arrays; __init__.py checks that.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "kernels.h"  /* (declarations only: cffi reads it) */

/* Everything runs on vectors of W floats (GCC/Clang vector extensions), so it is vectorised
 * on any target -- the compilers leave loops with selects scalar where the target lacks
 * blends (baseline x86-64 ran 12x slower). W is the target's widest: 16 with AVX-512 (exp of
 * 1M floats: 0.31 ms against 0.55 ms at 8), else 8 (generic 16-wide compares are split into
 * scalar code without AVX-512). */
#ifdef __AVX512F__
#define W 16
#else
#define W 8
#endif
typedef float vecf __attribute__((vector_size(W * sizeof(float))));
typedef int32_t veci __attribute__((vector_size(W * sizeof(float))));

static inline vecf splat(float a)
{
    vecf v;
    for (int k = 0; k < W; k++)
        v[k] = a;
    return v;
}

static inline vecf selectw(veci mask, vecf a, vecf b)   /* mask ? a : b, lane by lane */
{
    return (vecf)(((veci)a & mask) | ((veci)b & ~mask));
}

static inline vecf loadw(const float *p)
{
    vecf v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void storew(float *p, vecf v)
{
    memcpy(p, &v, sizeof v);
}

/* Runs BLOCK(offset pointers...) over n elements of NIN inputs and NOUT outputs, W at a time;
 * the last partial block through zero-padded stack copies. */
#define FOR_BLOCKS(n, ins, nin, outs, nout, BLOCK)                                        \
    do {                                                                                  \
        int64_t i_ = 0;                                                                   \
        for (; i_ + W <= (n); i_ += W) {                                                  \
            const float *in_[nin];                                                        \
            float *out_[nout];                                                            \
            for (int a_ = 0; a_ < (nin); a_++) in_[a_] = (ins)[a_] + i_;                  \
            for (int a_ = 0; a_ < (nout); a_++) out_[a_] = (outs)[a_] + i_;               \
            BLOCK(in_, out_);                                                             \
        }                                                                                 \
        if (i_ < (n)) {                                                                   \
            size_t k_ = (size_t)((n) - i_) * sizeof(float);                              \
            float ib_[nin][W], ob_[nout][W];                                              \
            const float *in_[nin];                                                        \
            float *out_[nout];                                                            \
            for (int a_ = 0; a_ < (nin); a_++) {                                          \
                memset(ib_[a_], 0, sizeof ib_[a_]);                                       \
                memcpy(ib_[a_], (ins)[a_] + i_, k_);                                      \
                in_[a_] = ib_[a_];                                                        \
            }                                                                             \
            for (int a_ = 0; a_ < (nout); a_++) out_[a_] = ob_[a_];                       \
            BLOCK(in_, out_);                                                             \
            for (int a_ = 0; a_ < (nout); a_++) memcpy((outs)[a_] + i_, ob_[a_], k_);     \
        }                                                                                 \
    } while (0)

/* exp(x) = 2^n e^r with n = round(x / ln 2) and |r| <= ln(2) / 2; e^r by Cephes' degree-6
 * polynomial (within 1 ulp). 2^n is applied as two factors so that subnormal results round
 * once and correctly. Overflow gives inf, underflow 0, NaN stays NaN. */
static inline vecf expw(vecf x)
{
    const vecf hi = splat(88.72283935546875f), lo = splat(-103.97208404541015625f);
    vecf xc = selectw(x < hi, x, hi);
    xc = selectw(xc > lo, xc, lo);
    vecf fn = xc * 1.44269504088896341f + 12582912.0f;   /* round to nearest: 1.5 * 2^23 */
    fn -= 12582912.0f;
    vecf r = xc - fn * 0.693359375f;
    r = r - fn * -2.12194440e-4f;
    vecf p = splat(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    veci n = __builtin_convertvector(fn, veci);
    veci n1 = n >> 1;
    vecf y = p * (vecf)((n1 + 127) << 23) * (vecf)((n - n1 + 127) << 23);
    y = selectw(x > hi, splat(INFINITY), y);
    y = selectw(x < lo, splat(0.0f), y);
    return selectw(x != x, x, y);
}

/* erf(x) = x P(x^2) / Q(x^2) on [-4, 4], clamped to [-1, 1]: the coefficients of
 * ember/_ops/_erf.py's NumPy kernel, in the same order of operations (the compiler may fuse
 * a multiply and an add, so the last bit can differ). NaN stays NaN. */
static inline vecf erfw(vecf x)
{
    vecf c = selectw(x < -4.0f, splat(-4.0f), x);
    c = selectw(c > 4.0f, splat(4.0f), c);
    vecf t = c * c;
    vecf p = t * 1.9867865863332224e-06f;
    p = (p + 0.0002845670002407305f) * t;
    p = (p + 0.0038833652802030103f) * t;
    p = (p + 0.053101809143692634f) * t;
    p = (p + 0.19354547429312566f) * t;
    p = p + 1.1283791392985272f;
    vecf q = t * 3.7420277977928684e-05f;
    q = (q + 0.00118557755964112f) * t;
    q = (q + 0.015207291617854583f) * t;
    q = (q + 0.11535017884284768f) * t;
    q = (q + 0.5048577659525421f) * t;
    q = q + 1.0f;
    vecf e = p * c / q;
    e = selectw(e > 1.0f, splat(1.0f), e);
    return selectw(e < -1.0f, splat(-1.0f), e);
}

#define GELU_FORWARD(in, out)                                                            \
    do {                                                                                  \
        vecf x_ = loadw(in[0]);                                                           \
        vecf c_ = (erfw(x_ * 0.70710678118654752f) + 1.0f) * 0.5f;                         \
        storew(out[0], x_ * c_);   /* (gelu(+inf) = inf, as ember's NumPy path; torch: nan) */ \
        storew(out[1], c_);                                                               \
    } while (0)

void ember_gelu_forward(const float *x, float *y, float *h, int64_t n)
{
    const float *ins[] = {x};
    float *outs[] = {y, h};
    FOR_BLOCKS(n, ins, 1, outs, 2, GELU_FORWARD);
}

#define GELU_BACKWARD(in, out)   /* g (cdf + x pdf) */                                   \
    do {                                                                                  \
        vecf x_ = loadw(in[0]);                                                           \
        vecf pdf_ = expw(x_ * x_ * -0.5f) * 0.3989422804014327f;                           \
        storew(out[0], (pdf_ * x_ + loadw(in[1])) * loadw(in[2]));                        \
    } while (0)

void ember_gelu_backward(const float *x, const float *h, const float *g, float *gx, int64_t n)
{
    const float *ins[] = {x, h, g};
    float *outs[] = {gx};
    FOR_BLOCKS(n, ins, 3, outs, 1, GELU_BACKWARD);
}

#define SILU_FORWARD(in, out)                                                             \
    do {                                                                                  \
        vecf x_ = loadw(in[0]);                                                           \
        vecf s_ = 1.0f / (expw(-x_) + 1.0f);                                              \
        storew(out[0], x_ * s_);                                                          \
        storew(out[1], s_);                                                               \
    } while (0)

void ember_silu_forward(const float *x, float *y, float *s, int64_t n)
{
    const float *ins[] = {x};
    float *outs[] = {y, s};
    FOR_BLOCKS(n, ins, 1, outs, 2, SILU_FORWARD);
}

#define SILU_BACKWARD(in, out)   /* g s (1 + x (1 - s)) */                               \
    do {                                                                                  \
        vecf s_ = loadw(in[1]);                                                           \
        storew(out[0], ((1.0f - s_) * loadw(in[0]) + 1.0f) * s_ * loadw(in[2]));          \
    } while (0)

void ember_silu_backward(const float *x, const float *s, const float *g, float *gx, int64_t n)
{
    const float *ins[] = {x, s, g};
    float *outs[] = {gx};
    FOR_BLOCKS(n, ins, 3, outs, 1, SILU_BACKWARD);
}

static inline void exp_shifted(const float *x, float *y, float shift, int64_t n)
{
    int64_t i = 0;   /* y = exp(x - shift) */
    for (; i + W <= n; i += W)
        storew(y + i, expw(loadw(x + i) - shift));
    if (i < n) {
        float b[W] = {0};
        size_t k = (size_t)(n - i) * sizeof(float);
        memcpy(b, x + i, k);
        storew(b, expw(loadw(b) - shift));
        memcpy(y + i, b, k);
    }
}

/* Row reductions: compilers do not vectorise a float reduction written as a plain loop (it
 * would reorder the additions), and an array of accumulators comes out 6x slower than these
 * W-wide ones. */
static inline float hsum(vecf v)
{
    float s = 0.0f;
    for (int k = 0; k < W; k++)
        s += v[k];
    return s;
}

static float row_max(const float *x, int64_t cols)
{
    const float ninf = -INFINITY;
    vecf acc = splat(ninf);
    int64_t j = 0;
    for (; j + W <= cols; j += W) {
        vecf v = loadw(x + j);
        veci gt = v > acc;   /* (NaN is never greater: skipped here, it reaches the sum) */
        acc = (vecf)(((veci)v & gt) | ((veci)acc & ~gt));
    }
    float m = ninf;
    for (int k = 0; k < W; k++)
        m = acc[k] > m ? acc[k] : m;
    for (; j < cols; j++)
        m = x[j] > m ? x[j] : m;
    return m;
}

static float row_sum(const float *x, int64_t cols)
{
    vecf acc = {0};
    int64_t j = 0;
    for (; j + W <= cols; j += W)
        acc += loadw(x + j);
    float s = hsum(acc);
    for (; j < cols; j++)
        s += x[j];
    return s;
}

static float row_dot(const float *a, const float *b, int64_t cols)
{
    vecf acc = {0};
    int64_t j = 0;
    for (; j + W <= cols; j += W)
        acc += loadw(a + j) * loadw(b + j);
    float s = hsum(acc);
    for (; j < cols; j++)
        s += a[j] * b[j];
    return s;
}

/* softmax (log = 0) or log_softmax (log = 1) of each row: exp(x - max) / sum, or
 * x - max - log(sum). A NaN anywhere in a row makes the row NaN, as in torch. */
void ember_softmax_forward(const float *restrict x, float *restrict y, int64_t rows,
                           int64_t cols, int log)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        float m = row_max(xr, cols);
        exp_shifted(xr, yr, m, cols);
        float s = row_sum(yr, cols);   /* (a NaN the maximum skipped reaches s: all NaN) */
        if (log) {
            float shift = m + logf(s);
            for (int64_t j = 0; j < cols; j++)
                yr[j] = xr[j] - shift;
        } else {
            float inv = 1.0f / s;
            for (int64_t j = 0; j < cols; j++)
                yr[j] *= inv;
        }
    }
}

/* softmax: y (g - sum(g y)); log_softmax: g - exp(y) sum(g). */
void ember_softmax_backward(const float *restrict y, const float *restrict g,
                            float *restrict gx, int64_t rows, int64_t cols, int log)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *yr = y + r * cols, *gr = g + r * cols;
        float *o = gx + r * cols;
        if (log) {
            float s = row_sum(gr, cols);
            exp_shifted(yr, o, 0.0f, cols);
            for (int64_t j = 0; j < cols; j++)
                o[j] = gr[j] - o[j] * s;
        } else {
            float s = row_dot(gr, yr, cols);
            for (int64_t j = 0; j < cols; j++)
                o[j] = (gr[j] - s) * yr[j];
        }
    }
}

/* xhat = (x - mean) * rstd and rstd = 1 / sqrt(var + eps) of each row (biased variance,
 * two passes over the row while it is in cache). */
void ember_standardise_rows(const float *restrict x, float *restrict xhat,
                            float *restrict rstd, int64_t rows, int64_t cols, double eps)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *o = xhat + r * cols;
        float mean = row_sum(xr, cols) / (float)cols;
        for (int64_t j = 0; j < cols; j++)
            o[j] = xr[j] - mean;
        float var = row_dot(o, o, cols) / (float)cols;
        float rs = (float)(1.0 / sqrt((double)var + eps));
        rstd[r] = rs;
        for (int64_t j = 0; j < cols; j++)
            o[j] *= rs;
    }
}

/* y = xhat w + b row by row (w, b: one value per column; either may be NULL). */
void ember_affine_rows(const float *restrict xhat, const float *restrict w,
                       const float *restrict b, float *restrict y, int64_t rows, int64_t cols)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = xhat + r * cols;
        float *o = y + r * cols;
        if (w && b) {
            for (int64_t j = 0; j < cols; j++)
                o[j] = xr[j] * w[j] + b[j];
        } else if (w) {
            for (int64_t j = 0; j < cols; j++)
                o[j] = xr[j] * w[j];
        } else {
            for (int64_t j = 0; j < cols; j++)
                o[j] = xr[j] + b[j];
        }
    }
}

/* layer_norm's gradients, row by row: the input's, rstd (gxhat - mean(gxhat) - xhat
 * mean(gxhat xhat)) with gxhat = g w (g when w is NULL), into gx (if not NULL); the
 * weight's, sum over rows of g xhat, into gw, and the bias's, sum of g, into gb (each if not
 * NULL; zeroed here first). */
void ember_layer_norm_backward(const float *restrict g, const float *restrict xhat,
                               const float *restrict w, const float *restrict rstd,
                               float *restrict gx, float *restrict gw, float *restrict gb,
                               int64_t rows, int64_t cols)
{
    if (gw)
        memset(gw, 0, (size_t)cols * sizeof(float));
    if (gb)
        memset(gb, 0, (size_t)cols * sizeof(float));
    for (int64_t r = 0; r < rows; r++) {
        const float *gr = g + r * cols, *xr = xhat + r * cols;
        if (gw)
            for (int64_t j = 0; j < cols; j++)
                gw[j] += gr[j] * xr[j];
        if (gb)
            for (int64_t j = 0; j < cols; j++)
                gb[j] += gr[j];
        if (!gx)
            continue;
        float *o = gx + r * cols;
        if (w) {
            for (int64_t j = 0; j < cols; j++)
                o[j] = gr[j] * w[j];
        } else {
            for (int64_t j = 0; j < cols; j++)
                o[j] = gr[j];
        }
        float m1 = row_sum(o, cols) / (float)cols;
        float m2 = row_dot(o, xr, cols) / (float)cols;
        float rs = rstd[r];
        for (int64_t j = 0; j < cols; j++)
            o[j] = (o[j] - xr[j] * m2 - m1) * rs;
    }
}

/* sum of (x - m)^2 over a row, and sum of g (x - m) r: batch_norm's centred sums. */
static float row_sq_dev(const float *x, float m, int64_t cols)
{
    vecf acc = {0};
    int64_t j = 0;
    for (; j + W <= cols; j += W) {
        vecf d = loadw(x + j) - m;
        acc += d * d;
    }
    float s = hsum(acc);
    for (; j < cols; j++)
        s += (x[j] - m) * (x[j] - m);
    return s;
}

static float row_dot_hat(const float *g, const float *x, float m, float r, int64_t cols)
{
    vecf acc = {0};
    int64_t j = 0;
    for (; j + W <= cols; j += W)
        acc += loadw(g + j) * ((loadw(x + j) - m) * r);
    float s = hsum(acc);
    for (; j < cols; j++)
        s += g[j] * ((x[j] - m) * r);
    return s;
}

/* batch_norm with batch statistics on x (N, C, L), a channel at a time (its N rows stay in
 * cache for the three passes): mean and biased var (float32 sums per row, added in double),
 * rstd = 1 / sqrt(var + eps), y = (x - mean) rstd w + b (w, b may be NULL). */
void ember_batch_norm_forward(const float *restrict x, const float *restrict w,
                              const float *restrict b, float *restrict y, float *restrict mean,
                              float *restrict var, float *restrict rstd, int64_t n, int64_t c,
                              int64_t l, double eps)
{
    double count = (double)n * (double)l;
    for (int64_t ci = 0; ci < c; ci++) {
        double s = 0.0, v = 0.0;
        for (int64_t ni = 0; ni < n; ni++)
            s += row_sum(x + (ni * c + ci) * l, l);
        float m = (float)(s / count);
        for (int64_t ni = 0; ni < n; ni++)
            v += row_sq_dev(x + (ni * c + ci) * l, m, l);
        float vf = (float)(v / count), r = (float)(1.0 / sqrt((double)vf + eps));
        float wc = w ? w[ci] : 1.0f, bc = b ? b[ci] : 0.0f;
        mean[ci] = m;
        var[ci] = vf;
        rstd[ci] = r;
        for (int64_t ni = 0; ni < n; ni++) {
            const float *xr = x + (ni * c + ci) * l;
            float *o = y + (ni * c + ci) * l;
            for (int64_t j = 0; j < l; j++)
                o[j] = ((xr[j] - m) * r) * wc + bc;
        }
    }
}

/* Its gradients from x, the forward's mean and rstd and the output gradient g: the bias's,
 * sum g; the weight's, sum g xhat (xhat = (x - mean) rstd, recomputed); the input's,
 * k g - xhat k/count sum(g xhat) - k/count sum g with k = rstd w. Each output may be NULL
 * (not wanted), w too. */
void ember_batch_norm_backward(const float *restrict x, const float *restrict g,
                               const float *restrict mean, const float *restrict rstd,
                               const float *restrict w, float *restrict gx,
                               float *restrict gw, float *restrict gb, int64_t n, int64_t c,
                               int64_t l)
{
    double count = (double)n * (double)l;
    for (int64_t ci = 0; ci < c; ci++) {
        float m = mean[ci], r = rstd[ci];
        double sg = 0.0, sgx = 0.0;
        for (int64_t ni = 0; ni < n; ni++) {
            const float *gr = g + (ni * c + ci) * l, *xr = x + (ni * c + ci) * l;
            sg += row_sum(gr, l);
            sgx += row_dot_hat(gr, xr, m, r, l);
        }
        if (gb)
            gb[ci] = (float)sg;
        if (gw)
            gw[ci] = (float)sgx;
        if (!gx)
            continue;
        float k = w ? r * w[ci] : r, per = (float)(k / count);
        float a = per * (float)sgx, sh = per * (float)sg;
        for (int64_t ni = 0; ni < n; ni++) {
            const float *gr = g + (ni * c + ci) * l, *xr = x + (ni * c + ci) * l;
            float *o = gx + (ni * c + ci) * l;
            for (int64_t j = 0; j < l; j++)
                o[j] = (gr[j] * k - ((xr[j] - m) * r) * a) - sh;
        }
    }
}

/* out[idx[i]] += rows[i] for i in order (repeated indices accumulate, as np.add.at). */
void ember_add_rows_at(float *restrict out, const int64_t *restrict idx,
                       const float *restrict rows, int64_t n, int64_t width)
{
    for (int64_t i = 0; i < n; i++) {
        float *o = out + idx[i] * width;
        const float *s = rows + i * width;
        for (int64_t j = 0; j < width; j++)
            o[j] += s[j];
    }
}
