"""Global switches scripts set at the top: float32 matmul precision and deterministic
algorithms. ember records them as torch does and answers with them; its NumPy kernels are
always deterministic and always compute float32 matmuls in float32, so neither changes a
result."""
import warnings

__all__ = ['set_float32_matmul_precision', 'get_float32_matmul_precision',
           'use_deterministic_algorithms', 'are_deterministic_algorithms_enabled',
           'is_deterministic_algorithms_warn_only_enabled', 'set_deterministic_debug_mode',
           'get_deterministic_debug_mode']

_STATE = {'precision': 'highest', 'deterministic': False, 'warn_only': False}
_MODES = ('default', 'warn', 'error')


def set_float32_matmul_precision(precision):
    """Records 'highest', 'high' or 'medium' (any other string warns and is ignored).

    >>> ember.set_float32_matmul_precision('high'); ember.get_float32_matmul_precision()
    'high'
    >>> ember.set_float32_matmul_precision('highest')
    """
    if not isinstance(precision, str):
        raise RuntimeError(f'set_float32_matmul_precision expects a str, but got '
                           f'{type(precision).__name__}')
    if precision not in ('highest', 'high', 'medium'):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      'setFloat32MatmulPrecision call has no effect.', stacklevel=2)
        return
    _STATE['precision'] = precision


def get_float32_matmul_precision():
    """The last precision set ('highest' by default)."""
    return _STATE['precision']


def _check_bool(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument '{name}'"
                        f"{' (position 1)' if name == 'mode' else ''} must be bool, not "
                        f'{type(value).__name__}')


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records the switch (ember's ops are deterministic either way).

    >>> ember.use_deterministic_algorithms(True); ember.are_deterministic_algorithms_enabled()
    True
    >>> ember.use_deterministic_algorithms(False)
    """
    _check_bool(mode, 'mode')
    _check_bool(warn_only, 'warn_only')
    _STATE['deterministic'], _STATE['warn_only'] = mode, warn_only


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return _STATE['deterministic']


def is_deterministic_algorithms_warn_only_enabled():
    """Whether it was set with ``warn_only=True``."""
    return _STATE['warn_only']


def set_deterministic_debug_mode(debug_mode):
    """The same switch by level: 'default'/0 off, 'warn'/1 warn only, 'error'/2 on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _MODES:
            raise RuntimeError('invalid value of debug_mode, expected one of `default`, `warn`, '
                               f'`error`, but got {debug_mode}')
        debug_mode = _MODES.index(debug_mode)
    elif not isinstance(debug_mode, int):
        raise TypeError(f'debug_mode must be str or int, but got {type(debug_mode)}')
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f'invalid value of debug_mode, expected 0, 1, or 2, but got '
                           f'{debug_mode}')
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """0, 1 or 2, as ``set_deterministic_debug_mode`` takes it."""
    if not _STATE['deterministic']:
        return 0
    return 1 if _STATE['warn_only'] else 2
