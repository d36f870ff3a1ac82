-- A turn's read with less PostgreSQL work (issue 17, item 1): json instead of jsonb, and the
-- rules it calls inlined into its plan.
--
-- * json, not jsonb. Nothing reads turn_read's answer or a line as shown in SQL: the
--   application decodes both. jsonb_build_object converted every value to jsonb and sorted its
--   keys, and the answer was turned back into text to be sent; json is written once, as text.
--   Each object is a row of named columns (json_agg of a row), not a json_build_object call,
--   which looks each value's output function up again on every call (as record_relations
--   does, migration 0041). The same keys, values and order.
-- * A SQL function whose body reads a table runs as a query of its own (its plan fetched,
--   started and ended) on every call, unless it is called in FROM as a set-returning function,
--   where the planner inlines it. The turn called four: memory_lines_shown_rows once,
--   agent_memory_on twice, object_carries_pages once a card. Their rules now live in
--   set-returning forms (memory_lines_shown_list, agent_memory_on_row,
--   object_carries_pages_row) that the turn calls LATERAL in FROM; the scalar functions, which
--   other statements call, return what those return, so each rule is written once.
-- * The profiles read whether memory is readable from the turn's memory CTE instead of asking
--   again.
--
-- Measured on the bench workspace (a 3-card turn with profiles, 18 souvenirs shown), one backend
-- as skillmem_app, calls of both functions alternating one by one (BENCHMARKS.md): json 0.80x
-- migration 0039's PostgreSQL CPU; the inlined rules and the profiles' memory check 0.92x of
-- that; the same answer decoded.

DROP FUNCTION turn_read(uuid[], uuid[], uuid, integer, integer, integer, uuid, boolean, boolean);
DROP FUNCTION memory_lines_shown_rows(memory_lines[], uuid[], uuid, boolean);

-- Lines (rows of memory_lines, in order) as one reader sees them, as one json array (one row,
-- always; [] for none): whether the reader (whose role reads p_readable, the person p_person;
-- every source open when p_every_open) can open each one's source, the source's kind and
-- owner, the label of the record it is about. Call it LATERAL in FROM, where the planner
-- inlines it.
CREATE FUNCTION memory_lines_shown_list(p_lines memory_lines[], p_readable uuid[],
                                        p_person uuid, p_every_open boolean)
RETURNS SETOF json
LANGUAGE sql STABLE
AS $$
SELECT COALESCE(json_agg(x ORDER BY l.ord), '[]')
  FROM unnest(p_lines) WITH ORDINALITY
           AS l(workspace_id, page_id, position, kind, key, text, type, author, day, until,
                human, source_kind, source_id, about_id, search_vector, ord)
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
       CROSS JOIN LATERAL (
           SELECT l.kind, l.text, l.key, l.type, l.author, l.day, l.until, l.human,
                  l.source_kind, l.source_id, l.about_id,
                  line_source_open(l.source_kind, src.record, cm.id, p_readable, p_person,
                                   p_every_open) AS source_open,
                  (src.record).id IS NOT NULL OR cm.id IS NOT NULL AS source_exists,
                  src.object AS source_object, COALESCE(cm.name, src.owner) AS source_owner,
                  (ab.record).label AS about_label,
                  line_source_open('record', ab.record, NULL, p_readable, p_person,
                                   p_every_open) AS about_open) x
$$;

GRANT EXECUTE ON FUNCTION memory_lines_shown_list(memory_lines[], uuid[], uuid, boolean)
    TO skillmem_app;

-- The same, as a value.
CREATE FUNCTION memory_lines_shown_rows(p_lines memory_lines[], p_readable uuid[],
                                        p_person uuid, p_every_open boolean)
RETURNS json
LANGUAGE sql STABLE
AS $$
SELECT shown FROM memory_lines_shown_list(p_lines, p_readable, p_person, p_every_open) AS shown
$$;

GRANT EXECUTE ON FUNCTION memory_lines_shown_rows(memory_lines[], uuid[], uuid, boolean)
    TO skillmem_app;

-- Lines as JSON (each with kind, key, text, type, author, day, until, human, source_kind,
-- source_id, about_id; other keys ignored), shown by the same rule, in the same order.
CREATE OR REPLACE FUNCTION memory_lines_shown(p_lines jsonb, p_readable uuid[], p_person uuid,
                                              p_every_open boolean)
