#!/usr/bin/env python3
"""The top-level README.md: its shell commands, the figures it quotes, and its
GoogleTest example, an excerpt of adapters/examples/gtest/ (which the ctest
install-and-gtest-example builds and runs).

    check_readme.py commands|figures|excerpts SOURCE_DIR BIN_DIR
"""

import sys

from doc_checks import Excerpt, Figure, main

FIGURES = [
    Figure(r"each profile the adapter offers (?P<generated_per_profile>[\d,]+) generated inputs"),
    Figure(r"and (?P<generated_whole_run>\d+) generated checks? \(seed S\)"),
    Figure(r"kiln-(?:reference|conformance) (?P<version>\d+\.\d+\.\d+)"),
    Figure(r"kiln-conformance(?:-dev)?_(?P<version>\d+\.\d+\.\d+)_amd64"),
    Figure(r"\((?P<cases>[\d,]+) cases: (?P<cases_kiln_v2>[\d,]+) for kiln-v2's (?P<rules_kiln_v2>\d+) rules, "
           r"(?P<cases_hurray_elements>[\d,]+) for hurray-elements's (?P<rules_hurray_elements>\d+), "
           r"(?P<swept_hurray_elements>[\d,]+) of them from its (?P<families_hurray_elements>\w+) sweep families"),
    Figure(r"(?P<families>\d+) sweep families \(\[cases/README.md\]\(cases/README.md\), \"Sweeps\"\) expand, "
           r"through `cases regen`, into (?P<swept>[\d,]+) generated cases. For kiln-v2 \((?P<swept_kiln_v2>[\d,]+)\)"),
    Figure(r"For hurray-elements \((?P<swept_hurray_elements>[\d,]+)\): every tag"),
    Figure(r"holds (?P<mutants>\d+) mutants of the reference \((?P<mutants_kiln_v2>\d+) of kiln-v2, "
           r"(?P<mutants_hurray_elements>\d+) of hurray-elements\)"),
    Figure(r"finds all (?P<mutants_hurray_elements>\d+) Hurray mutants"),
    Figure(r"(?P<fuzz_targets>\w+) libFuzzer targets"),
]

EXCERPTS = [
    Excerpt("find_package(KilnConformance 0.1 CONFIG REQUIRED)",
            ("adapters/examples/gtest/CMakeLists.txt", "adapters/examples/gtest/main.cpp")),
]

if __name__ == "__main__":
    sys.exit(main("README.md", FIGURES, excerpts=EXCERPTS))
