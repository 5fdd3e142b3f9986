"""Writes ``ember/_ops/_signatures.py``: torch's Python-level signatures of its public ops.

A development tool (it imports real torch; ember never does at run time). Run it from the
repository root after upgrading the torch the tests compare against:

    python tools/gen_signatures.py

What it records are facts about torch's interface -- each public callable's overloads, as
its argument parser states them (names, types, defaults, keyword-only markers, hidden
deprecated forms), which ops take a Python number where their signature says Tensor, and
which dtypes an op refuses -- gathered as follows:

* the signature texts sit as strings in torch's ``libtorch_python`` library; they carry the
  op's C-level name but not which callable (``torch.max`` or ``Tensor.max``) uses them;
* each callable is asked which of them are its own by calling it with arguments its parser
  must refuse: with several overloads it lists them ("expected one of: ..."), with one it
  states its positional range and required names, which pick the text out;
* dtype support is probed on small tensors of every dtype: an op whose kernel is missing
  for a dtype raises NotImplementedError "... not implemented for 'ComplexFloat'".
"""
import ast
import inspect
import os
import re
import textwrap
import subprocess
import sys
import warnings

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, 'ember', '_ops', '_signatures.py')
REFUSALS = os.path.join(ROOT, 'ember', '_ops', '_dtype_refusals.py')
sys.path.insert(0, ROOT)


def pool():
    """{C-level name: [signature text, ...]} from the strings in libtorch_python."""
    lib = os.path.join(os.path.dirname(torch.__file__), 'lib', 'libtorch_python.so')
    text = subprocess.run(['strings', '-n', '6', lib], capture_output=True, text=True,
                          check=True).stdout
    found = {}
    for line in text.splitlines():
        if re.fullmatch(r'[a-z_0-9]+\((.*)\)(\|(deprecated|hidden))?', line) and \
                ') ' not in line.split('|')[0][:-1]:
            found.setdefault(line[:line.index('(')], []).append(line)
    return found


_DISPLAY = [  # the parser's type names -> how its messages print them
    (r'^(Sym)?IntArrayRef(\[\d+\])?$', 'tuple of ints'), (r'^TensorList(\[\d+\])?$',
                                                         'tuple of Tensors'),
    (r'^Scalar$', 'Number'), (r'^ScalarType$', 'torch.dtype'), (r'^(int64_t|SymInt)$', 'int'),
    (r'^double$', 'float'), (r'^(c10::string_view|std::string_view|std::string)$', 'str'),
    (r'^Generator$', 'torch.Generator'), (r'^Layout$', 'torch.layout'),
    (r'^Device$', 'torch.device'), (r'^MemoryFormat$', 'torch.memory_format'),
    (r'^ArrayRef<double>$', 'tuple of floats'), (r'^ScalarList$', 'tuple of Scalars'),
    (r'^c10::List<::std::optional<Tensor>>$', 'tuple of Tensors'),
    (r'^Storage$', 'torch.Storage'), (r'^PyObject\*$', 'object'),
]


def display(sig):
    """A parser text as torch's "expected one of" listing prints it."""
    inner = sig.split('|')[0]
    inner = inner[inner.index('(') + 1:-1]
    parts = []
    for p in inner.split(', ') if inner else []:
        if p == '*':
            parts.append(p)
            continue
        decl, eq, default = p.partition('=')
        ty, name = decl.rsplit(' ', 1)
        ty = ty.rstrip('?')
        for pat, rep in _DISPLAY:
            if re.match(pat, ty):
                ty = rep
                break
        parts.append(f'{ty} {name}' + (f' = {default}' if eq else ''))
    return '(' + ', '.join(parts) + ')'


def _fields(sig):
    """(parameter names, required names -- keyword-only ones too --, number of positional
    parameters)."""
    inner = sig.split('|')[0]
    inner = inner[inner.index('(') + 1:-1]
    names, required, npos = [], [], None
    for p in inner.split(', ') if inner else []:
        if p == '*':
            npos = len(names)
            continue
        decl, eq, _ = p.partition('=')
        names.append(decl.rsplit(' ', 1)[1])
        if not eq:  # (torch's "missing ... required" lists keyword-only ones too)
            required.append(names[-1])
    return names, required, len(names) if npos is None else npos


def _probe(fn, self):
    """The parser's messages for a call with 40 positional objects and for one with an
    unknown keyword only."""
    msgs = []
    for args, kwargs in (((object(),) * 40, {}), ((), {'__probe__': 1})):
        if self is not None:
            args = (self,) + args
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                fn(*args, **kwargs)
            msgs.append('')
        except Exception as e:  # noqa: BLE001 - the message is what is probed
            msgs.append(f'{type(e).__name__}: {e}')
    return msgs


def select(cname, fn, self, candidates):
    """The texts among ``candidates`` that are ``fn``'s overloads, or None when ``fn``
    parses no signature (a Python function, a method without arguments ...)."""
    many, kw = _probe(fn, self)
    if 'expected one of:' in many or 'but expected (' in many:
        if 'expected one of:' in many:
            listed = [ln.strip()[2:] for ln in many.split('expected one of:')[1].splitlines()
                      if ln.strip().startswith('* (')]
        else:  # one listed overload beside hidden ones
            listed = ['(' + many.split('but expected (', 1)[1].splitlines()[0]]
        chosen = []
        for d in listed:
            match = [c for c in candidates if '|' not in c and display(c) == d]
            chosen.append(match[0] if match else cname + d.replace(' = ', '='))
        # hidden (deprecated) forms: a function's name its tensor 'input', a method's not
        hidden = [c for c in candidates if '|' in c and
                  (' input' in c.split('|')[0]) == (self is None)]
        if not hidden and 'but expected (' in many:
            # torch lists one overload only beside others it hides: keep that fact
            hidden = [cname + '()|unlisted']
        chosen.extend(hidden)
        return chosen
    if 'takes no arguments' in many:
        return ['%s()|noargs' % cname]
    m = re.search(r'takes (?:from (\d+) to )?(\d+) positional arguments? but', many)
    if not m:
        return None
    npos = int(m.group(2))
    req = re.search(r'missing \d+ required positional arguments?: (.*)$', kw)
    required = re.findall(r'"(\w+)"', req.group(1)) if req else []
    match = [c for c in candidates if '|' not in c and _fields(c)[2] == npos and
             _fields(c)[1] == required]
    if not match:
        return None
    return [match[0]]


# the private ops ember exports too (code written for torch calls them)
_PRIVATE = ('_log_softmax', '_masked_softmax', '_softmax')


