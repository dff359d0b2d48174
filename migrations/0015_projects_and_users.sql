-- Projects (tenants), users with passwords, and roles granted per project.
--
-- Every node and cloud account belongs to one project; what hangs off a node (its tasks, events,
-- versions, audit entries, stream events) carries the project it had when it was written, so that
-- a node moving to another project does not hand its past to the new owners, and lists filter on
-- an indexed column instead of a join. What existed before belongs to the project "default".
-- Firmware images and baselines stay one catalog for the whole fleet.

CREATE TABLE projects (
  name        text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
  description text NOT NULL DEFAULT '' CHECK (length(description) <= 1000),
  created_by  text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO projects (name, description)
  VALUES ('default', 'What was enrolled before projects existed, and what names no project');

-- A project that still has nodes, accounts or history cannot be dropped (RESTRICT): its records
-- are evidence. Renaming is not offered (names are in audit entries).
ALTER TABLE nodes ADD COLUMN project text NOT NULL DEFAULT 'default' REFERENCES projects (name);
CREATE INDEX nodes_project ON nodes (project, name);
ALTER TABLE cloud_accounts
  ADD COLUMN project text NOT NULL DEFAULT 'default' REFERENCES projects (name);
ALTER TABLE discovery_runs
  ADD COLUMN project text NOT NULL DEFAULT 'default' REFERENCES projects (name);
ALTER TABLE firmware_rollouts
  ADD COLUMN project text NOT NULL DEFAULT 'default' REFERENCES projects (name);

-- Tasks and events take their node's project when they are written (a task or event without a
-- node, such as a cloud account's, names its project itself).
ALTER TABLE tasks ADD COLUMN project text;
UPDATE tasks SET project = 'default';
CREATE INDEX tasks_project ON tasks (project, created_at);
ALTER TABLE events ADD COLUMN project text;
UPDATE events SET project = 'default';
CREATE INDEX events_project ON events (project, id);

CREATE FUNCTION take_node_project() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.project IS NULL AND NEW.node_id IS NOT NULL THEN
    SELECT n.project INTO NEW.project FROM nodes n WHERE n.id = NEW.node_id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER tasks_project BEFORE INSERT ON tasks
  FOR EACH ROW EXECUTE FUNCTION take_node_project();
CREATE TRIGGER events_project BEFORE INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION take_node_project();

-- Node versions record the project too, so that an export as of a past time shows a project's
-- auditors the nodes that were theirs then.
ALTER TABLE node_versions ADD COLUMN project text NOT NULL DEFAULT 'default';
CREATE INDEX node_versions_project ON node_versions (project, valid_from);
CREATE OR REPLACE FUNCTION node_version_of(n nodes, since timestamptz) RETURNS node_versions
LANGUAGE sql VOLATILE AS $$
  SELECT nextval('node_versions_version_id_seq'), n.id, n.name, n.source, n.driver, n.endpoint,
         (SELECT a.provider FROM cloud_accounts a WHERE a.id = n.cloud_account_id),
         n.cloud_account_id, n.provider_id, n.site, n.rack, n.unit, n.tags, n.manufacturer,
         n.model, n.serial, n.asset_tag, n.hardware, n.identity, n.lifecycle, n.maintenance,
         n.health, n.power_state, n.reachable, n.last_seen, n.created_at, n.retired_at, since,
         NULL::timestamptz, n.project
$$;
DROP TRIGGER nodes_version_update ON nodes;
CREATE TRIGGER nodes_version_update AFTER UPDATE ON nodes
  FOR EACH ROW WHEN (
    (OLD.name, OLD.source, OLD.driver, OLD.endpoint, OLD.cloud_account_id, OLD.provider_id,
     OLD.site, OLD.rack, OLD.unit, OLD.tags, OLD.manufacturer, OLD.model, OLD.serial,
     OLD.asset_tag, OLD.hardware, OLD.identity, OLD.lifecycle, OLD.maintenance, OLD.health,
     OLD.power_state, OLD.reachable, OLD.retired_at, OLD.project)
    IS DISTINCT FROM
    (NEW.name, NEW.source, NEW.driver, NEW.endpoint, NEW.cloud_account_id, NEW.provider_id,
     NEW.site, NEW.rack, NEW.unit, NEW.tags, NEW.manufacturer, NEW.model, NEW.serial,
     NEW.asset_tag, NEW.hardware, NEW.identity, NEW.lifecycle, NEW.maintenance, NEW.health,
     NEW.power_state, NEW.reachable, NEW.retired_at, NEW.project))
  EXECUTE FUNCTION record_node_version();

-- The change stream: every row names the project it belongs to, and a reader delivers only the
-- rows of projects its client may see. A node moved to another project leaves its old project's
-- streams as a deletion and enters the new one's as an update.
ALTER TABLE changes ADD COLUMN project text;
DROP INDEX changes_once_per_transaction;
CREATE UNIQUE INDEX changes_once_per_transaction
  ON changes (xid, kind, resource_id, coalesce(project, ''));

CREATE OR REPLACE FUNCTION note_change(change_kind text, changed_id text, change_project text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO changes (kind, resource_id, project) VALUES (change_kind, changed_id, change_project)
    ON CONFLICT (xid, kind, resource_id, coalesce(project, '')) DO NOTHING;
  PERFORM pg_notify('ironhold_changes', '');
END $$;
DROP FUNCTION note_change(text, text);

CREATE OR REPLACE FUNCTION nodes_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM note_change('node.deleted', OLD.id::text, OLD.project);
  ELSE
    IF TG_OP = 'UPDATE' AND OLD.project IS DISTINCT FROM NEW.project THEN
      PERFORM note_change('node.deleted', OLD.id::text, OLD.project);
    END IF;
    PERFORM note_change('node.updated', NEW.id::text, NEW.project);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION tasks_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM note_change('task.updated', NEW.id::text, NEW.project);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION rollouts_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM note_change('rollout.updated', NEW.id::text, NEW.project);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION rollout_nodes_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO changes (kind, resource_id, project)
    SELECT DISTINCT 'rollout.updated', r.id::text, r.project
      FROM changed_rows c JOIN firmware_rollouts r ON r.id = c.rollout_id
    ON CONFLICT (xid, kind, resource_id, coalesce(project, '')) DO NOTHING;
  IF FOUND THEN
    PERFORM pg_notify('ironhold_changes', '');
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION cloud_accounts_note_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.deleted_at IS NOT NULL THEN
    IF TG_OP = 'INSERT' OR OLD.deleted_at IS NULL THEN
      PERFORM note_change('cloud_account.deleted', NEW.id::text, NEW.project);
    END IF;
  ELSE
    IF TG_OP = 'UPDATE' AND OLD.project IS DISTINCT FROM NEW.project THEN
      PERFORM note_change('cloud_account.deleted', NEW.id::text, OLD.project);
    END IF;
    PERFORM note_change('cloud_account.updated', NEW.id::text, NEW.project);
  END IF;
  RETURN NULL;
END $$;

-- People. A password is stored only as a scrypt hash that names its own parameters
-- ("$scrypt$ln=15,r=8,p=1$salt$hash"), so they can be raised without invalidating old hashes.
CREATE TABLE users (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name                text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,62}$'),
  password_hash       text NOT NULL CHECK (password_hash LIKE '$scrypt$%'),
  created_by          text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  password_changed_at timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at     timestamptz
);

-- What a user may do where: a role in one project, or (project NULL) in every project. A user may
-- hold several roles in one project (an operator who is also its auditor).
CREATE TABLE role_grants (
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project    text REFERENCES projects (name) ON DELETE CASCADE,
  role       text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin', 'auditor')),
  granted_by text,
  granted_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX role_grants_once ON role_grants (user_id, coalesce(project, ''), role);

-- Tokens: a service token (no user) acts with its role, in its project or, without one, in every
-- project. A user's token acts with the user's grants as they are at each request, narrowed to its
-- project and role when it names them; it ends with the user.
ALTER TABLE api_tokens ADD COLUMN user_id uuid REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE api_tokens ADD COLUMN project text REFERENCES projects (name) ON DELETE CASCADE;
ALTER TABLE api_tokens ALTER COLUMN role DROP NOT NULL;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_role_or_user
  CHECK (role IS NOT NULL OR user_id IS NOT NULL);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

-- A console session is opened with a token or with a user's name and password.
ALTER TABLE console_sessions ALTER COLUMN token_id DROP NOT NULL;
ALTER TABLE console_sessions ADD COLUMN user_id uuid REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE console_sessions ADD CONSTRAINT console_sessions_token_or_user
  CHECK ((token_id IS NULL) <> (user_id IS NULL));
CREATE INDEX console_sessions_user ON console_sessions (user_id);

-- An export covers the projects its requester could read then (NULL: every project); only
-- someone who may read all of them may read its manifest.
ALTER TABLE export_manifests ADD COLUMN projects text[];
