"""The package autograd.viz (autograd/viz/__init__.py): the names it offers."""

from autograd import viz

# --------------------------------------------------------------------------- the package, graphviz


# What `autograd.viz` offered when it was one module (its __all__ then), less LAYOUT_TIMEOUT:
# notebooks, the widgets, the README and learners import these, so the package must keep every
# one. The time limit lives in `autograd.viz.layout` alone, where setting it takes effect.
NAMES_OF_THE_SINGLE_MODULE = [
    "draw_dot",
    "side_by_side",
    "inline_svg",
    "DEFAULT_MAX_WIDTH",
    "trace",
    "backward_order",
    "layout_program",
    "save",
    "GraphDrawing",
    "SideBySide",
    "GraphvizNotFoundError",
    "LayoutTimeoutError",
    "LayoutProgram",
]


def test_the_viz_package_offers_every_name_the_single_module_did():
    assert set(NAMES_OF_THE_SINGLE_MODULE) <= set(viz.__all__)
    star = {}
    exec("from autograd.viz import *", star)
    for name in NAMES_OF_THE_SINGLE_MODULE:
        assert star[name] is getattr(viz, name), name
        assert name in dir(viz), name  # so a notebook completes it after `viz.`
    assert viz.DEFAULT_MAX_WIDTH == 9.5 and viz.layout.LAYOUT_TIMEOUT == 20.0
    # The explorers check rankdir against this.
    assert viz.RANKDIRS == ("LR", "TB", "RL", "BT")
    # no copy of the time limit on the package, which setting would not change
    assert not hasattr(viz, "LAYOUT_TIMEOUT")