def callables():
    """(public name as ember keys it, C-level name, callable, self or None)."""
    t = torch.ones(2, 2)
    out = []
    for name in sorted(dir(torch._C._VariableFunctions)):
        fn = getattr(torch, name, None)
        # (the ``_foreach_`` ops are private but what optimizers call, by keyword too)
        if (not name.startswith('_') or name.startswith('_foreach_') or name in _PRIVATE) and \
                callable(fn) and \
                type(fn).__name__ == 'builtin_function_or_method':
            out.append((name, name, fn, None))
    for name in sorted(dir(torch._C.TensorBase)):
        fn = getattr(torch._C.TensorBase, name)
        if type(getattr(torch.Tensor, name, None)).__name__ == 'function':
            continue  # torch.Tensor redefines it in Python: it parses no signature
        if (not name.startswith('_') or name.startswith('__') and name not in (
                '__init__', '__new__', '__reduce_ex__', '__dir__', '__sizeof__', '__repr__',
                '__init_subclass__', '__subclasshook__', '__getattribute__', '__setattr__',
                '__delattr__', '__format__', '__reduce__', '__class__', '__doc__', '__str__',
                '__hash__')) and type(fn).__name__ == 'method_descriptor':
            out.append(('Tensor.' + name, name, fn, t.clone()))
    spaces = (('nn.functional.', torch.nn.functional, ''), ('linalg.', torch.linalg, 'linalg_'),
              ('fft.', torch.fft, 'fft_'), ('special.', torch.special, 'special_'))
    for prefix, mod, cprefix in spaces:
        for name in sorted(dir(mod)):
            fn = getattr(mod, name)
            if not name.startswith('_') and type(fn).__name__ == 'builtin_function_or_method':
                out.append((prefix + name, cprefix + name if cprefix else fn.__name__, fn, None))
    return out


_WRAPS = {'_single': 1, '_pair': 2, '_triple': 3}  # torch's list-of-n wrappers


def _callee(node, scope):
    """The object a call's ``a.b.c`` names in the function's module (``super().x`` in a
    method of ``torch.Tensor``: ``TensorBase.x``), or None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == 'super' and not node.args:
        obj = torch._C.TensorBase
    elif isinstance(node, ast.Name):
        obj = scope.get(node.id)
    else:
        return None
    for p in reversed(parts):
        obj = getattr(obj, p, None)
    return obj


# what torch's functions call before their C op that cannot raise about a tensor's contents
# (``get_enum``'s ValueError for an unknown reduction: ``_args._inner_call`` lets it stand)
_HARMLESS = {'isinstance', 'len', 'has_torch_function', 'has_torch_function_unary',
             'has_torch_function_variadic', '_has_torch_function', '_has_torch_function_unary',
             '_has_torch_function_variadic', 'handle_torch_function', 'warn', 'get_enum',
             'legacy_get_string', 'is_scripting', 'str', 'type', 'float', 'int', 'tuple',
             'list', 'repeat', 'dim', 'size', 'is_tracing', 'format', 'legacy_get_enum',
             'annotate', 'are_deterministic_algorithms_enabled', 'set', 'map', 'issubset',
             'super', 'unsqueeze', 'unsqueeze_'} | \
    set(_WRAPS)

# torch's wrapper that keeps an int and reads any other value as a list whose Nones take the
# input's sizes (``adaptive_avg_pool2d``'s output_size): ``n`` -1 in ``INNER``
_DEFAULTED = '_list_with_default'


def _none_branches(tree):
    """The ``if p is None: p = ...`` statements of ``tree``: they replace a None default
    (``stride``) and leave any other value unchanged, and nothing in them raises."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.If) and not n.orelse and isinstance(n.test, ast.Compare) and \
                isinstance(n.test.left, ast.Name) and len(n.test.ops) == 1 and \
                isinstance(n.test.ops[0], ast.Is) and \
                isinstance(n.test.comparators[0], ast.Constant) and \
                n.test.comparators[0].value is None and \
                all(isinstance(b, ast.Assign) and len(b.targets) == 1 and
                    isinstance(b.targets[0], ast.Name) and b.targets[0].id == n.test.left.id
                    for b in n.body):
            out.append(n)
    return out


def _guarded(tree, params):
    """{id of a node: the guard} for the nodes of ``if p: ...`` (or ``if p and ...:``)
    statements without an ``else``: they run only when the parameter ``p`` is true
    (``batch_norm``'s ``if training: _verify_batch_size(input.size())``), the guard ``'p'``;
    or of ``if p is not None: ...``, the guard ``'p is not None'`` (``embedding``'s
    ``max_norm``)."""
    out = {}
    for n in ast.walk(tree):
        if not isinstance(n, ast.If) or n.orelse:
            continue
        test = n.test.values[0] if isinstance(n.test, ast.BoolOp) and \
            isinstance(n.test.op, ast.And) else n.test
        guard = None
        if isinstance(test, ast.Name) and test.id in params:
            guard = test.id
        elif isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and \
                test.left.id in params and len(test.ops) == 1 and \
                isinstance(test.ops[0], ast.IsNot) and \
                isinstance(test.comparators[0], ast.Constant) and \
                test.comparators[0].value is None:
            guard = test.left.id + ' is not None'
        if guard is not None:
            for b in n.body:
                out.update((id(m), guard) for m in ast.walk(b))
    return out


