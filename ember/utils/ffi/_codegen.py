"""The C that ember adds to a cffi module: the cdef prelude (what cffi must know of ember's
header) and the source prelude, with a call wrapper entry for each C function of the user's
headers whose parameters and result ember can convert (tensors, numbers, strings).

Functions with other parameters (``float *``, structs, variadic...) stay plain cffi
functions, called with cffi objects. The conversions themselves live in C, in
``include/ember/ember_c_module.h`` (and the helpers in ``ember_c_impl.h``); what is generated
per function is one line calling it (a *thunk*) and a row of the table describing its
parameters.
"""
import os

__all__ = ['EMBER_INCLUDE', 'MACROS', 'CDEF_PRELUDE', 'INSTALL', 'module_source', 'wrappable']

# The directory holding <ember/ember_c.h>.
EMBER_INCLUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'include')

# The function each module exports for ember (through cffi) to get its wrapped functions.
INSTALL = 'ember__install'

# ember's module code uses CPython's full API (fast calls, type names), not the limited API
# cffi's modules use by default; the module is then built for one Python version.
MACROS = (('_CFFI_NO_LIMITED_API', None),)

# cffi needs only the name of ember's tensor struct: C functions take pointers to it.
CDEF_PRELUDE = f'typedef struct EmberTensor EmberTensor;\nint {INSTALL}(const char *key);\n'

_MAX_ARGS = 16  # EMBER_MAX_ARGS in ember_c_module.h

# cffi's primitive type names ember passes as numbers ("long double" has no C conversion).
_FLOATS = ('float', 'double')


def _kind(tp, result=False):
    """How ember converts a value of cffi type ``tp`` (a ``cffi.model`` type): 'tensor',
    'int', 'float', 'bool', 'string', 'void' (results only), or None (not convertible)."""
    from cffi import model
    if isinstance(tp, model.PointerType):
        target = tp.totype
        if isinstance(target, model.StructType) and target.name == 'EmberTensor':
            return 'tensor'
        if (not result and isinstance(target, model.PrimitiveType) and target.name == 'char'
                and tp.quals & model.Q_CONST):
            return 'string'
        return None
    if isinstance(tp, model.VoidType):
        return 'void' if result else None
    if isinstance(tp, model.PrimitiveType):
        if tp.name == '_Bool':
            return 'bool'
        if tp.name in _FLOATS:
            return 'float'
        if tp.is_integer_type() and tp.name != 'char':
            return 'int'
    return None


def declared_functions(ffi):
    """{name: cffi function type} of the functions declared in ``ffi``'s cdef, in order.
    (cffi keeps its parsed declarations in ``_parser._declarations``, which its own code
    generator reads: there is no public listing before a module is compiled.)"""
    functions = {}
    for key, (tp, _) in ffi._parser._declarations.items():
        kind, _, name = key.partition(' ')
        if kind == 'function' and name != INSTALL:
            functions[name] = tp
    return functions


def wrappable(tp):
    """True if ember can call a function of cffi type ``tp`` with Python values."""
    return (not tp.ellipsis and len(tp.args) <= _MAX_ARGS and _kind(tp.result, True) is not None
            and all(_kind(a) is not None for a in tp.args))


def _c_type(tp):
    return tp.get_c_name()


def _argument(tp, i):
    kind = _kind(tp)
    value = f'a[{i}]'
    if kind == 'tensor':
        return f'{value}.tensor'
    if kind == 'int':
        t = _c_type(tp)
        return f'(((({t}) -1) < 0) ? ({t}) {value}.i : ({t}) {value}.u)'
    if kind == 'float':
        return f'({_c_type(tp)}) {value}.f'
    if kind == 'bool':
        return f'(_Bool) {value}.b'
    return f'{value}.s'


def _store(tp, call):
    """The statement calling the function and storing its result in ``*r``."""
    kind = _kind(tp, True)
    if kind == 'void':
        return f'{call};'
    if kind == 'tensor':
        return f'r->tensor = (EmberTensor *) {call};'
    if kind == 'int':
        t = _c_type(tp)
        return (f'{t} v = {call}; if ((({t}) -1) < 0) r->i = (long long) v; '
                f'else r->u = (unsigned long long) v;')
    if kind == 'float':
        return f'r->f = (double) {call};'
    return f'r->b = {call} != 0;'


def _type_row(tp, result=False):
    """An ``EmberType`` initializer: the kind (signedness decided by the compiler)."""
    kind = _kind(tp, result)
    name = _c_type(tp).replace('"', '')
    if kind == 'int':
        t = _c_type(tp)
        return f'{{((({t}) -1) < 0) ? EMBER_K_SIGNED : EMBER_K_UNSIGNED, sizeof({t}), "{name}"}}'
    size = 0 if kind == 'void' else f'sizeof({_c_type(tp)})'
    return f'{{EMBER_K_{kind.upper()}, {size}, "{name}"}}'


def signature(name, tp):
    """The function's C declaration (without parameter names, which cffi drops)."""
    args = ', '.join(_c_type(a) for a in tp.args) or 'void'
    return f'{_c_type(tp.result)} {name}({args})'


def module_source(ffi, headers_text):
    """The source prelude of the cffi module (``ffi.set_source``'s ``source``): ember's
    header, the user's headers, ember's module code, and the call wrappers' table."""
    lines = ['#include <ember/ember_c.h>', '', headers_text, '',
             '#include <ember/ember_c_module.h>', '']
    rows = []
    for i, (name, tp) in enumerate(declared_functions(ffi).items()):
        if not wrappable(tp):
            continue
        call = f'{name}({", ".join(_argument(a, j) for j, a in enumerate(tp.args))})'
        lines.append(f'static void ember__thunk_{i}(const EmberValue *a, EmberValue *r) {{')
        lines.append(f'  (void) a; (void) r; {_store(tp.result, call)}')
        lines.append('}')
        params = 'NULL'
        if tp.args:
            lines.append(f'static const EmberType ember__params_{i}[] = '
                         f'{{{", ".join(_type_row(a) for a in tp.args)}}};')
            params = f'ember__params_{i}'
        rows.append(f'  {{"{name}", "{signature(name, tp)}", {len(tp.args)}, {params}, '
                    f'{_type_row(tp.result, True)}, ember__thunk_{i}}},')
    table = '\n'.join(rows) or '  {NULL, NULL, 0, NULL, {EMBER_K_VOID, 0, ""}, NULL}'
    lines += ['static const EmberFunction ember__functions[] = {', table, '};',
              f'static int {INSTALL}(const char *key) {{',
              f'  return ember__install_table(key, ember__functions, {len(rows)});', '}', '']
    return '\n'.join(lines)
