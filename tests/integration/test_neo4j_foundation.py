from core.graph import Graph


def test_schema_bootstrap_is_idempotent(graph: Graph) -> None:
    from core.bootstrap import apply_schema

    first = apply_schema(graph)
    second = apply_schema(graph)
    assert first == second
    assert "schema/01_entity_key" in first
