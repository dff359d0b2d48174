# xterm.js, the terminal of the serial console page, vendored into the console by the build:
# `npm ci` installs web/vendor/package-lock.json (the @xterm/xterm package, pinned by version and
# SHA-512 integrity) into the build folder at configure time, again only when the lockfile
# changes, and its browser build, stylesheet and licence are embedded with the console under
# /assets/<hash>/vendor/xterm/ (cmake/EmbedConsole.cmake). Nothing of it is in the repository.
#
# npm keeps what it downloaded in its own cache (~/.npm): a second build folder fetches nothing.
# Without npm or network, point -DIRONHOLD_XTERM_PACKAGE_DIR at an unpacked copy of the package
# (the folder holding lib/xterm.js, css/xterm.css and LICENSE).
#
# ironhold_vendor_xterm(<out var>) sets <out var> to the folder whose files are embedded as
# vendor/<path>, and the global property IRONHOLD_XTERM_PACKAGE_DIR to the package used.

set(IRONHOLD_XTERM_PACKAGE_DIR "" CACHE PATH
    "An unpacked @xterm/xterm package to embed instead of the one npm ci installs")

function(ironhold_vendor_xterm out_dir)
  set(lock_dir "${PROJECT_SOURCE_DIR}/web/vendor")
  set(package "${IRONHOLD_XTERM_PACKAGE_DIR}")
  if(NOT package)
    set(npm_dir "${CMAKE_BINARY_DIR}/console-npm")
    set(package "${npm_dir}/node_modules/@xterm/xterm")
    file(SHA256 "${lock_dir}/package-lock.json" lock_hash)
    set(stamp "${npm_dir}/node_modules/.package-lock.sha256")
    set(installed "")
    if(EXISTS "${stamp}")
      file(READ "${stamp}" installed)
    endif()
    if(NOT installed STREQUAL lock_hash OR NOT EXISTS "${package}/lib/xterm.js")
      find_program(IRONHOLD_NPM npm)
      if(NOT IRONHOLD_NPM)
        message(FATAL_ERROR "npm is needed to fetch xterm.js for the serial console page "
                            "(scripts/install-deps.sh installs it), or pass "
                            "-DIRONHOLD_XTERM_PACKAGE_DIR=<an unpacked @xterm/xterm package>")
      endif()
      message(STATUS "Installing xterm.js with npm ci (web/vendor/package-lock.json)")
      file(MAKE_DIRECTORY "${npm_dir}")
      configure_file("${lock_dir}/package.json" "${npm_dir}/package.json" COPYONLY)
      configure_file("${lock_dir}/package-lock.json" "${npm_dir}/package-lock.json" COPYONLY)
      # npm ci checks every package against the lockfile's integrity (SHA-512).
      execute_process(
        COMMAND "${IRONHOLD_NPM}" ci --no-audit --no-fund --ignore-scripts --loglevel=error
        WORKING_DIRECTORY "${npm_dir}"
        RESULT_VARIABLE npm_result
        OUTPUT_VARIABLE npm_output
        ERROR_VARIABLE npm_output)
      if(NOT npm_result EQUAL 0)
        message(FATAL_ERROR "npm ci could not install xterm.js for the serial console page:\n"
                            "${npm_output}\nWithout network, pass "
                            "-DIRONHOLD_XTERM_PACKAGE_DIR=<an unpacked @xterm/xterm package>")
      endif()
      file(WRITE "${stamp}" "${lock_hash}")
    endif()
  endif()

  set(vendor "${CMAKE_BINARY_DIR}/console-vendor")
  file(MAKE_DIRECTORY "${vendor}/xterm")
  foreach(pair "lib/xterm.js;xterm.js" "css/xterm.css;xterm.css" "LICENSE;LICENSE")
    list(GET pair 0 from)
    list(GET pair 1 to)
    if(NOT EXISTS "${package}/${from}")
      message(FATAL_ERROR "${package} has no ${from}: not an @xterm/xterm package")
    endif()
    file(COPY_FILE "${package}/${from}" "${vendor}/xterm/${to}" ONLY_IF_DIFFERENT)
  endforeach()
  # The lockfile is an input of the configuration: a new version re-runs it.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${lock_dir}/package-lock.json")
  set(${out_dir} "${vendor}" PARENT_SCOPE)
  set_property(GLOBAL PROPERTY IRONHOLD_XTERM_PACKAGE_DIR "${package}")
endfunction()
