"""Which functions the fuzzer sweeps, and the argument template of each.

A *target* is one public callable of ember that torch also has: every name in the op registry
(``ember._ops._core.OPS`` as ``ember.<name>``, ``METHODS`` as ``Tensor.<name>``) and every
public function of ``nn.functional``, ``linalg``, ``fft`` and ``special``. Nothing is chosen
by hand except the few names that change global state or cannot be compared (``SKIP``).

A target's *templates* are its argument lists, read from torch at run time: the aten schemas
of the op (``aten::<name>`` with each overload, without the ``out=`` ones) or, for a Python
function, its ``inspect`` signature with argument kinds borrowed from the matching schema or
guessed from names and defaults. So an op another branch adds is swept as soon as it is
registered.
"""
import inspect
from dataclasses import dataclass

import torch

import ember
import ember.nn.functional  # noqa: F401 - loads the lazy namespace
from ember._ops._core import METHODS, OPS

# Names that change process-wide state, do I/O, or hand back something that cannot be
# compared between the libraries (addresses, storages, callables).
SKIP = {
    'set_default_dtype', 'set_default_device', 'set_default_tensor_type', 'manual_seed', 'seed',
    'initial_seed', 'set_rng_state', 'get_rng_state', 'set_printoptions', 'set_num_threads',
    'set_num_interop_threads', 'use_deterministic_algorithms', 'set_grad_enabled', 'save',
    'load', 'compile', 'from_file', 'set_flush_denormal', 'set_warn_always',
    'set_anomaly_enabled', 'data_ptr', 'storage', 'untyped_storage', 'share_memory_',
    'pin_memory', 'is_pinned', 'cuda', 'cpu', 'backward', 'register_hook',
    'register_post_accumulate_grad_hook', 'retain_grad', 'apply_', 'map_', 'map2_',
    'record_stream', 'is_shared', 'set_', 'numpy', 'tolist', 'item', '__reduce_ex__',
    'from_numpy', 'frombuffer', 'as_strided', 'as_strided_', 'as_strided_scatter',
    'from_dlpack', 'to_dlpack', '__dlpack__', '__dlpack_device__', 'asarray', 'pickle',
    'storage_offset', 'typename', 'is_storage', 'get_default_dtype', 'get_device',
    'is_grad_enabled', 'is_inference_mode_enabled', 'vmap', 'cond', 'while_loop',
    'sym_int', 'sym_float', 'sym_max', 'sym_min', 'sym_not', 'sym_ite', 'sym_sum',
    'sym_fresh_size', 'broadcast_shapes', 'is_nonzero', 'resize_', 'resize_as_',
    'nested_tensor', 'sparse_coo_tensor', 'to_sparse', 'to_dense', 'dim_order',
    # sparse results (compared by tests/sparse/test_sparse_oracle.py; the fuzzer reads
    # dense arrays only)
    'sparse_csr_tensor', 'sparse_csc_tensor', 'sparse_bsr_tensor', 'sparse_bsc_tensor',
    'sparse_compressed_tensor', 'to_sparse_coo', 'to_sparse_csr',
}

# Ops whose values are random or undefined: only dtype, shape and structure are compared.
# (svd_lowrank/pca_lowrank start from a random matrix: their singular vectors, and beyond
# the input's rank their values, depend on the generator, which differs from torch's)
RANDOM_WORDS = ('rand', 'empty', 'dropout', 'rrelu', 'gumbel', 'bernoulli', 'multinomial',
                'normal', 'poisson', 'cauchy', 'exponential_', 'geometric', 'uniform',
                'random_', 'lowrank')


@dataclass
class Arg:
    """One argument of a template: its name, kind ('Tensor', 'int', 'List[int]', 'number',
    'float', 'bool', 'str', 'ScalarType', 'List[Tensor]', ...), whether it is optional (may be
    None), whether it has a default (may be left out), the default, and keyword-only."""
    name: str
    kind: str
    optional: bool
    has_default: bool
    default: object
    kwarg_only: bool


@dataclass
class Target:
    """A callable to sweep: its display name, how to reach it in each library, whether it is
    a Tensor method (the argument called ``self`` becomes the receiver) and its templates."""
    name: str
    space: str      # 'torch', 'Tensor', 'F', 'linalg', 'fft', 'special'
    attr: str
    templates: list
    out: bool = False  # torch's function takes one ``out=`` tensor
    inplace: bool = False  # torch's function takes ``inplace=`` (nn.functional's activations)

    @property
    def method(self):
        return self.space == 'Tensor'

    @property
    def random(self):
        return any(w in self.attr for w in RANDOM_WORDS) or any(
            a.kind == 'Generator' for t in self.templates for a in t)

    def resolve(self, lib):
        """The callable in ``lib`` (ember or torch); for methods, the unbound method."""
        if self.space == 'torch':
            return getattr(lib, self.attr)
        if self.space == 'Tensor':
            return getattr(lib.Tensor, self.attr)
        if self.space == 'F':
            return getattr(lib.nn.functional, self.attr)
        return getattr(getattr(lib, self.space), self.attr)


