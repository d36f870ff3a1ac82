"""Memory (DESIGN §5): the souvenir grammar, pages, settings, proposals."""
