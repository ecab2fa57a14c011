#!/usr/bin/env python3
"""Holds every case's UTF-8 expectations to Python's codec, an outside oracle.

Kiln's names and layout names are strict UTF-8 as RFC 3629 defines it, which
is what Python's "utf-8" codec decodes in strict mode (no overlong forms, no
surrogates, nothing past U+10FFFF, nothing cut short; U+0000 and noncharacters
allowed). For every case without faults (whose bytes are its description):

- an accept case has names and layout names that Python decodes;
- a case the reference rejects with FRAME-NAME-UTF8 has a name Python refuses;
- a case rejected with TYPE-OPAQUE-LAYOUT-UTF8 has names Python decodes and a
  layout name it refuses;
- any other case has names Python decodes (a FRAME rule checked after names
  would otherwise hide a name the reference should have refused).

Exit 0 when every case agrees, 1 otherwise; the last line is "N passed, N failed".
"""
import pathlib
import sys

import yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def text_bytes(tensor: dict, key: str):
    if key in tensor:
        return str(tensor[key]).encode("utf-8")
    if key + "_hex" in tensor:
        return bytes.fromhex(tensor[key + "_hex"])
    return None


def strict_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8", errors="strict")
        return True
    except UnicodeDecodeError:
        return False


def problem_of(case: dict):
    if case.get("faults"):
        return None
    names = [text_bytes(t, "name") for t in case["tensors"]]
    layouts = [b for b in (text_bytes(t, "layout") for t in case["tensors"]) if b is not None]
    names_ok = all(strict_utf8(n) for n in names if n is not None)
    layouts_ok = all(strict_utf8(b) for b in layouts)
    expect = case["expect"]
    rule = expect.get("rule")
    if expect["result"] == "accept":
        if not names_ok or not layouts_ok:
            return "accepted, but Python's codec refuses a name or layout name"
    elif rule == "FRAME-NAME-UTF8":
        if names_ok:
            return "rejected with FRAME-NAME-UTF8, but Python's codec decodes every name"
    elif rule == "TYPE-OPAQUE-LAYOUT-UTF8":
        if not names_ok:
            return "rejected with TYPE-OPAQUE-LAYOUT-UTF8, but a name is not UTF-8 (a FRAME rule)"
        if layouts_ok:
            return "rejected with TYPE-OPAQUE-LAYOUT-UTF8, but Python's codec decodes every layout"
    elif not names_ok and expect.get("class") == "TYPE":
        return f"rejected with {rule}, but a name is not UTF-8, a FRAME rule checked first"
    return None


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
    passed = failed = 0
    for path in sorted(root.rglob("*.yaml")):
        case = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)
        if case.get("profile", "kiln-v2") != "kiln-v2":
            continue  # names and layouts are Kiln's: other profiles have neither
        problem = problem_of(case)
        if problem:
            print(f"{path.relative_to(root)}: {case['id']}: {problem}")
            failed += 1
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
