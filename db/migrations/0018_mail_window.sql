-- Mail at read time (issue 11, item 2; seed 000 "Only mail classified in the last 30 days is
-- read"), replacing what migration 0015 (released) defined:
--
-- * the 30 days are counted in UTC, whatever the session's time zone (an interval's days
--   otherwise follow the session zone's daylight saving: 30 days before a time in April,
--   seen from Paris, would be 30 days and an hour): mail_reach_start, used by mail_openable
--   (the hourly job) and mail_window (the pass);
-- * an exchange's window is read with the 30 days counted from the pass that reads it, not
--   from the hour it opened: an item read late (its payer's allowance waited until next
--   month) reads only the messages classified in the 30 days before that pass, and one whose
--   important mail was classified before them is not read at all (waiting_items' mail_closed:
--   mail_too_old).
--
-- A message posted after its exchange opened is read with it when its time falls inside the
-- window as stored (from its first message through its last, by time then id): it belongs to
-- that part of the thread, which the exchange reads whole. One sent after the window's last
-- message is not: only a later important mail opens an exchange on it.

-- When the reach of p_reach before p_now starts, counted in UTC (30 days: 720 hours).
CREATE FUNCTION mail_reach_start(p_now timestamptz, p_reach interval) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT (timezone('UTC', p_now) - p_reach) AT TIME ZONE 'UTC'
$$;
GRANT EXECUTE ON FUNCTION mail_reach_start(timestamptz, interval) TO skillmem_app;

-- What an exchange reads when a pass reads it at p_now: its thread's messages in its mailbox
-- from its first through its last (as stored), in order, deleted ones left out, those
-- classified before the reach (p_reach before p_now, in UTC) left out, and for a personal
-- mailbox none from before its reading started (mail received while memory.learnFromEmail was
-- off).
DROP FUNCTION mail_window(mail_exchanges);
CREATE FUNCTION mail_window(p_exchange mail_exchanges, p_now timestamptz, p_reach interval)
RETURNS SETOF mail_messages
LANGUAGE sql STABLE
AS $$
    SELECT t.*
      FROM mailboxes b
     CROSS JOIN LATERAL mailbox_reading(b) r
      JOIN mail_messages t
        ON t.workspace_id = b.workspace_id AND t.mailbox_id = b.id
       AND t.thread_id = (p_exchange).thread_id
     WHERE b.workspace_id = (p_exchange).workspace_id AND b.id = (p_exchange).mailbox_id
       AND (t.sent_at, t.id) >= ((p_exchange).first_at, (p_exchange).first_id)
       AND (t.sent_at, t.id) <= ((p_exchange).last_at, (p_exchange).last_id)
       AND NOT t.deleted
       AND t.classified_at >= mail_reach_start(p_now, p_reach)
       AND t.sent_at >= COALESCE(r.reads_from, '-infinity')
     ORDER BY t.sent_at, t.id
$$;
GRANT EXECUTE ON FUNCTION mail_window(mail_exchanges, timestamptz, interval) TO skillmem_app;

-- The exchanges that open at p_now, as in migration 0015, the reach counted in UTC.
CREATE OR REPLACE FUNCTION mail_openable(p_now timestamptz, p_quiet interval, p_reach interval)
RETURNS TABLE (workspace_id uuid, mailbox_id uuid, thread_id text, opening_id uuid,
               opening_at timestamptz, first_id uuid, first_at timestamptz, last_id uuid,
               last_at timestamptz, quiet_since timestamptz)
LANGUAGE sql STABLE
AS $$
    -- Materialized: each step runs once, whatever the planner guesses of the tables' sizes.
    WITH candidate AS MATERIALIZED (
        SELECT DISTINCT c.workspace_id, c.mailbox_id, c.thread_id, r.reads_from
          FROM mail_messages c
          JOIN mailboxes b ON b.workspace_id = c.workspace_id AND b.id = c.mailbox_id
         CROSS JOIN LATERAL mailbox_reading(b) r
         WHERE c.filed = 'received' AND c.category = 'direct' AND c.important AND NOT c.deleted
           AND c.classified_at >= mail_reach_start(p_now, p_reach) AND r.read
           AND c.sent_at >= COALESCE(r.reads_from, '-infinity')
           AND NOT EXISTS (SELECT 1 FROM mail_exchanges x
                            WHERE x.workspace_id = c.workspace_id AND x.opening_id = c.id)
    ),
    thread AS MATERIALIZED (
        SELECT c.*,
               (SELECT max(t.sent_at) FROM mail_messages t
                 WHERE t.workspace_id = c.workspace_id AND t.mailbox_id = c.mailbox_id
                   AND t.thread_id = c.thread_id AND NOT t.deleted) AS quiet_since
          FROM candidate c
    ),
    ordered AS (
        SELECT t.workspace_id, t.mailbox_id, t.thread_id, t.id, t.sent_at, h.quiet_since,
               (t.filed = 'received' AND t.category = 'direct' AND t.important) AS opens,
               lag(t.id) OVER w AS prev_id, lag(t.sent_at) OVER w AS prev_at,
               count(*) FILTER (WHERE t.filed = 'received' AND t.category = 'direct'
                                  AND t.important) OVER w AS part
          FROM thread h
         CROSS JOIN LATERAL (
                SELECT t.* FROM mail_messages t
                 WHERE t.workspace_id = h.workspace_id AND t.mailbox_id = h.mailbox_id
                   AND t.thread_id = h.thread_id AND NOT t.deleted
                   AND t.classified_at >= mail_reach_start(p_now, p_reach)
                   AND t.sent_at >= COALESCE(h.reads_from, '-infinity')
                OFFSET 0) t  -- each quiet thread's own messages, by its index
         WHERE h.quiet_since <= p_now - p_quiet
        WINDOW w AS (PARTITION BY t.workspace_id, t.mailbox_id, t.thread_id
                     ORDER BY t.sent_at, t.id)
    ),
    parts AS (
        SELECT o.*, last_value(o.id) OVER p AS last_id, last_value(o.sent_at) OVER p AS last_at
          FROM ordered o
        WINDOW p AS (PARTITION BY o.workspace_id, o.mailbox_id, o.thread_id, o.part
                     ORDER BY o.sent_at, o.id
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
    )
    SELECT s.workspace_id, s.mailbox_id, s.thread_id, s.id, s.sent_at,
           COALESCE(s.prev_id, s.id), COALESCE(s.prev_at, s.sent_at), s.last_id, s.last_at,
           s.quiet_since
      FROM parts s
     WHERE s.opens
       AND NOT EXISTS (SELECT 1 FROM mail_exchanges x
                        WHERE x.workspace_id = s.workspace_id AND x.opening_id = s.id)
$$;
