"""The package's imports point one way: from the notebooks' helpers down to the engine, and
from the engine down to the float rules and the graph walk. Nothing imports upward, and no
module (or package) imports one that imports it back, at the top of a file or inside a
function. Read from the source, so that a deferred import counts as well."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "autograd"

# Lower layers first. A module may import from any lower layer, and from another unit (a module,
# or a subpackage as a whole) of its own layer only where SIDEWAYS lists the pair, with why.
LAYERS = [
    {
        "autograd._floats",
        "autograd._arrays",
        "autograd.ops",
        "autograd._platform",
        "autograd._slider_names",
        "autograd.graph",
        "autograd.syllabus",
        "autograd.data",
        "autograd.profiling",
        "autograd.article",
        "autograd.plots",
        "autograd.course_engine",
    },
    {"autograd.engine", "autograd.fast", "autograd.tensor"},
    {"autograd.reading"},  # reading a node of the engines: grad's and the compiler's
    {"autograd.grad_rules"},
    {"autograd._grad_speed"},
    {
        "autograd.nn",
        "autograd.gradcheck",
        "autograd.stages",
        "autograd.compile",
        "autograd.higher_order",
        "autograd.engine_file",
    },
    {"autograd.checks", "autograd.viz"},
    {"autograd.widgets", "autograd.environment", "autograd.yours"},
    {"autograd"},  # the package itself: `from autograd import Value`
]
SIDEWAYS = {
    ("autograd.data", "autograd._floats"): "the rules for numbers",
    ("autograd.ops", "autograd._floats"): "the rules for numbers",
    ("autograd.profiling", "autograd._floats"): "the rules for numbers",
    ("autograd.plots", "autograd._platform"): "where it runs (a browser or not)",
    ("autograd.compile", "autograd.nn"): "a model's parameters, to trace its step",
    ("autograd.engine_file", "autograd.stages"): "which chapter builds each part of the file",
}  # not listed, so never: the two engines (engine, fast) share nothing


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


def wrong_imports(sideways=SIDEWAYS):
    """ "name imports target" for each import upward, or across a layer but not in `sideways`."""
    wrong = []
    for name in MODULES:
        for target in imports_of(name):
            if unit(target) == unit(name):
                continue  # inside one package: see the cycle test
            if layer(target) > layer(name) or (
                layer(target) == layer(name) and (unit(name), unit(target)) not in sideways
            ):
                wrong.append(f"{name} imports {target}")
    return wrong


def test_no_module_imports_upward_or_across_unless_allowed():
    assert wrong_imports() == []


def sideways_imports():
    """The pairs of units of one layer of which the first imports the second."""
    return {
        (unit(name), unit(target))
        for name in MODULES
        for target in imports_of(name)
        if unit(target) != unit(name) and layer(target) == layer(name)
    }


def test_every_pair_listed_sideways_still_imports_across():
    """A pair whose import is gone leaves SIDEWAYS, so that the list says what is."""
    assert set(SIDEWAYS) - sideways_imports() == set()


def test_an_import_across_a_layer_that_is_not_listed_is_wrong():
    """The rule has teeth: unlisted, an import across a layer is reported (and the two engines,
    which share a layer, are not listed)."""
    unlisted = {pair: why for pair, why in SIDEWAYS.items() if pair[1] != "autograd._floats"}
    assert "autograd.ops imports autograd._floats" in wrong_imports(unlisted)
    assert layer("autograd.engine") == layer("autograd.fast")
    assert not {("autograd.engine", "autograd.fast"), ("autograd.fast", "autograd.engine")} & set(
        SIDEWAYS
    )


def test_there_are_no_import_cycles_between_modules():
    graph = {name: imports_of(name) - {name} for name in MODULES}
    # a package's __init__ importing its own submodules is the package's own business, and
    # a submodule importing the package's __init__ would close a cycle: both count here
    done, cycles = set(), []

    def visit(name, path):
        if name in path:
            cycles.append(path[path.index(name) :] + [name])
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
    # the core is core.py and the report it offers (report.py), which builds on nothing
    core = imports_of("autograd.checks.core")
    assert not {target for target in core if target.startswith("autograd.checks")} - {
        "autograd.checks.report"
    }
    assert not {t for t in imports_of("autograd.checks.report") if t.startswith("autograd.checks")}
    assert "autograd.checks" not in imports_of("autograd.checks.exercise")
