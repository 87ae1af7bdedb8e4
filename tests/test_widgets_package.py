"""The package autograd.widgets (autograd/widgets/__init__.py): the names it offers."""

import widgets_shared  # noqa: F401 (without ipywidgets, it skips these tests)

from autograd.widgets import (
    GraphExplorer,
)

# ---------------------------------------------------------------------------- the package


def test_autograd_widgets_keeps_every_name_it_has_always_offered():
    # `autograd.widgets` was one module; it is a package now, one module per explorer. What
    # notebooks and learners import from it must not have moved.
    import autograd.widgets as package

    assert package.__all__ == [
        "GraphExplorer",
        "BackwardStepper",
        "FiniteDifferenceExplorer",
        "ActivationExplorer",
        "TrainingDashboard",
        "CurvatureExplorer",
        "ENGINE_ERRORS",
        "SlopeExplorer",
        "ForwardExplorer",
    ]
    assert package.ENGINE_ERRORS == (ValueError, OverflowError, ZeroDivisionError)
    for name in package.__all__:
        assert getattr(package, name) is not None, name
    # the views and the tables a notebook may reach for, public names too
    for name in [
        "GraphExplorerView",
        "BackwardStepperView",
        "FiniteDifferenceView",
        "ActivationView",
        "TrainingDashboardView",
        "CurvatureView",
        "SlopeView",
        "ForwardView",
        "WRONG_ORDERS",
        "ACTIVATIONS",
    ]:
        assert hasattr(package, name), name
    assert GraphExplorer is package.GraphExplorer
    assert isinstance(
        GraphExplorer(lambda a: a * a, {"a": 3.0}).widget(), package.GraphExplorerView
    )
    assert set(package.WRONG_ORDERS) == {"forward", "breadth-first"}
    assert set(package.ACTIVATIONS) == {"tanh", "relu", "sigmoid", "exp"}
