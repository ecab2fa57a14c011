// Shared by the run report and the matrix. Every piece of data reaches the page
// through textContent or a property, never as markup: an adapter's text (its
// name, messages, stderr) is shown as text, whatever it holds.
"use strict";
const DATA = JSON.parse(document.getElementById("kiln-data").textContent);

// Control characters shown as \xNN escapes, so that they are seen; newlines and
// tabs are kept for multi-line text such as stderr.
function visible(text) {
  return String(text).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (c) => "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0"));
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = visible(text);
  return node;
}

// How a verdict counts: the JSON report's verdicts in the five total columns. A
// report before version 4 has no stale count (0 here): its "failed" held them.
const CATEGORIES = ["passed", "failed", "skipped", "expected_failures", "stale_expected_failures"];
const CATEGORY_NAMES = {passed: "passed", failed: "failed", skipped: "skipped",
  expected_failures: "expected failures", stale_expected_failures: "stale expected failures"};
function category(verdict) {
  switch (verdict) {
    case "pass": return "passed";
    case "skip": return "skipped";
    case "expected-failure": return "expected_failures";
    case "stale-listing": return "stale_expected_failures";
    default: return "failed";
  }
}
const STATUS_CLASS = {passed: "s-pass", failed: "s-fail", skipped: "s-skip",
  expected_failures: "s-xfail", stale_expected_failures: "s-stale"};

function statusBadge(result) {
  if (!result) return el("span", "status s-none", "\u2014");
  return el("span", "status " + STATUS_CLASS[category(result.verdict)], result.status);
}

function certificateClass(text) {
  if (/^CONFORMANT/.test(text)) return "certificate good";
  if (/^NOT CONFORMANT/.test(text)) return "certificate bad";
  return "certificate none";
}

const DEFAULT_PROFILE = document.getElementById("kiln-data").dataset.defaultProfile;

function profileOf(result, report) {
  return result.profile || (report && report.profile) || DEFAULT_PROFILE;
}

function bytesOf(hex) {
  const out = [];
  for (let i = 0; i + 1 < hex.length; i += 2) out.push(hex.substr(i, 2));
  return out;
}

// Both sides of a byte difference, 16 bytes a row: the bytes that differ in
// red, the first differing field in yellow, each byte titled with its field.
function hexDiff(diff) {
  const expected = bytesOf(diff.expected_hex || "");
  const got = bytesOf(diff.got_hex || "");
  const fields = diff.window_fields || [];
  const fieldAt = (offset) => {
    for (const f of fields) if (offset >= f[0] && offset < f[0] + f[1]) return f[2];
    return "";
  };
  const inField = (offset) => offset >= diff.field_start && offset < diff.field_start + diff.field_length;
  const table = el("table", "hex");
  const head = table.insertRow();
  head.appendChild(el("th", null, "offset"));
  head.appendChild(el("th", null, "expected (" + diff.expected_size + " bytes)"));
  head.appendChild(el("th", null, "got (" + diff.got_size + " bytes)"));
  const length = Math.max(expected.length, got.length);
  for (let row = 0; row < length; row += 16) {
    const tr = table.insertRow();
    tr.appendChild(el("td", null, (diff.window_start + row).toString(16).padStart(4, "0")));
    for (const [side, other] of [[expected, got], [got, expected]]) {
      const td = el("td");
      for (let k = row; k < row + 16 && k < length; ++k) {
        const offset = diff.window_start + k;
        let cls = k >= side.length ? "absent" : side[k] !== other[k] ? "differs" : "";
        if (inField(offset) && cls === "") cls = "infield";
        if (offset === diff.offset) cls += " first";
        const span = el("span", cls, k < side.length ? side[k] : "--");
        span.title = visible(offset + ": " + fieldAt(offset));
        td.appendChild(span);
      }
      tr.appendChild(td);
    }
  }
  return table;
}

// A <dl> and the function that adds a name and its value to it: an empty value
// is left out, pre keeps the value's lines, a Node goes in as it is, and any
// other text is shown with its control characters visible.
function definitionList() {
  const list = el("dl");
  const add = (name, value, pre) => {
    if (value === undefined || value === null || value === "") return;
    list.appendChild(el("dt", null, name));
    const dd = el("dd");
    if (pre) dd.appendChild(el("pre", null, value));
    else if (value instanceof Node) dd.appendChild(value);
    else dd.textContent = visible(value);
    list.appendChild(dd);
  };
  return {list, add};
}

