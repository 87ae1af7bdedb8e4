// A plot in a chapter keeps its text readable on a phone. A plot is a picture with its text
// drawn in, and a page narrower than the picture shrinks it, text and all: the course's plots
// (matplotlib's 10-point text at 100 dots per inch, about 14 pixels) would end with text of 5
// pixels on a phone. So each plot shrinks with the page no further than 72% of its own width,
// where that text is 10 pixels, and its output scrolls sideways beyond that. (The drawings of
// graphs fit themselves: their HTML says how far their text lets them shrink.)
(function () {
  "use strict";
  var READABLE_SHARE = 0.72; // 10 px of about 13.9 px

  function keepReadable(img) {
    if (!img.naturalWidth) return;
    var narrowest = Math.min(img.naturalWidth, Math.ceil(img.naturalWidth * READABLE_SHARE));
    img.style.minWidth = narrowest + "px";
    var output = img.closest(".cell_output");
    if (output) output.style.overflowX = "auto";
  }

  function start() {
    var plots = document.querySelectorAll(".cell_output img");
    Array.prototype.forEach.call(plots, function (img) {
      if (img.closest(".widget-subarea")) return; // a widget's own picture: left as it is
      if (img.complete) keepReadable(img);
      else img.addEventListener("load", function () { keepReadable(img); });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