RETURNS jsonb
LANGUAGE sql STABLE
AS $$
SELECT memory_lines_shown_rows(
           ARRAY(SELECT ROW(NULL::uuid, NULL::uuid, NULL::integer, l.kind, l.key, l.text, l.type,
                            l.author, l.day, l.until, l.human, l.source_kind, l.source_id,
                            l.about_id, NULL::tsvector)::memory_lines
                   FROM ROWS FROM (jsonb_to_recordset(p_lines)
                                   AS (kind text, key text, text text, type text, author text,
                                       day date, until date, human boolean, source_kind text,
                                       source_id uuid, about_id uuid))
                        WITH ORDINALITY AS l(kind, key, text, type, author, day, until, human,
                                             source_kind, source_id, about_id, ord)
                  ORDER BY l.ord),
           p_readable, p_person, p_every_open)::jsonb
$$;

-- Whether the turn's agent p_agent (none: a person's own turn) has memory on (migration 0019's
-- rule), as one row. Call it in FROM, where the planner inlines it.
CREATE FUNCTION agent_memory_on_row(p_agent uuid) RETURNS SETOF boolean
LANGUAGE sql STABLE
AS $$
    SELECT p_agent IS NULL
        OR COALESCE((SELECT 'memory' = ANY (a.tool_groups) FROM agents a
                      WHERE a.workspace_id = app_workspace_id() AND a.id = p_agent), false)
$$;

GRANT EXECUTE ON FUNCTION agent_memory_on_row(uuid) TO skillmem_app;

