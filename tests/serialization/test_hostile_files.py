"""Hostile files: loading one never runs code and never claims memory its size cannot back.
Each file gets the exception class torch 2.13 raises for it (mostly pickle.UnpicklingError
from the weights-only unpickler, RuntimeError for a broken archive), and nothing else
happens: the marker file a payload would create stays absent."""
import io
import os
import pickle
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch
from .helpers import saved, rezip, outcome

MARKER = os.path.join(os.path.dirname(__file__), '_pwned_marker')


class _Reduce:
    """Pickles as ``func(*args)``: what a hostile pickle calls."""
    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


def _checkpoint():
    return saved(torch, {'w': torch.arange(6.).reshape(2, 3)})


def _with_pickle(pkl, base=None):
    """A valid torch checkpoint whose data.pkl is ``pkl``."""
    return rezip(base or _checkpoint(), lambda n, d: pkl if n.endswith('data.pkl') else d)


def _edit_pickle(old, new):
    return rezip(_checkpoint(), lambda n, d: d.replace(old, new) if n.endswith('data.pkl')
                 else d)


def _edit_record(edit):
    return rezip(_checkpoint(), lambda n, d: edit(d) if n.endswith('data/0') else d)


def _touch():
    return f'open({MARKER!r}, "w").write("x")'


def _deflated(records):
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
        for name, data in records.items():
            z.writestr(name, data)
    return out.getvalue()


def _legacy(obj_pickle):
    """torch's legacy layout with ``obj_pickle`` as the object's pickle."""
    head = b''.join(pickle.dumps(x, protocol=2) for x in (
        0x1950a86a20f9469cfc6c, 1001,
        {'protocol_version': 1001, 'little_endian': True,
         'type_sizes': {'short': 2, 'int': 4, 'long': 4}}))
    return head + obj_pickle


