-- Durable tasks: the tasks table (0001) becomes the work queue for actions on nodes. Workers claim
-- with FOR UPDATE SKIP LOCKED under an expiring lease; a node's tasks run one at a time, oldest
-- first, and a bulk action's at most max_parallel at once (see TaskStore::claim).

ALTER TABLE tasks
  -- Asked for while running: the worker stops at its next step boundary or wait.
  ADD COLUMN cancel_requested boolean NOT NULL DEFAULT false,
  ADD COLUMN cancelled_by text,
  -- Started by Ironhold itself (a rollout), not by an operator: a node in maintenance refuses it.
  ADD COLUMN automatic boolean NOT NULL DEFAULT false,
  -- Parameters the API never shows (a reprovision's admin password), sealed like credentials
  -- under the master key with the task id as additional data; wiped when the task ends.
  ADD COLUMN sealed_secrets bytea,
  ADD COLUMN secrets_key_id text,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  ADD CONSTRAINT tasks_steps_array CHECK (jsonb_typeof(steps) = 'array'),
  ADD CONSTRAINT tasks_parameters_object CHECK (jsonb_typeof(parameters) = 'object');

-- The claim's order within a node, and the listings' order.
CREATE INDEX tasks_pending_node ON tasks (node_id, created_at, id) WHERE state IN ('queued', 'running');
CREATE INDEX tasks_created ON tasks (created_at DESC, id DESC);
CREATE INDEX tasks_state ON tasks (state, created_at DESC);

-- A bulk action: one task per node a selector matched, at most max_parallel of them running at
-- once. The selector and parameters are kept as asked, for the audit trail and for show.
CREATE TABLE bulk_actions (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  action       text NOT NULL,
  selector     jsonb NOT NULL CHECK (jsonb_typeof(selector) = 'object'),
  parameters   jsonb NOT NULL DEFAULT '{}',
  max_parallel integer NOT NULL CHECK (max_parallel BETWEEN 1 AND 1000),
  matched      integer NOT NULL,
  requested_by text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE tasks ADD CONSTRAINT tasks_bulk FOREIGN KEY (bulk_id) REFERENCES bulk_actions (id);

-- Idempotency-Key: the same key from the same token with the same request returns what the first
-- request created (for 24 hours); the same key with another request is refused.
CREATE TABLE idempotency_keys (
  token_id     text NOT NULL,
  key          text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  request_hash text NOT NULL,      -- SHA-256 (hex) of method, path and the canonical JSON body
  task_ids     uuid[] NOT NULL DEFAULT '{}',
  bulk_id      uuid,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (token_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
