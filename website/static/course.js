// A plot in a chapter keeps its text readable on a phone. A plot is a picture with its text
// drawn in, and a page narrower than the picture shrinks it, text and all: the course's plots
// (matplotlib's 10-point text at 100 dots per inch, about 14 pixels) would end with text of 5
// pixels on a phone. So each plot shrinks with the page no further than 72% of its own width,
// where that text is 10 pixels, and its output scrolls sideways beyond that. An explorer's plot
// (the training dashboard's, say) is drawn at 90 dots per inch (autograd/widgets/_common.py),
// its 10-point text 12.5 pixels: it shrinks no further than 80%, and the picture alone scrolls
// sideways, under the explorer's controls. (The drawings of graphs fit themselves: their HTML
// says how far their text lets them shrink.)
(function () {
  "use strict";
  var READABLE_SHARE = 0.72; // 10 px of about 13.9 px
  var WIDGET_READABLE_SHARE = 0.8; // 10 px of 12.5 px

  function keepReadable(img, share, scroller) {
    if (!img.naturalWidth) return;
    var narrowest = Math.min(img.naturalWidth, Math.ceil(img.naturalWidth * share));
    img.style.minWidth = narrowest + "px";
    if (scroller) {
      scroller.style.overflowX = "auto";
      scroller.tabIndex = 0; // a box that scrolls can be scrolled from the keyboard
    }
  }

  function whenLoaded(img, then) {
    if (img.complete) then();
    else img.addEventListener("load", then);
  }

  // An explorer's picture, drawn by the widget embedder after the page loads: put in a box of
  // its own that scrolls, so that the controls above it stay in view.
  function keepWidgetPlotsReadable() {
    var plots = document.querySelectorAll(".cell_output .widget-subarea img.widget-image");
    Array.prototype.forEach.call(plots, function (img) {
      if (img.parentElement.classList.contains("course-plot-scroller")) return;
      var box = document.createElement("div");
      box.className = "course-plot-scroller";
      img.parentElement.insertBefore(box, img);
      box.appendChild(img);
      whenLoaded(img, function () { keepReadable(img, WIDGET_READABLE_SHARE, box); });
    });
  }

  function start() {
    var plots = document.querySelectorAll(".cell_output img");
    Array.prototype.forEach.call(plots, function (img) {
      if (img.closest(".widget-subarea")) return; // an explorer's: keepWidgetPlotsReadable
      whenLoaded(img, function () {
        keepReadable(img, READABLE_SHARE, img.closest(".cell_output"));
      });
    });
    if (!document.querySelector('script[type="application/vnd.jupyter.widget-view+json"]')) return;
    keepWidgetPlotsReadable();
    new MutationObserver(keepWidgetPlotsReadable)
      .observe(document.body, {childList: true, subtree: true});
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

// The widgets on these pages are snapshots: the state each had when the chapter ran, drawn
// without a kernel, so their controls move nothing. A note above each says so and links to
// the same chapter in the browser edition, where the widget is live. (Each slider gets its
// name from the script that the explorers show with their views: autograd/widgets/_common.py.)
(function () {
  "use strict";
  var VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]';

  function addNotes() {
    var live = document.querySelector(".course-launch a"); // "Run it in your browser"
    Array.prototype.forEach.call(document.querySelectorAll(VIEW), function (script) {
      var output = script.closest(".cell_output") || script.parentElement;
      if (!output || output.querySelector(".course-widget-note")) return;
      var note = document.createElement("p");
      note.className = "course-widget-note";
      note.appendChild(document.createTextNode(
        "A snapshot of this widget as it was when the chapter ran: its controls do nothing here. "));
      if (live) {
        var link = document.createElement("a");
        link.href = live.href;
        link.textContent = "Open this chapter in your browser";
        note.appendChild(link);
        note.appendChild(document.createTextNode(" to use it live."));
      }
      output.insertBefore(note, output.firstChild);
    });
  }

  function start() {
    if (!document.querySelector(VIEW)) return;
    addNotes();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
