#!/usr/bin/env python3
"""adapters/README.md: its shell commands, the runner options table, and the
figures it quotes. (Its example adapter is certified by its own test:
CMakeLists.txt here.)

    check_readme.py commands|figures SOURCE_DIR BIN_DIR
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "doc-tests"))
from doc_checks import Figure, OptionTable, main  # noqa: E402

FIGURES = [
    Figure(r"The mutant catalogue holds (?P<mutants_hurray_elements>\d+) Hurray mutants"),
    Figure(r"finding all (?P<mutants_hurray_elements>\d+) Hurray mutants of the catalogue"),
    Figure(r"`--timeout-ms N` \| per-request limit, default (?P<run_timeout_ms>\d+)"),
    Figure(r"`--generated N` \| generated checks per profile after the cases \(below; "
           r"default (?P<generated_per_profile>[\d,]+) for a whole run"),
    Figure(r"and (?P<generated_whole_run>\d+) generated checks \(seed S\)"),
    Figure(r"a hang \(`--timeout-ms`, default (?P<fuzz_timeout_ms>\d+)\)"),
    Figure(r"`--hello-timeout-ms` \(default (?P<fuzz_hello_timeout_ms>\d+)\)"),
]

OPTION_TABLES = [OptionTable("Runner options", ("run",))]

if __name__ == "__main__":
    sys.exit(main("adapters/README.md", FIGURES, option_tables=OPTION_TABLES))