// One result's details: what a reader needs to understand and replay it.
function details(result, heading) {
  const box = el("div", "details");
  if (heading) box.appendChild(el("strong", null, heading));
  const {list, add} = definitionList();
  add("case", result.case);
  add("op", result.op);
  add("status", result.status + " (" + result.verdict + ")");
  add("rules", (result.rules || []).join(", "));
  add("expected", result.expected);
  add("got", result.got);
  add("detail", result.detail);
  if (result.generated) {
    add("generated", "check " + result.generated.number + " of seed " + result.generated.seed);
    add("written case", result.generated.file);
  }
  if (result.difference) {
    add("difference", result.difference.summary);
    add("bytes", hexDiff(result.difference));
  }
  if (result.listed) add("listed", (result.listed_status ? result.listed_status + ": " : "") + (result.listed_reason || ""));
  add("adapter stderr", result.adapter_stderr, true);
  add("replay", result.replay, true);
  box.appendChild(list);
  return box;
}

// Renders items a page at a time, so a list of thousands costs what a page costs.
function pagedList(container, items, renderItem, pageSize) {
  container.replaceChildren();
  let shown = 0;
  const more = el("button", "more");
  const step = () => {
    const end = Math.min(items.length, shown + pageSize);
    const fragment = document.createDocumentFragment();
    for (; shown < end; ++shown) renderItem(items[shown], fragment);
    container.appendChild(fragment);
    more.textContent = "show " + Math.min(pageSize, items.length - shown) + " more (" +
      (items.length - shown) + " not shown)";
    more.classList.toggle("hidden", shown >= items.length);
  };
  more.addEventListener("click", step);
  step();
  return more;
}

function option(select, value, text) {
  const o = el("option", null, text === undefined ? value : text);
  o.value = value;
  select.appendChild(o);
}

function labelled(text, control) {
  const label = el("label", null, text);
  label.appendChild(control);
  return label;
}

function countsRow(table, name, totals, results) {
  const tr = table.insertRow();
  tr.appendChild(el("td", null, name));
  for (const c of CATEGORIES) tr.appendChild(el("td", "num", String(totals[c] || 0)));
  tr.appendChild(el("td", "num", String(results)));
  return tr;
}

function countsTable(firstHeader) {
  const table = el("table", "counts");
  const head = table.insertRow();
  head.appendChild(el("th", null, firstHeader));
  for (const c of CATEGORIES) head.appendChild(el("th", "num", CATEGORY_NAMES[c]));
  head.appendChild(el("th", "num", "results"));
  return table;
}

// Each profile's generated phase, summed for one line: null for a report older
// than the phase (it cannot say whether one ran).
function generatedSummary(phases) {
  if (!Array.isArray(phases)) return null;
  const sum = {planned: 0, ran: 0, failed: 0, written: 0, notReproduced: 0, seeds: [], stopped: []};
  for (const p of phases) {
    sum.planned += p.planned || 0;
    sum.ran += p.ran || 0;
    sum.failed += p.failed || 0;
    sum.written += (p.findings || []).length;
    sum.notReproduced += (p.not_reproduced || []).length;
    if (!sum.seeds.includes(String(p.seed))) sum.seeds.push(String(p.seed));
    if (p.stopped) sum.stopped.push(p.profile + ": " + p.stopped);
  }
  return sum;
}

// "20000 of 20000 (seed 201595584)", or why there is no count.
function generatedChecksText(sum) {
  if (!sum) return "not in this report";
  if (sum.planned === 0 && sum.ran === 0) return "none (cases only)";
  return sum.ran + " of " + sum.planned + " (seed " + sum.seeds.join(", ") + ")";
}

function generatedFailuresText(sum) {
  if (!sum) return "";
  let text = String(sum.failed);
  if (sum.written) text += ", " + sum.written + " written";
  if (sum.notReproduced) text += ", " + sum.notReproduced + " not reproduced";
  return text;
}

// A confirmed generated failure: where its case was written and how to replay it.
function findingDetails(finding, heading) {
  const box = el("div", "details finding");
  box.appendChild(el("strong", null, heading));
  const {list, add} = definitionList();
  add("written", finding.file + (finding.state_dependent ? " (needs the " + finding.requests +
    " requests before it: kiln-conformance replay)" : ""));
  add("case", finding.case);
  add("op", finding.op);
  add("disagreement", finding.signature);
  add("check problems", (finding.check_problems || []).join("\n"), true);
  add("replay", finding.replay, true);
  box.appendChild(list);
  return box;
}
