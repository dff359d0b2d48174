-- Alerts: what is wrong now, said once per problem rather than once per poll.
--
-- An alert is keyed by its fingerprint ("health:<node id>", "sensor:<node id>:<sensor>", ...):
-- while one with that fingerprint is open (firing or acknowledged), the same problem seen again
-- updates it (last_seen, occurrences) instead of adding another. The evaluator
-- (inventory/db/alert_evaluation.cpp) decides what fires and what resolves, on one instance at a
-- time; every change of state someone should hear about is marked (notify_pending) and becomes a
-- row per receiver in alert_outbox, and the delivery worker sends those until each is delivered.

CREATE TABLE alerts (
  id              bigserial PRIMARY KEY,
  fingerprint     text NOT NULL,
  source          text NOT NULL,   -- health, unreachable, auth_failed, tls_pin_mismatch, sensor,
                                   -- hardware_log, task_failed, rollout_halted, cloud_unreachable
  severity        text NOT NULL CHECK (severity IN ('warning', 'critical')),
  state           text NOT NULL DEFAULT 'firing'
                  CHECK (state IN ('firing', 'acknowledged', 'resolved')),
  node_id         uuid,
  node_name       text,
  project         text,            -- the node's (or account's, rollout's) project
  summary         text NOT NULL,
  details         jsonb NOT NULL DEFAULT '{}',
  first_seen      timestamptz NOT NULL DEFAULT now(),
  last_seen       timestamptz NOT NULL DEFAULT now(),
  resolved_at     timestamptz,
  acknowledged_by text,
  acknowledged_at timestamptz,
  occurrences     integer NOT NULL DEFAULT 1,
  -- Flapping: how often it fired again soon after resolving, within the damping window; while
  -- flapping, its changes are kept but not notified.
  flaps           integer NOT NULL DEFAULT 0,
  flapping        boolean NOT NULL DEFAULT false,
  -- A change not yet turned into notifications: the next evaluation writes the outbox rows (or
  -- decides the change is silenced) and clears it.
  notify_pending  text CHECK (notify_pending IN ('firing', 'resolved')),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX alerts_open ON alerts (fingerprint) WHERE state <> 'resolved';
CREATE INDEX alerts_recent ON alerts (fingerprint, resolved_at DESC);
CREATE INDEX alerts_list ON alerts (project, state, last_seen DESC);
CREATE INDEX alerts_node ON alerts (node_id) WHERE state <> 'resolved';
CREATE INDEX alerts_to_notify ON alerts (id) WHERE notify_pending IS NOT NULL;

-- Silences: while one matches an alert (its selector, the node list's filters, selects the
-- alert's node) and has not ended, the alert's changes are not notified.
CREATE TABLE alert_silences (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project    text NOT NULL REFERENCES projects (name) ON DELETE CASCADE,
  selector   jsonb NOT NULL CHECK (jsonb_typeof(selector) = 'object'),
  comment    text NOT NULL DEFAULT '',
  starts_at  timestamptz NOT NULL DEFAULT now(),
  ends_at    timestamptz NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expired_at timestamptz,          -- ended early (DELETE)
  CHECK (ends_at > starts_at)
);
CREATE INDEX alert_silences_active ON alert_silences (ends_at) WHERE expired_at IS NULL;

-- Who hears about alerts: an HTTP endpoint taking the Alertmanager webhook format, signed with a
-- secret of its own (sealed like every credential). project NULL: every project's alerts.
CREATE TABLE alert_receivers (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name         text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$'),
  url          text NOT NULL,
  key_id       text NOT NULL,
  sealed       bytea NOT NULL,     -- the signing secret: nonce || ciphertext || tag
  min_severity text NOT NULL DEFAULT 'warning' CHECK (min_severity IN ('warning', 'critical')),
  project      text REFERENCES projects (name) ON DELETE CASCADE,
  created_by   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  deleted_at   timestamptz
);

-- The durable outbox: one row per (alert change, receiver), written with the change. The worker
-- claims due rows (FOR UPDATE SKIP LOCKED), sends them, and on failure moves next_attempt on
-- with backoff; nothing is dropped while the receiver exists.
CREATE TABLE alert_outbox (
  id            bigserial PRIMARY KEY,
  receiver_id   uuid NOT NULL REFERENCES alert_receivers (id) ON DELETE CASCADE,
  alert_id      bigint NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
  status        text NOT NULL CHECK (status IN ('firing', 'resolved')),
  payload       jsonb NOT NULL,    -- the alert as it was at the change
  created_at    timestamptz NOT NULL DEFAULT now(),
  attempts      integer NOT NULL DEFAULT 0,
  next_attempt  timestamptz NOT NULL DEFAULT now(),
  lease_owner   text,
  lease_expires timestamptz,
  last_error    text,
  delivered_at  timestamptz
);
CREATE INDEX alert_outbox_due ON alert_outbox (next_attempt) WHERE delivered_at IS NULL;

-- Sensor rules of ours, beside the BMC's own thresholds: per sensor kind, optionally per server
-- model (a model's rule wins over the kind's). A reading at or over `critical` (or `warning`)
-- fires; it resolves only below the level minus `hysteresis`, so a reading that hovers at the
-- line does not flap.
CREATE TABLE alert_sensor_rules (
  id         bigserial PRIMARY KEY,
  kind       text NOT NULL,
  model      text,
  warning    double precision,
  critical   double precision,
  hysteresis double precision NOT NULL DEFAULT 0 CHECK (hysteresis >= 0),
  CHECK (warning IS NOT NULL OR critical IS NOT NULL)
);
CREATE UNIQUE INDEX alert_sensor_rules_once ON alert_sensor_rules (kind, coalesce(model, ''));
INSERT INTO alert_sensor_rules (kind, warning, critical, hysteresis) VALUES
  ('gpu_temperature', 85, 95, 5),
  ('temperature', 80, 95, 5);

-- Hardware log entries (an entry of the BMC's own log, source_id set) of warning or critical
-- severity and failed tasks are alerts of their own, made in the transaction that records them:
-- no pass can miss one. A repeat (the same message on the same node, the same kind of task failing
-- again) updates the open alert.
CREATE FUNCTION alert_from_event() RETURNS trigger
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
CREATE TRIGGER events_alert AFTER INSERT ON events
  FOR EACH ROW
  WHEN (NEW.severity IN ('warning', 'critical')
        AND (NEW.source_id IS NOT NULL OR (NEW.kind = 'task' AND NEW.details ->> 'state' = 'failed')))
  EXECUTE FUNCTION alert_from_event();

-- Alerts are on the change stream too (the console's Alerts page and badges).
CREATE FUNCTION alerts_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM note_change('alert.updated', NEW.id::text, NEW.project);
  RETURN NULL;
END $$;
-- Not when only last_seen, occurrences or updated_at moved: an open alert seen again every
-- evaluation says nothing new.
CREATE TRIGGER alerts_changes AFTER INSERT ON alerts
  FOR EACH ROW EXECUTE FUNCTION alerts_note_change();
CREATE TRIGGER alerts_changes_update AFTER UPDATE ON alerts
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - '{last_seen,occurrences,updated_at}'::text[])
        IS DISTINCT FROM (to_jsonb(NEW) - '{last_seen,occurrences,updated_at}'::text[]))
  EXECUTE FUNCTION alerts_note_change();
