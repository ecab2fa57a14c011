"""Hurray element types in Python: profile hurray-elements.

An independent implementation of reference/HURRAY.md, standard library only,
written from that document alone. The unit is one tensor's element layer: a
type tag, a shape, a mode and the dense data bytes.

    >>> decode(0x49, [3], STRICT, bytes.fromhex("c503")).elements
    ['5', 'c', '3']
    >>> encode(0x49, [3], ["5", "c", "3"]).hex()
    'c503'
    >>> decode(0x47, [1], PERMISSIVE, b"").opaque
    True

decode() follows HURRAY.md 5.1's check order and stops at the first defect,
raising HurrayError with the rule's class ("TAG" or "DATA"), its ID and, where
section 5.2 gives one, an offset. encode() checks in the order 5.1 gives for
encoders. Elements are bit patterns: unsigned integers of the type's width B,
written as lower-case hex of exactly ceil(B / 4) digits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Collection, Iterable, NamedTuple, Optional, Sequence

# N and its bound are the Kiln reader's: the same exact product of a shape.
from kiln import U64_MAX, element_count

__all__ = ["HurrayType", "HurrayError", "Decoded", "TYPES", "TYPES_BY_TAG", "TYPES_BY_NAME",
           "TIER2_NAMES", "RULES", "STRICT", "PERMISSIVE", "MODES", "U64_MAX",
           "element_count", "data_size", "decode", "encode"]
__version__ = "0.1.0"

STRICT = "strict"
PERMISSIVE = "permissive"
MODES = (STRICT, PERMISSIVE)


# ---- The type table (HURRAY.md 3.2): the one place tags live ----

class HurrayType(NamedTuple):
    tag: int
    name: str
    tier: int
    bits: int

    @property
    def digits(self) -> int:
        """Hex digits of one element: ceil(B / 4)."""
        return -(-self.bits // 4)


TYPES = (
    HurrayType(0x01, "float16", 1, 16),
    HurrayType(0x02, "bfloat16", 1, 16),
    HurrayType(0x03, "float32", 1, 32),
    HurrayType(0x04, "float64", 1, 64),
    # Tags 0x10..0x31 are the brief's assumptions (HURRAY.md 3.2): one edit here.
    HurrayType(0x10, "int8", 1, 8),
    HurrayType(0x11, "uint8", 1, 8),
    HurrayType(0x12, "int16", 1, 16),
    HurrayType(0x13, "uint16", 1, 16),
    HurrayType(0x14, "int32", 1, 32),
    HurrayType(0x15, "uint32", 1, 32),
    HurrayType(0x16, "int64", 1, 64),
    HurrayType(0x17, "uint64", 1, 64),
    HurrayType(0x20, "bool", 1, 1),
    HurrayType(0x30, "complex64", 1, 64),
    HurrayType(0x31, "complex128", 1, 128),
    HurrayType(0x40, "float8_e4m3", 2, 8),
    HurrayType(0x41, "float8_e5m2", 2, 8),
    HurrayType(0x42, "float8_e8m0", 2, 8),
    HurrayType(0x43, "float4_e2m1", 2, 4),
    HurrayType(0x44, "float6_e2m3", 2, 6),
    HurrayType(0x45, "float6_e3m2", 2, 6),
    HurrayType(0x46, "float128", 2, 128),
    # 0x47 is reserved by the seed: absent from the table, so never recognized.
    HurrayType(0x48, "int4", 2, 4),
    HurrayType(0x49, "uint4", 2, 4),
    HurrayType(0x4A, "int2", 2, 2),
    HurrayType(0x4B, "uint2", 2, 2),
)
TYPES_BY_TAG = {t.tag: t for t in TYPES}
TYPES_BY_NAME = {t.name: t for t in TYPES}
TIER2_NAMES = tuple(t.name for t in TYPES if t.tier == 2)
_E8M0 = "float8_e8m0"
_E8M0_RESERVED = (0x00, 0xFF)
_E8M0_RESERVED_SET = frozenset(_E8M0_RESERVED)
_NEVER_VALID_TAGS = (0x00, 0xFF)


# ---- Rules (HURRAY.md 5.2) ----

RULES = {
    "HURRAY-TAG-ZERO-FF": "TAG",
    "HURRAY-TAG-UNRECOGNIZED": "TAG",
    "HURRAY-COUNT-OVERFLOW": "DATA",
    "HURRAY-SIZE-OVERFLOW": "DATA",
    "HURRAY-DATA-SHORT": "DATA",
    "HURRAY-PAD-BOOL": "DATA",
    "HURRAY-PAD-2BIT": "DATA",
    "HURRAY-PAD-4BIT": "DATA",
    "HURRAY-PAD-6BIT": "DATA",
    "HURRAY-E8M0-RESERVED": "DATA",
    "HURRAY-ENC-COUNT": "DATA",
    "HURRAY-ENC-RANGE": "DATA",
}
_PAD_RULE = {1: "HURRAY-PAD-BOOL", 2: "HURRAY-PAD-2BIT", 4: "HURRAY-PAD-4BIT", 6: "HURRAY-PAD-6BIT"}


class HurrayError(Exception):
    """A rejected tensor: the rule's class ("TAG" or "DATA"), its ID, and the
    offset section 5.2 gives for it (None when the rule has none). For the
    decoder the offset is a byte of the data; for the encoder's element rules
    it is the element's index."""

    def __init__(self, rule: str, message: str, offset: Optional[int] = None):
        super().__init__(message)
        self.error_class = RULES[rule]
        self.rule = rule
        self.message = message
        self.offset = offset

    def __str__(self) -> str:
        where = "" if self.offset is None else f" at {self.offset}"
        return f"{self.error_class} {self.rule}{where}: {self.message}"


