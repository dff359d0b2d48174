-- A BMC's hardware log already holds entries when Ironhold first reads it: last year's fan
-- warning, the PSU that was swapped at installation. Those are history, recorded as events, not
-- pages: a hardware-log alert fires only for entries that appear after the first read of that
-- node's log. The first read is remembered here (not on nodes, whose every change is a node
-- version and a stream message).
CREATE TABLE node_log_baselines (
  node_id uuid PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
  read_at timestamptz NOT NULL DEFAULT now()
);

-- Nodes whose log was read before this migration: their first read is when their first entry
-- was recorded.
INSERT INTO node_log_baselines (node_id, read_at)
  SELECT e.node_id, min(e.recorded_at)
    FROM events e JOIN nodes n ON n.id = e.node_id
   WHERE e.source_id IS NOT NULL
   GROUP BY e.node_id;

CREATE OR REPLACE FUNCTION alert_from_event() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  fp text;
  src text;
BEGIN
  IF NEW.kind = 'task' THEN
    src := 'task_failed';
    fp := 'task_failed:' || coalesce(NEW.node_id::text, '') || ':' ||
          coalesce(NEW.details ->> 'kind', '');
  ELSE
    -- An entry found by the first read of the node's log (the baseline is written after that
    -- read's entries, in the same transaction) is history.
    IF NOT EXISTS (SELECT 1 FROM node_log_baselines b WHERE b.node_id = NEW.node_id) THEN
      RETURN NULL;
    END IF;
    src := 'hardware_log';
    fp := 'hardware_log:' || coalesce(NEW.node_id::text, '') || ':' ||
          md5(NEW.kind || ':' || NEW.message);
  END IF;
  INSERT INTO alerts (fingerprint, source, severity, node_id, node_name, project, summary,
                      details, notify_pending)
  VALUES (fp, src, NEW.severity, NEW.node_id, NEW.node_name, NEW.project,
          coalesce(NEW.node_name || ': ', '') || left(NEW.message, 500),
          jsonb_build_object('event_id', NEW.id, 'kind', NEW.kind, 'event', NEW.details),
          'firing')
  ON CONFLICT (fingerprint) WHERE state <> 'resolved' DO UPDATE
    SET last_seen = now(), occurrences = alerts.occurrences + 1, updated_at = now(),
        details = EXCLUDED.details,
        severity = CASE WHEN EXCLUDED.severity = 'critical' THEN 'critical'
                        ELSE alerts.severity END,
        notify_pending = CASE WHEN EXCLUDED.severity = 'critical' AND alerts.severity = 'warning'
                              THEN 'firing' ELSE alerts.notify_pending END;
  RETURN NULL;
END $$;
