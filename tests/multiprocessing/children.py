"""Functions the multiprocessing tests run in child processes. They take the library
(ember or torch) by name, so a child imports only what it uses."""
import importlib
import os


def lib(name):
    return importlib.import_module(name)


def add_in_place(queue, done):
    t = queue.get()
    t.add_(1)
    done.put(t.is_shared())


def raise_value_error(i, libname):
    raise ValueError(f'child {i} failed on purpose')


def exit_with_code(i, libname):
    os._exit(3 + i)


def write_rank(i, libname, shared):
    shared[i] = float(10 + i)


def hogwild_step(i, model):
    import ember
    with ember.no_grad():
        model.weight.add_(1.0)
