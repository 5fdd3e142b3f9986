/* The transforms of ember's Winograd F(2x2, 3x3) convolution, in C: the algorithm, layout and
 * order of operations of ember/nn/functional/_winograd.py (the transforms give the same
 * bits as NumPy's; the products differ by rounding), done one channel at a time. NumPy
 * makes a pass over the whole array per addition, and the transforms are additions only, so
 * there they cost as much as the matrix products; here one channel's data stays in cache for
 * all the passes. The products of the forward, the input gradient and the weight gradient
 * are here too (see below): the BLAS is slow on their shapes.
 *
 * Layout (as _winograd.py): the domain is (16, channels, Q), Q = N * th * gw tiles in
 * (sample, tile row, tile) order, with gw = tw + 1: one extra tile per row makes the pass
 * along W read a channel's rows as one flat array with stride 2, a long loop the compiler
 * vectorises. The padded input of one channel is (2, N, th + 1, wp), wp = 2 gw: its even and
 * odd rows. Every loop below runs over long contiguous stretches and touches at most six
 * arrays: the 16 planes of the domain lie a multiple of 4 KiB apart for many shapes, and a
 * loop over all 16 at once evicts its own cache lines (5x slower).
 *
 * B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]],
 * A^T = [[1, 1, 1, 0], [0, 1, -1, -1]].
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "winograd.h"  /* (declarations only: cffi reads it) */

static void *alloc(size_t floats)        /* zeroed; no memory is a bug we cannot recover */
{
    void *p = calloc(floats ? floats : 1, sizeof(float));
    if (!p)
        abort();
    return p;
}

/* B^T's rows on four streams: o0..o3 = d0 - d2, d1 + d2, d2 - d1, d1 - d3. */
static void bt_rows(const float *restrict d0, const float *restrict d1,
                    const float *restrict d2, const float *restrict d3, float *restrict o0,
                    float *restrict o1, float *restrict o2, float *restrict o3, int64_t len)
{
    for (int64_t s = 0; s < len; s++) {
        o0[s] = d0[s] - d2[s];
        o1[s] = d1[s] + d2[s];
        o2[s] = d2[s] - d1[s];
        o3[s] = d1[s] - d3[s];
    }
}

/* The same along W: tile q reads r[2q .. 2q + 3]. */
static void bt_tiles(const float *restrict r, float *restrict o0, float *restrict o1,
                     float *restrict o2, float *restrict o3, int64_t q)
{
    for (int64_t j = 0; j < q; j++) {
        const float *e = r + 2 * j;
        o0[j] = e[0] - e[2];
        o1[j] = e[1] + e[2];
        o2[j] = e[2] - e[1];
        o3[j] = e[1] - e[3];
    }
}

/* Where padded row pr of sample ni lies in a (2, n, th + 1, wp) even/odd buffer. */
static float *padded_row(float *xp, int64_t pr, int64_t ni, int64_t n, int64_t th, int64_t wp)
{
    return xp + (((pr % 2) * n + ni) * (th + 1) + pr / 2) * wp;
}

/* V = B^T d B of every tile of x (N, C, H, W) padded by (ph, pw): v (16, C, Q). */
static void input_transform(const float *restrict x, float *restrict v, int64_t n, int64_t c,
                            int64_t h, int64_t w, int64_t ph, int64_t pw, int64_t th, int64_t tw)
{
    int64_t gw = tw + 1, wp = 2 * gw, q = n * th * gw, rl = n * th * wp;
    /* the padded channel (its border stays zero: the same interior is rewritten each time),
     * then B^T along H: 4 x rl, and 2 zeros that the last extra tile reads */
    float *xp = alloc((size_t)(2 * n * (th + 1) * wp));
    float *rows = alloc((size_t)(4 * rl + 2));
    for (int64_t ci = 0; ci < c; ci++) {
        for (int64_t ni = 0; ni < n; ni++)
            for (int64_t r = 0; r < h; r++)
                memcpy(padded_row(xp, r + ph, ni, n, th, wp) + pw,
                       x + ((ni * c + ci) * h + r) * w, (size_t)w * sizeof(float));
        /* along H: tile row i's rows 2i..2i+3 are even/odd row i, then even/odd row i + 1 */
        for (int64_t ni = 0; ni < n; ni++) {
            int64_t at = ni * th * wp;
            bt_rows(padded_row(xp, 0, ni, n, th, wp), padded_row(xp, 1, ni, n, th, wp),
                    padded_row(xp, 2, ni, n, th, wp), padded_row(xp, 3, ni, n, th, wp),
                    rows + at, rows + rl + at, rows + 2 * rl + at, rows + 3 * rl + at,
                    th * wp);
        }
        /* along W */
        for (int64_t a = 0; a < 4; a++) {
            float *o = v + (4 * a * c + ci) * q;
            bt_tiles(rows + a * rl, o, o + c * q, o + 2 * c * q, o + 3 * c * q, q);
        }
    }
    free(xp);
    free(rows);
}

