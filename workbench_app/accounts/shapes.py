"""Accounts as the API answers them and as requests change them: people, groups, tokens, the settings
(bases: answer_shapes.py, request_shapes.py)."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, WithJsonSchema, create_model

from workbench_app.accounts.instance_settings import LOCALES, SHARING_LIMITS
from workbench_app.accounts.password_links import PURPOSES as PASSWORD_PURPOSES
from workbench_app.answer_shapes import AnswerShape
from workbench_app.request_shapes import QueryFlag, QueryShape, RequestShape, Text, WholeNumber


class Group(AnswerShape):
    group_id: int
    name: str
    description: str
    created_at: datetime
    members: list[int]
    """The members' user ids."""


class GroupList(AnswerShape):
    groups: list[Group]


Locale = Literal[LOCALES]  # type: ignore[valid-type]


class User(AnswerShape):
    """An account as the API answers it (a new account's answer and the list's have no attributes nor groups)."""
    user_id: int
    email: str
    display_name: str
    is_admin: bool
    is_active: bool
    locale: Locale
    created_at: datetime
    last_login_at: datetime | None
    attributes: dict[str, Any] = None  # type: ignore[assignment]  (left out, not null)
    """The person's attributes, which row rules read as {{user.<name>}}."""
    groups: list[int] = None  # type: ignore[assignment]
    """The groups the person is a member of."""


class UserList(AnswerShape):
    users: list[User]


class UserAttributesSet(AnswerShape):
    attributes: dict[str, Any]
    """The person's attributes now."""


class Session(AnswerShape):
    """The web application's session: who signed in, and the token every change sends back."""
    user: User
    csrf_token: str
    """Sent back as X-CSRF-Token on every POST, PUT, PATCH and DELETE."""


class SetupState(AnswerShape):
    state: Literal["open"]


class Token(AnswerShape):
    """An API token, without its secret."""
    token_id: int
    user_id: int
    name: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None
    state: Literal["active", "revoked"]
    owner_email: str | None = None  # type: ignore[assignment]  (left out, not null)
    """GET /tokens?all=true only."""


class TokenList(AnswerShape):
    tokens: list[Token]


class NewToken(AnswerShape):
    token: Token
    secret: str
    """The bearer secret (`wbt_...`): shown this once."""


class PasswordLink(AnswerShape):
    path: str
    """The link to give the person: /set-password#<token>."""
    token: str
    purpose: Literal[PASSWORD_PURPOSES]  # type: ignore[valid-type]
    expires_at: datetime


class PasswordLinkFor(AnswerShape):
    """Whom a password link is for (the set-password page greets them)."""
    email: str
    purpose: Literal[PASSWORD_PURPOSES]  # type: ignore[valid-type]


class NewGroup(RequestShape):
    name: Text(allow_empty=False)
    description: Text(2000) = ""


Email = Text(400)
Password = Text(1000)
# name -> a string, number, boolean or non-empty list of them (users.set_attributes checks each and
# names the attribute that is wrong).
_SCALAR = {"type": ["string", "number", "boolean"], "maxLength": 1000, "pattern": "^[^\\x00]*$"}
Attributes = Annotated[dict[str, Any], WithJsonSchema({
    "type": "object", "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]{0,62}$"},
    "additionalProperties": {"anyOf": [_SCALAR, {"type": "array", "minItems": 1, "items": _SCALAR}]}})]


class Credentials(RequestShape):
    """A sign-in to the web application (POST /session)."""
    email: Email
    password: Password


class SignIn(Credentials):
    """A sign-in for an API token."""
    name: Text() = "sign-in"
    """The new token's name."""


# A link's token is checked against the stored links before anything else of the form (a wrong one
# reveals nothing), so the model takes any value and the document says it is a string.
LinkToken = Annotated[Any, WithJsonSchema({"type": "string"})]


# A new password: its strength is checked by users.py, which says what is wrong with it.
NewPasswordText = Annotated[Password, Field(json_schema_extra={"minLength": 10})]


class FirstAdministrator(RequestShape):
    """The first-run setup's form: the setup link's token, then the first administrator."""
    model_config = ConfigDict(json_schema_extra={"required": ["token", "email", "password", "locale"]})
    token: LinkToken = None
    email: Email
    password: NewPasswordText
    display_name: Text() = ""
    locale: Locale


class PasswordLinkRequest(RequestShape):
    purpose: Literal[PASSWORD_PURPOSES] = "reset"  # type: ignore[valid-type]


class PasswordLinkToken(RequestShape):
    model_config = ConfigDict(json_schema_extra={"required": ["token"]})
    token: LinkToken = None


class NewPassword(PasswordLinkToken):
    model_config = ConfigDict(json_schema_extra={"required": ["token", "password"]})
    password: NewPasswordText


class ProfileChange(RequestShape):
    """One's own display name and language (of the interface and of API messages)."""
    display_name: Text() = None
    locale: Locale = None


class NewUser(RequestShape):
    email: Email
    password: Password = None
    """Left out: the person sets one with a password link."""
    display_name: Text() = ""
    is_admin: bool = False
    locale: Locale = None
    """The settings' default language when left out."""


class UserChange(RequestShape):
    """A change of an account: only the fields given change."""
    display_name: Text() = None
    locale: Locale = None
    is_admin: bool = None
    is_active: bool = None
    password: Password = None


class UserAttributes(RequestShape):
    attributes: Attributes
    """Replace the person's attributes, which row rules read as {{user.<name>}}."""


class TokenRequest(RequestShape):
    name: Text() = ""


# A change of the settings: only the fields given change. The sharing limits come with their
# bounds from instance_settings.py (the migration checks the same).
# The instance settings' words, said once for the answer (Settings) and the change (SettingsChange).
_SAID = {"default_locale": "The language of accounts created without one.",
         "public_sharing": "Whether dashboards may be shared by public link (off by default; turning it off stops "
                           "every link).",
         "external_recipients": "Whether subscriptions may send to addresses outside the accounts and to webhooks "
                                "(off by default)."}

SettingsChange = create_model(
    "SettingsChange", __base__=RequestShape,
    default_locale=(Locale, Field(None, description=_SAID["default_locale"])),
    public_sharing=(bool, Field(None, description=_SAID["public_sharing"])),
    external_recipients=(bool, Field(None, description=_SAID["external_recipients"])),
    **{name: (WholeNumber(low, high), None) for name, (low, high) in SHARING_LIMITS.items()})


class SignInMethods(AnswerShape):
    password: bool
    """False: only the break-glass administrator signs in with a password."""
    oidc: bool
    """Single sign-on (OpenID Connect) is configured (GET /settings/sso)."""


Settings = create_model(
    "Settings", __base__=AnswerShape,
    default_locale=(Locale, Field(description=_SAID["default_locale"])),
    sign_in_methods=(SignInMethods, ...),
    public_sharing=(bool, Field(description=_SAID["public_sharing"])),
    external_recipients=(bool, Field(description=_SAID["external_recipients"])),
    **{name: (Annotated[int, Field(ge=low, le=high)], ...) for name, (low, high) in SHARING_LIMITS.items()})


class TokensQuery(QueryShape):
    all: QueryFlag = "false"
    """Administrators: everyone's tokens, with owner_email."""
