"""Autograd from Scratch: the reference engine behind the course.

`import autograd` needs only the standard library. The drawing and widget modules
(`autograd.viz`, `autograd.widgets`) import graphviz, ipywidgets and matplotlib themselves,
so import them explicitly when you want them.
"""

from .engine import Value
from .higher_order import grad
from .nn import MLP, Layer, Module, Neuron

__all__ = ["Value", "grad", "Module", "Neuron", "Layer", "MLP"]
__version__ = "0.1.0"