@dataclass(frozen=True)
class Decoded:
    """An accepted tensor. `opaque` is True for a tag permissive mode did not
    interpret; then `type` is None and `elements` is empty. `extra_bytes`
    counts the bytes after S, which are not examined (HURRAY.md 6.2)."""
    type: Optional[HurrayType]
    elements: list = field(default_factory=list)
    opaque: bool = False
    extra_bytes: int = 0


# ---- Sizes (HURRAY.md 4; N is kiln.element_count) ----

def data_size(hurray_type: HurrayType, n: int) -> int:
    """S for N elements: whole bytes, or whole packing units for sub-byte types
    (a 6-bit unit is 3 bytes holding 4 elements: ceil(N / 4) * 3, never N * 6 / 8)."""
    if hurray_type.bits % 8 == 0:
        return n * (hurray_type.bits // 8)
    per_unit, unit_bytes = _unit(hurray_type.bits)
    return -(-n // per_unit) * unit_bytes


def _unit(bits: int) -> tuple[int, int]:
    """Sub-byte packing unit: (elements per unit, bytes per unit). Within a unit,
    read as a little-endian integer, element j sits at bits B*j .. B*j + B - 1."""
    if bits == 6:
        return 4, 3
    return 8 // bits, 1


# ---- Checking the arguments (caller errors, not rules) ----

def _check_tag(tag: int) -> None:
    if type(tag) is not int or not 0 <= tag <= 0xFF:
        raise ValueError(f"tag must be an integer 0..255, not {tag!r}")


def _check_shape(shape: Sequence[int]) -> list:
    dims = list(shape)
    for i, d in enumerate(dims):
        if type(d) is not int or not 0 <= d <= U64_MAX:
            raise ValueError(f"shape[{i}] must be an integer 0..2^64-1, not {d!r}")
    return dims


def _brief(value, limit: int = 64) -> str:
    """A value for a message, cut short: elements and shapes can be huge."""
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _supported(supported_tier2: Optional[Collection[str]]) -> frozenset:
    if supported_tier2 is None:
        return frozenset(TIER2_NAMES)
    names = frozenset(supported_tier2)
    unknown = sorted(n for n in names if n not in TIER2_NAMES)
    if unknown:
        raise ValueError(f"supported_tier2 names types that are not Tier 2: {', '.join(unknown)}")
    return names


def _recognized(tag: int, supported: frozenset) -> Optional[HurrayType]:
    """The tag's type, or None when unassigned, reserved, private or an
    unsupported Tier 2 type (HURRAY.md 2: all are handled alike)."""
    t = TYPES_BY_TAG.get(tag)
    if t is None or (t.tier == 2 and t.name not in supported):
        return None
    return t


def _sized(tag: int, dims: list, supported: frozenset, mode: str) -> tuple:
    """Steps 1 to 4's tag and overflow checks, shared by decode and encode.
    Returns (type, N, S), or (None, 0, 0) for an opaque tag in permissive mode."""
    if tag in _NEVER_VALID_TAGS:
        raise HurrayError("HURRAY-TAG-ZERO-FF", f"type tag 0x{tag:02x} is never valid")
    t = _recognized(tag, supported)
    if t is None:
        if mode == PERMISSIVE:
            return None, 0, 0
        known = TYPES_BY_TAG.get(tag)
        why = (f"Tier 2 type {known.name} is not supported" if known is not None
               else "the tag is not recognized")
        raise HurrayError("HURRAY-TAG-UNRECOGNIZED", f"type tag 0x{tag:02x}: {why}")
    n = element_count(dims)
    if n > U64_MAX:
        raise HurrayError("HURRAY-COUNT-OVERFLOW",
                          f"the element count of shape {_brief(dims)} exceeds 2^64-1")
    s = data_size(t, n)
    if s > U64_MAX:
        raise HurrayError("HURRAY-SIZE-OVERFLOW",
                          f"{n} {t.name} elements need {s} bytes, more than 2^64-1")
    return t, n, s


# ---- Decoding ----

# Per byte value, its elements as hex digits, for the one-byte packing units
# (bool, 2-bit, 4-bit) and for whole bytes: decoding is then one lookup a byte.
_BYTE_HEX = tuple(f"{b:02x}" for b in range(256))
_BYTE_ELEMENTS = {
    bits: tuple(tuple(f"{(b >> (bits * j)) & ((1 << bits) - 1):x}" for j in range(8 // bits))
                for b in range(256))
    for bits in (1, 2, 4)
}


def decode(tag: int, shape: Sequence[int], mode: str = STRICT, data: bytes = b"",
           supported_tier2: Optional[Collection[str]] = None) -> Decoded:
    """Judge one tensor's data; return its N element bit patterns or raise
    HurrayError for the first defect in HURRAY.md 5.1's order.

    supported_tier2 names the Tier 2 types to recognize; None means all of them.
    Nothing is allocated in proportion to N or S until the data holds S bytes.
    """
    _check_tag(tag)
    dims = _check_shape(shape)
    if mode not in MODES:
        raise ValueError(f"mode must be {STRICT!r} or {PERMISSIVE!r}, not {mode!r}")
    data = memoryview(data).cast("B")
    t, n, s = _sized(tag, dims, _supported(supported_tier2), mode)
    if t is None:
        return Decoded(type=None, opaque=True)
    if len(data) < s:
        raise HurrayError("HURRAY-DATA-SHORT",
                          f"{n} {t.name} elements need {s} bytes, the data holds {len(data)}",
                          len(data))
    body = bytes(data[:s])
    extra = len(data) - s
    if t.bits % 8:
        _check_padding(t, n, body)
    if t.name == _E8M0:
        _check_e8m0(body)
    return Decoded(type=t, elements=_unpack(t, n, body), extra_bytes=extra)


def _check_padding(t: HurrayType, n: int, body: bytes) -> None:
    per_unit, unit_bytes = _unit(t.bits)
    used = n % per_unit
    if used == 0:
        return
    last = int.from_bytes(body[-unit_bytes:], "little")
    stray = last >> (t.bits * used) << (t.bits * used)
    if stray:
        # The first byte of the final unit holding a set padding bit.
        offset = len(body) - unit_bytes + ((stray & -stray).bit_length() - 1) // 8
        raise HurrayError(_PAD_RULE[t.bits],
                          f"{t.name}: padding bits after element {n - 1} are not zero "
                          f"(byte 0x{body[offset]:02x})", offset)


def _check_e8m0(body: bytes) -> None:
    found = [i for i in (body.find(bytes([r])) for r in _E8M0_RESERVED) if i >= 0]
    if found:
        offset = min(found)
        raise HurrayError("HURRAY-E8M0-RESERVED",
                          f"float8_e8m0 element {offset} is the reserved pattern "
                          f"{body[offset]:02x}", offset)


def _unpack(t: HurrayType, n: int, body: bytes) -> list:
    if t.bits == 8:
        return [_BYTE_HEX[b] for b in body]
    if t.bits % 8 == 0:
        width = t.bits // 8
        # Little-endian: the element's last byte is its most significant.
        return [body[i:i + width][::-1].hex() for i in range(0, len(body), width)]
    if t.bits in _BYTE_ELEMENTS:
        table = _BYTE_ELEMENTS[t.bits]
        return list(islice(chain.from_iterable(table[b] for b in body), n))
    # 6-bit: four elements per 3-byte little-endian group, filled column by
    # column (element j of every group at once) to keep the loops in C.
    groups = [b0 | b1 << 8 | b2 << 16 for b0, b1, b2 in zip(body[0::3], body[1::3], body[2::3])]
    elements = [""] * (4 * len(groups))
    for j in range(4):
        elements[j::4] = [_BYTE_HEX[(g >> (6 * j)) & 0x3F] for g in groups]
    del elements[n:]
    return elements


# ---- Encoding ----

_HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")
# The values of the one- and two-digit elements in lower or upper case: a
# lookup instead of a regular expression and int() for the common elements
# (anything else, mixed case included, takes the general path).
_SHORT_HEX = {f"{v:0{d}{c}}": v for d in (1, 2) for v in range(16 ** d) for c in "xX"}


def _element_values(elements: Sequence[str]) -> list:
    """The elements' values; ValueError for one that is not a hex string."""
    if isinstance(elements, (str, bytes)):
        raise ValueError("elements must be a sequence of hex strings, not one string")
    try:
        values = list(map(_SHORT_HEX.get, elements))
    except TypeError:  # an unhashable element: the loop below names it
        values = [None] * len(elements)
    for i, v in enumerate(values):
        if v is None:
            e = elements[i]
            if not isinstance(e, str) or not _HEX_DIGITS.fullmatch(e):
                raise ValueError(f"elements[{i}] is not a hex string: {_brief(repr(e))}")
            values[i] = int(e, 16)
    return values


def encode(tag: int, shape: Sequence[int], elements: Sequence[str],
           supported_tier2: Optional[Collection[str]] = None) -> bytes:
    """Pack N element bit patterns (hex strings, either case, any number of
    digits: judged by value) into exactly S bytes with zero padding bits, or
    raise HurrayError in HURRAY.md 5.1's encoder order. An element that is
    not a hex string is the caller's error: ValueError, checked first."""
    _check_tag(tag)
    dims = _check_shape(shape)
    values = _element_values(elements)
    t, n, s = _sized(tag, dims, _supported(supported_tier2), STRICT)
    if len(values) != n:
        raise HurrayError("HURRAY-ENC-COUNT",
                          f"shape {_brief(dims)} holds {n} elements, {len(values)} were given")
    is_e8m0 = t.name == _E8M0
    # One pass in C for the common case; the loop finds the first defect in order.
    if values and (max(values) >> t.bits
                   or (is_e8m0 and not _E8M0_RESERVED_SET.isdisjoint(values))):
        for i, v in enumerate(values):
            if v >> t.bits:
                raise HurrayError("HURRAY-ENC-RANGE", f"elements[{i}] = {_brief(elements[i])} "
                                  f"does not fit the {t.bits} bits of {t.name}", i)
            if is_e8m0 and v in _E8M0_RESERVED:
                raise HurrayError("HURRAY-E8M0-RESERVED", f"elements[{i}] = {_brief(elements[i])} "
                                  "is a reserved float8_e8m0 pattern", i)
    data = _pack(t, values)
    assert len(data) == s
    return data


def _pack(t: HurrayType, values: list) -> bytes:
    if t.bits == 8:
        return bytes(values)
    if t.bits % 8 == 0:
        width = t.bits // 8
        return b"".join(v.to_bytes(width, "little") for v in values)
    per_unit, unit_bytes = _unit(t.bits)
    # Zero elements fill the final unit: they are its padding bits.
    values = values + [0] * (-len(values) % per_unit)
    units = values[0::per_unit]
    for j in range(1, per_unit):
        shift = t.bits * j
        units = [u | v << shift for u, v in zip(units, values[j::per_unit])]
    if unit_bytes == 1:
        return bytes(units)
    out = bytearray(unit_bytes * len(units))
    for k in range(unit_bytes):
        out[k::unit_bytes] = bytes((u >> (8 * k)) & 0xFF for u in units)
    return bytes(out)
