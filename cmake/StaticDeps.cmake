# The third-party libraries every gpukill program links, as targets named gpukill_dep_*,
# chosen once here: the shared libraries, or (GPUKILL_STATIC_DEPS, the default) the
# archives Debian's -dev packages ship, and fmt's compiled part built here from its
# headers.
#
# Why: a one-shot `gpukill kill --pid P` or `gpukill list` answered by the agent is
# mostly start-up, and a third of start-up was the dynamic loader mapping five C++
# libraries and resolving some 3,600 symbols against them (docs/BENCHMARKS.md, "Start-up:
# what a one-shot command costs before main"). With the archives, and libstdc++ and
# libgcc carried by the gpukill binary itself (gpukill_static_runtime below), it loads
# libc and libm alone. An archive that is missing falls back to the shared library, with
# a message: the build never fails for want of one.

function(gpukill_static_or_shared name archive shared)
  set(target gpukill_dep_${name})
  add_library(${target} INTERFACE)
  if(GPUKILL_STATIC_DEPS)
    find_library(GPUKILL_${name}_ARCHIVE NAMES ${archive})
    if(GPUKILL_${name}_ARCHIVE)
      target_link_libraries(${target} INTERFACE ${GPUKILL_${name}_ARCHIVE} ${ARGN})
      return()
    endif()
    message(STATUS "gpukill: no ${archive}, linking ${name} as a shared library")
  endif()
  target_link_libraries(${target} INTERFACE ${shared})
endfunction()

find_package(SQLite3 REQUIRED)  # the usage history (src/history/usage_store_sqlite.cpp)
find_package(PkgConfig REQUIRED)
# Every pattern (src/model/pattern.cpp) is compiled and searched by RE2 (libre2-dev). Its
# pkg-config flags add only -pthread, which glibc does not need.
pkg_check_modules(GPUKILL_RE2 REQUIRED re2)

gpukill_static_or_shared(yaml libyaml-cpp.a yaml-cpp)
target_include_directories(gpukill_dep_yaml SYSTEM INTERFACE
                           $<TARGET_PROPERTY:yaml-cpp,INTERFACE_INCLUDE_DIRECTORIES>)
gpukill_static_or_shared(re2 libre2.a "${GPUKILL_RE2_LINK_LIBRARIES}" Threads::Threads)
gpukill_static_or_shared(sqlite libsqlite3.a SQLite::SQLite3 Threads::Threads ${CMAKE_DL_LIBS}
                         m)
target_include_directories(gpukill_dep_sqlite SYSTEM INTERFACE ${SQLite3_INCLUDE_DIRS})

# fmt's compiled part from its own headers (src/deps/fmt_library.cpp): Debian ships no
# libfmt.a.
if(GPUKILL_STATIC_DEPS)
  add_library(gpukill_dep_fmt STATIC ${PROJECT_SOURCE_DIR}/src/deps/fmt_library.cpp)
  target_include_directories(gpukill_dep_fmt SYSTEM PUBLIC
                             $<TARGET_PROPERTY:fmt::fmt,INTERFACE_INCLUDE_DIRECTORIES>)
else()
  add_library(gpukill_dep_fmt INTERFACE)
  target_link_libraries(gpukill_dep_fmt INTERFACE fmt::fmt)
endif()

# For the programs run once per command (gpukill itself), and the simulated NVML library
# they load (sim/CMakeLists.txt): libstdc++ and libgcc inside the binary. Not with the
# sanitizers, whose runtime must see every allocation through the shared libstdc++.
function(gpukill_static_runtime target)
  if(GPUKILL_STATIC_DEPS AND NOT GPUKILL_SANITIZE)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
  endif()
endfunction()
