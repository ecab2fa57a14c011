#!/usr/bin/env python3
"""kiln-python as a conformance adapter: protocol/PROTOCOL.md, protocol version 1.

Reads one JSON request per line on stdin, writes one JSON reply per line on
stdout (flushed each time), and exits with status 0 at end of input:

    printf '{"op":"hello","protocol":1}\\n' | python3 kiln_adapter.py

A request it cannot understand gets an error reply naming the member at fault,
and the loop goes on. It offers two profiles: kiln-v2 (whole blocks, kiln.py)
and hurray-elements (one tensor's element layer, hurray.py), chosen by each
request's "profile" member (absent: kiln-v2).

    python3 kiln_adapter.py [--hurray-tier2 NAME,NAME,...] [--int64 number|string]

--hurray-tier2 narrows the Tier 2 types offered (an empty list offers none),
so that a runner's handling of partial Tier 2 support can be exercised; by
default every Tier 2 type is supported. --int64 string makes the hello ask for
64-bit integers (shape dimensions, offsets) as decimal strings and writes the
replies' so too, as an adapter whose JSON numbers go through a double would;
requests are read in either form whatever the option (PROTOCOL.md, "64-bit
integers").
"""

from __future__ import annotations

import argparse
import json
import re
import sys

import hurray
import kiln

PROTOCOL_VERSION = 1
PROFILE = "kiln-v2"
HURRAY_PROFILE = "hurray-elements"
PROFILES = (PROFILE, HURRAY_PROFILE)
# The forms of a 64-bit integer on the wire; hello's "int64" names one.
INT64_NUMBER = "number"
INT64_STRING = "string"
INT64_FORMS = (INT64_NUMBER, INT64_STRING)


def hello(hurray_tier2=hurray.TIER2_NAMES, int64=INT64_NUMBER) -> dict:
    reply = {"name": "kiln-python", "version": kiln.__version__, "protocol": PROTOCOL_VERSION,
             "ops": ["decode", "encode"], "profiles": list(PROFILES),
             "hurray_tier2": list(hurray_tier2)}
    if int64 != INT64_NUMBER:  # absent means numbers
        reply["int64"] = int64
    return reply

_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")
_NOT_HEX_DIGIT = re.compile(r"[^0-9a-fA-F]")


class BadRequest(Exception):
    """A request that cannot be answered; its message becomes an error reply."""


# ---- Reading request members (PROTOCOL.md, "Values") ----

def _member(obj: dict, key: str, where: str):
    if key not in obj:
        raise BadRequest(f"{where}{key}: required member is missing")
    return obj[key]


def read_int(obj: dict, key: str, maximum: int, where: str = "") -> int:
    return _check_int(_member(obj, key, where), maximum, where + key)


def _check_int(value, maximum: int, what: str) -> int:
    # bool is an int subclass in Python, and json gives floats for 3.0 or 1e3:
    # neither is an integer on the wire.
    if type(value) is not int:
        raise BadRequest(f"{what}: expected an integer 0..{maximum}, got {json.dumps(value)}")
    if not 0 <= value <= maximum:
        raise BadRequest(f"{what}: {value} is outside 0..{maximum}")
    return value


def read_string(obj: dict, key: str, where: str = "") -> str:
    value = _member(obj, key, where)
    if not isinstance(value, str):
        raise BadRequest(f"{where}{key}: expected a string, got {json.dumps(value)}")
    return value


def read_hex(obj: dict, key: str, where: str = "") -> bytes:
    text = read_string(obj, key, where)
    if not _HEX.fullmatch(text):
        bad = _NOT_HEX_DIGIT.search(text)
        if bad:
            raise BadRequest(f"{where}{key}: not hex: {bad.group()!r} is not a hex digit "
                             f"at character {bad.start()}")
        raise BadRequest(f"{where}{key}: not hex: odd number of digits ({len(text)})")
    return bytes.fromhex(text)


# A 64-bit integer's canonical decimal string: ASCII digits (re's [0-9], unlike
# str.isdigit, takes no other script's digits), no sign, no leading zero.
_DECIMAL = re.compile(r"0|[1-9][0-9]*")


def _check_u64(value, what: str) -> int:
    """A 64-bit integer member: a JSON number, or its canonical decimal string."""
    if isinstance(value, str):
        # Digits are counted before int() converts them: 2^64 - 1 has 20.
        if not _DECIMAL.fullmatch(value) or len(value) > 20 or int(value) > kiln.U64_MAX:
            raise BadRequest(f"{what}: expected an integer 0..{kiln.U64_MAX} or its canonical "
                             f"decimal string, got {json.dumps(value[:64])}")
        return int(value)
    return _check_int(value, kiln.U64_MAX, what)


