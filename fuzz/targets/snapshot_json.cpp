// A saved `gpukill list --json` document, as `guard test --snapshot` reads it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "model/snapshot_json_read.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)gpukill::snapshot_from_json(text);
    return 0;
}
