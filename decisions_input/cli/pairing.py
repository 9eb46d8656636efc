"""Pairing request files with the response files they received, by name, never by guess.

One request and one response pair whatever their names. Otherwise each response pairs
with the request it is named after: a response's name without its last suffix is the
request's name without its last suffix, or starts with that and a dot. So
``requests/order-7.json`` pairs with ``responses/order-7.json`` or with
``responses/order-7.2024-06-01.json``, and a spec ``ticket.yaml`` with ``ticket.json``;
folders do not matter, so a folder of requests pairs with a folder of the responses a job
saved under the same names.

Every request needs exactly one response and every response exactly one request. A
request without a response, a response without a request, and a name that pairs with two
files are refused together in one message that names them, never paired by order or
left out. Standard input (``-``) has no name: it pairs only as one of a single pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from .common import UsageError, display

__all__ = ["pair_by_name"]

_RULE = (
    "a response pairs with the request it is named after: REQUEST.json or REQUEST.yaml "
    "with REQUEST.json or REQUEST.ANYTHING.json"
)


def _stem(name: str) -> str:
    return PurePath(name).stem


def _keys(response: str) -> list[str]:
    """The request names a response may be named after: its own, and each part before a dot."""
    stem = _stem(response)
    return [stem[:at] for at, char in enumerate(stem) if char == "." and at] + [stem]


def _listed(names: Sequence[str]) -> str:
    return ", ".join(display(n) for n in names)


def _matches(
    requests: Sequence[str], responses: Sequence[str]
) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """For each request the responses named after it, and for each response its requests."""
    by_key: dict[str, list[int]] = {}
    for i, request in enumerate(requests):
        by_key.setdefault(_stem(request), []).append(i)
    answered: dict[int, list[int]] = {i: [] for i in range(len(requests))}
    asked: dict[int, list[int]] = {}
    for j, response in enumerate(responses):
        asked[j] = [i for key in dict.fromkeys(_keys(response)) for i in by_key.get(key, ())]
        for i in asked[j]:
            answered[i].append(j)
    return answered, asked


def _faults(
    requests: Sequence[str],
    responses: Sequence[str],
    answered: dict[int, list[int]],
    asked: dict[int, list[int]],
) -> list[str]:
    """Every reason the names do not pair one to one, in the order the files were given."""
    faults = []
    for i, found in answered.items():
        if not found:
            faults.append(f"no response named after {display(requests[i])}")
        elif len(found) > 1:
            names = _listed([responses[j] for j in found])
            faults.append(f"{display(requests[i])} has {len(found)} responses: {names}")
    for j, found in asked.items():
        if not found:
            faults.append(f"no request for {display(responses[j])}")
        elif len(found) > 1:
            names = _listed([requests[i] for i in found])
            faults.append(f"{display(responses[j])} is named after {len(found)} requests: {names}")
    return faults


def pair_by_name(requests: Sequence[str], responses: Sequence[str]) -> list[tuple[str, str]]:
    """Pair requests with responses, in the order of the requests; refuse what is ambiguous.

    Raises:
        UsageError: the names do not pair one to one; the message names every file at fault.
    """
    if "-" in requests and "-" in responses:
        raise UsageError("standard input ('-') can be named only once")
    if len(requests) == 1 and len(responses) == 1:
        return [(requests[0], responses[0])]
    if "-" in requests or "-" in responses:
        raise UsageError(
            "standard input ('-') has no name to pair by: it pairs only when one request "
            "and one response are given"
        )
    answered, asked = _matches(requests, responses)
    faults = _faults(requests, responses, answered, asked)
    if faults:
        raise UsageError(f"cannot pair requests with responses: {'; '.join(faults)} ({_RULE})")
    return [(request, responses[answered[i][0]]) for i, request in enumerate(requests)]
