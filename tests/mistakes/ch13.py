"""Chapter 13's exercises: `unbroadcast`, the closure of `*` with broadcasting, and the
backward pass of `@`.

Each entry costs a run of the rest of the chapter after its exercise up to the checkpoint
(a few seconds), so the catalogue keeps one entry per kind of mistake;
tests/test_checks_ch13.py covers more wrong answers, check by check.
"""

from . import Mistake

_DOC = "    '''Sum grad back to shape, the shape of an operand that broadcasting stretched to grad's.'''\n"


def _unbroadcast(body):
    return "def unbroadcast(grad, shape):\n" + _DOC + body


def _mul(first, second):
    return (
        "@add_to_class(Tensor)\n"
        "def __mul__(self, other):\n"
        "    other = other if isinstance(other, Tensor) else Tensor(other)\n"
        '    out = Tensor(self.data * other.data, (self, other), "*")\n\n'
        "    def _backward():\n"
        f"        {first}\n"
        f"        {second}\n\n"
        "    out._backward = _backward\n"
        "    return out\n"
    )


def _matmul(first, second):
    return (
        "@add_to_class(Tensor)\n"
        "def __matmul__(self, other):\n"
        "    other = other if isinstance(other, Tensor) else Tensor(other)\n"
        '    out = Tensor(self.data @ other.data, (self, other), "@")\n\n'
        "    def _backward():\n"
        f"        {first}\n"
        f"        {second}\n\n"
        "    out._backward = _backward\n"
        "    return out\n"
    )


_RIGHT_A = "self.grad += out.grad @ other.data.T"
_RIGHT_B = "other.grad += self.data.T @ out.grad"

MISTAKES = [
    # unbroadcast: the leading axes summed away, then the stretched 1s with keepdims=True
    Mistake(
        "ch13.check_unbroadcast",
        "summing over the wrong axis",
        _unbroadcast(
            "    while grad.ndim > len(shape):\n        grad = grad.sum(axis=-1)\n    return grad\n"
        ),
        ("summed over the wrong axis", "new dimensions on the *left*"),
    ),
    Mistake(
        "ch13.check_unbroadcast",
        "the 1s not kept",
        _unbroadcast(
            "    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))\n"
            "    stretched = tuple(i for i, n in enumerate(shape) if n == 1)\n"
            "    return grad.sum(axis=stretched)\n"
        ),
        ("`keepdims=True`",),
    ),
    # __mul__: each factor gets the other times out.grad, summed back to its own shape
    Mistake(
        "ch13.check_mul",
        "forgetting to unbroadcast",
        _mul("self.grad += other.data * out.grad", "other.grad += self.data * out.grad"),
        ("Forgetting to unbroadcast", "summed back to (3,)"),
    ),
    Mistake(
        "ch13.check_mul",
        "= for += on a tensor used twice",
        _mul(
            "self.grad = unbroadcast(other.data * out.grad, self.shape)",
            "other.grad = unbroadcast(self.data * out.grad, other.shape)",
        ),
        ("assigned with `=` instead of adding with `+=`", "a tensor used twice"),
    ),
    Mistake(
        "ch13.check_mul",
        "missing * out.grad",
        _mul(
            "self.grad += unbroadcast(other.data, self.shape)",
            "other.grad += unbroadcast(self.data, other.shape)",
        ),
        ("`* out.grad`",),
    ),
    # __matmul__: dA = dC @ B.T, dB = A.T @ dC
    Mistake(
        "ch13.check_matmul",
        "B @ dC for dC @ B.T",
        _matmul("self.grad += other.data @ out.grad", _RIGHT_B),
        ("`B @ dC` where it should be `dC @ B.T`",),
    ),
    Mistake(
        "ch13.check_matmul",
        "a transposed shape that fits only square matrices",
        _matmul(_RIGHT_A, "other.grad += out.grad.T @ self.data"),
        ("the transpose of dB", "fits only square matrices"),
    ),
    Mistake(
        "ch13.check_matmul",
        "no transpose, square only",
        _matmul("self.grad += out.grad @ other.data", _RIGHT_B),
        ("`dC @ B` (no transpose)", "fits only square matrices"),
    ),
    Mistake(
        "ch13.check_matmul",
        "= for +=",
        _matmul("self.grad = out.grad @ other.data.T", "other.grad = self.data.T @ out.grad"),
        ("assigned with `=` instead of adding with `+=`",),
    ),
]
