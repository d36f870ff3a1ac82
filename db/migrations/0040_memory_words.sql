-- An ordinary search without a prefix scan (issue 17, item 4). A search's last word is a prefix
-- (search_query: typed as you go), and GIN answers `'dubois':*` by decoding every row of every
-- word with that prefix into a bitmap, where an exact word is walked with skips beside the
-- others. The workspace's souvenir words are kept here, counted by the lines holding them, so
-- that the prefix becomes the exact words it stands for (at most 32; else the prefix as before).
--
-- The counts are kept by statement-level triggers on memory_lines (one row per word a statement
-- changes). A word's count is spread over 16 slots (the writing transaction's id modulo 16), so
-- that two transactions writing the same common words of one workspace rarely wait on the same
-- row; each statement adds its changes in (workspace, word) order. A word's lines are the sum of
-- its slots; rows that sum to zero stay (a word is known while that sum is above zero), so no
-- delete races an insert. Words whose souvenirs are all gone (redaction, the Monday removal) are
-- no longer known.
CREATE TABLE memory_words (
    workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    word text COLLATE "C" NOT NULL,
    slot smallint NOT NULL CHECK (slot BETWEEN 0 AND 15),
    lines integer NOT NULL,
    PRIMARY KEY (workspace_id, word, slot)
);
ALTER TABLE memory_words ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_words FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON memory_words USING (workspace_id = app_workspace_id())
    WITH CHECK (workspace_id = app_workspace_id());
GRANT SELECT, INSERT, UPDATE ON memory_words TO skillmem_app;

-- The words of a statement's souvenir lines added (+1 a line) and removed (-1), summed by word,
-- written in order. Runs as the writer: row-level security holds the rows to its workspace.
CREATE FUNCTION memory_words_count() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
DECLARE
    v_workspaces uuid[];
    v_words text[];
    v_lines integer[];
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        TRUNCATE memory_words;
        RETURN NULL;
    ELSIF TG_OP = 'INSERT' THEN
        SELECT array_agg(n.workspace_id), array_agg(u.lexeme), array_agg(1)
          INTO v_workspaces, v_words, v_lines
          FROM new_rows n, unnest(n.search_vector) u
         WHERE n.kind = 'souvenir';
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(o.workspace_id), array_agg(u.lexeme), array_agg(-1)
          INTO v_workspaces, v_words, v_lines
          FROM old_rows o, unnest(o.search_vector) u
         WHERE o.kind = 'souvenir';
    ELSE
        SELECT array_agg(c.workspace_id), array_agg(c.word), array_agg(c.n)
          INTO v_workspaces, v_words, v_lines
          FROM (SELECT n.workspace_id, u.lexeme AS word, 1 AS n
                  FROM new_rows n, unnest(n.search_vector) u
                 WHERE n.kind = 'souvenir'
                UNION ALL
                SELECT o.workspace_id, u.lexeme, -1
                  FROM old_rows o, unnest(o.search_vector) u
                 WHERE o.kind = 'souvenir') c;
    END IF;
    IF v_words IS NULL THEN
        RETURN NULL;
    END IF;
    INSERT INTO memory_words AS w (workspace_id, word, slot, lines)
    SELECT d.workspace_id, d.word, (pg_current_xact_id()::text::bigint % 16)::smallint, d.lines
      FROM (SELECT c.workspace_id, c.word, sum(c.lines)::integer AS lines
              FROM unnest(v_workspaces, v_words, v_lines) AS c(workspace_id, word, lines)
             GROUP BY c.workspace_id, c.word) d
     WHERE d.lines <> 0
     ORDER BY d.workspace_id, d.word COLLATE "C"
    ON CONFLICT (workspace_id, word, slot) DO UPDATE SET lines = w.lines + excluded.lines;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION memory_words_count() FROM PUBLIC;

CREATE TRIGGER memory_words_insert
AFTER INSERT ON memory_lines REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION memory_words_count();
CREATE TRIGGER memory_words_update
AFTER UPDATE ON memory_lines REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION memory_words_count();
CREATE TRIGGER memory_words_delete
AFTER DELETE ON memory_lines REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION memory_words_count();
CREATE TRIGGER memory_words_truncate
AFTER TRUNCATE ON memory_lines
FOR EACH STATEMENT EXECUTE FUNCTION memory_words_count();

-- The words already there.
INSERT INTO memory_words (workspace_id, word, slot, lines)
SELECT l.workspace_id, u.lexeme, 0, count(*)
  FROM memory_lines l, unnest(l.search_vector) u
 WHERE l.kind = 'souvenir'
 GROUP BY l.workspace_id, u.lexeme;

