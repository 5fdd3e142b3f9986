"""torch's conjugate and negative bits, checked against torch: which tensors carry them
(``conj()``, its views, ``.imag``, ``_neg_view``, detach; not ``clone``, arithmetic,
``resolve_*``, ``conj_physical``), both at once (a negated conjugate), the values read
through them, writes through them
landing conjugated (negated) in the base and bumping its version, the refusals of
``numpy()`` and ``view_as_real``, grad_fn names and gradients. Each case runs the same
code on ember and torch and compares what it returns or raises."""
import numpy as np
import pytest

from ._upstream import oracle



def _c(lib, requires_grad=False):
    return lib.tensor([[1 + 2j, 3 - 4j], [-5 + 0.5j, 0.25 - 1j]], dtype=lib.complex128,
                      requires_grad=requires_grad)


def _bits(t):
    return [t.is_conj(), t.is_neg(), t._is_view()]


@pytest.mark.parametrize('make', [
    'conj', 'conj_twice', 'function', 'slice', 'transpose', 'view', 'detach', 'imag', 'real',
    'imag_of_slice', 'clone', 'add', 'resolve_conj', 'conj_physical', 'contiguous', 'mul',
    'neg_view', 'neg_view_slice', 'neg_view_clone', 'resolve_neg', 'real_tensor_conj'])
def test_which_tensors_carry_a_bit(make):
    def f(lib):
        c = _c(lib)
        r = lib.tensor([1.5, -2.0])
        t = {'conj': lambda: c.conj(), 'conj_twice': lambda: c.conj().conj(),
             'function': lambda: lib.conj(c), 'slice': lambda: c.conj()[1:],
             'transpose': lambda: c.conj().t(), 'view': lambda: c.conj().view(4),
             'detach': lambda: c.conj().detach(), 'imag': lambda: c.conj().imag,
             'real': lambda: c.conj().real, 'imag_of_slice': lambda: c.conj()[0].imag,
             'clone': lambda: c.conj().clone(), 'add': lambda: c.conj() + 1,
             'resolve_conj': lambda: c.conj().resolve_conj(),
             'conj_physical': lambda: c.conj().conj_physical(),
             'contiguous': lambda: c.conj().contiguous(), 'mul': lambda: c.conj() * c,
             'neg_view': lambda: lib._neg_view(r), 'neg_view_slice': lambda: lib._neg_view(r)[:1],
             'neg_view_clone': lambda: lib._neg_view(r).clone(),
             'resolve_neg': lambda: lib._neg_view(r).resolve_neg(),
             'real_tensor_conj': lambda: r.conj()}[make]()
        return [t, _bits(t), lib.is_conj(t), lib.is_neg(t)]
    oracle(f)


def test_resolving_an_unflagged_tensor_returns_it():
    oracle(lambda lib: [lib.resolve_conj(_c(lib)) is not None,
                        (lambda c: (c.resolve_conj() is c, c.resolve_neg() is c))(_c(lib)),
                        (lambda r: r.conj() is r)(lib.tensor([1.0]))])


@pytest.mark.parametrize('write', ['setitem', 'mul_', 'copy_', 'imag_fill_', 'slice_add_',
                                   'real_sub_', 'neg_view_add_', 'conj_conj_mul_'])
def test_writes_through_a_flagged_view_reach_the_base(write):
    def f(lib):
        c = _c(lib)
        v = c.conj()
        before = c._version
        if write == 'setitem':
            v[0, 1] = 5 + 5j
        elif write == 'mul_':
            v.mul_(2j)
        elif write == 'copy_':
            v.copy_(lib.full((2, 2), 1 - 3j, dtype=lib.complex128))
        elif write == 'imag_fill_':
            v.imag.fill_(3)
        elif write == 'slice_add_':
            v[1:].add_(1 + 1j)
        elif write == 'real_sub_':
            v.real.sub_(1)
        elif write == 'conj_conj_mul_':
            v.conj().mul_(1j)
        else:
            lib._neg_view(c.real).add_(10)
            # (ember's conjugate view made before a write to its base shows the old values
            # until it is written itself; this one is made after)
            v = c.conj()
        return [c, v, c._version - before, v._version == c._version]
    oracle(f)


def test_a_flagged_view_written_after_its_base_sees_the_base():
    def f(lib):
        c = _c(lib)
        v = c.conj()
        c.add_(1)
        v[0, 0] = 7j  # (the rest of v is the conjugate of c's new values)
        return [c, v]
    oracle(f)


@pytest.mark.parametrize('call', ['numpy', 'numpy_force', 'view_as_real', 'neg_numpy',
                                  'resolved_numpy', 'view_as_real_resolved'])
def test_refusals(call):
    def f(lib):
        v = _c(lib).conj()
        n = lib._neg_view(lib.tensor([1.0, 2.0]))
        out = {'numpy': lambda: v.numpy(), 'numpy_force': lambda: v.numpy(force=True),
               'view_as_real': lambda: lib.view_as_real(v), 'neg_numpy': lambda: n.numpy(),
               'resolved_numpy': lambda: v.resolve_conj().numpy(),
               'view_as_real_resolved': lambda: lib.view_as_real(v.resolve_conj())}[call]()
        return np.asarray(out).tolist() if isinstance(out, np.ndarray) else out
    oracle(f)


def test_grad_fns_and_gradients():
    def f(lib):
        c = _c(lib, requires_grad=True)
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        w = lib.tensor([[2 + 1j, 1j], [-1, 0.5 - 2j]], dtype=lib.complex128)
        v = c.conj()
        n = lib._neg_view(x)
        names = [v.grad_fn.name(), v.imag.grad_fn.name(), v.resolve_conj().grad_fn.name(),
                 v.conj_physical().grad_fn.name(), n.grad_fn.name(),
                 n.resolve_neg().grad_fn.name()]
        loss = (v * w).abs().sum() + (v.imag * 3).sum() + (n * n * n).sum()
        gc, gx = lib.autograd.grad(loss, [c, x])
        return [names, gc, gx]
    oracle(f)


