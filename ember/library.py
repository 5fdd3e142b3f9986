"""``torch.library``: custom operators written in Python.

``@ember.library.custom_op("mylib::op", mutates_args=())`` turns a typed function into an
operator: callable directly and as ``ember.ops.mylib.op``, with a gradient formula from
``register_autograd(backward, setup_context=)``, a shape-only implementation for 'meta'
tensors from ``register_fake``, and torch's checks (an output may not alias an input; a
backward through an op without a formula raises). ``Library(ns, "DEF")`` with
``define(schema)``/``impl(name, fn)`` is the older, schema-first way to the same operators.

ember runs eagerly: there is no dispatcher, so a "kernel" is the Python function itself, and
``opcheck`` checks what ember can check (mutation, the autograd registration, the fake
implementation against the real one).
"""
import contextlib
import inspect
import typing
from collections.abc import Sequence

__all__ = ['custom_op', 'CustomOpDef', 'infer_schema', 'register_autograd', 'register_fake',
           'register_kernel', 'Library', 'define', 'impl', 'opcheck', 'get_ctx']


# -- schemas ---------------------------------------------------------------------------------------
def _schema_types():
    """{annotation: schema type} for parameters, as torch's infer_schema reads them."""
    import ember
    base = {ember.Tensor: 'Tensor', int: 'SymInt', float: 'float', bool: 'bool', str: 'str',
            ember.dtype: 'ScalarType', ember.device: 'Device',
            typing.Union[int, float, bool]: 'Scalar'}
    table = {}
    for py, name in base.items():
        table[py] = name
        table[typing.Optional[py]] = name + '?'
        if py in (ember.dtype, ember.device) or name == 'str':
            continue
        for seq in (typing.Sequence, typing.List, Sequence, list):
            table[seq[py]] = name + '[]'
            if name != 'Tensor':
                table[typing.Optional[seq[py]]] = name + '[]?'
            else:
                table[seq[typing.Optional[py]]] = 'Tensor?[]'
    return table


def _return_type(annotation, func):
    import ember
    if annotation is None or annotation is type(None):
        return '()'
    simple = {ember.Tensor: 'Tensor', int: 'SymInt', float: 'float', bool: 'bool'}
    if annotation in simple:
        return simple[annotation]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (list, typing.List, Sequence) and args == (ember.Tensor,):
        return 'Tensor[]'
    if origin is tuple and args and all(a in simple for a in args):
        return '(' + ', '.join(simple[a] for a in args) + ')'
    raise ValueError(f"infer_schema(func): Return has unsupported type {annotation}. Got func "
                     f"with signature {inspect.signature(func)})")


def _default_text(value, name, func):
    if value is None or isinstance(value, (bool, int, float, str)):
        return f'"{value}"' if isinstance(value, str) else str(value)
    raise ValueError(f"infer_schema(func): Parameter {name} has an unsupported default value "
                     f"type {type(value)}. Got func with signature {inspect.signature(func)})")


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """The operator schema of a typed function: ``(Tensor x, float k=1.0) -> Tensor``, each
    mutated Tensor parameter marked ``(a<i>!)`` (``mutates_args`` names them, or "unknown")."""
    sig = inspect.signature(prototype_function)
    table = _schema_types()
    parts, keyword_only, mutated = [], False, 0
    for name, p in sig.parameters.items():
        if p.annotation is inspect.Parameter.empty:
            raise ValueError(f"infer_schema(func): Parameter {name} must have a type annotation. "
                             f"Got func with signature {sig})")
        kind = table.get(p.annotation)
        if kind is None:
            raise ValueError(f"infer_schema(func): Parameter {name} has unsupported type "
                             f"{p.annotation}. Got func with signature {sig})")
        if p.kind is p.KEYWORD_ONLY and not keyword_only:
            parts.append('*')
            keyword_only = True
        if kind.startswith('Tensor') and (mutates_args == 'unknown' or name in mutates_args):
            kind = f'Tensor(a{mutated}!)' + kind[len('Tensor'):]
            mutated += 1
        text = f'{kind} {name}'
        if p.default is not inspect.Parameter.empty:
            text += '=' + _default_text(p.default, name, prototype_function)
        parts.append(text)
    if mutates_args != 'unknown':
        unknown = set(mutates_args) - set(sig.parameters)
        if unknown:
            raise ValueError(f"infer_schema(func): {sorted(unknown)[0]} in mutates_args is not a "
                             f"parameter. Got func with signature {sig})")
    ret = _return_type(sig.return_annotation if sig.return_annotation is not sig.empty
                       else None, prototype_function)
    return f"({', '.join(parts)}) -> {ret}"


