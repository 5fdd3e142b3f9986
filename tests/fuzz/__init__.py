"""ember's differential fuzzer (issue 15): every registered op called with generated
arguments on ember and on torch, the answers compared.

``targets`` lists the functions and reads their argument templates from torch's schemas,
``generate`` draws one call from (function, seed), ``compare`` runs it on both libraries and
classifies the differences, ``sweep`` runs calls in a worker process (a hang is a finding)
and prints the table. ``test_fuzz_sweep.py`` is the short CI sweep, with ``known.py`` the
mismatches it tolerates; ``python -m tests.fuzz --budget 600`` is the long one.
"""
