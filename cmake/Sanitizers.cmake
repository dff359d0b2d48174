if(IRONHOLD_SANITIZE)
  # Applied globally so every object, including Asio's separately compiled one, is instrumented alike.
  # -O0: compiling the coroutine- and template-heavy sources takes half the time of -O1 (measured:
  # 57 s -> 29 s for sim/redfish/control_server.cpp), which keeps CI's clean build well inside its
  # budget; the tests run a little slower, and benchmarks never use this build.
  #
  # UBSan without its `null` and `alignment` checks: at -O0 they instrument every member access,
  # and their per-site data made the libraries' objects five times larger and took 40 % of their
  # compile time (measured: web's largest batch, 123 s -> 74 s, 27 MB of check data -> 7 MB,
  # which every test process relocated at start). A null dereference still stops the test, as
  # AddressSanitizer's SEGV report; x86-64 allows unaligned access, and our byte parsing copies
  # through memcpy or char pointers. Every other UBSan check (overflow, shifts, bounds, enums,
  # vptr, returns) stays.
  add_compile_options(-O0 -fsanitize=address,undefined -fno-sanitize=null,alignment
                      -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  # Line tables only (-g1): what the sanitizers' reports need to name each frame's file and line.
  # Full debug information took a quarter of the compile time (measured: web/server.cpp's batch,
  # 118 s -> 88 s) and most of the links' input; a debugger session wants a Debug build without
  # IRONHOLD_SANITIZE.
  add_compile_options(-g1)
  # mold (Debian's package) links the large test executables of this build in a fraction of GNU
  # gold's time, and gold in two thirds of ld.bfd's (measured: web_tests, 38 s -> 27 s).
  include(CheckLinkerFlag)
  check_linker_flag(CXX -fuse-ld=mold IRONHOLD_HAVE_MOLD)
  check_linker_flag(CXX -fuse-ld=gold IRONHOLD_HAVE_GOLD)
  # Executables not position-independent: a PIE test executable of this build carried 1.35 million
  # relative relocations (the sanitizers' metadata points everywhere) that every start applied,
  # page by page (measured: web_tests starting to run no test, 256 ms -> 160 ms of CPU; the suite
  # starts its executables some 1,200 times).
  add_link_options(-no-pie)
  if(IRONHOLD_HAVE_MOLD)
    add_link_options(-fuse-ld=mold)
  elseif(IRONHOLD_HAVE_GOLD)
    add_link_options(-fuse-ld=gold)
  endif()
endif()

# In the calling directory: AddressSanitizer only, no UndefinedBehaviorSanitizer. For test code and
# the simulators (the peers the tests talk to), not for the code under test: UBSan's checks cost a
# quarter of those files' compile time (measured: cloud_e2e_test.cpp and crawler_test.cpp went
# from 22-24 s to 16-17 s) and check nothing that ships in the service. The link still carries
# both runtimes.
function(ironhold_address_sanitizer_only)
  if(IRONHOLD_SANITIZE)
    get_directory_property(options COMPILE_OPTIONS)
    list(TRANSFORM options REPLACE "^-fsanitize=address,undefined$" "-fsanitize=address")
    list(REMOVE_ITEM options "-fno-sanitize-recover=undefined" "-fno-sanitize=null,alignment")
    set_directory_properties(PROPERTIES COMPILE_OPTIONS "${options}")
  endif()
endfunction()

