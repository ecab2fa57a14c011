#!/usr/bin/env python3
"""Applies case.schema.json to every case file with an independent YAML parser.

A third party reads the cases with whatever YAML parser they have; this proves
the files need nothing of ours. Exit 0 when every file is valid, 1 otherwise.
"""
import json
import pathlib
import sys

import jsonschema
import yaml


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
    schema = json.loads((root / "case.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    files = sorted(root.rglob("*.yaml"))
    failed = 0
    for path in files:
        try:
            document = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as error:
            print(f"{path.relative_to(root)}: not YAML: {error}")
            failed += 1
            continue
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
        for error in errors:
            where = "/".join(str(part) for part in error.path) or "(top)"
            print(f"{path.relative_to(root)}: {where}: {error.message[:300]}")
        failed += bool(errors)
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main())
