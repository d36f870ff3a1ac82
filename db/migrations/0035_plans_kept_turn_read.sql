-- A turn's cards for less PostgreSQL CPU (issue 17, item 1). Measured with EXPLAIN (ANALYZE,
-- BUFFERS) and auto_explain on the bench workspace, as the application role in a request's
-- transaction (BENCHMARKS.md), a 3-card turn cost 3.5 ms of one backend's CPU:
--
-- - card_records, 2.15 ms: run in 0.7 ms, but planned anew every time (1.3 ms). asyncpg
--   prepares it, and PostgreSQL keeps a prepared statement's custom plans while the generic
--   plan looks dearer: its `unnest($1)` is guessed at 10 records where a custom plan counts the
--   3 given, and every card costs its subqueries, so the generic plan never wins.
-- - memory_lines_shown, 1.2 ms for 18 souvenirs: the jsonb_to_recordset of its lines is guessed
--   at 100 rows, so the members a conversation souvenir names were found by hashing every
--   member of the workspace (a sequential scan of 3,000 rows) instead of one lookup per line.
-- - The row-level security policies were not the cost: each is `workspace_id =
--   app_workspace_id()`, an inlined expression PostgreSQL puts in the index condition of every
--   scan (uuid equality is leakproof, so the statements' own conditions join it there), and
--   record_readable, line_source_open and app_workspace_id are inlined as they were; no policy
--   runs a subquery per row.
--
-- Now:
-- - turn_read is what a turn reads, in one statement where it took three (card_records,
--   profile_lines, then lines_shown, the souvenirs sent back and forth as JSON), with the same
--   statements inside (card_records' and profile_lines' unchanged but for their switches), and
--   planned once per session with a generic plan (SET plan_cache_mode): its plan does not
--   depend on its arguments (every table is reached by key, every card's parts by a subquery on
--   the card's record).
-- - memory_lines_shown looks up each line's source, its owner and the record it is about by key,
--   line by line (LATERAL ... LIMIT 1 keeps the planner from hashing a whole table), with the
--   same reading rules.

-- What a turn reads: the cards (when p_cards), the profiles (when p_profiles; the workspace's,
-- the person's without its souvenirs about records, the agent's, when the role reads memory and
-- the agent has memory on), and every souvenir of both as the reader sees them, shown in one
-- memory_lines_shown call: each card's page's, then each card's on the person's profile, then
-- each profile's, in order (each card and profile says how many it has). The cards: the records
-- p_ids (mentioned, then attached), then up to p_profile_records records the person's profile
-- holds souvenirs about (newest first), each only if the person may read it; per record the
-- attributes of its first p_values principal values that hold something, up to p_related
-- readable related records (what it points to, then what points to it, newest first), its last
-- change, and, when the role reads memory and the turn's agent has memory on
-- (agent_memory_on), its page's souvenirs and the person's own souvenirs about it.
CREATE FUNCTION turn_read(p_ids uuid[], p_readable uuid[], p_person uuid,
                          p_profile_records integer, p_values integer, p_related integer,
                          p_agent uuid, p_cards boolean, p_profiles boolean)
RETURNS TABLE (cards jsonb, profiles jsonb, shown jsonb)
LANGUAGE sql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
WITH memory AS (
    SELECT EXISTS (SELECT 1 FROM objects o
                    WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory'
                      AND o.id = ANY (p_readable)) AND agent_memory_on(p_agent) AS readable
),
wanted AS (
    SELECT w.id, w.ord FROM unnest(p_ids) WITH ORDINALITY AS w(id, ord)
),
profile AS (
    SELECT p.id FROM memory_pages p, memory
     WHERE memory.readable AND p.workspace_id = app_workspace_id() AND p.about_kind = 'member'
       AND p.member_id = p_person AND p.trashed_at IS NULL
),
from_profile AS (
    SELECT l.about_id AS id, 1000 + row_number() OVER (ORDER BY max(l.day) DESC, l.about_id) AS ord
      FROM memory_lines l
      JOIN profile ON l.workspace_id = app_workspace_id() AND l.page_id = profile.id
      JOIN records r ON r.workspace_id = l.workspace_id AND r.id = l.about_id
     WHERE l.about_id IS NOT NULL AND NOT (l.about_id = ANY (p_ids))
       AND record_readable(r, p_readable, p_person)
     GROUP BY l.about_id
     ORDER BY max(l.day) DESC, l.about_id
     LIMIT p_profile_records
),
chosen AS (
    SELECT id, ord, 'wanted' AS source FROM wanted WHERE p_cards
    UNION ALL
    SELECT id, ord, 'profile' FROM from_profile WHERE p_cards
),
cards AS MATERIALIZED (
    SELECT c.ord, c.source, r.id, r.label, o.slug AS object, o.singular AS object_name, r."values",
           COALESCE((SELECT jsonb_agg(jsonb_build_object('slug', a.slug, 'title', a.title)
                                      ORDER BY a.principal_rank, a.slug)
                       FROM (SELECT a.slug, a.title, a.principal_rank FROM attributes a
                              WHERE a.workspace_id = r.workspace_id AND a.object_id = r.object_id
                                AND a.principal_rank IS NOT NULL AND a.type <> 'relation'
                                AND NULLIF(btrim(r."values" ->> a.slug), '') IS NOT NULL
                              ORDER BY a.principal_rank, a.slug
                              LIMIT p_values) a), '[]') AS principal,
           COALESCE((SELECT jsonb_agg(rel.item ORDER BY rel.n)
                       FROM (SELECT u.item, u.n FROM (
                                (SELECT jsonb_build_object(
                                            'id', t.id, 'label', t.label, 'object', tobj.singular,
                                            'attribute', l.attribute_slug, 'direction', 'to') AS item,
                                        row_number() OVER (ORDER BY l.attribute_slug) AS n
                                   FROM record_links l
                                   JOIN records t ON t.workspace_id = l.workspace_id
                                                 AND t.id = l.target_id
                                   JOIN objects tobj ON tobj.workspace_id = t.workspace_id
                                                    AND tobj.id = t.object_id
                                  WHERE l.workspace_id = r.workspace_id AND l.record_id = r.id
                                    AND record_readable(t, p_readable, p_person))
                                UNION ALL
                                (SELECT jsonb_build_object(
                                            'id', s.id, 'label', s.label, 'object', sobj.singular,
                                            'attribute', l.attribute_slug, 'direction', 'from'),
                                        100 + row_number() OVER (ORDER BY s.updated_at DESC, s.id)
                                   FROM record_links l
                                   JOIN records s ON s.workspace_id = l.workspace_id
                                                 AND s.id = l.record_id
                                   JOIN objects sobj ON sobj.workspace_id = s.workspace_id
                                                    AND sobj.id = s.object_id
                                  WHERE l.workspace_id = r.workspace_id AND l.target_id = r.id
                                    AND record_readable(s, p_readable, p_person)
                                  ORDER BY s.updated_at DESC, s.id
                                  LIMIT p_related)) u
                              ORDER BY u.n
                              LIMIT p_related) rel), '[]') AS related,
           (SELECT jsonb_build_object('actor_name', ch.actor_name, 'at', ch.changed_at,
                                      'fields', ch.fields)
              FROM record_changes ch
             WHERE ch.workspace_id = r.workspace_id AND ch.record_id = r.id
             ORDER BY ch.id DESC
             LIMIT 1) AS last_change,
           COALESCE((SELECT jsonb_agg(to_jsonb(l) - 'workspace_id' - 'page_id' - 'search_vector'
                                      ORDER BY l.position)
                       FROM memory, memory_pages p
                       JOIN memory_lines l ON l.workspace_id = p.workspace_id AND l.page_id = p.id
                      WHERE memory.readable AND p.workspace_id = r.workspace_id
                        AND p.about_kind = 'record'
                        AND p.subject_id = r.id AND p.trashed_at IS NULL
                        AND l.kind = 'souvenir' AND object_carries_pages(r.object_id)), '[]')
               AS page_lines,
           COALESCE((SELECT jsonb_agg(to_jsonb(l) - 'workspace_id' - 'page_id' - 'search_vector'
                                      ORDER BY l.position)
                       FROM profile
                       JOIN memory_lines l ON l.workspace_id = r.workspace_id
                                          AND l.page_id = profile.id
                      WHERE l.about_id = r.id AND l.kind = 'souvenir'), '[]') AS profile_lines
      FROM chosen c
      JOIN records r ON r.workspace_id = app_workspace_id() AND r.id = c.id
      JOIN objects o ON o.workspace_id = r.workspace_id AND o.id = r.object_id
     WHERE record_readable(r, p_readable, p_person)
     ORDER BY c.ord
),
profiles AS MATERIALIZED (
    SELECT p.about_kind, mr.label AS name, row_number() OVER (ORDER BY p.id) AS n,
           COALESCE(jsonb_agg(to_jsonb(l) - 'workspace_id' - 'page_id' - 'search_vector'
                              ORDER BY l.position) FILTER (WHERE l.position IS NOT NULL), '[]')
               AS lines
      FROM memory_pages p
      JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
      LEFT JOIN memory_lines l
        ON l.workspace_id = p.workspace_id AND l.page_id = p.id
       AND (p.about_kind <> 'member' OR l.about_id IS NULL)
     WHERE p_profiles AND p.workspace_id = app_workspace_id() AND p.trashed_at IS NULL
       AND EXISTS (SELECT 1 FROM objects o
                    WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory'
                      AND o.id = ANY (p_readable))
       AND agent_memory_on(p_agent)
       AND (p.about_kind = 'workspace'
            OR (p.about_kind = 'member' AND p.member_id = p_person)
            OR (p.about_kind = 'agent' AND p.agent_id = p_agent))
     GROUP BY p.id, p.about_kind, mr.label
),
batches AS (
    SELECT 1 AS batch, c.ord AS pos, c.page_lines AS lines FROM cards c
    UNION ALL
    SELECT 2, c.ord, c.profile_lines FROM cards c
    UNION ALL
    SELECT 3, p.n, p.lines FROM profiles p
),
stored AS (
    SELECT b.batch, b.pos, e.i, e.line
      FROM batches b, jsonb_array_elements(b.lines) WITH ORDINALITY AS e(line, i)
)
SELECT (SELECT COALESCE(jsonb_agg(jsonb_build_object(
                                      'ord', c.ord, 'source', c.source, 'id', c.id,
                                      'label', c.label, 'object', c.object,
                                      'object_name', c.object_name, 'values', c."values",
                                      'principal', c.principal, 'related', c.related,
                                      'last_change', c.last_change,
                                      'page_count', jsonb_array_length(c.page_lines),
                                      'profile_count', jsonb_array_length(c.profile_lines))
                                  ORDER BY c.ord), '[]')
          FROM cards c),
       (SELECT COALESCE(jsonb_agg(jsonb_build_object('about_kind', p.about_kind,
                                                     'name', p.name,
                                                     'count', jsonb_array_length(p.lines))
                                  ORDER BY p.n), '[]')
          FROM profiles p),
       (SELECT CASE WHEN count(*) = 0 THEN '[]'::jsonb
                    ELSE memory_lines_shown(jsonb_agg(s.line ORDER BY s.batch, s.pos, s.i),
                                            p_readable, p_person, false)
               END
          FROM stored s)
$$;

GRANT EXECUTE ON FUNCTION turn_read(uuid[], uuid[], uuid, integer, integer, integer, uuid,
                                    boolean, boolean) TO skillmem_app;

CREATE OR REPLACE FUNCTION memory_lines_shown(p_lines jsonb, p_readable uuid[], p_person uuid,
                                              p_every_open boolean)
RETURNS jsonb
LANGUAGE sql STABLE
AS $$
SELECT COALESCE(jsonb_agg(jsonb_build_object(
                   'kind', l.kind, 'text', l.text, 'key', l.key, 'type', l.type,
                   'author', l.author, 'day', l.day, 'until', l.until, 'human', l.human,
                   'source_kind', l.source_kind, 'source_id', l.source_id,
                   'about_id', l.about_id,
                   'source_open', line_source_open(l.source_kind, src.record, cm.id, p_readable,
                                                   p_person, p_every_open),
                   'source_exists', (src.record).id IS NOT NULL OR cm.id IS NOT NULL,
                   'source_object', src.object,
                   'source_owner', COALESCE(cm.name, src.owner),
                   'about_label', (ab.record).label,
                   'about_open', line_source_open('record', ab.record, NULL, p_readable,
                                                  p_person, p_every_open)) ORDER BY l.ord), '[]')
  FROM ROWS FROM (jsonb_to_recordset(p_lines) AS (kind text, key text, text text, type text,
                                                  author text, day date, until date,
                                                  human boolean, source_kind text,
                                                  source_id uuid, about_id uuid))
       WITH ORDINALITY AS l(kind, key, text, type, author, day, until, human, source_kind,
                            source_id, about_id, ord)
       LEFT JOIN LATERAL (
           SELECT s AS record, so.singular AS object, som.name AS owner
             FROM records s
             LEFT JOIN objects so ON so.workspace_id = s.workspace_id AND so.id = s.object_id
             LEFT JOIN members som
               ON som.workspace_id = s.workspace_id AND som.id = s.owner_member_id
            WHERE l.source_kind = 'record' AND s.workspace_id = app_workspace_id()
              AND s.id = l.source_id
            LIMIT 1) src ON true
       LEFT JOIN LATERAL (
           SELECT m.id, m.name FROM members m
            WHERE l.source_kind = 'conversation' AND m.workspace_id = app_workspace_id()
              AND m.id = l.source_id
            LIMIT 1) cm ON true
       LEFT JOIN LATERAL (
           SELECT a AS record FROM records a
            WHERE a.workspace_id = app_workspace_id() AND a.id = l.about_id
            LIMIT 1) ab ON true
$$;

-- The records page (db/queries/records.sql) was planned anew every time too (0.3 ms of its 0.66
-- ms): its LIMIT and filters are parameters, so its generic plan looked dearer than any custom
-- one. records_page_rows is its statement, written once: records_page calls it with every
-- filter, planned with the filters given (a filter may change the best plan); an unfiltered
-- page, the common one, calls records_page_plain, planned once per session (the walk of the
-- object's index in creation order after the cursor is the plan for every such page).
CREATE FUNCTION records_page_rows(p_object text, p_readable uuid[], p_person uuid, p_after uuid,
                                  p_limit integer, p_label text, p_values jsonb,
                                  p_related_to uuid, p_after_created_at timestamptz)
RETURNS TABLE (id uuid, seq bigint, label text, "values" jsonb, visibility text,
               owner_member_id uuid, created_at timestamptz, updated_at timestamptz,
               object text, relations jsonb)
LANGUAGE sql STABLE
AS $$
WITH page AS (
    SELECT r.id, r.seq, r.label, r."values", r.visibility, r.owner_member_id, r.created_at,
           r.updated_at
      FROM records r
     WHERE r.object_id = (SELECT o.id FROM objects o WHERE o.slug = p_object)
       AND r.seq > COALESCE(
               (SELECT c.seq FROM records c
                 WHERE c.workspace_id = app_workspace_id() AND c.id = p_after),
               CASE WHEN p_after IS NOT NULL THEN
                   (SELECT max(c.seq) FROM records c
                     WHERE c.workspace_id = app_workspace_id()
                       AND c.object_id = (SELECT o.id FROM objects o WHERE o.slug = p_object)
                       AND c.created_at <= p_after_created_at)
               END,
               0)
       AND record_readable(r, p_readable, p_person)
       AND (p_label IS NULL OR strpos(lower(r.label), lower(p_label)) > 0)
       AND (p_values IS NULL OR r."values" @> p_values)
       AND (p_related_to IS NULL OR (
               EXISTS (SELECT 1 FROM records t
                        WHERE t.id = p_related_to AND record_readable(t, p_readable, p_person))
               AND EXISTS (
                   SELECT 1 FROM record_links l
                    WHERE l.workspace_id = r.workspace_id AND l.record_id = r.id
                      AND l.target_id = p_related_to)))
     ORDER BY r.seq
     LIMIT p_limit
)
SELECT page.*, p_object AS object, COALESCE(rel.relations, '[]'::jsonb) AS relations
  FROM page
  LEFT JOIN readable_relations(ARRAY(SELECT id FROM page), p_readable, p_person) rel
         ON rel.record_id = page.id
 ORDER BY page.seq
$$;

CREATE FUNCTION records_page_plain(p_object text, p_readable uuid[], p_person uuid,
                                   p_after uuid, p_limit integer,
                                   p_after_created_at timestamptz)
RETURNS TABLE (id uuid, seq bigint, label text, "values" jsonb, visibility text,
               owner_member_id uuid, created_at timestamptz, updated_at timestamptz,
               object text, relations jsonb)
LANGUAGE sql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
SELECT * FROM records_page_rows(p_object, p_readable, p_person, p_after, p_limit, NULL, NULL,
                                NULL, p_after_created_at)
$$;

GRANT EXECUTE ON FUNCTION records_page_rows(text, uuid[], uuid, uuid, integer, text, jsonb, uuid,
                                            timestamptz) TO skillmem_app;
GRANT EXECUTE ON FUNCTION records_page_plain(text, uuid[], uuid, uuid, integer, timestamptz)
    TO skillmem_app;
