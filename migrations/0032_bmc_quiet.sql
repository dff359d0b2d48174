-- While a credentials task changes a BMC's password, nothing else logs in to it: a poll or task
-- that read the old password before the change and logged in after it would be refused, and a
-- BMC counts refusals towards locking the account out. The rotation sets this on the node and on
-- the Systems behind its BMC; polls and tasks (other than the rotation) are not claimed for a
-- node until it has passed, and new consoles wait. A time rather than a flag, so that an instance
-- that dies mid-rotation holds nothing for long.
ALTER TABLE nodes ADD COLUMN bmc_quiet_until timestamptz;
