"""Where the package runs: the one place it asks. Standard library only, in the lowest layer,
so that any module may import it."""

import sys

# The JupyterLite edition's kernel: Python compiled to WebAssembly (Pyodide) in a browser tab,
# where no program can be started and no thread either.
IN_BROWSER = sys.platform == "emscripten"