def u64_json(value: int, int64: str):
    """A 64-bit integer in the form the hello named."""
    return str(value) if int64 == INT64_STRING else value


def read_shape(obj: dict, where: str = "") -> tuple:
    shape = _member(obj, "shape", where)
    if not isinstance(shape, list):
        raise BadRequest(f"{where}shape: expected an array of integers")
    return tuple(_check_u64(d, f"{where}shape[{i}]") for i, d in enumerate(shape))


def read_tensor(obj, where: str) -> kiln.Tensor:
    if not isinstance(obj, dict):
        raise BadRequest(f"{where}: expected a tensor description object")
    where += "."
    return kiln.Tensor(name=_read_name(obj, where),
                       dtype=read_int(obj, "dtype", kiln.U16_MAX, where),
                       shape=read_shape(obj, where),
                       payload=read_hex(obj, "payload", where),
                       layout=_read_layout(obj, where),
                       block_size=read_int(obj, "block_size", kiln.U32_MAX, where))


# A name or layout name that is not valid UTF-8 cannot be a JSON string: it comes
# as name_hex or layout_hex instead, raw bytes that kiln.encode takes and refuses.

def _read_name(obj: dict, where: str):
    if "name_hex" in obj and "name" not in obj:
        return read_hex(obj, "name_hex", where)
    return read_string(obj, "name", where)


def _read_layout(obj: dict, where: str):
    if "layout_hex" in obj and "layout" not in obj:
        return read_hex(obj, "layout_hex", where) or None
    layout = _member(obj, "layout", where)
    if layout is not None and not isinstance(layout, str):
        raise BadRequest(f"{where}layout: expected a string or null, got {json.dumps(layout)}")
    return layout or None


def tensor_json(tensor: kiln.Tensor, int64: str = INT64_NUMBER) -> dict:
    return {"name": tensor.name, "dtype": tensor.dtype,
            "shape": [u64_json(d, int64) for d in tensor.shape],
            "layout": tensor.layout or None, "block_size": tensor.block_size,
            "payload": tensor.payload.hex()}


def reject(error: kiln.KilnError, int64: str = INT64_NUMBER) -> dict:
    return {"result": "reject", "class": error.error_class, "message": error.message,
            "rule": error.rule, "offset": u64_json(error.offset, int64)}


# ---- Hurray element requests (profile hurray-elements) ----

_ELEMENT = re.compile(r"[0-9a-fA-F]+")


def read_mode(request: dict) -> str:
    mode = request.get("mode", hurray.STRICT)  # a request without mode is strict
    if mode not in hurray.MODES:
        raise BadRequest(f"mode: expected \"strict\" or \"permissive\", got {json.dumps(mode)}")
    return mode


def read_elements(request: dict) -> list:
    elements = _member(request, "elements", "")
    if not isinstance(elements, list):
        raise BadRequest("elements: expected an array of hex strings")
    for i, e in enumerate(elements):
        if not isinstance(e, str):
            raise BadRequest(f"elements[{i}]: expected a hex string, got {json.dumps(e)}")
        if not _ELEMENT.fullmatch(e):
            bad = _NOT_HEX_DIGIT.search(e)
            why = f"{bad.group()!r} is not a hex digit at character {bad.start()}" if bad else "empty"
            raise BadRequest(f"elements[{i}]: not hex: {why}")
    return elements


def hurray_reject(error: hurray.HurrayError, int64: str = INT64_NUMBER) -> dict:
    reply = {"result": "reject", "class": error.error_class, "rule": error.rule,
             "message": error.message}
    if error.offset is not None:
        reply["offset"] = u64_json(error.offset, int64)
    return reply


def answer_hurray(op: str, request: dict, hurray_tier2, int64: str = INT64_NUMBER) -> dict:
    # Every member is read before the library runs, so a malformed request is
    # always an error reply, never a rejection.
    tag = read_int(request, "tag", 0xFF)
    shape = read_shape(request)
    if op == "decode":
        mode = read_mode(request)
        data = read_hex(request, "data")
        try:
            decoded = hurray.decode(tag, shape, mode, data, hurray_tier2)
        except hurray.HurrayError as error:
            return hurray_reject(error, int64)
        if decoded.opaque:
            return {"result": "opaque"}
        return {"result": "accept", "elements": decoded.elements}
    elements = read_elements(request)
    try:
        data = hurray.encode(tag, shape, elements, hurray_tier2)
    except hurray.HurrayError as error:
        return hurray_reject(error, int64)
    return {"result": "data", "data": data.hex()}


# ---- Answering ----

