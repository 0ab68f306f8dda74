"use strict";
// autobench view: keeps an experiment page up to date while its record is loading or being
// written. Polls the page's small same-origin state (/x/KEY/live/state) every second or two
// while the page is visible and, when its generation changed, fetches the page's changing
// part (/x/KEY/live/body with the current filters and page) and swaps it in: no reload, no
// WebSocket. While the first load is underway (the runs table comes first, then the
// headline and leaderboard) it polls four times a second. Polling stops while the page is
// hidden and starts again when it is shown.
(function () {
  var live = document.getElementById("live");
  if (!live) { return; }
  var stateUrl = live.dataset.state;
  var bodyUrl = live.dataset.body + window.location.search;
  var generation = live.dataset.generation;
  var whole = live.dataset.whole === "true"; // the first load served, report included
  var timer = null;
  var busy = false;

  function autosubmit(root) {
    root.querySelectorAll("[data-autosubmit]").forEach(function (field) {
      field.addEventListener("change", function () { field.form.submit(); });
    });
  }

  function line(id, text) {
    var element = document.getElementById(id);
    if (!element) { return; }
    element.textContent = text || "";
    element.hidden = !text;
  }

  function schedule(seconds) {
    window.clearTimeout(timer);
    timer = document.hidden ? null : window.setTimeout(poll, seconds * 1000);
  }

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html").body;
    live.replaceChildren.apply(live, Array.prototype.slice.call(fresh.childNodes));
    autosubmit(live);
    live.dataset.generation = generation;
    document.body.dataset.liveGeneration = generation;
  }

  function poll() {
    timer = null;
    if (busy || document.hidden) { return; }
    busy = true;
    fetch(stateUrl, { cache: "no-store", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("state " + response.status); }
        return response.json();
      })
      .then(function (state) {
        line("live-progress", state.progress);
        line("live-recording", state.recording);
        line("live-problem", state.problem_line);
        if (String(state.generation) === generation) { return state; }
        generation = String(state.generation);
        return fetch(bodyUrl, { cache: "no-store" }).then(function (response) {
          if (!response.ok) { throw new Error("body " + response.status); }
          return response.text();
        }).then(function (html) { swap(html); return state; });
      })
      .then(function (state) {
        busy = false;
        whole = whole || Boolean(state.report);
        schedule(!whole && state.loading ? 0.25 : state.loading || state.recording ? 1 : 2);
      })
      .catch(function () {
        busy = false; // the viewer stopped or is busy: try again a little later
        line("live-progress", "the viewer does not answer; trying again");
        schedule(5);
      });
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { window.clearTimeout(timer); timer = null; } else if (timer === null) { poll(); }
  });
  document.body.dataset.liveGeneration = generation;
  schedule(whole ? 1 : 0.25);
})();
