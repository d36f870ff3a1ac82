"""The GraphQL surface: Strawberry types, queries, errors and limits."""
