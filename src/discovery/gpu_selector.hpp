// `--gpu` accepts an index, a UUID (or a unique prefix of one, as nvidia-smi -i
// does) or a PCI bus id in NVML's or sysfs's spelling.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "model/gpu.hpp"
#include "model/result.hpp"
#include "model/snapshot.hpp"

namespace gpukill {

// The global index of the one GPU `selector` names, or an error line saying why
// none (or more than one) matches.
Result<unsigned> resolve_gpu_selector(std::string_view selector, const std::vector<Gpu>& gpus);

// A copy of `snapshot` reduced to the given GPUs and the processes tied to them.
Snapshot restrict_to_gpus(const Snapshot& snapshot, const std::vector<unsigned>& indices);

}  // namespace gpukill

namespace gpukill {

// "nvidia", "amd", "intel", "all" (empty optional); anything else is an error.
Result<std::optional<Vendor>> parse_vendor_filter(std::string_view text);

// A copy of `snapshot` with only that vendor's GPUs, and the processes tied to
// them or holding that vendor's driver-wide nodes (/dev/nvidiactl, /dev/kfd).
Snapshot restrict_to_vendor(const Snapshot& snapshot, Vendor vendor);

}  // namespace gpukill
