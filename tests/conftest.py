"""Shared test set-up.

Optional tools (PyTorch, a browser) skip with a reason on a learner's machine that lacks them,
but CI (`CI=true`) must run every test, so there a missing tool is a failure, not a skip.
"""

import os
import shutil

import pytest
from hypothesis import HealthCheck, settings

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# The machine that runs the tests is shared and noisy: never fail a property test for time.
settings.register_profile(
    "course", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("course")


def skip_or_fail(reason):
    """Skip on a learner's machine; fail in CI, where every test must run."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true, so this test must run)", pytrace=False)
    pytest.skip(reason)


def require_module(name):
    """Import and return module `name`, or skip (fail in CI) with a reason that says how to get it."""
    try:
        return __import__(name)
    except ImportError:
        hint = "pip install -r requirements-torch.txt" if name == "torch" else f"pip install {name}"
        skip_or_fail(f"{name} is not installed ({hint})")


# Headless Chromium, as it runs here: the system's own (Debian's `chromium`), never a
# Playwright download, with nothing that reaches out to the network on its own.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def chromium():
    """The system's Chromium, or skip (fail under CI) without it."""
    executable = shutil.which("chromium")
    if executable is None:
        skip_or_fail("no `chromium` on PATH (Debian: apt-get install chromium)")
    return executable


@pytest.fixture(autouse=True)
def fresh_answers():
    """Each test starts as a fresh kernel does: no exercise checked, no wrong tries counted."""
    from autograd.checks.exercise import forget_answers

    forget_answers()
    yield
    forget_answers()
