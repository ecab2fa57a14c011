"""The examples of a Markdown document, as the tests of each document read them.

One reader for every document, so that what counts as an example (a fenced or
indented code block, a shell command in one, a worked transcript) is decided
once. Standard library only.

    python3 markdown_examples.py extract DOC --section HEADING --language python --out FILE

writes the one code block of that language under that heading (the section runs
to the next heading of the same or a higher level) to FILE, and fails when there
is none or more than one: a test that runs an example must never run a
different one than the reader sees.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)\s*(?P<info>[^`\s]*)")
_HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<title>.+?)\s*#*\s*$")


@dataclass
class Block:
    """One code block: its text without the block's own indentation."""
    kind: str        # "fenced" or "indented"
    language: str    # a fenced block's info string ("python", "json"); "" otherwise
    text: str
    line: int        # 1-based line of the block's first line of code
    section: str     # the nearest heading above it


@dataclass
class Command:
    """One shell command of a code block, its continuation lines joined."""
    text: str        # as written, without a trailing comment
    line: int
    words: list = field(default_factory=list)  # shlex's reading of text


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def blocks(path: Path) -> list[Block]:
    """Every code block of the document, in order.

    An indented block is a run of lines indented by at least four spaces more
    than the paragraph or list item around it, after a blank line (blank lines
    inside it included); the least-indented line sets its indentation.
    """
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    section = ""
    context = 0          # the indentation of the prose the next block is under
    previous_blank = True
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = _HEADING.match(line)
        fence = _FENCE.match(line)
        if heading and not line.startswith(" "):
            section, context = heading.group("title"), 0
        elif fence:
            marker, indent = fence.group("fence"), len(fence.group("indent"))
            body, i = [], i + 1
            while i < len(lines) and not lines[i].lstrip(" ").startswith(marker):
                body.append(lines[i][indent:] if _indent(lines[i]) >= indent else lines[i].lstrip(" "))
                i += 1
            found.append(Block("fenced", fence.group("info"), "\n".join(body) + "\n",
                               i - len(body) + 1 if body else i + 1, section))
        elif line.strip() and previous_blank and _indent(line) >= context + 4:
            start, body = i, []
            while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) >= context + 4):
                body.append(lines[i])
                i += 1
            while body and not body[-1].strip():
                body.pop()
            cut = min(_indent(b) for b in body if b.strip())
            found.append(Block("indented", "", "\n".join(b[cut:] for b in body) + "\n", start + 1, section))
            previous_blank = True
            continue
        elif line.strip():
            # Prose: a list item's continuation lines are indented past its marker.
            item = re.match(r"^( *)(?:[-*+]|\d+\.)\s+", line)
            context = len(item.group(0)) if item else _indent(line) if previous_blank else context
        previous_blank = not line.strip()
        i += 1
    return found


def section_blocks(path: Path, heading: str, language: str | None = None) -> list[Block]:
    """The code blocks under a heading (to the next heading), optionally of one language."""
    return [b for b in blocks(path)
            if b.section == heading and (language is None or b.language == language)]


def commands(block: Block, programs) -> list[Command]:
    """The shell commands of a block: each line whose first word `programs(word)`
    accepts, with its `\\`-continued lines, its trailing `# comment` dropped.
    Other lines (output, file formats, comments) are not commands."""
    found = []
    lines = block.text.splitlines()
    i = 0
    while i < len(lines):
        start = i
        text = lines[i].rstrip()
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        text = _without_comment(text.strip())
        try:
            words = shlex.split(text)
        except ValueError:
            continue
        if words and programs(words[0]):
            found.append(Command(text, block.line + start, words))
    return found


def _without_comment(text: str) -> str:
    """A shell line without its comment: a `#` after white space, outside quotes."""
    quote = None
    for index, char in enumerate(text):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1].isspace()):
            return text[:index].rstrip()
    return text


def transcript(path: Path) -> list[tuple[int, str, str]]:
    """A worked transcript's exchanges: (line, request, reply) for each `-> `
    line and the `<- ` line that follows it, from the document's code blocks."""
    exchanges = []
    for block in blocks(path):
        lines = block.text.splitlines()
        for offset, line in enumerate(lines):
            if line.startswith("-> "):
                reply = lines[offset + 1] if offset + 1 < len(lines) else ""
                if not reply.startswith("<- "):
                    raise ValueError(f"{path}:{block.line + offset}: a request without its reply")
                exchanges.append((block.line + offset, line[3:], reply[3:]))
    return exchanges


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    extract = sub.add_parser("extract", help="write the one code block of a language under a heading")
    extract.add_argument("doc", type=Path)
    extract.add_argument("--section", required=True, help="the heading's text, without the #s")
    extract.add_argument("--language", required=True, help="the fenced block's info string")
    extract.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)

    found = section_blocks(args.doc, args.section, args.language)
    if len(found) != 1:
        print(f"{args.doc}: {len(found)} {args.language} blocks under \"{args.section}\", "
              f"expected exactly one", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(found[0].text, encoding="utf-8")
    print(f"{args.doc}:{found[0].line}: {args.language} example written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