/* A^T's rows on four streams: o0 = m0 + (m1 + m2), o1 = (m1 - m2) - m3. */
static void at_rows(const float *restrict m0, const float *restrict m1,
                    const float *restrict m2, const float *restrict m3, float *restrict o0,
                    float *restrict o1, int64_t len)
{
    for (int64_t s = 0; s < len; s++) {
        o0[s] = m0[s] + (m1[s] + m2[s]);
        o1[s] = (m1[s] - m2[s]) - m3[s];
    }
}

/* y (N, K, oh, ow) = A^T M A per tile of m (16, K, Q), plus bias[k] (bias may be NULL). */
static void output_transform(const float *restrict m, const float *restrict bias,
                             float *restrict y, int64_t n, int64_t k, int64_t th, int64_t tw,
                             int64_t oh, int64_t ow)
{
    int64_t gw = tw + 1, q = n * th * gw;
    float *s = alloc((size_t)(8 * q));          /* along H: (a, nu, Q) */
    float *z = alloc((size_t)(4 * q));          /* along W: (a, Q, b), a row of output pairs */
    float *m11 = alloc((size_t)q);
    for (int64_t ki = 0; ki < k; ki++) {
        const float *mk = m + ki * q;
        int64_t e = k * q;                      /* from one (xi, nu) plane to the next */
        for (int64_t nu = 0; nu < 4; nu++) {
            const float *m1 = mk + (4 + nu) * e;
            if (nu == 1 && bias) {              /* (as NumPy: b added at (1, 1) first) */
                float b = bias[ki];
                for (int64_t j = 0; j < q; j++)
                    m11[j] = m1[j] + b;
                m1 = m11;
            }
            at_rows(mk + nu * e, m1, mk + (8 + nu) * e, mk + (12 + nu) * e, s + nu * q,
                    s + (4 + nu) * q, q);
        }
        for (int64_t a = 0; a < 2; a++) {
            const float *s0 = s + 4 * a * q, *s1 = s0 + q, *s2 = s1 + q, *s3 = s2 + q;
            float *za = z + 2 * a * q;
            for (int64_t j = 0; j < q; j++) {
                za[2 * j] = s0[j] + (s1[j] + s2[j]);
                za[2 * j + 1] = (s1[j] - s2[j]) - s3[j];
            }
        }
        for (int64_t ni = 0; ni < n; ni++)
            for (int64_t r = 0; r < oh; r++)
                memcpy(y + ((ni * k + ki) * oh + r) * ow,
                       z + 2 * ((r % 2) * q + (ni * th + r / 2) * gw), (size_t)ow * sizeof(float));
    }
    free(s);
    free(z);
    free(m11);
}

/* dM = A G A^T per tile of the output gradient g (N, K, oh, ow), zero beyond its edge and
 * on the extra tiles: dm (16, K, Q). */
