"""The package's imports point one way: from the notebooks' helpers down to the engine, and
from the engine down to the float rules and the graph walk. Nothing imports upward, and no
module (or package) imports one that imports it back, at the top of a file or inside a
function. Read from the source, so that a deferred import counts as well."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "autograd"

# Lower layers first. A module may import from its own layer's other packages only as listed
# in SIDEWAYS, and from any lower layer.
LAYERS = [
    {"autograd._floats", "autograd.ops", "autograd._platform", "autograd._slider_names",
     "autograd.graph", "autograd.syllabus", "autograd.data", "autograd.profiling",
     "autograd.article", "autograd.plots", "autograd.course_engine"},
    {"autograd.engine", "autograd.fast", "autograd.tensor"},
    {"autograd.nn", "autograd.gradcheck", "autograd.stages", "autograd.compile",
     "autograd.higher_order", "autograd.engine_file"},
    {"autograd.checks", "autograd.viz"},
    {"autograd.widgets", "autograd.environment", "autograd.yours"},
    {"autograd"},  # the package itself: `from autograd import Value`
]
SIDEWAYS = {("autograd.engine", "autograd.fast"): False}  # the two engines share nothing


def modules():
    """{dotted name: (path, is a package's __init__)} for every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


MODULES = modules()


def imports_of(name):
    """The package's modules that `name` imports, anywhere in its source."""
    path, is_package = MODULES[name]
    here = name if is_package else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # `from . import graph` imports a module, not a name
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {target for target in found if target in MODULES and target != name}


def unit(name):
    """The unit a layer lists: a top-level module, or a subpackage as a whole."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else name


def layer(name):
    for i, units in enumerate(LAYERS):
        if unit(name) in units:
            return i
    raise AssertionError(f"{name} is in no layer: add it to LAYERS in {__file__}")


def test_every_module_has_a_layer():
    for name in MODULES:
        layer(name)


def test_no_module_imports_upward_or_across_unless_allowed():
    wrong = []
    for name in MODULES:
        for target in imports_of(name):
            if unit(target) == unit(name):
                continue  # inside one package: see the cycle test
            if layer(target) > layer(name) or (
                layer(target) == layer(name)
                and not SIDEWAYS.get((unit(name), unit(target)), True)
            ):
                wrong.append(f"{name} imports {target}")
    assert wrong == []


def test_there_are_no_import_cycles_between_modules():
    graph = {name: imports_of(name) - {name} for name in MODULES}
    # a package's __init__ importing its own submodules is the package's own business, and
    # a submodule importing the package's __init__ would close a cycle: both count here
    done, cycles = set(), []

    def visit(name, path):
        if name in path:
            cycles.append(path[path.index(name):] + [name])
            return
        if name in done:
            return
        for target in sorted(graph[name]):
            if target != "autograd" or name == "autograd":
                visit(target, path + [name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert cycles == []


def test_the_checks_build_on_their_core_and_the_core_on_nothing_of_theirs():
    core = imports_of("autograd.checks.core")
    assert not {target for target in core if target.startswith("autograd.checks")}
    assert "autograd.checks" not in imports_of("autograd.checks.exercise")
