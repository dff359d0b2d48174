-- Firmware rollouts and baselines. A rollout takes one image to the nodes a selector matched,
-- canary nodes first, then batches, each node's update a firmware task and then a health gate.
-- Its progress is advanced in transactions that lock its row (RolloutStore::advance), so any
-- instance may advance it and a kill -9 leaves either the whole step or none of it.

CREATE TABLE firmware_rollouts (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The image as it was when the rollout started (the image row may be deleted once it ends).
  image_id              uuid NOT NULL,
  image_name            text NOT NULL,
  component             text NOT NULL,
  version               text NOT NULL,
  selector              jsonb NOT NULL CHECK (jsonb_typeof(selector) = 'object'),
  canary                integer NOT NULL CHECK (canary >= 0),
  batch_size            integer NOT NULL CHECK (batch_size BETWEEN 1 AND 1000),
  max_parallel_per_rack integer NOT NULL CHECK (max_parallel_per_rack BETWEEN 1 AND 1000),
  max_failures          integer NOT NULL CHECK (max_failures >= 0),
  health_gate_seconds   integer NOT NULL CHECK (health_gate_seconds BETWEEN 0 AND 86400),
  task_parameters       jsonb NOT NULL DEFAULT '{}',   -- reset, timeout_s: as each task gets them
  state                 text NOT NULL DEFAULT 'running'
                        CHECK (state IN ('running', 'paused', 'halted', 'aborted', 'succeeded')),
  halt_reason           text,
  -- Failures an operator has seen and resumed past: max_failures counts those beyond them.
  failures_accepted     integer NOT NULL DEFAULT 0,
  requested_by          text,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  finished_at           timestamptz
);
CREATE INDEX firmware_rollouts_active ON firmware_rollouts (created_at)
  WHERE state IN ('running', 'paused', 'halted');
CREATE INDEX firmware_rollouts_listing ON firmware_rollouts (created_at DESC, id DESC);

CREATE TABLE rollout_nodes (
  rollout_id    uuid NOT NULL REFERENCES firmware_rollouts (id) ON DELETE CASCADE,
  node_id       uuid NOT NULL,
  node_name     text NOT NULL,
  rack          text,                         -- "site/rack" as the node was located; null: none
  position      integer NOT NULL,             -- the order nodes are taken in
  batch         integer NOT NULL,             -- 0: canary; 1, 2, ...: the batches after it
  state         text NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'updating', 'gating', 'succeeded', 'failed',
                                 'skipped', 'cancelled')),
  task_id       uuid,
  health_before text,                         -- the node's health when its update started
  from_version  text,
  gate_until    timestamptz,
  error         text,
  started_at    timestamptz,
  finished_at   timestamptz,
  PRIMARY KEY (rollout_id, node_id)
);
CREATE INDEX rollout_nodes_order ON rollout_nodes (rollout_id, position);

-- Firmware baselines: per server model, the version each component should run. Compliance is
-- computed from them and the current firmware records (GET /api/v1/firmware/compliance).
CREATE TABLE firmware_baselines (
  model       text PRIMARY KEY CHECK (length(model) BETWEEN 1 AND 200),
  components  jsonb NOT NULL CHECK (jsonb_typeof(components) = 'object'),
  updated_by  text,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- A rollout started with an Idempotency-Key: a retry of the same request returns it.
ALTER TABLE idempotency_keys ADD COLUMN rollout_id uuid;
