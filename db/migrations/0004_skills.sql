-- Skills: a skill is a record of the native `skill` object (its label is the skill's name,
-- its visibility and owner are the record's); these tables hold the rest. Every change makes
-- an immutable version; files are stored once per workspace by their sha256.

CREATE TABLE skills (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    name text NOT NULL CHECK (name ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(name) <= 64),
    parent_id uuid,
    latest_version integer NOT NULL DEFAULT 1 CHECK (latest_version > 0),
    use_count integer NOT NULL DEFAULT 0 CHECK (use_count >= 0),
    last_used_at timestamptz,
    -- Where a catalogue install came from (later issues); NULL for a skill written here.
    source jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, name),
    FOREIGN KEY (workspace_id, id) REFERENCES records (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, parent_id) REFERENCES skills (workspace_id, id),
    CHECK (parent_id IS DISTINCT FROM id)
);
CREATE INDEX skills_by_parent ON skills (workspace_id, parent_id);

CREATE TABLE skill_blobs (
    workspace_id uuid NOT NULL,
    sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    size integer NOT NULL CHECK (size >= 0),
    content bytea NOT NULL,
    PRIMARY KEY (workspace_id, sha256),
    CHECK (length(content) = size)
);

CREATE TABLE skill_versions (
    workspace_id uuid NOT NULL,
    skill_id uuid NOT NULL,
    version integer NOT NULL CHECK (version > 0),
    description text NOT NULL CHECK (length(description) BETWEEN 1 AND 1024),
    content text NOT NULL,
    -- json, not jsonb: the frontmatter keeps its keys in the order they were written.
    extra_frontmatter json NOT NULL DEFAULT '{}' CHECK (json_typeof(extra_frontmatter) = 'object'),
    author_kind text NOT NULL,
    author_id uuid,
    author_name text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, skill_id, version),
    FOREIGN KEY (workspace_id, skill_id) REFERENCES skills (workspace_id, id) ON DELETE CASCADE
);

CREATE TABLE skill_files (
    workspace_id uuid NOT NULL,
    skill_id uuid NOT NULL,
    version integer NOT NULL,
    path text NOT NULL CHECK (length(path) BETWEEN 1 AND 1024),
    sha256 text NOT NULL,
    size integer NOT NULL CHECK (size >= 0),
    mode integer NOT NULL CHECK (mode IN (420, 493)),  -- 0o644, 0o755
    PRIMARY KEY (workspace_id, skill_id, version, path),
    FOREIGN KEY (workspace_id, skill_id, version)
        REFERENCES skill_versions (workspace_id, skill_id, version) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, sha256) REFERENCES skill_blobs (workspace_id, sha256)
);

CREATE TABLE skill_lessons (
    workspace_id uuid NOT NULL,
    skill_id uuid NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY,
    day date NOT NULL,
    text text NOT NULL CHECK (length(text) BETWEEN 1 AND 2000),
    -- The version whose body folded this lesson in (polish); NULL while it waits.
    folded_in integer,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, skill_id, id),
    FOREIGN KEY (workspace_id, skill_id) REFERENCES skills (workspace_id, id) ON DELETE CASCADE
);

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['skills', 'skill_blobs', 'skill_versions', 'skill_files',
                             'skill_lessons'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY workspace_isolation ON %I USING (workspace_id = app_workspace_id())'
            ' WITH CHECK (workspace_id = app_workspace_id())', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO skillmem_app', t);
    END LOOP;
END
$$;

-- Versions, their file lists and the stored contents are immutable: the application may add
-- them, never change or remove them (deleting a skill removes its versions by cascade).
REVOKE UPDATE, DELETE ON skill_versions, skill_files, skill_blobs FROM skillmem_app;
