-- How a reader sees memory lines, written once (DESIGN §5): for stored lines (a page's rows or
-- a version's JSON, in order), each line's fields with whether the reader can open its source
-- (line_source_open), the source's kind and owner, and the label of the record it is about.
-- page_shown passes a page's rows, lines_shown a version's lines.
CREATE FUNCTION memory_lines_shown(p_lines jsonb, p_readable uuid[], p_person uuid,
                                   p_every_open boolean)
RETURNS jsonb
LANGUAGE sql STABLE
AS $$
SELECT COALESCE(jsonb_agg(jsonb_build_object(
                   'kind', l.kind, 'text', l.text, 'key', l.key, 'type', l.type,
                   'author', l.author, 'day', l.day, 'until', l.until, 'human', l.human,
                   'source_kind', l.source_kind, 'source_id', l.source_id,
                   'about_id', l.about_id,
                   'source_open', line_source_open(l.source_kind, src, cm.id, p_readable,
                                                   p_person, p_every_open),
                   'source_exists', src.id IS NOT NULL OR cm.id IS NOT NULL,
                   'source_object', so.singular,
                   'source_owner', COALESCE(cm.name, som.name),
                   'about_label', ab.label,
                   'about_open', line_source_open('record', ab, NULL, p_readable, p_person,
                                                  p_every_open)) ORDER BY l.ord), '[]')
  FROM ROWS FROM (jsonb_to_recordset(p_lines) AS (kind text, key text, text text, type text,
                                                  author text, day date, until date,
                                                  human boolean, source_kind text,
                                                  source_id uuid, about_id uuid))
       WITH ORDINALITY AS l(kind, key, text, type, author, day, until, human, source_kind,
                            source_id, about_id, ord)
       LEFT JOIN records src
         ON l.source_kind = 'record' AND src.workspace_id = app_workspace_id()
        AND src.id = l.source_id
       LEFT JOIN objects so ON so.workspace_id = src.workspace_id AND so.id = src.object_id
       LEFT JOIN members som
         ON som.workspace_id = src.workspace_id AND som.id = src.owner_member_id
       LEFT JOIN members cm
         ON l.source_kind = 'conversation' AND cm.workspace_id = app_workspace_id()
        AND cm.id = l.source_id
       LEFT JOIN records ab ON ab.workspace_id = app_workspace_id() AND ab.id = l.about_id
$$;

GRANT EXECUTE ON FUNCTION memory_lines_shown(jsonb, uuid[], uuid, boolean) TO skillmem_app;
