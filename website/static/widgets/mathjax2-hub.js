// The widgets typeset their labels with MathJax 2's MathJax.Hub.Queue; this site has MathJax 3,
// whose MathJax.typesetPromise does the same. Loaded deferred, after MathJax.
if (window.MathJax && !window.MathJax.Hub) {
  window.MathJax.Hub = {
    Queue: ([, , element]) => window.MathJax.typesetPromise?.([element]),
  };
}
