-- The audit trail becomes a chain: each entry carries a MAC (HMAC-SHA256, under a key kept beside
-- the master key and never in the database) over its content and the previous entry's MAC, so
-- that someone with only database access cannot edit, delete, insert or reorder entries
-- undetected. `seq` is the entry's place in the chain; `prev_mac` is stored so that a verifier can
-- tell a moved entry from a deleted one. Entries written before this migration are sealed, in id
-- order, by the first process that writes an entry with the key.

ALTER TABLE audit_log
  ADD COLUMN seq      bigint UNIQUE,
  ADD COLUMN project  text,
  ADD COLUMN prev_mac bytea,
  ADD COLUMN mac      bytea;
CREATE INDEX audit_log_actor ON audit_log (actor, at);
CREATE INDEX audit_log_action ON audit_log (action text_pattern_ops, at);

-- The chain's head, one row, locked by every writer: writers on several instances append one
-- after another, so the chain never forks.
CREATE TABLE audit_chain (
  singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  -- HMAC of a fixed text under the key: tells "the wrong key" from tampering, and keeps a second
  -- instance started with another key from writing entries nobody can verify.
  key_check      bytea,
  head_seq       bigint NOT NULL DEFAULT 0,
  head_mac       bytea,
  legacy_through bigint NOT NULL,   -- entries up to this id predate the chain
  legacy_sealed  boolean NOT NULL DEFAULT false
);
INSERT INTO audit_chain (legacy_through) SELECT coalesce(max(id), 0) FROM audit_log;

-- Append-only, whoever connects: an entry is written sealed and never changed or deleted; the one
-- update allowed seals an entry written before the chain existed, content untouched.
CREATE FUNCTION audit_log_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  chain audit_chain;
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'audit entries cannot be deleted' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF TG_OP = 'INSERT' THEN
    IF NEW.seq IS NULL OR NEW.mac IS NULL THEN
      RAISE EXCEPTION 'audit entries are written sealed (seq and mac)'
        USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END IF;
  SELECT * INTO chain FROM audit_chain;
  IF OLD.mac IS NOT NULL OR OLD.id > chain.legacy_through OR NEW.mac IS NULL
     OR (NEW.id, NEW.at, NEW.actor, NEW.actor_id, NEW.action, NEW.target_type, NEW.target_id,
         NEW.target_name, NEW.outcome, NEW.request_id, NEW.details, NEW.project)
        IS DISTINCT FROM
        (OLD.id, OLD.at, OLD.actor, OLD.actor_id, OLD.action, OLD.target_type, OLD.target_id,
         OLD.target_name, OLD.outcome, OLD.request_id, OLD.details, OLD.project) THEN
    RAISE EXCEPTION 'audit entries cannot be changed' USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER audit_log_append_only BEFORE INSERT OR UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_guard();

CREATE FUNCTION audit_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit trail cannot be truncated' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_truncate();

-- The head only moves forward, and the key check, once set, stays.
CREATE FUNCTION audit_chain_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'UPDATE' THEN
    RAISE EXCEPTION 'the audit chain head is one row, updated in place'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NEW.legacy_through <> OLD.legacy_through OR NEW.head_seq < OLD.head_seq
     OR (OLD.key_check IS NOT NULL AND NEW.key_check IS DISTINCT FROM OLD.key_check)
     OR (OLD.legacy_sealed AND NOT NEW.legacy_sealed) THEN
    RAISE EXCEPTION 'the audit chain head only moves forward' USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER audit_chain_forward_only BEFORE INSERT OR UPDATE OR DELETE ON audit_chain
  FOR EACH ROW EXECUTE FUNCTION audit_chain_guard();
CREATE TRIGGER audit_chain_no_truncate BEFORE TRUNCATE ON audit_chain
  FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_truncate();

-- The runtime role (every role but the owner that was granted these tables) keeps what appending
-- needs and nothing more: no DELETE or TRUNCATE, UPDATE only of the seal and head columns.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
           WHERE table_schema = 'public' AND table_name IN ('audit_log', 'audit_chain')
             AND grantee NOT IN (current_user, 'PUBLIC')
  LOOP
    EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON audit_log FROM %I', r.grantee);
    EXECUTE format('GRANT UPDATE (seq, prev_mac, mac) ON audit_log TO %I', r.grantee);
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON audit_chain FROM %I', r.grantee);
    EXECUTE format('GRANT UPDATE (key_check, head_seq, head_mac, legacy_sealed) ON audit_chain TO %I',
                   r.grantee);
  END LOOP;
END $$;
