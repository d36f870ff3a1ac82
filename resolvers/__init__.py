"""Permission-aware domain logic. Never imports Strawberry."""
