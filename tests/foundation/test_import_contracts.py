"""The import contracts of pyproject.toml ([tool.importlinter]): the workbench's layers and no circles.

An import from a lower layer to a higher one (the engine reading the API, a feature reading a route),
a new module at the top of workbench_app/ that no layer names, or two modules importing each other,
even inside a function, fails here with import-linter's account of the offending imports.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_imports_keep_the_layers_and_make_no_circle():
    linter = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(linter), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout
