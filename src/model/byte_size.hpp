// Memory sizes as people write them: 1024, 512M, 1.5G, 80GiB. K, M, G and T are
// binary multiples, as nvidia-smi's MiB and every ML framework's "GB" mean in practice.
// Shared by gpukill (--min-memory) and gpusim (--mem).
#pragma once

#include <cstdint>
#include <string_view>

#include "model/result.hpp"

namespace gpukill {

// Bytes, or an error line saying what is wrong with the text.
Result<std::uint64_t> parse_byte_size(std::string_view text);

}  // namespace gpukill
