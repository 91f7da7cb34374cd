"""function-code/build_function.py: what `sam build` leaves out of the functions, and its guard."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BUILD = Path(__file__).resolve().parents[2] / "function-code" / "build_function.py"


def _build_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_function", BUILD)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _build_module()


def test_twilios_async_stack_is_left_out_and_everything_else_is_pinned_as_pip_resolved_it() -> None:
    resolved = {
        "twilio": ("9.13.0", ["requests", "pyjwt", "aiohttp", "aiohttp-retry"]),
        "aiohttp": ("3.14.5", ["yarl", "multidict", "attrs"]),
        "aiohttp-retry": ("2.9.1", ["aiohttp"]),
        "yarl": ("1.20.0", ["multidict", "idna"]),
        "multidict": ("7.2.1", []),
        "attrs": ("26.1.0", []),
        "requests": ("2.34.2", ["idna", "urllib3"]),
        "idna": ("3.20", []),
        "urllib3": ("2.8.0", []),
        "pyjwt": ("2.15.1", []),
    }

    assert build.runtime_requirements(resolved) == [
        "idna==3.20",
        "pyjwt==2.15.1",
        "requests==2.34.2",
        "twilio==9.13.0",
        "urllib3==2.8.0",
    ]


def test_the_build_stops_when_a_package_the_functions_use_needs_one_it_leaves_out() -> None:
    resolved = {
        "twilio": ("9.13.0", ["aiohttp"]),
        "aiohttp": ("3.14.5", []),
        "some-new-dependency": ("1.0", ["aiohttp"]),
    }

    with pytest.raises(SystemExit, match="some-new-dependency requires \\['aiohttp'\\]"):
        build.runtime_requirements(resolved)
