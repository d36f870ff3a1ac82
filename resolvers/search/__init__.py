"""Search over memory pages and skills, and recall (DESIGN §7)."""
