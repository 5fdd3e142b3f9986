"""The C++ source load_inline compiles: ember's header, the user's code, and the nanobind
module that binds the listed functions."""
import json

__all__ = ['inline_source']


def inline_source(cpp_sources, functions=None):
    """One translation unit from ``cpp_sources`` (a string or a list of strings), with a
    module binding ``functions``: a name, a list of names, or {name: docstring}."""
    if isinstance(cpp_sources, str):
        cpp_sources = [cpp_sources]
    parts = ['#include <ember/extension.h>', '\n'.join(cpp_sources)]
    if functions is not None:
        parts.append(module_definition(_named(functions)))
    return '\n'.join(parts) + '\n'


def module_definition(functions):
    """``NB_MODULE(EMBER_EXTENSION_NAME, m) { m.def(...); ... }`` for {name: docstring}."""
    lines = ['', 'NB_MODULE(EMBER_EXTENSION_NAME, m) {']
    for name, doc in functions.items():
        # A JSON string is a valid C++ string literal (given UTF-8 source).
        extra = f', {json.dumps(doc, ensure_ascii=False)}' if doc else ''
        lines.append(f'  m.def("{name}", &{name}{extra});')
    lines.append('}')
    return '\n'.join(lines)


def _named(functions):
    if isinstance(functions, str):
        functions = [functions]
    if not isinstance(functions, dict):
        functions = dict.fromkeys(functions)
    bad = [f for f in functions if not (isinstance(f, str) and f.isidentifier())]
    if bad:
        raise ValueError(f'load_inline: functions must name C++ functions, got {bad}')
    return functions
