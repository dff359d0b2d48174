-- Ironhold's first schema: the inventory of nodes, their secrets, components, firmware history,
-- sensor readings, events, tasks, the audit log and API tokens.
-- Audit and history rows keep a node's id and name as plain values (no cascading foreign key), so
-- purging a node never rewrites or breaks them.

-- Timestamps leave the database as RFC 3339 UTC text, whatever the session's TimeZone is.
CREATE FUNCTION rfc3339(t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT
AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;

CREATE TABLE nodes (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- A name is never UUID-shaped, so a path segment is unambiguously an id or a name.
  name               text NOT NULL
                     CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$'
                            AND name !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
  source             text NOT NULL CHECK (source IN ('bmc', 'cloud')),
  driver             text NOT NULL,
  endpoint           text,
  options            jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(options) = 'object'),
  site               text,
  rack               text,
  unit               integer CHECK (unit IS NULL OR unit BETWEEN 0 AND 1000),
  tags               jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(tags) = 'object'),
  manufacturer       text,
  model              text,
  serial             text,
  asset_tag          text,
  power_state        text NOT NULL DEFAULT 'unknown'
                     CHECK (power_state IN ('on', 'off', 'transitioning', 'unknown')),
  health             text NOT NULL DEFAULT 'unknown'
                     CHECK (health IN ('ok', 'warning', 'critical', 'unknown')),
  reachable          boolean,           -- NULL until the first contact
  last_error         text,
  lifecycle          text NOT NULL DEFAULT 'enrolled'
                     CHECK (lifecycle IN ('enrolled', 'inspecting', 'inspect_failed', 'available',
                                          'provisioning', 'provision_failed', 'deployed',
                                          'cleaning', 'clean_failed', 'retired')),
  maintenance        boolean NOT NULL DEFAULT false,
  maintenance_reason text,
  provider_id        text,              -- the cloud instance id, for source = 'cloud'
  last_seen          timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  retired_at         timestamptz
);
-- Names are unique among nodes in service; a retired node keeps its name for history.
CREATE UNIQUE INDEX nodes_name_active ON nodes (name) WHERE retired_at IS NULL;
CREATE INDEX nodes_name_id ON nodes ((name COLLATE "C"), id);
CREATE INDEX nodes_created_id ON nodes (created_at, id);
CREATE INDEX nodes_last_seen_id ON nodes ((coalesce(last_seen, '-infinity'::timestamptz)), id);
CREATE INDEX nodes_health ON nodes (health);
CREATE INDEX nodes_power_state ON nodes ((power_state COLLATE "C"), id);
CREATE INDEX nodes_lifecycle ON nodes (lifecycle);
CREATE INDEX nodes_source_driver ON nodes (source, driver);
CREATE INDEX nodes_site_rack ON nodes (site, rack);
CREATE INDEX nodes_tags ON nodes USING gin (tags jsonb_path_ops);

