#!/usr/bin/env python3
"""Cross-checks the reference Hurray codec against NumPy, data no one here wrote.

bool packing against numpy.packbits(bitorder='little'); float16/32/64, complex64/128
and the integer types against NumPy's little-endian bytes and bit views; random
inputs (fixed seed, or HURRAY_NUMPY_SEED) plus special values (NaN payloads,
infinities, -0, subnormals).

Then the golden cases: for every accept case of profile hurray-elements under
CASES/hurray whose type NumPy has a dtype for, NumPy's own reading of the case's data
(np.frombuffer with the little-endian dtype, viewed as the unsigned integer of its
width; bool by np.unpackbits(bitorder='little'), padding bits zero) must be exactly
the case's elements, NumPy's packing of the elements (np.packbits(bitorder='little'),
or the bit patterns viewed as the dtype) exactly the case's data, and the data's
length S. Types NumPy has no dtype for (bfloat16, float8/6/4, float128, int4/2, ...)
are counted as skipped. This part does not involve the codec.

Usage: hurray_numpy_test.py PATH_TO_hurray_lines [CASES]   (CASES defaults to the
repository's cases/ folder next to reference/). Exit 0 when all agree, 1 on a
disagreement (or fewer than MIN_CASES cases checked), 2 on unusable arguments or a
missing NumPy or PyYAML.
"""
import glob
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("hurray_numpy_test: python3-numpy is missing (scripts/install-deps installs it)",
          file=sys.stderr)
    sys.exit(2)

ROUNDS = 60  # random arrays per type; a few thousand elements in all, well under a second

# The golden cases' types NumPy has a dtype for: (dtype, unsigned view of one element,
# or of one half for complex). bool is np.packbits/np.unpackbits(bitorder='little').
CASE_DTYPES = {
    "float16": ("<f2", "<u2"), "float32": ("<f4", "<u4"), "float64": ("<f8", "<u8"),
    "complex64": ("<c8", "<u4"), "complex128": ("<c16", "<u8"),
    "int8": ("<i1", "<u1"), "int16": ("<i2", "<u2"), "int32": ("<i4", "<u4"),
    "int64": ("<i8", "<u8"),
    "uint8": ("<u1", "<u1"), "uint16": ("<u2", "<u2"), "uint32": ("<u4", "<u4"),
    "uint64": ("<u8", "<u8"),
}
MIN_CASES = 50  # fewer checked cases than this means the cases were not found: a failure


def shape_text(count):
    return str(count)


def data_text(raw):
    return raw.hex() if raw else "-"


def elements_text(items):
    return ",".join(items) if items else "-"


class Checks:
    """Collects request lines and what NumPy says each answer must be."""

    def __init__(self):
        self.lines, self.expected, self.labels = [], [], []

    def add(self, line, expected, label):
        self.lines.append(line)
        self.expected.append(expected)
        self.labels.append(label)

    # Decoding NumPy's bytes gives NumPy's bit patterns; encoding them gives the bytes.
    def both_ways(self, type_name, raw, elements, label):
        count = len(elements)
        self.add(f"decode {type_name} strict {shape_text(count)} {data_text(raw)}",
                 " ".join(["accept"] + elements), label + " decode")
        self.add(f"encode {type_name} {shape_text(count)} {elements_text(elements)}",
                 f"data {data_text(raw)}", label + " encode")


def hex_elements(values, bits):
    digits = (bits + 3) // 4
    return [format(int(v), f"0{digits}x") for v in values]


def special_floats(dtype, uint):
    bits = np.dtype(uint).itemsize * 8
    exponent = {16: 5, 32: 8, 64: 11}[bits]
    sign = 1 << (bits - 1)
    quiet = 1 << (bits - exponent - 2)
    inf = ((1 << exponent) - 1) << (bits - 1 - exponent)
    patterns = [0, sign, 1, sign | 1, inf, sign | inf, inf | 1, inf | quiet, inf | quiet | 5,
                sign | inf | quiet, (1 << (bits - 1 - exponent)) - 1]
    return np.array(patterns, dtype=uint).view(dtype)


def numpy_reading(type_name, raw, count):
    """NumPy's S for count elements, its elements of raw (hex, ceil(B / 4) digits) and
    the bits of raw past the elements (bool padding; None for whole-byte types)."""
    if type_name == "bool":
        size = len(np.packbits(np.zeros(count, dtype=bool), bitorder="little"))
        if len(raw) != size:
            return size, None, None
        bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
        return size, [format(int(b), "x") for b in bits[:count]], bits[count:]
    dtype, uint = CASE_DTYPES[type_name]
    size = np.dtype(dtype).itemsize * count
    if len(raw) != size:
        return size, None, None
    values = np.frombuffer(raw, dtype=dtype)
    if dtype.startswith("<c"):
        half_bits = np.dtype(uint).itemsize * 8
        parts = values.view(uint).reshape(-1, 2)
        # The halves by NumPy's own accessors too, not only by the byte view.
        part_dtype = "<f8" if dtype == "<c16" else "<f4"
        assert (list(parts[:, 0]) == list(values.real.astype(part_dtype).view(uint))
                and list(parts[:, 1]) == list(values.imag.astype(part_dtype).view(uint)))
        return size, [format((int(im) << half_bits) | int(re), f"0{half_bits // 2}x")
                      for re, im in parts], None
    return size, hex_elements(values.view(uint), np.dtype(uint).itemsize * 8), None


