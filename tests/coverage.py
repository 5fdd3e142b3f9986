"""How much of torch's public API ember provides, per namespace (issue 14's table).

torch's side is ``torch.overrides.get_testing_overrides()`` of the installed torch (2.13):
every public overridable function, method and property, grouped by where
``torch.overrides.resolve_name`` puts it; private names (one leading underscore, not dunders)
are left out, as are the few entries it cannot name (distributed collectives, ``_sym_*``).
ember's side: the same name exists in the matching ember namespace (for ``torch.Tensor``,
defined by ember's Tensor class, not inherited from ``object``).

``python -m tests.coverage`` prints the markdown table (the README shows it);
``tests/test_coverage.py`` fails when a namespace falls below its recorded count.
"""
import importlib

# torch namespace -> (table label, ember module path; None means ember.Tensor)
NAMESPACES = {
    'torch': ('`torch` (incl. `torch.functional`)', 'ember'),
    'torch.Tensor': ('`torch.Tensor` (methods, operators, properties)', None),
    'torch.nn.functional': ('`torch.nn.functional`', 'ember.nn.functional'),
    'torch.linalg': ('`torch.linalg`', 'ember.linalg'),
    'torch.special': ('`torch.special`', 'ember.special'),
    'torch.fft': ('`torch.fft`', 'ember.fft'),
}
_ALIASES = {'torch.functional': 'torch'}   # torch.functional's names live at the top level


def torch_names():
    """{torch namespace: set of public names} from torch's testing overrides."""
    from torch.overrides import get_testing_overrides, resolve_name
    names = {ns: set() for ns in NAMESPACES}
    for f in get_testing_overrides():
        full = resolve_name(f)
        if full is None:
            continue
        if full.endswith('.__get__'):   # a property: torch.Tensor.<name>.__get__
            full = full[:-len('.__get__')]
        ns, _, leaf = full.rpartition('.')
        ns = _ALIASES.get(ns, ns)
        if ns in names and not (leaf.startswith('_') and not leaf.startswith('__')):
            names[ns].add(leaf)
    return names


def _ember_has(module, name):
    if module is None:
        import ember
        return any(name in vars(k) for k in ember.Tensor.__mro__ if k is not object)
    return hasattr(module, name)


def _ember_module(path):
    if path is None:
        return None
    try:
        return importlib.import_module(path)
    except ImportError:       # a namespace ember does not have yet covers nothing
        return False


def coverage():
    """{torch namespace: (ember's count, torch's count, sorted names ember lacks)}."""
    rows = {}
    for ns, names in torch_names().items():
        mod = _ember_module(NAMESPACES[ns][1])
        have = set() if mod is False else {n for n in names if _ember_has(mod, n)}
        rows[ns] = (len(have), len(names), sorted(names - have))
    return rows


def table(rows=None):
    """The markdown table "namespace | ember | torch 2.13" (plus a total row)."""
    import torch
    rows = rows or coverage()
    version = torch.__version__.split('+')[0].rsplit('.', 1)[0]
    lines = [f'| namespace | ember | torch {version} |', '|---|---:|---:|']
    for ns, (have, total, _) in rows.items():
        lines.append(f'| {NAMESPACES[ns][0]} | {have} ({100 * have // total} %) | {total} |')
    have = sum(r[0] for r in rows.values())
    total = sum(r[1] for r in rows.values())
    lines.append(f'| **all** | {have} ({100 * have // total} %) | {total} |')
    return '\n'.join(lines)


if __name__ == '__main__':
    import sys
    rows = coverage()
    print(table(rows))
    if '-v' in sys.argv:   # the missing names, per namespace
        for ns, (_, _, missing) in rows.items():
            print(f'\n{ns} lacks {len(missing)}: {" ".join(missing)}')