_UNSUPPORTED = ('Dimname', 'Storage', 'Stream', 'Device', 'Layout', 'MemoryFormat', '__torch__',
                'Dict', 'Any', 'Future', 'RRef', 't', 't1', 't2', 'AnyEnumType')


def _kind(real_type):
    s = str(real_type)
    opt = s.startswith('Optional[')
    if opt:
        s = s[len('Optional['):-1]
    return s.replace('SymInt', 'int'), opt


def _from_schema(schema):
    args = []
    for a in schema.arguments:
        kind, opt = _kind(a.real_type)
        if a.alias_info is not None and a.alias_info.is_write and a.name != 'self':
            return None  # an out= overload
        if kind in _UNSUPPORTED or kind.split('[')[-1].rstrip(']') in _UNSUPPORTED:
            if not (opt or a.default_value is not None or a.kwarg_only):
                return None
            continue  # optional device/layout/memory_format...: left at the default
        if kind == 'Generator' or a.name in ('pin_memory', 'non_blocking', 'copy'):
            continue
        has_default = a.default_value is not None or opt
        args.append(Arg(a.name, kind, opt, has_default, a.default_value, a.kwarg_only))
    return args


def schemas(aten_name):
    """The usable templates of ``aten::<aten_name>`` (one per overload, out= ones left out)."""
    try:
        found = torch._C._jit_get_schemas_for_operator('aten::' + aten_name)
    except RuntimeError:
        return []
    out = []
    for s in found:
        if 'out' in s.overload_name or 'Dimname' in s.overload_name:
            continue
        t = _from_schema(s)
        if t is not None and t not in out:
            out.append(t)
    return out


_TENSOR_NAMES = {'input', 'x', 'x1', 'x2', 'weight', 'bias', 'target', 'other', 'tensor', 'A',
                 'B', 'log_probs', 'targets', 'anchor', 'positive', 'negative', 'query', 'key',
                 'value', 'mat', 'vec', 'input1', 'input2', 'grid', 'theta', 'offsets',
                 'running_mean', 'running_var', 'var', 'attn_mask', 'pos_weight', 'indices',
                 'LU', 'pivots', 'b', 'y', 'logits', 'labels', 'mask', 'tensors', 'end',
                 'start', 'src', 'index', 'self'}
_STR_CHOICES = {'reduction': ['mean', 'sum', 'none'], 'rounding_mode': [None, 'trunc', 'floor'],
                'interpolation': ['linear', 'lower', 'higher', 'midpoint', 'nearest'],
                'side': ['left', 'right'], 'approximate': ['none', 'tanh'],
                'UPLO': ['L', 'U'], 'norm': [None, 'forward', 'backward', 'ortho'],
                'padding_mode': ['zeros', 'border', 'reflection'],
                'mode': ['bilinear', 'nearest', 'constant', 'reflect', 'replicate', 'circular'],
                'indexing': ['ij', 'xy'], 'padding': ['valid', 'same', 0, 1],
                'driver': [None], 'compute_mode': [None]}


def _guess(p, schema_args):
    """An Arg for Python parameter ``p``: kind from the schema argument of the same name if
    there is one, else from the default's type and the name."""
    by_name = {a.name: a for a in schema_args}
    name = p.name
    match = by_name.get(name) or (by_name.get('self') if name in ('input', 'A') else None)
    has_default = p.default is not inspect.Parameter.empty
    default = p.default if has_default else None
    kw = p.kind == inspect.Parameter.KEYWORD_ONLY
    if match is not None:
        return Arg(name, match.kind, match.optional or default is None and has_default,
                   has_default, default, kw)
    if name in _STR_CHOICES or isinstance(default, str):
        return Arg(name, 'str', True, has_default, default, kw)
    if isinstance(default, bool):
        return Arg(name, 'bool', False, True, default, kw)
    if isinstance(default, int):
        return Arg(name, 'int', False, True, default, kw)
    if isinstance(default, float):
        return Arg(name, 'float', False, True, default, kw)
    if name in _TENSOR_NAMES or (name.endswith('s') and name[:-1] in _TENSOR_NAMES):
        kind = 'List[Tensor]' if name == 'tensors' else 'Tensor'
        return Arg(name, kind, has_default, has_default, default, kw)
    if 'dim' in name:
        return Arg(name, 'int', has_default, has_default, default, kw)
    if name == 'dtype':
        return Arg(name, 'ScalarType', True, has_default, default, kw)
    if has_default:
        return None  # an option we cannot guess: left at its default
    return Arg(name, 'number', False, False, None, kw)


