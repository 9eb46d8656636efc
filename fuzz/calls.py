"""Calls of the public builders with hostile arguments, and how a call is stored as JSON.

A call is ``{"call": name, "args": [...], "kwargs": {...}}``. Arguments that JSON cannot
hold are tagged objects with one member: ``{"$bytes": base64}``, ``{"$tuple": [...]}``,
``{"$set": [...]}``, ``{"$intkeys": [[1, v], ...]}`` (a mapping with integer keys),
``{"$TextBlock": value}`` (a text block made without its builder's checks) and
``{"$limits": "gemini"}`` (a limits table).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

import decisions_input as di
from fuzz.corpus import media_files
from fuzz.values import hostile_values, odd_strings, wrong_types

__all__ = ["BUILDERS", "Call", "builder_calls", "decode_call", "encode_call"]

BUILDERS = ("text", "noul", "choice", "score", "image", "audio", "video", "document", "media")
_MEDIA = BUILDERS[4:]


@dataclass(frozen=True)
class Call:
    """One builder call: the builder's name, and its arguments as stored (tagged JSON)."""

    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def encode_call(call: Call) -> bytes:
    """The call as JSON text (lone surrogates written as escapes)."""
    document = {"call": call.name, "args": list(call.args), "kwargs": call.kwargs}
    return json.dumps(document, sort_keys=True).encode("ascii")


def decode_call(data: bytes) -> Call:
    """Read a call stored by :func:`encode_call`; raise ``ValueError`` if it is not one."""
    document = json.loads(data)
    if not isinstance(document, dict) or document.get("call") not in BUILDERS:
        raise ValueError(f"expected a builder call naming one of {', '.join(BUILDERS)}")
    return Call(document["call"], tuple(document.get("args", ())), document.get("kwargs", {}))


def untag(value: Any) -> Any:
    """Turn stored arguments into the Python values the builder is called with."""
    if isinstance(value, list):
        return [untag(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((tag, inner),) = value.items()
        if tag == "$bytes":
            return base64.b64decode(inner)
        if tag == "$tuple":
            return tuple(untag(v) for v in inner)
        if tag == "$set":
            return frozenset(v for v in inner if isinstance(v, (str, int, float, bool)))
        if tag == "$intkeys":
            return {int(k): untag(v) for k, v in inner}
        if tag == "$TextBlock":
            return di.TextBlock(untag(inner))
        if tag == "$limits":
            return di.PARALLEL if inner == "parallel" else di.GEMINI
    return {k: untag(v) for k, v in value.items()}


def _text_blocks() -> st.SearchStrategy[Any]:
    return st.builds(lambda v: {"$TextBlock": v}, st.one_of(st.text(max_size=6), wrong_types()))


def _instructions() -> st.SearchStrategy[Any]:
    block = _text_blocks()
    return st.one_of(
        st.text(min_size=1, max_size=10),
        odd_strings(),
        block,
        st.lists(block, max_size=3),
        st.lists(block, max_size=3).map(lambda items: {"$tuple": items}),
        hostile_values(),
    )


def _options() -> st.SearchStrategy[Any]:
    ids = st.one_of(st.text(max_size=6), odd_strings())
    return st.one_of(
        st.dictionaries(ids, st.one_of(st.text(max_size=6), wrong_types()), max_size=5),
        st.lists(st.one_of(ids, wrong_types()), max_size=5),
        st.lists(ids, max_size=5).map(lambda items: {"$tuple": items}),
        st.lists(ids, max_size=5).map(lambda items: {"$set": items}),
        st.lists(st.tuples(st.integers(-2, 2), st.text(max_size=3)), max_size=3).map(
            lambda pairs: {"$intkeys": pairs}
        ),
        hostile_values(),
    )


def _limits() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {}, optional={"limits": st.sampled_from([{"$limits": "gemini"}, {"$limits": "parallel"}])}
    )


def _question_call(name: str) -> st.SearchStrategy[Call]:
    if name == "text":
        return st.builds(lambda v, kw: Call(name, (v,), kw), hostile_values(), _limits())
    if name == "noul":
        described = st.fixed_dictionaries(
            {},
            optional={"true_description": hostile_values(), "false_description": hostile_values()},
        )
        return st.builds(
            lambda i, d, kw: Call(name, (i,), d | kw), _instructions(), described, _limits()
        )
    second = (
        _options()
        if name == "choice"
        else st.one_of(st.lists(st.text(max_size=5), max_size=5), _options())
    )
    return st.builds(lambda i, o, kw: Call(name, (i, o), kw), _instructions(), second, _limits())


def _small_media() -> st.SearchStrategy[Any]:
    def fixtures() -> st.SearchStrategy[bytes]:
        small = [p.read_bytes() for p in media_files() if p.stat().st_size <= 4096]
        return st.sampled_from(small) if small else st.binary(max_size=64)

    return st.one_of(st.deferred(fixtures), st.binary(max_size=64)).map(
        lambda data: {"$bytes": base64.b64encode(data).decode("ascii")}
    )


def _media_call(name: str) -> st.SearchStrategy[Call]:
    mime_types = [m for types in di.GEMINI.MIME_TYPES.values() for m in types]
    optional: dict[str, st.SearchStrategy[Any]] = {
        "uri": st.one_of(odd_strings(), st.just("https://example.com/a.bin"), wrong_types()),
        "mime_type": st.one_of(st.sampled_from(mime_types), odd_strings(), wrong_types()),
        "verify": st.just(False),
    }
    if name in ("image", "video", "media"):
        optional["resolution"] = st.one_of(
            st.sampled_from(["low", "high", "ultra_high"]), wrong_types()
        )
    kwargs = st.fixed_dictionaries({}, optional=optional)
    source = st.one_of(st.just(None), _small_media(), wrong_types())
    return st.builds(
        lambda src, kw, lim: Call(name, (src,) if src is not None else (), kw | lim),
        source,
        kwargs,
        _limits(),
    )


def builder_calls() -> st.SearchStrategy[Call]:
    """A call of any public builder, with hostile and plausible arguments mixed."""
    return st.sampled_from(BUILDERS).flatmap(
        lambda name: _media_call(name) if name in _MEDIA else _question_call(name)
    )
