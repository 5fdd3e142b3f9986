"""The ``weights_only`` unpickler: loading a file never runs code it names.

An ordinary unpickler imports and calls whatever the pickle names (``os.system``...).
``RestrictedUnpickler`` runs only the opcodes that build data (torch's weights-only set:
containers, numbers, strings, globals, calls, persistent storages), resolves a global only
if it is on the allowlist (torch's names, see ``_rebuild``; plus what the user allowed with
``add_safe_globals``), calls only allowlisted callables, and builds (``BUILD``), appends to
and sets items on only the types torch allows. Its memo is a dict, so no index in the file
can make it allocate. Errors are ``pickle.UnpicklingError`` with torch's wording of the
cause; ``load`` wraps them as torch does ("Weights only load failed...").
"""
import _compat_pickle
import collections
import pickle

__all__ = ['add_safe_globals', 'get_safe_globals', 'clear_safe_globals', 'safe_globals',
           'RestrictedUnpickler', 'weights_only_message', 'TORCH_OPCODES']

_USER = {}   # full name -> object, from add_safe_globals
_BLOCKED_MODULES = ('sys', 'os', 'posix', 'nt')

# torch's weights-only opcodes: the protocol-2 ones torch.save writes
TORCH_OPCODES = frozenset(
    pickle.GLOBAL + pickle.NEWOBJ + pickle.REDUCE + pickle.BUILD + pickle.APPEND + pickle.APPENDS
    + pickle.SETITEM + pickle.SETITEMS + pickle.MARK + pickle.TUPLE + pickle.TUPLE1
    + pickle.TUPLE2 + pickle.TUPLE3 + pickle.NONE + pickle.NEWFALSE + pickle.NEWTRUE
    + pickle.EMPTY_TUPLE + pickle.EMPTY_LIST + pickle.EMPTY_DICT + pickle.EMPTY_SET
    + pickle.BININT + pickle.BININT1 + pickle.BININT2 + pickle.BINFLOAT + pickle.BINUNICODE
    + pickle.SHORT_BINSTRING + pickle.BINPERSID + pickle.BINGET + pickle.LONG_BINGET
    + pickle.BINPUT + pickle.LONG_BINPUT + pickle.LONG1 + pickle.PROTO + pickle.STOP)
# ember's own older format pickled with protocol 4: its framing, bytes and memo opcodes too
DATA_OPCODES = TORCH_OPCODES | frozenset(
    pickle.FRAME + pickle.SHORT_BINUNICODE + pickle.BINUNICODE8 + pickle.SHORT_BINBYTES
    + pickle.BINBYTES + pickle.BINBYTES8 + pickle.MEMOIZE + pickle.STACK_GLOBAL
    + pickle.ADDITEMS + pickle.FROZENSET + pickle.LONG4 + pickle.POP + pickle.POP_MARK
    + pickle.DUP)


def _full_name(obj):
    return f'{obj.__module__}.{obj.__qualname__}'


def add_safe_globals(safe_globals):
    """Allows these classes/functions in ``load(..., weights_only=True)``: each item is the
    object (found under its ``__module__.__qualname__``) or an ``(object, 'module.name')``
    pair for one pickled under another name."""
    for g in safe_globals:
        if isinstance(g, tuple):
            if len(g) != 2 or not isinstance(g[1], str):
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got {g}")
            _USER[g[1]] = g
        else:
            _USER[_full_name(g)] = g


def get_safe_globals():
    """The classes/functions (or ``(object, name)`` pairs) added with ``add_safe_globals``."""
    return list(_USER.values())


def clear_safe_globals():
    """Forgets everything ``add_safe_globals`` allowed."""
    _USER.clear()


