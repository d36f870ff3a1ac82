-- What an agent reads each turn (DESIGN §7): the cards of a turn stored with its message and
-- the profiles read at the start of a conversation, both replayed as first written; and the
-- search over memory and skills (PostgreSQL full-text search on accent-folded text).

CREATE EXTENSION IF NOT EXISTS unaccent;

-- Lowercase, accents removed: "Préférence" and "preference" fold alike. IMMUTABLE (with the
-- dictionary named) so it can back an index.
CREATE FUNCTION search_fold(p_text text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, p_text)) $$;

ALTER TABLE memory_lines ADD COLUMN search_vector tsvector
    GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, search_fold(text))) STORED;
CREATE INDEX memory_lines_search ON memory_lines USING gin (search_vector)
    WHERE kind = 'souvenir';

-- The query for a text: its first 8 words, cut as the index cuts souvenirs (an email or a
-- host stays one word), folded and quoted (nothing the caller types is query syntax), all
-- required, the last one a prefix when it has 3 letters or more (a search typed as you go).
CREATE FUNCTION search_query(p_text text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$
    SELECT to_tsquery('simple'::regconfig, COALESCE(string_agg(
               quote_literal(w.lexeme)
               || CASE WHEN w.pos = w.last AND length(w.lexeme) >= 3 THEN ':*' ELSE '' END,
               ' & ' ORDER BY w.pos), ''))
      FROM (SELECT first.lexeme, first.pos, max(first.pos) OVER () AS last
              FROM (SELECT u.lexeme, u.positions[1] AS pos
                      FROM unnest(to_tsvector('simple'::regconfig, search_fold(p_text))) AS u
                     -- A one-letter word (the s of "Acme's") says nothing beside others.
                     WHERE length(u.lexeme) > 1
                        OR length(to_tsvector('simple'::regconfig, search_fold(p_text))) = 1
                     ORDER BY u.positions[1]
                     LIMIT 8) first) w
$$;

-- The souvenirs of the transaction's workspace matching a query on the live pages the caller
-- may read (a role that reads memory; a record page by whoever reads its record; a member's
-- profile by that member only), the best ranked first, at most p_limit of them.
-- Row-level security lets no index use a non-leakproof operator such as @@, so a search under
-- it reads every line; this function runs as the tables' owner and filters the workspace
-- itself (the same condition as the policies), so the full-text index serves it. (An owner
-- that is neither superuser nor BYPASSRLS stays under the forced policies: still correct,
-- without the index.)
CREATE FUNCTION memory_line_matches(p_query tsquery, p_readable uuid[], p_person uuid,
                                    p_limit integer)
RETURNS TABLE (page_id uuid, key text, text text, type text, day date, "position" integer,
               rank real)
LANGUAGE sql STABLE SECURITY DEFINER ROWS 50
SET search_path = public, pg_temp
AS $$
    SELECT l.page_id, l.key, l.text, l.type, l.day, l.position,
           ts_rank(l.search_vector, p_query) AS rank
      FROM memory_lines l
      -- Each matching line's page and record looked up by key (OFFSET 0 keeps the planner
      -- from hashing every page of the workspace instead).
      CROSS JOIN LATERAL (SELECT p.about_kind, p.member_id, p.subject_id FROM memory_pages p
                           WHERE p.workspace_id = l.workspace_id AND p.id = l.page_id
                             AND p.trashed_at IS NULL
                          OFFSET 0) p
      LEFT JOIN LATERAL (SELECT s.* FROM records s
                          WHERE s.workspace_id = l.workspace_id AND s.id = p.subject_id
                         OFFSET 0) s ON true
     WHERE l.workspace_id = app_workspace_id() AND l.kind = 'souvenir'
       AND l.search_vector @@ p_query
       AND EXISTS (SELECT 1 FROM objects o
                    WHERE o.workspace_id = app_workspace_id() AND o.slug = 'memory'
                      AND o.id = ANY (p_readable))
       AND CASE p.about_kind
               WHEN 'record' THEN COALESCE(record_readable(s::records, p_readable, p_person),
                                           false)
               WHEN 'member' THEN COALESCE(p.member_id = p_person, false)
               ELSE true
           END
     ORDER BY rank DESC, l.page_id, l.position
     LIMIT p_limit
$$;
REVOKE ALL ON FUNCTION memory_line_matches(tsquery, uuid[], uuid, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION memory_line_matches(tsquery, uuid[], uuid, integer) TO skillmem_app;

ALTER TABLE skill_versions ADD COLUMN search_vector tsvector
    GENERATED ALWAYS AS (
        setweight(to_tsvector('simple'::regconfig, search_fold(description)), 'A')
        || setweight(to_tsvector('simple'::regconfig, search_fold(content)), 'B')) STORED;
CREATE INDEX skill_versions_search ON skill_versions USING gin (search_vector);

-- The profiles an agent reads at the start of a conversation, kept for the conversation.
CREATE TABLE turn_snapshots (
    workspace_id uuid NOT NULL,
    conversation_id text NOT NULL CHECK (length(conversation_id) BETWEEN 1 AND 200),
    person_id uuid NOT NULL,
    agent_id uuid,
    profiles jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, conversation_id),
    FOREIGN KEY (workspace_id, person_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE
);

-- The cards of one turn, stored with its message and replayed exactly.
CREATE TABLE turn_cards (
    workspace_id uuid NOT NULL,
    message_id text NOT NULL CHECK (length(message_id) BETWEEN 1 AND 200),
    conversation_id text,
    person_id uuid NOT NULL,
    cards jsonb NOT NULL,
    budget jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, message_id),
    FOREIGN KEY (workspace_id, person_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE
);

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['turn_snapshots', 'turn_cards'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY workspace_isolation ON %I USING (workspace_id = app_workspace_id())'
            ' WITH CHECK (workspace_id = app_workspace_id())', t);
        EXECUTE format('GRANT SELECT, INSERT ON %I TO skillmem_app', t);
    END LOOP;
END
$$;

GRANT EXECUTE ON FUNCTION search_fold(text) TO skillmem_app;
GRANT EXECUTE ON FUNCTION search_query(text) TO skillmem_app;
