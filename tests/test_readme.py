"""The README's Python examples run, in order, and print what the README says they print:
the values in ``# comments`` after print calls, and any plain ``` block that follows an
example (shown output)."""
import contextlib
import io
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / 'README.md'


def _examples():
    """(code, shown output or None) for each python block, in README order."""
    text = README.read_text()
    out = []
    for m in re.finditer(r"```python\n(.*?)```\n(?:\n```\n(.*?)```)?", text, re.S):
        out.append((m.group(1), m.group(2)))
    return out


def test_readme_examples_print_what_they_claim():
    examples = _examples()
    assert examples, "the README has no python example"
    namespace = {}
    for code, shown in examples:
        expected = [m.group(1).strip() for m in re.finditer(r"print\(.*\)\s+# (.*)", code)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(README), 'exec'), namespace)
        printed = out.getvalue()
        for want in expected:
            assert want in printed.splitlines(), f"README claims {want!r}; printed {printed}"
        if shown is not None:
            assert shown.strip() in printed, f"README shows\n{shown}\nbut it printed\n{printed}"
