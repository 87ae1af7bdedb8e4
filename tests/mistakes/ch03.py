"""Chapter 03's exercises: predict the diamond, `__sub__`, `__pow__`."""

from . import Mistake

_POW_HEAD = '''@add_to_class(Value)
def __pow__(self, other):  # self ** other
    if isinstance(other, Value):  # a Value exponent: see _pow_value below
        return self._pow_value(other)
    n = other
'''


def _pow(body):
    return _POW_HEAD + body


MISTAKES = [
    Mistake("ch03.check_diamond_prediction", "only the path through b",
            "my_prediction = 6", ("path through b alone",)),
    Mistake("ch03.check_diamond_prediction", "only the path through c",
            "my_prediction = 8.0", ("path through c alone",)),
    Mistake("ch03.check_diamond_prediction", "paths multiplied",
            "my_prediction = 48", ("multiplies the two paths",)),
    Mistake("ch03.check_diamond_prediction", "a number nobody explains",
            "my_prediction = 12", ("each path's product",)),
    Mistake("ch03.check_sub", "missing return", '''@add_to_class(Value)
def __sub__(self, other):  # self - other
    self + (-other)''', ("no `return`",)),
    Mistake("ch03.check_sub", "calls itself", '''@add_to_class(Value)
def __sub__(self, other):  # self - other
    return self - other''', ("calls itself",)),
    Mistake("ch03.check_sub", "forgot to negate", '''@add_to_class(Value)
def __sub__(self, other):  # self - other
    return self + other''', ("b was added, not subtracted",)),
    Mistake("ch03.check_sub", "operands mixed up (b - a)", '''@add_to_class(Value)
def __sub__(self, other):  # self - other
    return other + (-self)''', ("the operands are the wrong way round",)),
    Mistake("ch03.check_sub", "plain floats, not a Value", '''@add_to_class(Value)
def __sub__(self, other):  # self - other
    return self.data - other.data''', ("not a Value",)),
    Mistake("ch03.check_pow", "= instead of +=", _pow('''    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad = n * self.data ** (n - 1) * out.grad

    out._backward = _backward
    return out'''), ("`=` instead of", "`+=`")),
    Mistake("ch03.check_pow", "missing * out.grad", _pow('''    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * self.data ** (n - 1)

    out._backward = _backward
    return out'''), ("`* out.grad`",)),
    Mistake("ch03.check_pow", "exponent not lowered", _pow('''    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * self.data**n * out.grad

    out._backward = _backward
    return out'''), ("local derivative is wrong", "n·aⁿ")),
    Mistake("ch03.check_pow", "missing factor n", _pow('''    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += self.data ** (n - 1) * out.grad

    out._backward = _backward
    return out'''), ("local derivative is wrong", "factor n is missing")),
    Mistake("ch03.check_pow", "missing return", _pow('''    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * self.data ** (n - 1) * out.grad

    out._backward = _backward'''), ("no `return`",)),
    Mistake("ch03.check_pow", "closure never attached", _pow('''    out = Value(self.data**n, (self,), f"**{n}")

    def _backward():
        self.grad += n * self.data ** (n - 1) * out.grad

    return out'''), ("passed nothing back",)),
]
