-- An ordinary search for less PostgreSQL CPU (issue 17, item 4). Measured on the bench workspace
-- (50,001 pages, 275,350 souvenirs; BENCHMARKS.md), a search for a name (493 souvenirs on 282
-- pages) cost about 4 ms of one backend's CPU, nearly all of it in memory_line_matches (0033),
-- whose plan was already kept (generic) for the session. Measured piece by piece (CPU per call,
-- functions cut down to each part): the index and the heap 1.5 ms (0.55 ms of it the last
-- word's prefix, which GIN answers by collecting every row of every word with that prefix into
-- a bitmap), the ranks and their sort 0.45 ms, the pages looked up 0.5 ms, the subject records
-- 0.65 ms, the rest 0.4 ms. perf on the backend: 6-8% of its time in app_workspace_id() (a
-- setting read, then parsed as a uuid), evaluated again for every page and record looked up
-- (the key of each index scan).
--
-- Now, with the same results (same rows, order, ties and totals; the reading rules unchanged
-- and applied before the cap as in 0033):
-- - the scan of memory_lines is pinned to (SELECT app_workspace_id()), read once for the
--   statement, not once per matching row;
-- - each candidate carries its line's workspace_id (that workspace), and its page and subject
--   record are looked up in that workspace by key: no setting read and parsed per lookup;
-- - the subject record's readability is computed where it is read (record_readable inlined on
--   the row's own columns) and only that boolean leaves the lookup, not the whole record (its
--   values included) copied into the memoized cache and out again.

CREATE OR REPLACE FUNCTION memory_line_matches(p_query tsquery, p_readable uuid[],
                                               p_person uuid, p_limit integer)
RETURNS TABLE (page_id uuid, key text, text text, type text, day date, "position" integer,
               rank real)
LANGUAGE sql STABLE SECURITY DEFINER ROWS 50
SET search_path = public, pg_temp
AS $$
    WITH head AS MATERIALIZED (
        -- The first 2,501 matches in the index's order, ranked.
        SELECT l.workspace_id, l.page_id, l.key, l.text, l.type, l.day, l.position,
               ts_rank(l.search_vector, p_query) AS rank
          FROM memory_lines l
         WHERE l.workspace_id = (SELECT app_workspace_id()) AND l.kind = 'souvenir'
           AND l.search_vector @@ p_query
         LIMIT 2501
    ),
    common AS MATERIALIZED (SELECT count(*) > 2500 AS yes FROM head),
    candidates AS (
        -- At most 2,500 matches: all of them, best first.
        SELECT * FROM (SELECT h.* FROM head h WHERE NOT (SELECT yes FROM common)
                        ORDER BY h.rank DESC, h.page_id, h.position OFFSET 0) ranked
        UNION ALL
        -- More: in the index's order, the first 2,501 as read above, then the rest (read only
        -- when those hold fewer than p_limit the caller may read).
        SELECT * FROM (SELECT h.* FROM head h WHERE (SELECT yes FROM common) OFFSET 0) first
        UNION ALL
        SELECT * FROM (SELECT l.workspace_id, l.page_id, l.key, l.text, l.type, l.day,
                              l.position, ts_rank(l.search_vector, p_query) AS rank
                         FROM memory_lines l
                        WHERE (SELECT yes FROM common)
                          AND l.workspace_id = (SELECT app_workspace_id()) AND l.kind = 'souvenir'
                          AND l.search_vector @@ p_query
                       OFFSET 2501) rest
    ),
    kept AS (
        SELECT m.* FROM candidates m
          -- Each candidate's page and subject record looked up by key, in order, until the
          -- LIMIT has enough readable ones: in the candidate's own workspace (the one the scan
          -- above is pinned to), and only the subject's readability read from its record.
          CROSS JOIN LATERAL (SELECT p.workspace_id, p.about_kind, p.member_id, p.subject_id
                                FROM memory_pages p
                               WHERE p.workspace_id = m.workspace_id AND p.id = m.page_id
                                 AND p.trashed_at IS NULL
                              OFFSET 0) p
          LEFT JOIN LATERAL (SELECT record_readable(s, p_readable, p_person) AS readable
                               FROM records s
                              WHERE s.workspace_id = p.workspace_id AND s.id = p.subject_id
                             OFFSET 0) s ON true
         WHERE EXISTS (SELECT 1 FROM objects o
                        WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory'
                          AND o.id = ANY (p_readable))
           AND CASE p.about_kind
                   WHEN 'record' THEN COALESCE(s.readable, false)
                   WHEN 'member' THEN COALESCE(p.member_id = p_person, false)
                   ELSE true
               END
         LIMIT p_limit
    )
    SELECT k.page_id, k.key, k.text, k.type, k.day, k.position, k.rank
      FROM kept k
     ORDER BY k.rank DESC, k.page_id, k.position
$$;
