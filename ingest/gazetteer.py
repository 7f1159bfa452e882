"""Names the offline extractor should recognise before spaCy's NER guesses: outlets, legal charges, awards.

Publications come from the corpus's `source` values (plus a built-in list of common outlets); a short form such as
"The Independent" for "The Independent - Life and Style" is an alias only when exactly one source has it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from ingest.normalize import normalise_name

COMMON_OUTLETS = (
    "Reuters", "Bloomberg", "Associated Press", "The Wall Street Journal", "The New York Times", "The Washington Post",
    "Financial Times", "The Guardian", "BBC News", "CNN", "CNBC", "Fox News", "NBC News", "ABC News", "CBS News",
    "TechCrunch", "The Verge", "Wired", "Engadget", "Axios", "Politico", "The Information", "Fortune", "Forbes",
    "Business Insider", "The Atlantic", "The Economist", "Bloomberg News", "Variety", "The Hollywood Reporter",
    "Sky Sports", "ESPN", "The Athletic", "Sporting News", "Polygon", "Mashable", "Ars Technica", "Gizmodo",
)  # fmt: skip
# Names spaCy's small model often mistypes ("Uber" as a person, "Binance" as a place); the ruler fixes their label.
WELL_KNOWN_ORGANIZATIONS = (
    "Amazon", "Apple", "Google", "Alphabet", "Microsoft", "Meta", "Facebook", "OpenAI", "Anthropic", "Uber", "Lyft",
    "Twitter", "Tesla", "SpaceX", "Netflix", "Nvidia", "Intel", "AMD", "Qualcomm", "Samsung", "Sony", "Disney",
    "Binance", "FTX", "Coinbase", "Alameda Research", "Mozilla", "TikTok", "ByteDance", "IBM", "Oracle", "Salesforce",
    "Spotify", "Airbnb", "Reddit", "Discord", "Epic Games", "Nintendo", "Activision Blizzard",
    "Electronic Arts", "Ubisoft", "Walmart", "Costco", "JPMorgan", "Goldman Sachs", "Morgan Stanley",
    "BlackRock", "Sequoia Capital", "Andreessen Horowitz", "SoftBank", "Y Combinator", "Federal Reserve",
    "Federal Trade Commission", "Securities and Exchange Commission", "Department of Justice", "European Commission",
    "NFL", "NBA", "MLB", "NHL", "FIFA", "UEFA", "Premier League", "Flexport", "Stripe", "Shopify", 
    "Adobe", "Dell", "HP", "Lenovo", "Huawei", "Xiaomi", "Alibaba", "Tencent", "Baidu", "DeepMind", "Hugging Face",
)  # fmt: skip
WELL_KNOWN_PRODUCTS = (
    "iPhone", "iPad", "MacBook", "Apple Watch", "AirPods", "Vision Pro", "ChatGPT", "GPT-4", "Gemini", "Bard",
    "Copilot", "Threads", "Instagram", "WhatsApp", "YouTube", "Gmail", "Android", "iOS", "Windows", "Xbox",
    "PlayStation", "PlayStation 5", "Nintendo Switch", "Pixel 8", "Alexa", "Siri", "Kindle",
)  # fmt: skip
OUTLET_ALIASES = {"The Wall Street Journal": ["WSJ"], "Associated Press": ["AP"], "The New York Times": ["NYT"]}
# Longer phrases win over shorter ones in the entity ruler, so "conspiracy to commit wire fraud" beats "wire fraud".
LEGAL_CHARGES = (
    "wire fraud", "securities fraud", "commodities fraud", "bank fraud", "mail fraud", "tax fraud", "fraud",
    "conspiracy to commit wire fraud", "conspiracy to commit securities fraud",
    "conspiracy to commit commodities fraud", "conspiracy to commit bank fraud",
    "conspiracy to commit money laundering", "conspiracy to defraud the United States",
    "conspiracy to violate campaign finance laws", "campaign finance violations", "money laundering", "tax evasion",
    "insider trading", "bribery", "embezzlement", "murder", "manslaughter", "perjury", "obstruction of justice",
    "sexual assault", "assault", "racketeering", "extortion", "antitrust violations", "securities violations",
    "market manipulation", "price fixing", "drunk driving", "identity theft", "theft", "tax crimes",
)  # fmt: skip
AWARD_NAMES = (
    "Ballon d'Or", "Oscar", "Oscars", "Emmy", "Emmys", "Grammy", "Grammys", "Golden Globe", "Golden Globes",
    "Golden Boot", "Golden Ball", "Pulitzer", "Tony Award", "BAFTA", "Heisman Trophy", "Cy Young Award",
)  # fmt: skip
AWARD_HEADS = ("award", "awards", "prize", "trophy", "medal")
_SOURCE_SPLIT = re.compile(r"\s+[-|:]\s+")


class Publication(BaseModel):
    name: str
    aliases: list[str] = Field(default_factory=list)


class KnownEntity(BaseModel):
    """A name the corpus owner knows, with its label and aliases (from a gazetteer YAML file)."""

    name: str
    label: str
    aliases: list[str] = Field(default_factory=list)


class Gazetteer(BaseModel):
    publications: list[Publication] = Field(default_factory=list)
    known: list[KnownEntity] = Field(default_factory=list)
    legal_charges: list[str] = Field(default_factory=lambda: list(LEGAL_CHARGES))
    awards: list[str] = Field(default_factory=lambda: list(AWARD_NAMES))

    @classmethod
    def from_sources(cls, sources: Iterable[str | None], include_common: bool = True) -> Gazetteer:
        names = [s for s in dict.fromkeys(sources) if s]
        if include_common:
            taken = {normalise_name(n, "Publication") for n in names}
            names += [n for n in COMMON_OUTLETS if normalise_name(n, "Publication") not in taken]
        known = []
        if include_common:
            known = [KnownEntity(name=n, label="Organization") for n in WELL_KNOWN_ORGANIZATIONS]
            known += [KnownEntity(name=n, label="Product") for n in WELL_KNOWN_PRODUCTS]
        return cls(publications=_with_short_forms(names), known=known)

    def with_file(self, path: Path) -> Gazetteer:
        """Add the entities of a gazetteer YAML file: `Label: [name, {name: X, aliases: [..]}, ...]`."""
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(raw, dict):
            raise ValueError(f"{path}: expected a mapping of label -> list of names")
        known = list(self.known)
        for label, items in raw.items():
            for item in items or []:
                entry = {"name": item} if isinstance(item, str) else dict(item)
                known.append(KnownEntity(label=str(label), **entry))
        publications = self.publications + [
            Publication(name=k.name, aliases=k.aliases) for k in known if k.label == "Publication"
        ]
        return self.model_copy(
            update={"known": [k for k in known if k.label != "Publication"], "publications": publications}
        )

    def publication_aliases(self) -> dict[str, str]:
        """Normalised alias -> canonical publication name (only unambiguous aliases)."""
        table: dict[str, str] = {}
        for pub in self.publications:
            for alias in [pub.name, *pub.aliases]:
                table.setdefault(normalise_name(alias, "Publication"), pub.name)
        return table

    def ruler_patterns(self) -> list[dict[str, Any]]:
        """spaCy entity_ruler patterns; the `id` carries the canonical name."""
        patterns: list[dict[str, Any]] = []
        for pub in self.publications:
            for alias in dict.fromkeys([pub.name, *pub.aliases]):
                patterns.append({"label": "Publication", "pattern": alias, "id": pub.name})
        for entity in self.known:
            for alias in dict.fromkeys([entity.name, *entity.aliases]):
                patterns.append({"label": entity.label, "pattern": alias, "id": entity.name})
        for charge in self.legal_charges:
            tokens = [{"LOWER": t} for t in re.findall(r"\w+|[^\w\s]", charge.lower())]
            patterns.append({"label": "LegalCharge", "pattern": tokens, "id": charge})
        for award in self.awards:
            patterns.append({"label": "Award", "pattern": award, "id": award})
            patterns.append({"label": "Award", "pattern": award.replace("'", "\u2019"), "id": award})
        patterns.append(
            {"label": "Award", "pattern": [{"IS_TITLE": True, "OP": "+"}, {"LOWER": {"IN": list(AWARD_HEADS)}}]}
        )
        return patterns


def _with_short_forms(names: list[str]) -> list[Publication]:
    """Give each source its short form ("FOX News - Health" -> "FOX News") when no other source shares it."""
    short_owner: dict[str, list[str]] = defaultdict(list)
    for name in names:
        short = _SOURCE_SPLIT.split(name)[0].strip()
        if short != name and len(short) > 2:
            short_owner[short].append(name)
    pubs = []
    for name in names:
        aliases = [s for s, owners in short_owner.items() if owners == [name]] + OUTLET_ALIASES.get(name, [])
        pubs.append(Publication(name=name, aliases=aliases))
    return pubs
