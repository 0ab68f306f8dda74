"use strict";
// autobench view, diff and compare pages: indentation of aligned spans from their depth
// (the CSP allows no inline style).
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll(".span-name[data-depth]").forEach(function (name) {
    name.style.paddingLeft = (Math.min(Number(name.dataset.depth), 40) * 14) + "px";
    name.style.display = "inline-block";
  });
});
