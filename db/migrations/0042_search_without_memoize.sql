-- An ordinary search's matching pages are each looked up once (migration 0038), so the planner's
-- Memoize nodes over the page and record lookups of memory_line_matches only miss: 288 misses
-- and no hit for a name in the bench workspace, each a hash probe and a copied row. Without
-- them the function costs 4-5 % less for an ordinary search and the same for a common word
-- (alternating runs of both functions on one backend, 2026-12-03). The setting holds for the
-- function's own statements only.
ALTER FUNCTION memory_line_matches(tsquery, uuid[], uuid, integer) SET enable_memoize = off;
