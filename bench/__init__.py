"""Benchmarks: a large generated workspace, the GraphQL records query against a hand-written
baseline, and SQL statements per request (`make bench`)."""
