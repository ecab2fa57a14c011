"""Unit tests of hurray.py and of kiln_adapter.py's hurray-elements profile.
Run in this folder: python3 -m unittest test_hurray

The worked examples are copied from reference/HURRAY.md section 7 (the seed's
examples and the brief's complex64 one), so these tests hold the code to the
document, not to itself; the type and rule tables are also read from the
document itself and compared with the code's.
"""

import doctest
import io
import json
import os
import random
import re
import subprocess
import sys
import time
import tracemalloc
import unittest

import hurray
import kiln_adapter
from hurray import PERMISSIVE, STRICT, U64_MAX, HurrayError

HERE = os.path.dirname(os.path.abspath(__file__))
HURRAY_MD = os.path.join(HERE, "..", "..", "reference", "HURRAY.md")
T = hurray.TYPES_BY_NAME
SUB_BYTE = [t for t in hurray.TYPES if t.bits % 8]
PAD_RULES = {1: "HURRAY-PAD-BOOL", 2: "HURRAY-PAD-2BIT", 4: "HURRAY-PAD-4BIT", 6: "HURRAY-PAD-6BIT"}

# HURRAY.md 7: (type, shape, elements, data).
WORKED_EXAMPLES = [
    ("bool", [5], ["1", "0", "1", "1", "0"], "0d"),
    ("uint4", [3], ["5", "c", "3"], "c503"),
    ("uint2", [3], ["3", "1", "2"], "27"),
    ("float6_e2m3", [4], ["01", "02", "04", "08"], "814020"),
    ("complex64", [1], ["400000003f800000"], "0000803f00000040"),
]


def tag(name):
    return T[name].tag


class Rejects(unittest.TestCase):
    def assertRejects(self, call, rule, offset=None, *args, **kwargs):
        with self.assertRaises(HurrayError) as caught:
            call(*args, **kwargs)
        error = caught.exception
        self.assertEqual(error.rule, rule, str(error))
        self.assertEqual(error.error_class, hurray.RULES[rule])
        self.assertEqual(error.offset, offset, str(error))
        self.assertIsInstance(error.message, str)
        return error

    def assertDecodeRejects(self, name_or_tag, shape, data, rule, offset=None, mode=STRICT, **kw):
        t = tag(name_or_tag) if isinstance(name_or_tag, str) else name_or_tag
        return self.assertRejects(hurray.decode, rule, offset, t, shape, mode, data, **kw)

    def assertEncodeRejects(self, name_or_tag, shape, elements, rule, offset=None, **kw):
        t = tag(name_or_tag) if isinstance(name_or_tag, str) else name_or_tag
        return self.assertRejects(hurray.encode, rule, offset, t, shape, elements, **kw)


class WorkedExamples(unittest.TestCase):
    def test_decode_gives_the_documents_elements(self):
        for name, shape, elements, data in WORKED_EXAMPLES:
            with self.subTest(name):
                decoded = hurray.decode(tag(name), shape, STRICT, bytes.fromhex(data))
                self.assertEqual(decoded.elements, elements)
                self.assertEqual((decoded.opaque, decoded.extra_bytes, decoded.type), (False, 0, T[name]))

    def test_encode_gives_the_documents_bytes(self):
        for name, shape, elements, data in WORKED_EXAMPLES:
            with self.subTest(name):
                self.assertEqual(hurray.encode(tag(name), shape, elements).hex(), data)

    def test_complex64_real_part_is_the_low_half(self):
        [element] = hurray.decode(tag("complex64"), [1], STRICT,
                                  bytes.fromhex("0000803f00000040")).elements
        self.assertEqual(element[8:], "3f800000")  # 1.0f, the real part
        self.assertEqual(element[:8], "40000000")  # 2.0f, the imaginary part


