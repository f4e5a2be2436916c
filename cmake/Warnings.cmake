# One place for compiler flags every target shares.
add_library(gpukill_flags INTERFACE)
target_compile_options(gpukill_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                               -Wno-sign-conversion
                                               # designated initializers rely on defaults
                                               -Wno-missing-field-initializers)
# GCC 12's libstdc++ copies strings through memcpy calls that its -O2 range analysis
# misjudges: -Warray-bounds, -Wstringop-overflow, -Wstringop-overread and -Wrestrict
# fire inside char_traits.h on any std::string built from a literal, moved or appended
# to (GCC bugs 105329, 105545, 105651; fixed in GCC 13), a dozen times over gpukill's own
# ordinary code (a RelWithDebInfo build printed 28 such warnings, none about a real
# access). Off for GCC 12 where the optimiser runs; Debug builds (-O0, the test
# suite's) and GCC 13 or later keep them.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(gpukill_flags INTERFACE
      "$<$<NOT:$<CONFIG:Debug>>:-Wno-array-bounds;-Wno-stringop-overflow;-Wno-stringop-overread;-Wno-restrict>")
endif()
if(GPUKILL_WERROR)
  target_compile_options(gpukill_flags INTERFACE -Werror)
endif()
# Precompiled headers for the heavy third-party headers most files of a target include
# (nlohmann/json alone is ~25,000 lines): parsed once per target instead of per file.
# GPUKILL_PCH=OFF builds without them, which also shows an include a file forgot.
function(gpukill_precompile target)
  if(GPUKILL_PCH)
    target_precompile_headers(${target} PRIVATE <string> <vector> <map> <optional> <expected>
                                                <functional> <memory> <algorithm> ${ARGN})
  endif()
endfunction()

# The sanitizers instrument the product (gpukill_product: the libraries, gpukill,
# gpusim, the simulated NVML, the fuzz targets); every binary links their runtime. Test
# code itself is not instrumented: the suite exercises instrumented product code, and
# instrumenting gtest's expansions doubled the suite's compile time for no finding.
add_library(gpukill_product INTERFACE)
target_link_libraries(gpukill_product INTERFACE gpukill_flags)
if(GPUKILL_SANITIZE)
  target_compile_options(gpukill_product INTERFACE -fsanitize=address,undefined
                                                   -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(gpukill_flags INTERFACE -fsanitize=address,undefined)
endif()

# Unity builds (GPUKILL_UNITY, scripts/test.sh turns it on): the product libraries are
# compiled in batches of files, so shared headers are parsed and their templates
# generated once per batch instead of once per file. Off by default: a change to one
# file then recompiles its whole batch.
function(gpukill_unity target)
  if(GPUKILL_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 12)
  endif()
endfunction()