static void grad_transform(const float *restrict g, float *restrict dm, int64_t n, int64_t k,
                           int64_t th, int64_t tw, int64_t oh, int64_t ow)
{
    int64_t gw = tw + 1, q = n * th * gw, e = k * q;
    float *z = alloc((size_t)(4 * q));   /* g's rows as (a, Q, b) pairs; the rest stays 0 */
    float *edge = alloc((size_t)(8 * q));   /* dm[0, nu] and dm[3, nu] */
    for (int64_t ki = 0; ki < k; ki++) {
        for (int64_t ni = 0; ni < n; ni++)
            for (int64_t r = 0; r < oh; r++)
                memcpy(z + 2 * ((r % 2) * q + (ni * th + r / 2) * gw),
                       g + ((ni * k + ki) * oh + r) * ow, (size_t)ow * sizeof(float));
        /* A = [[1, 0], [1, 1], [1, -1], [0, -1]]: xi = 0 and 3 from a = 0 and 1 alone
         * (their corners, then nu = 1, 2 along W) ... */
        for (int64_t a = 0; a < 2; a++) {
            const float *za = z + 2 * a * q;
            float *e0 = edge + 4 * a * q, *e1 = e0 + q, *e2 = e1 + q, *e3 = e2 + q;
            float sign = a ? -1.0f : 1.0f;     /* (dm[3, 0] = -g(1, 0), dm[3, 3] = g(1, 1)) */
            for (int64_t j = 0; j < q; j++) {
                float c0 = sign * za[2 * j], c3 = -sign * za[2 * j + 1];
                e0[j] = c0;
                e3[j] = c3;
                e1[j] = c0 - c3;
                e2[j] = c0 + c3;
            }
        }
        /* ... then xi = 1, 2 along H */
        for (int64_t nu = 0; nu < 4; nu++) {
            const float *t0 = edge + nu * q, *t3 = edge + (4 + nu) * q;
            float *o0 = dm + nu * e + ki * q, *o1 = o0 + 4 * e, *o2 = o1 + 4 * e,
                  *o3 = o2 + 4 * e;
            for (int64_t j = 0; j < q; j++) {
                o0[j] = t0[j];
                o1[j] = t0[j] - t3[j];
                o2[j] = t0[j] + t3[j];
                o3[j] = t3[j];
            }
        }
    }
    free(z);
    free(edge);
}

/* The adjoint of B^T's rows, for tiles 2 apart: t0..t3 the gradients of the four outputs;
 * d0 = t0, d1 = t1 - t2 + t3, d2 = t1 + t2 - t0, d3 = -t3 are added into the positions they
 * were read from: even[j] = d0[j] + d2[j - 1], odd[j] = d1[j] + d3[j - 1], for ``count``
 * tiles of ``len`` values each (one value: along W; a row: along H). even/odd get one more
 * tile's worth where ``spill`` (the last tile's d2/d3). */
static void overlap_add(const float *restrict t0, const float *restrict t1,
                        const float *restrict t2, const float *restrict t3,
                        float *restrict even, float *restrict odd, int64_t count, int64_t len,
                        int64_t estride, int64_t ostride, int spill)
{
    for (int64_t i = 0; i < count; i++) {
        const float *a0 = t0 + i * len, *a1 = t1 + i * len, *a2 = t2 + i * len,
                    *a3 = t3 + i * len, *p0 = a0 - len, *p1 = a1 - len, *p2 = a2 - len,
                    *p3 = a3 - len;
        float *ev = even + i * len * estride, *od = odd + i * len * ostride;
        for (int64_t s = 0; s < len; s++) {
            float d1 = (a1[s] - a2[s]) + a3[s];
            if (i) {
                float d2 = (p1[s] + p2[s]) - p0[s];
                ev[s * estride] = a0[s] + d2;
                od[s * ostride] = d1 - p3[s];
            } else {
                ev[s * estride] = a0[s];
                od[s * ostride] = d1;
            }
        }
    }
    if (spill) {
        const float *p0 = t0 + (count - 1) * len, *p1 = t1 + (count - 1) * len,
                    *p2 = t2 + (count - 1) * len, *p3 = t3 + (count - 1) * len;
        float *ev = even + count * len * estride, *od = odd + count * len * ostride;
        for (int64_t s = 0; s < len; s++) {
            ev[s * estride] = (p1[s] + p2[s]) - p0[s];
            od[s * ostride] = -p3[s];
        }
    }
}

