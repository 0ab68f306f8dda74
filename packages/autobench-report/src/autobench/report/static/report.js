"use strict";
(function () {
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  var RUNS = DATA.runs, S = DATA.strings, SHOWN = 500, SHOWN_CASES = 300;
  // The toolbar shows on hover at the chart's top right; titles sit above the chart, in the page.
  var CONFIG = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ["toImage", "select2d", "lasso2d"]};
  var pending = [];
  function draw(id, figure) {
    var layout = Object.assign({margin: {t: 30, l: 60, r: 20, b: 50}}, figure.layout || {});
    if (layout.yaxis && layout.yaxis.automargin) { layout.margin.l = 40; }
    return Plotly.newPlot(id, figure.data, layout, CONFIG);
  }
  ["intervals", "distributions", "scatter", "forest"].forEach(function (kind) {
    DATA.figures[kind].forEach(function (figure, i) { pending.push(draw("chart-" + kind + "-" + i, figure)); });
  });
  function cell(row, text, className) {
    var td = document.createElement("td");
    td.textContent = text === null || text === undefined ? "" : String(text);
    if (className) { td.className = className; }
    row.appendChild(td);
    return td;
  }
  function fill(id, rows) {
    var body = document.querySelector("#" + id + " tbody");
    body.textContent = "";
    rows.forEach(function (values) {
      var tr = document.createElement("tr");
      values.forEach(function (v) { cell(tr, v); });
      body.appendChild(tr);
    });
    if (!rows.length) { var tr = document.createElement("tr"); cell(tr, "none", "muted"); body.appendChild(tr); }
  }
  function openRun(index) {
    var run = RUNS[index];
    if (!run) { return; }
    var panel = document.getElementById("drilldown");
    panel.hidden = false;
    panel.dataset.run = run[0];
    document.getElementById("dd-title").textContent = S[run[1]] + " / " + S[run[2]] + " (" + run[0] + ")";
    var status = document.getElementById("dd-status");
    status.textContent = S[run[3]];
    status.className = "status-" + S[run[3]];
    document.getElementById("dd-duration").textContent = run[10] < 0 ? "" : "duration " + run[10] / 1e6 + " s";
    document.getElementById("dd-reason").textContent = run[4] ? "Reason: " + run[4] : "";
    fill("dd-scores", run[5].map(function (x) { return [S[x[0]], x[1], x[2], x[3]]; }));
    fill("dd-errors", run[6].map(function (x) { return [S[x[0]], S[x[1]], x[2]]; }));
    fill("dd-artifacts", run[7]);
    var flat = run[8], spans = [];
    for (var k = 0; k < flat.length; k += 4) {
      spans.push({name: S[flat[k]], offset: flat[k + 1] / 1e6, duration: flat[k + 2] < 0 ? 0 : flat[k + 2] / 1e6,
                  depth: flat[k + 3] >> 1, failed: (flat[k + 3] & 1) === 1});
    }
    var note = document.getElementById("dd-spans-note");
    note.textContent = !spans.length ? "No trace recorded." :
      (run[9] > spans.length ? "First " + spans.length + " of " + run[9] + " spans" : run[9] + " spans") +
      ": offset from the trace start and duration, in seconds.";
    var chart = document.getElementById("dd-waterfall");
    if (!spans.length) { Plotly.purge(chart); chart.style.display = "none"; }
    else {
      chart.style.display = "";
      var labels = spans.map(function (s, i) { return "\u00b7 ".repeat(s.depth) + s.name + " #" + (i + 1); });
      Plotly.newPlot(chart, [{
        type: "bar", orientation: "h", y: labels, base: spans.map(function (s) { return s.offset; }),
        x: spans.map(function (s) { return s.duration; }),
        marker: {color: spans.map(function (s) { return s.failed ? "#d62728" : "#4a90d9"; })},
        hovertemplate: "start %{base:.4g} s, duration %{x:.4g} s<extra></extra>"
      }], {
        height: 100 + 24 * spans.length, margin: {t: 30, l: 40, r: 20, b: 40},
        yaxis: {autorange: "reversed", automargin: true, type: "category"}, xaxis: {title: {text: "seconds from the trace start"}}
      }, CONFIG);
    }
    panel.scrollIntoView({block: "nearest"});
  }
  window.autobenchOpenRun = openRun;
  var filter = document.getElementById("run-filter");
  function renderRuns() {
    var needle = filter.value.trim().toLowerCase();
    var body = document.querySelector("#runs tbody");
    body.textContent = "";
    var matched = 0;
    for (var i = 0; i < RUNS.length; i++) {
      var run = RUNS[i];
      if (needle && (S[run[1]] + " " + S[run[2]] + " " + S[run[3]]).toLowerCase().indexOf(needle) < 0) { continue; }
      matched++;
      if (matched > SHOWN) { continue; }
      var tr = document.createElement("tr");
      tr.dataset.index = i;
      cell(tr, S[run[1]]); cell(tr, S[run[2]]); cell(tr, S[run[3]], "status-" + S[run[3]]); cell(tr, run[4]);
      body.appendChild(tr);
    }
    document.getElementById("run-count").textContent = matched > SHOWN ?
      "showing " + SHOWN + " of " + matched + " runs (filter to narrow)" : matched + " runs";
  }
  document.querySelector("#runs tbody").addEventListener("click", function (event) {
    var tr = event.target.closest("tr");
    if (tr && tr.dataset.index !== undefined) { openRun(Number(tr.dataset.index)); }
  });
  filter.addEventListener("input", renderRuns);
  renderRuns();
  // The case matrix: four entries per variant (status code, value text, shade 0..1 with 1
  // the best, run index); a passed run is shaded by its value, the others by their status.
  var MATRIX = DATA.matrix;
  var STATUS_NAMES = {"-1": "no run", 0: "passed", 1: "failed", 2: "errored", 3: "skipped"};
  function matrixCell(tr, status, text, shade, run) {
    var td = cell(tr, status === 0 ? text : (text ? text + " " : "") + STATUS_NAMES[status], "num status-" + status);
    if (status === 0) {
      var light = shade === null ? 70 : 88 - 58 * shade;
      td.style.background = MATRIX.neutral ? "hsl(210, 60%, " + light + "%)" : "hsl(130, 45%, " + light + "%)";
      if (light < 60) { td.style.color = "#fff"; }
    }
    td.title = STATUS_NAMES[status] + (text ? ": " + text : "");
    if (run >= 0) { td.dataset.run = run; }
  }
  function renderMatrix() {
    if (!MATRIX) { return; }
    var needle = document.getElementById("matrix-filter").value.trim().toLowerCase();
    var body = document.querySelector("#matrix-table tbody");
    body.textContent = "";
    var matched = 0;
    for (var i = 0; i < MATRIX.cases.length; i++) {
      var name = MATRIX.cases[i];
      if (needle && name.toLowerCase().indexOf(needle) < 0) { continue; }
      matched++;
      if (matched > SHOWN_CASES) { continue; }
      var tr = document.createElement("tr"), row = MATRIX.cells[i];
      cell(tr, name);
      for (var k = 0; k < row.length; k += 4) { matrixCell(tr, row[k], row[k + 1], row[k + 2], row[k + 3]); }
      body.appendChild(tr);
    }
    document.getElementById("matrix-count").textContent = matched > SHOWN_CASES ?
      "showing " + SHOWN_CASES + " of " + matched + " cases (filter to narrow)" : matched + " cases";
  }
  if (MATRIX) {
    document.getElementById("matrix-filter").addEventListener("input", renderMatrix);
    document.querySelector("#matrix-table tbody").addEventListener("click", function (event) {
      var td = event.target.closest("td");
      if (td && td.dataset.run !== undefined) { openRun(Number(td.dataset.run)); }
    });
    renderMatrix();
  }
  Promise.all(pending).then(function () {
    window.autobenchReady = performance.now();
    document.body.dataset.ready = "true";
  });
})();