def _from_signature(fn, aten_names):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    schema_args = [a for n in aten_names for t in schemas(n) for a in t]
    out = []
    for p in sig.parameters.values():
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            if p.kind == inspect.Parameter.VAR_POSITIONAL and not out:
                return None  # f(*tensors) / f(*size): the schema describes it better
            continue
        if p.name.startswith('_') or p.name in ('out', 'inplace', 'generator', 'layout',
                                                'device', 'pin_memory', 'memory_format'):
            continue
        a = _guess(p, schema_args)
        if a is not None:
            out.append(a)
    return [out]


def _takes_out(space, attr, tfn):
    """Whether torch's function takes one ``out=`` tensor: an aten overload of it writes
    only an argument called ``out`` (a Python function must also have that parameter)."""
    if space == 'Tensor':
        return False
    try:
        if 'out' not in inspect.signature(tfn).parameters:
            return False
    except (TypeError, ValueError):
        pass  # (a builtin: its schema says)
    try:
        found = torch._C._jit_get_schemas_for_operator('aten::' + _aten_names(space, attr)[0])
    except RuntimeError:
        return False
    return any([a.name for a in s.arguments if a.alias_info is not None and
                a.alias_info.is_write] == ['out'] and len(s.returns) == 1 for s in found)


# Operators whose aten op has another name (their templates come from it): a / b is div,
# a % b remainder, ~a bitwise_not, the reflected and in-place forms the plain ops.
_OPERATOR_ATEN = {
    'truediv': 'div', 'mod': 'remainder', 'invert': 'bitwise_not', 'pos': 'positive',
    'rfloordiv': 'floor_divide', 'rmod': 'remainder', 'rmatmul': 'matmul', 'rdiv': 'div',
    'rand': 'bitwise_and', 'ror': 'bitwise_or', 'rxor': 'bitwise_xor',
    'rlshift': '__lshift__', 'rrshift': '__rshift__',
    'iadd': 'add_', 'isub': 'sub_', 'imul': 'mul_', 'itruediv': 'div_', 'idiv': 'div_',
    'ifloordiv': 'floor_divide_', 'imod': 'remainder_', 'ipow': 'pow_',
    'iand': '__iand__', 'ior': '__ior__', 'ixor': '__ixor__', 'ilshift': '__ilshift__',
    'irshift': '__irshift__'}


def _aten_names(space, attr):
    if space == 'linalg':
        return ['linalg_' + attr]
    if space == 'fft':
        return ['fft_' + attr]
    if space == 'special':
        return ['special_' + attr, attr]
    if attr.startswith('__'):
        inner = attr[2:-2]
        if inner in _OPERATOR_ATEN:
            return [_OPERATOR_ATEN[inner]]
        return [inner, '__' + inner + '__', inner[1:]] if inner.startswith('r') else [
            inner, '__' + inner + '__']
    return [attr, '_' + attr]


def _make(name, space, attr):
    tfn = None
    try:
        tfn = Target(name, space, attr, []).resolve(torch)
        Target(name, space, attr, []).resolve(ember)
    except AttributeError:
        return None
    if not callable(tfn):
        return None
    names = _aten_names(space, attr)
    templates = None
    if space in ('F', 'linalg', 'fft', 'special') or not isinstance(tfn, type(len)):
        templates = _from_signature(tfn, names)
    if not templates:
        templates = [t for n in names for t in schemas(n)][:6]
    if not templates:
        return None
    try:
        inplace = space == 'F' and 'inplace' in inspect.signature(tfn).parameters
    except (TypeError, ValueError):
        inplace = False
    return Target(name, space, attr, templates, _takes_out(space, attr, tfn), inplace)


def all_targets():
    """Every target, in a fixed order."""
    found = []
    for n in sorted(OPS):
        # (torch's private ops stay out, except the _foreach_ family scripts call and the
        # private softmaxes library code calls)
        if n not in SKIP and (not n.startswith('_') or n.startswith('_foreach_') or
                              n in ('_softmax', '_log_softmax', '_masked_softmax')):
            found.append(_make(n, 'torch', n))
    for n in sorted(METHODS):
        if n not in SKIP and not (n.startswith('_') and not n.startswith('__')):
            if n.startswith('__') and n[2:-2] not in (
                    'add', 'sub', 'mul', 'truediv', 'floordiv', 'mod', 'pow', 'matmul', 'and',
                    'or', 'xor', 'lshift', 'rshift', 'neg', 'abs', 'invert', 'radd', 'rsub',
                    'rmul', 'rtruediv', 'rpow', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'getitem',
                    *_OPERATOR_ATEN):
                continue
            found.append(_make('Tensor.' + n, 'Tensor', n))
    for space, mod in (('F', ember.nn.functional), ('linalg', ember.linalg),
                       ('fft', ember.fft), ('special', getattr(ember, 'special', None))):
        if mod is None:
            continue
        for n in sorted(dir(mod)):
            if n.startswith('_') or n in SKIP or isinstance(getattr(mod, n), type):
                continue
            if not callable(getattr(mod, n)) or inspect.ismodule(getattr(mod, n)):
                continue
            found.append(_make(f'{space}.{n}', space, n))
    return [t for t in found if t is not None]
