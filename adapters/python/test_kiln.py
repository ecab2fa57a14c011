"""Unit tests of kiln.py and kiln_adapter.py. Run in this folder: python3 -m unittest

The golden blocks below are copied from reference/FORMAT.md (sections 2.5, 3.1
and 9), so these tests hold the code to the document, not to itself.
"""

import doctest
import io
import json
import os
import subprocess
import sys
import unittest

import kiln
import kiln_adapter
from kiln import KilnError, Tensor

HERE = os.path.dirname(os.path.abspath(__file__))

# FORMAT.md 3.1: kiln-v2-u4, one u4 tensor "x" of shape [3] holding 1, 2, 3.
U4_BLOCK = bytes.fromhex(
    "4b494c4e020200000100000010000000"
    "80000000000000000200000000000000"
    "08000000010000001100010000000000"
    "00000000000000000000000000000000"
    "00000000000000000200000000000000"
    "00000000000000000000000000000000"
    "03000000000000007800000000000000"
    "00000000000000000000000000000000"
    "2103")
U4_TENSOR = Tensor(name="x", dtype=17, shape=(3,), payload=b"\x21\x03")

# FORMAT.md 9: kiln-v2-opaque, code 4096, layout "Q4_K", block size 18.
OPAQUE_BLOCK = bytes.fromhex(
    "4b494c4e020200000100000010000000"
    "80000000000000001200000000000000"
    "08000000010000000010010000000000"
    "09000000040000001200000000000000"
    "00000000000000001200000000000000"
    "00000000000000000000000000000000"
    "20000000000000007851345f4b000000"
    "00000000000000000000000000000000"
    "000102030405060708090a0b0c0d0e0f1011")
OPAQUE_TENSOR = Tensor(name="x", dtype=4096, shape=(32,), payload=bytes(range(18)),
                       layout="Q4_K", block_size=18)

# FORMAT.md 2.5: the block with no tensors.
EMPTY_BLOCK = bytes.fromhex("4b494c4e0202" + "00" * 10 + "40" + "00" * 47)


def patched(block: bytes, offset: int, new: bytes) -> bytes:
    return block[:offset] + new + block[offset + len(new):]


class RejectAssertions(unittest.TestCase):
    def assertRejects(self, call, arg, rule, offset=None):
        with self.assertRaises(KilnError) as caught:
            call(arg)
        self.assertEqual(caught.exception.rule, rule, str(caught.exception))
        self.assertEqual(caught.exception.error_class, rule.split("-")[0])
        if offset is not None:
            self.assertEqual(caught.exception.offset, offset, str(caught.exception))


class GoldenBlocks(unittest.TestCase):
    def test_u4_example_encodes_to_the_130_bytes_of_format_md(self):
        block = kiln.encode([U4_TENSOR])
        self.assertEqual(len(block), 130)
        self.assertEqual(block, U4_BLOCK)

    def test_u4_example_decodes_to_its_tensor(self):
        self.assertEqual(kiln.decode(U4_BLOCK), [U4_TENSOR])

    def test_opaque_example_both_ways(self):
        self.assertEqual(kiln.encode([OPAQUE_TENSOR]), OPAQUE_BLOCK)
        self.assertEqual(kiln.decode(OPAQUE_BLOCK), [OPAQUE_TENSOR])

    def test_no_tensors_is_the_64_byte_block(self):
        self.assertEqual(kiln.encode([]), EMPTY_BLOCK)
        self.assertEqual(kiln.decode(EMPTY_BLOCK), [])


