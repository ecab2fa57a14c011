#!/usr/bin/env python3
"""Cross-checks the reference Hurray codec against NumPy, data no one here wrote.

bool packing against numpy.packbits(bitorder='little'); float16/32/64, complex64/128
and the integer types against NumPy's little-endian bytes and bit views; random
inputs (fixed seed, or HURRAY_NUMPY_SEED) plus special values (NaN payloads,
infinities, -0, subnormals). Usage: hurray_numpy_test.py PATH_TO_hurray_lines.
Exit 0 when all agree, 1 on a disagreement, 2 on unusable arguments or a missing NumPy.
"""
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


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool = sys.argv[1]
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
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
