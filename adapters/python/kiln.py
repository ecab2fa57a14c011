"""Kiln v2 in Python: a strict reader and a canonical writer.

An independent implementation of reference/FORMAT.md, standard library only.
It shares no code with the C++ reference: its agreement with the reference is
what the conformance suite certifies (see README.md in this folder).

    >>> block = encode([Tensor("x", U4, (3,), b"\\x21\\x03")])
    >>> len(block)
    130
    >>> decode(block)[0].payload
    b'!\\x03'

decode() returns the tensors of a valid block or raises KilnError, whose
`error_class` is "FRAME" or "TYPE" and whose `rule` and `offset` are the rule
ID and absolute byte offset FORMAT.md section 5 gives for the first defect in
its check order. encode() raises the same error for content a reader would
reject, because it lays the block out and then reads it back.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence, Union

__all__ = ["Tensor", "KilnError", "Dtype", "DTYPES", "BOOL", "U4", "U16_MAX", "U32_MAX", "U64_MAX",
           "is_opaque", "decode", "encode"]
__version__ = "0.1.0"

# ---- Constants (FORMAT.md section 2) ----

MAGIC = b"KILN"
VERSION = 2
FLAG_LITTLE_ENDIAN = 0x02
HEADER_SIZE = 32
ENTRY_SIZE = 64

U16_MAX = 2**16 - 1
U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1

# Header: magic, version, flags, reserved, tensor_count, heap_length,
# payload_offset, payload_length.
_HEADER = struct.Struct("<4sBBHIIQQ")
# Entry: name_offset, name_length, dtype, rank, shape_offset, layout_offset,
# layout_length, block_size, reserved (28), data_offset, byte_length,
# reserved (48), reserved (56). The reserved 16 bytes are read as two u64 so
# that a defect is reported at entry + 48 or entry + 56, as FORMAT.md does.
_ENTRY = struct.Struct("<IIHHIIIIIQQQQ")
assert _HEADER.size == HEADER_SIZE and _ENTRY.size == ENTRY_SIZE


# ---- Dtypes (FORMAT.md section 4) ----

class Dtype(NamedTuple):
    code: int
    name: str
    width: int  # bytes per element; 0 for the nibble-packed dtypes
    packed: bool = False


DTYPES = {d.code: d for d in (
    Dtype(1, "f64", 8), Dtype(2, "f32", 4), Dtype(3, "f16", 2), Dtype(4, "bf16", 2),
    Dtype(5, "f8e4m3", 1), Dtype(6, "f8e5m2", 1), Dtype(7, "bool", 1),
    Dtype(8, "i8", 1), Dtype(9, "u8", 1), Dtype(10, "i16", 2), Dtype(11, "u16", 2),
    Dtype(12, "i32", 4), Dtype(13, "u32", 4), Dtype(14, "i64", 8), Dtype(15, "u64", 8),
    Dtype(16, "i4", 0, packed=True), Dtype(17, "u4", 0, packed=True),
    Dtype(18, "e2m1", 0, packed=True), Dtype(19, "e8m0", 1),
)}
BOOL = 7
U4 = 17
OPAQUE_FIRST, OPAQUE_LAST = 4096, 32767


def is_opaque(code: int) -> bool:
    return OPAQUE_FIRST <= code <= OPAQUE_LAST


# ---- Public types ----

@dataclass(frozen=True)
class Tensor:
    """One tensor as a block stores it: the payload is raw bytes, never converted.

    `layout` is the opaque layout name (None, or "" when writing, for none);
    `block_size` is 0 for closed dtypes. The decoder returns names and layout
    names as str; the encoder also takes bytes, so that content which is not
    UTF-8 can be offered to it (and refused).
    """
    name: Union[str, bytes]
    dtype: int
    shape: tuple
    payload: bytes
    layout: Union[str, bytes, None] = None
    block_size: int = 0


class KilnError(ValueError):
    """A block or a description that breaks a rule of FORMAT.md."""

    def __init__(self, rule: str, offset: int, message: str):
        super().__init__(f"{message} ({rule} at byte {offset})")
        self.rule = rule
        self.error_class = rule.split("-", 1)[0]  # "FRAME" or "TYPE"
        self.offset = offset
        self.message = message


# ---- Small helpers ----

def align8(x: int) -> int:
    return (x + 7) // 8 * 8


def align64(x: int) -> int:
    return (x + 63) // 64 * 64


def _first_nonzero(data: bytes, start: int, end: int):
    """Absolute index of the first nonzero byte in data[start:end], or None."""
    stripped = data[start:end].lstrip(b"\0")
    return None if not stripped else end - len(stripped)


def _utf8_error(raw: bytes):
    """Index of the first byte of the first invalid sequence, or None.

    Python's codec is strict UTF-8 in the RFC 3629 sense: it refuses overlong
    forms, encoded surrogates, scalars above U+10FFFF and cut sequences.
    """
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start
    return None


_NOT_BOOL = re.compile(rb"[^\x00\x01]")


def element_count(dims: Iterable[int]) -> int:
    """The exact product of the dimensions, stopping early once past U64_MAX
    (a long shape of huge dimensions must not build a huge integer): callers
    only compare it with U64_MAX. Any zero dimension makes it 0, however large
    the others are. hurray.py counts its elements with it too.
    """
    dims = list(dims)
    if 0 in dims:
        return 0
    n = 1
    for dim in dims:
        n *= dim
        if n > U64_MAX:
            break  # every later dimension is at least 1: n stays too big
    return n


# ---- Decoder (FORMAT.md section 5.2, in its check order) ----

class _Entry(NamedTuple):
    """One directory entry, with the heap and payload positions it resolves to."""
    at: int          # absolute offset of the entry
    fields: tuple    # the _ENTRY fields
    dims: tuple
    name: bytes
    layout: bytes
    payload_at: int  # absolute offset of the payload


def decode(block: bytes) -> list:
    """The tensors of one Kiln v2 block, in directory order; KilnError if invalid."""
    block = bytes(block)
    entries = _check_frame(block)
    _check_types(block, entries)
    return [Tensor(name=e.name.decode("utf-8"), dtype=e.fields[2], shape=e.dims,
                   payload=block[e.payload_at:e.payload_at + e.fields[10]],
                   layout=e.layout.decode("utf-8") if e.layout else None,
                   block_size=e.fields[7])
            for e in entries]


def _check_frame(block: bytes) -> list:
    size = len(block)

    # 1. The header, field by field, as far as the input reaches.
    if size < 4:
        raise KilnError("FRAME-TRUNCATED", size, f"{size} bytes cannot hold the magic")
    if block[0:4] != MAGIC:
        raise KilnError("FRAME-MAGIC", 0, f"magic is {block[0:4].hex()}, not 4b494c4e (\"KILN\")")
    if size < 5:
        raise KilnError("FRAME-TRUNCATED", size, "the input ends before the version byte")
    if block[4] != VERSION:
        raise KilnError("FRAME-VERSION", 4, f"version is {block[4]}, not 2")
    if size < 6:
        raise KilnError("FRAME-TRUNCATED", size, "the input ends before the flags byte")
    flags = block[5]
    if not flags & FLAG_LITTLE_ENDIAN:
        raise KilnError("FRAME-LE-FLAG", 5, f"flags 0x{flags:02x}: the little-endian bit 0x02 is clear")
    if flags & ~FLAG_LITTLE_ENDIAN:
        raise KilnError("FRAME-FLAGS-RESERVED", 5, f"flags 0x{flags:02x}: a reserved bit is set")
    if size < HEADER_SIZE:
        raise KilnError("FRAME-TRUNCATED", size, f"{size} bytes cannot hold the 32-byte header")
    (_, _, _, reserved, tensor_count, heap_length,
     payload_offset, payload_length) = _HEADER.unpack_from(block, 0)
    if reserved:
        raise KilnError("FRAME-HEADER-RESERVED", 6, "header bytes 6..7 are not zero")
    if heap_length % 8:
        raise KilnError("FRAME-HEAP-ALIGN", 12, f"heap_length {heap_length} is not a multiple of 8")

    # 2. payload_offset follows from the header alone.
    heap_start = HEADER_SIZE + ENTRY_SIZE * tensor_count
    heap_end = heap_start + heap_length
    if payload_offset != align64(heap_end):
        raise KilnError("FRAME-PAYLOAD-OFFSET", 16,
                        f"payload_offset {payload_offset}, expected {align64(heap_end)}")

    # 3. The block's length. From here on every promised byte exists.
    block_end = payload_offset + payload_length
    if size < payload_offset:
        raise KilnError("FRAME-TRUNCATED", size,
                        f"the input ends at {size}, before payload_offset {payload_offset}")
    if size < block_end:
        raise KilnError("FRAME-TRUNCATED", size,
                        f"the input ends at {size}, before the payload region's end {block_end}")
    if size > block_end:
        raise KilnError("FRAME-TRAILING", block_end,
                        f"{size - block_end} bytes follow the payload region's end {block_end}")

    # 4. Each entry against its canonical heap segment and payload position.
    entries = []
    names = set()
    heap_cursor = 0     # heap-relative start of the next canonical segment
    payload_cursor = 0  # payload-relative end of the previous payload
    for index in range(tensor_count):
        at = HEADER_SIZE + ENTRY_SIZE * index
        fields = _ENTRY.unpack_from(block, at)
        (name_offset, name_length, _dtype, rank, shape_offset, layout_offset,
         layout_length, _block_size, reserved28, data_offset, byte_length,
         reserved48, reserved56) = fields
        where = f"tensor {index}"

        for value, offset in ((reserved28, 28), (reserved48, 48), (reserved56, 56)):
            if value:
                raise KilnError("FRAME-ENTRY-RESERVED", at + offset,
                                f"{where}: reserved entry bytes at +{offset} are not zero")
        if name_length == 0:
            raise KilnError("FRAME-NAME-EMPTY", at + 4, f"{where}: the name is empty")
        if shape_offset != heap_cursor:
            raise KilnError("FRAME-SHAPE-OFFSET", at + 12,
                            f"{where}: shape_offset {shape_offset}, expected {heap_cursor}")
        if name_offset != shape_offset + 8 * rank:
            raise KilnError("FRAME-NAME-OFFSET", at + 0,
                            f"{where}: name_offset {name_offset}, expected {shape_offset + 8 * rank}")
        expected_layout_offset = name_offset + name_length if layout_length else 0
        if layout_offset != expected_layout_offset:
            raise KilnError("FRAME-LAYOUT-OFFSET", at + 16,
                            f"{where}: layout_offset {layout_offset}, expected {expected_layout_offset}")
        content_end = name_offset + name_length + layout_length
        segment_end = align8(content_end)
        if segment_end > heap_length:
            raise KilnError("FRAME-HEAP-LENGTH", 12,
                            f"{where}: the heap segment ends at {segment_end}, past heap_length {heap_length}")
        bad = _first_nonzero(block, heap_start + content_end, heap_start + segment_end)
        if bad is not None:
            raise KilnError("FRAME-PAD-HEAP", bad, f"{where}: heap padding byte is not zero")
        name = block[heap_start + name_offset:heap_start + name_offset + name_length]
        bad = _utf8_error(name)
        if bad is not None:
            raise KilnError("FRAME-NAME-UTF8", heap_start + name_offset + bad,
                            f"{where}: the name is not strict UTF-8")
        if name in names:
            raise KilnError("FRAME-NAME-UNIQUE", at + 0, f"{where}: the name {name!r} is already used")
        names.add(name)
        expected_data_offset = align64(payload_cursor)  # 0 for the first tensor
        if data_offset != expected_data_offset:
            raise KilnError("FRAME-DATA-OFFSET", at + 32,
                            f"{where}: data_offset {data_offset}, expected {expected_data_offset}")
        if data_offset + byte_length > payload_length:
            raise KilnError("FRAME-PAYLOAD-LENGTH", 24,
                            f"{where}: the payload ends at {data_offset + byte_length}, "
                            f"past payload_length {payload_length}")
        bad = _first_nonzero(block, payload_offset + payload_cursor, payload_offset + data_offset)
        if bad is not None:
            raise KilnError("FRAME-PAD-PAYLOAD", bad, f"{where}: padding before the payload is not zero")

        dims = struct.unpack_from(f"<{rank}Q", block, heap_start + shape_offset)
        layout_at = heap_start + layout_offset
        layout = block[layout_at:layout_at + layout_length] if layout_length else b""
        entries.append(_Entry(at, fields, dims, name, layout, payload_offset + data_offset))
        heap_cursor = segment_end
        payload_cursor = data_offset + byte_length

    # 5. Totals: no spare heap, a zero gap, no spare payload.
    if heap_cursor != heap_length:
        raise KilnError("FRAME-HEAP-LENGTH", 12,
                        f"heap_length {heap_length}, but the heap segments end at {heap_cursor}")
    bad = _first_nonzero(block, heap_end, payload_offset)
    if bad is not None:
        raise KilnError("FRAME-PAD-GAP", bad, "the gap before payload_offset is not zero")
    if payload_cursor != payload_length:
        raise KilnError("FRAME-PAYLOAD-LENGTH", 24,
                        f"payload_length {payload_length}, but the payloads end at {payload_cursor}")
    return entries


def _check_types(block: bytes, entries: list) -> None:
    heap_start = HEADER_SIZE + ENTRY_SIZE * len(entries)
    for index, e in enumerate(entries):
        (_, _, code, _, shape_offset, layout_offset, layout_length,
         block_size, _, _, byte_length, _, _) = e.fields
        where = f"tensor {index}"

        if code == 0:
            raise KilnError("TYPE-CODE-ZERO", e.at + 8, f"{where}: dtype code 0")
        if 20 <= code < OPAQUE_FIRST:
            raise KilnError("TYPE-CODE-RESERVED", e.at + 8, f"{where}: dtype code {code} is reserved")
        if code > OPAQUE_LAST:
            raise KilnError("TYPE-CODE-ABOVE-OPAQUE", e.at + 8,
                            f"{where}: dtype code {code} is above the opaque range")

        if is_opaque(code):
            if layout_length == 0:
                raise KilnError("TYPE-OPAQUE-LAYOUT", e.at + 20, f"{where}: opaque dtype without a layout name")
            bad = _utf8_error(e.layout)
            if bad is not None:
                raise KilnError("TYPE-OPAQUE-LAYOUT-UTF8", heap_start + layout_offset + bad,
                                f"{where}: the layout name is not strict UTF-8")
            if block_size == 0:
                raise KilnError("TYPE-OPAQUE-BLOCK-SIZE", e.at + 24, f"{where}: opaque dtype with block_size 0")
            if byte_length % block_size:
                raise KilnError("TYPE-OPAQUE-MULTIPLE", e.at + 40,
                                f"{where}: byte_length {byte_length} is not a multiple of block_size {block_size}")
            continue

        dtype = DTYPES[code]
        if layout_length:
            raise KilnError("TYPE-CLOSED-LAYOUT", e.at + 20, f"{where}: {dtype.name} has a layout name")
        if block_size:
            raise KilnError("TYPE-CLOSED-BLOCK-SIZE", e.at + 24,
                            f"{where}: {dtype.name} has block_size {block_size}, not 0")
        n = element_count(e.dims)
        if n > U64_MAX:
            raise KilnError("TYPE-SHAPE-OVERFLOW", heap_start + shape_offset,
                            f"{where}: the element count overflows 64 bits")
        expected = (n + 1) // 2 if dtype.packed else n * dtype.width
        if byte_length != expected:
            raise KilnError("TYPE-BYTE-LENGTH", e.at + 40,
                            f"{where}: byte_length {byte_length}, expected {expected} "
                            f"for {n} {dtype.name} elements")
        payload_end = e.payload_at + byte_length
        if code == BOOL:
            bad = _NOT_BOOL.search(block, e.payload_at, payload_end)
            if bad:
                raise KilnError("TYPE-BOOL-BYTE", bad.start(),
                                f"{where}: bool byte is {block[bad.start()]}, not 0 or 1")
        if dtype.packed and n % 2 and block[payload_end - 1] >> 4:
            raise KilnError("TYPE-HIGH-NIBBLE", payload_end - 1,
                            f"{where}: odd count {n} leaves a nonzero high nibble in the last byte")


# ---- Encoder (FORMAT.md sections 3 and 8) ----

def _text_bytes(text) -> bytes:
    """A name or layout name as stored. A str holding lone surrogates becomes
    their (invalid) UTF-8 form, which the read-back then refuses."""
    if text is None:
        return b""
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    return bytes(text)


def _check_field_ranges(items) -> None:
    """Refuses content no field can hold (FRAME-FIELD-RANGE), before any layout:
    nothing is ever truncated or wrapped to fit."""
    if len(items) > U32_MAX:
        raise KilnError("FRAME-FIELD-RANGE", 0, f"{len(items)} tensors do not fit a u32")
    heap = 0
    for index, (name, layout, dims, _, t) in enumerate(items):
        problem = None
        if not 0 <= t.dtype <= U16_MAX:
            problem = f"dtype {t.dtype} does not fit a u16"
        elif len(dims) > U16_MAX:
            problem = f"rank {len(dims)} does not fit a u16"
        elif any(not 0 <= d <= U64_MAX for d in dims):
            problem = "a dimension does not fit a u64"
        elif len(name) > U32_MAX or len(layout) > U32_MAX:
            problem = "a name or layout name is longer than a u32 length"
        elif not 0 <= t.block_size <= U32_MAX:
            problem = f"block_size {t.block_size} does not fit a u32"
        if problem:
            raise KilnError("FRAME-FIELD-RANGE", 0, f"tensor {index}: {problem}")
        heap = align8(heap + 8 * len(dims) + len(name) + len(layout))
    if heap > U32_MAX:
        raise KilnError("FRAME-FIELD-RANGE", 0, f"the heap would be {heap} bytes, past a u32")


def encode(tensors: Sequence[Tensor]) -> bytes:
    """The one canonical block for these tensors; KilnError for content a reader rejects."""
    items = [(_text_bytes(t.name), _text_bytes(t.layout), tuple(t.shape), bytes(t.payload), t)
             for t in tensors]

    _check_field_ranges(items)

    # Canonical placement (section 3): segments and payloads back to back,
    # each segment padded to 8 and each payload started at a multiple of 64.
    directory = bytearray()
    heap = bytearray()
    payloads = bytearray()
    for name, layout, dims, payload, t in items:
        shape_offset = len(heap)
        name_offset = shape_offset + 8 * len(dims)
        layout_offset = name_offset + len(name) if layout else 0
        heap += struct.pack(f"<{len(dims)}Q", *dims) + name + layout
        heap += bytes(align8(len(heap)) - len(heap))
        data_offset = align64(len(payloads))
        payloads += bytes(data_offset - len(payloads)) + payload
        directory += _ENTRY.pack(name_offset, len(name), t.dtype, len(dims), shape_offset,
                                 layout_offset, len(layout), t.block_size, 0,
                                 data_offset, len(payload), 0, 0)
    payload_offset = align64(HEADER_SIZE + len(directory) + len(heap))
    header = _HEADER.pack(MAGIC, VERSION, FLAG_LITTLE_ENDIAN, 0, len(items), len(heap),
                          payload_offset, len(payloads))
    front = header + directory + heap
    block = front + bytes(payload_offset - len(front)) + payloads

    # Same refusals as a reader: read the block back (FORMAT.md section 8).
    _check_types(block, _check_frame(block))
    return block
