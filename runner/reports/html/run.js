// The run report: the JSON report of one run (DATA), rendered.
"use strict";
(function renderRun() {
  const root = document.getElementById("root");
  const results = DATA.results || [];
  const adapter = DATA.adapter || {};
  const who = adapter.name ? adapter.name + " " + (adapter.version || "") : adapter.command || "unknown adapter";
  document.title = visible("Kiln conformance: " + who);
  root.appendChild(el("h1", null, "Kiln conformance: " + who));
  const cert = el("div", certificateClass(DATA.certificate || ""), DATA.certificate || "");
  cert.id = "certificate";
  root.appendChild(cert);
  root.appendChild(el("div", "meta", "adapter command: " + (adapter.command || "") + " (" + (adapter.mode || "") + ")"));
  root.appendChild(el("div", "meta", "suite " + DATA.suite_version + ", " + DATA.case_count +
    " cases, case set sha256 " + DATA.case_set_sha256));
  root.appendChild(el("div", "meta", "started " + DATA.started_at + ", " +
    Number(DATA.duration_seconds || 0).toFixed(1) + " s"));

  // Totals: the run's own, then by profile, topic and rule, counted here.
  root.appendChild(el("h2", null, "Totals"));
  const overall = countsTable("");
  const totalsRow = countsRow(overall, "all", DATA.totals || {}, results.length);
  totalsRow.id = "totals";
  root.appendChild(overall);
  const groups = {profile: new Map(), topic: new Map(), rule: new Map()};
  const bump = (map, key, result) => {
    if (!map.has(key)) map.set(key, {count: 0});
    const t = map.get(key);
    t[category(result.verdict)] = (t[category(result.verdict)] || 0) + 1;
    ++t.count;
  };
  for (const r of results) {
    bump(groups.profile, profileOf(r, DATA), r);
    bump(groups.topic, r.topic, r);
    for (const rule of r.rules || []) bump(groups.rule, rule, r);
  }
  for (const [name, map] of Object.entries(groups)) {
    const details = el("details");
    details.id = "by-" + name;
    if (name !== "rule") details.open = true;
    details.appendChild(el("summary", null, "by " + name + " (" + map.size + ")"));
    const table = countsTable(name);
    for (const key of [...map.keys()].sort()) {
      const row = countsRow(table, key, map.get(key), map.get(key).count);
      row.className = "clickable";
      row.title = "show these results";
      row.addEventListener("click", () => { filters[name].value = key; filters.status.value = "all"; apply(); });
    }
    details.appendChild(table);
    root.appendChild(details);
  }

  // The generated phase: each profile's count, seed and failures, and every
  // failure it confirmed and wrote as a case, with its replay command.
  const genHeading = el("h2", null, "Generated checks");
  genHeading.id = "generated-heading";
  root.appendChild(genHeading);
  const phases = DATA.generated;
  if (!Array.isArray(phases)) {
    root.appendChild(el("p", null, "This report is older than the generated phase (report_version " +
      DATA.report_version + ")."));
  } else if (phases.length === 0) {
    root.appendChild(el("p", null, "No generated checks ran: the certificate covers the cases only."));
  } else {
    const genTable = el("table", "counts");
    genTable.id = "generated";
    const genHead = genTable.insertRow();
    for (const h of ["profile", "seed", "checks", "failed", "written", "not reproduced", "stopped"])
      genHead.appendChild(el("th", h === "profile" || h === "stopped" ? null : "num", h));
    for (const p of phases) {
      const tr = genTable.insertRow();
      tr.appendChild(el("td", null, p.profile));
      tr.appendChild(el("td", "num", String(p.seed)));
      tr.appendChild(el("td", "num", p.ran + " of " + p.planned));
      tr.appendChild(el("td", "num", String(p.failed)));
      tr.appendChild(el("td", "num", String((p.findings || []).length)));
      tr.appendChild(el("td", "num", String((p.not_reproduced || []).length)));
      tr.appendChild(el("td", null, (p.stopped || "") + (p.write_failed ? " (a failure could not be written)" : "")));
    }
    root.appendChild(genTable);
    const findings = el("div");
    findings.id = "generated-findings";
    for (const p of phases)
      for (const f of p.findings || []) findings.appendChild(findingDetails(f, p.profile + " " + f.op + ": " + (f.case || f.file)));
    root.appendChild(findings);
    const unrepeated = phases.flatMap((p) => (p.not_reproduced || []).map((n) => [p.profile, n]));
    if (unrepeated.length) {
      const box = el("details");
      box.id = "generated-not-reproduced";
      box.appendChild(el("summary", null, "not reproduced in a fresh adapter (" + unrepeated.length + ")"));
      for (const [profile, n] of unrepeated)
        box.appendChild(el("div", "meta", profile + ": seen " + n.seen + "; replayed: " + n.replayed));
      root.appendChild(box);
    }
  }

  // Every result that fails the run, in full.
  const failing = results.filter((r) => r.unexpected);
  const failHeading = el("h2", null, "Failures (" + failing.length + ")");
  failHeading.id = "failures-heading";
  root.appendChild(failHeading);
  if (failing.length === 0) root.appendChild(el("p", null, "No result fails the run."));
  const failList = el("div");
  failList.id = "failures";
  root.appendChild(failList);
  root.appendChild(pagedList(failList, failing, (r, parent) => {
    parent.appendChild(details(r, r.case + " " + r.op));
  }, 100));
  // The list's entries that match no case: stale expected failures without a result.
  const unmatched = DATA.unmatched_expected_failures || [];
  if (unmatched.length) {
    const box = el("div");
    box.id = "unmatched-entries";
    box.appendChild(el("h3", null, "Expected-failures entries that match no case (" + unmatched.length + ")"));
    for (const u of unmatched)
      box.appendChild(el("div", "meta", (u.list || "") + ":" + u.line + ": '" + u.pattern +
        "' matches no case: remove it"));
    root.appendChild(box);
  }

  // All results, filtered; a click on a row shows its details under it.
  root.appendChild(el("h2", null, "Results"));
  const controls = el("div", "controls");
  const filters = {status: el("select"), profile: el("select"), topic: el("select"), rule: el("select"),
    text: el("input")};
  filters.status.id = "filter-status";
  option(filters.status, "all", "all statuses");
  option(filters.status, "problems", "all but passed");
  for (const c of CATEGORIES) option(filters.status, c, CATEGORY_NAMES[c]);
  for (const name of ["profile", "topic", "rule"]) {
    filters[name].id = "filter-" + name;
    option(filters[name], "", "every " + name);
    for (const key of [...groups[name].keys()].sort()) option(filters[name], key);
  }
  filters.text.id = "filter-text";
  filters.text.type = "search";
  filters.text.placeholder = "case id, got, detail, stderr";
  controls.appendChild(labelled("status ", filters.status));
  controls.appendChild(labelled("profile ", filters.profile));
  controls.appendChild(labelled("topic ", filters.topic));
  controls.appendChild(labelled("rule ", filters.rule));
  controls.appendChild(labelled("text ", filters.text));
  root.appendChild(controls);
  const count = el("div", "count");
  count.id = "result-count";
  root.appendChild(count);
  const table = el("table");
  table.id = "results";
  const head = el("thead").appendChild(el("tr"));
  for (const h of ["case", "op", "status", "verdict", "topic", "rules", "expected", "got"]) head.appendChild(el("th", null, h));
  table.appendChild(head.parentNode);
  const body = el("tbody");
  table.appendChild(body);
  root.appendChild(table);
  const moreHolder = el("div");
  root.appendChild(moreHolder);

  const row = (r, parent) => {
    const tr = el("tr", "clickable result");
    tr.appendChild(el("td", null, r.case));
    tr.appendChild(el("td", null, r.op));
    tr.appendChild(el("td")).appendChild(statusBadge(r));
    tr.appendChild(el("td", null, r.verdict));
    tr.appendChild(el("td", null, r.topic));
    tr.appendChild(el("td", null, (r.rules || []).join(" ")));
    tr.appendChild(el("td", null, r.expected));
    tr.appendChild(el("td", null, r.got));
    let open = null;
    tr.addEventListener("click", () => {
      if (open) { open.remove(); open = null; return; }
      open = el("tr", "details-row");
      const td = el("td");
      td.colSpan = 8;
      td.appendChild(details(r));
      open.appendChild(td);
      tr.after(open);
    });
    parent.appendChild(tr);
  };
  const matches = (r, needle) => {
    const status = filters.status.value;
    const cat = category(r.verdict);
    if (status === "problems" ? cat === "passed" : status !== "all" && cat !== status) return false;
    if (filters.profile.value && profileOf(r, DATA) !== filters.profile.value) return false;
    if (filters.topic.value && r.topic !== filters.topic.value) return false;
    if (filters.rule.value && !(r.rules || []).includes(filters.rule.value)) return false;
    if (needle) {
      const hay = [r.case, r.got, r.detail, r.adapter_stderr, r.expected].join("\n").toLowerCase();
      if (!hay.includes(needle)) return false;
    }
    return true;
  };
  const apply = () => {
    const needle = filters.text.value.trim().toLowerCase();
    const shown = results.filter((r) => matches(r, needle));
    count.textContent = shown.length + " of " + results.length + " results";
    moreHolder.replaceChildren(pagedList(body, shown, row, 500));
  };
  for (const f of Object.values(filters)) f.addEventListener(f === filters.text ? "input" : "change", apply);
  apply();
})();
