"""Special functions on NumPy float64 arrays, vectorised: lgamma, digamma, polygamma, erfinv,
i0, i1, i0e, i1e (NumPy has only ``np.i0``; ``math.lgamma`` is one number at a time).

Every function takes and returns float64 arrays and is accurate to a few units in the last
place over its domain (tests/oracle/test_special_ops.py measures each against mpmath), except
where the result crosses zero away from an expansion point (lgamma and digamma at their
negative zeros), where the error is a few ulps of the terms that cancel, as in every libm.
The special values (poles, +-inf, nan, -0.0) are torch's, including the places where torch's
kernels give something other than the limit (noted where it happens).

The methods:

- lgamma, digamma: the Taylor series of lgamma(2 + z) (coefficients (-1)^k (zeta(k) - 1)/k)
  and of its derivative on |z| <= 1/2, reached by the recurrence Gamma(x + 1) = x Gamma(x)
  with exact shifts (x - k is exact for an integer k below x); Stirling's series from 10 on;
  the reflection formula below zero. digamma also has its own Taylor series around its
  positive zero, so it keeps full relative accuracy there.
- polygamma(n, x), n >= 1: (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta function summed
  directly up to x + n + 11 and by its Euler-Maclaurin expansion from there (every term
  positive); reflection below zero, with the n-th derivative of cot as a polynomial in cot.
- erfinv: an initial guess (Winitzki's closed form, 2e-3 relative), then Halley steps on
  erf(x) = y for |y| <= 0.8 and on erfc(x) = 1 - |y| (exact) beyond, with erf from its
  Taylor series and erfc = exp(-x^2) erfcx(x) from a Chebyshev expansion of erfcx in
  4 / (4 + x) (so x is found to full precision right up to +-1).
- i0, i1: the Cephes Chebyshev expansions (the ones torch and NumPy use) of the scaled
  functions i0e, i1e, times exp(|x|).

The constant tables were computed with mpmath at 60 digits; the tests recompute them.
"""
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

__all__ = ['lgamma', 'digamma', 'polygamma', 'erfinv', 'i0', 'i1', 'i0e', 'i1e']

_PI = math.pi
_LOG_PI = math.log(math.pi)
_STIRLING_C = 0.5 * math.log(2 * math.pi) - 0.5

# lgamma(2 + z) = sum_{k>=1} LGAMMA2[k-1] z^k: (1 - euler_gamma), then (-1)^k (zeta(k) - 1)/k.
# Used on -3/4 <= z <= 1/2, where forty terms leave less than 1e-18.
LGAMMA2 = (
    0.42278433509846713, 0.3224670334241132, -0.0673523010531981, 0.020580808427784546,
    -0.007385551028673986, 0.0028905103307415234, -0.001192753911703261, 0.0005096695247430425,
    -0.00022315475845357939, 9.945751278180853e-05, -4.492623673813314e-05,
    2.050721277567069e-05, -9.439488275268397e-06, 4.374866789907488e-06,
    -2.039215753801366e-06, 9.55141213040742e-07, -4.492469198764566e-07,
    2.1207184805554665e-07, -1.0043224823968099e-07, 4.7698101693639804e-08,
    -2.2711094608943164e-08, 1.0838659214896955e-08, -5.183475041970047e-09,
    2.4836745438024785e-09, -1.1921401405860912e-09, 5.731367241678862e-10,
    -2.7595228851242334e-10, 1.330476437424449e-10, -6.4229645638381e-11,
    3.1044247747322276e-11, -1.5021384080754142e-11, 7.275974480239079e-12,
    -3.527742476575915e-12, 1.711991790559618e-12, -8.315385841420285e-13,
    4.04220052528944e-13, -1.9664756310966165e-13, 9.573630387838556e-14,
    -4.6640760264283744e-14, 2.2737369600659724e-14)
# digamma(2 + z) = d/dz lgamma(2 + z)
DIGAMMA2 = tuple(k * c for k, c in enumerate(LGAMMA2, 1))

# digamma's positive zero, as hi + lo, and digamma(X0 + h) = sum_{k>=1} DIGAMMA_ROOT[k-1] h^k
# (polygamma(k, X0) / k!); used for |h| <= 0.3, where 28 terms leave less than 1e-19.
X0_HI, X0_LO = 1.4616321449683622, 9.549995429965697e-17
DIGAMMA_ROOT = (
    0.9676722454476212, -0.4427631689835921, 0.258499760955651, -0.16394270544240652,
    0.10782405069126237, -0.07219956125645471, 0.04880428816414311, -0.03316112647484736,
    0.022597648232218104, -0.01542476590494896, 0.010538791616612175, -0.007204534386356869,
    0.004926781395729853, -0.003369801655439328, 0.002305126326734928,
    -0.0015769367714301972, 0.0010788252019162967, -0.0007380709389960052,
    0.000504953265834602, -0.0003454680251063077, 0.00023635601564027053,
    -0.00016170622091974803, 0.0001106337276874741, -7.569179582195066e-05,
    5.178575795222081e-05, -3.5430070947659604e-05, 2.424006611860132e-05,
    -1.6584242271854135e-05)