CREATE OR REPLACE FUNCTION agent_memory_on(p_agent uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT memory_on FROM agent_memory_on_row(p_agent) AS memory_on
$$;

-- Whether records of object p_object_id may carry a memory page (migration 0005's rule), as
-- one row (none for an object not in the workspace). Call it LATERAL in FROM, where the
-- planner inlines it.
CREATE FUNCTION object_carries_pages_row(p_object_id uuid) RETURNS SETOF boolean
LANGUAGE sql STABLE
AS $$
    SELECT o.kind = 'custom'
       AND NOT (EXISTS (SELECT 1 FROM attributes a
                         WHERE a.workspace_id = o.workspace_id AND a.object_id = o.id
                           AND a.type = 'relation' AND a.target_object_id <> o.id)
                AND NOT EXISTS (SELECT 1 FROM attributes a
                                 WHERE a.workspace_id = o.workspace_id AND a.type = 'relation'
                                   AND a.target_object_id = o.id))
      FROM objects o
     WHERE o.workspace_id = app_workspace_id() AND o.id = p_object_id
$$;

GRANT EXECUTE ON FUNCTION object_carries_pages_row(uuid) TO skillmem_app;

CREATE OR REPLACE FUNCTION object_carries_pages(p_object_id uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT carries FROM object_carries_pages_row(p_object_id) AS carries
$$;

-- What a turn reads: the same answers and settings as in migration 0039, built as json, with
-- the rules above inlined.
CREATE FUNCTION turn_read(p_ids uuid[], p_readable uuid[], p_person uuid,
                          p_profile_records integer, p_values integer, p_related integer,
                          p_agent uuid, p_cards boolean, p_profiles boolean)
RETURNS TABLE (cards json, profiles json, shown json)
LANGUAGE sql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
WITH memory AS (
    SELECT EXISTS (SELECT 1 FROM objects o
                    WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory'
                      AND o.id = ANY (p_readable)) AND agent.memory_on AS readable
      FROM agent_memory_on_row(p_agent) AS agent (memory_on)
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
           COALESCE((SELECT json_agg(x ORDER BY a.principal_rank, a.slug)
                       FROM (SELECT a.slug, a.title, a.principal_rank FROM attributes a
                              WHERE a.workspace_id = r.workspace_id AND a.object_id = r.object_id
                                AND a.principal_rank IS NOT NULL AND a.type <> 'relation'
                                AND NULLIF(btrim(r."values" ->> a.slug), '') IS NOT NULL
                              ORDER BY a.principal_rank, a.slug
                              LIMIT p_values) a,
                            LATERAL (SELECT a.slug, a.title) x), '[]') AS principal,
           COALESCE((SELECT json_agg(x ORDER BY rel.n)
                       FROM (SELECT u.id, u.label, u.object, u.attribute, u.direction, u.n FROM (
                                (SELECT t.id, t.label, tobj.singular AS object,
                                        l.attribute_slug AS attribute, 'to' AS direction,
                                        row_number() OVER (ORDER BY l.attribute_slug) AS n
                                   FROM record_links l
                                   JOIN records t ON t.workspace_id = l.workspace_id
                                                 AND t.id = l.target_id
                                   JOIN objects tobj ON tobj.workspace_id = t.workspace_id
                                                    AND tobj.id = t.object_id
                                  WHERE l.workspace_id = r.workspace_id AND l.record_id = r.id
                                    AND record_readable(t, p_readable, p_person))
                                UNION ALL
                                (SELECT s.id, s.label, sobj.singular, l.attribute_slug, 'from',
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
                              LIMIT p_related) rel,
                            LATERAL (SELECT rel.id, rel.label, rel.object, rel.attribute,
                                            rel.direction) x), '[]') AS related,
           (SELECT json_build_object('actor_name', ch.actor_name, 'at', ch.changed_at,
                                      'fields', ch.fields)
              FROM record_changes ch
             WHERE ch.workspace_id = r.workspace_id AND ch.record_id = r.id
             ORDER BY ch.id DESC
             LIMIT 1) AS last_change,
           COALESCE((SELECT array_agg(l ORDER BY l.position)
                       FROM memory, memory_pages p
                       JOIN memory_lines l ON l.workspace_id = p.workspace_id AND l.page_id = p.id
                      WHERE memory.readable AND p.workspace_id = r.workspace_id
                        AND p.about_kind = 'record'
                        AND p.subject_id = r.id AND p.trashed_at IS NULL
                        AND l.kind = 'souvenir' AND op.carries), '{}')
               AS page_lines,
           COALESCE((SELECT array_agg(l ORDER BY l.position)
                       FROM profile
                       JOIN memory_lines l ON l.workspace_id = r.workspace_id
                                          AND l.page_id = profile.id
                      WHERE l.about_id = r.id AND l.kind = 'souvenir'), '{}') AS profile_lines
      FROM chosen c
      JOIN records r ON r.workspace_id = app_workspace_id() AND r.id = c.id
      JOIN objects o ON o.workspace_id = r.workspace_id AND o.id = r.object_id
      LEFT JOIN LATERAL object_carries_pages_row(r.object_id) AS op (carries) ON true
     WHERE record_readable(r, p_readable, p_person)
     ORDER BY c.ord
),
profiles AS MATERIALIZED (
    SELECT p.about_kind, mr.label AS name, row_number() OVER (ORDER BY p.id) AS n,
           COALESCE(array_agg(l ORDER BY l.position) FILTER (WHERE l.position IS NOT NULL), '{}')
               AS lines
      FROM memory_pages p
      JOIN records mr ON mr.workspace_id = p.workspace_id AND mr.id = p.id
      LEFT JOIN memory_lines l
        ON l.workspace_id = p.workspace_id AND l.page_id = p.id
       AND (p.about_kind <> 'member' OR l.about_id IS NULL)
     WHERE p_profiles AND p.workspace_id = app_workspace_id() AND p.trashed_at IS NULL
       AND (SELECT memory.readable FROM memory)
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
    SELECT b.batch, b.pos, e.i, b.lines[e.i] AS line
      FROM batches b, generate_subscripts(b.lines, 1) AS e(i)
)
SELECT (SELECT COALESCE(json_agg(x ORDER BY c.ord), '[]')
          FROM cards c,
               LATERAL (SELECT c.ord, c.source, c.id, c.label, c.object, c.object_name,
                               c."values", c.principal, c.related, c.last_change,
                               cardinality(c.page_lines) AS page_count,
                               cardinality(c.profile_lines) AS profile_count) x),
       (SELECT COALESCE(json_agg(x ORDER BY p.n), '[]')
          FROM profiles p,
               LATERAL (SELECT p.about_kind, p.name, cardinality(p.lines) AS count) x),
       (SELECT sh.lines
          FROM (SELECT COALESCE(array_agg(s.line ORDER BY s.batch, s.pos, s.i), '{}') AS lines
                  FROM stored s) g
               CROSS JOIN LATERAL memory_lines_shown_list(g.lines, p_readable, p_person, false)
                   AS sh (lines))
$$;

GRANT EXECUTE ON FUNCTION turn_read(uuid[], uuid[], uuid, integer, integer, integer, uuid,
                                    boolean, boolean) TO skillmem_app;