def _read_profile(request: dict) -> str:
    profile = request.get("profile", PROFILE)
    if profile not in PROFILES:
        offered = " and ".join(json.dumps(p) for p in PROFILES)
        raise BadRequest(f"profile: {json.dumps(profile)} is not offered; this adapter offers {offered}")
    case = request.get("case", "")
    if not isinstance(case, str):
        raise BadRequest(f"case: expected a string, got {json.dumps(case)}")
    return profile


def answer(request, hurray_tier2=hurray.TIER2_NAMES, int64=INT64_NUMBER) -> dict:
    if not isinstance(request, dict):
        raise BadRequest("the line is not a JSON object")
    op = _member(request, "op", "")
    if op == "hello":
        version = _member(request, "protocol", "")
        if type(version) is not int or version != PROTOCOL_VERSION:
            raise BadRequest(f"protocol: this adapter speaks protocol {PROTOCOL_VERSION}, "
                             f"not {json.dumps(version)}")
        return hello(hurray_tier2, int64)
    if op not in ("decode", "encode"):
        raise BadRequest(f"op: unknown op {json.dumps(op)}; protocol 1 has hello, decode and encode")
    if _read_profile(request) == HURRAY_PROFILE:
        return answer_hurray(op, request, hurray_tier2, int64)
    if op == "decode":
        block = read_hex(request, "block")
        try:
            tensors = kiln.decode(block)
        except kiln.KilnError as error:
            return reject(error, int64)
        return {"result": "accept", "tensors": [tensor_json(t, int64) for t in tensors]}
    descriptions = _member(request, "tensors", "")
    if not isinstance(descriptions, list):
        raise BadRequest("tensors: expected an array of tensor descriptions")
    tensors = [read_tensor(d, f"tensors[{i}]") for i, d in enumerate(descriptions)]
    try:
        block = kiln.encode(tensors)
    except kiln.KilnError as error:
        return reject(error, int64)
    return {"result": "block", "block": block.hex()}


def answer_line(line: bytes, hurray_tier2=hurray.TIER2_NAMES, int64=INT64_NUMBER) -> dict:
    """The reply to one raw request line; never raises."""
    request = None
    try:
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            raise BadRequest(f"the line is not valid UTF-8 at byte {error.start}") from None
        try:
            request = json.loads(text)
        except ValueError as error:  # JSONDecodeError, or an integer too long to convert
            raise BadRequest(f"the line is not JSON: {error}") from None
        reply = answer(request, hurray_tier2, int64)
    except BadRequest as error:
        reply = {"result": "error", "message": str(error)}
    except Exception as error:  # a bug or out of memory: say so and keep serving
        reply = {"result": "error", "message": f"internal failure: {type(error).__name__}: {error}"}
    # PROTOCOL.md: a reply echoes the request's id (and may echo its case), so
    # the runner can tell that replies and requests are in step.
    if isinstance(request, dict):
        request_id = request.get("id")
        if isinstance(request_id, int) and not isinstance(request_id, bool) and request_id >= 0:
            reply["id"] = request_id
        if "result" in reply and isinstance(request.get("case"), str):
            reply["case"] = request["case"]
    return reply


def serve(stdin, stdout, hurray_tier2=hurray.TIER2_NAMES, int64=INT64_NUMBER) -> None:
    """The protocol loop over binary streams: one reply line per request line.
    int64 is the form of the replies' 64-bit integers, and what hello asks for."""
    for line in stdin:
        reply = answer_line(line, hurray_tier2, int64)
        # ensure_ascii keeps the line plain ASCII; U+0000 in a name becomes \u0000.
        stdout.write(json.dumps(reply, separators=(",", ":")).encode("ascii") + b"\n")
        stdout.flush()


def _tier2_names(text: str) -> tuple:
    names = {n for n in text.split(",") if n}
    unknown = sorted(names - set(hurray.TIER2_NAMES))
    if unknown:
        raise argparse.ArgumentTypeError(f"not Tier 2 types: {', '.join(unknown)}; "
                                         f"they are {', '.join(hurray.TIER2_NAMES)}")
    return tuple(n for n in hurray.TIER2_NAMES if n in names)  # table order, no repeats


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="kiln-python's conformance adapter")
    parser.add_argument("--hurray-tier2", type=_tier2_names, default=hurray.TIER2_NAMES,
                        metavar="NAMES", help="comma-separated Tier 2 types to support "
                        "(default: all; empty: none)")
    parser.add_argument("--int64", choices=INT64_FORMS, default=INT64_NUMBER,
                        help="the form of 64-bit integers hello asks for and replies use "
                        "(default: number)")
    arguments = parser.parse_args()
    serve(sys.stdin.buffer, sys.stdout.buffer, arguments.hurray_tier2, arguments.int64)
    sys.exit(0)