-- A query of search_query whose last word is a prefix ('a' & 'b':*), that prefix replaced by
-- the known words of the transaction's workspace it stands for ('a' & ( 'b' | 'bc' )), when
-- there are 1 to 32 of them; any other query as it is. Matches the same souvenirs of that
-- workspace: each of them holds only known words.
CREATE FUNCTION memory_words_match(p_query tsquery) RETURNS tsquery
LANGUAGE sql STABLE PARALLEL SAFE STRICT
AS $$
    WITH last AS (
        -- The last item, quoted as tsquery's text writes it ('' and \\ for ' and \).
        SELECT t.text, m[1] AS quoted,
               replace(replace(m[1], '''''', ''''), '\\', '\') AS lexeme
          FROM (SELECT p_query::text AS text) t,
               regexp_match(t.text, '''((?:[^''\\]|''''|\\\\)*)'':\*$') AS m
    ),
    words AS (
        SELECT w.word
          FROM last, memory_words w
         WHERE w.workspace_id = app_workspace_id()
           -- The words that start with it (no lexeme holds U+10FFFF, not a letter).
           AND w.word >= last.lexeme AND w.word < last.lexeme || chr(1114111)
           AND starts_with(w.word, last.lexeme)
         GROUP BY w.word
        HAVING sum(w.lines) > 0
         ORDER BY w.word
         LIMIT 33
    )
    SELECT COALESCE((
        SELECT (left(last.text, -(length(last.quoted) + 4)) || '( '
                || string_agg('''' || replace(replace(words.word, '\', '\\'), '''', '''''')
                              || '''', ' | ' ORDER BY words.word)
                || ' )')::tsquery
          FROM last, words
         GROUP BY last.text, last.quoted
        HAVING count(*) <= 32
    ), p_query)
$$;
REVOKE ALL ON FUNCTION memory_words_match(tsquery) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION memory_words_match(tsquery) TO skillmem_app;

-- The match of migration 0038 with two changes:
-- - the souvenirs are found through the exact words of the query's last prefix
--   (memory_words_match), and ranked by the query as typed (the same ranks as before: ts_rank
--   scores a prefix's words as one item of the query, an OR of words as several);
-- - a match is its line's key (page and position) and rank, not the line: the callers read the
--   text, key, type and day of the lines they answer only (20 of a few hundred for a search),
--   so the rows copied through the head, the tuple stores and the sorts are narrow.
DROP FUNCTION memory_line_matches(tsquery, uuid[], uuid, integer);
CREATE FUNCTION memory_line_matches(p_query tsquery, p_readable uuid[],
                                               p_person uuid, p_limit integer)
RETURNS TABLE (page_id uuid, "position" integer, rank real)
LANGUAGE sql STABLE SECURITY DEFINER ROWS 50
SET search_path = public, pg_temp
AS $$
    WITH head AS MATERIALIZED (
        -- The first 2,501 matches in the index's order, ranked.
        SELECT l.workspace_id, l.page_id, l.position,
               ts_rank(l.search_vector, p_query) AS rank
          FROM memory_lines l
         WHERE l.workspace_id = (SELECT app_workspace_id()) AND l.kind = 'souvenir'
           AND l.search_vector @@ (SELECT memory_words_match(p_query))
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
        SELECT * FROM (SELECT l.workspace_id, l.page_id, l.position,
                              ts_rank(l.search_vector, p_query) AS rank
                         FROM memory_lines l
                        WHERE (SELECT yes FROM common)
                          AND l.workspace_id = (SELECT app_workspace_id()) AND l.kind = 'souvenir'
                          AND l.search_vector @@ (SELECT memory_words_match(p_query))
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
    SELECT k.page_id, k.position, k.rank
      FROM (SELECT * FROM every UNION ALL SELECT * FROM kept) k
$$;
REVOKE ALL ON FUNCTION memory_line_matches(tsquery, uuid[], uuid, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION memory_line_matches(tsquery, uuid[], uuid, integer) TO skillmem_app;

-- A page and a record looked up by id: the match looks up each matching page and its subject
-- record (288 of each for a name in the bench workspace). A hash index answers an id in about
-- 1,500 instructions, the primary key's btree on (workspace_id, id) in about 10,000 (two uuid
-- columns compared down three levels); the workspace is then checked on the row.
CREATE INDEX memory_pages_by_id ON memory_pages USING hash (id);
CREATE INDEX records_by_id ON records USING hash (id);
