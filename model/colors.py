"""Card colours, and the clans of the Ősök Városa as the gods' colours.

Clauses covered
---------------
* rb7:lapok-szine-klanja-kapcsolat-a-hkk-istenekkel: the clans correspond in every respect to the
  HKK gods (Mágus – Fairlight, Pszionicista – Elenios, Katona – Raia, Tudós – Sheran, Tisztogató –
  Tharr, Halhatatlan – Leah, Tolvaj – Dornodon, Mutáns – Charadin, Bárd – Bufa), a clanless card to
  a colourless one: a clan written in a card's `colors` is its god's colour, and what refers to a
  clan (a `{colors}` condition, a zone scope's `color`) refers to its god's cards — and the other
  way round. The clan list calls the clan of Sheran "Történészek", the table "Tudós": both names
  are read as that clan (`tortenesz`, `tudos`).

Colour names are written in lower case without accents (`fairlight`, `magus`); a name that is
neither a clan nor a god is a colour of its own.
"""
from __future__ import annotations

from typing import Iterable

from .state import Card

CLAN_GODS = {"magus": "fairlight", "pszionicista": "elenios", "katona": "raia", "tudos": "sheran",
             "tortenesz": "sheran", "tisztogato": "tharr", "halhatatlan": "leah", "tolvaj": "dornodon",
             "mutans": "charadin", "bard": "bufa"}


def gods(names: Iterable[str]) -> frozenset[str]:
    """The colours these names mean: a clan's is its god's."""
    return frozenset(CLAN_GODS.get(n, n) for n in names)


def of_color(card: Card, names: Iterable[str]) -> bool:
    """The card is of one of these colours (or clans)."""
    return not gods(card.colors).isdisjoint(gods(names))


__all__ = ["CLAN_GODS", "gods", "of_color"]
