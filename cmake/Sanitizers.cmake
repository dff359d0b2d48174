if(IRONHOLD_SANITIZE)
  # Applied globally so every object, including Asio's separately compiled one, is instrumented alike.
  # -O0: compiling the coroutine- and template-heavy sources takes half the time of -O1 (measured:
  # 57 s -> 29 s for sim/redfish/control_server.cpp), which keeps CI's clean build well inside its
  # budget; the tests run a little slower, and benchmarks never use this build.
  add_compile_options(-O0 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
