"""The README's Python example runs and prints what its comments say."""
import contextlib
import io
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / 'README.md'


def _python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_example_prints_what_it_claims():
    blocks = _python_blocks()
    assert blocks, "the README has no python example"
    for code in blocks:
        expected = [m.group(1).strip() for m in re.finditer(r"print\(.*\)\s+# (.*)", code)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(README), 'exec'), {})
        printed = out.getvalue().strip().splitlines()
        for want in expected:
            assert want in printed, f"README claims {want!r}; printed {printed}"
