#!/usr/bin/env python3
"""The HTML reports in a real browser (headless Chromium through Selenium):
what a reader sees matches the JSON reports (counts, stale expected failures
among them, certificates, each generated phase's checks, seed and written failures), filters
hide rows, a click opens a result's or a cell's details, and hostile adapter
text (markup, script, controls, invalid UTF-8) is shown as text and never runs.

usage: browser_test.py CLI REFERENCE_ADAPTER FAKE_ADAPTER MUTANT_ADAPTER CASES_DIR

Exits 77 (ctest: skipped) when Chromium, chromedriver or python3-selenium is
missing, unless KILN_REQUIRE_BROWSER=1 (`make test-browser`, CI)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
HOSTILE_MARK = "</script><script>window.kilnPwned=1</script>"
MUTANT = "enc-data-offset-from-block-start"


def unavailable(why):
    if os.environ.get("KILN_REQUIRE_BROWSER") == "1":
        sys.exit("browser test: " + why)
    print("browser test skipped: " + why + " (make test-browser installs it)")
    sys.exit(77)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
except ImportError:
    unavailable("python3-selenium is not installed")
for program in (CHROMIUM, CHROMEDRIVER):
    if not os.access(program, os.X_OK):
        unavailable(program + " is not installed")

failures = []
passes = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    (passes if condition else failures).append(what)


def run(cli, cases, adapter, out, name, expect, extra=()):
    json_file, html_file = os.path.join(out, name + ".json"), os.path.join(out, name + ".html")
    done = subprocess.run([cli, "run", "--no-progress", "--cases", cases, "--adapter", adapter,
                           "--json", json_file, "--html", html_file] + list(extra),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    if done.returncode != expect:
        sys.exit("browser test: run of %s exited %d, expected %d: %s" %
                 (name, done.returncode, expect, done.stderr.decode(errors="replace")))
    with open(json_file, encoding="utf-8") as f:
        return json.load(f), html_file


def text(driver, css):
    return driver.find_element(By.CSS_SELECTOR, css).text


def pwned(driver):
    return driver.execute_script("return window.kilnPwned === undefined ? null : window.kilnPwned")


def check_run_page(driver, report, page):
    driver.get("file://" + page)
    totals = report["totals"]
    cells = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#totals td")]
    want = [str(totals[k]) for k in ("passed", "failed", "skipped", "expected_failures",
                                     "stale_expected_failures", "results")]
    check(cells[1:] == want, "run page totals %s match the JSON report's %s" % (cells[1:], want))
    check(text(driver, "#certificate") == report["certificate"], "run page shows the certificate")
    failing = sum(1 for r in report["results"] if r["unexpected"])
    check(text(driver, "#failures-heading") == "Failures (%d)" % failing, "failure count is %d" % failing)
    count = len(report["results"])
    check(text(driver, "#result-count") == "%d of %d results" % (count, count), "every result listed")
    Select(driver.find_element(By.ID, "filter-status")).select_by_value("failed")
    check(text(driver, "#result-count") == "%d of %d results" % (totals["failed"], count),
          "the status filter leaves the %d failed results" % totals["failed"])
    verdicts = driver.execute_script(
        "return [...document.querySelectorAll('#results tr.result')].map(r => r.cells[3].textContent)")
    check(len(verdicts) == min(totals["failed"], 500) and "pass" not in verdicts,
          "only failed rows are drawn (%d)" % len(verdicts))
    Select(driver.find_element(By.ID, "filter-status")).select_by_value("all")
    first = report["results"][0]["case"]
    # One input event, as a paste makes: typing would filter once per key.
    driver.execute_script("const box = document.getElementById('filter-text'); box.value = arguments[0];"
                          "box.dispatchEvent(new Event('input'));", first)
    matching = sum(1 for r in report["results"] if first.lower() in
                   "\n".join([r["case"], r["got"], r.get("detail", ""), r.get("adapter_stderr", ""),
                              r["expected"]]).lower())
    check(text(driver, "#result-count") == "%d of %d results" % (matching, count),
          "the text filter leaves %d results" % matching)
    row = driver.find_element(By.CSS_SELECTOR, "#results tr.result")
    row.click()
    details = driver.find_elements(By.CSS_SELECTOR, "#results tr.details-row .details")
    check(len(details) == 1 and first in details[0].text, "a click on a row opens its details")
    check_generated_section(driver, report)
    return driver


def check_stale_page(driver, report, page):
    """A run whose list is out of date: its stale expected failures in their own
    column and status filter, and the entries that match no case listed."""
    driver.get("file://" + page)
    totals = report["totals"]
    cells = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#totals td")]
    want = [str(totals[k]) for k in ("passed", "failed", "skipped", "expected_failures",
                                     "stale_expected_failures", "results")]
    check(cells[1:] == want and totals["failed"] == 0 and totals["stale_expected_failures"] > 0,
          "the stale run's totals %s match the JSON report's %s, none failed" % (cells[1:], want))
    listings = sum(1 for r in report["results"] if r["verdict"] == "stale-listing")
    Select(driver.find_element(By.ID, "filter-status")).select_by_value("stale_expected_failures")
    count = len(report["results"])
    check(text(driver, "#result-count") == "%d of %d results" % (listings, count),
          "the status filter leaves the %d stale listings" % listings)
    Select(driver.find_element(By.ID, "filter-status")).select_by_value("all")
    entries = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#unmatched-entries .meta")]
    patterns = [u["pattern"] for u in report["unmatched_expected_failures"]]
    check(len(entries) == len(patterns) and all(p in e for p, e in zip(patterns, entries)),
          "the %d entries that match no case are listed" % len(patterns))


def generated_row(phase):
    """A phase's row of the run page's #generated table, as the JSON report gives it."""
    return [phase["profile"], str(phase["seed"]), "%d of %d" % (phase["ran"], phase["planned"]),
            str(phase["failed"]), str(len(phase["findings"])), str(len(phase["not_reproduced"]))]


