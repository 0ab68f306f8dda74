"use strict";
// autobench view: the little behaviour the server-rendered pages need. Sizes come from
// data attributes (the CSP allows no inline style or script); filters submit on change.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("[data-autosubmit]").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
  document.querySelectorAll(".bar[data-left]").forEach(function (bar) {
    bar.style.marginLeft = bar.dataset.left + "%";
    bar.style.width = bar.dataset.width + "%";
  });
  document.querySelectorAll(".name[data-depth]").forEach(function (name) {
    name.style.paddingLeft = (Number(name.dataset.depth) * 14) + "px";
  });
  document.body.dataset.ready = "true";
});
