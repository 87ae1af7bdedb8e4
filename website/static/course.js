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
    if (output) {
      output.style.overflowX = "auto";
      output.tabIndex = 0; // a box that scrolls can be scrolled from the keyboard
    }
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

// The widgets on these pages are snapshots: the state each had when the chapter ran, drawn
// without a kernel, so their controls move nothing. A note above each says so and links to
// the same chapter in the browser edition, where the widget is live. And each slider gets
// its description as its name: ipywidgets writes the description beside the slider but does
// not tie the two together, so a screen reader would announce a nameless slider.
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

  function nameSliders(root) {
    var handles = root.querySelectorAll('.widget-slider [role="slider"]:not([aria-label])');
    Array.prototype.forEach.call(handles, function (handle) {
      var label = handle.closest(".widget-slider").querySelector(".widget-label");
      var name = label && label.textContent.trim();
      if (name) handle.setAttribute("aria-label", name);
    });
  }

  function start() {
    if (!document.querySelector(VIEW)) return;
    addNotes();
    nameSliders(document);
    new MutationObserver(function () { nameSliders(document); })
      .observe(document.body, {childList: true, subtree: true});
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
