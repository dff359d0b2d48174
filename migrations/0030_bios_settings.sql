-- BIOS settings with history, like firmware_records: one row per node and version of its whole
-- BIOS configuration (a server's 200-600 attributes change together, at a reset), the row with
-- valid_to IS NULL current; "as of T" is valid_from <= T AND (valid_to IS NULL OR valid_to > T).
-- Which attributes changed is the difference between consecutive rows.
CREATE TABLE bios_records (
  id          bigserial PRIMARY KEY,
  node_id     uuid NOT NULL,
  node_name   text NOT NULL,
  registry    text,
  attributes  jsonb NOT NULL CHECK (jsonb_typeof(attributes) = 'object'),
  boot_order  jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(boot_order) = 'array'),
  apply_times jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(apply_times) = 'array'),
  settable    boolean NOT NULL DEFAULT false,
  valid_from  timestamptz NOT NULL DEFAULT now(),
  valid_to    timestamptz,
  CHECK (valid_to IS NULL OR valid_to >= valid_from)
);
CREATE UNIQUE INDEX bios_current ON bios_records (node_id) WHERE valid_to IS NULL;
CREATE INDEX bios_as_of ON bios_records (node_id, valid_from);

-- A retired node's BIOS is no longer current (its history stays, as its firmware's does).
CREATE FUNCTION close_bios_of_retired() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE bios_records SET valid_to = now() WHERE node_id = NEW.id AND valid_to IS NULL;
  RETURN NULL;
END $$;
CREATE TRIGGER nodes_retire_bios AFTER UPDATE OF retired_at ON nodes
  FOR EACH ROW WHEN (OLD.retired_at IS NULL AND NEW.retired_at IS NOT NULL)
  EXECUTE FUNCTION close_bios_of_retired();

-- BIOS baselines: per server model, the value each named attribute should have. Drift is every
-- node in service of that model whose current BIOS differs (or lacks the attribute).
CREATE TABLE bios_baselines (
  model      text PRIMARY KEY CHECK (length(model) BETWEEN 1 AND 200),
  attributes jsonb NOT NULL CHECK (jsonb_typeof(attributes) = 'object'),
  updated_by text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
