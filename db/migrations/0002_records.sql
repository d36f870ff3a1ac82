-- Objects (kinds of records) with their attributes, records with values, single relations,
-- the change log, and role permissions per object.

CREATE TABLE objects (
    workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id uuid NOT NULL,
    slug text NOT NULL CHECK (slug ~ '^[a-z][a-z0-9_]{0,62}$'),
    singular text NOT NULL CHECK (length(singular) BETWEEN 1 AND 100),
    plural text NOT NULL CHECK (length(plural) BETWEEN 1 AND 100),
    -- custom: user-defined; skill and memory: native; document: the framework's documents.
    kind text NOT NULL DEFAULT 'custom' CHECK (kind IN ('custom', 'skill', 'memory', 'document')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, slug)
);

CREATE TABLE attributes (
    workspace_id uuid NOT NULL,
    object_id uuid NOT NULL,
    slug text NOT NULL CHECK (slug ~ '^[a-z][a-z0-9_]{0,62}$'),
    title text NOT NULL CHECK (length(title) BETWEEN 1 AND 100),
    type text NOT NULL
        CHECK (type IN ('text', 'number', 'date', 'boolean', 'email', 'url', 'relation')),
    target_object_id uuid,
    -- Position among the principal values shown on a card (NULL: not principal).
    principal_rank smallint CHECK (principal_rank > 0),
    position smallint NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, object_id, slug),
    FOREIGN KEY (workspace_id, object_id) REFERENCES objects (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, target_object_id) REFERENCES objects (workspace_id, id),
    CHECK ((type = 'relation') = (target_object_id IS NOT NULL))
);

CREATE TABLE role_permissions (
    workspace_id uuid NOT NULL,
    role_id uuid NOT NULL,
    object_id uuid NOT NULL,
    can_read boolean NOT NULL DEFAULT false,
    can_create boolean NOT NULL DEFAULT false,
    can_update boolean NOT NULL DEFAULT false,
    can_delete boolean NOT NULL DEFAULT false,
    PRIMARY KEY (workspace_id, role_id, object_id),
    FOREIGN KEY (workspace_id, role_id) REFERENCES roles (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, object_id) REFERENCES objects (workspace_id, id) ON DELETE CASCADE
);

CREATE TABLE records (
    workspace_id uuid NOT NULL,
    id uuid NOT NULL,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    object_id uuid NOT NULL,
    external_id text CHECK (length(external_id) BETWEEN 1 AND 200),
    label text NOT NULL CHECK (length(label) BETWEEN 1 AND 500),
    "values" jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof("values") = 'object'),
    visibility text NOT NULL DEFAULT 'workspace' CHECK (visibility IN ('workspace', 'private')),
    owner_member_id uuid,
    -- The members a private record is shared with (kept on the row so the read rule is a
    -- plain expression the planner can inline into every query).
    shared_with uuid[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, object_id, external_id),
    FOREIGN KEY (workspace_id, object_id) REFERENCES objects (workspace_id, id),
    FOREIGN KEY (workspace_id, owner_member_id) REFERENCES members (workspace_id, id),
    CHECK (visibility = 'workspace' OR owner_member_id IS NOT NULL)
);
CREATE INDEX records_by_object ON records (workspace_id, object_id, seq);

-- One single relation: the record points to one record of the attribute's target object.
CREATE TABLE record_links (
    workspace_id uuid NOT NULL,
    record_id uuid NOT NULL,
    attribute_slug text NOT NULL,
    target_id uuid NOT NULL,
    PRIMARY KEY (workspace_id, record_id, attribute_slug),
    FOREIGN KEY (workspace_id, record_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE,
    FOREIGN KEY (workspace_id, target_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX record_links_by_target ON record_links (workspace_id, target_id);

CREATE TABLE record_changes (
    workspace_id uuid NOT NULL,
    record_id uuid NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY,
    changed_at timestamptz NOT NULL DEFAULT now(),
    actor_kind text NOT NULL CHECK (actor_kind IN ('member', 'agent', 'api_key', 'mcp_client', 'system')),
    actor_id uuid,
    actor_name text NOT NULL,
    operation text NOT NULL CHECK (operation IN ('create', 'update')),
    fields text[] NOT NULL,
    PRIMARY KEY (workspace_id, record_id, id),
    FOREIGN KEY (workspace_id, record_id) REFERENCES records (workspace_id, id) ON DELETE CASCADE
);