def _comes_first(tree, scope, ops, guarded, skip=frozenset()):
    """(whether the C op ``ops[0]`` -- or its in-place twin ``ops[1]``, called instead on
    another branch (``threshold_``), with a parser of the same parameters -- is the first
    thing the function ``tree`` does that may raise, the parameters whose truth lets
    something else run first): nothing but ``_HARMLESS`` calls run before it, except on
    paths that return early or that ``guarded`` (see ``_guarded``) puts behind a parameter;
    its own arguments may be computed from ``input`` by a method (``input.pow(p)``: ember's
    body lets such an error stand, see ``_args.stands``). ``skip``: the nodes of a branch
    that does not reach the op (``_switch``)."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
             _callee(n.func, scope) in ops]
    line = min(n.lineno for n in calls)
    inner = {id(a) for c in calls for a in ast.walk(c)}
    early = set()  # nodes on a path that returns before the op (``if p == inf: return ...``)
    for n in _none_branches(tree):  # (and the replacements of None defaults)
        early.update(id(m) for b in n.body for m in ast.walk(b))
    for n in ast.walk(tree):
        if isinstance(n, ast.If) and n.body and isinstance(n.body[-1], ast.Return) and \
                n.lineno < line:
            early.update(id(m) for b in n.body for m in ast.walk(b))
    # (the exception a ``raise`` makes is no call that may raise: what it raises is
    # ``inner_calls``'s ``raises``)
    early.update(id(m) for n in ast.walk(tree) if isinstance(n, ast.Raise) for m in ast.walk(n))
    guards = {}
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call) or id(n) in early or id(n) in skip or n.lineno > line and \
                id(n) not in inner or _callee(n.func, scope) in ops:
            continue
        name = n.func.attr if isinstance(n.func, ast.Attribute) else \
            getattr(n.func, 'id', '')
        if name in _HARMLESS or name == _DEFAULTED or \
                name.startswith('_verify') and id(n) not in guarded:
            continue  # (torch's ``_verify_...`` checks: their ValueError, see ``_entry``)
        if id(n) in inner and isinstance(n.func, ast.Attribute) and \
                isinstance(n.func.value, ast.Name) and n.func.value.id == 'input':
            continue
        if id(n) in guarded and id(n) not in inner:
            g = guarded[id(n)]
            # (torch's ``_verify_...`` checks raise ValueError; anything else may raise any)
            guards[g] = guards.get(g, True) and name.startswith('_verify')
            continue
        return False, ()
    return True, tuple(sorted(guards.items()))


def _unwrap(fn):
    """``boolean_dispatch``'s function (``max_pool1d``, ``unique``): the function of its
    default branch, which takes the same parameters to the same kind of op (a dispatch of
    dispatches, ``unique_consecutive``'s, followed to its end)."""
    code = getattr(fn, '__code__', None)
    while code is not None and code.co_name == 'fn' and 'if_false' in code.co_freevars:
        fn = fn.__closure__[code.co_freevars.index('if_false')].cell_contents
        code = getattr(fn, '__code__', None)
    return fn


def _tree(fn):
    """The ``ast`` of a Python function's source, or None."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    return tree if isinstance(tree, ast.FunctionDef) else None


# torch's modules of Python functions in its own namespace (``torch.stft``, ``torch.lobpcg``)
_TORCH_MODULES = ('torch.functional', 'torch._lowrank', 'torch._lobpcg')


def _python_functions():
    """(key as ember's tables key it, function, its ``ast``) for each public function torch
    writes in Python: in ``nn.functional``, in torch's namespace (from ``_TORCH_MODULES``)
    and the methods of ``torch.Tensor`` written in Python (``Tensor.istft``)."""
    spaces = (('nn.functional.', torch.nn.functional, lambda f: True),
              ('', torch, lambda f: f.__module__ in _TORCH_MODULES),
              ('Tensor.', torch.Tensor, lambda f: f.__module__ == 'torch._tensor'))
    for prefix, space, keep in spaces:
        for name in sorted(dir(space)):
            fn = getattr(space, name)
            if name.startswith('_') or not inspect.isfunction(fn) or not keep(fn):
                continue
            fn = _unwrap(fn)
            tree = _tree(fn)
            if tree is not None:
                yield prefix + name, fn, tree


def _wrapped(a):
    """(n, the wrapped expression) for ``_pair(x)`` & co (``n`` their length) and
    ``_list_with_default(x, ...)`` (-1); (0, a) for anything else."""
    if isinstance(a, ast.Call) and isinstance(a.func, ast.Name) and a.args:
        if a.func.id in _WRAPS and len(a.args) == 1:
            return _WRAPS[a.func.id], a.args[0]
        if a.func.id == _DEFAULTED:
            return -1, a.args[0]
    return 0, a


_INNER = {}  # a function -> its entry of ``inner_calls`` (or None), once worked out


def _inner_of(fn, tree, strings, depth=0):
    """``inner_calls``'s entry of one function (without its key), or None: the C op it
    hands parameters to unchanged -- directly or through another Python function of
    torch's that does (``adaptive_max_pool1d`` -> ``adaptive_max_pool1d_with_indices`` ->
    ``adaptive_max_pool1d``)."""
    if fn in _INNER:
        return _INNER[fn]
    _INNER[fn] = None  # (a function calling itself)
    scope = fn.__globals__
    params = {a.arg for a in tree.args.args + tree.args.kwonlyargs}
    # (a parameter the function reassigns may reach the op changed -- unless only a None
    # is replaced, or the parameter is wrapped as the op's argument would be)
    replaced = {id(b.targets[0]) for n in _none_branches(tree) for b in n.body}
    wraps = {}  # parameter -> the wrapper its reassignment applies (``x = _pair(x)``)
    alias = {}  # a local name -> the parameter it wraps (``_output_size = _pair(x)``)
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name):
            k, a = _wrapped(n.value)
            if k and isinstance(a, ast.Name) and a.id in params:
                if a.id == n.targets[0].id:
                    wraps[a.id] = k
                    replaced.add(id(n.targets[0]))
                elif n.targets[0].id not in params:
                    alias[n.targets[0].id] = (a.id, k)
    # (what a guard's code changes -- stft pads its input behind ``center`` -- reaches the
    # op the same way it would without the guard, whose error comes first otherwise)
    guarded = _guarded(tree, params)
    stored = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and
              isinstance(n.ctx, ast.Store) and id(n) not in replaced and id(n) not in guarded]
    params -= set(stored)
    guarded = {k: g for k, g in guarded.items() if g.split(' ')[0] in params}
    # op's name -> (op, {param: (position, keyword, n)} as the op or function called takes
    # it, call node, the function's entry or None, the function's positional parameters)
    found = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in guarded:
            continue  # (what runs behind a guard is no op the parameters reach unguarded)
        op = _callee(node.func, scope)
        if getattr(node.func, 'attr', getattr(node.func, 'id', '')) in _HARMLESS:
            continue
        sub, names = None, None
        if type(op).__name__ in ('builtin_function_or_method', 'method_descriptor'):
            key = op.__name__
        elif inspect.isfunction(op) and depth < 4:
            g = _unwrap(op)
            gtree = _tree(g)
            sub = _inner_of(g, gtree, strings, depth + 1) if gtree is not None else None
            if sub is None:
                continue
            key = ('python', g.__name__)
            names = [a.arg for a in gtree.args.args]
        else:
            continue
        maps = found.setdefault(key, (op, {}, node, sub, names))[1]
        items = [(i, None, a) for i, a in enumerate(node.args)] + [
            (None, k.arg, k.value) for k in node.keywords]
        for i, k, a in items:
            n, a = _wrapped(a)
            if isinstance(a, ast.Name) and a.id in alias and not n and \
                    alias[a.id][0] in params:
                a, n = ast.Name(alias[a.id][0]), alias[a.id][1]
            if isinstance(a, ast.Name) and a.id in params:
                maps.setdefault(a.id, (i, k, n or wraps.get(a.id, 0)))
    found = {k: v for k, v in found.items() if v[1]}  # (ops no parameter reaches: no matter)
    # (an op called on a path that returns early -- ``lp_pool2d``'s ``max_pool2d`` for an
    # infinite norm -- is not the one the other paths reach)
    early = {id(m) for n in ast.walk(tree) if isinstance(n, ast.If) and n.body and
             isinstance(n.body[-1], ast.Return) for b in n.body for m in ast.walk(b)}
    if any(id(v[2]) not in early for v in found.values()):
        found = {k: v for k, v in found.items() if id(v[2]) not in early}
    twin = None
    builtin = [k for k in found if isinstance(k, str)]
    if len(found) == 2 and len(builtin) == 2 and set(found) == {min(builtin),
                                                                 min(builtin) + '_'}:
        # (``inplace`` picks the in-place form: the same parameters, the same parser)
        twin = found.pop(min(builtin) + '_')[0]
    context = (fn, tree, scope, params, guarded, strings)
    if len(found) == 1:
        (op, maps, node, sub, names), = found.values()
        _INNER[fn] = _entry(context, op, twin, maps, node, sub, names)
    elif len(found) == 2:
        # (``if p is not None: op1(...) else: op2(...)``: ``unique``'s ``dim``)
        _INNER[fn] = _switch(context, found)
    return _INNER[fn]


def _switch(context, found):
    """``('?', p, entry when p is not None, entry when it is None)`` for a function that
    calls one of two ops on the branches of ``if p is not None``, or None."""
    fn, tree, scope, params, guarded, strings = context
    for n in ast.walk(tree):
        if not (isinstance(n, ast.If) and n.orelse and isinstance(n.test, ast.Compare) and
                isinstance(n.test.left, ast.Name) and n.test.left.id in params and
                len(n.test.ops) == 1 and isinstance(n.test.ops[0], (ast.Is, ast.IsNot)) and
                isinstance(n.test.comparators[0], ast.Constant) and
                n.test.comparators[0].value is None):
            continue
        sides = [{id(m) for b in body for m in ast.walk(b)} for body in (n.body, n.orelse)]
        if isinstance(n.test.ops[0], ast.Is):
            sides.reverse()
        picked = [[v for v in found.values() if id(v[2]) in side] for side in sides]
        if [len(p) for p in picked] != [1, 1]:
            continue
        entries = [_entry(context, v[0], None, v[1], v[2], v[3], v[4], other)
                   for (v,), other in zip(picked, reversed(sides))]
        if None not in entries:
            return ('?', n.test.left.id) + tuple(entries)
    return None


def _entry(context, op, twin, given, node, sub, names, skip=frozenset()):
    """``_inner_of``'s entry for a function that hands the parameters ``given`` (how the
    op, or the Python function of torch's with entry ``sub`` and positional parameters
    ``names``, takes them) to ``op`` in the call ``node``; None if the parser would not be
    the first thing to see them. ``skip``: see ``_comes_first``."""
    fn, tree, scope, params, guarded, strings = context
    if sub is not None:
        back = {names[i] if i is not None else k: p for p, (i, k, n) in
                _given(node, params, names)}
        if sub[0] == '?':  # (the function's switch, as this one's parameter)
            if sub[1] not in back:
                return None
            entries = [_entry(context, op, twin, given, node, e, names, skip)
                       for e in sub[2:]]
            return None if None in entries else ('?', back[sub[1]]) + tuple(entries)
        maps = {}
        for p, (i, k, n) in given.items():
            inner = names[i] if i is not None and i < len(names) else k
            if inner in sub[2]:
                si, sk, sn = sub[2][inner]
                maps[p] = (si, sk, n or sn)
    else:
        maps = dict(given)
    # (a parameter whose attribute the function reads itself (``input.dim()``) gets its
    # AttributeError first -- unless only behind a guard: see ``touched``, or only on a line
    # after the op's call: ``kl_div``'s ``input.dim()`` for batchmean)
    ops = (op,) if twin is None else (op, twin)
    # (the op's call in a statement of the function's own body, which always runs: not
    # behind an ``if``, as ``gaussian_nll_loss``'s ``ones_like`` of a float ``var`` only)
    top = any(m is node for st in _body(tree) if not isinstance(st, (ast.If, ast.For, ast.While,
                                                                     ast.Try, ast.With))
              for m in ast.walk(st))
    inside = {id(m) for n in ast.walk(tree) if isinstance(n, ast.Call) and
              _callee(n.func, scope) in ops for m in ast.walk(n)}
    read = {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and
            isinstance(n.value, ast.Name) and id(n) not in inside and id(n) not in guarded
            and not (n.lineno > node.end_lineno and top and not _in_loop(tree, n))}
    maps = {p: m for p, m in maps.items() if p not in read}
    if not maps:
        return None
    if sub is None:
        self = torch.ones(2, 2) if type(op).__name__ == 'method_descriptor' else None
        chosen = select(op.__name__, op, self, strings.get(op.__name__, []))
        if not chosen:
            return None
        head = (op.__name__, tuple(chosen))
        shape = (tuple(_kind(a, tree) for a in node.args),
                 tuple(sorted((k.arg, _kind(k.value, tree)) for k in node.keywords if k.arg)))
    else:
        head = sub[:2]

        def kind(k):  # (the inner function's parameter as this one's)
            return '@' + back[k[1:]] if k and k[0] == '@' and k[1:] in back else \
                None if k and k[0] == '@' else k
        shape = (tuple(kind(k) for k in sub[4][0]),
                 tuple((w, kind(k)) for w, k in sub[4][1]))
    ok, guards = _comes_first(tree, scope, ops, guarded, skip)
    if not ok:
        return None
    # (what the function raises itself: ``_list_with_default`` a ValueError, before the op)
    raises = {_raised(n.exc) for n in ast.walk(tree) if isinstance(n, ast.Raise) and
              isinstance(n.exc, ast.Call) and isinstance(n.exc.func, ast.Name)}
    if any(m[2] == -1 for m in maps.values()) or any(
            isinstance(n, ast.Call) and getattr(n.func, 'id', '').startswith('_verify') and
            id(n) not in guarded for n in ast.walk(tree)):
        raises.add(('ValueError', ''))
    # (and the parameters the guarded code reads an attribute of)
    guards = [(g, checks, tuple(sorted({
        n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and
        isinstance(n.value, ast.Name) and n.value.id in params and guarded.get(id(n)) == g})))
        for g, checks in guards]
    # (``kw, kh = _pair(kernel_size)`` first: Python's ValueError for a value of another
    # length, before the op)
    unpacks = [(a.id, n, len(s.targets[0].elts)) for s in _body(tree)
               if isinstance(s, ast.Assign) and len(s.targets) == 1 and
               isinstance(s.targets[0], ast.Tuple) and s.lineno < node.lineno
               for n, a in [_wrapped(s.value)] if isinstance(a, ast.Name) and a.id in params]
    if sub is not None:
        raises.update(sub[3])
        # (the inner function's guards, as this one's parameters that it hands on)
        for g, checks, reads in sub[5]:
            name, _, test = g.partition(' ')
            if name not in back:
                return None  # (a guard this function does not hand on: unknown)
            guards.append((back[name] + _ + test, checks,
                           tuple(back[r] for r in reads if r in back)))
        unpacks += [(back[p], n, m) for p, n, m in sub[6] if p in back]
    return head + (maps, tuple(sorted(raises)), shape, tuple(guards), tuple(unpacks))


def _in_loop(tree, target):
    """True if ``target`` (a node of ``tree``) lies in a loop, where a later line may run
    before an earlier one."""
    for n in ast.walk(tree):
        if isinstance(n, (ast.For, ast.While)) and any(m is target for m in ast.walk(n)):
            return True
    return False


def _kind(a, tree):
    """What an argument of the inner call is, for the messages that list the types of a
    call: a type's name, ``'@p'`` for the value of the function's parameter ``p`` (which
    the function may have changed, not its type), or None."""
    params = {x.arg for x in tree.args.args + tree.args.kwonlyargs}
    if isinstance(a, ast.Constant):
        return type(a.value).__name__
    if isinstance(a, ast.Name) and a.id in params:
        return '@' + a.id
    if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.Not):
        return 'bool'
    if isinstance(a, ast.Attribute) and a.attr == 'enabled':
        return 'bool'  # (``torch.backends.cudnn.enabled``)
    if isinstance(a, ast.Call) and getattr(a.func, 'attr', '') in ('get_enum',
                                                                   'legacy_get_enum'):
        return 'int'
    return None


def _raised(exc):
    """(class name, the message's constant beginning) of a ``raise C(message)``."""
    text = ''
    if exc.args:
        a = exc.args[0]
        parts = a.values if isinstance(a, ast.JoinedStr) else \
            [a] if isinstance(a, ast.Constant) else \
            [a.left] if isinstance(a, ast.BinOp) and isinstance(a.left, ast.Constant) else []
        for v in parts:
            if not (isinstance(v, ast.Constant) and isinstance(v.value, str)):
                break
            text += v.value
    return exc.func.id, text


def _given(node, params, names):
    """[(parameter, (position, keyword, n))] for the parameters a call hands on unchanged,
    by position (``names``: the callee's positional parameters) or by keyword."""
    out = []
    for i, a in enumerate(node.args):
        if isinstance(a, ast.Name) and a.id in params and i < len(names):
            out.append((a.id, (i, None, 0)))
    for k in node.keywords:
        if isinstance(k.value, ast.Name) and k.value.id in params:
            out.append((k.value.id, (None, k.arg, 0)))
    return out


def inner_calls(strings):
    """{key: (C name, (its overloads), ((parameter, position, keyword, n), ...), raises,
    (kinds of the positional arguments, ((keyword, kind), ...)) of the call (see ``_kind``),
    ((guard, checks only, parameters read), ...), unpacks) or ``('?', p, entry, entry)``} for
    torch's Python functions (see ``_python_functions``) that hand parameters unchanged (or
    through ``_pair``-like wrappers, ``n`` > 0, or ``_list_with_default``, ``n`` -1) to one
    C op (``fold`` -> ``col2im``): that op's parser refuses a bad type of theirs before
    anything the op checks. ``raises``: the errors the function raises itself, (class,
    message's beginning) (they may come first). The call's shape lets ``_args`` rebuild
    it, its other arguments standing in for anything. A guard is a parameter whose truth
    lets the function run something else first (``batch_norm``'s ``training``:
    ``_verify_batch_size``, checks only -- their ValueError, or the IndexError or
    AttributeError of reading the input's size -- or anything: stft's ``center`` pads the
    input), and the parameters whose attributes that code reads. ``unpacks``: ((parameter,
    n, length), ...), the parameters the function unpacks first (``kw, kh =
    _pair(kernel_size)``, Python's ValueError for another length). ``'?'``: the op depends on
    whether parameter ``p`` is None (``unique``'s ``dim``): the first entry when it is not,
    the second when it is. Read from the functions' source (their ``ast``)."""
    def written(entry):
        if entry[0] == '?':
            return entry[:2] + tuple(written(e) for e in entry[2:])
        maps = tuple((p, i, k, n) for p, (i, k, n) in sorted(entry[2].items()))
        return entry[:2] + (maps,) + entry[3:]
    out = {}
    for key, fn, tree in _python_functions():
        entry = _inner_of(fn, tree, strings)
        if entry is not None:
            out[key] = written(entry)
    return out


def touched():
    """{key: (parameters, ...)} for torch's Python functions (see ``_python_functions``)
    that read an attribute of some parameters themselves (``weight.dim()``), or hand them
    unchanged to another such function that does (``adaptive_max_pool2d`` ->
    ``adaptive_max_pool2d_with_indices``): a number there is their AttributeError, not a
    parser's TypeError. (A read behind a guard counts: see ``inner_calls``.)"""
    funcs = {}  # the function -> (its key, its tree, its parameters, those it reads)
    for key, fn, tree in _python_functions():
        params = {a.arg for a in tree.args.args + tree.args.kwonlyargs}
        funcs[fn] = (key, tree, params, _attributes_read(tree, params))
    for fn in list(funcs):  # (the functions they call, by the functions' own names too)
        for n in ast.walk(funcs[fn][1]):
            if isinstance(n, ast.Call):
                g = _callee(n.func, fn.__globals__)
                if inspect.isfunction(g) and g not in funcs:
                    tree = _tree(g)
                    if tree is not None:
                        params = {a.arg for a in tree.args.args + tree.args.kwonlyargs}
                        funcs[g] = (None, tree, params, _attributes_read(tree, params))
    changed = True
    while changed:
        changed = False
        for fn, (key, tree, params, hit) in funcs.items():
            for n in ast.walk(tree):
                g = _callee(n.func, fn.__globals__) if isinstance(n, ast.Call) else None
                if g is fn or g not in funcs:
                    continue
                names = [a.arg for a in funcs[g][1].args.args]
                given = [(names[i] if i < len(names) else None, a)
                         for i, a in enumerate(n.args)] + [(k.arg, k.value)
                                                           for k in n.keywords]
                for inner, a in given:
                    if isinstance(a, ast.Name) and a.id in params and a.id not in hit and \
                            inner in funcs[g][3]:
                        hit.add(a.id)
                        changed = True
    return {key: tuple(sorted(hit)) for fn, (key, _, _, hit) in funcs.items()
            if key is not None and hit}


# what reads a reduction's name: its ValueError comes first
_REDUCTION = ('get_enum', 'legacy_get_enum', 'legacy_get_string')


def _attributes_read(tree, params):
    """The parameters the function reads an attribute of: ``p.x``, or of ``-p`` (softmin's
    ``(-input).softmax``: a number's negation is a number)."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute):
            v = n.value.operand if isinstance(n.value, ast.UnaryOp) else n.value
            if isinstance(v, ast.Name) and v.id in params:
                out.add(v.id)
    return out


class _Reads:
    """The attributes a Python function of torch's reads of its parameters, in order, before
    anything that may raise otherwise (see ``first_reads``)."""

    def __init__(self, scope, names, depth):
        self.scope, self.names, self.depth = scope, dict(names), depth
        self.reads = []

    def _read(self, param, attr):
        if param not in [p for p, _ in self.reads]:
            self.reads.append((param, attr))

    def expr(self, node):
        """Follows ``node``'s evaluation; False where something that may raise ran."""
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in self.names:
                self._read(self.names[node.value.id], node.attr)
                return True
            return self.expr(node.value)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.BoolOp):  # (the rest is conditional: nothing that may raise)
            return self.expr(node.values[0]) and not any(
                isinstance(m, ast.Call) for v in node.values[1:] for m in ast.walk(v))
        if isinstance(node, ast.IfExp):
            return self.expr(node.test) and not any(
                isinstance(m, ast.Call) for v in (node.body, node.orelse) for m in ast.walk(v))
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp, ast.JoinedStr)):
            return not any(isinstance(m, ast.Call) for m in ast.walk(node))
        return all(self.expr(c) for c in ast.iter_child_nodes(node)
                   if isinstance(c, ast.expr))

    def call(self, node):
        func = node.func
        method = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
            func.value.id in self.names
        if not self.expr(func) or not all(self.expr(a) for a in node.args) or \
                not all(self.expr(k.value) for k in node.keywords):
            return False
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, 'id', '')
        if name in _HARMLESS and name not in _REDUCTION:
            return True
        g = None if method else _callee(func, self.scope)
        if inspect.isfunction(g) and self.depth < 3:
            g = _unwrap(g)
            tree = _tree(g)
            if tree is None:
                return False
            params = [a.arg for a in tree.args.args]
            names = {params[i]: a.id for i, a in enumerate(node.args) if i < len(params) and
                     isinstance(a, ast.Name) and a.id in self.names}
            names.update({k.arg: k.value.id for k in node.keywords if
                          isinstance(k.value, ast.Name) and k.value.id in self.names})
            inner = _Reads(g.__globals__, {k: self.names[v] for k, v in names.items()},
                           self.depth + 1)
            done = inner.block(_body(tree))
            for p, a in inner.reads:
                self._read(p, a)
            return done is not False  # (returned or ran to its end)
        return False

    def block(self, stmts):
        """Follows the statements: True if they ran to their end, ``'return'`` if they
        returned, False where something that may raise ran."""
        for s in stmts:
            if isinstance(s, ast.If):
                test = ast.unparse(s.test)
                if 'has_torch_function' in test:
                    continue
                if test.startswith('not torch.') and test.endswith('is_scripting()'):
                    if not self.block(s.body):
                        return False
                    continue
                if not self.expr(s.test):
                    return False
                branches = []
                for body in (s.body, s.orelse):
                    b = _Reads(self.scope, self.names, self.depth)
                    branches.append((b.block(body), b.reads))
                if all(done is True for done, _ in branches):
                    continue  # (its reads are conditional: none recorded)
                for p, a in branches[0][1]:  # (read on both branches, first)
                    if (p, a) in branches[1][1]:
                        self._read(p, a)
                if all(done == 'return' for done, _ in branches):
                    return 'return'
                return False
            if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)):
                if s.value is not None and not self.expr(s.value):
                    return False
                targets = s.targets if isinstance(s, ast.Assign) else \
                    [] if isinstance(s, ast.Expr) else [s.target]
                for t in targets:
                    for m in ast.walk(t):
                        if isinstance(m, ast.Name):
                            self.names.pop(m.id, None)
                continue
            if isinstance(s, ast.Return):
                return 'return' if s.value is None or self.expr(s.value) else False
            if isinstance(s, (ast.Import, ast.ImportFrom, ast.Pass)):
                continue
            return False
        return True


