// Nothing: ironhold_test_pch needs one source to build the test suite's precompiled header with.
