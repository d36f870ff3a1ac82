-- Search that stays fast on a common word (issue 17, item 4). memory_line_matches (migration
-- 0006) looked up the page and the subject record of every matching souvenir, then ranked
-- them all to keep the best p_limit: a word of one souvenir in ten (27,758 souvenirs at 50,000
-- pages) cost a lookup per match and a sort of them all (about 300 ms).
--
-- Now the reading rules are checked lazily, match by match, in the order the candidates come,
-- until p_limit readable souvenirs are found (the LIMIT stops the lookups; the planner may
-- memoize them by page). They still apply before any cap: a souvenir the caller may not read is
-- skipped, never counted, whatever order the matches come in. The candidates:
-- - at most 2,500 souvenirs match (every ordinary search): all of them, ranked and ordered
--   first from the line alone (rank DESC, page_id, position), so the result is the best
--   p_limit readable ones, the same rows as before;
-- - more match (a common word): the matches in the index's order (storage order), unranked,
--   the first 2,501 read once; the first p_limit readable ones are ranked. They are not the best
--   of all the matches (the caller's search says capped: its total is a lower bound), and a
--   search no longer reads or ranks every match.
CREATE OR REPLACE FUNCTION memory_line_matches(p_query tsquery, p_readable uuid[],
                                               p_person uuid, p_limit integer)
RETURNS TABLE (page_id uuid, key text, text text, type text, day date, "position" integer,
               rank real)
LANGUAGE sql STABLE SECURITY DEFINER ROWS 50
SET search_path = public, pg_temp
AS $$
    WITH head AS MATERIALIZED (
        -- The first 2,501 matches in the index's order, ranked.
        SELECT l.page_id, l.key, l.text, l.type, l.day, l.position,
               ts_rank(l.search_vector, p_query) AS rank
          FROM memory_lines l
         WHERE l.workspace_id = app_workspace_id() AND l.kind = 'souvenir'
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
        SELECT * FROM (SELECT l.page_id, l.key, l.text, l.type, l.day, l.position,
                              ts_rank(l.search_vector, p_query) AS rank
                         FROM memory_lines l
                        WHERE (SELECT yes FROM common)
                          AND l.workspace_id = app_workspace_id() AND l.kind = 'souvenir'
                          AND l.search_vector @@ p_query
                       OFFSET 2501) rest
    ),
    kept AS (
        SELECT m.* FROM candidates m
          -- Each candidate's page and subject record looked up by key, in order, until the
          -- LIMIT has enough readable ones.
          CROSS JOIN LATERAL (SELECT p.about_kind, p.member_id, p.subject_id
                                FROM memory_pages p
                               WHERE p.workspace_id = app_workspace_id() AND p.id = m.page_id
                                 AND p.trashed_at IS NULL
                              OFFSET 0) p
          LEFT JOIN LATERAL (SELECT s.* FROM records s
                              WHERE s.workspace_id = app_workspace_id() AND s.id = p.subject_id
                             OFFSET 0) s ON true
         WHERE EXISTS (SELECT 1 FROM objects o
                        WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory'
                          AND o.id = ANY (p_readable))
           AND CASE p.about_kind
                   WHEN 'record' THEN COALESCE(record_readable(s::records, p_readable, p_person),
                                               false)
                   WHEN 'member' THEN COALESCE(p.member_id = p_person, false)
                   ELSE true
               END
         LIMIT p_limit
    )
    SELECT k.page_id, k.key, k.text, k.type, k.day, k.position, k.rank
      FROM kept k
     ORDER BY k.rank DESC, k.page_id, k.position
$$;
