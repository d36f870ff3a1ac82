"""PostgreSQL access: pool, migrations, named queries, DataLoaders, the embedded server."""
