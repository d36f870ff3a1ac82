-- The Dreamer's workers are woken when an item arrives waiting, or when a waiting item's
-- deferral changes (an allowance raised): a NOTIFY on the channel skillmem_dreamer with an
-- empty payload (no workspace data crosses the channel; PostgreSQL sends one per transaction). Each worker's scheduler
-- then reads the schedule again instead of waiting for its next poll.
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
