if(IRONHOLD_SANITIZE)
  # Applied globally so every object, including Asio's separately compiled one, is instrumented alike.
  # -O0: compiling the coroutine- and template-heavy sources takes half the time of -O1 (measured:
  # 57 s -> 29 s for sim/redfish/control_server.cpp), which keeps CI's clean build well inside its
  # budget; the tests run a little slower, and benchmarks never use this build.
  add_compile_options(-O0 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
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
    list(REMOVE_ITEM options "-fno-sanitize-recover=undefined")
    set_directory_properties(PROPERTIES COMPILE_OPTIONS "${options}")
  endif()
endfunction()

