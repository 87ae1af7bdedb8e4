// require.js names the widget modules after their packages (@jupyter-widgets/base, ...), and
// each module looks for its fonts (the icons' Font Awesome) in the folder that its name maps to:
// map them all to one folder beside this file, where website/build.py puts the fonts.
requirejs.config({
  baseUrl: new URL(".", document.currentScript.src).href,
  paths: { "@jupyter-widgets/html-manager/dist": "@jupyter-widgets" },
});