-- BMC credentials (and IPMI's K_G key), AES-256-GCM under the master key. key_id names the key
-- so that keys can be rotated; the node id is the additional authenticated data.
CREATE TABLE node_credentials (
  node_id    uuid PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
  key_id     text NOT NULL,
  sealed     bytea NOT NULL,  -- nonce (12) || ciphertext || tag (16)
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE components (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  node_id    uuid NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  kind       text NOT NULL CHECK (kind IN ('cpu', 'gpu', 'memory', 'drive', 'nic', 'psu', 'fan', 'other')),
  slot       text NOT NULL DEFAULT '',   -- the driver's stable name for it (e.g. "GPU3", "PSU1")
  model      text,
  manufacturer text,
  serial     text,
  capacity   bigint,                      -- bytes, cores, watts: the unit follows the kind
  firmware   text,
  status     text NOT NULL DEFAULT 'unknown' CHECK (status IN ('ok', 'warning', 'critical', 'unknown')),
  details    jsonb NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (node_id, kind, slot)
);

-- Firmware versions with validity intervals: the row with valid_to IS NULL is current; "as of T"
-- is valid_from <= T AND (valid_to IS NULL OR valid_to > T).
CREATE TABLE firmware_records (
  id         bigserial PRIMARY KEY,
  node_id    uuid NOT NULL,
  node_name  text NOT NULL,
  component  text NOT NULL,               -- "BMC", "BIOS", "GPU0", ...
  version    text NOT NULL,
  valid_from timestamptz NOT NULL DEFAULT now(),
  valid_to   timestamptz,
  CHECK (valid_to IS NULL OR valid_to >= valid_from)
);
CREATE UNIQUE INDEX firmware_current ON firmware_records (node_id, component) WHERE valid_to IS NULL;
CREATE INDEX firmware_as_of ON firmware_records (node_id, valid_from, valid_to);

-- Sensor readings, partitioned by day from the start so that retention drops whole partitions.
CREATE TABLE sensor_readings (
  node_id  uuid NOT NULL,
  sensor   text NOT NULL,
  kind     text NOT NULL,                 -- temperature, fan, power, voltage, gpu_temperature, ...
  value    double precision,
  unit     text,
  status   text,
  read_at  timestamptz NOT NULL
) PARTITION BY RANGE (read_at);
CREATE INDEX sensor_readings_node_time ON sensor_readings (node_id, read_at);

-- Creates the daily partitions covering [from_day, to_day]; safe to call repeatedly.
CREATE FUNCTION ensure_sensor_partitions(from_day date, to_day date) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  d date := from_day;
  created integer := 0;
  part text;
BEGIN
  WHILE d <= to_day LOOP
    part := 'sensor_readings_' || to_char(d, 'YYYYMMDD');
    IF to_regclass(part) IS NULL THEN
      EXECUTE format('CREATE TABLE %I PARTITION OF sensor_readings FOR VALUES FROM (%L) TO (%L)',
                     part, d::timestamptz, (d + 1)::timestamptz);
      created := created + 1;
    END IF;
    d := d + 1;
  END LOOP;
  RETURN created;
END $$;

-- Drops the daily partitions wholly older than keep_from; returns how many went.
CREATE FUNCTION drop_sensor_partitions_before(keep_from date) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  part record;
  dropped integer := 0;
BEGIN
  FOR part IN
    SELECT c.relname FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
      JOIN pg_class p ON p.oid = i.inhparent
     WHERE p.relname = 'sensor_readings' AND c.relname ~ '^sensor_readings_[0-9]{8}$'
       AND to_date(substring(c.relname from '[0-9]{8}$'), 'YYYYMMDD') < keep_from
  LOOP
    EXECUTE format('DROP TABLE %I', part.relname);
    dropped := dropped + 1;
  END LOOP;
  RETURN dropped;
END $$;

SELECT ensure_sensor_partitions(current_date - 1, current_date + 7);

CREATE TABLE events (
  id         bigserial PRIMARY KEY,
  node_id    uuid,
  node_name  text,
  kind       text NOT NULL,               -- "sel", "health_change", "tls_pin_mismatch", ...
  severity   text NOT NULL DEFAULT 'info' CHECK (severity IN ('info', 'warning', 'critical')),
  message    text NOT NULL,
  details    jsonb NOT NULL DEFAULT '{}',
  source_id  text,                        -- the BMC's own id for the entry, to skip repeats
  occurred_at timestamptz NOT NULL DEFAULT now(),
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_node_time ON events (node_id, occurred_at DESC);
CREATE UNIQUE INDEX events_source ON events (node_id, kind, source_id) WHERE source_id IS NOT NULL;

CREATE TABLE tasks (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind          text NOT NULL,
  node_id       uuid,
  node_name     text,
  parameters    jsonb NOT NULL DEFAULT '{}',
  state         text NOT NULL DEFAULT 'queued'
                CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  steps         jsonb NOT NULL DEFAULT '[]',
  attempts      integer NOT NULL DEFAULT 0,
  result        jsonb,
  error         text,
  requested_by  text,
  bulk_id       uuid,
  idempotency_key text,
  lease_owner   text,
  lease_expires timestamptz,
  not_before    timestamptz NOT NULL DEFAULT now(),
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  finished_at   timestamptz
);
CREATE INDEX tasks_queue ON tasks (not_before) WHERE state IN ('queued', 'running');
CREATE INDEX tasks_node ON tasks (node_id, created_at DESC);
CREATE INDEX tasks_bulk ON tasks (bulk_id) WHERE bulk_id IS NOT NULL;

CREATE TABLE api_tokens (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name         text NOT NULL,
  role         text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin', 'auditor')),
  token_hash   bytea NOT NULL UNIQUE,     -- SHA-256 of the token; the token itself is never stored
  prefix       text NOT NULL,             -- the first characters, to recognise a token in a list
  created_by   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz,
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE UNIQUE INDEX api_tokens_name_active ON api_tokens (name) WHERE revoked_at IS NULL;

CREATE TABLE audit_log (
  id          bigserial PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  actor       text NOT NULL,              -- token name, or "cli:<user>" for server-side commands
  actor_id    text,
  action      text NOT NULL,              -- "POST /api/v1/nodes", "token.create", ...
  target_type text,
  target_id   text,
  target_name text,
  outcome     text NOT NULL,              -- HTTP status or "ok" / "error"
  request_id  text,
  details     jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_target ON audit_log (target_id, at);
CREATE INDEX audit_log_at ON audit_log (at);