class DecoderRejects(RejectAssertions):
    def test_seed_cases_report_format_md_rule_and_offset(self):
        cases = [
            ("kiln-v2-high-nibble", patched(U4_BLOCK, 129, b"\x13"), "TYPE-HIGH-NIBBLE", 129),
            ("kiln-v2-le-clear", patched(U4_BLOCK, 5, b"\x00"), "FRAME-LE-FLAG", 5),
            ("kiln-v2-opaque-no-layout",
             patched(patched(OPAQUE_BLOCK, 48, bytes(8)), 105, bytes(4)), "TYPE-OPAQUE-LAYOUT", 52),
        ]
        for case, block, rule, offset in cases:
            with self.subTest(case):
                self.assertRejects(kiln.decode, block, rule, offset)

    def test_every_cut_of_the_u4_block_is_truncated(self):
        for length in range(len(U4_BLOCK)):
            with self.subTest(length=length):
                self.assertRejects(kiln.decode, U4_BLOCK[:length], "FRAME-TRUNCATED", length)

    def test_a_byte_past_the_end_is_trailing(self):
        self.assertRejects(kiln.decode, U4_BLOCK + b"\0", "FRAME-TRAILING", 130)

    def test_frame_wins_over_type(self):
        both = patched(patched(U4_BLOCK, 129, b"\x13"), 5, b"\x00")
        self.assertRejects(kiln.decode, both, "FRAME-LE-FLAG", 5)

    def test_header_checks_in_order(self):
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 0, b"KILM"), "FRAME-MAGIC", 0)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 4, b"\x03"), "FRAME-VERSION", 4)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 5, b"\x03"), "FRAME-FLAGS-RESERVED", 5)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 7, b"\x01"), "FRAME-HEADER-RESERVED", 6)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 12, b"\x11"), "FRAME-HEAP-ALIGN", 12)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 16, b"\xc0"), "FRAME-PAYLOAD-OFFSET", 16)

    def test_entry_and_padding_defects(self):
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 32 + 56, b"\x01"), "FRAME-ENTRY-RESERVED", 88)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 36, bytes(4)), "FRAME-NAME-EMPTY", 36)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 106, b"\x01"), "FRAME-PAD-HEAP", 106)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 120, b"\x01"), "FRAME-PAD-GAP", 120)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 104, b"\xff"), "FRAME-NAME-UTF8", 104)

    def test_type_defects(self):
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 40, b"\x00"), "TYPE-CODE-ZERO", 40)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 40, b"\x14"), "TYPE-CODE-RESERVED", 40)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 40, b"\x00\x80"), "TYPE-CODE-ABOVE-OPAQUE", 40)
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 56, b"\x01"), "TYPE-CLOSED-BLOCK-SIZE", 56)
        # u8 [3] needs 3 bytes, not the 2 that u4 [3] needs.
        self.assertRejects(kiln.decode, patched(U4_BLOCK, 40, b"\x09"), "TYPE-BYTE-LENGTH", 72)


class EncoderRefusals(RejectAssertions):
    def test_refusals_carry_the_readers_class_and_rule(self):
        cases = [
            ("empty name", [Tensor("", 9, (1,), b"\x01")], "FRAME-NAME-EMPTY"),
            ("duplicate", [Tensor("a", 9, (1,), b"\x01"), Tensor("a", 9, (1,), b"\x01")],
             "FRAME-NAME-UNIQUE"),
            ("overlong name", [Tensor(b"\xc0\xaf", 9, (1,), b"\x01")], "FRAME-NAME-UTF8"),
            ("lone surrogate", [Tensor("\ud800", 9, (1,), b"\x01")], "FRAME-NAME-UTF8"),
            ("bool byte 2", [Tensor("x", 7, (2,), b"\x01\x02")], "TYPE-BOOL-BYTE"),
            ("opaque, no layout", [Tensor("x", 4096, (1,), b"\x01", block_size=1)], "TYPE-OPAQUE-LAYOUT"),
            ("opaque, empty layout", [Tensor("x", 4096, (1,), b"\x01", layout="", block_size=1)],
             "TYPE-OPAQUE-LAYOUT"),
            ("opaque, not a multiple", [Tensor("x", 4096, (1,), b"\x01", layout="q", block_size=2)],
             "TYPE-OPAQUE-MULTIPLE"),
            ("closed with layout", [Tensor("x", 9, (1,), b"\x01", layout="q")], "TYPE-CLOSED-LAYOUT"),
            ("second tensor bad", [U4_TENSOR, Tensor("y", 17, (1,), b"\x10")], "TYPE-HIGH-NIBBLE"),
            ("shape overflow", [Tensor("x", 9, (2**32, 2**32), b"")], "TYPE-SHAPE-OVERFLOW"),
            ("rank 65536", [Tensor("x", 9, (1,) * 65536, b"\x01")], "FRAME-FIELD-RANGE"),
            ("dtype 65536", [Tensor("x", 65536, (1,), b"\x01")], "FRAME-FIELD-RANGE"),
        ]
        for label, tensors, rule in cases:
            with self.subTest(label):
                self.assertRejects(kiln.encode, tensors, rule)

    def test_bool_byte_offset_matches_the_protocol_transcript(self):
        self.assertRejects(kiln.encode, [Tensor("x", 7, (2,), b"\x01\x02")], "TYPE-BOOL-BYTE", 129)


