"""A document's shell commands and quoted figures, held to the real tools and case set.

Each document's test, beside the document, names its figures and calls main():

    check_readme.py commands|figures|excerpts SOURCE_DIR BIN_DIR

`commands`: every shell command of the document's code blocks is of a program
this module knows (an unknown one fails, so that a new kind of command gets a
check), and is checked: a kiln-conformance subcommand exists and each option
is in that subcommand's --help; a make target and its variables are in the
Makefile; a script exists, is executable and names each option in its usage;
a cmake source folder, toolchain file and -D cache variable exist. The few
that are cheap and change nothing are also run.

`excerpts`: a code block that shows lines of files built and run in `make test`
holds only lines of those files, in their order.

`figures`: every declared figure (a regular expression whose named groups are
numbers, matched against the text with its white space collapsed) is found,
and each number equals the fact of that name (suite_facts.py). Then any other
"N cases/checks/mutants/rules/..." in the text fails as an unchecked figure,
unless the document's test lists it as not a count of the suite.
"""

from __future__ import annotations

import bisect
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import markdown_examples
from suite_facts import SuiteFacts

# The programs a documented command may start with.
SUITE_PROGRAMS = {"kiln-conformance", "kiln-reference-adapter", "kiln-mutant-adapter"}
SCRIPT_FOLDERS = ("scripts/", "fuzz/")
OTHER_PROGRAMS = {"make", "cmake", "ctest", "printf", "sudo", "apt"}
# Cache variables of CMake's own modules that the project includes (CTest).
_CMAKE_MODULE_VARIABLES = {"BUILD_TESTING"}


def is_program(word: str) -> bool:
    return (Path(word).name in SUITE_PROGRAMS or word in OTHER_PROGRAMS
            or word.startswith(SCRIPT_FOLDERS) or word.startswith("build-fuzz/bin/"))


# Commands run as documented (with build/bin/ the build's programs): quick, and
# they write nothing.
def is_cheap_and_safe(words: list[str]) -> bool:
    program = Path(words[0]).name
    return (program == "kiln-conformance" and words[1:] == ["cases", "coverage"]) or \
           (program == "kiln-reference-adapter" and len(words) == 1)


@dataclass
class OptionTable:
    """A table of a subcommand's options: the first table under a heading,
    each `--option` of its first column held to `kiln-conformance SUBCOMMAND --help`."""
    heading: str
    subcommand: tuple


@dataclass
class Excerpt:
    """A code block that shows lines of project files which `make test` builds and
    runs: the block whose first line is `first_line`. Each of its lines but `...`
    is a line of `files` (leading white space aside), in the files' order."""
    first_line: str
    files: tuple


@dataclass
class Figure:
    """A figure of the text: a regular expression whose named groups are facts.
    A group's value may be written with thousands commas, or as a word."""
    pattern: str


_WORDS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}

# Quantities a sentence of these documents counts: a number before one of them,
# up to three words apart, is a figure.
_COUNTED = re.compile(
    r"(?<![\w.,-])(\d(?:[\d,]*\d)?)(?![\w.])((?:\s+[\w'`-]+){0,3}?)\s+"
    r"(cases|checks|mutants|rules|sweep families|case files|targets)\b")


def number(text: str) -> int:
    text = text.strip().lower()
    return _WORDS[text] if text in _WORDS else int(text.replace(",", ""))


