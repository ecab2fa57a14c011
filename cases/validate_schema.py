#!/usr/bin/env python3
"""Applies case.schema.json to every case file with two independent YAML parsers.

A third party reads the cases with whatever YAML parser they have. Each file is
read with ruamel.yaml (YAML 1.2) and with PyYAML (YAML 1.1); both readings must
be the same document (so nothing in a case depends on which YAML version a
reader speaks, such as `yes` or `0x38`), and that document must satisfy the
schema. Exit 0 when every file passes, 1 otherwise.
"""
import json
import pathlib
import sys

import jsonschema
import yaml
from ruamel.yaml import YAML


def load_yaml_1_2(text: str):
    reader = YAML(typ="safe", pure=True)
    reader.version = (1, 2)
    return reader.load(text)


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
    schema = json.loads((root / "case.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    files = sorted(root.rglob("*.yaml"))
    failed = 0
    for path in files:
        name = path.relative_to(root)
        text = path.read_text(encoding="utf-8")
        try:
            document = load_yaml_1_2(text)
            legacy = yaml.safe_load(text)
        except Exception as error:  # either parser's error type: report, go on
            print(f"{name}: not YAML: {error}")
            failed += 1
            continue
        problems = []
        # Compared as JSON text: a .nan value is not equal to itself.
        if json.dumps(document, sort_keys=True) != json.dumps(legacy, sort_keys=True):
            problems.append("(top): YAML 1.2 and YAML 1.1 read this file differently")
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.path)):
            where = "/".join(str(part) for part in error.path) or "(top)"
            problems.append(f"{where}: {error.message[:300]}")
        for problem in problems:
            print(f"{name}: {problem}")
        failed += bool(problems)
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main())
