"""The single sign-on settings as an administrator's request changes them (base: request_shapes.py)
and as the API answers them, with the sign-in page's offer (base: answer_shapes.py)."""
from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, ValidationInfo

from workbench_app.answer_shapes import AnswerShape
from workbench_app.request_shapes import RequestShape, Text, refused

CLAIM = re.compile(r"^[A-Za-z0-9_:.\-/]{1,200}$")
ATTRIBUTE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_GROUP = re.compile(r"^[^\x00]{1,200}$")
_ISSUER = re.compile(r"^https?://[^\s/?#]+[^\s?#]*$")
MAX_CLAIMS = 100


def _issuer(value: str) -> str:
    if value and not _ISSUER.match(value):
        raise refused("issuer must be an http:// or https:// address without query or fragment.")
    return value


def _claim(value: str, info: ValidationInfo) -> str:
    if not CLAIM.match(value):
        raise refused(f"{info.field_name} must be a claim name.")
    return value


def _claim_map(targets: re.Pattern):
    def check(value: dict, info: ValidationInfo) -> dict:
        if len(value) > MAX_CLAIMS or not all(CLAIM.match(claim) and isinstance(target, str) and targets.match(target)
                                              for claim, target in value.items()):
            raise refused(f"{info.field_name} must map up to 100 claim names to names.")
        return value
    return check


_MAP = {"maxProperties": MAX_CLAIMS, "propertyNames": {"pattern": "^[A-Za-z0-9_:./-]{1,200}$"}}
Claim = Annotated[Text(200), AfterValidator(_claim), Field(json_schema_extra={"pattern": "^[A-Za-z0-9_:./-]{1,200}$"})]
Setting = Text(500) | None


class SingleSignOnChange(RequestShape):
    """A field given replaces the stored one; null clears it (the environment's value applies again);
    `client_secret` "" or null clears the secret."""
    issuer: Annotated[Text(2000), AfterValidator(_issuer)] | None = None
    client_id: Setting = None
    scopes: Setting = None
    display_name: Setting = None
    email_claim: Claim = None
    name_claim: Claim = None
    groups_claim: Claim = None
    attribute_claims: Annotated[dict, AfterValidator(_claim_map(ATTRIBUTE)), Field(json_schema_extra={
        **_MAP, "additionalProperties": {"type": "string", "pattern": ATTRIBUTE.pattern}})] = None
    group_mapping: Annotated[dict, AfterValidator(_claim_map(_GROUP)), Field(json_schema_extra={
        **_MAP, "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 200,
                                         "pattern": "^[^\\x00]*$"}})] = None
    groups_by_name: bool = None
    create_accounts: bool = None
    password_sign_in: bool = None
    break_glass_email: Text(400) | None = None
    client_secret: Text(2000) | None = Field(None, json_schema_extra={"writeOnly": True})


# The answers (base: answer_shapes.py).

class SignOnOffer(AnswerShape):
    """What the sign-in page offers (no sign-in needed)."""
    enabled: bool
    display_name: str | None


class SingleSignOnSettings(AnswerShape):
    enabled: bool
    source: Literal["settings", "environment", "none"]
    """Where the configuration in force comes from."""
    issuer: str | None
    client_id: str | None
    client_secret_set: bool
    """Whether a client secret is set (the secret itself is never returned)."""
    scopes: str
    display_name: str
    email_claim: str
    name_claim: str
    groups_claim: str
    attribute_claims: dict[str, str]
    """claim -> user attribute, refreshed at every sign-in."""
    group_mapping: dict[str, str]
    """directory group -> workbench group name."""
    groups_by_name: bool
    create_accounts: bool
    password_sign_in: bool
    break_glass_email: str | None