class safe_globals:
    """``with ember.serialization.safe_globals([MyClass]):`` allows ``MyClass`` in
    ``weights_only`` loads inside the block only."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._before = dict(_USER)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _USER.clear()
        _USER.update(self._before)


def _user_object(name):
    entry = _USER.get(name)
    return entry[0] if isinstance(entry, tuple) else entry


def _shown_name(module, name):
    # builtins are shown bare (``eval``), as torch shows them
    return name if module == 'builtins' else f'{module}.{name}'


class _Dispatch(dict):
    """The opcode table: an opcode not in it is refused by number, as torch refuses it."""

    def __missing__(self, key):
        raise pickle.UnpicklingError(f"Unsupported operand {key}")


class RestrictedUnpickler(pickle._Unpickler):
    """An unpickler that resolves only ``names`` (full name -> object) and the user's safe
    globals, and runs only ``opcodes``. ``build_types`` are the extra types BUILD may fill
    (the file's own classes never: only allowlisted ones)."""

    def __init__(self, file, names, *, opcodes=TORCH_OPCODES, persistent_load=None,
                 build_types=(), encoding='utf-8'):
        super().__init__(file, encoding=encoding)
        self._names = names
        self._build_types = tuple(build_types)
        self._persistent = persistent_load
        table = {k: v for k, v in pickle._Unpickler.dispatch.items() if k in opcodes}
        for code, method in _CHECKED.items():
            if code in table:
                table[code] = method
        self.dispatch = _Dispatch(table)
        # the callables/classes on the allowlist, by identity (an object the file built is
        # never one of them)
        self._allowed_ids = {id(v) for v in names.values()} | \
            {id(_user_object(k)) for k in _USER}
        from ..nn.parameter import Parameter
        self._build_types += (Parameter, collections.OrderedDict)

    def find_class(self, module, name):
        # protocol 2 writes Python 2's names (__builtin__.eval): read them as Python 3's
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        else:
            module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        full = f'{module}.{name}'
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(
                f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked.")
        obj = self._names.get(full)
        if obj is None:
            obj = _user_object(full)
        if obj is None:
            shown = _shown_name(module, name)
            raise pickle.UnpicklingError(
                f"Unsupported global: GLOBAL {shown} was not an allowed global by default. "
                f"Please use `ember.serialization.add_safe_globals([{shown}])` or the "
                f"`ember.serialization.safe_globals([{shown}])` context manager to allowlist "
                "this global if you trust this class/function.")
        return obj

    def persistent_load(self, pid):
        if self._persistent is None:
            raise pickle.UnpicklingError("unsupported persistent id encountered")
        if type(pid) is not tuple and type(pid) is not int:
            raise pickle.UnpicklingError(
                f"persistent_load id must be tuple or int, but got {type(pid)}")
        if type(pid) is tuple and (not pid or _ascii(pid[0]) != 'storage'):
            raise pickle.UnpicklingError(
                f"Only persistent_load of storage is allowed, but got "
                f"{type(pid[0]) if pid else tuple}")
        return self._persistent(pid)

    def _allowed(self, obj):
        return id(obj) in self._allowed_ids

    # -- the opcodes that act on objects: each checks what it acts on ---------------------
    def _reduce(self):
        func = self.stack[-2]
        if not self._allowed(func):
            raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function "
                                         f"{func}")
        pickle._Unpickler.load_reduce(self)

    def _newobj(self):
        cls = self.stack[-2]
        if not isinstance(cls, type) or not self._allowed(cls):
            raise pickle.UnpicklingError(
                "Can only create new object for nn.Parameter or classes allowlisted via "
                f"`add_safe_globals` but got {cls}")
        pickle._Unpickler.load_newobj(self)

    def _build(self):
        inst = self.stack[-2]
        kind = type(inst)
        if not (kind in self._build_types or self._allowed(kind)):
            raise pickle.UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                f"`add_safe_globals`, but got {kind}")
        pickle._Unpickler.load_build(self)

    def _append(self):
        self._check_list('append to', self.stack[-2])
        pickle._Unpickler.load_append(self)

    def _appends(self):
        self._check_list('extend', self.metastack[-1][-1] if self.metastack else None)
        pickle._Unpickler.load_appends(self)

    def _setitem(self):
        self._check_dict('SETITEM', self.stack[-3])
        pickle._Unpickler.load_setitem(self)

    def _setitems(self):
        self._check_dict('SETITEMS', self.metastack[-1][-1] if self.metastack else None)
        pickle._Unpickler.load_setitems(self)

    def _binget(self):
        # an index the file never stored is a KeyError, as in torch
        self.append(self.memo[self.read(1)[0]])

    def _long_binget(self):
        self.append(self.memo[int.from_bytes(self.read(4), 'little')])

    @staticmethod
    def _check_list(verb, target):
        if type(target) is not list:
            raise pickle.UnpicklingError(f"Can only {verb} lists, but got {type(target)}")

    @staticmethod
    def _check_dict(opcode, target):
        if type(target) not in (dict, collections.OrderedDict, collections.Counter):
            raise pickle.UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, "
                f"but got {type(target)}")


_CHECKED = {pickle.REDUCE[0]: RestrictedUnpickler._reduce,
            pickle.NEWOBJ[0]: RestrictedUnpickler._newobj,
            pickle.BUILD[0]: RestrictedUnpickler._build,
            pickle.APPEND[0]: RestrictedUnpickler._append,
            pickle.APPENDS[0]: RestrictedUnpickler._appends,
            pickle.SETITEM[0]: RestrictedUnpickler._setitem,
            pickle.SETITEMS[0]: RestrictedUnpickler._setitems,
            pickle.BINGET[0]: RestrictedUnpickler._binget,
            pickle.LONG_BINGET[0]: RestrictedUnpickler._long_binget}


def _ascii(s):
    return s.decode('ascii') if isinstance(s, bytes) else s


def weights_only_message(message):
    """The message of the UnpicklingError ``load`` raises when the weights-only unpickler
    refused ``message``'s cause (torch's framing, pointing at ember's names)."""
    retry = ("Loading it again with `weights_only=False` will likely succeed, but that can "
             "run arbitrary code: do it only for a file from a source you trust.")
    if 'was not an allowed global by default' in message:
        return ("Weights only load failed. The file can still be loaded, in one of two ways; "
                "take either only if you trust the source of the checkpoint.\n"
                f"\t(1) {retry}\n\t(2) Or, to keep `weights_only=True`, follow the steps in "
                f"this error message.\n\tWeightsUnpickler error: {message}")
    if 'is blocked' in message:
        return f"Weights only load failed. {retry}\n\n{message}"
    return (f"Weights only load failed. {retry}\nIf this file should load with "
            f"`weights_only=True`, please report it with this WeightsUnpickler error: "
            f"\n\n{message}")
