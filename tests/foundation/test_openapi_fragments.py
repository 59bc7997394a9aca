"""Both applications put their OpenAPI document together by one rule (pipelines/openapi_fragments.py):
an area's paths, components and tags are added, and a path or component described twice is an error."""
from __future__ import annotations

import pytest

from pipelines.openapi_fragments import merge_fragment


def _base() -> dict:
    return {"paths": {"/sites": {"get": {}}}, "components": {"schemas": {"Site": {"type": "object"}}},
            "tags": [{"name": "sites"}]}


def test_a_fragment_adds_its_paths_components_and_new_tags():
    document = _base()
    merge_fragment(document, {"paths": {"/keys": {"get": {}}}, "components": {"schemas": {"Key": {}},
                                                                             "responses": {"Gone": {}}},
                              "tags": [{"name": "sites"}, {"name": "keys"}]}, "keys")
    assert set(document["paths"]) == {"/sites", "/keys"}
    assert set(document["components"]["schemas"]) == {"Site", "Key"}
    assert document["components"]["responses"] == {"Gone": {}}
    assert [tag["name"] for tag in document["tags"]] == ["sites", "keys"]


@pytest.mark.parametrize(("fragment", "said"), [
    ({"paths": {"/sites": {"post": {}}}}, "keys describes /sites, already described"),
    ({"components": {"schemas": {"Site": {}}}}, "keys defines components.schemas.Site, already defined"),
])
def test_a_path_or_component_described_twice_is_an_error(fragment, said):
    document = _base()
    with pytest.raises(ValueError, match=said):
        merge_fragment(document, fragment, "keys")


def test_both_applications_documents_are_merged_by_it(monkeypatch):
    from collector_app import openapi as collector_openapi
    from workbench_app.api import api_document, openapi as workbench_openapi

    assert collector_openapi.merge_fragment is merge_fragment
    assert workbench_openapi.merge_fragment is merge_fragment
    described = api_document()
    # An area that describes a path the workbench describes already is refused, not silently kept.
    fragments = workbench_openapi._area_fragments()
    monkeypatch.setattr(workbench_openapi, "_area_fragments",
                        lambda: fragments + [("again", {"paths": {"/dashboards": described["paths"]["/dashboards"]}})])
    with pytest.raises(ValueError, match="again describes /dashboards, already described"):
        api_document()
