"use strict";
// autobench view: the run page's waterfall, virtualised. The server sends the rows in tree
// order (a subtree is a contiguous run of rows) a window at a time, as compact arrays
// [depth, size, offset_ms, duration_ms, state, operation, kind]; only the rows in view are
// drawn, in a pool of elements recycled on scroll, over a spacer of the full height.
// Collapsing a row skips its `size` descendants. A click on a row loads that span's details.
// Recorded text only ever reaches the page through textContent.
(function () {
  var ROW = 22;        // px, fixed row height
  var BUFFER = 8;      // rows drawn above and below the viewport
  var WINDOW = 500;    // rows per request
  var STATES = ["ok", "failed", "partial"];

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function pretty(value) {
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }

  function milliseconds(value) {
    if (value === null || value === undefined) { return "partial"; }
    return (value < 10 ? String(Number(value.toPrecision(3))) : value.toFixed(value < 1000 ? 1 : 0)) + " ms";
  }

  function Waterfall(root) {
    this.root = root;
    this.total = Number(root.dataset.total);
    this.extent = Number(root.dataset.extentMs) || 1e-6;
    this.spansUrl = root.dataset.spans;
    this.spanUrl = root.dataset.span;
    this.data = new Array(this.total);
    this.pending = {};
    this.collapsed = {};
    this.collapsedCount = 0;
    this.visible = null;         // display rows shown, when something is collapsed
    this.selected = -1;
    this.viewport = root.querySelector(".wf-viewport");
    this.spacer = root.querySelector(".wf-spacer");
    this.detail = root.querySelector(".wf-detail");
    this.pool = [];
    root.hidden = false;
    this.viewport.style.height = Math.min(this.total * ROW + 2, 600) + "px";
    this.resize();
    var self = this;
    var queued = false;
    this.viewport.addEventListener("scroll", function () {
      if (queued) { return; }
      queued = true;
      window.requestAnimationFrame(function () { queued = false; self.draw(); });
    });
    this.viewport.addEventListener("click", function (event) { self.click(event); });
    this.viewport.addEventListener("keydown", function (event) { self.key(event); });
    this.draw();
  }

  Waterfall.prototype.count = function () {
    return this.visible === null ? this.total : this.visible.length;
  };

  Waterfall.prototype.resize = function () {
    this.spacer.style.height = (this.count() * ROW) + "px";
    var wanted = Math.ceil(this.viewport.clientHeight / ROW) + 2 * BUFFER;
    while (this.pool.length < wanted) {
      var row = element("div", "wf-row");
      var name = element("span", "wf-name");
      var toggle = element("button", "wf-toggle");
      toggle.type = "button";
      var label = element("span", "wf-label");
      var kind = element("small", "wf-kind");
      name.append(toggle, label, kind);
      var lane = element("span", "wf-lane");
      var bar = element("span", "wf-bar");
      lane.append(bar);
      var duration = element("span", "wf-duration");
      row.append(name, lane, duration);
      row.hidden = true;
      this.spacer.append(row);
      this.pool.push({ row: row, toggle: toggle, label: label, kind: kind, bar: bar, duration: duration, name: name });
    }
  };

  Waterfall.prototype.fetchWindow = function (index) {
    var start = Math.floor(index / WINDOW) * WINDOW;
    if (this.pending[start]) { return; }
    this.pending[start] = true;
    var self = this;
    fetch(this.spansUrl + "?from=" + start + "&count=" + WINDOW, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) { throw new Error("spans " + start + ": HTTP " + response.status); }
        return response.json();
      })
      .then(function (page) {
        for (var i = 0; i < page.rows.length; i++) { self.data[page.from + i] = page.rows[i]; }
        self.draw();
      })
      .catch(function (error) {
        self.pending[start] = false;
        self.detail.textContent = "";
        self.detail.append(element("p", "error", String(error)));
      });
  };

  Waterfall.prototype.draw = function () {
    var count = this.count();
    var first = Math.max(0, Math.floor(this.viewport.scrollTop / ROW) - BUFFER);
    for (var k = 0; k < this.pool.length; k++) {
      var slot = this.pool[k];
      var position = first + k;
      if (position >= count) { slot.row.hidden = true; continue; }
      var index = this.visible === null ? position : this.visible[position];
      var values = this.data[index];
      slot.row.hidden = false;
      slot.row.style.transform = "translateY(" + (position * ROW) + "px)";
      slot.row.dataset.row = String(index);
      slot.row.classList.toggle("selected", index === this.selected);
      if (values === undefined) {
        this.fetchWindow(index);
        slot.row.className = "wf-row wf-loading";
        slot.label.textContent = "…";
        slot.kind.textContent = "";
        slot.toggle.hidden = true;
        slot.bar.hidden = true;
        slot.duration.textContent = "";
        continue;
      }
      var depth = values[0], size = values[1], offset = values[2], duration = values[3];
      slot.row.className = "wf-row wf-" + STATES[values[4]] + (index === this.selected ? " selected" : "");
      slot.name.style.paddingLeft = (Math.min(depth, 40) * 12) + "px";
      slot.toggle.hidden = size === 0;
      slot.toggle.textContent = this.collapsed[index] ? "▸" : "▾";
      slot.toggle.title = this.collapsed[index] ? "expand " + size + " spans" : "collapse " + size + " spans";
      slot.label.textContent = values[5];
      slot.kind.textContent = values[6];
      slot.bar.hidden = false;
      slot.bar.style.left = (100 * offset / this.extent) + "%";
      slot.bar.style.width = Math.max(100 * (duration || 0) / this.extent, 0.2) + "%";
      slot.duration.textContent = milliseconds(duration);
    }
    this.root.dataset.first = String(first);
  };

  Waterfall.prototype.relayout = function () {
    if (this.collapsedCount === 0) {
      this.visible = null;
    } else {
      var visible = [];
      for (var i = 0; i < this.total;) {
        visible.push(i);
        i += this.collapsed[i] ? this.data[i][1] + 1 : 1;
      }
      this.visible = visible;
    }
    this.resize();
    this.draw();
  };

  Waterfall.prototype.toggle = function (index) {
    var values = this.data[index];
    if (values === undefined || values[1] === 0) { return; }
    if (this.collapsed[index]) { delete this.collapsed[index]; this.collapsedCount--; }
    else { this.collapsed[index] = true; this.collapsedCount++; }
    this.relayout();
  };

  Waterfall.prototype.click = function (event) {
    var row = event.target.closest(".wf-row");
    if (!row || row.dataset.row === undefined) { return; }
    var index = Number(row.dataset.row);
    if (event.target.closest(".wf-toggle")) { this.toggle(index); return; }
    this.select(index);
  };

  Waterfall.prototype.key = function (event) {
    if (this.selected < 0) { return; }
    if (event.key === "ArrowLeft" && !this.collapsed[this.selected]) { this.toggle(this.selected); }
    if (event.key === "ArrowRight" && this.collapsed[this.selected]) { this.toggle(this.selected); }
  };

  Waterfall.prototype.select = function (index) {
    this.selected = index;
    this.draw();
    var self = this;
    this.detail.textContent = "";
    this.detail.append(element("p", "muted", "loading span " + index + " …"));
    fetch(this.spanUrl + index, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) { throw new Error("span " + index + ": HTTP " + response.status); }
        return response.json();
      })
      .then(function (span) { self.show(span); })
      .catch(function (error) {
        self.detail.textContent = "";
        self.detail.append(element("p", "error", String(error)));
      });
  };

  Waterfall.prototype.show = function (span) {
    var box = this.detail;
    box.textContent = "";
    var title = element("h3", "", span.operation + " ");
    title.append(element("small", "", span.kind + " · " + span.status + " · " + milliseconds(
      span.duration === null || span.duration === undefined ? null : span.duration * 1000)));
    box.append(title);
    var list = element("dl");
    var facts = [["span id", span.id], ["parent", span.parent], ["scope", span.scope],
      ["starts at", milliseconds(span.offset * 1000)]];
    ["attributes", "usage", "input", "output", "error", "events", "measurements"].forEach(function (key) {
      if (span[key] !== undefined) { facts.push([key, span[key]]); }
    });
    facts.forEach(function (fact) {
      if (fact[1] === null || fact[1] === undefined) { return; }
      list.append(element("dt", "", fact[0]));
      var value = element("dd");
      value.append(typeof fact[1] === "object" ? element("pre", "", pretty(fact[1])) : document.createTextNode(String(fact[1])));
      list.append(value);
    });
    box.append(list);
    box.dataset.row = String(span.row);
  };

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("waterfall");
    if (root) { window.autobenchWaterfall = new Waterfall(root); }
  });
})();