def numpy_packing(type_name, elements):
    """NumPy's bytes for the case's elements (hex bit patterns)."""
    patterns = [int(e, 16) for e in elements]
    if type_name == "bool":
        return np.packbits(np.array(patterns, dtype=bool), bitorder="little").tobytes()
    dtype, uint = CASE_DTYPES[type_name]
    if dtype.startswith("<c"):
        half_bits = np.dtype(uint).itemsize * 8
        mask = (1 << half_bits) - 1
        halves = [part for p in patterns for part in (p & mask, p >> half_bits)]
        return np.array(halves, dtype=uint).view(dtype).tobytes()
    return np.array(patterns, dtype=uint).view(dtype).tobytes()


def shown(path):
    """A path as messages name it: relative to the working folder when below it."""
    relative = os.path.relpath(path)
    return os.path.abspath(path) if relative.startswith("..") else relative


def check_case(path, case):
    """The disagreements between NumPy and one accept case, as messages."""
    type_name = str(case["type"])
    shape, data, elements = case.get("shape"), case.get("data"), case.get("elements")
    if (not isinstance(shape, list) or not isinstance(data, str)
            or not isinstance(elements, list) or not all(isinstance(e, str) for e in elements)):
        return [f"{path}: an accept case needs shape, data and elements as lists/hex strings"]
    count = 1
    for dim in shape:
        count *= int(dim)
    try:
        raw = bytes.fromhex(data)
    except ValueError:
        return [f"{path}: data {data!r} is not hex"]
    problems = []
    size, read, rest = numpy_reading(type_name, raw, count)
    if read is None:
        return [f"{path}: data is {len(raw)} bytes, NumPy's S for {type_name} x {count} is {size}"]
    if len(elements) != count:
        problems.append(f"{path}: {len(elements)} elements, the shape {shape} holds {count}")
    for index, (numpy_element, case_element) in enumerate(zip(read, elements)):
        if numpy_element != case_element:
            problems.append(f"{path}: element {index}: NumPy reads {numpy_element} from the "
                            f"data, the case has {case_element!r}")
    if rest is not None:
        for bit in np.flatnonzero(rest):
            problems.append(f"{path}: padding bit {count + int(bit)} of the data is 1 "
                            f"(np.unpackbits(bitorder='little'))")
    try:
        packed = numpy_packing(type_name, elements)
    except (ValueError, OverflowError) as error:
        problems.append(f"{path}: NumPy cannot pack the elements: {error}")
    else:
        if packed != raw:
            at = next((i for i, (a, b) in enumerate(zip(packed, raw)) if a != b),
                      min(len(packed), len(raw)))
            problems.append(f"{path}: NumPy packs the elements into {packed.hex() or '-'}, the "
                            f"case's data is {data or '-'} (first difference at byte {at})")
    return problems