class Tags(Rejects):
    def test_00_and_ff_are_rejected_in_both_modes(self):
        for t in (0x00, 0xFF):
            for mode in (STRICT, PERMISSIVE):
                with self.subTest(tag=t, mode=mode):
                    error = self.assertDecodeRejects(t, [1], b"\x01", "HURRAY-TAG-ZERO-FF", mode=mode)
                    self.assertEqual(error.error_class, "TAG")
            self.assertEncodeRejects(t, [1], ["01"], "HURRAY-TAG-ZERO-FF")

    def test_47_strict_rejects_permissive_is_opaque(self):
        self.assertDecodeRejects(0x47, [1], b"\x01", "HURRAY-TAG-UNRECOGNIZED")
        decoded = hurray.decode(0x47, [1], PERMISSIVE, b"\x01")
        self.assertEqual((decoded.opaque, decoded.type, decoded.elements), (True, None, []))
        self.assertEncodeRejects(0x47, [1], ["01"], "HURRAY-TAG-UNRECOGNIZED")

    def test_every_tag_is_recognized_exactly_when_it_is_in_the_table(self):
        for t in range(1, 0xFF):
            with self.subTest(tag=t):
                if t in hurray.TYPES_BY_TAG:
                    self.assertFalse(hurray.decode(t, [0], STRICT, b"").opaque)
                    self.assertFalse(hurray.decode(t, [0], PERMISSIVE, b"").opaque)
                else:
                    self.assertDecodeRejects(t, [0], b"", "HURRAY-TAG-UNRECOGNIZED")
                    self.assertTrue(hurray.decode(t, [0], PERMISSIVE, b"").opaque)
                    self.assertEncodeRejects(t, [0], [], "HURRAY-TAG-UNRECOGNIZED")

    def test_opaque_interprets_nothing(self):
        # A short buffer, a count overflow: permissive mode looks at none of it.
        for shape, data in (([9], b""), ([2**63, 2**63], b""), ([3], b"\xff" * 7)):
            self.assertTrue(hurray.decode(0xF0, shape, PERMISSIVE, data).opaque)

    def test_unsupported_tier2_is_handled_as_unrecognized(self):
        supported = ("float8_e4m3",)
        for t in hurray.TYPES:
            with self.subTest(t.name):
                data = bytes(hurray.data_size(t, 1))
                if t.tier == 1 or t.name in supported:
                    hurray.decode(t.tag, [1], STRICT, data, supported)
                    hurray.encode(t.tag, [1], ["0" * t.digits], supported)
                else:
                    self.assertDecodeRejects(t.tag, [1], data, "HURRAY-TAG-UNRECOGNIZED",
                                             supported_tier2=supported)
                    self.assertTrue(hurray.decode(t.tag, [1], PERMISSIVE, data, supported).opaque)
                    self.assertEncodeRejects(t.tag, [1], ["0" * t.digits], "HURRAY-TAG-UNRECOGNIZED",
                                             supported_tier2=supported)
        self.assertDecodeRejects("uint4", [1], b"\x00", "HURRAY-TAG-UNRECOGNIZED", supported_tier2=())

    def test_the_default_supports_every_tier2_type(self):
        self.assertEqual(set(hurray.TIER2_NAMES), {t.name for t in hurray.TYPES if t.tier == 2})
        for name in hurray.TIER2_NAMES:
            hurray.decode(tag(name), [0], STRICT, b"")


