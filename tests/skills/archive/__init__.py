"""The archive reader and writers (resolvers/skills/archive)."""
