-- Pushed hardware events: Ironhold subscribes itself on the EventService of each Redfish BMC
-- (docs/events.md). One row per enrolled Redfish BMC, kept by the trigger below; claimed under a
-- lease by any instance's subscriber, like the poll schedule.
CREATE TABLE event_subscriptions (
  node_id        uuid PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
  -- pending: to subscribe; active: the BMC has ours; unsupported: the BMC has no usable
  -- EventService (asked again daily: firmware updates add one); failing: subscribing failed,
  -- retried with backoff; removing: the node is retired, ours is removed from its BMC.
  state          text NOT NULL DEFAULT 'pending'
                 CHECK (state IN ('pending', 'active', 'unsupported', 'failing', 'removing')),
  -- SHA-256 of the secret in the destination's path (the secret itself is kept nowhere), and of
  -- the one being subscribed right now: a BMC may post before it has answered the subscription.
  secret_sha256  bytea UNIQUE,
  pending_secret_sha256 bytea UNIQUE,
  destination_prefix text,             -- <advertise-url>/api/v1/redfish-events/ when subscribed
  bmc_path       text,                 -- the subscription on the BMC
  next_check     timestamptz NOT NULL DEFAULT now(),
  lease_owner    text,
  lease_expires  timestamptz,
  failures       integer NOT NULL DEFAULT 0,
  last_error     text,
  subscribed_at  timestamptz,
  checked_at     timestamptz,
  last_event_at  timestamptz,
  events_received bigint NOT NULL DEFAULT 0,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX event_subscriptions_due ON event_subscriptions (next_check);

CREATE FUNCTION nodes_keep_event_subscription() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.retired_at IS NOT NULL THEN
    -- Ours comes off the BMC (the node's credentials are kept until it has); none there: no row.
    UPDATE event_subscriptions
       SET state = 'removing', next_check = now(), failures = 0, last_error = NULL,
           updated_at = now()
     WHERE node_id = NEW.id AND bmc_path IS NOT NULL AND state <> 'removing';
    DELETE FROM event_subscriptions WHERE node_id = NEW.id AND bmc_path IS NULL;
  ELSIF NEW.source = 'bmc' AND NEW.parent_id IS NULL AND NEW.driver = 'redfish' THEN
    INSERT INTO event_subscriptions (node_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    -- Another BMC at the address now: what we know of the old one's subscriptions means nothing
    -- there (the same path may be someone else's subscription).
    IF TG_OP = 'UPDATE' AND OLD.endpoint IS DISTINCT FROM NEW.endpoint THEN
      UPDATE event_subscriptions
         SET state = 'pending', bmc_path = NULL, next_check = now(), failures = 0,
             last_error = NULL, updated_at = now()
       WHERE node_id = NEW.id;
    END IF;
  ELSE
    DELETE FROM event_subscriptions WHERE node_id = NEW.id AND state <> 'removing';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER nodes_event_subscription_insert AFTER INSERT ON nodes
  FOR EACH ROW EXECUTE FUNCTION nodes_keep_event_subscription();
CREATE TRIGGER nodes_event_subscription_update
  AFTER UPDATE OF retired_at, parent_id, source, driver, endpoint ON nodes
  FOR EACH ROW EXECUTE FUNCTION nodes_keep_event_subscription();

INSERT INTO event_subscriptions (node_id)
  SELECT id FROM nodes
   WHERE source = 'bmc' AND parent_id IS NULL AND driver = 'redfish' AND retired_at IS NULL;
