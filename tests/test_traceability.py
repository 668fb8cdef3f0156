"""Clause → code → cases: the engine's docstrings cite real clauses, and the main rule
clauses of the foundation titles are named by some engine module."""
from conformance.catalog import load_catalog
from conformance.traceability import cited_ids, code_citations


def test_cited_ids_reads_ranges_and_prefixes():
    assert cited_ids("Clauses: 3.18 (caps), 118.1–118.3, rb7:jelzo and mk:5.10.G.") == \
        ["3.18", "118.1", "118.3", "rb7:jelzo", "mk:5.10.G"]


def test_every_clause_the_engine_cites_exists():
    catalog = load_catalog()
    unknown = {cid: spots for cid, spots in code_citations().items() if cid not in catalog}
    assert not unknown, f"engine docstrings cite clauses that are not in the Kódex: {unknown}"


def test_core_clauses_have_code():
    cited = code_citations()
    for cid in ["3.18", "3.19", "4.8.4", "4.7.3", "4.15.1", "4.16.1", "4.17.5", "4.18.3", "4.20.3",
                "5.3.2", "5.4.3", "5.4.5", "96.8", "103.2", "104.1", "105.2", "102.1"]:
        assert cid in cited, f"no engine module names {cid}"
