if(IRONHOLD_SANITIZE)
  # Applied globally so every object, including Asio's separately compiled one, is instrumented alike.
  add_compile_options(-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