/* dL/dx (N, C, H, W) from gv = U^T dM (16, C, Q), zero on the extra tiles: B gv B^T per
 * tile, added where tiles overlap, the padding cut off. */
static void input_grad_transform(const float *restrict gv, float *restrict gx, int64_t n,
                                 int64_t c, int64_t h, int64_t w, int64_t ph, int64_t pw,
                                 int64_t th, int64_t tw)
{
    int64_t gw = tw + 1, wp = 2 * gw, q = n * th * gw, rl = n * th * wp, e = c * q;
    float *rows = alloc((size_t)(4 * rl));                  /* along W: 4 x (N, th, wp) */
    float *xp = alloc((size_t)(2 * n * (th + 1) * wp));     /* along H: even/odd rows */
    for (int64_t ci = 0; ci < c; ci++) {
        const float *gc = gv + ci * q;
        /* along W on flat rows: what an extra tile (zero) spills into the next row adds 0 */
        for (int64_t a = 0; a < 4; a++) {
            const float *t0 = gc + 4 * a * e;
            float *ra = rows + a * rl;
            overlap_add(t0, t0 + e, t0 + 2 * e, t0 + 3 * e, ra, ra + 1, q, 1, 2, 2, 0);
        }
        /* along H, into the even and odd padded rows of each sample */
        for (int64_t ni = 0; ni < n; ni++) {
            int64_t at = ni * th * wp;
            overlap_add(rows + at, rows + rl + at, rows + 2 * rl + at, rows + 3 * rl + at,
                        padded_row(xp, 0, ni, n, th, wp), padded_row(xp, 1, ni, n, th, wp),
                        th, wp, 1, 1, 1);
        }
        for (int64_t ni = 0; ni < n; ni++)
            for (int64_t r = 0; r < h; r++)
                memcpy(gx + ((ni * c + ci) * h + r) * w,
                       padded_row(xp, r + ph, ni, n, th, wp) + pw, (size_t)w * sizeof(float));
    }
    free(rows);
    free(xp);
}

/* -- the products of the 16 positions ------------------------------------------------------
 * out[e] (R x Q) = a[e] (R x I) @ b[e] (I x Q) for each e, with I and R a few dozen (the
 * channels) and Q the tiles (thousands). The BLAS is built for large inner dimensions; with
 * 16-32 it reaches half its speed (here: 70-100 GFLOP/s against 150-240). Here a block of
 * KB rows x NB vectors of columns is accumulated in registers over the whole (short) inner
 * dimension: per inner step NB loads of b, KB broadcasts of a, KB * NB fused multiply-adds.
 * a is read with strides (rs, is), so the same loop serves a and its transpose. The last
 * Q % WV columns go through the same loop from a zero-padded copy (one by one, they took as
 * long as all the others when Q was 72). */
#ifdef __AVX512F__
#define WV 16
#else
#define WV 8
#endif
#define KB 8
#define NB 3
typedef float vecw __attribute__((vector_size(WV * sizeof(float))));

static inline __attribute__((always_inline)) void
dot_block(const float *restrict a, int64_t rs, int64_t is, const float *restrict b, int64_t q,
          int64_t inner, float *restrict out, int rows, int nb, int add)
{
    vecw acc[KB][NB];
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < nb; j++) {
            acc[r][j] = (vecw){0};
            if (add)
                memcpy(&acc[r][j], out + r * q + j * WV, sizeof(vecw));
        }
    for (int64_t i = 0; i < inner; i++) {
        vecw bv[NB];
        for (int j = 0; j < nb; j++)
            memcpy(&bv[j], b + i * q + j * WV, sizeof(vecw));
        for (int r = 0; r < rows; r++) {
            float s = a[r * rs + i * is];
            for (int j = 0; j < nb; j++)
                acc[r][j] += s * bv[j];
        }
    }
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < nb; j++)
            memcpy(out + r * q + j * WV, &acc[r][j], sizeof(vecw));
}

