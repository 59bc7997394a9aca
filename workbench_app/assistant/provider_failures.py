"""The provider's failures, each as a refusal with a stable code and a message for people.

Whatever the provider does (no answer, a refused key, its own rate limit, a timeout, an answer the
SDK cannot read), the person gets one of these, in their language, and never a 500.
"""
from __future__ import annotations

import openai

from workbench_app.errors import WorkbenchError


def provider_failure(error: Exception) -> WorkbenchError:
    # APITimeoutError is an APIConnectionError: it must be tested first.
    if isinstance(error, openai.APITimeoutError):
        return WorkbenchError(504, "provider_timeout",
                              "The assistant's provider did not answer in time; try again.")
    if isinstance(error, openai.APIConnectionError):
        return WorkbenchError(502, "provider_unreachable",
                              "The assistant's provider cannot be reached; try again later.")
    if isinstance(error, (openai.AuthenticationError, openai.PermissionDeniedError)):
        return WorkbenchError(502, "provider_unauthorized",
                              "The assistant's provider refused its API key: an administrator must check the "
                              "provider settings.")
    if isinstance(error, openai.RateLimitError):
        return WorkbenchError(502, "provider_rate_limited",
                              "The assistant's provider is limiting requests; try again in a few minutes.")
    if isinstance(error, openai.APIStatusError):
        return WorkbenchError(502, "provider_error",
                              f"The assistant's provider refused the request (HTTP {error.status_code}).",
                              {"status": error.status_code})
    return bad_answer()


def bad_answer() -> WorkbenchError:
    return WorkbenchError(502, "provider_bad_answer", "The assistant's provider sent an answer that could not be read.")
