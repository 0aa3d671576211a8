"""The pure core of Shengji: the rules engine (``shengji.engine``), the bots (``shengji.bots``)
and the settlement arithmetic (``shengji.settlement``). It imports nothing of Django, the site or
the database; the site's apps import it, never the other way (docs/ARCHITECTURE.md, "Floors")."""