class Checker:
    def __init__(self, doc: Path, source: Path, bin_dir: Path):
        self.doc = Path(doc)
        self.source = Path(source)
        self.bin = Path(bin_dir)
        self.facts = SuiteFacts(source, bin_dir)
        self.problems: list[str] = []
        self.checked = 0

    def problem(self, line: int, text: str) -> None:
        self.problems.append(f"{self.doc.relative_to(self.source)}:{line}: {text}")

    # ---- commands ----

    def commands(self):
        for block in markdown_examples.blocks(self.doc):
            yield from markdown_examples.commands(block, is_program)

    def check_commands(self) -> None:
        for command in self.commands():
            for words in _simple_commands(command.words):
                self.check_command(command.line, words)
            if is_cheap_and_safe(command.words) or _is_hello_pipe(command.words):
                self.run_command(command)
            self.checked += 1
        if self.checked == 0:
            self.problem(1, "no shell command found: is this the right document?")

    def check_command(self, line: int, words: list[str]) -> None:
        program = words[0]
        name = Path(program).name
        if name == "kiln-conformance":
            self.check_subcommand(line, words)
        elif name in SUITE_PROGRAMS:
            if any(word.startswith("-") for word in words[1:]):
                self.check_options(line, words[1:], self.facts.help(name), f"{name} --help")
        elif program == "make":
            self.check_make(line, words[1:])
        elif program == "cmake":
            self.check_cmake(line, words[1:])
        elif program.startswith(SCRIPT_FOLDERS):
            self.check_script(line, words)
        elif program.startswith("build-fuzz/bin/"):
            if name not in self.facts.fuzz_targets:
                self.problem(line, f"{name} is not a fuzz target (KILN_FUZZ_TARGETS: {' '.join(self.facts.fuzz_targets)})")
        elif program == "sudo":
            self.check_command(line, words[1:])
        elif program == "apt":
            for word in words[2:]:
                self.check_package_name(line, word)
        elif program in ("printf", "ctest"):
            pass  # standard tools, used as any user would
        else:
            self.problem(line, f"no check for the command {program!r} (doc_checks.py)")

    def check_option_table(self, table: OptionTable) -> None:
        lines = self.doc.read_text(encoding="utf-8").splitlines()
        heading = next((i for i, line in enumerate(lines)
                        if re.match(r"^#+\s+" + re.escape(table.heading) + r"\s*$", line)), None)
        if heading is None:
            self.problem(1, f"no heading \"{table.heading}\" (renamed? update the test)")
            return
        start = next((i for i in range(heading, len(lines)) if lines[i].startswith("|")), None)
        rows = []
        for i in range(start or len(lines), len(lines)):
            if not lines[i].startswith("|"):
                break
            rows.append((i + 1, lines[i].split("|")[1]))
        where = " ".join(["kiln-conformance", *table.subcommand])
        help_text = self.facts.help("kiln-conformance", *table.subcommand)
        for line, cell in rows[2:]:  # after the header and its rule
            options = re.findall(r"`(--[\w-]+)", cell)
            if not options:
                self.problem(line, f"a row of the options table names no option: {cell.strip()}")
            self.check_options(line, options, help_text, f"{where} --help")
            self.checked += 1
        if len(rows) < 3:
            self.problem(heading + 1, f"no options table under \"{table.heading}\"")

    def check_subcommand(self, line: int, words: list[str]) -> None:
        path: list[str] = []
        rest = words[1:]
        while rest and rest[0] in _subcommands(self.facts.help("kiln-conformance", *path)):
            path.append(rest.pop(0))
        shown = " ".join(["kiln-conformance", *path])
        if not path or _subcommands(self.facts.help("kiln-conformance", *path)):
            self.problem(line, f"`{shown} {' '.join(rest[:1])}`: no such subcommand "
                               f"(`{shown} --help` lists {', '.join(_subcommands(self.facts.help('kiln-conformance', *path)))})")
            return
        self.check_options(line, rest, self.facts.help("kiln-conformance", *path), f"{shown} --help")

    def check_options(self, line: int, words: list[str], help_text: str, where: str) -> None:
        offered = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", help_text))
        for word in words:
            if word.startswith("-") and word != "-":
                option = word.split("=", 1)[0]
                if option not in offered:
                    self.problem(line, f"{option}: not an option of `{where}`")

    def check_make(self, line: int, words: list[str]) -> None:
        makefile = (self.source / "Makefile").read_text(encoding="utf-8")
        targets = set(re.findall(r"^([\w-]+):", makefile, re.M))
        for word in words:
            if "=" in word:
                variable = word.split("=", 1)[0]
                if f"$({variable})" not in makefile:
                    self.problem(line, f"make {variable}=...: the Makefile does not use $({variable})")
            elif word not in targets:
                self.problem(line, f"make {word}: no such target in the Makefile")

    def check_cmake(self, line: int, words: list[str]) -> None:
        declared = _cmake_cache_variables(self.source)
        for index, word in enumerate(words):
            if word == "-S" and index + 1 < len(words) and not (self.source / words[index + 1]).is_dir():
                self.problem(line, f"cmake -S {words[index + 1]}: no such folder")
            if word.startswith("-D"):
                variable, _, value = word[2:].partition("=")
                variable = variable.split(":", 1)[0]
                if variable == "CMAKE_TOOLCHAIN_FILE" and not (self.source / value).is_file():
                    self.problem(line, f"{word}: no such file")
                elif not variable.startswith("CMAKE_") and variable not in declared | _CMAKE_MODULE_VARIABLES:
                    self.problem(line, f"-D{variable}: no option() or cache variable of that name in the project")

    def check_script(self, line: int, words: list[str]) -> None:
        script = self.source / words[0]
        if not script.is_file() or not os.access(script, os.X_OK):
            self.problem(line, f"{words[0]}: not an executable file of the project")
            return
        usage = _leading_comment(script.read_text(encoding="utf-8"))
        for word in words[1:]:
            if word.startswith("--") and not re.search(re.escape(word.split("=", 1)[0]) + r"(?![\w-])", usage):
                self.problem(line, f"{words[0]} {word}: not in the script's usage (its leading comment)")

    def check_package_name(self, line: int, word: str) -> None:
        package = re.search(r"kiln-conformance(?:-dev)?_([^_]+)_", word)
        if package and package.group(1) != self.facts.version:
            self.problem(line, f"{word}: the project's version is {self.facts.version}")

    def run_command(self, command) -> None:
        text = command.text.replace("build/bin/", f"{self.bin}/")
        done = subprocess.run(["sh", "-c", text], cwd=self.source, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            self.problem(command.line, f"`{command.text}` exited {done.returncode}:\n{done.stderr[-2000:]}")
        elif not done.stdout.strip():
            self.problem(command.line, f"`{command.text}` printed nothing")

    # ---- excerpts ----

    def check_excerpt(self, excerpt: Excerpt) -> None:
        found = [block for block in markdown_examples.blocks(self.doc)
                 if block.text.splitlines()[:1] == [excerpt.first_line]]
        if len(found) != 1:
            self.problem(1, f"{len(found)} code blocks start with {excerpt.first_line!r}, expected one")
            return
        source_lines = [line.strip() for name in excerpt.files
                        for line in (self.source / name).read_text(encoding="utf-8").splitlines()]
        position = 0
        for offset, line in enumerate(found[0].text.splitlines()):
            if not line.strip() or line.strip() == "...":
                continue
            try:
                position = source_lines.index(line.strip(), position) + 1
            except ValueError:
                self.problem(found[0].line + offset, f"not a line of {', '.join(excerpt.files)} "
                                                     f"(in this order): {line.strip()}")
            self.checked += 1

    # ---- figures ----

    def check_figures(self, figures: list[Figure], not_figures: list[str]) -> None:
        collapsed = _Collapsed(self.doc.read_text(encoding="utf-8"))
        text = collapsed.text
        covered: list[tuple[int, int]] = []
        for figure in figures:
            matches = list(re.finditer(figure.pattern, text))
            if not matches:
                self.problem(1, f"figure not found (reworded? update the test): {figure.pattern}")
            for match in matches:
                covered.append(match.span())
                for name, written in match.groupdict().items():
                    if written is None:
                        continue
                    expected = self.facts.value(name)
                    got = written if isinstance(expected, str) else number(written)
                    if got != expected:
                        self.problem(collapsed.line(match.start()),
                                     f"says {written} for {name}, the suite has {expected}: …{match.group(0)}…")
                    self.checked += 1
        for match in _COUNTED.finditer(text):
            inside = any(start <= match.start() < end for start, end in covered)
            if not inside and not any(phrase in match.group(0) or match.group(0) in phrase
                                      for phrase in not_figures):
                self.problem(collapsed.line(match.start()),
                             f"an unchecked figure: …{match.group(0)}… (check it in this document's "
                             f"test, or reword it so that it cannot go stale)")

    def report(self, what: str) -> int:
        for problem in self.problems:
            print(problem)
        if self.problems:
            print(f"{len(self.problems)} problem(s) in the {what} of {self.doc.relative_to(self.source)}")
            return 1
        print(f"{self.doc.relative_to(self.source)}: {self.checked} {what} checked")
        return 0


def _simple_commands(words: list[str]):
    """The commands of a pipeline or list (`a | b && c`), each as its words."""
    current: list[str] = []
    for word in words:
        if word in ("|", "&&", "||", ";"):
            if current:
                yield current
            current = []
        else:
            current.append(word)
    if current:
        yield current


def _is_hello_pipe(words: list[str]) -> bool:
    parts = list(_simple_commands(words))
    return len(parts) == 2 and parts[0][0] == "printf" and is_cheap_and_safe(parts[1])


def _subcommands(help_text: str) -> list[str]:
    """The subcommands a CLI11 --help lists under `Subcommands:`."""
    if "\nSubcommands:\n" not in help_text:
        return []
    section = help_text.split("\nSubcommands:\n", 1)[1]
    return re.findall(r"^  (\S+)", section, re.M)


def _cmake_cache_variables(source: Path) -> set[str]:
    """The option()s and cache variables of the project's CMakeLists.txt files
    (build trees and hidden folders left out)."""
    names = set()
    for folder, subfolders, files in os.walk(source):
        subfolders[:] = [d for d in subfolders if not d.startswith((".", "build"))]
        if "CMakeLists.txt" in files:
            text = (Path(folder) / "CMakeLists.txt").read_text(encoding="utf-8", errors="replace")
            names.update(re.findall(r"\boption\((\w+)", text))
            names.update(re.findall(r"\bset\((\w+)\s[^)]*\bCACHE\b", text))
    return names


def _leading_comment(text: str) -> str:
    lines = text.splitlines()[1:] if text.startswith("#!") else text.splitlines()
    comment = []
    for line in lines:
        if not line.startswith("#"):
            break
        comment.append(line)
    return "\n".join(comment)


class _Collapsed:
    """A text with every run of white space made one space, and for each
    position of it the line of the original it comes from."""

    def __init__(self, text: str):
        words = list(re.finditer(r"\S+", text))
        self.text = " ".join(word.group(0) for word in words)
        self._starts, self._lines = [], []
        position = 0
        for word in words:
            self._starts.append(position)
            self._lines.append(text.count("\n", 0, word.start()) + 1)
            position += len(word.group(0)) + 1

    def line(self, position: int) -> int:
        return self._lines[max(0, bisect.bisect_right(self._starts, position) - 1)] if self._lines else 1


def main(doc: str, figures: list[Figure] = (), not_figures: list[str] = (),
         option_tables: list[OptionTable] = (), more_figures=(), excerpts: list[Excerpt] = (),
         argv=None) -> int:
    """`more_figures`: checks of figures a pattern cannot state (a list that must
    equal the suite's), each called with the Checker and the collapsed text."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 3 or argv[0] not in ("commands", "figures", "excerpts"):
        print(f"usage: {Path(sys.argv[0]).name} commands|figures|excerpts SOURCE_DIR BIN_DIR", file=sys.stderr)
        return 2
    what, source, bin_dir = argv[0], Path(argv[1]).resolve(), Path(argv[2]).resolve()
    checker = Checker(source / doc, source, bin_dir)
    if what == "commands":
        checker.check_commands()
        for table in option_tables:
            checker.check_option_table(table)
    elif what == "excerpts":
        for excerpt in excerpts:
            checker.check_excerpt(excerpt)
    else:
        checker.check_figures(list(figures), list(not_figures))
        text = _Collapsed(checker.doc.read_text(encoding="utf-8")).text
        for check in more_figures:
            check(checker, text)
            checker.checked += 1
    return checker.report(what)
