-- What each node was, over time: a version per change of what an asset record holds (identity,
-- location, source and provider, hardware summary, lifecycle, health, power, reachability), with a
-- validity interval like firmware_records, so that exports "as of" any time read the inventory as
-- it was then. Written by a trigger on nodes, so no code path can change a node without it.
-- Polls that only move last_seen write no version: while a node is reachable its last contact is
-- within a poll interval of any time; when it stops being reachable, the version then records it.
-- Versions keep the node's id as a value (no foreign key): purging a node keeps its history.

CREATE TABLE node_versions (
  version_id       bigserial PRIMARY KEY,
  id               uuid NOT NULL,          -- the node's id: the same column names as nodes, so the
  name             text NOT NULL,          -- node list's filters apply to versions unchanged
  source           text NOT NULL,
  driver           text NOT NULL,
  endpoint         text,
  provider         text,                   -- the cloud account's provider, for source = 'cloud'
  cloud_account_id uuid,
  provider_id      text,
  site             text,
  rack             text,
  unit             integer,
  tags             jsonb NOT NULL DEFAULT '{}',
  manufacturer     text,
  model            text,
  serial           text,
  asset_tag        text,
  hardware         jsonb NOT NULL DEFAULT '{}',
  identity         jsonb NOT NULL DEFAULT '{}',
  lifecycle        text NOT NULL,
  maintenance      boolean NOT NULL,
  health           text NOT NULL,
  power_state      text NOT NULL,
  reachable        boolean,
  last_seen        timestamptz,            -- as it was when this version began
  created_at       timestamptz NOT NULL,
  retired_at       timestamptz,
  valid_from       timestamptz NOT NULL,
  valid_to         timestamptz,
  CHECK (valid_to IS NULL OR valid_to >= valid_from)
);
CREATE UNIQUE INDEX node_versions_current ON node_versions (id) WHERE valid_to IS NULL;
CREATE INDEX node_versions_as_of ON node_versions (valid_from, valid_to);
CREATE INDEX node_versions_node ON node_versions (id, valid_from);

-- A new version (with its own version_id) of the node as `n` is, valid from `since`.
CREATE FUNCTION node_version_of(n nodes, since timestamptz) RETURNS node_versions
LANGUAGE sql VOLATILE AS $$
  SELECT nextval('node_versions_version_id_seq'), n.id, n.name, n.source, n.driver, n.endpoint,
         (SELECT a.provider FROM cloud_accounts a WHERE a.id = n.cloud_account_id),
         n.cloud_account_id, n.provider_id, n.site, n.rack, n.unit, n.tags, n.manufacturer,
         n.model, n.serial, n.asset_tag, n.hardware, n.identity, n.lifecycle, n.maintenance,
         n.health, n.power_state, n.reachable, n.last_seen, n.created_at, n.retired_at, since,
         NULL::timestamptz
$$;

CREATE FUNCTION record_node_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE node_versions SET valid_to = greatest(now(), valid_from)
     WHERE id = OLD.id AND valid_to IS NULL;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO node_versions SELECT * FROM node_version_of(NEW, now());
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER nodes_version_insert AFTER INSERT ON nodes
  FOR EACH ROW EXECUTE FUNCTION record_node_version();
CREATE TRIGGER nodes_version_delete AFTER DELETE ON nodes
  FOR EACH ROW EXECUTE FUNCTION record_node_version();
CREATE TRIGGER nodes_version_update AFTER UPDATE ON nodes
  FOR EACH ROW WHEN (
    (OLD.name, OLD.source, OLD.driver, OLD.endpoint, OLD.cloud_account_id, OLD.provider_id,
     OLD.site, OLD.rack, OLD.unit, OLD.tags, OLD.manufacturer, OLD.model, OLD.serial,
     OLD.asset_tag, OLD.hardware, OLD.identity, OLD.lifecycle, OLD.maintenance, OLD.health,
     OLD.power_state, OLD.reachable, OLD.retired_at)
    IS DISTINCT FROM
    (NEW.name, NEW.source, NEW.driver, NEW.endpoint, NEW.cloud_account_id, NEW.provider_id,
     NEW.site, NEW.rack, NEW.unit, NEW.tags, NEW.manufacturer, NEW.model, NEW.serial,
     NEW.asset_tag, NEW.hardware, NEW.identity, NEW.lifecycle, NEW.maintenance, NEW.health,
     NEW.power_state, NEW.reachable, NEW.retired_at))
  EXECUTE FUNCTION record_node_version();

-- What exists now is known from its creation on; earlier changes were not kept.
INSERT INTO node_versions
SELECT v.* FROM nodes n, LATERAL node_version_of(n, n.created_at) v;
