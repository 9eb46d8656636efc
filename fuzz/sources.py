"""Where each target's inputs come from: a hypothesis strategy, a byte mutator, or both.

The strategies of :mod:`fuzz.bodies`, :mod:`fuzz.replies` and :mod:`fuzz.calls` are joined
by those the suite's property tests use (``tests/strategies.py``).

:func:`hypothesis_source` gives a strategy and the function that turns what it draws into
a :class:`~fuzz.cases.Case`; :func:`mutation_source` gives a function that returns the next
mutated case, every choice drawn from the ``random.Random`` it is given.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import strategies as st

from fuzz.calls import builder_calls, encode_call
from fuzz.cases import Case
from fuzz.check_cli import FORMATS
from fuzz.corpus import json_examples, media_files, request_texts, spec_files
from fuzz.forms import text_of
from fuzz.mutate import JSON_TOKENS, MEDIA_TOKENS, Mutator
from tests import strategies as shared

__all__ = ["hypothesis_source", "mutation_source"]

# Media given to ``sniff`` on the command line are kept small: the command is slower.
_CLI_MEDIA_BYTES = 65_536


def _request_case(drawn: tuple[str, bytes]) -> Case:
    api, data = drawn
    return Case("requests", data, api)


def _reply_case(drawn: tuple[str, str, Any, Any]) -> Case:
    kind, api, body, request = drawn
    return Case(
        "responses", text_of(body), api, kind, None if request is None else text_of(request)
    )


def hypothesis_source(target: str) -> tuple[st.SearchStrategy[Any], Callable[[Any], Case]] | None:
    """The strategy of a target and how a drawn value becomes a case, or None."""
    if target == "requests":
        from fuzz.bodies import TARGETS, request_bodies

        # The suite's JSON texts with hazards (repeated names, NaN, lone surrogate escapes)
        # go with the generated bodies.
        hazards = st.tuples(
            st.sampled_from(TARGETS), shared.json_texts_with_hazards.map(str.encode)
        )
        generated = request_bodies().map(lambda pair: (pair[0], text_of(pair[1])))
        return st.one_of(generated, hazards), _request_case
    if target == "responses":
        from fuzz.replies import reply_cases

        return st.one_of(reply_cases(), _shared_replies()), _reply_case
    if target == "builders":
        return builder_calls(), lambda call: Case("builders", encode_call(call), kind=call.name)
    return None


def _shared_replies() -> st.SearchStrategy[tuple[str, str, Any, Any]]:
    """The suite's loosely shaped replies: any member, plausible or arbitrary values."""
    apis = st.sampled_from(("gemini", "parallel"))
    return st.one_of(
        st.tuples(st.just("response"), apis, shared.response_bodies, shared.response_requests),
        st.tuples(st.just("error"), apis, shared.error_bodies, st.none()),
        st.tuples(st.just("signals"), st.just("gemini"), shared.signals_bodies, st.none()),
    )


def _seeds(target: str, extra: Sequence[Case]) -> list[Case]:
    """The cases a target's mutator starts from (builder calls are not bytes to mutate)."""
    if target == "builders":
        return []
    found = [case for case in extra if case.target == target]
    if target == "requests":
        found += [Case("requests", data, api) for api, data in request_texts()]
    elif target == "responses":
        found += [
            Case("responses", json.dumps(value).encode(), api, kind)
            for api, kind, value in json_examples()
            if kind != "request"
        ]
    elif target == "media":
        found += [Case("media", path.read_bytes()) for path in media_files()]
    elif target == "cli":
        found += _cli_seeds()
    return found


def _cli_seeds() -> list[Case]:
    found = []
    for api, data in request_texts():
        found += [
            Case("cli", data, api, f"{command}.") for command in ("validate", "stdin", "estimate")
        ]
    requests = dict(reversed(request_texts()))  # the first request of each target
    for api, kind, value in json_examples():
        if kind == "response":
            body = json.dumps(value).encode()
            found.append(Case("cli", body, api, "checkresponse."))
            found.append(Case("cli", body, api, "checkresponse.", requests.get(api)))
    found += [Case("cli", path.read_bytes(), "gemini", "build.") for path in spec_files()]
    found += [
        Case("cli", path.read_bytes(), "gemini", "sniff.")
        for path in media_files()
        if path.stat().st_size <= _CLI_MEDIA_BYTES
    ]
    return found


def mutation_source(
    target: str, rng: random.Random, extra: Sequence[Case] = ()
) -> Callable[[], Case] | None:
    """A function returning the target's next mutated case, or None when it has no corpus."""
    seeds = _seeds(target, extra)
    if not seeds:
        return None
    tokens = MEDIA_TOKENS if target == "media" else JSON_TOKENS
    mutator = Mutator(rng.randrange(2**32), [case.data for case in seeds], tokens)

    def next_case() -> Case:
        seed = mutator.random.choice(seeds)
        case = Case(seed.target, mutator.mutate(seed.data), seed.api, seed.kind, seed.request)
        if target == "cli":
            command = case.kind.split(".", 1)[0]
            fmt = mutator.random.choice(FORMATS[command])
            api = mutator.random.choice(("gemini", "parallel"))
            return Case("cli", case.data, api, f"{command}.{fmt}", case.request)
        return case

    return next_case
