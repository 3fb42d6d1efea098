"""A synthetic world of fictional people, cities, countries and organisations, and its passage corpus.

Every entity has one passage (``"Name"\\n<its facts in plain sentences>``); relations are functions
(an organisation has one founder, a person one birthplace, ...), so a relation chain from an entity
resolves to exactly one answer. Distractor entities share name stems with real ones and are described
in the same style, so a search must use the exact name. Built deterministically from a seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

_SYLLABLES = (
    "var",
    "nol",
    "tes",
    "mir",
    "qua",
    "dor",
    "zel",
    "kan",
    "bri",
    "ost",
    "lum",
    "ferr",
    "ask",
    "pel",
    "rin",
    "vos",
    "ha",
    "gle",
    "tum",
    "sar",
    "el",
    "ond",
    "yth",
    "cor",
)
_ORG_KINDS = ("Foundry", "Mills", "Press", "Bank", "Works", "Company", "Institute", "Guild")
_SURNAME_END = ("son", "holt", "wick", "ard", "ley", "ovic", "ani", "berg")


@dataclass(frozen=True)
class WorldConfig:
    """Size and confusability of the world.

    ``distractors``: extra entities per real one whose names share its stem (0-3);
    ``name_similarity``: probability that a new name reuses an existing stem (0-1).
    """

    seed: int = 0
    countries: int = 8
    cities: int = 24
    people: int = 40
    organisations: int = 30
    distractors: int = 1
    name_similarity: float = 0.3

    def validate(self) -> None:
        """Raise ValueError on a knob out of range."""
        if min(self.countries, self.cities, self.people, self.organisations) < 2:
            raise ValueError("every entity kind needs at least 2 entities")
        if self.cities < self.countries:
            raise ValueError("cities must be >= countries (each country needs a capital)")
        if not 0 <= self.distractors <= 3:
            raise ValueError(f"distractors must be in 0..3, got {self.distractors}")
        if not 0.0 <= self.name_similarity <= 1.0:
            raise ValueError(f"name_similarity must be in [0, 1], got {self.name_similarity}")


@dataclass
class Entity:
    """One entity: its kind, unique name, relations (to other entity names) and attributes."""

    name: str
    kind: str
    relations: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, int] = field(default_factory=dict)
    distractor: bool = False


#: relation -> (subject kind, object kind)
RELATIONS = {
    "founder": ("organisation", "person"),
    "headquarters": ("organisation", "city"),
    "birthplace": ("person", "city"),
    "country": ("city", "country"),
    "capital": ("country", "city"),
}
#: attribute -> (subject kind, answer type)
ATTRIBUTES = {
    "birth_year": ("person", "date"),
    "founding_year": ("organisation", "date"),
    "population": ("city", "number"),
    "area": ("country", "number"),
}


class World:
    """The entities, their passages, and lookups by name."""

    def __init__(self, config: WorldConfig | None = None) -> None:
        self.config = config or WorldConfig()
        self.config.validate()
        self.rng = np.random.default_rng(self.config.seed)
        self.entities: dict[str, Entity] = {}
        self._stems: list[str] = []
        self._build()

    def _word(self, parts: int) -> str:
        return "".join(str(self.rng.choice(_SYLLABLES)) for _ in range(parts)).capitalize()

    def _stem(self) -> str:
        if self._stems and self.rng.random() < self.config.name_similarity:
            return str(self.rng.choice(self._stems))
        stem = self._word(2)
        self._stems.append(stem)
        return stem

    def _unique(self, make) -> str:
        for _ in range(1000):
            name = make()
            if name not in self.entities:
                return name
        raise RuntimeError("could not find a fresh name: enlarge the syllable list or shrink the world")

    def _name(self, kind: str, stem: str | None = None) -> str:
        def make() -> str:
            base = stem or self._stem()
            if stem and kind in ("city", "country"):
                base = f"{stem}{self.rng.choice(_SYLLABLES)}"
            if kind == "person":
                return f"{self._word(1)} {base}{self.rng.choice(_SURNAME_END)}"
            if kind == "organisation":
                return f"{base} {self.rng.choice(_ORG_KINDS)}"
            if kind == "city":
                return f"{base}{self.rng.choice(('ford', 'burg', 'mouth', 'vale', 'stad'))}"
            return f"{base}ia"

        return self._unique(make)

    def _add(self, kind: str, stem: str | None = None, distractor: bool = False) -> Entity:
        entity = Entity(self._name(kind, stem), kind, distractor=distractor)
        self.entities[entity.name] = entity
        return entity

    def _build(self) -> None:
        c = self.config
        countries = [self._add("country") for _ in range(c.countries)]
        cities = [self._add("city") for _ in range(c.cities)]
        people = [self._add("person") for _ in range(c.people)]
        orgs = [self._add("organisation") for _ in range(c.organisations)]
        real = countries + cities + people + orgs
        for i, country in enumerate(countries):
            country.relations["capital"] = cities[i].name
        for i, city in enumerate(cities):
            city.relations["country"] = countries[i].name if i < len(countries) else self._pick(countries)
        for person in people:
            person.relations["birthplace"] = self._pick(cities)
        for org in orgs:
            org.relations["founder"] = self._pick(people)
            org.relations["headquarters"] = self._pick(cities)
        for entity in real:
            self._attributes(entity)
        for entity in list(real):  # distractors: same stem, same kind, facts of their own
            for _ in range(c.distractors):
                stem = entity.name.split()[-1][:5] if entity.kind == "person" else entity.name[:5]
                twin = self._add(entity.kind, stem.capitalize(), distractor=True)
                for relation, (subject, target) in RELATIONS.items():
                    if subject == entity.kind:
                        pool = {"person": people, "city": cities, "country": countries}[target]
                        twin.relations[relation] = self._pick(pool)
                self._attributes(twin)

    def _pick(self, pool: list[Entity]) -> str:
        return pool[int(self.rng.integers(len(pool)))].name

    def _attributes(self, entity: Entity) -> None:
        if entity.kind == "person":
            entity.attributes["birth_year"] = int(self.rng.integers(1700, 1990))
        elif entity.kind == "organisation":
            entity.attributes["founding_year"] = int(self.rng.integers(1750, 2010))
        elif entity.kind == "city":
            entity.attributes["population"] = int(self.rng.integers(2, 900)) * 1000
        else:
            entity.attributes["area"] = int(self.rng.integers(5, 900)) * 100

    def passage(self, entity: Entity) -> str:
        """The entity's passage: ``"Name"`` then one sentence per fact."""
        n, r, a = entity.name, entity.relations, entity.attributes
        if entity.kind == "person":
            text = f"{n} was a fictional figure born in {r['birthplace']} in {a['birth_year']}."
        elif entity.kind == "organisation":
            text = (
                f"{n} is a fictional organisation founded in {a['founding_year']} by {r['founder']}. "
                f"Its headquarters are in {r['headquarters']}."
            )
        elif entity.kind == "city":
            text = f"{n} is a fictional city in {r['country']} with a population of {a['population']}."
        else:
            text = f"{n} is a fictional country of {a['area']} square kilometres"
            text += f" whose capital is {r['capital']}."
        return f'"{n}"\n{text}'

    def documents(self) -> list[dict[str, str]]:
        """The corpus: one ``{"id", "contents"}`` document per entity, in creation order."""
        return [{"id": str(i), "contents": self.passage(e)} for i, e in enumerate(self.entities.values())]

    def real(self, kind: str) -> list[Entity]:
        """The non-distractor entities of a kind, in creation order."""
        return [e for e in self.entities.values() if e.kind == kind and not e.distractor]
