"""Interactive explorers for the course: a model you can drive from code, and a view to play with.

Every explorer comes in two halves. The *model* (`GraphExplorer`, `BackwardStepper`,
`FiniteDifferenceExplorer`, `ActivationExplorer`, `TrainingDashboard`, `CurvatureExplorer`,
chapter 00's `SlopeExplorer` and chapter 02's `ForwardExplorer`) is
a plain object with methods and state, which tests and notebook cells drive without a browser.
Its *view* (`model.widget()`) is built from ipywidgets and redraws whenever the model changes,
so a cell can still move an explorer that is on screen. A model shown in a notebook shows its view.

This package imports ipywidgets and `autograd.viz` (graphviz) itself, and matplotlib with the
first plot (so that the explorers that only draw graphs work where matplotlib is not at hand,
as in the browser offline); `import autograd` never does, so import it explicitly:
`from autograd.widgets import BackwardStepper`.

Extreme settings never end in a traceback inside a view: what the engine raises for a
computation it cannot do (ValueError, OverflowError, ZeroDivisionError) is shown as a message.

Each explorer has its own module (`graph_explorer`, `stepper`, `finite_differences`,
`activation`, `training`, `curvature`, `slope`, `forward`); what they share, the model/view pair, number checks and
formatting, messages and guarded drawing, lives in `_common`, which imports none of them.
"""

from ._common import ENGINE_ERRORS
from .activation import ACTIVATIONS, ActivationExplorer, ActivationView
from .curvature import CurvatureExplorer, CurvatureView
from .finite_differences import FiniteDifferenceExplorer, FiniteDifferenceView
from .forward import ForwardExplorer, ForwardView
from .graph_explorer import GraphExplorer, GraphExplorerView
from .slope import SlopeExplorer, SlopeView
from .stepper import WRONG_ORDERS, BackwardStepper, BackwardStepperView
from .training import TrainingDashboard, TrainingDashboardView

__all__ = [
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
