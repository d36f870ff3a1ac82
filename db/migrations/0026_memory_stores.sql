-- Memory stores (issue 14, item 3; seed 001): a store is a record of the native
-- `memory_store` object (its label is the store's name, its visibility and owner are the
-- record's), holding UTF-8 text memories at paths. Every create, modify and delete of a memory
-- adds an immutable version with its actor; a version is changed only by its redaction.

ALTER TABLE objects DROP CONSTRAINT objects_kind_check;
ALTER TABLE objects ADD CONSTRAINT objects_kind_check
    CHECK (kind IN ('custom', 'skill', 'memory', 'document', 'memory_store'));

CREATE TABLE memory_stores (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
    description text NOT NULL DEFAULT '' CHECK (length(description) <= 1024),
    metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    archived_at timestamptz,
    PRIMARY KEY (workspace_id, id),
    FOREIGN KEY (workspace_id, id) REFERENCES records (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX memory_stores_by_creation ON memory_stores (workspace_id, created_at, id);

-- A memory: its path (compared byte by byte), its content and the version it is at.
CREATE TABLE store_memories (
    workspace_id uuid NOT NULL,
    store_id uuid NOT NULL,
    id uuid NOT NULL,
    path text COLLATE "C" NOT NULL CHECK (octet_length(path) BETWEEN 2 AND 1024),
    content text NOT NULL CHECK (octet_length(content) <= 102400),
    content_sha256 text NOT NULL CHECK (content_sha256 ~ '^[0-9a-f]{64}$'),
    version_id uuid NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (workspace_id, store_id, id),
    UNIQUE (workspace_id, store_id, path),
    FOREIGN KEY (workspace_id, store_id) REFERENCES memory_stores (workspace_id, id)
        ON DELETE CASCADE
);

-- Every create, modify and delete of a memory: who (the actor's kind, id and name, the token
-- it came through), when, and the path and content it left (NULL for a delete and once
-- redacted). Versions outlive their memory; they go with their store.
CREATE TABLE store_memory_versions (
    workspace_id uuid NOT NULL,
    store_id uuid NOT NULL,
    id uuid NOT NULL,
    memory_id uuid NOT NULL,
    operation text NOT NULL CHECK (operation IN ('created', 'modified', 'deleted')),
    path text COLLATE "C",
    content text,
    content_sha256 text CHECK (content_sha256 ~ '^[0-9a-f]{64}$'),
    content_size_bytes integer CHECK (content_size_bytes >= 0),
    actor_kind text NOT NULL CHECK (actor_kind IN ('member', 'agent', 'api_key', 'mcp_client')),
    actor_id uuid NOT NULL,
    actor_name text NOT NULL,
    session_id uuid,
    created_at timestamptz NOT NULL,
    redacted_at timestamptz,
    redactor_kind text CHECK (redactor_kind IN ('member', 'agent', 'api_key', 'mcp_client')),
    redactor_id uuid,
    redactor_session_id uuid,
    PRIMARY KEY (workspace_id, store_id, id),
    FOREIGN KEY (workspace_id, store_id) REFERENCES memory_stores (workspace_id, id)
        ON DELETE CASCADE,
    CHECK ((redacted_at IS NULL) = (redactor_kind IS NULL)),
    CHECK (redacted_at IS NULL OR num_nonnulls(path, content, content_sha256,
                                               content_size_bytes) = 0)
);
CREATE INDEX store_memory_versions_by_memory
    ON store_memory_versions (workspace_id, store_id, memory_id, created_at);
CREATE INDEX store_memory_versions_by_creation
    ON store_memory_versions (workspace_id, store_id, created_at, id);

-- A version changes once, by its redaction: content, path, hash and size scrubbed, who
-- redacted it and when set, everything else kept.
CREATE FUNCTION store_memory_versions_only_redacted() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF OLD.redacted_at IS NOT NULL OR NEW.redacted_at IS NULL
       OR num_nonnulls(NEW.path, NEW.content, NEW.content_sha256, NEW.content_size_bytes) > 0
       OR (NEW.workspace_id, NEW.store_id, NEW.id, NEW.memory_id, NEW.operation, NEW.actor_kind,
           NEW.actor_id, NEW.actor_name, NEW.session_id, NEW.created_at)
          IS DISTINCT FROM
          (OLD.workspace_id, OLD.store_id, OLD.id, OLD.memory_id, OLD.operation, OLD.actor_kind,
           OLD.actor_id, OLD.actor_name, OLD.session_id, OLD.created_at) THEN
        RAISE EXCEPTION 'a memory version is immutable: it can only be redacted';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER store_memory_versions_immutable BEFORE UPDATE ON store_memory_versions
    FOR EACH ROW EXECUTE FUNCTION store_memory_versions_only_redacted();

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['memory_stores', 'store_memories', 'store_memory_versions'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY workspace_isolation ON %I USING (workspace_id = app_workspace_id())'
            ' WITH CHECK (workspace_id = app_workspace_id())', t);
    END LOOP;
END
$$;

GRANT SELECT, INSERT, UPDATE, DELETE ON memory_stores, store_memories TO skillmem_app;
-- Versions are added and redacted, never otherwise changed nor removed by the application
-- (a store's delete removes them by cascade).
GRANT SELECT, INSERT ON store_memory_versions TO skillmem_app;
GRANT UPDATE (path, content, content_sha256, content_size_bytes, redacted_at, redactor_kind,
              redactor_id, redactor_session_id) ON store_memory_versions TO skillmem_app;

-- The native object in every existing workspace, with the standard roles' usual rights
-- (resolvers/records/workspaces.py does the same for a new workspace).
DO $$
DECLARE
    w uuid;
    o uuid;
BEGIN
    FOR w IN SELECT workspace_id FROM workspaces LOOP
        PERFORM set_config('app.workspace_id', w::text, true);
        o := gen_random_uuid();
        INSERT INTO objects (workspace_id, id, slug, singular, plural, kind)
        VALUES (w, o, 'memory_store', 'Memory store', 'Memory stores', 'memory_store')
        ON CONFLICT (workspace_id, slug) DO NOTHING;
        IF FOUND THEN
            INSERT INTO role_permissions (workspace_id, role_id, object_id, can_read, can_create,
                                          can_update, can_delete)
            SELECT w, r.id, o, true, r.name IN ('admin', 'member'), r.name IN ('admin', 'member'),
                   r.name = 'admin'
              FROM roles r
             WHERE r.workspace_id = w AND r.name IN ('admin', 'member', 'viewer');
        END IF;
    END LOOP;
    PERFORM set_config('app.workspace_id', '', true);
END
$$;
