"""PostgreSQL access: pool, migrations, named queries, the embedded server."""