def _body(tree):
    """The statements of a function, without its docstring."""
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return body


def first_reads():
    """{key: ((parameter, attribute), ...)} for torch's Python functions (see
    ``_python_functions``) that read an attribute of a parameter before anything else that
    may raise (``svd_lowrank``: ``A.shape``; ``norm``: ``input.layout``), in the order they
    read them: a value without that attribute there is their AttributeError, whatever else
    is wrong with the call."""
    out = {}
    for key, fn, tree in _python_functions():
        params = [a.arg for a in tree.args.args + tree.args.kwonlyargs]
        walk = _Reads(fn.__globals__, {p: p for p in params}, 0)
        walk.block(_body(tree))
        if walk.reads:
            out[key] = tuple(walk.reads)
    return out


def numbers_as_tensors(sigs):
    """The C-level names whose parser takes a Python number where it says Tensor: a
    function that takes one in both places of a two-tensor call (``add(t, 2.0)``,
    ``add(2.0, t)`` and ``add(2.0, 3.0)``; number overloads at either place are not the
    Tensor one taking them: ``remainder(2, 3)`` is refused), and a
    method that takes one for its tensor when its function form does (or has none)."""
    functions = set()
    for key, (cname, texts) in sigs.items():
        if '.' in key:
            continue
        for s in texts:
            inner = s[s.index('(') + 1:s.index(')')].split(', ')
            if '|' in s or len(inner) < 2 or \
                    not all(p.startswith('Tensor ') for p in inner[:2]):
                continue
            fn = getattr(torch, key)
            # (two numbers: a Scalar overload at either place cannot take both)
            if _takes(lambda: fn(torch.ones(2), 2.0)) and _takes(lambda: fn(2.0, torch.ones(2))) \
                    and _takes(lambda: fn(2.0, 3.0)):
                functions.add(cname)
            break
    names = set(functions)
    for key, (cname, texts) in sigs.items():
        base = cname.rstrip('_')
        if not key.startswith('Tensor.') or base in sigs and base not in functions:
            continue
        for s in texts:
            inner = s[s.index('(') + 1:s.index(')')].split(', ')
            if '|' not in s and inner[0].startswith('Tensor '):
                if _takes(lambda: getattr(torch.ones(2), key[7:])(2.0)):
                    names.add(cname)
                break
    return names


