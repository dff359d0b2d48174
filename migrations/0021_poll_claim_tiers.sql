-- Claims take the due polls of working BMCs before those of failing ones (poll_store.cpp): one
-- partial index on next_due per tier, so that each tier's claim reads the most overdue first
-- without sorting every due row. A row moves between them when its failure count starts or ends.
CREATE INDEX poll_schedule_due_working ON poll_schedule (next_due) WHERE failures = 0;
CREATE INDEX poll_schedule_due_failing ON poll_schedule (next_due) WHERE failures > 0;
DROP INDEX poll_schedule_due;