def _split_name(qualname):
    ns, sep, name = qualname.partition('::')
    if not sep or not ns or not name:
        raise ValueError(f"Expected there to be a namespace in {qualname}, i.e. The operator "
                         f"name should look something like ns::foo")
    return ns, name


# -- the operators -----------------------------------------------------------------------------
_OPS = {}   # {"ns::name": CustomOpDef}


class _Ctx:
    """What ``get_ctx()`` returns inside a fake implementation (ember sizes are concrete)."""

    def new_dynamic_size(self, *, min=0, max=None):
        raise RuntimeError("ember has no symbolic sizes: a fake implementation cannot make a "
                           "data-dependent size")


def get_ctx():
    """The context of a running fake implementation."""
    return _Ctx()


def _tensors(values):
    import ember
    for v in values:
        if isinstance(v, ember.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


def _shares(a, b):
    import numpy as np
    return np.shares_memory(a._data, b._data)


class CustomOpDef:
    """A custom operator: call it (or ``ember.ops.<ns>.<name>``) like the function it wraps."""

    def __init__(self, namespace, name, schema, fn, mutates_args=()):
        self._namespace, self._name = namespace, name
        self._schema = schema
        self._init_fn = fn
        self._signature = inspect.signature(fn) if fn is not None else None
        self._mutates = mutates_args
        self._kernel = fn
        self._fake = None
        self._backward = self._setup_context = None
        self._function = None
        self.__name__ = name
        self.__doc__ = getattr(fn, '__doc__', None)

    def __repr__(self):
        return f'<CustomOpDef({self._namespace}::{self._name})>'

    def register_kernel(self, device_types, fn=None):
        """Uses ``fn`` as the implementation (on the CPU, the one device ember has)."""
        def inner(fn):
            self._kernel = fn
            return fn
        return inner(fn) if fn is not None else inner

    def register_fake(self, fn=None, /):
        """Uses ``fn`` for 'meta' inputs: it computes the outputs' shapes and dtypes only."""
        def inner(fn):
            self._fake = fn
            return fn
        return inner(fn) if fn is not None else inner

    def register_autograd(self, backward, /, *, setup_context=None):
        """The gradient formula: ``setup_context(ctx, inputs, output)`` saves what
        ``backward(ctx, *grads)`` needs; backward returns one gradient per input."""
        self._backward, self._setup_context = backward, setup_context
        self._function = None

    def _bound(self, args, kwargs):
        if self._signature is None:
            return args
        b = self._signature.bind(*args, **kwargs)
        b.apply_defaults()
        return tuple(b.arguments.values())

    def _run(self, inputs):
        """The implementation (or the fake one for 'meta' inputs), with torch's alias check."""
        import ember
        meta = any(t.device.type == 'meta' for t in _tensors(inputs))
        if meta:
            if self._fake is None:
                raise RuntimeError(f"There was no fake impl registered for "
                                   f"{self._namespace}::{self._name}. This is necessary for "
                                   "the operator to work on 'meta' tensors: use "
                                   "register_fake to add one.")
            return self._fake(*inputs)
        with ember.no_grad():
            out = self._kernel(*inputs)
        outputs = list(_tensors(out if isinstance(out, (tuple, list)) else (out,)))
        for o in outputs:
            if any(o is t or _shares(o, t) for t in _tensors(inputs)):
                raise RuntimeError(
                    f"{self._name} (with implementation in {self._kernel.__module__}): The "
                    "output of this custom operator (1) must not also be an input to this "
                    "custom operator and (2) may not alias any inputs to this custom operator "
                    "or other returns. Return a clone of the offending output tensor(s) (e.g. "
                    "return x.clone()) instead.")
        return out

    def __call__(self, *args, **kwargs):
        import ember
        from . import overrides
        if overrides.MODES and overrides._modes_on():  # (modes see it as torch.ops.<ns>.<op>)
            return overrides.handle_torch_function(self._overload(), list(_tensors(args)),
                                                   *args, **kwargs)
        inputs = self._bound(args, kwargs)
        tensors = list(_tensors(inputs))
        needs_grad = ember.is_grad_enabled() and any(t.requires_grad for t in tensors)
        if not needs_grad:
            return self._run(inputs)
        return self._autograd_function().apply(*inputs)

    def _overload(self):
        """``ember.ops.<ns>.<name>.default``, the name modes see this operator by."""
        from ._ops.op_namespace import ops
        return getattr(getattr(ops, self._namespace), self._name).default

    def _autograd_function(self):
        """An autograd Function running this op, named as torch names its node."""
        if self._function is not None:
            return self._function
        from .autograd import Function
        op = self
        label = f'{self._namespace}.{self._name}.default'

        def forward(*inputs):
            return op._run(inputs)

        def setup_context(ctx, inputs, output):
            if op._setup_context is not None:
                op._setup_context(ctx, inputs, output)

        def backward(ctx, *grads):
            if op._backward is None:
                raise RuntimeError(f"Trying to backward through {label} but no autograd formula "
                                   "was registered. Please use register_autograd to add one.")
            got = op._backward(ctx, *grads)
            return got if isinstance(got, tuple) else (got,)

        name = f"GeneratedBackwardFor_{self._namespace}_{self._name}_default"
        self._function = type(name, (Function,), {
            'forward': staticmethod(forward), 'setup_context': staticmethod(setup_context),
            'backward': staticmethod(backward), '__module__': 'ember.autograd.function'})
        return self._function


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    """Makes the typed function ``fn`` the operator ``name`` ("namespace::op_name"); as a
    decorator without ``fn``. ``mutates_args`` names the Tensor arguments it writes to (or
    "unknown"); ``schema`` overrides the one read from the annotations."""
    def inner(fn):
        text = schema if schema is not None else infer_schema(fn, mutates_args=mutates_args)
        ns, op_name = _split_name(name)
        op = CustomOpDef(ns, op_name, text, fn, mutates_args)
        _register(f'{ns}::{op_name}', op)
        return op
    return inner(fn) if fn is not None else inner


def _op(op):
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, str) and op in _OPS:
        return _OPS[op]
    inner = getattr(op, '_op', None)  # (ember.ops.<ns>.<name> and its .default)
    if isinstance(inner, CustomOpDef):
        return inner
    raise ValueError(f"register_*(op): got unexpected type for op: {type(op)} ({op!r}): use a "
                     "custom operator or its 'ns::name'")


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """``op.register_autograd(backward, setup_context=setup_context)`` for an operator given
    by name ("ns::name") or object."""
    _op(op).register_autograd(backward, setup_context=setup_context)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """``op.register_fake(func)``; as a decorator without ``func``."""
    return _op(op).register_fake(func) if func is not None else _op(op).register_fake


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """``op.register_kernel(device_types, func)``; as a decorator without ``func``."""
    return _op(op).register_kernel(device_types, func)


