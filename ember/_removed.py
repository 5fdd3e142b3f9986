"""Functions torch removed in 1.9 but still defines, so that old code fails with a pointer to
the replacement: ``torch.solve``, ``lstsq``, ``eig``, ``symeig``, ``matrix_rank`` (and the
first four as Tensor methods, with ``Tensor.reinforce``: ``_ops.REMOVED_METHODS``). Each raises RuntimeError, as
torch's do."""

__all__ = ['solve', 'lstsq', 'eig', 'symeig', 'matrix_rank']

_GONE = "This function was deprecated since version 1.9 and is now removed."


def _removed(name, params, advice, gone=_GONE + ' '):
    def fn(*args, **kwargs):
        raise RuntimeError(f"{gone}{advice}")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Removed ({name}({params})): {advice}"
    return fn


solve = _removed('solve', 'input, A', "`torch.solve(B, A).solution` is "
                 "`torch.linalg.solve(A, B)` (arguments reversed; for the LU factorization "
                 "see `torch.linalg.lu_factor`).")
lstsq = _removed('lstsq', 'input, A', "`torch.lstsq(B, A).solution` is "
                 "`torch.linalg.lstsq(A, B).solution` (arguments reversed; residuals in its "
                 "'residuals' field).")
eig = _removed('eig', 'self, eigenvectors=False', "Use `torch.linalg.eigvals(A)` or "
               "`torch.linalg.eig(A)`, which return complex tensors.")
symeig = _removed('symeig', 'input, eigenvectors=False, upper=True', "Use "
                  "`torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')` or "
                  "`torch.linalg.eigh(A, UPLO=...)` (the default triangle is now the lower one).")
matrix_rank = _removed('matrix_rank', 'input, tol=None, symmetric=False',
                       "Please use the `torch.linalg.matrix_rank` function instead ('symmetric' "
                       "is now 'hermitian').")
reinforce = _removed('reinforce', 'self, reward', "Sample with torch.distributions and "
                     "backpropagate -m.log_prob(action) * reward instead.",
                     gone="reinforce() was removed.\nUse torch.distributions instead.\n")
