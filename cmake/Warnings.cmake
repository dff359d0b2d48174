# Every target of ours compiles with these; third-party headers are included as SYSTEM.
add_library(ironhold_warnings INTERFACE)
# -Wmismatched-new-delete: GCC 12 reports Asio's coroutine frame allocator (operator new/delete
# of awaitable_frame_base) as mismatched, a known false positive for coroutine frames.
target_compile_options(ironhold_warnings INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers
  -Wno-mismatched-new-delete)