class Names(unittest.TestCase):
    def test_u0000_is_kept_anywhere_in_a_name(self):
        for name in ("\0", "a\0b", "a\0", "\0\0\0\0\0\0\0\0\0"):
            with self.subTest(name=repr(name)):
                block = kiln.encode([Tensor(name, 9, (1,), b"\x07")])
                self.assertIn(name.encode(), block)
                self.assertEqual(kiln.decode(block)[0].name, name)

    def test_names_differing_after_u0000_are_distinct(self):
        tensors = [Tensor("a", 9, (), b"\x01"), Tensor("a\0", 9, (), b"\x02"),
                   Tensor("a\0b", 9, (), b"\x03")]
        self.assertEqual(kiln.decode(kiln.encode(tensors)), tensors)

    def test_no_normalization(self):
        tensors = [Tensor("\u00e9", 9, (), b"\x01"), Tensor("e\u0301", 9, (), b"\x02")]
        self.assertEqual(kiln.decode(kiln.encode(tensors)), tensors)


class RoundTrips(unittest.TestCase):
    MIXED = [
        Tensor("f64 nan", 1, (1,), bytes.fromhex("010000000000f87f")),
        Tensor("f32 -0", 2, (2,), bytes.fromhex("0000008000000080")),
        Tensor("scalar", 3, (), bytes.fromhex("003c")),
        Tensor("empty", 9, (0,), b""),
        Tensor("zero times huge", 15, (kiln.U64_MAX, 0, kiln.U64_MAX), b""),
        Tensor("zero after an overflowing product", 9, (2**32, 2**32, 0), b""),
        Tensor("bools", 7, (2, 3), bytes([0, 1, 1, 0, 0, 1])),
        Tensor("i4", 16, (5,), bytes.fromhex("f1e20d")),
        Tensor("e8m0", 19, (1,), b"\xff"),
        Tensor("opaque", 30000, (kiln.U64_MAX, kiln.U64_MAX), bytes(64), layout="\u00e9\0", block_size=32),
        Tensor("opaque empty", 4096, (7,), b"", layout="Q4_K", block_size=kiln.U32_MAX),
        Tensor("u8 after", 9, (3,), b"abc"),
        Tensor("last empty", 9, (0,), b""),
    ]

    def test_decode_of_encode_is_the_description(self):
        self.assertEqual(kiln.decode(kiln.encode(self.MIXED)), self.MIXED)

    def test_encode_of_decode_is_the_block(self):
        block = kiln.encode(self.MIXED)
        self.assertEqual(kiln.encode(kiln.decode(block)), block)

    def test_placement_is_canonical(self):
        block = kiln.encode(self.MIXED)
        count, heap_length, payload_offset, payload_length = (
            int.from_bytes(block[8:12], "little"), int.from_bytes(block[12:16], "little"),
            int.from_bytes(block[16:24], "little"), int.from_bytes(block[24:32], "little"))
        self.assertEqual(count, len(self.MIXED))
        self.assertEqual(heap_length % 8, 0)
        self.assertEqual(payload_offset % 64, 0)
        self.assertEqual(len(block), payload_offset + payload_length)
        for i in range(count):
            data_offset = int.from_bytes(block[32 + 64 * i + 32:32 + 64 * i + 40], "little")
            self.assertEqual(data_offset % 64, 0)
        # "An empty last payload still sits at its aligned position" (FORMAT.md 2.6).
        self.assertEqual(payload_length % 64, 0)


