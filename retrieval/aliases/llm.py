"""`LLMAliasExtractor`: the question's 1 to 4 proper nouns and their aliases, from an OpenAI-compatible chat model.

Stage 1 of the graph retriever calls it beside the deterministic extractor when an LLM is configured:
`AliasStage(llm_aliases=LLMAliasExtractor(settings))` (it is callable as `question -> list[Mention]`).

Never raises on model behaviour: malformed or off-shape JSON, an unreachable LLM after retries, or an API error give
an empty result. Successful results (even empty ones) are cached in memory (LRU), keyed by the normalised question,
the model and the prompt version; failures are not cached, so a transient outage is retried on the next question.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any

import openai
from pydantic import BaseModel, Field

from graphwire.core.clients.llm import ChatOptions, LLMClient, parse_json_lenient
from graphwire.core.clients.llm_retry import RetriesExhausted
from graphwire.core.clients.llm_usage import UsageCounter
from graphwire.core.settings import Settings
from graphwire.retrieval.graph.models import Mention, MentionOrigin
from graphwire.retrieval.prompts import ALIAS_PROMPT, alias_messages

log = logging.getLogger(__name__)
MAX_ENTITIES = 4
MAX_ALIASES = 4
MAX_NAME_CHARS = 120
JSON_MODE = {"type": "json_object"}
ALIAS_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "aliases",
        "strict": False,
        "schema": {
            "type": "object",
            "properties": {
                "entities": {
                    "type": "array",
                    "maxItems": MAX_ENTITIES,
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "aliases": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_ALIASES},
                        },
                        "required": ["name", "aliases"],
                    },
                }
            },
            "required": ["entities"],
        },
    },
}


class ProposedEntity(BaseModel):
    name: str
    aliases: list[str] = Field(default_factory=list)


class LLMAliasExtractor:
    def __init__(self, settings: Settings, client: LLMClient | None = None, cache_size: int = 4096) -> None:
        self.client = client or LLMClient(settings)
        # the reply's shape as a bounded JSON schema where the server takes one (a small model repeats an alias
        # until the cap otherwise), else JSON mode; and a cap that fits 4 names with 4 aliases each
        structured = settings.llm_extraction_mode == "json_schema"
        self.options = ChatOptions(response_format=ALIAS_FORMAT if structured else JSON_MODE, max_tokens=192)
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str, str], list[ProposedEntity]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def usage(self) -> UsageCounter:
        return self.client.usage

    def extract(self, question: str) -> list[ProposedEntity]:
        key = (" ".join(question.split()), self.client.model, ALIAS_PROMPT.id)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return list(self._cache[key])
        try:
            reply = self.client.chat(alias_messages(key[0]), options=self.options)
        except (RetriesExhausted, openai.APIError) as exc:
            log.warning("LLM alias extraction failed, continuing without it: %s", exc)
            return []
        entities = parse_entities(reply.text)
        with self._lock:
            self._cache[key] = entities
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return list(entities)

    def __call__(self, question: str) -> list[Mention]:
        return [Mention(text=e.name, origin=MentionOrigin.LLM, aliases=e.aliases) for e in self.extract(question)]


def parse_entities(text: str) -> list[ProposedEntity]:
    """`{"entities": [{"name", "aliases"}]}` (or a bare list of those) -> at most 4 clean entities; else []."""
    payload = parse_json_lenient(text)
    items: Any = payload.get("entities", []) if isinstance(payload, dict) else payload
    if not isinstance(items, list):
        return []
    entities: dict[str, ProposedEntity] = {}
    for item in items:
        name = _clean(item.get("name") if isinstance(item, dict) else item)
        if not name or name.lower() in entities:
            continue
        raw_aliases = item.get("aliases") if isinstance(item, dict) else None
        aliases = [
            a for a in dict.fromkeys(_clean(a) for a in _as_list(raw_aliases)) if a and a.lower() != name.lower()
        ]
        entities[name.lower()] = ProposedEntity(name=name, aliases=aliases[:MAX_ALIASES])
        if len(entities) == MAX_ENTITIES:
            break
    return list(entities.values())


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, str):
        return [value]
    return value if isinstance(value, list) else []


def _clean(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    text = " ".join(value.split()).strip(" \"'")
    return text if 0 < len(text) <= MAX_NAME_CHARS else ""
