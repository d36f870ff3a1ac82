-- The queue's jobs counted by entrypoint and state for the metrics (README "Metrics and
-- tracing"): SECURITY DEFINER like dreamer_due, it answers names, states and counts, never a
-- payload or a workspace; only the application role may call it (pgqueuer's tables grant it
-- nothing, migration 0012).
CREATE FUNCTION queue_job_counts()
RETURNS TABLE (entrypoint text, state text, jobs bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    SELECT q.entrypoint, q.status::text, count(*)
      FROM pgqueuer q
     GROUP BY q.entrypoint, q.status
$$;
REVOKE EXECUTE ON FUNCTION queue_job_counts() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION queue_job_counts() TO skillmem_app;
