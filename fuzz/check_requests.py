"""Properties of request bodies, checked through ``iter_problems``, ``is_valid``, ``check``,
``estimate`` and ``Request``.

For each form of the body (bytes, ``str``, mapping): only the library's own exceptions,
the problem properties of :mod:`fuzz.verdicts`, and the forms agreeing; then, on the bytes,
``is_valid`` and ``check`` agree with ``iter_problems``; a body without errors can be
estimated; and a valid mapping builds a ``Request`` (and an invalid one does not) whose
canonical text is valid again.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Sequence
from typing import Any

import decisions_input as di
from fuzz.bounds import json_cpu_seconds
from fuzz.forms import Forms, forms_of
from fuzz.probe import Failure, Probe
from fuzz.verdicts import check_problems, check_schema, compare_forms, error_codes

__all__ = ["check_request"]

# The members ``Request`` takes as keyword arguments (``None`` stands for "absent" there).
_REQUEST_ARGUMENTS = frozenset({"model", "input", "state", "mode", "include_excerpts", "questions"})


def check_request(data: bytes, api: str) -> list[Failure]:
    """Check one request body, given as its bytes, against the target ``api``."""
    probe = Probe()
    forms = forms_of(data)
    results: dict[str, Sequence[di.Problem]] = {}
    for form, body in forms.items():
        problems, _ = probe.call(f"iter_problems({form})", functools.partial(_problems, body, api))
        if problems is not None:
            results[form] = problems
            check_problems(probe, form, problems, forms)
            _check_estimate(probe, form, body, api, problems)
    compare_forms(probe, results, forms)
    check_schema(probe, results, forms, kind="request", api=api)
    if "bytes" in results:
        _check_lazy(probe, data, api, results["bytes"])
    if "mapping" in results:
        _check_builder(probe, forms, api, results["mapping"])
    probe.check_time(json_cpu_seconds(len(data)), "request")
    return probe.failures


def _problems(body: Any, api: str) -> list[di.Problem]:
    return list(di.iter_problems(body, target=api))


def _check_lazy(probe: Probe, data: bytes, api: str, problems: Sequence[di.Problem]) -> None:
    """``is_valid`` and ``check`` give the verdict ``iter_problems`` gives."""
    invalid = bool(error_codes(problems))
    valid, _ = probe.call("is_valid", lambda: di.is_valid(data, target=api))
    if valid is not None and valid == invalid:
        probe.fail("lazy-disagrees", f"is_valid says {valid}, iter_problems {not invalid}")
    _, raised = probe.call("check", lambda: di.check(data, target=api))
    if (raised is not None) != invalid:
        probe.fail("lazy-disagrees", f"check raised {raised!r}; iter_problems invalid={invalid}")


def _check_estimate(
    probe: Probe, form: str, body: Any, api: str, problems: Sequence[di.Problem]
) -> None:
    """A body without errors can be estimated; any body gives only the library's errors."""
    _, raised = probe.call(f"estimate({form})", lambda: di.estimate(body, target=api))
    if raised is not None and not error_codes(problems):
        probe.fail("estimate-refuses-valid", f"{form}: {raised}", type(raised).__name__)


def _builder_arguments(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict) or not set(value) <= _REQUEST_ARGUMENTS:
        return None
    if "questions" not in value or any(v is None for v in value.values()):
        return None
    return value


def _check_builder(probe: Probe, forms: Forms, api: str, problems: Sequence[di.Problem]) -> None:
    """``Request`` builds exactly the valid bodies, and emits text that is valid again."""
    arguments = _builder_arguments(forms.value)
    if arguments is None:
        return
    invalid = bool(error_codes(problems))
    request, raised = probe.call("Request", lambda: di.Request(target=api, **arguments))
    if raised is not None and not invalid:
        probe.fail("request-disagrees", f"Request refused a valid body: {raised}", "refused")
    if request is None:
        return
    if invalid:
        codes = ",".join(sorted(error_codes(problems)))
        probe.fail("request-disagrees", f"Request built a body with errors {codes}", codes)
        return
    buffer = io.BytesIO()
    probe.call("Request.dump", lambda: request.dump(buffer))
    emitted = buffer.getvalue()
    again, _ = probe.call(
        "iter_problems(emitted)", lambda: list(di.iter_problems(emitted, target=api))
    )
    if again is not None and error_codes(again):
        codes = ",".join(sorted(error_codes(again)))
        probe.fail("request-disagrees", f"the emitted text has errors {codes}", f"emitted {codes}")
    _check_canonical(probe, emitted)


def _check_canonical(probe: Probe, emitted: bytes) -> None:
    try:
        value = json.loads(emitted)
    except ValueError as exc:
        probe.fail("request-disagrees", f"the emitted text is not JSON: {exc}", "not JSON")
        return
    again, _ = probe.call("canonical_dumps", lambda: di.canonical_dumps(value))
    if again is not None and again.encode("utf-8", "surrogatepass") != emitted:
        probe.fail("request-disagrees", "canonical text is not canonical again", "canonical")
