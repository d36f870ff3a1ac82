-- name: try_owner_lock
-- Takes the session's advisory lock on one page owner's pass, if no other session holds it.
SELECT pg_try_advisory_lock(hashtextextended($1, 0));

-- name: release_owner_lock
-- Releases the session's advisory lock on one page owner's pass.
SELECT pg_advisory_unlock(hashtextextended($1, 0));

-- name: advance_jobs
-- Moves queued jobs (by dedupe key) of one entrypoint earlier when their owner is due sooner
-- than they were queued for; never a job waiting to be tried again after a failure (pgqueuer's
-- table, the queue connection's owner role).
UPDATE pgqueuer AS job
   SET execute_after = now() + d.delay, updated = now()
  FROM unnest($2::text[], $3::interval[]) AS d(dedupe_key, delay)
 WHERE job.entrypoint = $1
   AND job.dedupe_key = d.dedupe_key
   AND job.status = 'queued'
   AND job.attempts = 0
   AND job.execute_after > now() + d.delay;

-- name: queue_job_counts
-- The queue's jobs by entrypoint and state (migration 0022's function; no payload, no workspace).
SELECT entrypoint, state, jobs FROM queue_job_counts() ORDER BY entrypoint, state;