# -- schema-first operators ------------------------------------------------------------------
class Library:
    """Operators of namespace ``ns``: ``kind`` "DEF" defines new ones (``define``), "IMPL" and
    "FRAGMENT" add implementations (``impl``)."""

    def __init__(self, ns, kind, dispatch_key=''):
        if kind not in ('IMPL', 'DEF', 'FRAGMENT'):
            raise ValueError(f"Unsupported kind: {kind}")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._defined = []

    def __repr__(self):
        return f'Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>'

    def define(self, schema, alias_analysis='', *, tags=()):
        """Declares an operator from its schema ("name(Tensor x) -> Tensor"); returns its
        name. It runs once ``impl`` gives it an implementation."""
        name = schema.split('(', 1)[0].strip()
        qualname = f'{self.ns}::{name}'
        signature = schema[len(name):].strip()
        _register(qualname, CustomOpDef(self.ns, name, signature, None))
        self._defined.append(qualname)
        return name

    def impl(self, op_name, fn, dispatch_key='', *, with_keyset=False, allow_override=False):
        """Gives the operator ``op_name`` (defined here or elsewhere) the implementation
        ``fn`` (whatever the dispatch key: ember has one implementation per operator)."""
        name = op_name if isinstance(op_name, str) else op_name.__name__
        qualname = name if '::' in name else f'{self.ns}::{name}'
        op = _OPS.get(qualname)
        if op is None:
            raise RuntimeError(f"operator {qualname} was not defined: define it first")
        op._kernel = fn
        if op._signature is None:
            op._init_fn = fn
        return fn

    def _destroy(self):
        for qualname in self._defined:
            _register(qualname, None)
        self._defined = []