def check_cases(cases_dir):
    """Checks every NumPy-representable accept case; returns (failures, summary)."""
    try:
        import yaml
    except ImportError:
        print("hurray_numpy_test: python3-yaml is missing (scripts/install-deps installs it)",
              file=sys.stderr)
        return None, None
    root = os.path.join(cases_dir, "hurray")
    if not os.path.isdir(root):
        print(f"hurray_numpy_test: no folder {root}", file=sys.stderr)
        return None, None
    checked, skipped, others, problems = {}, {}, 0, []
    for path in sorted(glob.glob(os.path.join(root, "**", "*.yaml"), recursive=True)):
        with open(path, encoding="utf-8") as stream:
            case = yaml.safe_load(stream)
        if not isinstance(case, dict) or case.get("profile") != "hurray-elements":
            continue
        if (case.get("expect") or {}).get("result") != "accept":
            others += 1
            continue
        type_name = str(case.get("type"))
        if type_name != "bool" and type_name not in CASE_DTYPES:
            skipped[type_name] = skipped.get(type_name, 0) + 1
            continue
        checked[type_name] = checked.get(type_name, 0) + 1
        problems.extend(check_case(shown(path), case))
    for message in problems[:20]:
        print(f"DISAGREE {message}", file=sys.stderr)
    if len(problems) > 20:
        print(f"... and {len(problems) - 20} more", file=sys.stderr)
    total = sum(checked.values())
    failures = len(problems)
    if total < MIN_CASES:
        print(f"hurray_numpy_test: only {total} cases checked under {root}, "
              f"at least {MIN_CASES} expected", file=sys.stderr)
        failures += 1
    order = ["bool"] + list(CASE_DTYPES)
    summary = (f"cases under {shown(root)}: {total} checked ("
               + ", ".join(f"{t} {checked[t]}" for t in order if t in checked)
               + f"), {sum(skipped.values())} skipped, no NumPy dtype ("
               + ", ".join(f"{t} {n}" for t, n in sorted(skipped.items()))
               + f"), {others} not accept; {len(problems)} disagreement(s)")
    return failures, summary


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    tool = sys.argv[1]
    cases_dir = (sys.argv[2] if len(sys.argv) == 3 else
                 os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cases"))
    case_failures, case_summary = check_cases(cases_dir)
    if case_failures is None:
        return 2
    seed = int(os.environ.get("HURRAY_NUMPY_SEED", "20240615"))
    rng = np.random.default_rng(seed)
    checks = Checks()

    # bool: the seed's LSB-first packing is numpy.packbits(bitorder='little').
    for count in list(range(0, 33)) + list(rng.integers(33, 300, ROUNDS)):
        values = rng.integers(0, 2, int(count)).astype(bool)
        raw = np.packbits(values, bitorder="little").tobytes()
        checks.both_ways("bool", raw, [str(int(v)) for v in values], f"bool[{count}]")

    # IEEE floats: random bit patterns (every pattern is valid) and special values.
    for name, dtype, uint in [("float16", "<f2", "<u2"), ("float32", "<f4", "<u4"),
                              ("float64", "<f8", "<u8")]:
        bits = np.dtype(uint).itemsize * 8
        arrays = [special_floats(dtype, uint)]
        for _ in range(ROUNDS):
            count = int(rng.integers(0, 12))
            arrays.append(rng.standard_normal(count).astype(dtype))
            arrays.append(rng.integers(0, 1 << 63, count, dtype=np.uint64)
                          .astype(uint).view(dtype))
        for values in arrays:
            raw = values.astype(dtype).tobytes()
            checks.both_ways(name, raw, hex_elements(values.view(uint), bits),
                             f"{name}[{len(values)}]")

    # complex: the element is the little-endian bytes read as one integer, real part low.
    for name, dtype, half in [("complex64", "<c8", "<u4"), ("complex128", "<c16", "<u8")]:
        half_bits = np.dtype(half).itemsize * 8
        for _ in range(ROUNDS):
            count = int(rng.integers(0, 8))
            values = (rng.standard_normal(count) + 1j * rng.standard_normal(count)).astype(dtype)
            if count:
                values[0] = complex(1, 2)
            raw = values.tobytes()
            parts = values.view(half).reshape(-1, 2)
            elements = [format((int(im) << half_bits) | int(re), f"0{half_bits // 2}x")
                        for re, im in parts]
            # The halves by NumPy's own accessors, not only by the byte view.
            part_dtype = "<f8" if name == "complex128" else "<f4"
            real = values.real.astype(part_dtype).view(half)
            imag = values.imag.astype(part_dtype).view(half)
            assert list(parts[:, 0]) == list(real) and list(parts[:, 1]) == list(imag)
            checks.both_ways(name, raw, elements, f"{name}[{count}]")

    # Integers: two's complement and unsigned, little-endian.
    for name, dtype in [("int8", "<i1"), ("uint8", "<u1"), ("int16", "<i2"), ("uint16", "<u2"),
                        ("int32", "<i4"), ("uint32", "<u4"), ("int64", "<i8"), ("uint64", "<u8")]:
        size = np.dtype(dtype).itemsize
        unsigned = "<u%d" % size
        for _ in range(ROUNDS // 4):
            count = int(rng.integers(0, 10))
            values = rng.integers(0, 256, count * size, dtype=np.uint8).view(dtype)
            checks.both_ways(name, values.tobytes(), hex_elements(values.view(unsigned), size * 8),
                             f"{name}[{count}]")

    run = subprocess.run([tool], input="\n".join(checks.lines) + "\n", capture_output=True,
                         text=True, check=False)
    if run.returncode != 0:
        print(f"hurray_numpy_test: {tool} exited {run.returncode}: {run.stderr}", file=sys.stderr)
        return 1
    answers = run.stdout.splitlines()
    if len(answers) != len(checks.lines):
        print(f"hurray_numpy_test: {len(checks.lines)} requests, {len(answers)} answers",
              file=sys.stderr)
        return 1
    failures = 0
    for line, expected, got, label in zip(checks.lines, checks.expected, answers, checks.labels):
        if got != expected:
            failures += 1
            if failures <= 10:
                print(f"DISAGREE {label}\n  request:  {line}\n  numpy:    {expected}\n"
                      f"  codec:    {got}", file=sys.stderr)
    print(f"hurray_numpy_test: seed {seed}, {len(checks.lines)} requests, "
          f"{failures} disagreement(s) with NumPy {np.__version__}")
    print(f"hurray_numpy_test: {case_summary}")
    return 1 if failures or case_failures else 0


if __name__ == "__main__":
    sys.exit(main())