/* out[:rows, :q] = a[:rows] @ b[:, :q] (``add``: +=) for b and out with rows ``ld`` floats
 * apart; q a multiple of WV. */
static void dot_rows(const float *restrict a, int64_t rs, int64_t is,
                     const float *restrict b, int64_t ld, int64_t q, int64_t inner,
                     float *restrict out, int rows, int add)
{
    int64_t c = 0;
    if (rows == KB) {
        for (; c + NB * WV <= q; c += NB * WV)
            dot_block(a, rs, is, b + c, ld, inner, out + c, KB, NB, add);
        for (; c < q; c += WV)
            dot_block(a, rs, is, b + c, ld, inner, out + c, KB, 1, add);
    } else {
        for (; c + NB * WV <= q; c += NB * WV)
            dot_block(a, rs, is, b + c, ld, inner, out + c, 1, NB, add);
        for (; c < q; c += WV)
            dot_block(a, rs, is, b + c, ld, inner, out + c, 1, 1, add);
    }
}

/* out (16, R, Q) = a (16, R, I) @ b (16, I, Q) (``add``: +=); with ``transpose_a``, a is
 * (16, I, R) and its transpose is used. */
static void domain_products(const float *a, const float *b, float *out, int64_t rows,
                            int64_t inner, int64_t q, int transpose_a, int add)
{
    int64_t rs = transpose_a ? 1 : inner, is = transpose_a ? rows : 1;
    int64_t qv = q - q % WV, rem = q - qv;
    float *bt = rem ? alloc((size_t)(inner * WV)) : NULL;   /* the last columns, padded */
    float ot[KB * WV];
    for (int64_t e = 0; e < 16; e++) {
        const float *ae = a + e * rows * inner, *be = b + e * inner * q;
        float *oe = out + e * rows * q;
        for (int64_t i = 0; rem && i < inner; i++)
            memcpy(bt + i * WV, be + i * q + qv, (size_t)rem * sizeof(float));
        for (int64_t r = 0; r < rows;) {
            int nr = rows - r >= KB ? KB : 1;
            dot_rows(ae + r * rs, rs, is, be, q, qv, inner, oe + r * q, nr, add);
            if (rem) {
                for (int k = 0; add && k < nr; k++)
                    memcpy(ot + k * WV, oe + (r + k) * q + qv, (size_t)rem * sizeof(float));
                dot_rows(ae + r * rs, rs, is, bt, WV, WV, inner, ot, nr, add);
                for (int k = 0; k < nr; k++)
                    memcpy(oe + (r + k) * q + qv, ot + k * WV, (size_t)rem * sizeof(float));
            }
            r += nr;
        }
    }
    free(bt);
}

/* -- the weight gradient's products ---------------------------------------------------------
 * out[e] (R x S) = a[e] (R x Q) @ b[e]^T (Q x S) for each e: a few dozen rows on each side,
 * summed over the thousands of tiles. The BLAS runs these at a third of the speed of the
 * products above (its kernels are built for outputs larger than 16 x 16). Here an RB x SB
 * block of outputs is accumulated in WV-wide registers along Q (per step: RB + SB loads,
 * RB * SB fused multiply-adds), a chunk of QB tiles at a time so that the chunk's R + S rows
 * stay in cache while every block reads them; the lanes are added up at the end. */
#define RB 4
#define SB 4
#define QB 1024