class Adapter(unittest.TestCase):
    def exchange(self, *requests, int64=kiln_adapter.INT64_NUMBER):
        stdin = io.BytesIO(b"".join(
            (r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in requests))
        stdout = io.BytesIO()
        kiln_adapter.serve(stdin, stdout, int64=int64)
        lines = stdout.getvalue().splitlines()
        self.assertEqual(len(lines), len(requests))
        return [json.loads(line) for line in lines]

    def test_hello(self):
        [reply] = self.exchange({"op": "hello", "protocol": 1})
        self.assertEqual(reply["name"], "kiln-python")
        self.assertEqual(reply["ops"], ["decode", "encode"])
        self.assertEqual(reply["profiles"], ["kiln-v2", "hurray-elements"])
        self.assertNotIn("int64", reply)  # absent: numbers

    def test_decode_and_encode_the_transcript(self):
        described = {"name": "x", "dtype": 17, "shape": [3], "layout": None, "block_size": 0,
                     "payload": "2103"}
        accept, block, reject = self.exchange(
            {"op": "decode", "case": "kiln-v2-u4", "block": U4_BLOCK.hex()},
            {"op": "encode", "tensors": [described]},
            {"op": "decode", "block": patched(U4_BLOCK, 129, b"\x13").hex().upper()})
        self.assertEqual(accept, {"result": "accept", "case": "kiln-v2-u4", "tensors": [described]})
        self.assertEqual(block, {"result": "block", "block": U4_BLOCK.hex()})
        self.assertEqual((reject["result"], reject["class"], reject["rule"], reject["offset"]),
                         ("reject", "TYPE", "TYPE-HIGH-NIBBLE", 129))

    def test_dimensions_stay_exact_integers(self):
        huge = {"name": "a\u0000b", "dtype": 4096, "shape": [kiln.U64_MAX, 2**53 + 1],
                "layout": "q", "block_size": 1, "payload": ""}
        [encoded] = self.exchange({"op": "encode", "tensors": [huge]})
        [decoded] = self.exchange({"op": "decode", "block": encoded["block"]})
        self.assertEqual(decoded["tensors"], [huge])
        self.assertIs(type(decoded["tensors"][0]["shape"][0]), int)

    def test_dimensions_may_come_as_canonical_decimal_strings(self):
        huge = {"name": "x", "dtype": 4096, "shape": [kiln.U64_MAX, 0, 2**53 + 1],
                "layout": "q", "block_size": 1, "payload": ""}
        as_strings = dict(huge, shape=[str(d) for d in huge["shape"]])
        by_number, by_string = self.exchange({"op": "encode", "tensors": [huge]},
                                             {"op": "encode", "tensors": [as_strings]})
        self.assertEqual(by_string, by_number)
        self.assertEqual(by_string["result"], "block")

    def test_non_canonical_strings_are_errors_naming_the_member(self):
        good = {"name": "x", "dtype": 9, "shape": [1], "layout": None, "block_size": 0, "payload": "01"}
        bad = ["+1", "01", "00", "1e3", " 1", "1 ", "", "-0", "0x1", "1.0", "\u0661",
               "18446744073709551616", "9" * 5000]
        replies = self.exchange(*({"op": "encode", "tensors": [dict(good, shape=[1, text])]}
                                  for text in bad))
        for text, reply in zip(bad, replies):
            with self.subTest(text=text):
                self.assertEqual(reply["result"], "error")
                self.assertTrue(reply["message"].startswith("tensors[0].shape[1]:"), reply)
                self.assertLess(len(reply["message"]), 200)
        # Members of 32 bits or fewer are numbers only.
        for member in ("dtype", "block_size"):
            [reply] = self.exchange({"op": "encode", "tensors": [dict(good, **{member: "1"})]})
            self.assertEqual(reply["result"], "error")
            self.assertTrue(reply["message"].startswith(f"tensors[0].{member}:"), reply)
        [reply] = self.exchange({"op": "hello", "protocol": "1"})
        self.assertEqual(reply["result"], "error")

    def test_the_string_form_asks_for_and_writes_strings(self):
        described = {"name": "x", "dtype": 17, "shape": ["3"], "layout": None, "block_size": 0,
                     "payload": "2103"}
        hello, accept, reject, block = self.exchange(
            {"op": "hello", "protocol": 1},
            {"op": "decode", "block": U4_BLOCK.hex()},
            {"op": "decode", "block": patched(U4_BLOCK, 129, b"\x13").hex()},
            {"op": "encode", "tensors": [dict(described, shape=[3])]},
            int64=kiln_adapter.INT64_STRING)
        self.assertEqual(hello["int64"], "string")
        self.assertEqual(accept["tensors"], [described])
        self.assertEqual((reject["rule"], reject["offset"]), ("TYPE-HIGH-NIBBLE", "129"))
        self.assertEqual(block, {"result": "block", "block": U4_BLOCK.hex()})
        # Fields of 32 bits or fewer stay numbers.
        self.assertEqual((accept["tensors"][0]["dtype"], accept["tensors"][0]["block_size"]), (17, 0))

    def test_names_that_are_not_utf8_come_as_hex_and_are_refused(self):
        base = {"dtype": 4096, "shape": [1], "block_size": 1, "payload": "01"}
        bad_name, bad_layout = self.exchange(
            {"op": "encode", "tensors": [dict(base, name_hex="eda080", layout="q")]},
            {"op": "encode", "tensors": [dict(base, name="x", layout_hex="c1bf")]})
        self.assertEqual((bad_name["class"], bad_name["rule"]), ("FRAME", "FRAME-NAME-UTF8"))
        self.assertEqual((bad_layout["class"], bad_layout["rule"]), ("TYPE", "TYPE-OPAQUE-LAYOUT-UTF8"))

    def test_replies_echo_the_case(self):
        accept, error = self.exchange({"op": "decode", "case": "kiln-v2-u4", "block": U4_BLOCK.hex()},
                                      {"op": "decode", "case": "bad-hex", "block": "zz"})
        self.assertEqual((accept["result"], accept["case"]), ("accept", "kiln-v2-u4"))
        self.assertEqual((error["result"], error["case"]), ("error", "bad-hex"))

    def test_replies_echo_the_id(self):
        hello, accept, error, bad_line = self.exchange(
            {"op": "hello", "protocol": 1, "id": 1},
            {"op": "decode", "id": 2, "block": U4_BLOCK.hex()},
            {"op": "decode", "id": 18446744073709551615, "block": "zz"},
            {"op": "decode", "id": "3", "block": "zz"})
        self.assertEqual((hello["name"], hello["id"]), ("kiln-python", 1))
        self.assertEqual((accept["result"], accept["id"]), ("accept", 2))
        self.assertEqual((error["result"], error["id"]), ("error", 18446744073709551615))
        self.assertNotIn("id", bad_line)  # only an id the runner would send is echoed

    def test_bad_requests_get_error_replies_and_serving_goes_on(self):
        good = {"name": "x", "dtype": 9, "shape": [1], "layout": None, "block_size": 0, "payload": "01"}
        bad_requests = [
            b"\xff not utf-8",
            b"not json",
            b"[1, 2]",
            {"op": "transcode"},
            {"block": "00"},
            {"op": "decode", "block": "4b49zz"},
            {"op": "decode", "block": "abc"},
            {"op": "decode", "block": "4b 49"},
            {"op": "decode"},
            {"op": "decode", "profile": "hurray", "block": ""},
            {"op": "hello", "protocol": 2},
            {"op": "encode", "tensors": [dict(good, shape=[3.0])]},
            {"op": "encode", "tensors": [dict(good, shape=["03"])]},
            {"op": "encode", "tensors": [dict(good, shape=[2**64])]},
            {"op": "encode", "tensors": [dict(good, dtype=-1)]},
            {"op": "encode", "tensors": [dict(good, dtype=True)]},
            {"op": "encode", "tensors": [dict(good, block_size=2**32)]},
            {"op": "encode", "tensors": [{k: v for k, v in good.items() if k != "layout"}]},
        ]
        replies = self.exchange(*bad_requests, {"op": "hello", "protocol": 1})
        for request, reply in zip(bad_requests, replies):
            with self.subTest(request=request):
                self.assertEqual(reply["result"], "error")
                self.assertIsInstance(reply["message"], str)
        self.assertEqual(replies[-1]["name"], "kiln-python")

    def test_the_process_answers_each_line_and_exits_0_at_end_of_input(self):
        run = subprocess.run([sys.executable, os.path.join(HERE, "kiln_adapter.py")],
                             input=b'{"op":"hello","protocol":1}\n{"op":"decode","block":""}',
                             capture_output=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        hello, reject = [json.loads(line) for line in run.stdout.splitlines()]
        self.assertEqual(hello["name"], "kiln-python")
        self.assertEqual((reject["class"], reject["rule"]), ("FRAME", "FRAME-TRUNCATED"))

    def test_the_process_takes_the_int64_form(self):
        run = subprocess.run([sys.executable, os.path.join(HERE, "kiln_adapter.py"), "--int64", "string"],
                             input=b'{"op":"hello","protocol":1}\n{"op":"decode","block":""}',
                             capture_output=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        hello, reject = [json.loads(line) for line in run.stdout.splitlines()]
        self.assertEqual(hello["int64"], "string")
        self.assertEqual(reject["offset"], "0")
        wrong = subprocess.run([sys.executable, os.path.join(HERE, "kiln_adapter.py"), "--int64", "bits"],
                               input=b"", capture_output=True, timeout=60)
        self.assertEqual(wrong.returncode, 2)


def load_tests(loader, tests, ignore):
    tests.addTests(doctest.DocTestSuite(kiln))
    return tests


if __name__ == "__main__":
    unittest.main()
