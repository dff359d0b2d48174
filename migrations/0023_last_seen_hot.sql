-- A node that answers as before has its last_seen refreshed once a minute: at 10,000 nodes, 167
-- row writes a second, and every one of them is the whole sweep's when polls fall due together.
-- With last_seen indexed, each refresh was a new version of the wide nodes row with an entry in
-- every one of its fifteen indexes (the GIN index of tags, the expression index of gpu_model...)
-- and left the same again as dead entries for autovacuum: bench/fleet_poll saw a 10,000-node
-- sweep take 5 s between two vacuums of nodes and 3 s just after one. Unindexed, a refresh is a
-- heap-only (HOT) update: the new version goes on the same page and no index is touched, given
-- room on the page, which the fill factor keeps for it.
--
-- The price: the node list sorted by last_seen reads every node of the selection and sorts them
-- (a top-N sort when paged), where it walked an index.
DROP INDEX nodes_last_seen_id;
ALTER TABLE nodes SET (fillfactor = 80);
