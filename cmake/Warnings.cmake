# Every target of ours compiles with these; third-party headers are included as SYSTEM.
add_library(ironhold_warnings INTERFACE)
target_compile_options(ironhold_warnings INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
