-- A turn's read without its souvenirs' trips through JSON (issue 17, item 1). turn_read
-- (migration 0035) turned every souvenir of its cards and profiles into JSON (`to_jsonb` of the
-- whole line, its search_vector written out as text, then removed), took the lists apart again
-- (jsonb_array_elements), gathered them (jsonb_agg), and memory_lines_shown read them back
-- (jsonb_to_recordset). The lines now stay rows from the table to the rule: arrays of
-- memory_lines, gathered and taken apart by position. Measured on the bench workspace, one
-- backend, alternating with the former function (BENCHMARKS.md): a 3-card turn's statement
-- 1.73 -> 1.20 ms of PostgreSQL CPU (medians of 16 rounds on a busy machine), the same answer.
--
-- memory_lines_shown_rows is the reading rule of memory_lines_shown (migration 0035) over rows;
-- memory_lines_shown (lines as JSON: a version's, a store's) now reads its lines and hands
-- them to it, so the rule is written once. A page read (page_shown) passes its rows too.

-- Lines (rows of memory_lines, in order) as one reader sees them: whether the reader (whose
-- role reads p_readable, the person p_person; every source open when p_every_open) can open
-- each one's source, the source's kind and owner, the label of the record it is about.
CREATE FUNCTION memory_lines_shown_rows(p_lines memory_lines[], p_readable uuid[],
                                        p_person uuid, p_every_open boolean)
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
           p_readable, p_person, p_every_open)
$$;

-- What a turn reads: as in migration 0035 (the same statements, answers and settings), the
-- souvenirs kept as rows until memory_lines_shown_rows shows them.
CREATE OR REPLACE FUNCTION turn_read(p_ids uuid[], p_readable uuid[], p_person uuid,
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
           COALESCE((SELECT array_agg(l ORDER BY l.position)
                       FROM memory, memory_pages p
                       JOIN memory_lines l ON l.workspace_id = p.workspace_id AND l.page_id = p.id
                      WHERE memory.readable AND p.workspace_id = r.workspace_id
                        AND p.about_kind = 'record'
                        AND p.subject_id = r.id AND p.trashed_at IS NULL
                        AND l.kind = 'souvenir' AND object_carries_pages(r.object_id)), '{}')
               AS page_lines,
           COALESCE((SELECT array_agg(l ORDER BY l.position)
                       FROM profile
                       JOIN memory_lines l ON l.workspace_id = r.workspace_id
                                          AND l.page_id = profile.id
                      WHERE l.about_id = r.id AND l.kind = 'souvenir'), '{}') AS profile_lines
      FROM chosen c
      JOIN records r ON r.workspace_id = app_workspace_id() AND r.id = c.id
      JOIN objects o ON o.workspace_id = r.workspace_id AND o.id = r.object_id
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
    SELECT b.batch, b.pos, e.i, b.lines[e.i] AS line
      FROM batches b, generate_subscripts(b.lines, 1) AS e(i)
)
SELECT (SELECT COALESCE(jsonb_agg(jsonb_build_object(
                                      'ord', c.ord, 'source', c.source, 'id', c.id,
                                      'label', c.label, 'object', c.object,
                                      'object_name', c.object_name, 'values', c."values",
                                      'principal', c.principal, 'related', c.related,
                                      'last_change', c.last_change,
                                      'page_count', cardinality(c.page_lines),
                                      'profile_count', cardinality(c.profile_lines))
                                  ORDER BY c.ord), '[]')
          FROM cards c),
       (SELECT COALESCE(jsonb_agg(jsonb_build_object('about_kind', p.about_kind,
                                                     'name', p.name,
                                                     'count', cardinality(p.lines))
                                  ORDER BY p.n), '[]')
          FROM profiles p),
       (SELECT CASE WHEN count(*) = 0 THEN '[]'::jsonb
                    ELSE memory_lines_shown_rows(array_agg(s.line ORDER BY s.batch, s.pos, s.i),
                                            p_readable, p_person, false)
               END
          FROM stored s)
$$;

