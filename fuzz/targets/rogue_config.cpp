// rogue.yaml: rogue detection's configuration reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "detect/config_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)gpukill::detect::parse_rogue_config(text, "rogue.yaml");
    return 0;
}