def test_forward_ad_through_a_conjugated_primal():
    def f(lib):
        fwAD = lib.autograd.forward_ad
        a = _c(lib).conj()
        with fwAD.dual_level():
            dual = fwAD.make_dual(a, _c(lib) * 1j)
            t = fwAD.unpack_dual(dual[1:] * 2).tangent
            u = fwAD.unpack_dual(dual.imag).tangent
            return [lib.is_conj(dual), t, u, len(a.storage()) == len(t.storage()) * 2]
    oracle(f)


def test_copies_resolve_the_bit():
    def f(lib):
        import copy
        import io
        v = _c(lib).conj()
        d = copy.deepcopy(v)
        buf = io.BytesIO()
        lib.save(v, buf)
        buf.seek(0)
        e = lib.load(buf)
        return [d.is_conj(), d, e.is_conj(), e, v.tolist(), v[0, 1].item()]
    oracle(f)


# -- both bits at once: a conjugated view negated (or a negated one conjugated) -------------
_BOTH = {'neg_of_conj': lambda lib, c: lib._neg_view(c.conj()),
         'conj_of_neg': lambda lib, c: lib._neg_view(c).conj(),
         'neg_conj_conj': lambda lib, c: lib._neg_view(c).conj().conj(),
         'neg_neg_conj': lambda lib, c: lib._neg_view(lib._neg_view(c.conj())),
         'slice_of_both': lambda lib, c: lib._neg_view(c.conj())[1:].t(),
         'detach_of_both': lambda lib, c: lib._neg_view(c.conj()).detach()}


@pytest.mark.parametrize('make', sorted(_BOTH))
@pytest.mark.parametrize('derive', ['self', 'resolve_conj', 'resolve_neg', 'both_resolved',
                                    'clone', 'imag', 'real', 'conj', 'conj_physical',
                                    'neg_view', 'row', 'mul', 'view_as_real', 'numpy'])
def test_both_bits(make, derive):
    def f(lib):
        t = _BOTH[make](lib, _c(lib))
        r = {'self': lambda: t, 'resolve_conj': lambda: t.resolve_conj(),
             'resolve_neg': lambda: t.resolve_neg(),
             'both_resolved': lambda: lib.resolve_neg(lib.resolve_conj(t)),
             'clone': lambda: t.clone(), 'imag': lambda: t.imag, 'real': lambda: t.real,
             'conj': lambda: t.conj(), 'conj_physical': lambda: t.conj_physical(),
             'neg_view': lambda: lib._neg_view(t), 'row': lambda: t[0],
             'mul': lambda: t * 2, 'view_as_real': lambda: lib.view_as_real(t),
             'numpy': lambda: t.numpy().tolist()}[derive]()
        if not isinstance(r, lib.Tensor):
            return r
        return [r, _bits(r), r is t, r.resolve_conj().resolve_neg().tolist()]
    oracle(f)


@pytest.mark.parametrize('write', ['setitem', 'mul_', 'imag_fill_', 'real_add_', 'copy_'])
def test_writes_through_both_bits_reach_the_base(write):
    def f(lib):
        c = _c(lib)
        v = lib._neg_view(c.conj())
        before = c._version
        if write == 'setitem':
            v[0, 1] = 5 + 5j
        elif write == 'mul_':
            v.mul_(2 - 1j)
        elif write == 'imag_fill_':
            v.imag.fill_(3)
        elif write == 'real_add_':
            v.real.add_(1)
        else:
            v.copy_(lib.full((2, 2), 1 - 3j, dtype=lib.complex128))
        return [c, v, c._version - before, v._version == c._version, _bits(v)]
    oracle(f)


def test_both_bits_grad_fns_and_gradients():
    def f(lib):
        c = _c(lib, requires_grad=True)
        w = lib.tensor([[2 + 1j, 1j], [-1, 0.5 - 2j]], dtype=lib.complex128)
        a = lib._neg_view(c.conj())
        b = lib._neg_view(c).conj()
        names = [a.grad_fn.name(), b.grad_fn.name(), a.imag.grad_fn.name(),
                 a.resolve_conj().grad_fn.name(), a.resolve_neg().grad_fn.name(),
                 a.conj().grad_fn.name()]
        loss = ((a * w).abs().sum() + (b * b).real.sum() + (a.imag * 3).sum()
                + (a.real ** 2).sum() + a.conj().resolve_neg().imag.sum())
        gc, = lib.autograd.grad(loss, [c], create_graph=True)
        ggc, = lib.autograd.grad(gc.abs().sum(), [c])
        return [names, gc, ggc]
    oracle(f)


def test_forward_ad_through_both_bits():
    def f(lib):
        fwAD = lib.autograd.forward_ad
        a = lib._neg_view(_c(lib).conj())
        with fwAD.dual_level():
            dual = fwAD.make_dual(a, _c(lib) * 1j)
            t = fwAD.unpack_dual(dual[1:] * 2).tangent
            u = fwAD.unpack_dual(dual.imag).tangent
            tangent = fwAD.unpack_dual(dual).tangent
            # (the tangent's bits; ember's tangent of a flagged primal is a view of its own
            # memory, torch's is not a view: its layout is compared nowhere here)
            return [lib.is_conj(dual), lib.is_neg(dual), t, u, tangent.is_conj(),
                    tangent.is_neg(), tangent]
    oracle(f)