P2 = b'\x80\x02'
HOSTILE = {
    # pickles that would run code
    'os_system': lambda: _with_pickle(pickle.dumps(_Reduce(os.system, f'touch {MARKER}'), 2)),
    'eval': lambda: _with_pickle(pickle.dumps(_Reduce(eval, _touch()), 2)),
    'exec_in_a_list': lambda: _with_pickle(pickle.dumps([1, {'x': _Reduce(exec, _touch())}], 2)),
    # getattr(__import__('os'), 'system')('touch MARKER'), globals inside calls
    'nested_getattr': lambda: _with_pickle(
        P2 + b'c__builtin__\ngetattr\nc__builtin__\n__import__\nX\x02\x00\x00\x00os\x85R'
        b'X\x06\x00\x00\x00system\x86RX' + struct.pack('<I', len(f'touch {MARKER}')) +
        f'touch {MARKER}'.encode() + b'\x85R.'),
    'subprocess': lambda: _with_pickle(P2 + b'csubprocess\ncall\n(X\x04\x00\x00\x00trueI'
                                      b'\x85R.'.replace(b'I\x85', b'\x85')),
    'inst_opcode': lambda: _with_pickle(b'(X\x04\x00\x00\x00trueios\nsystem\n.'),
    'stack_global': lambda: _with_pickle(pickle.dumps(_Reduce(os.system, 'true'), 4)),
    'numpy_object_array': lambda: _with_pickle(pickle.dumps(np.array([1, None], object), 2)),
    'build_on_a_dtype': lambda: _with_pickle(P2 + b'ctorch\nfloat32\n}X\x01\x00\x00\x00aK\x01'
                                                  b'sb.'),
    'append_to_a_set': lambda: _with_pickle(P2 + b'\x8fK\x01a.'),
    'setitem_on_a_list': lambda: _with_pickle(P2 + b']K\x00K\x01s.'),
    'reduce_a_built_object': lambda: _with_pickle(
        P2 + b'ccollections\nOrderedDict\n)R)R.'),
    'newobj_of_a_built_object': lambda: _with_pickle(
        P2 + b'ccollections\nOrderedDict\n)R)\x81.'),
    'non_storage_persistent_id': lambda: _with_pickle(P2 + b'X\x06\x00\x00\x00module\x85Q.'),
    'storage_ref_of_wrong_types': lambda: _with_pickle(
        P2 + b'(X\x07\x00\x00\x00storageX\x04\x00\x00\x00type]X\x03\x00\x00\x00cpu'
        b'K\x01tQ.'),
    'huge_memo_index': lambda: _with_pickle(P2 + b'Nr\xff\xff\xff\x7f.'),
    'undefined_memo': lambda: _with_pickle(P2 + b'h\x05.'),
    'huge_string_length': lambda: _with_pickle(P2 + b'X\xff\xff\xff\x7fabc.'),
    # broken archives and records
    'empty': lambda: b'',
    'random_bytes': lambda: bytes(np.random.default_rng(0).integers(0, 256, 200, np.uint8)),
    'not_a_zip_after_all': lambda: b'PK\x03\x04' + b'\x00' * 100,
    'truncated_half': lambda: _checkpoint()[:len(_checkpoint()) // 2],
    'truncated_end': lambda: _checkpoint()[:-10],
    'corrupted_end_record': lambda: _checkpoint()[:-22] + b'\xff' * 22,
    'no_version_record': lambda: rezip(_checkpoint(), lambda n, d: None if
                                       n.endswith('/version') else d),
    'missing_data_pkl': lambda: rezip(_checkpoint(), lambda n, d: None if
                                      n.endswith('data.pkl') else d),
    'missing_record': lambda: rezip(_checkpoint(), lambda n, d: None if n.endswith('data/0')
                                    else d),
    'short_record': lambda: _edit_record(lambda d: d[:8]),
    'long_record': lambda: _edit_record(lambda d: d + bytes(8)),
    'truncated_pickle': lambda: _with_pickle(rezip_pickle()[:40]),
    'huge_storage_numel': lambda: _edit_pickle(b'K\x06t', b'\x8a\x05\x00\x00\x00\x00\x01t'),
    'tensor_past_its_storage': lambda: _edit_pickle(b'K\x02K\x03\x86', b'K\x05K\x03\x86'),
    'huge_tensor_sizes': lambda: _edit_pickle(b'K\x02K\x03\x86', b'J\x00\xca\x9a;J\x00\xca\x9a;'
                                              b'\x86'),
    'bad_byteorder': lambda: rezip(_checkpoint(), lambda n, d: b'middle' if
                                   n.endswith('byteorder') else d),
    'legacy_truncated': lambda: saved(torch, torch.ones(4), _use_new_zipfile_serialization=False
                                      )[:-4],
    'legacy_bad_magic': lambda: pickle.dumps(12345, 2) + saved(
        torch, torch.ones(1), _use_new_zipfile_serialization=False),
    'legacy_os_system': lambda: _legacy(pickle.dumps(_Reduce(os.system, 'true'), 2)),
}


# files where torch's exception is an accident of its code (an attribute missing on the
# wrong type it was handed): ember says what is wrong, as a RuntimeError
TORCH_ACCIDENTS = {'storage_ref_of_wrong_types': AttributeError}


def rezip_pickle():
    return zipfile.ZipFile(io.BytesIO(_checkpoint())).read('archive/data.pkl')


_CAUSES = ('GLOBAL', 'Unsupported operand', 'Can only', 'Trying to', 'persistent')


def _message_core(message):
    """The cause in a weights-only message (the line naming it), the library's name taken
    out: the framing around it is worded by each library."""
    for line in message.splitlines():
        if any(word in line for word in _CAUSES):
            line = line.strip().replace('WeightsUnpickler error: ', '')
            return line.replace('torch.serialization', 'LIB.serialization').replace(
                'ember.serialization', 'LIB.serialization')
    return None


@pytest.mark.parametrize('case', sorted(HOSTILE))
def test_a_hostile_file_gets_torchs_exception_and_does_nothing(case):
    data = HOSTILE[case]()
    results = {}
    for lib in (torch, ember):
        results[lib.__name__] = outcome(lambda: lib.load(io.BytesIO(data)))
        assert not os.path.exists(MARKER), f'{lib.__name__} ran the payload of {case}'
    t, e = results['torch'], results['ember']
    if case in TORCH_ACCIDENTS:
        assert t[0] is TORCH_ACCIDENTS[case] and e[0] is RuntimeError, results
        return
    assert e[0] is t[0], results
    if t[0] is pickle.UnpicklingError:
        assert e[1].startswith('Weights only load failed')
        if any(w in t[1] for w in ('was not an allowed global', 'is blocked',
                                   'Unsupported operand', 'persistent')):
            assert _message_core(e[1]) == _message_core(t[1]), results
        else:   # the object's type is named the library's way
            assert _message_core(e[1]).split(' but got')[0] == \
                _message_core(t[1]).split(' but got')[0], results
    elif t[0] is RuntimeError and 'record size' in t[1]:
        assert e[1] == t[1]
    elif t[0] == 'ok':
        assert e[1] == t[1]


@pytest.mark.parametrize('case', ['os_system', 'eval', 'nested_getattr'])
def test_weights_only_false_runs_the_pickle_as_torch_does(case):
    # the opposite check: with weights_only=False the file is trusted, as torch trusts it
    data = HOSTILE[case]()
    for lib in (torch, ember):
        try:
            lib.load(io.BytesIO(data), weights_only=False)
        except Exception:  # noqa: BLE001 -- what the payload returns need not load
            pass
        assert os.path.exists(MARKER), lib.__name__
        os.remove(MARKER)


def _peak_bytes(fn):
    tracemalloc.start()
    try:
        outcome(fn)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_zip_bomb_costs_no_memory():
    # 256 MB of zeros deflate to a quarter megabyte; ember streams data.pkl and stops at the
    # first byte that is not an opcode; torch reads the record whole first
    bomb = _deflated({'archive/data.pkl': bytes(256 << 20), 'archive/byteorder': b'little',
                      'archive/version': b'3\n'})
    assert len(bomb) < 1 << 20
    t = outcome(lambda: torch.load(io.BytesIO(bomb)))
    assert _peak_bytes(lambda: ember.load(io.BytesIO(bomb))) < 8 << 20
    assert outcome(lambda: ember.load(io.BytesIO(bomb)))[0] is t[0] is pickle.UnpicklingError
    # a storage record that inflates past its declared storage is refused before inflating
    good = zipfile.ZipFile(io.BytesIO(_checkpoint()))
    records = {n: good.read(n) for n in good.namelist()}
    records['archive/data/0'] = bytes(256 << 20)
    bomb = _deflated(records)
    assert _peak_bytes(lambda: ember.load(io.BytesIO(bomb))) < 8 << 20
    e = outcome(lambda: ember.load(io.BytesIO(bomb)))
    assert e[0] is RuntimeError and e[1].startswith('record size (268435456 bytes) does not '
                                                    'match expected size (24 bytes')


def test_a_legacy_file_declaring_a_huge_storage_claims_no_memory():
    data = saved(torch, torch.ones(4), _use_new_zipfile_serialization=False)
    # the storage's element count ends its persistent id: (..., 'cpu', 4, None)
    head, found, tail = data.partition(b'K\x04N')
    assert found
    huge = head + b'\x8a\x05\x00\x00\x00\x00\x01N' + tail    # 2 ** 32 elements
    assert _peak_bytes(lambda: ember.load(io.BytesIO(huge))) < 8 << 20
    assert outcome(lambda: ember.load(io.BytesIO(huge)))[0] is RuntimeError


def test_the_payload_marker_is_absent():
    assert not os.path.exists(MARKER)