def _register(qualname, op):
    """Makes ``op`` the operator ``qualname`` ("ns::name"; None removes it), dropping the
    ``ember.ops.<ns>.<name>`` packet made for an operator of that name before."""
    if op is None:
        _OPS.pop(qualname, None)
    else:
        _OPS[qualname] = op
    from ._ops.op_namespace import ops
    ns, name = qualname.split('::', 1)
    space = ops.__dict__.get(ns)
    if space is not None:
        space.__dict__.pop(name, None)


@contextlib.contextmanager
def _scoped_library(ns, kind, dispatch_key=''):
    """A ``Library(ns, kind)`` for the ``with`` block: the operators it defined are removed
    at the end."""
    lib = Library(ns, kind, dispatch_key)
    try:
        yield lib
    finally:
        lib._destroy()


def define(qualname, schema, *, lib=None, tags=()):
    """Declares the operator ``qualname`` ("ns::name") with ``schema`` ("(Tensor x) ->
    Tensor"); ``impl`` then gives it an implementation."""
    ns, name = _split_name(qualname)
    (lib or Library(ns, 'FRAGMENT')).define(name + schema, tags=tags)


def impl(qualname, types, func=None, *, lib=None):
    """Gives operator ``qualname`` the implementation ``func`` (as a decorator without it)."""
    def inner(func):
        ns, name = _split_name(qualname)
        (lib or Library(ns, 'FRAGMENT')).impl(name, func)
        return func
    return inner(func) if func is not None else inner


# -- testing -------------------------------------------------------------------------------------
def opcheck(op, args, kwargs=None, *, test_utils=('test_schema', 'test_autograd_registration',
                                                   'test_faketensor'), raise_exception=True,
            atol=None, rtol=None):
    """Checks a custom operator on one call: the arguments it does not declare mutated are
    left as they were (test_schema), a call that needs a gradient has a formula
    (test_autograd_registration), and the fake implementation gives the real outputs' shapes
    and dtypes (test_faketensor). Returns {check: 'SUCCESS' or the exception}."""
    import ember
    op = _op(op)
    kwargs = kwargs or {}
    results = {}
    for check in ([test_utils] if isinstance(test_utils, str) else test_utils):
        try:
            {'test_schema': _check_schema, 'test_autograd_registration': _check_autograd,
             'test_faketensor': _check_fake}[check](op, args, kwargs, ember)
            results[check] = 'SUCCESS'
        except Exception as e:  # noqa: BLE001 - reported, or raised below
            if raise_exception:
                raise
            results[check] = e
    return results


def _clone_args(values, ember):
    return [v.detach().clone().requires_grad_(v.requires_grad) if isinstance(v, ember.Tensor)
            else v for v in values]


def _check_schema(op, args, kwargs, ember):
    before = [t.detach().clone() for t in _tensors(args)]
    op(*args, **kwargs)
    names = list(op._signature.parameters) if op._signature is not None else []
    for i, (old, new) in enumerate(zip(before, _tensors(args))):
        name = names[i] if i < len(names) else str(i)
        if op._mutates != 'unknown' and name not in op._mutates and \
                not ember.equal(old, new.detach()):
            raise RuntimeError(f"{op._namespace}::{op._name}: argument {name} was mutated but "
                               "is not in mutates_args")


def _check_autograd(op, args, kwargs, ember):
    if not any(t.requires_grad for t in _tensors(args)) or op._backward is not None:
        return
    out = op(*_clone_args(args, ember), **kwargs)
    if any(t.requires_grad for t in _tensors(out if isinstance(out, (tuple, list)) else (out,))):
        raise RuntimeError(f"{op._namespace}::{op._name}: the outputs require grad but no "
                           "autograd formula was registered (use register_autograd)")


def _check_fake(op, args, kwargs, ember):
    if op._fake is None:
        return
    real = op(*_clone_args(args, ember), **kwargs)
    meta_args = [v.detach().to('meta') if isinstance(v, ember.Tensor) else v for v in args]
    fake = op._fake(*meta_args, **kwargs)
    pairs = zip(_tensors(real if isinstance(real, (tuple, list)) else (real,)),
                _tensors(fake if isinstance(fake, (tuple, list)) else (fake,)))
    for r, f in pairs:
        if r.shape != f.shape or r.dtype != f.dtype:
            raise RuntimeError(f"{op._namespace}::{op._name}: the fake implementation gives "
                               f"{tuple(f.shape)} {f.dtype}, the real one {tuple(r.shape)} "
                               f"{r.dtype}")

