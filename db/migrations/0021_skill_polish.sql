-- Automatic polish (issue 12, item 4): a skill with 3 or more waiting lessons, or whose form
-- check fails, is polished by the reader on the worker's periodic job. Every look at a skill
-- is recorded against the state it read (its latest version and the ids of its waiting
-- lessons): a state is looked at once, whatever came of it.

-- The skill's latest version when a lesson was recorded: "a person changed the skill after
-- its last lesson" is a version by a member numbered above it. Lessons kept before this
-- migration count as recorded on version 0.
ALTER TABLE skill_lessons ADD COLUMN after_version integer NOT NULL DEFAULT 0;

CREATE FUNCTION skill_lessons_after_version() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    SELECT s.latest_version INTO NEW.after_version
      FROM skills s WHERE s.workspace_id = NEW.workspace_id AND s.id = NEW.skill_id;
    NEW.after_version := COALESCE(NEW.after_version, 0);
    RETURN NEW;
END
$$;
CREATE TRIGGER skill_lessons_after_version BEFORE INSERT ON skill_lessons
    FOR EACH ROW EXECUTE FUNCTION skill_lessons_after_version();

CREATE TABLE skill_polishes (
    workspace_id uuid NOT NULL,
    skill_id uuid NOT NULL,
    id uuid NOT NULL,
    -- The state looked at: the version read and its waiting lessons' ids ('3,5,9'; '' none).
    version integer NOT NULL CHECK (version > 0),
    lessons text NOT NULL,
    -- Why it was looked at: 'lessons' (3 or more waiting), 'form' (the form check fails),
    -- 'none' (neither: nothing to do for this state).
    trigger text NOT NULL CHECK (trigger IN ('lessons', 'form', 'none')),
    -- polished (a new version), refused (a guard refused the draft: the body is kept), unchanged
    -- (the draft is the body), skipped (not polished automatically, see reason), failed (the
    -- reader could not draft), checked (nothing to do).
    outcome text NOT NULL
        CHECK (outcome IN ('polished', 'refused', 'unchanged', 'skipped', 'failed', 'checked')),
    new_version integer,
    reason text NOT NULL DEFAULT '',
    reader text NOT NULL,
    payer_kind text NOT NULL CHECK (payer_kind IN ('member', 'workspace')),
    payer_id uuid,
    input_tokens integer NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
    output_tokens integer NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
    cost_usd numeric NOT NULL DEFAULT 0 CHECK (cost_usd >= 0),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, skill_id, id),
    UNIQUE (workspace_id, skill_id, version, lessons),
    CHECK ((outcome = 'polished') = (new_version IS NOT NULL)),
    CHECK ((payer_kind = 'workspace') = (payer_id IS NULL)),
    FOREIGN KEY (workspace_id, skill_id) REFERENCES skills (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, payer_id) REFERENCES members (workspace_id, id) ON DELETE CASCADE
);

ALTER TABLE skill_polishes ENABLE ROW LEVEL SECURITY;
ALTER TABLE skill_polishes FORCE ROW LEVEL SECURITY;
CREATE POLICY workspace_isolation ON skill_polishes USING (workspace_id = app_workspace_id())
    WITH CHECK (workspace_id = app_workspace_id());
-- A look is recorded once and never changed (deleting the skill removes them by cascade).
GRANT SELECT, INSERT ON skill_polishes TO skillmem_app;

-- The skills to look at, across workspaces: the worker's one view, SECURITY DEFINER like
-- dreamer_due; it answers ids and numbers, never a text; only the application role may call
-- it. A skill is to be looked at when its latest version was never looked at, or when it has
-- p_min_lessons or more waiting lessons and that state (version, lesson ids) was never looked
-- at. Oldest skills first, at most p_limit, of the workspaces p_workspaces (NULL: all).
CREATE FUNCTION skill_polish_candidates(p_min_lessons integer, p_limit integer,
                                        p_workspaces uuid[])
RETURNS TABLE (workspace_id uuid, skill_id uuid, version integer, lessons text, waiting integer)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
SELECT c.workspace_id, c.id, c.latest_version, c.lessons, c.waiting
  FROM (SELECT s.workspace_id, s.id, s.latest_version, s.created_at,
               COALESCE(string_agg(l.id::text, ',' ORDER BY l.id), '') AS lessons,
               count(l.id)::integer AS waiting
          FROM skills s
          LEFT JOIN skill_lessons l ON l.workspace_id = s.workspace_id AND l.skill_id = s.id
                                   AND l.folded_in IS NULL
         WHERE p_workspaces IS NULL OR s.workspace_id = ANY (p_workspaces)
         GROUP BY s.workspace_id, s.id) c
 WHERE NOT EXISTS (SELECT 1 FROM skill_polishes p
                    WHERE p.workspace_id = c.workspace_id AND p.skill_id = c.id
                      AND p.version = c.latest_version
                      AND (c.waiting < p_min_lessons OR p.lessons = c.lessons))
 ORDER BY c.created_at, c.workspace_id, c.id
 LIMIT p_limit
$$;
REVOKE EXECUTE ON FUNCTION skill_polish_candidates(integer, integer, uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION skill_polish_candidates(integer, integer, uuid[]) TO skillmem_app;

-- The owner, whom forced row-level security binds too, reads every workspace's rows of the
-- tables the function reads (requests act as skillmem_app, which these do not name).
CREATE POLICY skill_polish_schedule ON skills FOR SELECT TO CURRENT_USER USING (true);
CREATE POLICY skill_polish_schedule ON skill_lessons FOR SELECT TO CURRENT_USER USING (true);
CREATE POLICY skill_polish_schedule ON skill_polishes FOR SELECT TO CURRENT_USER USING (true);
