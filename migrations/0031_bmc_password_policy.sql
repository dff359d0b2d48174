-- A rotation policy per project: the BMC passwords of its owned servers are rotated (a
-- credentials task, started by Ironhold) once they are older than this many days. NULL: never
-- on its own. A password's age is that of the node's stored credentials (node_credentials
-- .updated_at): set by an operator or by the last rotation.
ALTER TABLE projects ADD COLUMN bmc_password_max_age_days integer
  CHECK (bmc_password_max_age_days BETWEEN 1 AND 3650);