def check_generated_section(driver, report):
    phases = report["generated"]
    check(len(phases) > 0, "the run had a generated phase")
    rows = [[c.text for c in r.find_elements(By.TAG_NAME, "td")][:6]
            for r in driver.find_elements(By.CSS_SELECTOR, "#generated tr")[1:]]
    want = [generated_row(p) for p in phases]
    check(rows == want, "the generated table %s matches the JSON report's phases %s" % (rows, want))
    written = [f for p in phases for f in p["findings"]]
    boxes = driver.find_elements(By.CSS_SELECTOR, "#generated-findings .details")
    # File names and case ids are the runner's own text; the replay's adapter part may be hostile.
    check(len(boxes) == len(written) and
          all(os.path.basename(f["file"]) in b.text and
              (f["state_dependent"] or "--filter " + f["case"] in b.text)  # a request file replays by name
              for f, b in zip(written, boxes)),
          "each of the %d written generated failures shows its file and replay" % len(written))
    checks = sum(p["ran"] for p in phases)
    # The text filter of the checks before is cleared first: the topic alone decides here.
    driver.execute_script("const box = document.getElementById('filter-text'); box.value = '';"
                          "box.dispatchEvent(new Event('input'));")
    Select(driver.find_element(By.ID, "filter-topic")).select_by_value("(generated)")
    count = len(report["results"])
    check(text(driver, "#result-count") == "%d of %d results" % (checks, count),
          "the (generated) topic holds the %d generated checks" % checks)
    Select(driver.find_element(By.ID, "filter-topic")).select_by_value("")


def generated_cells(report):
    """The matrix's generated columns for one report: checks (seed) and failures."""
    phases = report["generated"]
    seeds = []
    for p in phases:
        if str(p["seed"]) not in seeds:
            seeds.append(str(p["seed"]))
    failed = str(sum(p["failed"] for p in phases))
    written = sum(len(p["findings"]) for p in phases)
    unrepeated = sum(len(p["not_reproduced"]) for p in phases)
    if written:
        failed += ", %d written" % written
    if unrepeated:
        failed += ", %d not reproduced" % unrepeated
    return ["%d of %d (seed %s)" % (sum(p["ran"] for p in phases), sum(p["planned"] for p in phases),
                                    ", ".join(seeds)), failed]


def disagreements(reports):
    """The matrix's rule: a row disagrees when its cells' statuses differ, a
    missing cell counting as one, except a generated check a phase did not run."""
    rows = {}
    for i, report in enumerate(reports):
        for r in report["results"]:
            key = (r.get("profile", "kiln-v2"), r.get("topic", "(top)"), r["case"], r["op"])
            rows.setdefault(key, {}).setdefault(i, r["status"])
    count = 0
    for key, cells in rows.items():
        statuses = set(cells.values())
        if key[1] != "(generated)" and len(cells) < len(reports):
            statuses.add("")
        count += len(statuses) > 1
    return count