def _takes(call):
    """False if ``call`` is refused by torch's argument parser."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            call()
    except TypeError as e:
        return not ('must be Tensor' in str(e) or 'invalid combination' in str(e) or
                    'missing' in str(e))
    except Exception:  # noqa: BLE001 - past the parser: it took the number
        pass
    return True


_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
           torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
           torch.complex128, torch.uint16, torch.uint32, torch.uint64, torch.complex32]
_KERNEL_NAMES = {torch.bool: 'Bool', torch.uint8: 'Byte', torch.int8: 'Char',
                 torch.int16: 'Short', torch.int32: 'Int', torch.int64: 'Long',
                 torch.float16: 'Half', torch.bfloat16: 'BFloat16', torch.float32: 'Float',
                 torch.float64: 'Double', torch.complex64: 'ComplexFloat',
                 torch.complex128: 'ComplexDouble', torch.uint16: 'UInt16',
                 torch.uint32: 'UInt32', torch.uint64: 'UInt64',
                 torch.complex32: 'ComplexHalf'}
_SAMPLE = {'int64_t': 0, 'SymInt': 0, 'Scalar': 1, 'double': 0.5, 'bool': False,
           'IntArrayRef': [0], 'SymIntArrayRef': [2, 2], 'IntArrayRef[1]': [0],
           'IntArrayRef[1]?': [0]}
# parameters whose sample value must be positive for the probe to reach the kernel
_SAMPLE_BY_NAME = {'k': 1, 'num_groups': 1}
# random, allocating or printing ops: their dtype support is not a kernel's
_NOT_PROBED = {'empty', 'empty_like', 'rand', 'randn', 'randint', 'randperm', 'normal',
               'bernoulli', 'multinomial', 'poisson', 'dropout', 'feature_dropout',
               'alpha_dropout', 'feature_alpha_dropout', 'rrelu',
               # (refused for the probe's argument value, not for the dtype alone)
               'requires_grad_', 'to_mkldnn',
               # (refusals that turn on the dtype of its p, a tensor of its own)
               'bernoulli_'}


# losses whose target is a tensor of the input's dtype (others take class indices)
_SAME_DTYPE_TARGET = {'mse_loss', 'l1_loss', 'smooth_l1_loss', 'huber_loss',
                      'soft_margin_loss', 'binary_cross_entropy'}


def _sample_args(text, dt, extra, shape=(2, 2)):
    """Arguments for the required parameters of an overload and ``extra`` optional ones
    after them, its tensors ones of ``dt`` shaped ``shape`` (2x2); None if it has a
    parameter this probe cannot fill."""
    inner = text.split('|')[0]
    inner = inner[inner.index('(') + 1:-1]
    args = []
    for p in inner.split(', ') if inner else []:
        if p == '*':
            break
        if '=' in p:
            if not extra:
                break
            extra -= 1
            p = p.split('=')[0]
        ty, name = p.rsplit(' ', 1)
        ty = ty.rstrip('?') if ty != 'IntArrayRef[1]?' else ty
        if ty in ('Tensor', 'Tensor?'):
            if name in ('index', 'indices', 'target', 'offsets') and not (
                    name == 'target' and text[:text.index('(')] in _SAME_DTYPE_TARGET):
                return None
            args.append(torch.ones(shape).to(dt))
        elif ty == 'TensorList':
            args.append([torch.ones(shape).to(dt)] * 2)
        elif ty in _SAMPLE:
            args.append(_SAMPLE_BY_NAME.get(name, _SAMPLE[ty]))
        else:
            return None
    return args


def _method(name):
    """``torch.Tensor.<name>`` called on its first argument."""
    return lambda self, *args: getattr(self, name)(*args)


def _public(key):
    obj = torch
    for part in key.split('.'):
        obj = getattr(obj, part)
    return obj


def dtype_refusals(sigs, numbers=frozenset()):
    """({C-level name: {dtype's kernel name: torch's message}}, the same for a call whose
    second operand is a Python number): the dtypes each function's kernel refuses, probed
    with 2x2 tensors of ones of every dtype on its overloads (and, for an overload whose
    second parameter is a Scalar, with the number 1 there: torch often runs a
    tensor-and-number call by another kernel, which may refuse fewer dtypes; so for the ops
    in ``numbers``, whose Tensor parameters take numbers). A refusal of the first table is
    (message, when): ``when`` narrows one that depends on more than the dtype:

    * ``'numbers'``: only a Python number argument brings it (the scalar overload of
      ``clamp_`` casts its bound's type back to bool, the tensor overload takes a bool
      bound);
    * ``'tensors'``: only a second tensor of the dtype brings it (``linalg.pinv`` refuses a
      complex ``rcond`` tensor, not a complex input);
    * ``'nonempty'``: an empty input runs no kernel, so nothing is refused (``cummin`` or
      ``log_softmax`` of an empty tensor);
    * ``'dims'``: a 0-d input runs no kernel either (``mode`` and ``kthvalue`` return it as
      it is, ``inner`` multiplies it); ``'nonempty dims'``: both;
    * ``'grad'``: only a tensor that requires grad brings it (torch has no complex
      derivative of ``nan_to_num`` or ``slice_scatter``: "... does not support automatic
      differentiation for outputs with complex dtype");
    * None: always."""
    out, with_number = {}, {}
    functions = {cname for key, (cname, _) in sigs.items()
                 if not key.startswith(('Tensor.', '_nn.'))}
    for key, (cname, texts) in sorted(sigs.items()):
        if key.startswith('_nn.') and cname in functions:
            continue  # (a kernel probed under its public name)
        method = key.startswith('Tensor.')
        if method and (cname in functions or cname.rstrip('_') in functions and
                       cname.rstrip('_') not in _NOT_PROBED) or \
                cname in out or cname in _NOT_PROBED:
            continue  # (a method is probed only where torch has no function of it probed)
        visible = [t for t in texts if '|' not in t]
        if method:  # (its receiver as the first argument)
            visible = [t.replace('(', '(Tensor self, ', 1) if '()' not in t else
                       t.replace('()', '(Tensor self)') for t in visible]
        if not visible:
            continue
        fn = getattr(torch._C._nn, cname) if key.startswith('_nn.') else \
            _public(key) if not method else _method(key[len('Tensor.'):])
        refused, refused_n, number_probed, probes = {}, {}, False, []
        for text, extra in [(t, e) for t in visible for e in (0, 1)]:
            # (the probe's arguments must be right for the op with some dtype: the
            # first one it runs with, float32 for most, int64 for the bitwise ops ...)
            if not any(_call(fn, _sample_args(text, dt, extra)) == '' for dt in _BASE_DTYPES):
                continue
            probes.append((text, extra))
            number = _scalar_second(text) or cname in numbers
            for dt in _DTYPES:
                name = _KERNEL_NAMES[dt]
                args = _sample_args(text, dt, extra)
                err = _call(fn, args)
                if name not in refused and err and _about_dtype(err, dt) and \
                        '[2, 2]' not in err:  # (a message naming the probe's shape)
                    refused[name] = (err, _narrowing(fn, text, extra, dt, probes, visible))
                if name not in refused and not err and dt.is_complex:
                    err = _call(fn, [a.requires_grad_() if isinstance(a, torch.Tensor) else a
                                     for a in args])
                    if 'does not support automatic differentiation' in err:
                        refused[name] = (err, 'grad')
                if number and extra == 0 and name not in refused_n:
                    number_probed = True
                    # (pow(x, 1) is a copy: no kernel runs)
                    err = _call(fn, [args[0], 2 if cname.rstrip('_') == 'pow' else 1] +
                                args[2:])
                    if err and _about_dtype(err, dt) and '[2, 2]' not in err:
                        refused_n[name] = err
        if refused:
            out[cname] = refused
        if number_probed:
            with_number[cname] = refused_n  # (empty: the number form refuses nothing)
    # The in-place method of an alias (``absolute_``) is skipped above, torch having no
    # function of it to probe apart from the out-of-place one; it is its original's in-place
    # op (``abs_``, which refuses complex tensors the out-of-place form takes): that row.
    for key, (cname, _) in sigs.items():
        original = _alias_target(cname[:-1]) if key.startswith('Tensor.') and \
            cname.endswith('_') and cname not in out and cname not in functions else None
        if original is not None and original + '_' in out:
            out[cname] = out[original + '_']
    return out, with_number


def _alias_target(name):
    """The op ``torch.<name>`` stands for, as its docstring says ("Alias for
    :func:`torch.abs`"), or None."""
    doc = getattr(getattr(torch, name, None), '__doc__', None)
    m = re.search(r'Alias for :(?:func|meth):`(?:torch\.)?(\w+)(?:\(\))?`', doc) \
        if isinstance(doc, str) else None
    return m.group(1) if m else None


# the dtypes a probe tries until one runs (see dtype_refusals)
_BASE_DTYPES = (torch.float32, torch.int64, torch.bool, torch.complex64)


def _scalar_second(text):
    """True if the overload's second parameter is a Scalar (``gt(Tensor input, Scalar
    other)``)."""
    inner = text.split('|')[0]
    params = inner[inner.index('(') + 1:-1].split(', ')
    return len(params) > 1 and params[1].startswith('Scalar ')


def pointwise_ops():
    """The C-level names of torch's elementwise ops (the ``pointwise`` tag of their aten
    overloads): their tensors broadcast, and torch checks shapes before dtypes."""
    names = set()
    for name in dir(torch.ops.aten):
        try:
            packet = getattr(torch.ops.aten, name)
            overloads = [getattr(packet, o) for o in packet.overloads()]
        except Exception:  # noqa: BLE001 - not an op packet
            continue
        if any(torch.Tag.pointwise in o.tags for o in overloads):
            names.add(name)
    # (an alias -- arctan2, multiply -- is an op of its own without the tag: its docstring
    # names the op it stands for)
    for name in dir(torch):
        if _alias_target(name) in names:
            names.add(name)
    return names


def _tensors(args):
    return sum(isinstance(a, torch.Tensor) for a in args)


def _narrowing(fn, text, extra, dt, probes, visible):
    """When the refusal of ``dt`` that probe (``text``, ``extra``) met applies (see
    ``dtype_refusals``)."""
    refused = _sample_args(text, dt, extra)
    numbers = any(type(a) in (int, float) for a in refused)
    others = [(o, e) for o in visible for e in (0, 1) if (o, e) != (text, extra)
              and _sample_args(o, dt, e) is not None
              and _call(fn, _sample_args(o, torch.float32, e)) == '']
    if numbers:
        for other, e in others:
            args = _sample_args(other, dt, e)
            if not any(type(a) in (int, float) for a in args) and _call(fn, args) == '':
                return 'numbers'
    for other, e in others:
        args = _sample_args(other, dt, e)
        if _tensors(args) < _tensors(refused) and _call(fn, args) == '':
            return 'tensors'
    def runs(shape):
        return _call(fn, _sample_args(text, torch.float32, extra, shape)) == '' and \
            _call(fn, _sample_args(text, dt, extra, shape)) == ''
    # (an empty input of either shape: ``mode`` reduces the last dim, which (0, 2) keeps)
    found = [runs((2, 0)) or runs((0, 2)), runs(())]
    return ' '.join(w for w, r in zip(('nonempty', 'dims'), found) if r) or None


def _call(fn, args):
    """'' if ``fn(*args)`` runs, else 'ExceptionClass: first line of its message'."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            fn(*args)
        return ''
    except Exception as e:  # noqa: BLE001 - the exception is what is probed
        return f'{type(e).__name__}: ' + (str(e).splitlines() or [''])[0].strip()


def _about_dtype(err, dt):
    """True if message ``err`` refuses dtype ``dt`` (names it or its kind)."""
    if not err.startswith(('RuntimeError', 'NotImplementedError')):
        return False
    if f"not implemented for '{_KERNEL_NAMES[dt]}'" in err:
        return True
    words = 'complex' if dt.is_complex else 'bool' if dt == torch.bool else \
        'integ|long|int' if not dt.is_floating_point else 'half|bfloat|float'
    return re.search(words, err.split(': ', 1)[1], re.I) is not None


def _rows(table):
    """{name: ((exception class, message with <dtype>, dtype names[, when]), ...)} of a
    probe (a refusal is a message, or (message, when))."""
    out = {}
    for name in sorted(table):
        groups = {}
        for dt, err in table[name].items():
            err, when = err if isinstance(err, tuple) else (err, None)
            cls, msg = err.split(': ', 1)
            template = re.sub(r'\b%s\b' % dt, '<dtype>', msg)
            groups.setdefault((cls, template, when), []).append(dt)
        out[name] = tuple((cls, t, ' '.join(v)) + ((when,) if when else ())
                          for (cls, t, when), v in groups.items())
    return out


def write_refusals(refusals):
    """Writes ``_dtype_refusals.py``."""
    refusals, with_number = refusals
    with open(REFUSALS, 'w') as f:
        f.write('"""The dtypes torch %s\'s kernels refuse, op by op: generated by\n'
                '``tools/gen_signatures.py`` -- do not edit by hand.\n\n'
                '``REFUSED``: {torch\'s name of the op: ((exception class, message with\n'
                '<dtype> for the dtype\'s name, the names (``Long``, ``ComplexFloat``) of the\n'
                'dtypes it refuses so[, \'numbers\': only with a Python number argument |\n'
                '\'tensors\': only with a second tensor | \'nonempty\': only for a non-empty\n'
                'input | \'dims\': only for inputs that all have dims (not 0-d) | \'grad\':\n'
                'only with a tensor that requires grad; several words: all hold]), ...)}.\n'
                '``REFUSED_WITH_NUMBER``: the same for a call\n'
                'whose second operand is a Python number (``gt(t, 0)``), for every op\n'
                'probed so (an empty row: that form refuses no dtype). Read by\n'
                '``ember._ops._args``; an op looks its rows up on its first call."""\n'
                % torch.__version__.split('+')[0])
        f.write('# flake8: noqa\n')
        for title, table in (('REFUSED', refusals), ('REFUSED_WITH_NUMBER', with_number)):
            f.write(f'{title} = {{\n')
            for name in sorted(table):
                f.write(f'    {name!r}: {_rows(table)[name]!r},\n')
            f.write('}\n')
    print(f'{len(refusals)} ops refusing some dtype -> {REFUSALS}')



def nn_kernels(strings, sigs):
    """{'_nn.<name>': (name, overloads)} for the kernels in ``torch._C._nn`` that torch's
    Python ``nn.functional`` functions call (``smooth_l1_loss``, ``relu6``...): probed for
    the dtypes they refuse only -- their signatures (``reduction`` as an int) are not the
    public functions'."""
    out = {}
    for name in sorted(dir(torch._C._nn)):
        fn = getattr(torch._C._nn, name)
        if name.startswith('_') or type(fn).__name__ != 'builtin_function_or_method' or \
                'nn.functional.' + name in sigs:
            continue
        chosen = select(name, fn, None, strings.get(name, []))
        if chosen:
            out['_nn.' + name] = (name, tuple(chosen))
    return out


def python_tables(strings):
    """The text of the tables about torch's Python functions: ``INNER``, ``TOUCHED``,
    ``READS``."""
    out = []
    for name, table in (('INNER', inner_calls(strings)), ('TOUCHED', touched()),
                        ('READS', first_reads())):
        out.append(f'{name} = {{\n' + ''.join(f'    {key!r}: {entry!r},\n'
                                                for key, entry in sorted(table.items())) + '}\n')
    return '\n'.join(out)


def main():
    strings = pool()
    if sys.argv[1:] == ['--python']:
        # (only the tables read from torch's Python sources: quick, no dtype probing)
        with open(OUT) as f:
            text = f.read()
        with open(OUT, 'w') as f:
            f.write(text[:text.index('INNER = {')] + python_tables(strings))
        return
    sigs = {}
    for key, cname, fn, self in callables():
        chosen = select(cname, fn, self, strings.get(cname, []))
        if chosen:
            sigs[key] = (cname, tuple(chosen))
    numbers = numbers_as_tensors(sigs)
    # (a ``_foreach_`` op refuses what the op it applies to each tensor refuses)
    probed = {k: v for k, v in sigs.items() if not k.startswith('_foreach_')}
    write_refusals(dtype_refusals({**probed, **nn_kernels(strings, probed)}, numbers))
    with open(OUT, 'w') as f:
        f.write('"""torch %s\'s Python-level signatures of its public ops: generated by\n'
                '``tools/gen_signatures.py`` -- do not edit by hand.\n\n'
                '``SIGNATURES``: {public name as ember keys it (``add``, ``Tensor.add``,\n'
                '``nn.functional.linear``): (the name torch\'s messages use, (overloads...))}.\n'
                'An overload is the argument parser\'s text; ``|deprecated``/``|hidden`` ones\n'
                'are accepted but never listed in messages, ``|noargs`` is a method that takes\n'
                'no arguments. ``NUMBERS_AS_TENSORS``: the ops whose Tensor parameters take a\n'
                'Python number too. ``POINTWISE``: torch\'s elementwise ops (their tensors\n'
                'broadcast; shapes are checked before dtypes). ``INNER``: torch\'s Python\n'
                'functions (nn.functional, torch.functional, Tensor methods) that pass\n'
                'parameters on to one C op unchanged (see ``inner_calls``). ``TOUCHED``: the\n'
                'parameters such functions read an attribute of (see ``touched``); ``READS``:\n'
                'the attributes they read first (see ``first_reads``). Read by\n'
                '``ember._ops._args``."""\n'
                % torch.__version__.split('+')[0])
        f.write('# flake8: noqa\n')
        f.write('SIGNATURES = {\n')
        for key in sorted(sigs):
            cname, texts = sigs[key]
            f.write(f'    {key!r}: ({cname!r}, (\n')
            for s in texts:
                f.write(f'        {s!r},\n')
            f.write('    )),\n')
        f.write('}\n\n')
        f.write('NUMBERS_AS_TENSORS = frozenset({\n')
        for n in sorted(numbers):
            f.write(f'    {n!r},\n')
        f.write('})\n\n')
        f.write('POINTWISE = frozenset({\n')
        for n in sorted(pointwise_ops()):
            f.write(f'    {n!r},\n')
        f.write('})\n\n')
        f.write(python_tables(strings))
    print(f'{len(sigs)} callables, {len(numbers)} taking numbers as tensors -> {OUT}')


if __name__ == '__main__':
    main()
