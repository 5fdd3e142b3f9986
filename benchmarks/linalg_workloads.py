"""ember.linalg workloads (issue 14): the factorizations and solvers added with the LU
family, against torch. No target: the issue asks for coverage; these show where ember's
NumPy/LAPACK kernels stand (LU goes through scipy's getrf when scipy is installed, else a
NumPy loop over columns -- run with EMBER_NO_SCIPY=1 to time that one)."""
import numpy as np

from workloads import workload

_RNG = np.random.default_rng(0)
_SMALL = _RNG.standard_normal((64, 8, 8)) + 16 * np.eye(8)   # a batch of small matrices
_BIG = _RNG.standard_normal((256, 256)) + 256 * np.eye(256)
_RHS = _RNG.standard_normal((256, 64))
_EXP = 0.3 * _RNG.standard_normal((16, 16, 16))


@workload()
def lu_factor_64x8x8(lib):
    """linalg.lu_factor of 64 float64 8x8 matrices."""
    x = lib.tensor(_SMALL)
    return lambda: lib.linalg.lu_factor(x).LU


@workload()
def lu_factor_256(lib):
    """linalg.lu_factor of one float64 256x256 matrix."""
    x = lib.tensor(_BIG)
    return lambda: lib.linalg.lu_factor(x).LU


@workload()
def lu_solve_fwd_bwd(lib):
    """lu_factor + lu_solve of a 256x256 system with 64 right-hand sides, then backward."""
    a = lib.tensor(_BIG, requires_grad=True)
    b = lib.tensor(_RHS, requires_grad=True)

    def run():
        a.grad = b.grad = None
        lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b).sum().backward()
        return a.grad
    return run


@workload()
def solve_triangular_256(lib):
    """linalg.solve_triangular, upper 256x256 float64, 64 right-hand sides."""
    a, b = lib.tensor(np.triu(_BIG)), lib.tensor(_RHS)
    return lambda: lib.linalg.solve_triangular(a, b, upper=True)


@workload()
def matrix_exp_16x16x16(lib):
    """linalg.matrix_exp of 16 float64 16x16 matrices."""
    x = lib.tensor(_EXP)
    return lambda: lib.linalg.matrix_exp(x)


@workload()
def eig_64(lib):
    """linalg.eig of a float64 64x64 matrix."""
    x = lib.tensor(_BIG[:64, :64])
    return lambda: lib.linalg.eig(x).eigenvalues


@workload()
def householder_product_128x64(lib):
    """linalg.householder_product of geqrf's 128x64 float64 result."""
    a, tau = lib.geqrf(lib.tensor(_BIG[:128, :64]))
    return lambda: lib.linalg.householder_product(a, tau)