def main():
    cli, reference, fake, mutant, cases = sys.argv[1:6]
    with tempfile.TemporaryDirectory() as out:
        ref_report, ref_page = run(cli, cases, reference, out, "reference", 0)
        mut_report, mut_page = run(cli, cases, mutant + " --mutant " + MUTANT, out, "mutant", 1)
        bad_report, bad_page = run(cli, cases, fake + " --hostile-text", out, "hostile", 1)
        stale_list = os.path.join(out, "stale.txt")
        with open(stale_list, "w", encoding="utf-8") as f:
            f.write("kiln-v2-u4:decode FAIL: fixed since\nkiln-v2-no-such-case FAIL: removed\n")
        stale_report, stale_page = run(cli, cases, reference, out, "stale", 1,
                                       ["--generated", "0", "--expected-failures", stale_list])
        matrix = os.path.join(out, "matrix.html")
        subprocess.run([cli, "report", "--html", matrix] +
                       [os.path.join(out, n + ".json") for n in ("reference", "mutant", "hostile")],
                       check=True, stdout=subprocess.DEVNULL, timeout=120)

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        try:
            check_run_page(driver, ref_report, ref_page)
            check_stale_page(driver, stale_report, stale_page)
            check_run_page(driver, mut_report, mut_page)
            first_failure = driver.find_element(By.CSS_SELECTOR, "#failures .details")
            check("entry 0 data_offset" in first_failure.text, "a failure names the differing field")
            check(len(first_failure.find_elements(By.CSS_SELECTOR, "table.hex span.differs")) > 0,
                  "a failure shows the differing bytes")

            # Hostile text: shown as text, never run.
            driver.get("file://" + bad_page)
            check(pwned(driver) is None, "the hostile adapter's script did not run on the run page")
            check(HOSTILE_MARK in text(driver, "h1"), "the hostile hello is shown as text")
            check(len(driver.find_elements(By.TAG_NAME, "img")) == 0, "no element came from adapter text")
            failure = text(driver, "#failures .details")
            check(HOSTILE_MARK in failure, "the hostile message is shown as text")
            check("\\x01" in failure and "\ufffd" in failure,
                  "control characters and invalid UTF-8 are shown visibly")
            check(pwned(driver) is None, "still nothing ran after rendering the failures")

            # The matrix.
            driver.get("file://" + matrix)
            impls = driver.find_elements(By.CSS_SELECTOR, "#implementations tr")[1:]
            check(len(impls) == 3, "the matrix lists 3 implementations")
            certs = [r.find_elements(By.TAG_NAME, "td")[-1].text for r in impls]
            check(certs[:2] == [ref_report["certificate"], mut_report["certificate"]] and
                  HOSTILE_MARK in certs[2], "the matrix shows each certificate")
            reports = [ref_report, mut_report, bad_report]
            generated = [[c.text for c in r.find_elements(By.TAG_NAME, "td")[-3:-1]] for r in impls]
            want = [generated_cells(r) for r in reports]
            check(generated == want, "the matrix's generated columns %s match the reports' phases %s" %
                  (generated, want))
            written = sum(len(p["findings"]) for r in reports for p in r["generated"])
            check(len(driver.find_elements(By.CSS_SELECTOR, "#generated-findings .details")) == written,
                  "the matrix lists the %d written generated failures" % written)
            rows = len(ref_report["results"])
            check(text(driver, "#row-count") == "%d of %d rows" % (rows, rows), "every row listed")
            disagree = disagreements(reports)
            driver.find_element(By.ID, "only-disagreements").click()
            check(text(driver, "#row-count") == "%d of %d rows" % (disagree, rows),
                  "only disagreements leaves %d rows" % disagree)
            shown = driver.find_elements(By.CSS_SELECTOR, "#matrix tr.case-row")
            check(all("disagree" in r.get_attribute("class") for r in shown), "every shown row disagrees")
            row = shown[0]
            case_id = row.find_elements(By.TAG_NAME, "td")[0].text
            row.find_elements(By.CSS_SELECTOR, "td.cell")[2].click()
            panel = driver.find_element(By.ID, "matrix-panel")
            check(panel.is_displayed() and case_id in panel.text, "a click on a cell opens its details")
            check(HOSTILE_MARK in panel.text, "the hostile cell's message is shown as text")
            check(pwned(driver) is None and not driver.find_elements(By.TAG_NAME, "img"),
                  "nothing from the hostile report ran in the matrix")
        finally:
            driver.quit()
    print("browser checks: %d passed, %d failed" % (len(passes), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
