"""torch's checkpoint format (torch >= 1.6): a zip archive ``<name>/...`` holding

- ``data.pkl``: the pickled object; each storage in it is a persistent id
  ``('storage', <storage class>, <key>, <location>, <element count>)``;
- ``data/<key>``: each storage's bytes, stored uncompressed at a 64-byte aligned offset
  (so they can be memory-mapped);
- ``byteorder`` ('little' or 'big'), ``version`` ('3'), ``.format_version``,
  ``.storage_alignment`` and ``.data/serialization_id``.

``write`` writes it; ``Reader`` reads it, checking every size the file declares against the
others before allocating anything (a record's size against its storage's element count, a
tensor's extent against its storage), so a hostile file gets an error, not memory.
"""
import io
import mmap as mmap_module
import os
import struct
import sys
import time
import zipfile

import numpy as np

from ._pickler import TorchPickler, TorchName, StorageRef
from ._rebuild import Storage, ember_dtype

__all__ = ['write', 'Reader', 'is_zip']

_ALIGN = 64
_LOCAL_HEADER = struct.Struct('<4s5H3L2H')   # a zip entry's local header (30 bytes)
_CORRUPT = (" If you are seeing this error, there is a high likelihood that your checkpoint "
            "file is corrupted. This can happen if the checkpoint was not saved properly, was "
            "transferred incorrectly, or the file was modified after saving.")


def is_zip(f):
    """True if the binary file ``f`` (at its start) begins like a zip archive."""
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    return head == b'PK\x03\x04'


class _Pickler(TorchPickler):
    def persistent_id(self, obj):
        if type(obj) is StorageRef:
            return ('storage', TorchName(f'torch.{obj.type_name}'), obj.key, 'cpu', obj.numel)
        return None


def write(obj, f, archive, pickle_protocol=2):
    """Writes ``obj`` to the seekable binary file ``f`` as the zip archive ``archive``."""
    buf = io.BytesIO()
    pickler = _Pickler(buf, pickle_protocol)
    pickler.dump(obj)
    with zipfile.ZipFile(f, 'w', zipfile.ZIP_STORED) as z:
        _record(z, f'{archive}/data.pkl', buf.getbuffer())
        _record(z, f'{archive}/.format_version', b'1')
        _record(z, f'{archive}/.storage_alignment', str(_ALIGN).encode())
        _record(z, f'{archive}/byteorder', sys.byteorder.encode())
        for ref in pickler.storages:
            _record(z, f'{archive}/data/{ref.key}', ref.data.view(np.uint8))
        _record(z, f'{archive}/version', b'3\n')
        _record(z, f'{archive}/.data/serialization_id', _serialization_id())


def _serialization_id():
    # torch writes a random 40-digit id per save; any unique-enough digits will do
    return (f'{time.time_ns():020d}{int.from_bytes(os.urandom(8), "little"):020d}')[:40] \
        .encode()


def _record(z, name, data):
    """Adds an uncompressed entry whose data starts at a multiple of 64 bytes (padding in
    the local header's extra field, as torch pads), so a reader can map it in place."""
    data = memoryview(data).cast('B')
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    zip64 = len(data) > 0x7fffffff
    header = _LOCAL_HEADER.size + len(name.encode()) + 4 + (20 if zip64 else 0)
    pad = -(z.fp.tell() + header) % _ALIGN
    info.extra = struct.pack('<2sH', b'FB', pad) + b'Z' * pad
    info.file_size = len(data)
    with z.open(info, 'w', force_zip64=zip64) as out:
        out.write(data)


