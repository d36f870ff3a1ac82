-- Subscriptions (issue 13, item 2): what a pass wrote and which proposals it decided are told to
-- every API process on the channel skillmem_events, so that a subscriber hears of a pass run by
-- a worker in another process. The payload holds ids only ({"kind", "workspace", "ids"}, at
-- most 100 ids a notification); a subscriber then reads the rows under its own workspace and
-- permissions (db/queries/memory_updates.sql). PostgreSQL sends them when the transaction
-- commits, and never for one rolled back.
CREATE FUNCTION memory_events_notify() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
DECLARE
    v_kind text;
    v_rows jsonb;
BEGIN
    IF TG_TABLE_NAME = 'memory_verdicts' THEN
        -- The items the statement gave a written or refreshed verdict: "Memory updated".
        v_kind := 'memory';
        SELECT COALESCE(jsonb_agg(jsonb_build_object('workspace_id', a.workspace_id,
                                                     'id', a.item_id)), '[]')
          INTO v_rows
          FROM after_rows a WHERE a.page_id IS NOT NULL AND a.verdict <> 'refused';
    ELSE
        -- The proposals the statement decided (from waiting to any other status).
        v_kind := 'proposal';
        SELECT COALESCE(jsonb_agg(jsonb_build_object('workspace_id', a.workspace_id,
                                                     'id', a.id)), '[]')
          INTO v_rows
          FROM after_rows a
          JOIN before_rows b ON b.workspace_id = a.workspace_id AND b.id = a.id
         WHERE b.status = 'waiting' AND a.status <> 'waiting';
    END IF;
    PERFORM pg_notify('skillmem_events', jsonb_build_object(
                'kind', v_kind, 'workspace', c.workspace_id, 'ids', c.ids)::text)
       FROM (SELECT r.workspace_id, jsonb_agg(DISTINCT r.id) AS ids
               FROM (SELECT x.workspace_id, x.id,
                            (dense_rank() OVER (PARTITION BY x.workspace_id ORDER BY x.id) - 1)
                                / 100 AS chunk
                       FROM jsonb_to_recordset(v_rows) AS x(workspace_id uuid, id uuid)) r
              GROUP BY r.workspace_id, r.chunk) c;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION memory_events_notify() FROM PUBLIC;

CREATE TRIGGER memory_verdicts_notify
AFTER INSERT ON memory_verdicts REFERENCING NEW TABLE AS after_rows
FOR EACH STATEMENT EXECUTE FUNCTION memory_events_notify();

CREATE TRIGGER memory_proposals_notify
AFTER UPDATE ON memory_proposals REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows
FOR EACH STATEMENT EXECUTE FUNCTION memory_events_notify();

-- Who may read a page (DESIGN §5), in SQL: the reader's role reads memory (the page's record's
-- object) and, for a record's page, the record; a member's profile only by that member; an
-- agent's, a routine's or the workspace's profile by whoever reads memory. (The same rule as
-- resolvers/memory/access.may_read_page.)
CREATE FUNCTION memory_page_readable(p_about_kind text, p_member_id uuid, p_memory_object uuid,
                                     p_subject records, p_readable uuid[], p_person uuid)
RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT p_memory_object = ANY (p_readable)
           AND CASE p_about_kind
                   WHEN 'record' THEN COALESCE(record_readable(p_subject, p_readable, p_person),
                                               false)
                   WHEN 'member' THEN COALESCE(p_member_id = p_person, false)
                   ELSE true
               END
$$;
GRANT EXECUTE ON FUNCTION memory_page_readable(text, uuid, uuid, records, uuid[], uuid)
    TO skillmem_app;
