# ruff: noqa: E501  (a table of regexes: one pattern per line reads better than wrapped fragments)
"""Relation patterns for the offline extractor: what the text between two entities of one sentence must say.

Each pattern is a full match over the text between the first and the second entity (other entities in between are
replaced by `ENT`), so a relation is only emitted when the sentence states it plainly: precision over recall.
`reverse=True` means the second entity is the subject ("Lumen Labs CEO Ada Park": Ada Park CEO_OF Lumen Labs).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

ENT = "\x00"  # stands in for an entity between the pair
_E = "\x00"
PER = frozenset({"Person"})
ORG = frozenset({"Organization"})
ORG_PUB = frozenset({"Organization", "Publication"})
PER_ORG = frozenset({"Person", "Organization"})
PRODUCT = frozenset({"Product"})
WORK = frozenset({"Product", "CreativeWork"})
EVENT = frozenset({"Event"})
LOC = frozenset({"Location"})
ORG_EVENT_LOC = frozenset({"Organization", "Event", "Location"})
CHARGE = frozenset({"LegalCharge"})
AWARD = frozenset({"Award"})
ANY_RECEIVER = frozenset({"Person", "Organization", "Product", "CreativeWork"})
SAME_KIND = frozenset({"Person", "Organization", "Product"})
COERCIBLE = frozenset({"Location", "Product", "Person", "CreativeWork"})  # NER's usual mistakes for companies

_MOD = r"(?:(?:the|its|their|his|her|a|an)\s+)?(?:(?:former|then-?|current|new|newly appointed|interim|ousted|longtime|outgoing|incoming|acting|founder and|co-?founder and)\s+)*"
_CEO = r"(?:ceo|chief executive(?:\s+officer)?)"
_ROLE = (
    r"(?:president|vice[- ]president|vp|chairman|chairwoman|chair|chief\s+\w+\s+officer|cto|cfo|coo|cmo|cio|"
    r"head\s+of\s+\w+|director|managing\s+director|executive|senior\s+executive|engineer|software\s+engineer|"
    r"researcher|scientist|spokesperson|spokesman|spokeswoman|reporter|editor|correspondent|analyst|economist|"
    r"general\s+partner|partner|board\s+member|member\s+of\s+the\s+board|director\s+on\s+the\s+board|"
    r"general\s+counsel|head\s+coach|coach|boss|head|manager|player|striker|forward|midfielder|defender|goalkeeper|"
    r"quarterback|pitcher|guard|winger|captain|employee|staffer|designer|developer|producer)"
)
_THE = r"(?:the\s+)?"
_AUX = r"(?:(?:has|had|have|is|was|were|also|reportedly)\s+)*"
_LIST = rf"(?:{_E}(?:,\s*|,?\s+and\s+|,?\s+or\s+))*"
_REGULATOR_WORDS = re.compile(
    r"\b(commission|authority|agency|department|ministry|regulator|regulators|court|fda|sec|ftc|fcc|doj|cma|fca|"
    r"cftc|ofcom|reserve|government|congress|senate|parliament|council|bureau|office|administration|eu|"
    r"european union|justice)\b",
    re.IGNORECASE,
)


def is_regulator(name: str) -> bool:
    return bool(_REGULATOR_WORDS.search(name))


@dataclass(frozen=True)
class RelationPattern:
    name: str
    type: str
    subject_labels: frozenset[str]
    object_labels: frozenset[str]
    between: re.Pattern[str]
    reverse: bool = False
    after_not: re.Pattern[str] | None = None  # the text after the second entity must not start like this
    after_must: re.Pattern[str] | None = None  # ... or must start like this ("X, the former Y executive")
    subject_check: Callable[[str], bool] | None = None
    # "the CEO of Alameda" says Alameda is an organisation even when NER typed it as a place: retype the object.
    coerce_object: str | None = None

    def applies(self, first_label: str, second_label: str) -> bool:
        subj, obj = (second_label, first_label) if self.reverse else (first_label, second_label)
        return subj in self.subject_labels and (obj in self.object_labels or self.coerces(obj))

    def coerces(self, label: str) -> bool:
        return self.coerce_object is not None and label in COERCIBLE and label not in self.object_labels


def _p(
    name: str,
    rel: str,
    subj: frozenset[str],
    obj: frozenset[str],
    regex: str,
    *,
    reverse: bool = False,
    case_sensitive: bool = False,
    after_not: str | None = None,
    after_must: str | None = None,
    subject_check: Callable[[str], bool] | None = None,
    coerce_object: str | None = None,
) -> RelationPattern:
    flags = 0 if case_sensitive else re.IGNORECASE
    return RelationPattern(
        name=name,
        type=rel,
        subject_labels=subj,
        object_labels=obj,
        between=re.compile(regex, flags),
        reverse=reverse,
        after_not=re.compile(after_not) if after_not else None,
        after_must=re.compile(after_must, flags) if after_must else None,
        subject_check=subject_check,
        coerce_object=coerce_object,
    )


PATTERNS: tuple[RelationPattern, ...] = (
    # CEO_OF
    _p("ceo_apposition", "CEO_OF", PER, ORG_PUB, rf"(?:,?\s+(?:who\s+is\s+|who\s+was\s+|is\s+|was\s+|as\s+|became\s+)?|'s\s+tenure\s+as\s+){_MOD}{_CEO}\s+(?:of|at)\s+{_THE}", coerce_object="Organization"),
    _p("org_ceo_name", "CEO_OF", PER, ORG_PUB, rf"(?:'s)?\s+{_MOD}{_CEO},?\s+", reverse=True),
    _p("named_ceo", "CEO_OF", PER, ORG_PUB, rf"\s+(?:was\s+|has\s+been\s+|is\s+)?(?:named|appointed|hired\s+as)\s+(?:the\s+)?(?:new\s+|interim\s+)?{_CEO}\s+(?:of|at)\s+{_THE}"),
    # WORKS_FOR
    _p("role_apposition", "WORKS_FOR", PER, ORG_PUB, rf",?\s+(?:who\s+is\s+|who\s+was\s+|is\s+|was\s+|as\s+)?{_MOD}(?:[a-z]+\s+)?{_ROLE}\s+(?:of|at|for|with)\s+{_THE}", coerce_object="Organization"),
    _p("former_org_role", "WORKS_FOR", PER, ORG_PUB, r",\s+(?:the|a|an)\s+(?:former\s+|longtime\s+|veteran\s+|senior\s+)?", after_must=rf"^\s+{_ROLE}\b"),
    _p("org_role_name", "WORKS_FOR", PER, ORG_PUB, rf"(?:'s)?\s+{_MOD}(?-i:[a-z]+\s+)?{_ROLE},?\s+", reverse=True),
    _p("works_for", "WORKS_FOR", PER, ORG_PUB, rf",?\s+(?:who\s+)?{_AUX}(?:works|worked|working|plays|played|playing|signed|joined|rejoined|re-signed)\s+(?:for\s+|at\s+|with\s+)?{_THE}"),
    # FOUNDED
    _p("founded", "FOUNDED", PER_ORG, frozenset({"Organization", "Publication", "Product"}), rf",?\s+(?:who\s+|which\s+)?{_AUX}(?:co-?)?founded\s+{_THE}"),
    _p("founder_of", "FOUNDED", PER, ORG_PUB, rf",?\s+(?:who\s+is\s+|is\s+|was\s+)?(?:the\s+|a\s+|its\s+)?(?:billionaire\s+)?(?:co-?)?founder\s+(?:and\s+(?:former\s+)?(?:ceo|chief\s+executive|chairman|president)\s+)?of\s+{_THE}"),
    _p("org_founder_name", "FOUNDED", PER, ORG_PUB, r"(?:'s)?\s+(?:co-?)?founder(?:\s+and\s+(?:former\s+)?(?:ceo|cto|cfo|coo|president|chairman|chief\s+\w+(?:\s+officer)?))?,?\s+", reverse=True),
    _p("founded_by", "FOUNDED", PER_ORG, ORG_PUB, rf",?\s+(?:which\s+was\s+|that\s+was\s+|was\s+|were\s+)?(?:co-?)?founded\s+(?:in\s+\d{{4}}\s+)?by\s+{_THE}", reverse=True),
    # OWNS
    _p("acquired", "OWNS", PER_ORG, frozenset({"Organization", "Publication", "Product", "CreativeWork"}), rf"\s+{_AUX}(?:acquired|bought|owns|purchased|took\s+over|completed\s+(?:its|the|their)\s+(?:acquisition|purchase)\s+of)\s+(?:the\s+|rival\s+|startup\s+)?"),
    _p("acquisition_of", "OWNS", ORG, frozenset({"Organization", "Publication", "Product"}), r"'s\s+(?:\$[\d.,]+\s*(?:billion|million|bn|m)?\s+)?(?:completed\s+)?(?:acquisition|purchase|takeover)\s+of\s+"),
    _p("owned_by", "OWNS", PER_ORG, frozenset({"Organization", "Publication", "Product", "CreativeWork"}), rf",?\s+(?:which\s+is\s+|which\s+was\s+|is\s+|was\s+|now\s+|are\s+)?(?:(?:wholly|majority)[- ])?(?:owned|acquired|bought|purchased)\s+by\s+{_THE}", reverse=True),
    _p("subsidiary_of", "OWNS", ORG, ORG_PUB, rf",?\s+(?:is\s+)?(?:a|an|the)\s+(?:wholly[- ]owned\s+)?(?:subsidiary|unit|division)\s+of\s+{_THE}", reverse=True),
    _p("owner_of", "OWNS", PER_ORG, ORG_PUB, rf",?\s+(?:who\s+is\s+|is\s+)?(?:the\s+)?(?:majority\s+)?owner\s+of\s+{_THE}"),
    # INVESTED_IN
    _p("invested_in", "INVESTED_IN", PER_ORG, ORG, rf"\s+{_AUX}(?:invested|invests|is\s+investing|will\s+invest|agreed\s+to\s+invest)(?:\s+[^\x00.;]{{0,40}}?)?\s+in\s+(?:the\s+|startup\s+)?"),
    _p("led_round", "INVESTED_IN", PER_ORG, ORG, rf"\s+{_AUX}(?:led|co-led|participated\s+in|joined)\s+(?:a|an|the)\s+[^\x00.;]{{0,50}}?\b(?:round|investment)\s+(?:in|for|into)\s+{_THE}"),
    _p("investor_in", "INVESTED_IN", PER_ORG, ORG, r",?\s+(?:an?\s+|the\s+)?(?:early\s+|major\s+|lead\s+|minority\s+)?(?:investor|backer|shareholder)\s+in\s+"),
    _p("investment_in", "INVESTED_IN", PER_ORG, ORG, r"'s\s+(?:\$[\d.,]+\s*\w*\s+)?(?:investment|minority\s+stake|stake)\s+in\s+"),
    _p("raised_from", "INVESTED_IN", PER_ORG, ORG, rf"\s+{_AUX}(?:raised|secured|received|closed)\s+[^\x00.;]{{0,60}}?\s+from\s+(?:investors?\s+(?:including|such\s+as|like)\s+)?{_LIST}", reverse=True),
    _p("backed_by", "INVESTED_IN", PER_ORG, ORG, rf",?\s+(?:which\s+is\s+|which\s+was\s+|is\s+|was\s+)?(?:backed|funded)\s+by\s+(?:investors?\s+(?:including|such\s+as|like)\s+)?{_LIST}", reverse=True),
    _p("org_investor_name", "INVESTED_IN", PER_ORG, ORG, r"(?:'s)?\s+(?:early\s+|major\s+|lead\s+)?(?:investors?|backers?),?\s+", reverse=True),
    _p("x_backed", "INVESTED_IN", PER_ORG, ORG, r"-backed\s+(?:startup\s+|company\s+|firm\s+)?"),
    # SUED
    _p("sued", "SUED", PER_ORG, PER_ORG, rf"\s+{_AUX}(?:sued|sues|is\s+suing|filed\s+(?:a\s+)?(?:lawsuit|suit|complaint|case)\s+against|files\s+(?:a\s+)?(?:lawsuit|suit|complaint)\s+against|took\s+legal\s+action\s+against|brought\s+(?:a\s+)?(?:lawsuit|suit|case)\s+against)\s+{_THE}"),
    _p("lawsuit_against", "SUED", PER_ORG, PER_ORG, rf"'s\s+(?:[\w-]+\s+){{0,2}}?(?:lawsuit|suit|complaint)\s+against\s+{_THE}"),
    _p("sued_by", "SUED", PER_ORG, PER_ORG, rf"\s+(?:was|is|has\s+been|were|had\s+been|is\s+being)\s+sued\s+by\s+{_THE}", reverse=True),
    # CHARGED_WITH
    _p("charged_with", "CHARGED_WITH", PER_ORG, CHARGE, rf"\s+{_AUX}(?:been\s+|being\s+)?(?:formally\s+)?(?:charged\s+with|indicted\s+(?:on|for)|convicted\s+(?:of|on)|found\s+guilty\s+(?:of|on)|pleaded\s+guilty\s+to|pleads\s+guilty\s+to|accused\s+of|faces\s+charges\s+of|faces|facing)\s+(?:(?:all\s+)?(?:\w+\s+)?(?:criminal\s+|federal\s+)?(?:counts?|charges?)\s*(?:of|,?\s*including)\s+)?{_LIST}"),
    # TESTIFIED_IN / ATTENDED / COMPETED_IN / SCORED_IN
    _p("testified", "TESTIFIED_IN", PER, EVENT, rf"\s+{_AUX}(?:testified|testifies|gave\s+evidence|took\s+the\s+stand)\s+(?:at|in|during|before)\s+(?:the\s+|his\s+|her\s+)?"),
    _p("attended", "ATTENDED", PER, EVENT, rf"\s+{_AUX}(?:attended|attends|appeared\s+at|spoke\s+at|visited)\s+{_THE}"),
    _p("competed", "COMPETED_IN", PER_ORG, EVENT, rf"\s+(?:will\s+)?{_AUX}(?:competed|competes|compete|competing|played|plays|play|participated|participates|raced|races)\s+(?:in|at)\s+{_THE}"),
    _p("scored", "SCORED_IN", PER, EVENT, rf"\s+{_AUX}(?:scored|scores|netted|nets)\s+(?:[^\x00.;]{{0,40}}?\s+)?(?:in|at|during)\s+{_THE}"),
    # ROMANTIC_LINK / FAMILY_OF
    _p("partner_possessive", "ROMANTIC_LINK", PER, PER, r"'s\s+(?:\w+\s+)?(?:wife|husband|girlfriend|boyfriend|fianc[eé]e?|spouse|ex-wife|ex-husband|ex-girlfriend|ex-boyfriend),?\s+"),
    _p("dating", "ROMANTIC_LINK", PER, PER, rf"\s+{_AUX}(?:dating|married\s+to|married|marries|wed|engaged\s+to|romantically\s+linked\s+(?:to|with)|in\s+a\s+relationship\s+with)\s+"),
    _p("family_possessive", "FAMILY_OF", PER, PER, r"'s\s+(?:\w+\s+)?(?:son|daughter|brother|sister|father|mother|dad|mom|mum|cousin|uncle|aunt|nephew|niece|grandson|granddaughter|grandfather|grandmother|sibling|child),?\s+"),
    _p("family_of", "FAMILY_OF", PER, PER, r",?\s+(?:the\s+)?(?:son|daughter|brother|sister|father|mother|cousin|uncle|aunt|nephew|niece|grandson|granddaughter|grandfather|grandmother)\s+of\s+"),
    # LOCATED_IN
    _p("based_in", "LOCATED_IN", ORG, LOC, rf",?\s+(?:which\s+is\s+|that\s+is\s+|is\s+|are\s+|(?:a|an)\s+[\w\s-]{{0,25}}?)?(?:based|headquartered|located)\s+in\s+{_THE}"),
    _p("loc_based", "LOCATED_IN", ORG, LOC, r"-based\s+(?:[a-z][\w-]*\s+){0,3}", reverse=True, case_sensitive=True),
    _p("held_in", "LOCATED_IN", EVENT, LOC, rf",?\s+(?:which\s+)?(?:was\s+|is\s+|will\s+be\s+)?(?:held|hosted|taking\s+place|took\s+place|takes\s+place)\s+in\s+{_THE}"),
    _p("city_country", "LOCATED_IN", LOC, LOC, r",\s+", after_must=r"^\s*(?:[.;:)\u2014\u2013]|$)"),
    # PRODUCED
    _p("org_launched", "PRODUCED", ORG, WORK, rf"\s+{_AUX}(?:launched|launches|released|releases|unveiled|unveils|introduced|introduces|developed|develops|debuted|debuts|rolled\s+out|rolls\s+out|shipped|ships|makes|made|produced|produces|published|publishes|created|creates|built|builds|designed|designs)\s+(?:its\s+|their\s+|the\s+|a\s+|an\s+)?(?:new\s+|latest\s+|first\s+)?"),
    _p("person_created", "PRODUCED", PER, WORK, rf"\s+{_AUX}(?:created|creates|developed|develops|designed|designs|built|builds|directed|directs|wrote|writes|produced|produces)\s+(?:the\s+|a\s+|an\s+|his\s+|her\s+)?"),
    _p("org_possessive_product", "PRODUCED", ORG, PRODUCT, r"'s\s+(?:new\s+|latest\s+|flagship\s+|upcoming\s+)?"),
    _p("made_by", "PRODUCED", PER_ORG, WORK, rf",?\s+(?:which\s+was\s+|which\s+is\s+|was\s+|is\s+|were\s+)?(?:developed|made|built|released|launched|created|produced|published|designed|directed|written)\s+by\s+{_THE}", reverse=True),
    # RECEIVED
    _p("won_award", "RECEIVED", ANY_RECEIVER, AWARD, rf"\s+{_AUX}(?:won|wins|received|receives|was\s+awarded|was\s+given|earned|earns|picked\s+up|claimed|took\s+home|collected|clinched|scooped)\s+(?:the\s+|an?\s+|his\s+|her\s+|their\s+|its\s+)?(?:[\w-]+\s+){{0,2}}?"),
    # COMPETES_WITH
    _p("rival_apposition", "COMPETES_WITH", SAME_KIND, SAME_KIND, rf",?\s+(?:is\s+|was\s+|remains\s+)?(?:and\s+its\s+|and\s+their\s+|its\s+|their\s+|a\s+|an\s+|the\s+)?(?:main\s+|chief\s+|closest\s+|biggest\s+|fierce\s+|longtime\s+|arch-?)?(?:rival|competitor|challenger)s?\s+(?:of\s+|to\s+)?{_THE}"),
    _p("competes_with", "COMPETES_WITH", SAME_KIND, SAME_KIND, rf"\s+{_AUX}(?:competes|compete|competing|rivals)\s+(?:with\s+|against\s+)?{_THE}"),
    # REGULATES
    _p("regulator_action", "REGULATES", ORG, frozenset({"Organization", "Product"}), rf"\s+{_AUX}(?:fined|fines|is\s+investigating|investigated|investigates|opened\s+(?:an?\s+)?(?:investigation|probe|inquiry)\s+into|launched\s+(?:an?\s+)?(?:investigation|probe|inquiry)\s+into|approved|approves|regulates|blocked|blocks|sanctioned)\s+{_THE}", subject_check=is_regulator),
    _p("regulator_probe", "REGULATES", ORG, frozenset({"Organization", "Product"}), r"'s\s+(?:\w+\s+)?(?:investigation|probe|inquiry)\s+(?:into|of)\s+", subject_check=is_regulator),
    _p("fined_by", "REGULATES", ORG, frozenset({"Organization", "Product"}), rf"\s+(?:was|has\s+been|is\s+being|is|were|had\s+been)\s+(?:fined|investigated|sanctioned)\s+by\s+{_THE}", reverse=True, subject_check=is_regulator),
)  # fmt: skip
