#!/usr/bin/env python3
"""PROTOCOL.md's worked transcript, replayed against the reference adapter.

    replay_transcript.py PROTOCOL_MD ADAPTER

Sends each `-> ` line to one adapter process, in order, as the runner would
(one line, then wait for the reply), and compares each reply with the `<- `
line below it as JSON values, so that member order and spacing do not matter
and everything else does. Then closes stdin: the transcript says the adapter
then exits with status 0.
"""

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "doc-tests"))
import markdown_examples  # noqa: E402


def main(doc: Path, adapter: str) -> int:
    exchanges = markdown_examples.transcript(doc)
    if not exchanges:
        print(f"{doc}: no worked transcript (-> and <- lines) found")
        return 1
    process = subprocess.Popen([adapter], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    failures = 0
    for line, request, documented in exchanges:
        process.stdin.write(request + "\n")
        process.stdin.flush()
        reply = process.stdout.readline().rstrip("\n")
        if not reply:
            print(f"{doc}:{line}: no reply to\n    {request}\n(the adapter exited {process.wait(timeout=10)})")
            return 1
        if json.loads(reply) != json.loads(documented):
            failures += 1
            print(f"{doc}:{line}: the reference adapter answers\n    {request}\n"
                  f"with\n    {reply}\nnot, as documented,\n    {documented}")
    process.stdin.close()
    extra = process.stdout.read()
    status = process.wait(timeout=10)
    if extra:
        failures += 1
        print(f"output after the last reply: {extra[:200]!r}")
    if status != 0:
        failures += 1
        print(f"at end of stdin the adapter exited {status}, not 0 as documented")
    print(f"{len(exchanges)} exchanges replayed, {failures} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
