# One place for compiler flags every target shares.
add_library(gpukill_flags INTERFACE)
target_compile_options(gpukill_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                               -Wno-sign-conversion
                                               # designated initializers rely on defaults
                                               -Wno-missing-field-initializers)
if(GPUKILL_WERROR)
  target_compile_options(gpukill_flags INTERFACE -Werror)
endif()
if(GPUKILL_SANITIZE)
  target_compile_options(gpukill_flags INTERFACE -fsanitize=address,undefined
                                                 -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(gpukill_flags INTERFACE -fsanitize=address,undefined)
endif()
