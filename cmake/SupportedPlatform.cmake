# gpukill runs on Linux only (README, "Platforms"): it reads /proc, /sys and /dev and
# signals through pidfds and fanotify. Elsewhere (macOS above all) CMake stops here with
# one line that says so, instead of a compiler's thousand. Also runs as a script
# (cmake -DCMAKE_SYSTEM_NAME=Darwin -P cmake/SupportedPlatform.cmake), which the tests do.
if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
  message(FATAL_ERROR
          "gpukill builds and runs on Linux only, not on ${CMAKE_SYSTEM_NAME}: it reads /proc, "
          "/sys and /dev and signals through pidfds. On a Mac, run it on the Linux hosts that "
          "hold the GPUs, or try the simulated demo in a Linux VM or container (README, "
          "\"Platforms\").")
endif()
