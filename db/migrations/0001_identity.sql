-- Workspaces and who may act in them: roles, members, agents, routines, API keys, MCP clients,
-- and the bearer tokens that name them. Every workspace table is isolated by row-level security.

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'skillmem_app') THEN
        CREATE ROLE skillmem_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
    END IF;
    -- The migrating role switches to the application role inside each request's transaction
    -- (when one URL serves both).
    IF NOT pg_has_role(current_user, 'skillmem_app', 'MEMBER') THEN
        EXECUTE format('GRANT skillmem_app TO %I', current_user);
    END IF;
    -- The role the service logs in as: it owns nothing, holds no right of its own (NOINHERIT)
    -- and may only become skillmem_app, which each request's transaction does.
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'skillmem_api') THEN
        CREATE ROLE skillmem_api LOGIN NOINHERIT NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
    END IF;
    IF NOT pg_has_role('skillmem_api', 'skillmem_app', 'MEMBER') THEN
        GRANT skillmem_app TO skillmem_api;
    END IF;
END
$$;

-- The workspace of the current transaction, or NULL when none was set.
CREATE FUNCTION app_workspace_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT NULLIF(current_setting('app.workspace_id', true), '')::uuid $$;

CREATE TABLE workspaces (
    workspace_id uuid PRIMARY KEY,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE roles (
    workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id uuid NOT NULL,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    can_update_settings boolean NOT NULL DEFAULT false,
    can_write_skills boolean NOT NULL DEFAULT false,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, name)
);

CREATE TABLE members (
    workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id uuid NOT NULL,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    email text NOT NULL CHECK (position('@' IN email) > 1),
    role_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, email),
    FOREIGN KEY (workspace_id, role_id) REFERENCES roles (workspace_id, id)
);

CREATE TABLE agents (
    workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id uuid NOT NULL,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    owner_member_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, name),
    FOREIGN KEY (workspace_id, owner_member_id) REFERENCES members (workspace_id, id)
);

CREATE TABLE routines (
    workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id uuid NOT NULL,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    owner_member_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, name),
    FOREIGN KEY (workspace_id, owner_member_id) REFERENCES members (workspace_id, id)
);

CREATE TABLE api_keys (
    workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id uuid NOT NULL,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    role_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, name),
    FOREIGN KEY (workspace_id, role_id) REFERENCES roles (workspace_id, id)
);

CREATE TABLE mcp_clients (
    workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id uuid NOT NULL,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    member_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, name),
    FOREIGN KEY (workspace_id, member_id) REFERENCES members (workspace_id, id)
);

-- A bearer token, stored only as the sha256 of its text. `member_id` is the person the
-- principal acts for (none for an API key).
CREATE TABLE tokens (
    workspace_id uuid NOT NULL REFERENCES workspaces ON DELETE CASCADE,
    id uuid NOT NULL,
    token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    kind text NOT NULL CHECK (kind IN ('member', 'agent', 'api_key', 'mcp_client')),
    member_id uuid,
    agent_id uuid,
    api_key_id uuid,
    mcp_client_id uuid,
    purpose text NOT NULL DEFAULT 'cli' CHECK (purpose IN ('cli', 'demo', 'test')),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    PRIMARY KEY (workspace_id, id),
    FOREIGN KEY (workspace_id, member_id) REFERENCES members (workspace_id, id),
    FOREIGN KEY (workspace_id, agent_id) REFERENCES agents (workspace_id, id),
    FOREIGN KEY (workspace_id, api_key_id) REFERENCES api_keys (workspace_id, id),
    FOREIGN KEY (workspace_id, mcp_client_id) REFERENCES mcp_clients (workspace_id, id),
    CHECK (
        CASE kind
            WHEN 'member' THEN member_id IS NOT NULL AND agent_id IS NULL
                AND api_key_id IS NULL AND mcp_client_id IS NULL
            WHEN 'agent' THEN member_id IS NOT NULL AND agent_id IS NOT NULL
                AND api_key_id IS NULL AND mcp_client_id IS NULL
            WHEN 'api_key' THEN member_id IS NULL AND agent_id IS NULL
                AND api_key_id IS NOT NULL AND mcp_client_id IS NULL
            WHEN 'mcp_client' THEN member_id IS NOT NULL AND agent_id IS NULL
                AND api_key_id IS NULL AND mcp_client_id IS NOT NULL
        END
    )
);
