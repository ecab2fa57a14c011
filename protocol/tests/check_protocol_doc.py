#!/usr/bin/env python3
"""PROTOCOL.md: the figures it quotes, against `kiln-conformance`. (Its worked
transcript is replayed by replay_transcript.py.)

    check_protocol_doc.py figures SOURCE_DIR BIN_DIR
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "doc-tests"))
from doc_checks import Figure, main  # noqa: E402

FIGURES = [
    Figure(r"the runner's `--timeout-ms`, default (?P<run_timeout_ms>\d+) ms"),
]

if __name__ == "__main__":
    sys.exit(main("protocol/PROTOCOL.md", FIGURES))
