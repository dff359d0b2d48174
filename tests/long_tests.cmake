# Included by tests/CTestTestfile.cmake after the discovered Catch2 tests (TEST_INCLUDE_FILES in
# tests/CMakeLists.txt). ctest starts the tests of highest COST first; after a run it uses that
# run's timings (Testing/Temporary/CTestCostData.txt), but a fresh clone has none, and then the
# long tests started wherever their file's place put them, some of them in the run's last minutes
# with the other slots idle. These are the tests that took 20 s or more, with their seconds from a
# run of the whole suite (ctest -j4 on two cores, Debug with ASan): longest first is what keeps a
# parallel run short. A test renamed or removed here is ignored by ctest (only costs are lost).
set_tests_properties([==[three instances on one database: a kill -9 moves polls and tasks on, none twice]==] PROPERTIES COST 84)
set_tests_properties([==[a kill -9 during a bulk power cycle of 200 BMCs loses no task and repeats no reset]==] PROPERTIES COST 65)
set_tests_properties([==[a poll that outlives its lease keeps it: another poller never polls that BMC meanwhile]==] PROPERTIES COST 55)
set_tests_properties([==[the demo's simulated fleet fills the inventory and survives a kill -9]==] PROPERTIES COST 54)
set_tests_properties([==[a kill -9 during a firmware rollout loses no task and flashes no BMC twice]==] PROPERTIES COST 47)
set_tests_properties([==[BMCs push their events through the subscriptions serve makes, before any poll]==] PROPERTIES COST 47)
set_tests_properties([==[a BMC not yet known to be slow holds its slot until slow_after]==] PROPERTIES COST 43)
set_tests_properties([==[no role in one project sees, exports or acts on another project's anything]==] PROPERTIES COST 42)
set_tests_properties([==[a backup of a data directory restores into a fresh one that has the same key files]==] PROPERTIES COST 33)
set_tests_properties([==[a rollout updates the canary first, then each batch, every node once]==] PROPERTIES COST 30)
set_tests_properties([==[keys rotate re-seals every credential while the service keeps using them]==] PROPERTIES COST 26)
set_tests_properties([==[polls of failing BMCs wait no longer than failing_wait_max]==] PROPERTIES COST 26)
set_tests_properties([==[every error status answers with a problem body]==] PROPERTIES COST 26)
set_tests_properties([==[polls of failing BMCs wait until the working BMCs' polls are nearly done]==] PROPERTIES COST 25)
set_tests_properties([==[an export past the budget is refused while the API answers, and the budget comes back]==] PROPERTIES COST 23)
set_tests_properties([==[keyset pages return each of 2,500 nodes exactly once while nodes are being inserted]==] PROPERTIES COST 23)
set_tests_properties([==[a BMC that rejects the image or never finishes fails the task, naming what it saw]==] PROPERTIES COST 23)
set_tests_properties([==[an update that never finishes times out and halts the rollout]==] PROPERTIES COST 22)
set_tests_properties([==[a node turning critical in its health gate halts the rollout]==] PROPERTIES COST 22)
set_tests_properties([==[a paused rollout starts no node until it is resumed]==] PROPERTIES COST 21)
