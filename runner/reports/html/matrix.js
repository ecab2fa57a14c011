// The matrix: the JSON reports of several implementations (DATA), a row per
// (case, op) grouped by profile and topic, a column per implementation.
"use strict";
(function renderMatrix() {
  const root = document.getElementById("root");
  const impls = DATA.implementations || [];
  const rows = DATA.rows || [];
  root.appendChild(el("h1", null, "Kiln conformance matrix: " + impls.length + " implementations, " +
    rows.length + " results each"));
  if ((DATA.case_sets || []).length > 1) {
    root.appendChild(el("div", "warning", "These reports are of different case sets (" +
      DATA.case_sets.join(", ") + "): a missing cell is a case another set lacks."));
  } else {
    root.appendChild(el("div", "meta", "case set sha256 " + (DATA.case_sets || [""])[0]));
  }

  root.appendChild(el("h2", null, "Implementations"));
  const implTable = countsTable("implementation");
  implTable.id = "implementations";
  implTable.rows[0].appendChild(el("th", "num", "generated checks"));
  implTable.rows[0].appendChild(el("th", "num", "generated failed"));
  implTable.rows[0].appendChild(el("th", null, "certificate"));
  for (const impl of impls) {
    const tr = countsRow(implTable, impl.label, impl.totals || {}, (impl.totals || {}).results || 0);
    tr.cells[0].title = visible(impl.command || "");
    const generated = generatedSummary(impl.generated);
    const checks = tr.appendChild(el("td", "num generated-checks", generatedChecksText(generated)));
    if (generated && generated.stopped.length) checks.title = visible("stopped: " + generated.stopped.join("; "));
    tr.appendChild(el("td", "num generated-failed", generatedFailuresText(generated)));
    tr.appendChild(el("td", certificateClass(impl.certificate || ""), impl.certificate || ""));
  }
  root.appendChild(implTable);

  // What each implementation's generated phase confirmed and wrote as a case.
  const written = impls.flatMap((impl) => (impl.generated || []).flatMap((p) =>
    (p.findings || []).map((f) => [impl.label + ", " + p.profile + " " + f.op + ": " + (f.case || f.file), f])));
  if (written.length) {
    const box = el("details");
    box.id = "generated-findings";
    box.appendChild(el("summary", null, "generated failures written as cases (" + written.length + ")"));
    for (const [heading, f] of written) box.appendChild(findingDetails(f, heading));
    root.appendChild(box);
  }

  root.appendChild(el("h2", null, "Results"));
  const controls = el("div", "controls");
  const onlyDisagreements = el("input");
  onlyDisagreements.type = "checkbox";
  onlyDisagreements.id = "only-disagreements";
  const topic = el("select");
  topic.id = "filter-topic";
  option(topic, "", "every topic");
  for (const t of [...new Set(rows.map((r) => r.profile + " / " + r.topic))].sort()) option(topic, t);
  const text = el("input");
  text.type = "search";
  text.id = "filter-text";
  text.placeholder = "case id or rule";
  const disagreeing = rows.filter((r) => r.disagree).length;
  controls.appendChild(labelled("only disagreements (" + disagreeing + ") ", onlyDisagreements));
  controls.appendChild(labelled("topic ", topic));
  controls.appendChild(labelled("text ", text));
  root.appendChild(controls);
  const count = el("div", "count");
  count.id = "row-count";
  root.appendChild(count);

  const table = el("table");
  table.id = "matrix";
  const headRow = el("tr");
  headRow.appendChild(el("th", null, "case"));
  headRow.appendChild(el("th", null, "op"));
  for (const impl of impls) {
    const th = el("th", null, impl.label);
    th.title = visible(impl.certificate || "");
    headRow.appendChild(th);
  }
  table.appendChild(el("thead")).appendChild(headRow);
  const body = el("tbody");
  table.appendChild(body);
  root.appendChild(table);
  const moreHolder = el("div");
  root.appendChild(moreHolder);

  const panel = el("div", "hidden");
  panel.id = "matrix-panel";
  root.appendChild(panel);
  let selected = null;
  const showCell = (td, row, i) => {
    if (selected) selected.classList.remove("selected");
    selected = td;
    td.classList.add("selected");
    panel.classList.remove("hidden");
    const close = el("button", null, "close");
    close.addEventListener("click", () => { panel.classList.add("hidden"); td.classList.remove("selected"); });
    const cell = row.cells[i];
    const heading = impls[i].label + ": " + row.case + " " + row.op;
    panel.replaceChildren(close, cell ? details(Object.assign({case: row.case, op: row.op, rules: row.rules}, cell),
      heading) : el("div", "details", heading + ": not in this report"));
  };

  const renderRow = (item, parent) => {
    if (item.group) {
      const tr = el("tr", "group");
      tr.appendChild(el("td", null, item.group)).colSpan = 2;
      for (let i = 0; i < impls.length; ++i)
        tr.appendChild(el("td", "num", item.passed[i] + "/" + item.total[i]));
      parent.appendChild(tr);
      return;
    }
    const row = item.row;
    const tr = el("tr", "case-row" + (row.disagree ? " disagree" : ""));
    tr.appendChild(el("td", null, row.case));
    tr.appendChild(el("td", null, row.op));
    row.cells.forEach((cell, i) => {
      const td = el("td", "cell");
      td.appendChild(statusBadge(cell));
      td.addEventListener("click", () => showCell(td, row, i));
      tr.appendChild(td);
    });
    parent.appendChild(tr);
  };

  const apply = () => {
    const needle = text.value.trim().toLowerCase();
    const items = [];
    let group = null, shownRows = 0;
    for (const row of rows) {
      const key = row.profile + " / " + row.topic;
      if (onlyDisagreements.checked && !row.disagree) continue;
      if (topic.value && key !== topic.value) continue;
      if (needle && !(row.case.toLowerCase().includes(needle) ||
                      (row.rules || []).some((r) => r.toLowerCase().includes(needle)))) continue;
      if (!group || group.group !== key) {
        group = {group: key, passed: impls.map(() => 0), total: impls.map(() => 0)};
        items.push(group);
      }
      row.cells.forEach((cell, i) => {
        if (!cell) return;
        ++group.total[i];
        if (cell.verdict === "pass") ++group.passed[i];
      });
      items.push({row});
      ++shownRows;
    }
    count.textContent = shownRows + " of " + rows.length + " rows";
    moreHolder.replaceChildren(pagedList(body, items, renderRow, 1000));
  };
  onlyDisagreements.addEventListener("change", apply);
  topic.addEventListener("change", apply);
  text.addEventListener("input", apply);
  apply();
})();
