"""The browser's API client is typed from the OpenAPI document: the committed types must match it.

`make api-types` regenerates `workbench_app/frontend/src/api/schema.d.ts`; this test generates them
again into a temporary file with the same command and fails when they differ, so a route or schema
changed on the server without regenerating the client's types cannot land.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench_app.api import api_document

FRONTEND = Path(__file__).resolve().parents[2] / "workbench_app" / "frontend"
GENERATOR = FRONTEND / "node_modules" / ".bin" / "openapi-typescript"


@pytest.mark.skipif(not GENERATOR.exists(), reason="the frontend's npm packages are installed by `make test`")
def test_the_committed_client_types_match_the_openapi_document(tmp_path):
    spec = tmp_path / "openapi.json"
    spec.write_text(json.dumps(api_document(), indent=1))
    generated = tmp_path / "schema.d.ts"
    # The same command as `npm run api-types` (package.json), with the Node the build uses.
    subprocess.run([sys.executable, "-m", "analytics_cli.node_toolchain", str(GENERATOR), str(spec), "-o",
                    str(generated), "--default-non-nullable", "false"], cwd=FRONTEND, check=True,
                   capture_output=True, timeout=300)
    committed = (FRONTEND / "src" / "api" / "schema.d.ts").read_text()
    assert generated.read_text() == committed, "schema.d.ts is out of date: run `make api-types` and commit it"
