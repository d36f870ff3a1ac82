-- The Dreamer's workers are woken when an item arrives waiting, or when a pass defers a
-- waiting item (sets its deferred_until: the first of next month over the allowance, an hour
-- later without AI credits): a NOTIFY on the channel skillmem_dreamer with an empty payload
-- (no workspace data crosses the channel; PostgreSQL sends one per transaction). Each worker's
-- scheduler then reads the schedule again instead of waiting for its next poll. Raising an
-- allowance changes no deferral and wakes nobody: deferred items are read with the pass of the
-- next item that arrives for their owner, or from their deferred_until on.
CREATE FUNCTION dreamer_wake() RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, pg_temp
AS $$
BEGIN
    PERFORM pg_notify('skillmem_dreamer', '');
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION dreamer_wake() FROM PUBLIC;

CREATE TRIGGER memory_items_wake
AFTER INSERT OR UPDATE OF deferred_until ON memory_items
FOR EACH ROW WHEN (NEW.status = 'waiting') EXECUTE FUNCTION dreamer_wake();
