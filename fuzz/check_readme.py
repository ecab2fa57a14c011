#!/usr/bin/env python3
"""fuzz/README.md: its shell commands, its table of targets and the figures it
quotes, against the build files, the scripts and `kiln-conformance`.

    check_readme.py commands|figures SOURCE_DIR BIN_DIR
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "doc-tests"))
from doc_checks import Figure, main  # noqa: E402

FIGURES = [
    Figure(r"which sends every adapter the same (?P<generated_per_profile>[\d,]+) blind inputs per profile"),
]


def targets_table(checker, text):
    """The Targets table lists exactly the targets of KILN_FUZZ_TARGETS, in its order."""
    listed = re.findall(r"\| `(fuzz_\w+)` \|", text)
    if listed != checker.facts.fuzz_targets:
        checker.problem(1, f"the Targets table lists {' '.join(listed) or 'nothing'}; "
                           f"KILN_FUZZ_TARGETS (fuzz/CMakeLists.txt) is {' '.join(checker.facts.fuzz_targets)}")


def replay_mutants(checker, text):
    """The chained mutants the replay main runs per input: kMutantsPerInput."""
    source = (checker.source / "fuzz" / "replay" / "replay_main.cpp").read_text(encoding="utf-8")
    constant = int(re.search(r"kMutantsPerInput = (\d+);", source).group(1))
    said = re.search(r"also (\d+) chained mutants of each file", text)
    if not said or int(said.group(1)) != constant:
        checker.problem(1, f"the replay main runs {constant} chained mutants per input (kMutantsPerInput "
                           f"in fuzz/replay/replay_main.cpp); the text says {said.group(1) if said else 'nothing'}")


if __name__ == "__main__":
    sys.exit(main("fuzz/README.md", FIGURES, not_figures=["32 chained mutants"],  # replay_mutants
                  more_figures=[targets_table, replay_mutants]))
