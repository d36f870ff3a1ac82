-- An ordinary search for fewer instructions (issue 17, item 4). Counted with callgrind on the
-- bench workspace's backend (50,001 pages, 275,350 souvenirs; BENCHMARKS.md), a search for a name
-- (501 souvenirs on 288 pages, 493 readable) cost 40.6 M instructions a request, 33.7 M of them
-- in memory_line_matches (0037): the GIN scan 12.7 M (5.3 M of it the last word's prefix), the
-- page and record lookups 9.9 M (501 pages looked up for 288 distinct), and the rows copied
-- into sorts and tuple stores about 10 M, two of those sorts of every match being the ranking
-- of the candidates (needed only when the LIMIT picks among them) and the function's own final
-- ORDER BY (both callers sort the rows again: search_memory by page, recall_memory by rank).
--
-- Now, with the same rows (the reading rules unchanged, applied before any cap):
-- - at most p_limit matches (every ordinary search: p_limit is 2,000 for search_memory): every
--   readable match is kept, so the candidates are not sorted, and each distinct page is looked
--   up once with its subject record; the readable pages are then joined back to their lines;
-- - more than p_limit and at most 2,500: ranked, sorted and checked in order under the LIMIT,
--   as in 0037; more than 2,500 (a common word): in the index's order, as in 0033;
-- - the rows are returned in no particular order: the callers order them (they already did).

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
    -- yes: a common word (more than 2,500 matches); all_kept: at most 2,500 and at most
    -- p_limit (a NULL p_limit is no limit), so every readable match is kept.
    common AS MATERIALIZED (
        SELECT count(*) > 2500 AS yes, count(*) <= LEAST(p_limit, 2500) AS all_kept FROM head
    ),
    -- At most p_limit matches: every readable one is kept, so each page is looked up once
    -- (with its subject record), not once per matching souvenir, and none is sorted here.
    pages AS (
        SELECT d.page_id
          FROM (SELECT DISTINCT h.workspace_id, h.page_id FROM head h
                 WHERE (SELECT all_kept FROM common)) d
          CROSS JOIN LATERAL (SELECT p.workspace_id, p.about_kind, p.member_id, p.subject_id
                                FROM memory_pages p
                               WHERE p.workspace_id = d.workspace_id AND p.id = d.page_id
                                 AND p.trashed_at IS NULL
                              OFFSET 0) p
          LEFT JOIN LATERAL (SELECT record_readable(s, p_readable, p_person) AS readable
                               FROM records s
                              WHERE s.workspace_id = p.workspace_id AND s.id = p.subject_id
                             OFFSET 0) s ON true
         WHERE CASE p.about_kind
                   WHEN 'record' THEN COALESCE(s.readable, false)
                   WHEN 'member' THEN COALESCE(p.member_id = p_person, false)
                   ELSE true
               END
    ),
    every AS (
        SELECT h.* FROM head h JOIN pages r ON r.page_id = h.page_id
         WHERE (SELECT all_kept FROM common)
           AND EXISTS (SELECT 1 FROM objects o
                        WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory'
                          AND o.id = ANY (p_readable))
    ),
    candidates AS (
        -- More than p_limit, at most 2,500 matches: all of them, best first.
        SELECT * FROM (SELECT h.* FROM head h
                        WHERE NOT (SELECT all_kept FROM common) AND NOT (SELECT yes FROM common)
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
      FROM (SELECT * FROM every UNION ALL SELECT * FROM kept) k
$$;