static inline __attribute__((always_inline)) void
sum_block(const float *restrict a, const float *restrict b, int64_t q, int64_t len,
          float *restrict acc, int64_t s_all, int nr, int ns)
{
    vecw t[RB][SB];
    for (int r = 0; r < nr; r++)
        for (int s = 0; s < ns; s++)
            t[r][s] = (vecw){0};
    for (int64_t j = 0; j < len; j += WV) {
        vecw av[RB], bv[SB];
        for (int r = 0; r < nr; r++)
            memcpy(&av[r], a + r * q + j, sizeof(vecw));
        for (int s = 0; s < ns; s++) {
            memcpy(&bv[s], b + s * q + j, sizeof(vecw));
            /* (held in a register: left alone, GCC 12 re-reads each value for every
             * multiply-add it feeds, and the loop waits on loads at a third of the speed) */
            __asm__("" : "+x"(bv[s]));
        }
        for (int r = 0; r < nr; r++)
            __asm__("" : "+x"(av[r]));
        for (int r = 0; r < nr; r++)
            for (int s = 0; s < ns; s++)
                t[r][s] += av[r] * bv[s];
    }
    for (int r = 0; r < nr; r++)
        for (int s = 0; s < ns; s++) {
            vecw o;
            float *p = acc + (r * s_all + s) * WV;
            memcpy(&o, p, sizeof o);
            o += t[r][s];
            memcpy(p, &o, sizeof o);
        }
}

/* The RB x SB blocks of acc (R, S, WV) += a (R, len) b (S, len)^T, rows ``ld`` apart. */
static void sums_chunk(const float *a, const float *b, int64_t ld, int64_t len, float *acc,
                       int64_t rows, int64_t cols)
{
    int64_t r = 0;
    for (; r + RB <= rows; r += RB) {
        int64_t s = 0;
        for (; s + SB <= cols; s += SB)
            sum_block(a + r * ld, b + s * ld, ld, len, acc + (r * cols + s) * WV, cols, RB, SB);
        for (; s < cols; s++)
            sum_block(a + r * ld, b + s * ld, ld, len, acc + (r * cols + s) * WV, cols, RB, 1);
    }
    for (; r < rows; r++) {
        int64_t s = 0;
        for (; s + SB <= cols; s += SB)
            sum_block(a + r * ld, b + s * ld, ld, len, acc + (r * cols + s) * WV, cols, 1, SB);
        for (; s < cols; s++)
            sum_block(a + r * ld, b + s * ld, ld, len, acc + (r * cols + s) * WV, cols, 1, 1);
    }
}

/* acc[e] += a[e] @ b[e]^T for the 16 positions, a (16, R, Q), b (16, S, Q), as (16, R, S)
 * vectors of WV lanes (added up by sums_finish). QB tiles at a time; the last Q % WV from
 * zero-padded copies. */
static void sums_add(const float *a, const float *b, float *acc, int64_t rows, int64_t cols,
                     int64_t q)
{
    int64_t qv = q - q % WV, rem = q - qv;
    float *at = rem ? alloc((size_t)((rows + cols) * WV)) : NULL;
    float *bt = rem ? at + rows * WV : NULL;
    for (int64_t e = 0; e < 16; e++) {
        const float *ae = a + e * rows * q, *be = b + e * cols * q;
        float *ac = acc + e * rows * cols * WV;
        for (int64_t j0 = 0; j0 < qv; j0 += QB)
            sums_chunk(ae + j0, be + j0, q, qv - j0 < QB ? qv - j0 : QB, ac, rows, cols);
        if (rem) {
            for (int64_t r = 0; r < rows; r++)
                memcpy(at + r * WV, ae + r * q + qv, (size_t)rem * sizeof(float));
            for (int64_t s = 0; s < cols; s++)
                memcpy(bt + s * WV, be + s * q + qv, (size_t)rem * sizeof(float));
            sums_chunk(at, bt, WV, WV, ac, rows, cols);
        }
    }
    free(at);
}

/* out (n) = the lanes of acc (n, WV) added up. */
static void sums_finish(const float *acc, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float t = 0.0f;
        for (int l = 0; l < WV; l++)
            t += acc[i * WV + l];
        out[i] = t;
    }
}

/* -- the whole convolution, a block of samples at a time -------------------------------------
 * The domain arrays are 4x the size of the input (16 values per 4 input values): made for
 * the whole batch, each is written to memory and read back, and the convolution waits on
 * memory, not on arithmetic (and slows down most when other processes share the cache).
 * Here ``nb`` samples at a time go through all the steps while their domain arrays stay in
 * cache; the backward recomputes V of each block from x rather than keeping it. ``work``
 * holds the domain arrays of one block, 16 (2 C + K) nb th (tw + 1) floats, and the backward's
 * sums, 16 K C WV more (the caller keeps it between calls: fresh memory from the OS costs a
 * page fault per 4 KiB, on a virtual machine more than the arithmetic). */