_ROOT_RADIUS = 0.3

# erfcx(x) = exp(x^2) erfc(x) for x in [3/8, 7] is smooth in y = 4 / (4 + x) (S. G. Johnson's
# variable): its Chebyshev series in t, y mapped linearly from [ERFCX_YA, ERFCX_YB] onto
# t in [-1, 1], truncated at degree 23 (terms below 1e-21), rewritten in powers of t
# (sum of |coefficients| 0.69, so Horner in t loses nothing).
ERFCX_YA, ERFCX_YB = 4 / 11, 32 / 35
ERFCX_T = (
    0.23019129829369298, 0.23694465610727056, 0.12826654097941764, 0.058548405498835825,
    0.022472584158118772, 0.00716803213907067, 0.001851388500669735, 0.0003661923780440431,
    4.7719720967925404e-05, 1.4658675155842905e-06, -8.922979878484868e-07,
    -1.677680316275424e-07, 4.070192691702057e-09, 5.310325260672762e-09,
    3.067413404932729e-10, -1.515522965251425e-10, -1.7261191556083004e-11,
    4.761134289073823e-12, 6.945097268233785e-13, -1.762622292710462e-13,
    -2.4318112474403297e-14, 7.3476114280434e-15, 6.438687034591617e-16,
    -2.625540484259824e-16)

