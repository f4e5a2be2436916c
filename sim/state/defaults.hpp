#pragma once
// What a host looks like when the scenario does not say: an HGX H100 80GB board on a
// 550-series driver.

#include "state/config.hpp"

namespace gpusim {

inline constexpr unsigned kDefaultGpuCount = 2;

DriverSpec default_driver(bool legacy);

// GPU `index` of the default board: deterministic UUID and the bus ids of a real HGX H100.
GpuSpec default_gpu(unsigned index);

}  // namespace gpusim
