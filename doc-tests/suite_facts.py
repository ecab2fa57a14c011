"""What the documents count, counted at test time from the suite itself.

Each fact comes from where the suite keeps it: cases, rules and sweep families
per profile from `kiln-conformance cases coverage`, checks and seed pages from
the case files, the mutants from `kiln-mutant-adapter --list`, defaults from the
programs' `--help`, the fuzz targets and the version from the CMake files. A
fact is computed when first asked for, so a test pays only for what it quotes.

Facts have names (`cases_kiln_v2`, `mutants_hurray_elements`): a profile's name
with `_` for `-` after the quantity.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path


def run(argv, cwd=None) -> str:
    """A program's stdout; a program that fails fails the test, with its output."""
    done = subprocess.run([str(a) for a in argv], cwd=cwd, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} exited {done.returncode}:\n{done.stderr}{done.stdout}")
    return done.stdout


def _key(profile: str) -> str:
    return profile.replace("-", "_")


@dataclass
class CaseFile:
    path: Path
    profile: str
    ops: int          # how many of decode, encode it tests: its checks
    seed_page: str    # "000".."003" for a case of the design brief's seed pages, else ""


class SuiteFacts:
    def __init__(self, source: Path, bin_dir: Path):
        self.source = Path(source)
        self.bin = Path(bin_dir)
        self.cases_dir = self.source / "cases"
        self._helps: dict = {}

    # ---- the case set ----

    @cached_property
    def coverage(self) -> dict:
        """`cases coverage`: the profiles, their cases and rules, and the sweep families."""
        text = run([self.bin / "kiln-conformance", "cases", "--cases", self.cases_dir, "coverage"])
        facts = {"profiles": [], "families": {}}
        for profile, count in re.findall(r"^profile (\S+) \(.*\): (\d+) cases$", text, re.M):
            facts["profiles"].append(profile)
            facts[f"cases_{_key(profile)}"] = int(count)
        for profile, count in re.findall(r"^(\S+): (\d+) rules, \d+ without a breaking case$", text, re.M):
            facts[f"rules_{_key(profile)}"] = int(count)
        total = re.search(r"^(\d+) cases, (\d+) rules, \d+ rule\(s\) without a breaking case$", text, re.M)
        facts["cases"], facts["rules"] = int(total.group(1)), int(total.group(2))
        for row in text.split("\nfamily ", 1)[1].splitlines()[1:]:
            family = re.match(r"^([a-z0-9-]+)\s+(\d+)\s+\d+\s+\d+\s", row)
            if not family:
                break
            facts["families"][family.group(1)] = int(family.group(2))
        return facts

    @cached_property
    def case_files(self) -> list[CaseFile]:
        files = []
        for path in sorted(self.cases_dir.rglob("*.yaml")):
            text = path.read_text(encoding="utf-8")
            profile = re.search(r"^profile: (\S+)", text, re.M)
            ops = re.search(r"^ops: \[([a-z, ]*)\]", text, re.M)
            seed = re.search(r"^source: seed (\d{3}) ", text, re.M)
            files.append(CaseFile(path, profile.group(1) if profile else "kiln-v2",
                                  len([op for op in ops.group(1).split(",") if op.strip()]) if ops else 0,
                                  seed.group(1) if seed else ""))
        return files

    def sweep_families(self, profile: str) -> dict:
        """The sweep families of one profile: folder name -> its cases."""
        families = {}
        for case in self.case_files:
            parts = case.path.relative_to(self.cases_dir).parts
            if parts[0] == "sweep" and case.profile == profile:
                families[parts[1]] = families.get(parts[1], 0) + 1
        return families

    @cached_property
    def seed_pages(self) -> list[str]:
        return sorted({case.seed_page for case in self.case_files if case.seed_page})

    # ---- the programs ----

    def help(self, program: str, *subcommands: str) -> str:
        """`program subcommands... --help`, stdout and stderr (a usage may go to either)."""
        key = (program, *subcommands)
        if key not in self._helps:
            done = subprocess.run([str(self.bin / program), *subcommands, "--help"],
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
            self._helps[key] = done.stdout + done.stderr
        return self._helps[key]

    def default(self, program: str, subcommand: str, option: str) -> int:
        """An option's default as --help prints it: `--opt TYPE=N` or `(default N ...)`."""
        text = self.help(program, subcommand)
        entry = re.search(rf"^  {re.escape(option)}\b(.*(?:\n {{20,}}.*)*)", text, re.M)
        if not entry:
            raise LookupError(f"{program} {subcommand} --help has no {option}")
        found = re.search(r"=(\d+)\b", entry.group(1)) or re.search(r"default (\d+)", entry.group(1))
        if not found:
            raise LookupError(f"{program} {subcommand} --help gives no default for {option}")
        return int(found.group(1))

    @cached_property
    def mutants(self) -> dict:
        """The catalogue by profile (a hurray-elements mutant's category is hurray-*)."""
        listing = run([self.bin / "kiln-mutant-adapter", "--list"]).splitlines()
        hurray = [line for line in listing if re.match(r"^\S+\s+\[hurray-", line)]
        return {"all": len(listing), "hurray-elements": len(hurray), "kiln-v2": len(listing) - len(hurray)}

    # ---- the build files ----

    @cached_property
    def fuzz_targets(self) -> list[str]:
        text = (self.source / "fuzz" / "CMakeLists.txt").read_text(encoding="utf-8")
        return re.search(r"^set\(KILN_FUZZ_TARGETS ([^)]*)\)", text, re.M).group(1).split()

    @cached_property
    def version(self) -> str:
        text = (self.source / "CMakeLists.txt").read_text(encoding="utf-8")
        return re.search(r"^project\(\S+ VERSION (\S+)", text, re.M).group(1)

    # ---- by name ----

    @cached_property
    def _named(self) -> dict:
        named = {
            "cases": lambda: self.coverage["cases"],
            "rules": lambda: self.coverage["rules"],
            "profiles": lambda: len(self.coverage["profiles"]),
            "families": lambda: len(self.coverage["families"]),
            "swept": lambda: sum(self.coverage["families"].values()),
            "checks": lambda: sum(case.ops for case in self.case_files),
            "hurray_folder_cases": lambda: len(list((self.cases_dir / "hurray").rglob("*.yaml"))),
            "mutants": lambda: self.mutants["all"],
            "generated_per_profile": lambda: self.default("kiln-conformance", "run", "--generated"),
            "generated_whole_run": lambda: self.value("profiles") * self.value("generated_per_profile"),
            "run_timeout_ms": lambda: self.default("kiln-conformance", "run", "--timeout-ms"),
            "fuzz_timeout_ms": lambda: self.default("kiln-conformance", "fuzz", "--timeout-ms"),
            "fuzz_hello_timeout_ms": lambda: self.default("kiln-conformance", "fuzz", "--hello-timeout-ms"),
            "fuzz_targets": lambda: len(self.fuzz_targets),
            "version": lambda: self.version,
        }
        for profile in ("kiln-v2", "hurray-elements"):
            key = _key(profile)
            named[f"cases_{key}"] = lambda k=key: self.coverage[f"cases_{k}"]
            named[f"rules_{key}"] = lambda k=key: self.coverage[f"rules_{k}"]
            named[f"families_{key}"] = lambda p=profile: len(self.sweep_families(p))
            named[f"swept_{key}"] = lambda p=profile: sum(self.sweep_families(p).values())
            named[f"checks_{key}"] = lambda p=profile: sum(c.ops for c in self.case_files if c.profile == p)
            named[f"mutants_{key}"] = lambda p=profile: self.mutants[p]
        return named

    def value(self, name: str):
        if name not in self._named:
            raise KeyError(f"no fact named {name!r} (suite_facts.py)")
        return self._named[name]()