# Cephes' Chebyshev coefficients (Cephes Math Library, Stephen L. Moshier, BSD licence):
# exp(-x) I0(x) on [0, 8] (in x/2 - 2) and exp(-x) sqrt(x) I0(x) on [8, inf) (in 32/x - 2),
# and the same for I1 (exp(-x) I1(x) / x on [0, 8]).
_I0_A = (
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0_B = (
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1)
_I1_A = (
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1)
_I1_B = (
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1)

# Bernoulli numbers B_2, B_4, ..., B_26.
_BERNOULLI = tuple(Fraction(n, d) for n, d in (
    (1, 6), (-1, 30), (1, 42), (-1, 30), (5, 66), (-691, 2730), (7, 6), (-3617, 510),
    (43867, 798), (-174611, 330), (854513, 138), (-236364091, 2730), (8553103, 6)))
# Stirling's series: lgamma(x) = (x - 1/2)(log x - 1) + log(2 pi)/2 - 1/2
#                                + sum_k B_2k / (2k (2k - 1) x^(2k - 1)),
# digamma(x) = log x - 1/(2x) - sum_k B_2k / (2k x^2k); eight terms are enough from x = 10.
_STIRLING = tuple(float(b / (2 * k * (2 * k - 1))) for k, b in enumerate(_BERNOULLI[:9], 1))
_DIGAMMA_ASYMPTOTIC = tuple(float(b / (2 * k)) for k, b in enumerate(_BERNOULLI[:9], 1))


_SMALL = 8  # arrays up to this size are evaluated element by element in Python floats,
# the same operations in the same order (so the same bits), without NumPy's per-call cost.


def _poly(coefs, z):
    """sum_k coefs[k] z^k (Horner)."""
    rev = coefs[-2::-1]
    if z.size <= _SMALL:
        out = []
        for v in z.ravel().tolist():
            r = coefs[-1]
            for c in rev:
                r = r * v + c
            out.append(r)
        return np.array(out, dtype=np.float64).reshape(z.shape)
    r = np.full(z.shape, coefs[-1])
    for c in rev:
        r *= z
        r += c
    return r


def _chbevl(x, coefs):
    """Cephes' Chebyshev series evaluation (coefficients highest order first)."""
    if x.size <= _SMALL:
        out = []
        for v in x.ravel().tolist():
            b0, b1, b2 = coefs[0], 0.0, 0.0
            for c in coefs[1:]:
                b2 = b1
                b1 = b0
                b0 = v * b1 - b2 + c
            out.append(0.5 * (b0 - b2))
        return np.array(out, dtype=np.float64).reshape(x.shape)
    b0 = np.full(x.shape, coefs[0])
    b1 = np.zeros(x.shape)
    b2 = b1
    for c in coefs[1:]:
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + c
    return 0.5 * (b0 - b2)


def _float64(x):
    return np.array(x, dtype=np.float64, copy=None, ndmin=0)


def _abs_sinpi(x):
    """|sin(pi x)|, exact in its argument reduction (x - round(x) is exact)."""
    return np.abs(np.sin(_PI * (x - np.rint(x))))


def _cotpi(x):
    """cot(pi x), reduced exactly to r = x - round(x) in [-1/2, 1/2] first; from |r| = 1/4
    on as tan(pi (+-1/2 - r)) (exact argument, and exactly 0 at the half-integers)."""
    r = x - np.rint(x)
    far = np.abs(r) >= 0.25
    return np.where(far, np.tan(_PI * (np.copysign(0.5, r) - r)),
                    1.0 / np.tan(_PI * np.where(far, 0.25, r)))


# -- lgamma ------------------------------------------------------------------------------
def _lgamma2(z):
    """lgamma(2 + z) for -3/4 <= z <= 1/2."""
    return z * _poly(LGAMMA2, z)


def _lgamma_pos(x):
    """lgamma for x >= 1/2 (x may be +inf)."""
    out = np.empty(x.shape)
    m = x < 1.25
    if m.any():
        v = x[m]
        out[m] = _lgamma2(v - 1) - np.log(v)
    m = (x >= 1.25) & (x < 2.5)
    if m.any():
        out[m] = _lgamma2(x[m] - 2)
    m = (x >= 2.5) & (x < 10)
    if m.any():
        v = x[m]
        n = np.rint(v)
        prod = np.ones(v.shape)
        for k in range(1, int(n.max()) - 1):  # Gamma(n + z) = Gamma(2 + z) (x-1) ... (x-n+2)
            prod *= np.where(n - 2 >= k, v - k, 1.0)
        out[m] = _lgamma2(v - n) + np.log(prod)
    m = x >= 10
    if m.any():
        v = x[m]
        w = 1.0 / (v * v)
        out[m] = (v - 0.5) * (np.log(v) - 1) + _STIRLING_C + _poly(_STIRLING, w) / v
    return out


def lgamma(x):
    """log|Gamma(x)|; +inf at the poles (0, -0 and the negative integers) and at +-inf."""
    x = _float64(x)
    out = np.full(x.shape, np.nan)
    a = np.abs(x)
    m = a < 0.5  # lgamma(x) = lgamma(x + 2) - log|x| - log(x + 1)
    if m.any():
        v = x[m]
        out[m] = _lgamma2(v) - np.log(np.abs(v)) - np.log1p(v)
    m = x >= 0.5
    if m.any():
        out[m] = _lgamma_pos(x[m])
    m = x <= -0.5
    if m.any():
        v = x[m]
        pole = (v == np.rint(v)) | np.isinf(v)
        v = np.where(pole, -1.5, v)
        # Gamma(x) Gamma(-x) = -pi / (x sin(pi x))
        r = _LOG_PI - np.log(np.abs(v) * _abs_sinpi(v)) - _lgamma_pos(-v)
        out[m] = np.where(pole, np.inf, r)
    return out


# -- digamma -----------------------------------------------------------------------------
def _digamma_pos(x):
    """digamma for x > 0 (x may be +inf)."""
    out = np.empty(x.shape)
    h = (x - X0_HI) - X0_LO
    root = np.abs(h) <= _ROOT_RADIUS
    if root.any():
        hh = h[root]
        out[root] = hh * _poly(DIGAMMA_ROOT, hh)
    rest = ~root
    m = rest & (x < 0.5)  # digamma(x) = digamma(x + 2) - 1/x - 1/(x + 1)
    if m.any():
        v = x[m]
        out[m] = _poly(DIGAMMA2, v) - 1.0 / v - 1.0 / (v + 1)
    m = rest & (x >= 0.5) & (x < 1.5)
    if m.any():
        v = x[m]
        out[m] = _poly(DIGAMMA2, v - 1) - 1.0 / v
    m = rest & (x >= 1.5) & (x < 2.5)
    if m.any():
        out[m] = _poly(DIGAMMA2, x[m] - 2)
    m = (x >= 2.5) & (x < 10)
    if m.any():
        v = x[m]
        n = np.rint(v)
        s = np.zeros(v.shape)
        for k in range(int(n.max()) - 2, 0, -1):  # the small terms first
            s += np.where(n - 2 >= k, 1.0 / (v - k), 0.0)
        out[m] = _poly(DIGAMMA2, v - n) + s
    m = x >= 10
    if m.any():
        v = x[m]
        w = 1.0 / (v * v)
        out[m] = np.log(v) - 0.5 / v - w * _poly(_DIGAMMA_ASYMPTOTIC, w)
    return out


def digamma(x):
    """The logarithmic derivative of Gamma. As torch: -inf at +0, +inf at -0, nan at the
    negative integers and at -inf, +inf at +inf."""
    x = _float64(x)
    out = np.full(x.shape, np.nan)
    m = x > 0
    if m.any():
        out[m] = _digamma_pos(x[m])
    zero = x == 0
    if zero.any():
        out[zero] = np.where(np.signbit(x[zero]), np.inf, -np.inf)
    m = (x < 0) & (x != np.rint(x)) & np.isfinite(x)
    if m.any():
        v = x[m]
        out[m] = _digamma_pos(1 - v) - _PI * _cotpi(v)  # reflection
    return out


# -- polygamma ---------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _cot_derivative(n):
    """Coefficients (lowest order first) of P_n with d^n/dx^n cot(x) = P_n(cot x):
    P_0(c) = c, P_{k+1}(c) = -(1 + c^2) P_k'(c)."""
    p = [0, 1]
    for _ in range(n):
        d = [i * p[i] for i in range(1, len(p))] or [0]
        q = [0] * (len(d) + 2)
        for i, c in enumerate(d):
            q[i] -= c
            q[i + 2] -= c
        p = q
    return tuple(float(c) for c in p)


@lru_cache(maxsize=None)
def _zeta_tail_coefs(s):
    """Euler-Maclaurin coefficients B_2k / (2k)! * s (s+1) ... (s+2k-2) for zeta(s, y)."""
    out = []
    poch = Fraction(s)
    for k, b in enumerate(_BERNOULLI[:12], 1):
        if k > 1:
            poch *= (s + 2 * k - 3) * (s + 2 * k - 2)
        out.append(float(b / math.factorial(2 * k) * poch))
    return tuple(out)


def _hurwitz_zeta_pos(s, x):
    """zeta(s, x) = sum_{k>=0} (x + k)^-s for an integer s >= 2 and x > 0 (finite)."""
    top = s + 10.0
    m = np.maximum(np.ceil(top - x), 0.0)
    acc = np.zeros(x.shape)
    for j in range(int(m.max()) - 1 if m.size else -1, -1, -1):  # the small terms first
        act = m > j
        acc[act] += (x[act] + j) ** -s
    y = x + m
    w = 1.0 / (y * y)
    tail = y ** (1.0 - s) / (s - 1) + y ** -float(s) * (0.5 + _poly(_zeta_tail_coefs(s), w) / y)
    return acc + tail


def _polygamma_pos(n, x):
    fac = float(math.factorial(n)) if n <= 170 else math.inf
    sign = 1.0 if n % 2 else -1.0
    return sign * fac * _hurwitz_zeta_pos(n + 1, x)


def polygamma(n, x):
    """The n-th derivative of digamma (n >= 0).

    At the poles (0, -0, the negative integers) the result is +inf for odd n and -inf for
    even n -- also for n = 1 at the negative integers, where torch's kernel returns a large
    finite number (pi^2 / sin(pi x)^2 with sin's rounding). At +-inf it is torch's: for
    n = 1, 0 at +inf and nan at -inf; for n >= 2, nan at +inf and the pole's infinity at -inf.
    """
    if n == 0:
        return digamma(x)
    x = _float64(x)
    out = np.full(x.shape, np.nan)
    sign = 1.0 if n % 2 else -1.0
    m = (x > 0) & np.isfinite(x)
    if m.any():
        out[m] = _polygamma_pos(n, x[m])
    pole = (x <= 0) & (x == np.rint(x))
    out[pole & np.isfinite(x)] = sign * np.inf
    out[x == np.inf] = 0.0 if n == 1 else np.nan
    out[x == -np.inf] = np.nan if n == 1 else sign * np.inf
    m = (x < 0) & ~pole & np.isfinite(x)
    if m.any():
        # polygamma(n, x) = -pi d^n/dx^n cot(pi x) + (-1)^n polygamma(n, 1 - x)
        v = x[m]
        cot = _poly(_cot_derivative(n), _cotpi(v))
        refl = _polygamma_pos(n, 1 - v)
        out[m] = -(_PI ** (n + 1)) * cot + (refl if n % 2 == 0 else -refl)
    return out


# -- erfinv ------------------------------------------------------------------------------
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2
# erf(x) = x * sum_k ERF_TAYLOR[k] (x^2)^k, for |x| <= 0.95 (22 terms: < 1e-22 there)
ERF_TAYLOR = tuple(_TWO_OVER_SQRT_PI * (-1) ** k / (math.factorial(k) * (2 * k + 1))
                   for k in range(22))
_SPLIT = 134217729.0  # 2^27 + 1 (Veltkamp splitting)


def _erf_small(x):
    return x * _poly(ERF_TAYLOR, x * x)


def _erfcx(x):
    """exp(x^2) erfc(x) for 3/8 <= x <= 7."""
    y = 4.0 / (4.0 + x)
    return _poly(ERFCX_T, (2 * y - (ERFCX_YA + ERFCX_YB)) / (ERFCX_YB - ERFCX_YA))


def _exp_square(x):
    """exp(x^2), with x^2 split exactly into hi + lo so no rounding of x^2 is amplified."""
    c = _SPLIT * x
    xh = c - (c - x)
    xl = x - xh
    hi = x * x
    lo = ((xh * xh - hi) + 2 * xh * xl) + xl * xl
    return np.exp(hi) * (1 + lo)


def _halley(x, step):
    """One Halley step for erf(x) = y or erfc(x) = d, given step = f/f' (f''/f' = -2x)."""
    return x - step / (1 + x * step)


def erfinv(y):
    """The inverse of erf on [-1, 1]: +-inf at +-1, nan outside, -0.0 for -0.0."""
    y = _float64(y)
    out = np.full(y.shape, np.nan)
    a = np.abs(y)
    out[a == 1] = np.copysign(np.inf, y[a == 1])
    tiny = a < 1e-9  # erfinv(y) = sqrt(pi)/2 (y + pi/12 y^3 + ...): the cube is below 1 ulp
    out[tiny] = _SQRT_PI_OVER_2 * y[tiny]
    # Winitzki's approximation (relative error below 2e-3 on [0, 1)), then Halley steps
    central = ~tiny & (a <= 0.8)
    if central.any():
        v = a[central]
        x = _winitzki(np.log1p(-v * v))
        for _ in range(2):  # f = erf(x) - |y|: f/f' = sqrt(pi)/2 exp(x^2) (erf(x) - |y|)
            x = _halley(x, _SQRT_PI_OVER_2 * _exp_square(x) *
                        (_erf_small(np.minimum(x, 0.95)) - v))
        out[central] = np.copysign(x, y[central])
    tail = (a > 0.8) & (a < 1)
    if tail.any():
        d = 1 - a[tail]  # exact
        x = _winitzki(np.log(d) + np.log1p(1 - d))  # log(1 - y^2) = log(d (2 - d))
        for _ in range(3):  # f = erfc(x) - d: f/f' = sqrt(pi)/2 (d exp(x^2) - erfcx(x))
            x = _halley(x, _SQRT_PI_OVER_2 * (d * _exp_square(x) -
                                              _erfcx(np.clip(x, 0.375, 7.0))))
        out[tail] = np.copysign(x, y[tail])
    return out


def _winitzki(log1my2):
    k = 0.147
    t = 2 / (_PI * k) + 0.5 * log1my2
    return np.sqrt(np.sqrt(t * t - log1my2 / k) - t)


# -- modified Bessel functions -------------------------------------------------------------
def i0e(x):
    """The exponentially scaled i0, ``exp(-|x|) i0(x)`` (0 at +-inf)."""
    x = np.abs(_float64(x))
    out = np.empty(x.shape)
    m = x <= 8
    if m.any():
        out[m] = _chbevl(x[m] / 2 - 2, _I0_A)
    m = ~m
    if m.any():
        v = x[m]
        out[m] = _chbevl(32 / v - 2, _I0_B) / np.sqrt(v)
    return out


def i0(x):
    """The modified Bessel function of the first kind, order 0 (nan at +-inf, as torch)."""
    a = np.abs(_float64(x))
    return np.exp(a) * i0e(a)


def i1e(x):
    """The exponentially scaled i1, ``exp(-|x|) i1(x)`` (odd; 0 at +-inf)."""
    x = _float64(x)
    a = np.abs(x)
    out = np.empty(x.shape)
    m = a <= 8
    if m.any():
        v = a[m]
        out[m] = v * _chbevl(v / 2 - 2, _I1_A)
    m = ~m
    if m.any():
        v = a[m]
        out[m] = _chbevl(32 / v - 2, _I1_B) / np.sqrt(v)
    return np.where(x < 0, -out, out)


def i1(x):
    """The modified Bessel function of the first kind, order 1 (nan at +-inf, as torch)."""
    x = _float64(x)
    return np.exp(np.abs(x)) * i1e(x)
