#!/usr/bin/env python3
"""cases/README.md: its shell commands and the figures it quotes, against the
case set and `kiln-conformance`.

    check_readme.py commands|figures SOURCE_DIR BIN_DIR
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "doc-tests"))
from doc_checks import Figure, main  # noqa: E402

FIGURES = [
    Figure(r"The families hold (?P<swept>[\d,]+) of the suite's cases \((?P<swept_kiln_v2>[\d,]+) of kiln-v2, "
           r"(?P<swept_hurray_elements>[\d,]+) of hurray-elements\)"),
]


def seed_pages(checker, text):
    """The seed pages the `source` key lists are the pages the cases cite."""
    original = checker.doc.read_text(encoding="utf-8")
    line = original.count("\n", 0, max(0, original.find("`seed NNN <seed case id>`"))) + 1
    row = re.search(r"`seed NNN <seed case id>`[^(]*\(NNN the (?:seed )?page: ([^)]*)\)", text)
    if not row:
        checker.problem(line, "the `source` row's list of seed pages is not found (reworded? update the test)")
        return
    listed = sorted(set(re.findall(r"\b\d{3}\b", row.group(1))))
    if listed != checker.facts.seed_pages:
        checker.problem(line, f"the `source` row lists seed pages {', '.join(listed)}; "
                           f"the cases cite {', '.join(checker.facts.seed_pages)}")


if __name__ == "__main__":
    sys.exit(main("cases/README.md", FIGURES, more_figures=[seed_pages]))
