"""Properties of the problems the library reports on one JSON input, in all its forms.

- every code is a rule of ``decisions_input.RULES``;
- no problem is a failure of the library itself: never ``internal.error``, and never a
  wrong-type problem at the root of a body that is a JSON object (what a last-resort guard
  says when it turns an internal exception into a problem about something else);
- every path resolves in the input;
- the forms agree: the same verdict and the same error codes where they compare;
- nothing the bundled schema refuses is accepted;
- a request of built values is accepted, and so are the bytes it emits.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

import decisions_input as di
from fuzz.forms import Forms
from fuzz.oracle import Refusal, schema_refusal
from fuzz.probe import Probe
from fuzz.tree import Path, resolve

__all__ = [
    "INTERNAL_CODE",
    "check_emitted",
    "check_problems",
    "compare_forms",
    "check_schema",
    "error_codes",
]

INTERNAL_CODE = "internal.error"

# Bytes that look like UTF-16 or UTF-32 are read in that encoding to tell what else is
# wrong; the same bytes decoded as UTF-8 and given as ``str`` are another text.
_OTHER_ENCODING = "json.encoding"

# The codes a wrong type at the root of a body is reported under.
_ROOT_TYPE_CODES = frozenset({"schema.type", "response.type"})


def error_codes(problems: Sequence[di.Problem]) -> frozenset[str]:
    """The codes of the errors among the problems."""
    return frozenset(p.code for p in problems if p.is_error)


# A request of built values may still be over the budget: that is the request's size, not
# a fault of what was built.
_BUDGET = frozenset({"budget.exceeded", "budget.at_risk"})


def check_emitted(
    probe: Probe, make: Callable[[], di.Request], label: str, limits: di.Limits
) -> None:
    """A request of built values: ``Request`` accepts it (the budget aside), and the bytes it
    emits validate clean when read again."""
    request, raised = probe.call("Request", make)
    if isinstance(raised, di.InvalidInput) and error_codes(raised.problems) <= _BUDGET:
        return
    if request is None:
        codes = (
            ",".join(sorted(error_codes(raised.problems)))
            if isinstance(raised, di.InvalidInput)
            else repr(raised)
        )
        probe.fail(
            "built-block-refused", f"{label}: Request refused it: {codes}", f"{label} {codes}"
        )
        return
    buffer = io.BytesIO()
    probe.call("Request.dump", lambda: request.dump(buffer))
    problems, _ = probe.call(
        "iter_problems(emitted)", lambda: list(di.iter_problems(buffer.getvalue(), limits=limits))
    )
    if problems is not None and error_codes(problems) - _BUDGET:
        codes = ",".join(sorted(error_codes(problems)))
        probe.fail(
            "built-block-refused",
            f"{label}: the emitted request has errors {codes}",
            f"{label} {codes}",
        )


def check_problems(probe: Probe, form: str, problems: Sequence[di.Problem], forms: Forms) -> None:
    """Check each problem of one form: known code, not internal, a path that resolves."""
    for problem in problems:
        if problem.code not in di.RULES:
            probe.fail("unknown-code", f"{form}: {problem}", problem.code)
        if problem.code == INTERNAL_CODE:
            probe.fail("internal-error", f"{form}: {problem.message}", _first_word(problem))
        elif (
            problem.code in _ROOT_TYPE_CODES
            and problem.path == ()
            and forms.parsed
            and isinstance(forms.value, dict)
        ):
            probe.fail(
                "internal-error",
                f"{form}: a JSON object reported as the wrong type at $: {problem.message}",
                _first_word(problem),
            )
        if forms.parsed and not _resolves(form, forms, problem.path):
            probe.fail("path-unresolved", f"{form}: {problem}", problem.code)


def _resolves(form: str, forms: Forms, path: Path) -> bool:
    """A mapping's paths lead into the mapping; a text's into the text, any repeated member."""
    if form != "mapping":
        return forms.in_text(path)
    try:
        resolve(forms.value, path)
    except (LookupError, TypeError):
        return False
    return True


def _first_word(problem: di.Problem) -> str:
    """The part of a message that names the exception, without the varying rest."""
    head = problem.message.split(":")
    return ":".join(head[:2])[:80] if len(head) > 1 else problem.code


def compare_forms(probe: Probe, results: dict[str, Sequence[di.Problem]], forms: Forms) -> None:
    """The forms agree: ``str`` with ``bytes`` always, the mapping when the text is clean.

    Bytes with ``json.encoding`` (they look like UTF-16 or UTF-32) are read in that
    encoding, and the ``str`` of them is another text: only the verdicts compare then.
    """
    pairs = [("bytes", "str")]
    if forms.clean:
        pairs.append(("bytes", "mapping"))
    for left, right in pairs:
        if left not in results or right not in results:
            continue
        ours, theirs = error_codes(results[left]), error_codes(results[right])
        if _OTHER_ENCODING in ours and theirs:
            continue  # both refuse, and only the verdict compares
        if ours != theirs:
            only_left = ",".join(sorted(ours - theirs)) or "-"
            only_right = ",".join(sorted(theirs - ours)) or "-"
            detail = f"errors on {left} only: {only_left}; on {right} only: {only_right}"
            # One defect shows as codes on one side, and whatever else on the other; a reader
            # that stops at a text problem both sides see (json.too_deep) loses whatever
            # came after it, so those codes do not tell one defect from another.
            where = f"{left}/{right}: " + (f"+{only_left}" if ours - theirs else f"-{only_right}")
            shared = sorted(code for code in ours & theirs if code.startswith("json."))
            if shared:
                where = f"{left}/{right}: differ past {','.join(shared)}"
            probe.fail("forms-disagree", detail, where)


def check_schema(
    probe: Probe,
    results: dict[str, Sequence[di.Problem]],
    forms: Forms,
    *,
    kind: str,
    api: str,
) -> None:
    """Whatever the bundled schema refuses, every form refuses too.

    Responses follow the library's policy that APIs add values: a value outside a response
    enum (or a const) is the warning ``response.enum`` at its path, not an error. A refusal
    of that kind is passed over where the library gives that warning; any other refusal of
    the schema must be an error of the library.
    """
    if not forms.parsed:
        return
    for form, problems in results.items():
        refusal = schema_refusal(
            forms.value, kind=kind, target=api, excused=_warned(problems, kind)
        )
        if refusal is not None and not error_codes(problems):
            probe.fail(
                "schema-refused",
                f"{form}: the schema refuses {refusal.message}; the library finds no error",
                f"{kind}/{api} {refusal.where}",
            )


def _warned(problems: Sequence[di.Problem], kind: str) -> Callable[[Refusal], bool] | None:
    """For a response body: an enum or const refusal the library answers with its warning."""
    if kind == "request":
        return None
    warned = {p.path for p in problems if p.code == "response.enum" and not p.is_error}
    return lambda r: r.keyword in ("enum", "const") and r.path in warned
