-- The poller's state: the schedule of polls per node, TLS pins, the hardware summary, the latest
-- sensor readings, component history with validity intervals and firmware details.

ALTER TABLE nodes
  -- The hardware summary (cpu_count, gpu_count, ...; see HardwareSummary) and further identity
  -- (sku, part_number, uuid, bios_version, bmc_firmware) from the last inspection.
  ADD COLUMN hardware           jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(hardware) = 'object'),
  ADD COLUMN identity           jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(identity) = 'object'),
  -- last_error holds a stable code (auth_failed, tls_pin_mismatch, ...); this the text for people.
  ADD COLUMN last_error_message text,
  -- Lower-case hex SHA-256 of the BMC's leaf certificate, pinned at the first contact.
  ADD COLUMN tls_fingerprint    text CHECK (tls_fingerprint IS NULL OR tls_fingerprint ~ '^[0-9a-f]{64}$'),
  -- A further System behind another node's BMC (a blade enclosure): polled through the parent.
  ADD COLUMN parent_id          uuid REFERENCES nodes (id) ON DELETE CASCADE,
  ADD COLUMN system_id          text,
  ADD COLUMN last_inspected     timestamptz;
CREATE INDEX nodes_gpu_model ON nodes ((hardware ->> 'gpu_model'));
CREATE INDEX nodes_parent ON nodes (parent_id) WHERE parent_id IS NOT NULL;

-- When each kind of poll of each node is due. Claimed in batches with FOR UPDATE SKIP LOCKED and
-- an expiring lease, so several instances can share the work and a dead one's work moves on.
CREATE TABLE poll_schedule (
  node_id          uuid NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  kind             text NOT NULL CHECK (kind IN ('status', 'sensors', 'inventory')),
  next_due         timestamptz NOT NULL DEFAULT now(),
  lease_owner      text,
  lease_expires    timestamptz,
  last_started     timestamptz,
  last_finished    timestamptz,
  last_duration_ms double precision,
  failures         integer NOT NULL DEFAULT 0,  -- consecutive; reset by a success
  PRIMARY KEY (node_id, kind)
);
CREATE INDEX poll_schedule_due ON poll_schedule (next_due);

-- Every BMC node in service that is not polled through a parent has a schedule; retirement
-- removes it. Kept by triggers so that every way of enrolling (API, import, demo) is covered.
CREATE FUNCTION nodes_keep_schedule() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.source = 'bmc' AND NEW.parent_id IS NULL AND NEW.retired_at IS NULL THEN
    INSERT INTO poll_schedule (node_id, kind)
    VALUES (NEW.id, 'status'), (NEW.id, 'sensors'), (NEW.id, 'inventory')
    ON CONFLICT DO NOTHING;
  ELSE
    DELETE FROM poll_schedule WHERE node_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER nodes_schedule_insert AFTER INSERT ON nodes
  FOR EACH ROW EXECUTE FUNCTION nodes_keep_schedule();
CREATE TRIGGER nodes_schedule_update AFTER UPDATE OF retired_at, parent_id, source ON nodes
  FOR EACH ROW EXECUTE FUNCTION nodes_keep_schedule();
INSERT INTO poll_schedule (node_id, kind)
  SELECT id, k FROM nodes, unnest(ARRAY['status', 'sensors', 'inventory']) AS k
   WHERE source = 'bmc' AND parent_id IS NULL AND retired_at IS NULL;

-- Components become history: the row with valid_to IS NULL is current, a change closes it and
-- opens another, so "what was in this server on date T" has an answer. The node id is a plain
-- value (no cascade), like every other history table.
ALTER TABLE components DROP CONSTRAINT components_node_id_fkey;
ALTER TABLE components DROP CONSTRAINT components_node_id_kind_slot_key;
ALTER TABLE components
  ADD COLUMN node_name   text,
  ADD COLUMN name        text,
  ADD COLUMN part_number text,
  ADD COLUMN valid_from  timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN valid_to    timestamptz;
ALTER TABLE components ADD CHECK (valid_to IS NULL OR valid_to >= valid_from);
CREATE UNIQUE INDEX components_current ON components (node_id, kind, slot) WHERE valid_to IS NULL;
CREATE INDEX components_as_of ON components (node_id, valid_from, valid_to);

ALTER TABLE firmware_records
  ADD COLUMN name              text,
  ADD COLUMN updateable        boolean NOT NULL DEFAULT false,
  ADD COLUMN related_component text;

-- The latest reading of every sensor (the history is sensor_readings): what /sensors, /metrics
-- and the console show without scanning partitions.
CREATE TABLE sensor_latest (
  node_id    uuid NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  sensor     text NOT NULL,
  kind       text NOT NULL,
  value      double precision,
  unit       text,
  status     text,
  thresholds jsonb NOT NULL DEFAULT '{}',
  read_at    timestamptz NOT NULL,
  PRIMARY KEY (node_id, sensor)
);

CREATE INDEX events_time ON events (occurred_at DESC, id DESC);
CREATE INDEX events_severity_time ON events (severity, occurred_at DESC);
