"""Sliders with names: ipywidgets draws a slider's description beside it, but does not tie the
two together, so a screen reader would announce a nameless slider.

`display_named(bundle)` shows a widget view together with `NAME_SLIDERS`, a small script that
gives each slider handle on the page its description as its name (aria-label), now and
whenever a slider appears later; a page runs it once. JupyterLab and JupyterLite run it in the
output of a cell that ran in this session, and a saved web page (the course website) runs it
as the page loads. The explorers (`autograd.widgets`) and chapter 00's widget test show
themselves this way. Standard library only: IPython is imported when a view is shown.
"""

__all__ = ["NAME_SLIDERS", "display_named"]

NAME_SLIDERS = """<script>
(function () {
  if (window.autogradNamesSliders) return;
  window.autogradNamesSliders = true;
  var waiting = false;
  function nameSliders() {
    waiting = false;
    var handles = document.querySelectorAll('.widget-slider [role="slider"]:not([aria-label])');
    Array.prototype.forEach.call(handles, function (handle) {
      var label = handle.closest(".widget-slider").querySelector(".widget-label");
      var name = label && label.textContent.trim();
      if (name) handle.setAttribute("aria-label", name);
    });
  }
  nameSliders();
  new MutationObserver(function () {
    if (!waiting) { waiting = true; requestAnimationFrame(nameSliders); }
  }).observe(document.body, {childList: true, subtree: true});
})();
</script>"""


def display_named(bundle):
    """Show `bundle` (a widget view's mimebundle) in a notebook, after the script that names
    its sliders."""
    from IPython.display import display

    display({"text/html": NAME_SLIDERS}, raw=True)
    display(bundle, raw=True)