/* y (N, K, oh, ow) = conv(x (N, C, H, W), w) + bias, u = G w G^T (16, K, C). */
void ember_winograd_conv_forward(const float *x, const float *u, const float *bias, float *y,
                                 float *work, int64_t n, int64_t c, int64_t k, int64_t h,
                                 int64_t w, int64_t ph, int64_t pw, int64_t th, int64_t tw,
                                 int64_t oh, int64_t ow, int64_t nb)
{
    int64_t per = th * (tw + 1);                    /* tiles per sample */
    float *v = work, *m = v + 16 * c * nb * per;
    for (int64_t n0 = 0; n0 < n; n0 += nb) {
        int64_t cnt = n - n0 < nb ? n - n0 : nb, q = cnt * per;
        input_transform(x + n0 * c * h * w, v, cnt, c, h, w, ph, pw, th, tw);
        domain_products(u, v, m, k, c, q, 0, 0);
        output_transform(m, bias, y + n0 * k * oh * ow, cnt, k, th, tw, oh, ow);
    }
}

/* t (16, Q, C) = v (16, C, Q) transposed, 16 x 16 squares at a time. */
static void transpose_domain(const float *restrict v, float *restrict t, int64_t c, int64_t q)
{
    for (int64_t e = 0; e < 16; e++) {
        const float *ve = v + e * c * q;
        float *te = t + e * c * q;
        for (int64_t c0 = 0; c0 < c; c0 += 16)
            for (int64_t j0 = 0; j0 < q; j0 += 16)
                for (int64_t ci = c0; ci < c0 + 16 && ci < c; ci++)
                    for (int64_t j = j0; j < j0 + 16 && j < q; j++)
                        te[j * c + ci] = ve[ci * q + j];
    }
}

/* Its gradients from the output gradient g (N, K, oh, ow): the input's into gx (N, C, H, W)
 * and U's, dM V^T, into gu (16, K, C); either may be NULL (not wanted). With ``lanes`` the
 * weight gradient's sums are sums_add's (few channels); without, products of dM with V
 * transposed (domain_products, adding into gu: many channels, long blocks). */
void ember_winograd_conv_backward(const float *x, const float *g, const float *u, float *gx,
                                  float *gu, float *work, int64_t n, int64_t c, int64_t k,
                                  int64_t h, int64_t w, int64_t ph, int64_t pw, int64_t th,
                                  int64_t tw, int64_t oh, int64_t ow, int64_t nb, int lanes)
{
    int64_t per = th * (tw + 1);
    float *v = work, *gv = v + 16 * c * nb * per, *dm = gv + 16 * c * nb * per,
          *acc = dm + 16 * k * nb * per;               /* (lanes) or V transposed */
    if (gu && lanes)
        memset(acc, 0, (size_t)(16 * k * c * WV) * sizeof(float));
    else if (gu)
        memset(gu, 0, (size_t)(16 * k * c) * sizeof(float));
    for (int64_t n0 = 0; n0 < n; n0 += nb) {
        int64_t cnt = n - n0 < nb ? n - n0 : nb, q = cnt * per;
        grad_transform(g + n0 * k * oh * ow, dm, cnt, k, th, tw, oh, ow);
        if (gu) {
            input_transform(x + n0 * c * h * w, v, cnt, c, h, w, ph, pw, th, tw);
            if (lanes) {
                sums_add(dm, v, acc, k, c, q);
            } else {
                transpose_domain(v, acc, c, q);
                domain_products(dm, acc, gu, k, q, c, 0, 1);
            }
        }
        if (gx) {
            domain_products(u, dm, gv, c, k, q, 1, 0);
            input_grad_transform(gv, gx + n0 * c * h * w, cnt, c, h, w, ph, pw, th, tw);
        }
    }
    if (gu && lanes)
        sums_finish(acc, gu, 16 * k * c);
}
