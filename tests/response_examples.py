"""Response bodies for the tests: the seeds' examples, with prose of our own.

Keys, option IDs, levels and numbers are the seeds'; prose is our own.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = [
    "GEMINI_BLOCKED",
    "GEMINI_ERRORS",
    "GEMINI_FULL_USAGE",
    "GEMINI_REQUEST",
    "GEMINI_RESPONSE",
    "PARALLEL_ERROR",
    "PARALLEL_REQUEST",
    "PARALLEL_RESPONSE",
    "SIGNALS",
]

# 003 request example "multiple".
GEMINI_REQUEST: dict[str, Any] = {
    "model": "gemini-decision-1",
    "input": [
        {
            "type": "text",
            "text": '{"order": {"id": "8821", "item": "headphones"}, "tier": "Gold"}\n',
        },
        {"type": "text", "text": '{"message": "The left earcup keeps going silent."}'},
    ],
    "questions": {
        "is_defect": {"type": "noul", "instructions": "Is a hardware fault described?"},
        "next_action": {
            "type": "choice",
            "instructions": "Which resolution fits the tier and the order?",
            "criteria": {
                "instant_refund": "Pay back without a return.",
                "replacement_shipment": "Send a new unit; the old one comes back.",
                "troubleshooting_flow": "The customer can probably fix it.",
                "human_escalation": "",
            },
        },
        "churn_risk": {
            "type": "score",
            "instructions": "How likely is the customer to leave without a fix today?",
            "criteria": [
                "No churn signal",
                "Mild frustration",
                "Mentions alternatives",
                "Threatens to cancel",
            ],
        },
    },
}

# 003 response example (HTTP 200).
GEMINI_RESPONSE: dict[str, Any] = {
    "answers": {
        "is_defect": {"type": "noul", "noul": 0.94, "confidence": 0.94},
        "next_action": {
            "type": "choice",
            "choice": "human_escalation",
            "probabilities": {
                "human_escalation": 0.76,
                "replacement_shipment": 0.18,
                "troubleshooting_flow": 0.04,
                "instant_refund": 0.02,
            },
            "confidence": 0.76,
        },
        "churn_risk": {
            "type": "score",
            "score": 2.99,
            "legend": {
                "0": "No churn signal",
                "1": "Mild frustration",
                "2": "Mentions alternatives",
                "3": "Threatens to cancel",
            },
            "probabilities": {"0": 0, "1": 0, "2": 0.01, "3": 0.99},
            "confidence": 0.99,
        },
    },
    "usage": {
        "total_input_tokens": 324,
        "input_tokens_by_modality": [{"modality": "text", "tokens": 324}],
        "total_output_tokens": 0,
        "total_tokens": 324,
    },
}

# 000's full usage, every member filled, adding up for the request above: a text input of
# 324 tokens, 120 of them cached, a search tool's prompt and a few thought tokens on top;
# and an input blocked by the filter.
GEMINI_FULL_USAGE: dict[str, Any] = {
    "total_input_tokens": 324,
    "initial_input_tokens": 324,
    "input_tokens_by_modality": [{"modality": "text", "tokens": 324}],
    "total_cached_tokens": 120,
    "cached_tokens_by_modality": [{"modality": "text", "tokens": 120}],
    "total_output_tokens": 0,
    "output_tokens_by_modality": [],
    "total_tool_use_tokens": 2,
    "tool_use_tokens_by_modality": [{"modality": "text", "tokens": 2}],
    "total_thought_tokens": 5,
    "total_tokens": 331,
    "grounding_tool_count": [{"type": "google_search", "count": 1}],
}
GEMINI_BLOCKED: dict[str, Any] = {
    "answers": {},
    "usage": {"total_input_tokens": 40, "total_output_tokens": 0, "total_tokens": 40},
    "prompt_feedback": {"block_reason": "safety", "block_reason_message": "The input was refused."},
}

# 002 request example.
PARALLEL_REQUEST: dict[str, Any] = {
    "state": {"company": "Clay", "website": "https://www.clay.com"},
    "questions": {"has_cli": {"type": "noul", "instructions": "Is there an official Clay CLI?"}},
}

# 002 live response example; excerpts shortened to one line of our own each.
_PARALLEL_SOURCES = [
    ("https://developers.clay.com/concepts/cli-basics", "CLI basics"),
    ("https://university.clay.com/docs/cli-security-privacy", "CLI security & privacy - Clay Docs"),
    ("https://docs.clayplatform.io/claycli/docs/cli.html", "Claycli \u00b7 Clay CLI"),
    (
        "https://university.clay.com/fr/docs/audiences-for-agents",
        "Audiences for agents and the CLI - Clay Docs",
    ),
    ("https://developers.clay.com/quickstart", "Quickstart - Clay docs"),
    (
        "https://www.clay.com/agent-plugin",
        "Clay CLI: Build on Clay with any coding agent | clay.com",
    ),
    (
        "https://university.clay.com/docs/clay-api-cli?dub_id=DHFbP3TR3TaCG4pm",
        "Installing Clay Plugin (API & CLI) - Clay Docs",
    ),
    ("https://developers.clay.com/", "Overview - Clay docs"),
    (
        "https://university.clay.com/fr/docs/clay-api-cli",
        "Installing Clay Plugin (API & CLI) - Clay Docs",
    ),
    (
        "https://university.clay.com/docs/clay-api-cli",
        "Installing Clay Plugin (API & CLI) - Clay Docs",
    ),
]
PARALLEL_RESPONSE: dict[str, Any] = {
    "mode": "fast",
    "answers": {"has_cli": {"type": "noul", "noul": 0.9992643798509062}},
    "usage": {"input_tokens": 4212, "output_tokens": 0},
    "citations": [
        {"url": url, "title": title, "excerpts": [f"A page about the command line tool ({n})."]}
        for n, (url, title) in enumerate(_PARALLEL_SOURCES)
    ],
    "decision_id": "decisions_34b4be1b1405e19ba5516d9bb76c56ad",
}

# A consistent DataStoreConnectionSignals body (001), written for these tests.
_SNIPPETS = [
    {
        "documentTitle": "Shipping",
        "documentUri": "https://shop.example/help/shipping",
        "text": "Parcels go to 40 countries.",
        "metadata": {"lang": "en", "rank": 1},
    },
    {
        "documentTitle": "Returns",
        "documentUri": "https://shop.example/help/returns",
        "text": "Returning an item costs nothing for 30 days.",
    },
]
SIGNALS: dict[str, Any] = {
    "rewriterModelCallSignals": {
        "renderedPrompt": "Turn into a search query: do you ship abroad?",
        "modelOutput": "international shipping countries",
        "model": "gemini-pro",
    },
    "rewrittenQuery": "international shipping countries",
    "searchSnippets": _SNIPPETS,
    "answerGenerationModelCallSignals": {
        "renderedPrompt": "...",
        "modelOutput": "...",
        "model": "Other",
    },
    "answer": "We ship to 40 countries. Returns are free for 30 days.",
    "answerParts": [
        {"text": "We ship to 40 countries.", "supportingIndices": [0]},
        {"text": "Returns are free for 30 days.", "supportingIndices": [1, 0]},
    ],
    "citedSnippets": [
        {"searchSnippet": copy.deepcopy(_SNIPPETS[1]), "snippetIndex": 1},
        {"searchSnippet": copy.deepcopy(_SNIPPETS[0])},  # index 0 left out, as protobuf JSON does
    ],
    "groundingSignals": {"decision": "ACCEPTED_BY_GROUNDING", "score": "VERY_HIGH"},
    "safetySignals": {
        "decision": "ACCEPTED_BY_SAFETY_CHECK",
        "bannedPhraseMatch": "BANNED_PHRASE_MATCH_NONE",
    },
}

# 003 error examples (both shapes) and 002's, with messages of our own.
GEMINI_ERRORS: list[dict[str, Any]] = [
    {
        "error": {
            "message": "Unknown question type. (request id: 20261112194236591724000xVRbpAJk)",
            "type": "",
            "param": "",
            "code": "invalid_request",
        }
    },
    {
        "error": {
            "allowed_endpoints": ["/v1beta/decisions"],
            "code": "model_endpoint_mismatch",
            "expected_endpoint": "/v1beta/decisions",
            "message": "Wrong endpoint. (request id: 20261112194245600264000oIU8uBcu)",
            "param": None,
            "retryable": False,
            "type": "invalid_request_error",
        }
    },
    {
        "error": {
            "code": "unauthorized",
            "message": "No key given (request id:\n202611121942512304710006r9sjD0r)",
            "param": None,
            "type": "authentication_error",
        }
    },
]
PARALLEL_ERROR: dict[str, Any] = {
    "type": "error",
    "error": {"ref_id": "<reference-id>", "message": "Request validation error."},
}