class Rules(Rejects):
    def test_count_overflow(self):
        self.assertDecodeRejects("bool", [2**32, 2**32], b"", "HURRAY-COUNT-OVERFLOW")
        self.assertDecodeRejects("uint8", [U64_MAX, 2], b"", "HURRAY-COUNT-OVERFLOW")
        # Exactly 2^64 - 1 elements is a count, not an overflow: the data is short.
        self.assertDecodeRejects("bool", [U64_MAX], b"", "HURRAY-DATA-SHORT", 0)
        self.assertDecodeRejects("bool", [3, 5, 17, 257, 641, 65537, 6700417], b"\x00",
                                 "HURRAY-DATA-SHORT", 1)
        self.assertEncodeRejects("bool", [2**32, 2**32], [], "HURRAY-COUNT-OVERFLOW")

    def test_a_zero_dimension_wins_over_any_product(self):
        for shape in ([0], [U64_MAX, U64_MAX, 0], [0, 2**63, 2**63, 2**63]):
            with self.subTest(shape=shape):
                self.assertEqual(hurray.decode(tag("float128"), shape, STRICT, b"").elements, [])
                self.assertEqual(hurray.encode(tag("float128"), shape, []), b"")

    def test_size_overflow(self):
        self.assertDecodeRejects("uint16", [2**63], b"", "HURRAY-SIZE-OVERFLOW")
        self.assertDecodeRejects("float128", [2**60], b"", "HURRAY-SIZE-OVERFLOW")
        self.assertDecodeRejects("complex64", [2**61], b"", "HURRAY-SIZE-OVERFLOW")
        # S = 2^64 - 2 still fits.
        self.assertDecodeRejects("uint16", [U64_MAX // 2], b"", "HURRAY-DATA-SHORT", 0)
        self.assertEncodeRejects("float128", [2**60], [], "HURRAY-SIZE-OVERFLOW")
        # Sub-byte sizes never overflow, 6-bit included: ceil(N / 4) * 3 < 2^64.
        self.assertEqual(hurray.data_size(T["float6_e3m2"], U64_MAX), 3 * 2**62)
        self.assertDecodeRejects("float6_e3m2", [U64_MAX], b"", "HURRAY-DATA-SHORT", 0)

    def test_data_short_reports_the_data_length(self):
        for t in hurray.TYPES:
            for n in (1, 5, 9):
                s = hurray.data_size(t, n)
                with self.subTest(t.name, n=n):
                    self.assertDecodeRejects(t.tag, [n], b"\x01" * (s - 1), "HURRAY-DATA-SHORT", s - 1)

    def test_6bit_size_is_whole_groups(self):
        # ceil(6N / 8) bytes is short when N mod 4 is 1 or 2 (HURRAY.md, difference 1).
        for n, s in ((1, 3), (2, 3), (3, 3), (4, 3), (5, 6), (6, 6), (8, 6), (9, 9)):
            self.assertEqual(hurray.data_size(T["float6_e2m3"], n), s)
        self.assertDecodeRejects("float6_e2m3", [1], b"\x01", "HURRAY-DATA-SHORT", 1)
        self.assertDecodeRejects("float6_e2m3", [2], b"\x01\x00", "HURRAY-DATA-SHORT", 2)
        self.assertEqual(hurray.encode(tag("float6_e2m3"), [1], ["3f"]), b"\x3f\x00\x00")

    def test_sizes_of_every_width(self):
        for t in hurray.TYPES:
            for n in range(0, 20):
                expected = {1: -(-n // 8), 2: -(-n // 4), 4: -(-n // 2), 6: -(-n // 4) * 3}.get(
                    t.bits, n * t.bits // 8)
                self.assertEqual(hurray.data_size(t, n), expected, (t.name, n))

    def test_scalars_hold_one_element(self):
        self.assertEqual(hurray.decode(tag("bool"), [], STRICT, b"\x01").elements, ["1"])
        self.assertEqual(hurray.encode(tag("float6_e3m2"), [], ["2a"]), b"\x2a\x00\x00")
        self.assertEqual(hurray.encode(tag("float64"), [], ["0123456789abcdef"]),
                         bytes.fromhex("efcdab8967452301"))
        self.assertDecodeRejects("bool", [], b"", "HURRAY-DATA-SHORT", 0)

    def test_every_padding_bit_of_every_width(self):
        for t in SUB_BYTE:
            per_unit, unit_bytes = (4, 3) if t.bits == 6 else (8 // t.bits, 1)
            for n in range(1, 2 * per_unit + 1):
                used = n % per_unit
                if used == 0:
                    continue
                s = hurray.data_size(t, n)
                for bit in range(t.bits * used, 8 * unit_bytes):
                    data = bytearray(s)
                    byte_in_unit = bit // 8
                    data[s - unit_bytes + byte_in_unit] |= 1 << (bit % 8)
                    with self.subTest(t.name, n=n, bit=bit):
                        self.assertDecodeRejects(t.tag, [n], bytes(data), PAD_RULES[t.bits],
                                                 s - unit_bytes + byte_in_unit)
                # The bit just below the padding is an element's: accepted.
                data = bytearray(s)
                below = t.bits * used - 1
                data[s - unit_bytes + below // 8] |= 1 << (below % 8)
                hurray.decode(t.tag, [n], STRICT, bytes(data))

    def test_6bit_padding_offset_is_the_first_group_byte_with_a_bit_set(self):
        # N = 1: bits 6..23 of the group are padding; bytes 1 and 2 both dirty: byte 1.
        self.assertDecodeRejects("float6_e3m2", [1], b"\x00\x01\x80", "HURRAY-PAD-6BIT", 1)
        self.assertDecodeRejects("float6_e3m2", [1], b"\xc0\x00\x80", "HURRAY-PAD-6BIT", 0)
        self.assertDecodeRejects("float6_e3m2", [5], b"\x00\x00\x00\x3f\x00\x10", "HURRAY-PAD-6BIT", 5)
        # Padding of a whole earlier group cannot exist: only the final group has unused bits.
        self.assertEqual(hurray.decode(tag("float6_e3m2"), [5], STRICT, b"\xff\xff\xff\x3f\x00\x00")
                         .elements, ["3f"] * 5)

    def test_e8m0_reserved_patterns(self):
        e8m0 = tag("float8_e8m0")
        self.assertDecodeRejects(e8m0, [1], b"\x00", "HURRAY-E8M0-RESERVED", 0)
        self.assertDecodeRejects(e8m0, [1], b"\xff", "HURRAY-E8M0-RESERVED", 0)
        self.assertDecodeRejects(e8m0, [4], b"\x7f\x01\xff\x00", "HURRAY-E8M0-RESERVED", 2)
        self.assertDecodeRejects(e8m0, [4], b"\x7f\x00\xff\x00", "HURRAY-E8M0-RESERVED", 1)
        self.assertEqual(hurray.decode(e8m0, [2], STRICT, b"\x01\xfe").elements, ["01", "fe"])
        self.assertEncodeRejects(e8m0, [2], ["7f", "ff"], "HURRAY-E8M0-RESERVED", 1)
        self.assertEncodeRejects(e8m0, [1], ["000"], "HURRAY-E8M0-RESERVED", 0)
        # Other 8-bit types keep 00 and ff; e4m3 NaNs, e5m2 infinities included.
        for name in ("float8_e4m3", "float8_e5m2", "uint8", "int8"):
            data = b"\x00\xff\x7f\x7c\xfc"
            self.assertEqual(hurray.encode(tag(name), [5], hurray.decode(tag(name), [5], STRICT, data)
                                           .elements), data)

    def test_short_data_is_checked_before_padding_and_e8m0(self):
        self.assertDecodeRejects("uint4", [3], b"\xff", "HURRAY-DATA-SHORT", 1)
        self.assertDecodeRejects("float8_e8m0", [3], b"\x00\x00", "HURRAY-DATA-SHORT", 2)

    def test_encode_count(self):
        self.assertEncodeRejects("uint4", [3], ["5", "c"], "HURRAY-ENC-COUNT")
        self.assertEncodeRejects("uint4", [3], ["5", "c", "3", "0"], "HURRAY-ENC-COUNT")
        self.assertEncodeRejects("uint4", [], [], "HURRAY-ENC-COUNT")
        self.assertEncodeRejects("uint4", [0], ["0"], "HURRAY-ENC-COUNT")
        # Count before range: every element is out of range too.
        self.assertEncodeRejects("uint4", [3], ["10", "10"], "HURRAY-ENC-COUNT")

    def test_encode_range_is_judged_by_value(self):
        self.assertEncodeRejects("uint4", [1], ["10"], "HURRAY-ENC-RANGE", 0)
        self.assertEqual(hurray.encode(tag("uint4"), [1], ["000f"]), b"\x0f")
        self.assertEqual(hurray.encode(tag("uint4"), [1], ["F"]), b"\x0f")
        self.assertEqual(hurray.encode(tag("uint8"), [3], ["aB", "Cd", "0" * 5000 + "7"]), b"\xab\xcd\x07")
        self.assertEqual(hurray.encode(tag("uint16"), [1], ["Beef"]), b"\xef\xbe")
        self.assertEncodeRejects("bool", [3], ["1", "0", "2"], "HURRAY-ENC-RANGE", 2)
        self.assertEncodeRejects("int2", [1], ["4"], "HURRAY-ENC-RANGE", 0)
        self.assertEncodeRejects("float6_e2m3", [2], ["3f", "40"], "HURRAY-ENC-RANGE", 1)
        self.assertEncodeRejects("uint8", [1], ["100"], "HURRAY-ENC-RANGE", 0)
        self.assertEncodeRejects("float128", [1], ["1" + "0" * 32], "HURRAY-ENC-RANGE", 0)
        self.assertEqual(hurray.encode(tag("float128"), [1], ["0" * 40 + "f" * 32]), b"\xff" * 16)

    def test_encode_checks_each_element_value_then_pattern_in_order(self):
        e8m0 = tag("float8_e8m0")
        self.assertEncodeRejects(e8m0, [2], ["100", "ff"], "HURRAY-ENC-RANGE", 0)
        self.assertEncodeRejects(e8m0, [2], ["ff", "100"], "HURRAY-E8M0-RESERVED", 0)

    def test_encoder_order_tag_then_overflow_then_count(self):
        self.assertEncodeRejects(0x00, [2**63, 2**63], ["1"], "HURRAY-TAG-ZERO-FF")
        self.assertEncodeRejects(0x47, [2**63, 2**63], ["1"], "HURRAY-TAG-UNRECOGNIZED")
        self.assertEncodeRejects("uint4", [2**63, 2**63], ["1"], "HURRAY-COUNT-OVERFLOW")
        self.assertEncodeRejects("float128", [2**60], ["1"], "HURRAY-SIZE-OVERFLOW")

    def test_decoder_order_tag_then_count_then_short(self):
        self.assertDecodeRejects(0xFF, [2**63, 2**63], b"", "HURRAY-TAG-ZERO-FF")
        self.assertDecodeRejects(0x80, [2**63, 2**63], b"", "HURRAY-TAG-UNRECOGNIZED")
        self.assertDecodeRejects("float128", [2**63, 2**63], b"", "HURRAY-COUNT-OVERFLOW")

    def test_bytes_after_s_are_accepted_and_not_examined(self):
        decoded = hurray.decode(tag("bool"), [5], STRICT, b"\x0d\xff\x00")
        self.assertEqual((decoded.elements, decoded.extra_bytes), (["1", "0", "1", "1", "0"], 2))
        self.assertEqual(hurray.decode(tag("float8_e8m0"), [1], STRICT, b"\x01\x00").elements, ["01"])
        self.assertEqual(hurray.decode(tag("float6_e2m3"), [1], STRICT, b"\x01\x00\x00\xff")
                         .extra_bytes, 1)
        self.assertEqual(hurray.decode(tag("uint8"), [0], STRICT, b"\xff").extra_bytes, 1)

    def test_caller_errors_are_value_errors_not_rules(self):
        for call in (lambda: hurray.decode(256, [1], STRICT, b""),
                     lambda: hurray.decode(True, [1], STRICT, b""),
                     lambda: hurray.decode(1, [-1], STRICT, b""),
                     lambda: hurray.decode(1, [2**64], STRICT, b""),
                     lambda: hurray.decode(1, [1.0], STRICT, b""),
                     lambda: hurray.decode(1, [1], "lax", b""),
                     lambda: hurray.decode(1, [1], STRICT, b"\0\0", ["bool"]),
                     lambda: hurray.encode(0x49, [1], ["x"]),
                     lambda: hurray.encode(0x49, [1], [""]),
                     lambda: hurray.encode(0x49, [1], ["0x1"]),
                     lambda: hurray.encode(0x49, [1], [" 1"]),
                     lambda: hurray.encode(0x49, [1], ["1_0"]),
                     lambda: hurray.encode(0x49, [1], [1]),
                     lambda: hurray.encode(0x49, [1], [["1"]]),
                     lambda: hurray.encode(0x49, [1], [None])):
            with self.assertRaises(ValueError):
                call()

    def test_not_hex_is_an_error_even_where_a_rule_would_apply(self):
        with self.assertRaises(ValueError):
            hurray.encode(0x00, [1], ["z"])


class RoundTrips(unittest.TestCase):
    def random_element(self, t, rng):
        while True:
            v = rng.getrandbits(t.bits)
            if t.name != "float8_e8m0" or v not in (0x00, 0xFF):
                return f"{v:0{t.digits}x}"

    def test_every_type_and_every_remainder_of_n(self):
        rng = random.Random(3)
        for t in hurray.TYPES:
            for n in range(0, 26):
                for _ in range(4):
                    elements = [self.random_element(t, rng) for _ in range(n)]
                    with self.subTest(t.name, n=n):
                        data = hurray.encode(t.tag, [n], elements)
                        self.assertEqual(len(data), hurray.data_size(t, n))
                        self.assertEqual(hurray.decode(t.tag, [n], STRICT, data).elements, elements)
                        self.assertEqual(hurray.decode(t.tag, [n], PERMISSIVE, data).elements, elements)

    def test_random_valid_data_survives_decode_then_encode(self):
        rng = random.Random(4)
        for t in hurray.TYPES:
            for n in range(0, 26):
                s = hurray.data_size(t, n)
                data = bytearray(rng.getrandbits(8) for _ in range(s))
                if t.bits % 8 and n:
                    # Clear the padding: keep only the N * B element bits of the stream.
                    stream = int.from_bytes(data, "little") & ((1 << (n * t.bits)) - 1)
                    data = bytearray(stream.to_bytes(s, "little"))
                if t.name == "float8_e8m0":
                    data = bytearray(b if b not in (0, 255) else 0x7F for b in data)
                with self.subTest(t.name, n=n):
                    elements = hurray.decode(t.tag, [n], STRICT, bytes(data)).elements
                    self.assertEqual(len(elements), n)
                    self.assertTrue(all(len(e) == t.digits and e == e.lower() for e in elements))
                    self.assertEqual(hurray.encode(t.tag, [n], elements), bytes(data))

    def test_sub_byte_packing_is_one_lsb_first_bit_stream(self):
        # HURRAY.md 4: element i at bits B*i.. of the little-endian stream, 6-bit groups included.
        rng = random.Random(5)
        for t in SUB_BYTE:
            n = 37
            values = [rng.getrandbits(t.bits) for _ in range(n)]
            stream = sum(v << (t.bits * i) for i, v in enumerate(values))
            expected = stream.to_bytes(hurray.data_size(t, n), "little")
            self.assertEqual(hurray.encode(t.tag, [n], [f"{v:x}" for v in values]), expected, t.name)

    def test_shapes_of_several_dimensions(self):
        elements = [f"{i:x}" for i in range(12)]
        data = hurray.encode(tag("int4"), [2, 3, 2], elements)
        self.assertEqual(data, hurray.encode(tag("int4"), [12], elements))
        self.assertEqual(hurray.decode(tag("int4"), [3, 1, 4], STRICT, data).elements, elements)

    def test_whole_byte_elements_are_little_endian(self):
        self.assertEqual(hurray.decode(tag("float32"), [2], STRICT, bytes.fromhex("0000803f000000c0"))
                         .elements, ["3f800000", "c0000000"])
        self.assertEqual(hurray.encode(tag("int16"), [1], ["8001"]), b"\x01\x80")
        # A signalling NaN payload and negative zero come back bit for bit.
        for pattern in ("7ff0000000000001", "8000000000000000"):
            data = hurray.encode(tag("float64"), [1], [pattern])
            self.assertEqual(hurray.decode(tag("float64"), [1], STRICT, data).elements, [pattern])


class HugeShapes(unittest.TestCase):
    """Nothing is allocated from a declared shape before the data holds S bytes."""

    CALLS = [
        lambda: hurray.decode(0x20, [2**63, 2**63], STRICT, b"\x00"),
        lambda: hurray.decode(0x20, [2**32, 2**31], STRICT, b"\x00"),
        lambda: hurray.decode(0x46, [2**59], STRICT, b"\x00"),
        lambda: hurray.decode(0x44, [U64_MAX], STRICT, b"\x00" * 3),
        lambda: hurray.decode(0x42, [2**40], STRICT, b"\x00"),
        lambda: hurray.decode(0x03, [U64_MAX] * 1000, STRICT, b""),
        lambda: hurray.encode(0x20, [2**63], ["1"]),
        lambda: hurray.encode(0x49, [2**63, 2**63], []),
    ]

    def test_each_is_rejected_quickly_and_small(self):
        tracemalloc.start()
        try:
            for call in self.CALLS:
                started = time.monotonic()
                with self.assertRaises(HurrayError):
                    call()
                self.assertLess(time.monotonic() - started, 0.5)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertLess(peak, 1 << 20)

    def test_opaque_huge_shape(self):
        self.assertTrue(hurray.decode(0x47, [U64_MAX] * 64, PERMISSIVE, b"").opaque)


class AgainstHurrayMd(unittest.TestCase):
    """The code's tables are the document's (section 3.2 and 5.2)."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(HURRAY_MD):
            raise unittest.SkipTest("reference/HURRAY.md is not beside this folder")
        with open(HURRAY_MD, encoding="utf-8") as f:
            cls.text = f.read()

    def test_type_table(self):
        rows = re.findall(r"^\| 0x([0-9A-F]{2}) \| (\w+) \| ([12]) \| (\d+) \|", self.text, re.M)
        documented = [hurray.HurrayType(int(t, 16), n, int(tier), int(b)) for t, n, tier, b in rows]
        self.assertEqual(documented, list(hurray.TYPES))

    def test_rule_table(self):
        rows = re.findall(r"^\| `(HURRAY-[A-Z0-9-]+)` \| (TAG|DATA) \|", self.text, re.M)
        self.assertEqual(dict(rows), hurray.RULES)
        self.assertEqual(len(rows), 12)

    def test_table_invariants(self):
        self.assertEqual(len({t.tag for t in hurray.TYPES}), len(hurray.TYPES))
        self.assertEqual(len({t.name for t in hurray.TYPES}), len(hurray.TYPES))
        for t in hurray.TYPES:
            self.assertIn(t.tag, range(0x01, 0x40) if t.tier == 1 else range(0x40, 0x80), t.name)
            self.assertIn(t.bits, (1, 2, 4, 6, 8, 16, 32, 64, 128))
        self.assertNotIn(0x47, hurray.TYPES_BY_TAG)


class Adapter(unittest.TestCase):
    def exchange(self, *requests, hurray_tier2=hurray.TIER2_NAMES, int64=kiln_adapter.INT64_NUMBER):
        stdin = io.BytesIO(b"".join(
            (r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in requests))
        stdout = io.BytesIO()
        kiln_adapter.serve(stdin, stdout, hurray_tier2, int64)
        lines = stdout.getvalue().splitlines()
        self.assertEqual(len(lines), len(requests))
        return [json.loads(line) for line in lines]

    @staticmethod
    def decode(tag_, shape, data, **more):
        return dict({"op": "decode", "profile": "hurray-elements", "tag": tag_, "shape": shape,
                     "data": data}, **more)

    @staticmethod
    def encode(tag_, shape, elements, **more):
        return dict({"op": "encode", "profile": "hurray-elements", "tag": tag_, "shape": shape,
                     "elements": elements}, **more)

    def test_hello_offers_both_profiles_and_every_tier2_type(self):
        [reply] = self.exchange({"op": "hello", "protocol": 1})
        self.assertEqual(reply["profiles"], ["kiln-v2", "hurray-elements"])
        self.assertEqual(reply["hurray_tier2"], list(hurray.TIER2_NAMES))
        self.assertEqual(len(reply["hurray_tier2"]), 11)

    def test_the_briefs_messages(self):
        accept, opaque, short, data = self.exchange(
            {"op": "decode", "profile": "hurray-elements", "case": "hurray-uint4-3", "tag": 73,
             "shape": [3], "mode": "strict", "data": "c503"},
            self.decode(0x47, [1], "00", mode="permissive"),
            self.decode(73, [3], "c5"),
            {"op": "encode", "profile": "hurray-elements", "case": "hurray-uint4-3", "tag": 73,
             "shape": [3], "elements": ["5", "c", "3"]})
        self.assertEqual(accept, {"result": "accept", "elements": ["5", "c", "3"],
                                  "case": "hurray-uint4-3"})
        self.assertEqual(opaque, {"result": "opaque"})
        self.assertEqual({k: short[k] for k in ("result", "class", "rule", "offset")},
                         {"result": "reject", "class": "DATA", "rule": "HURRAY-DATA-SHORT", "offset": 1})
        self.assertIsInstance(short["message"], str)
        self.assertEqual(data, {"result": "data", "data": "c503", "case": "hurray-uint4-3"})

    def test_the_worked_examples_both_ways(self):
        for name, shape, elements, data in WORKED_EXAMPLES:
            decoded, encoded = self.exchange(self.decode(tag(name), shape, data.upper()),
                                             self.encode(tag(name), shape, elements))
            self.assertEqual(decoded, {"result": "accept", "elements": elements}, name)
            self.assertEqual(encoded, {"result": "data", "data": data}, name)

    def test_rejects_carry_class_rule_and_an_offset_only_where_the_rule_has_one(self):
        e8m0, tag_00, tag_ff, strict_47, no_mode_47, wide, few = self.exchange(
            self.decode(0x42, [1], "ff"),
            self.decode(0x00, [1], "01", mode="permissive"),
            self.decode(0xFF, [1], "01"),
            self.decode(0x47, [1], "01", mode="strict"),
            self.decode(0x47, [1], "01"),
            self.encode(0x49, [1], ["10"]),
            self.encode(0x49, [2], ["1"]))
        self.assertEqual((e8m0["class"], e8m0["rule"], e8m0["offset"]), ("DATA", "HURRAY-E8M0-RESERVED", 0))
        for reply, rule in ((tag_00, "HURRAY-TAG-ZERO-FF"), (tag_ff, "HURRAY-TAG-ZERO-FF"),
                            (strict_47, "HURRAY-TAG-UNRECOGNIZED"), (no_mode_47, "HURRAY-TAG-UNRECOGNIZED")):
            self.assertEqual((reply["result"], reply["class"], reply["rule"]), ("reject", "TAG", rule))
            self.assertNotIn("offset", reply)
        self.assertEqual((wide["class"], wide["rule"], wide["offset"]), ("DATA", "HURRAY-ENC-RANGE", 0))
        self.assertEqual((few["class"], few["rule"]), ("DATA", "HURRAY-ENC-COUNT"))
        self.assertNotIn("offset", few)

    def test_shapes_stay_exact_integers(self):
        overflow, short = self.exchange(self.decode(0x20, [U64_MAX, 2], "00"),
                                        self.decode(0x20, [U64_MAX], "00"))
        self.assertEqual(overflow["rule"], "HURRAY-COUNT-OVERFLOW")
        self.assertEqual((short["rule"], short["offset"]), ("HURRAY-DATA-SHORT", 1))

    def test_unknown_members_are_ignored_and_encode_has_no_mode(self):
        accept, data = self.exchange(self.decode(0x49, [3], "c503", block="zz", future=[1]),
                                     self.encode(0x49, [3], ["5", "c", "3"], mode="nonsense"))
        self.assertEqual(accept["elements"], ["5", "c", "3"])
        self.assertEqual(data["data"], "c503")

    def test_kiln_requests_are_unchanged_beside_hurray_ones(self):
        kiln_reply, hurray_reply = self.exchange({"op": "decode", "block": ""},
                                                 self.decode(0x49, [1], "05"))
        self.assertEqual(kiln_reply["rule"], "FRAME-TRUNCATED")
        self.assertEqual(hurray_reply["elements"], ["5"])

    def test_bad_requests_get_error_replies_and_serving_goes_on(self):
        bad_requests = [
            self.decode(256, [1], "00"),
            self.decode(-1, [1], "00"),
            self.decode("73", [1], "00"),
            self.decode(73.0, [1], "00"),
            self.decode(True, [1], "00"),
            self.decode(None, [1], "00"),
            self.decode(73, 3, "00"),
            self.decode(73, [2**64], "00"),
            self.decode(73, [-1], "00"),
            self.decode(73, [1.0], "00"),
            self.decode(73, [False], "00"),
            self.decode(73, [1], "0g"),
            self.decode(73, [1], "050"),
            self.decode(73, [1], 5),
            self.decode(73, [1], "00", mode="lax"),
            self.decode(73, [1], "00", mode=None),
            self.decode(73, [1], "00", mode="STRICT"),
            self.decode(73, [1], "00", case=7),
            self.decode(73, [1], "00", profile="hurray"),
            {"op": "decode", "profile": "hurray-elements", "shape": [1], "data": "00"},
            {"op": "decode", "profile": "hurray-elements", "tag": 73, "data": "00"},
            {"op": "decode", "profile": "hurray-elements", "tag": 73, "shape": [1]},
            {"op": "encode", "profile": "hurray-elements", "tag": 73, "shape": [1]},
            self.encode(73, [1], "5"),
            self.encode(73, [1], [5]),
            self.encode(73, [1], [""]),
            self.encode(73, [1], ["0x5"]),
            self.encode(73, [1], ["g"]),
            self.encode(73, [1], [" 5"]),
            self.encode(0x00, [1], ["z"]),
            self.encode(73, [2**64], ["5"]),
        ]
        replies = self.exchange(*bad_requests, {"op": "hello", "protocol": 1})
        for request, reply in zip(bad_requests, replies):
            with self.subTest(request=request):
                self.assertEqual(reply["result"], "error", reply)
                self.assertIsInstance(reply["message"], str)
        self.assertEqual(replies[-1]["name"], "kiln-python")

    def test_shapes_may_come_as_strings_and_the_string_form_writes_offsets_so(self):
        by_number, by_string, bad, tag_string, short = self.exchange(
            self.decode(0x49, [2, 3], "c503c5"),
            self.decode(0x49, ["2", "3"], "c503c5"),
            self.encode(0x49, ["01"], ["5"]),
            self.decode("73", [1], "05"),
            self.decode(0x49, [2**64 - 1], "00"),
            int64=kiln_adapter.INT64_STRING)
        self.assertEqual(by_string, by_number)
        self.assertEqual(by_string["result"], "accept")
        self.assertEqual(bad["result"], "error")
        self.assertTrue(bad["message"].startswith("shape[0]:"), bad)
        self.assertEqual(tag_string["result"], "error")  # 8 bits: a number only
        self.assertTrue(tag_string["message"].startswith("tag:"), tag_string)
        self.assertEqual(short["result"], "reject")
        if "offset" in short:
            self.assertIsInstance(short["offset"], str)
        [reject] = self.exchange(self.decode(0x49, [3], "c5f3"), int64=kiln_adapter.INT64_STRING)
        self.assertEqual((reject["rule"], reject["offset"]), ("HURRAY-PAD-4BIT", "1"))

    def test_error_messages_name_the_member(self):
        tag_reply, element_reply, mode_reply = self.exchange(
            self.decode(256, [1], "00"), self.encode(73, [2], ["5", "q"]),
            self.decode(73, [1], "00", mode="lax"))
        self.assertTrue(tag_reply["message"].startswith("tag:"), tag_reply)
        self.assertTrue(element_reply["message"].startswith("elements[1]:"), element_reply)
        self.assertTrue(mode_reply["message"].startswith("mode:"), mode_reply)

    def test_narrowed_tier2_support(self):
        hello, strict, permissive, encode, tier1 = self.exchange(
            {"op": "hello", "protocol": 1},
            self.decode(0x49, [1], "05"),
            self.decode(0x49, [1], "05", mode="permissive"),
            self.encode(0x49, [1], ["5"]),
            self.decode(0x20, [1], "01"),
            hurray_tier2=())
        self.assertEqual(hello["hurray_tier2"], [])
        self.assertEqual((strict["class"], strict["rule"]), ("TAG", "HURRAY-TAG-UNRECOGNIZED"))
        self.assertEqual(permissive, {"result": "opaque"})
        self.assertEqual((encode["class"], encode["rule"]), ("TAG", "HURRAY-TAG-UNRECOGNIZED"))
        self.assertEqual(tier1["elements"], ["1"])

    def run_adapter(self, arguments, lines):
        return subprocess.run([sys.executable, os.path.join(HERE, "kiln_adapter.py"), *arguments],
                              input="".join(json.dumps(r) + "\n" for r in lines).encode(),
                              capture_output=True, timeout=60)

    def test_the_process_answers_hurray_requests(self):
        run = self.run_adapter([], [{"op": "hello", "protocol": 1},
                                    self.decode(0x44, [4], "814020", case="hurray-float6-4"),
                                    self.encode(0x20, [5], ["1", "0", "1", "1", "0"])])
        self.assertEqual(run.returncode, 0, run.stderr)
        hello, decoded, encoded = [json.loads(line) for line in run.stdout.splitlines()]
        self.assertIn("hurray-elements", hello["profiles"])
        self.assertEqual(decoded, {"result": "accept", "elements": ["01", "02", "04", "08"],
                                   "case": "hurray-float6-4"})
        self.assertEqual(encoded, {"result": "data", "data": "0d"})

    def test_the_process_takes_a_tier2_list(self):
        run = self.run_adapter(["--hurray-tier2", "uint2,int4,uint2"],
                               [{"op": "hello", "protocol": 1}, self.decode(0x49, [1], "05"),
                                self.decode(0x4B, [3], "27")])
        self.assertEqual(run.returncode, 0, run.stderr)
        hello, uint4, uint2 = [json.loads(line) for line in run.stdout.splitlines()]
        self.assertEqual(hello["hurray_tier2"], ["int4", "uint2"])
        self.assertEqual(uint4["rule"], "HURRAY-TAG-UNRECOGNIZED")
        self.assertEqual(uint2["elements"], ["3", "1", "2"])
        none = self.run_adapter(["--hurray-tier2", ""], [{"op": "hello", "protocol": 1}])
        self.assertEqual(json.loads(none.stdout)["hurray_tier2"], [])
        wrong = self.run_adapter(["--hurray-tier2", "bool"], [])
        self.assertEqual(wrong.returncode, 2)


def load_tests(loader, tests, ignore):
    tests.addTests(doctest.DocTestSuite(hurray))
    return tests


if __name__ == "__main__":
    unittest.main()