class Reader:
    """Reads a torch zip checkpoint from the seekable binary file ``f``; ``path`` names the
    file on disk when there is one (``mmap`` maps storages from it)."""

    def __init__(self, f, path=None):
        self.f = f
        self.path = path
        try:
            self.zip = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as e:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: failed finding "
                               f"central directory ({e})." + _CORRUPT) from None
        names = self.zip.namelist()
        pkl = [n for n in names if n.endswith('/data.pkl') or n == 'data.pkl']
        if not pkl:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not "
                               "found." + _CORRUPT)
        self.prefix = pkl[0][:-len('data.pkl')]
        self.size = f.seek(0, 2)
        if self.prefix + 'version' not in names and self.prefix + '.data/version' not in names:
            raise RuntimeError("PytorchStreamReader failed locating file version: file not "
                               "found." + _CORRUPT)
        order = self._small('byteorder', b'little')
        if order not in (b'little', b'big'):
            raise ValueError(f"Unknown endianness type: {order.decode(errors='replace')}")
        self.swap = order.decode() != sys.byteorder
        self._map = None

    def _small(self, name, default):
        try:
            info = self.zip.getinfo(self.prefix + name)
        except KeyError:
            return default
        if info.file_size > 64:
            raise RuntimeError(f"ember.load: record {name} is {info.file_size} bytes; "
                               "expected a few" + '.' + _CORRUPT)
        return self.zip.read(info)

    def _info(self, name):
        try:
            return self.zip.getinfo(self.prefix + name)
        except KeyError:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not "
                               "found." + _CORRUPT) from None

    def pickle_file(self):
        """``data.pkl`` as a binary file. A stored record is read whole (it is no bigger
        than the file); a compressed one is streamed, so the pickle reads only what its
        opcodes ask for and a zip bomb costs no more memory than the objects it builds."""
        info = self._info('data.pkl')
        if info.compress_type == zipfile.ZIP_STORED:
            return io.BytesIO(self.zip.read(info))
        return self.zip.open(info)

    def _data_offset(self, info):
        """Where an entry's bytes start in the file (after its local header)."""
        self.f.seek(info.header_offset)
        head = self.f.read(_LOCAL_HEADER.size)
        if len(head) != _LOCAL_HEADER.size or head[:4] != b'PK\x03\x04':
            raise RuntimeError(f"PytorchStreamReader failed reading file {info.filename}: "
                               "invalid header." + _CORRUPT)
        fields = _LOCAL_HEADER.unpack(head)
        start = info.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1]
        if start + info.file_size > self.size:
            raise RuntimeError(f"PytorchStreamReader failed reading file {info.filename}: "
                               "record runs past the end of the file." + _CORRUPT)
        return start

    def storage(self, type_name, key, numel, mmap=False):
        """The storage ``data/<key>``: ``numel`` elements of ``type_name``'s dtype, read (or
        memory-mapped copy-on-write) after checking the record holds exactly that many."""
        d = ember_dtype(type_name)
        if type(numel) is not int or numel < 0:
            raise RuntimeError(f"ember.load: invalid storage size {numel!r}")
        info = self._info(f'data/{key}')
        nbytes = numel * d.itemsize
        if info.file_size != nbytes:   # worded as torch words it, counting bytes
            raise RuntimeError(
                f"record size ({info.file_size} bytes) does not match expected size "
                f"({nbytes} bytes = {nbytes} elements * 1 bytes/element) for dtype Byte")
        if info.compress_type != zipfile.ZIP_STORED:
            if mmap:
                raise RuntimeError(f"ember.load: record data/{key} is compressed and cannot "
                                   "be memory-mapped")
            with self.zip.open(info) as src:
                flat = np.frombuffer(bytearray(src.read()), d.np)
        else:
            start = self._data_offset(info)
            if mmap and nbytes:
                if self._map is None:   # the whole file, mapped once, copy-on-write
                    with open(self.path, 'rb') as fh:
                        self._map = mmap_module.mmap(fh.fileno(), 0,
                                                   access=mmap_module.ACCESS_COPY)
                # each storage its own array over the map (not a slice of one array of the
                # whole file): saving it again writes this storage, not the file
                flat = np.frombuffer(self._map, d.np, numel, start)
            else:
                flat = np.empty(numel, d.np)
                self.f.seek(start)
                if self.f.readinto(memoryview(flat.view(np.uint8))) != nbytes:
                    raise RuntimeError(f"ember.load: record data/{key} is truncated." +
                                       _CORRUPT)
        if self.swap and d.itemsize > 1:
            flat = flat.byteswap()
        return Storage(flat)
