-- The change stream (GET /api/v1/stream). Every change a person watches (a node, a task, a
-- firmware rollout, a cloud account) leaves a row here, written by triggers in the same
-- transaction as the change: every writer on every instance (API, poller, task engine, rollout
-- runner, cloud sync, CLI) is covered, and a rolled-back change leaves no row. A NOTIFY on
-- ironhold_changes wakes the readers at commit.
--
-- Ids are not handed out in commit order (a transaction that took id 10 may commit after the one
-- that took id 11), so readers never read "id > the last one seen". They deliver rows in (xid, id)
-- order, and only rows of transactions below the watermark change_watermark(): every transaction
-- of this database below it has ended, so no row can still appear there. docs/stream.md explains
-- the guarantee and its cost (a long write transaction holds events back until it ends).
CREATE TABLE changes (
  id          bigserial PRIMARY KEY,  -- the event's id on the stream (Last-Event-ID)
  xid         xid8 NOT NULL DEFAULT pg_current_xact_id(),
  kind        text NOT NULL,          -- "node.updated", "node.deleted", "task.updated", ...
  resource_id text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX changes_order ON changes (xid, id);
-- An event carries the resource as it is when the event is sent, so one row per resource and
-- transaction says everything: a rollout that moves forty nodes in one transaction is one event.
CREATE UNIQUE INDEX changes_once_per_transaction ON changes (xid, kind, resource_id);

-- The oldest transaction of this database still running (its xid8), or, with none, the next xid
-- to be assigned. Only this database's transactions count: a change row is written in the
-- database of its change, so a long writer in another database of the cluster holds nothing back
-- (pg_snapshot_xmin would count it). A transaction that was running in the snapshot but had ended
-- when pg_stat_activity was read is left out: it ended, and a snapshot taken after this statement
-- sees its rows. So call this in a statement of its own, and read rows in a later one.
CREATE FUNCTION change_watermark() RETURNS xid8
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  snap pg_snapshot := pg_current_snapshot();
  here bigint[];
  oldest xid8;
BEGIN
  -- pg_stat_activity is read once per transaction unless told otherwise.
  PERFORM pg_stat_clear_snapshot();
  -- backend_xid is shown to every role (unlike the query text).
  SELECT array_agg(backend_xid::text::bigint) INTO here FROM pg_stat_activity
   WHERE datid = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND backend_xid IS NOT NULL;
  -- backend_xid is the 32-bit form; the snapshot's running xids are xid8. Running xids are less
  -- than 2^31 apart, so the low 32 bits name one of them.
  SELECT min(x) INTO oldest FROM pg_snapshot_xip(snap) AS x
   WHERE (x::text::numeric % 4294967296)::bigint = ANY (here);
  RETURN coalesce(oldest, pg_snapshot_xmax(snap));
END $$;

CREATE FUNCTION note_change(change_kind text, changed_id text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO changes (kind, resource_id) VALUES (change_kind, changed_id)
    ON CONFLICT (xid, kind, resource_id) DO NOTHING;
  -- Sent at commit, once per transaction however often it is asked for.
  PERFORM pg_notify('ironhold_changes', '');
END $$;

-- Nodes. An update counts when anything a person can see changed, except the columns the poller
-- rewrites on every contact with the same meaning ("still there"): last_seen (every status poll)
-- and last_inspected (every inventory). With 10,000 nodes polled every 30 s those alone would be
-- 333 rows a second that say nothing. A column added later is covered without touching this; one
-- that changes on every poll must be added to both lists.
CREATE FUNCTION nodes_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM note_change('node.deleted', OLD.id::text);
  ELSE
    PERFORM note_change('node.updated', NEW.id::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER nodes_changes AFTER INSERT OR DELETE ON nodes
  FOR EACH ROW EXECUTE FUNCTION nodes_note_change();
CREATE TRIGGER nodes_changes_update AFTER UPDATE ON nodes
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - '{last_seen,last_inspected}'::text[])
        IS DISTINCT FROM (to_jsonb(NEW) - '{last_seen,last_inspected}'::text[]))
  EXECUTE FUNCTION nodes_note_change();

-- Tasks: created, claimed, each step saved, finished, cancelled. Not the lease renewals of a
-- running task (lease_expires alone), nor its sealed secrets, which the API never shows.
CREATE FUNCTION tasks_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM note_change('task.updated', NEW.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER tasks_changes AFTER INSERT ON tasks
  FOR EACH ROW EXECUTE FUNCTION tasks_note_change();
CREATE TRIGGER tasks_changes_update AFTER UPDATE ON tasks
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - '{lease_expires,sealed_secrets,secrets_key_id}'::text[])
        IS DISTINCT FROM (to_jsonb(NEW) - '{lease_expires,sealed_secrets,secrets_key_id}'::text[]))
  EXECUTE FUNCTION tasks_note_change();

-- Firmware rollouts and their nodes' progress: both are the rollout's event. rollout_nodes is
-- written many rows per statement (a rollout's creation inserts one per node), hence a statement
-- trigger that notes each rollout once.
CREATE FUNCTION rollouts_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM note_change('rollout.updated', NEW.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER firmware_rollouts_changes AFTER INSERT ON firmware_rollouts
  FOR EACH ROW EXECUTE FUNCTION rollouts_note_change();
CREATE TRIGGER firmware_rollouts_changes_update AFTER UPDATE ON firmware_rollouts
  FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION rollouts_note_change();

CREATE FUNCTION rollout_nodes_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO changes (kind, resource_id)
    SELECT DISTINCT 'rollout.updated', rollout_id::text FROM changed_rows
    ON CONFLICT (xid, kind, resource_id) DO NOTHING;
  IF FOUND THEN
    PERFORM pg_notify('ironhold_changes', '');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER rollout_nodes_changes AFTER INSERT ON rollout_nodes
  REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rollout_nodes_note_change();
CREATE TRIGGER rollout_nodes_changes_update AFTER UPDATE ON rollout_nodes
  REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rollout_nodes_note_change();

-- Cloud accounts: enrolled, edited, each sync's start and outcome. Deleting one only marks it
-- deleted (its nodes keep their history), which the stream reports as cloud_account.deleted.
CREATE FUNCTION cloud_accounts_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.deleted_at IS NOT NULL THEN
    IF TG_OP = 'INSERT' OR OLD.deleted_at IS NULL THEN
      PERFORM note_change('cloud_account.deleted', NEW.id::text);
    END IF;
  ELSE
    PERFORM note_change('cloud_account.updated', NEW.id::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER cloud_accounts_changes AFTER INSERT ON cloud_accounts
  FOR EACH ROW EXECUTE FUNCTION cloud_accounts_note_change();
CREATE TRIGGER cloud_accounts_changes_update AFTER UPDATE ON cloud_accounts
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - '{lease_expires}'::text[])
        IS DISTINCT FROM (to_jsonb(NEW) - '{lease_expires}'::text[]))
  EXECUTE FUNCTION cloud_accounts_note_change();
