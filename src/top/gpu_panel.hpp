// The GPU panel as text (pure): per GPU a line with its memory and utilisation bars,
// temperature and power, and a line of sparklines of the last minutes of utilisation and
// memory, kept by GpuHistory from the snapshots the monitor has read.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/snapshot.hpp"

namespace gpukill::top {

struct GpuSample {
    std::optional<unsigned> utilization_percent;
    std::optional<double> memory_fraction;  // used / total
};

// The last `capacity` samples of each GPU; older ones fall off (bounded memory for a
// monitor left open for weeks).
class GpuHistory {
  public:
    explicit GpuHistory(std::size_t capacity = 300) : capacity_(capacity) {}
    void add(const Snapshot& snapshot);
    const std::deque<GpuSample>* of(unsigned gpu) const;

  private:
    std::size_t capacity_;
    std::map<unsigned, std::deque<GpuSample>> samples_;
};

// "[||||      ]": `fraction` (0..1) of `width` inner cells; "[?...]" when unknown.
std::string meter(std::optional<double> fraction, int width);
// The last `width` values (0..1) as ASCII levels " _.-=+*#"; unknown is ' '. Right
// aligned: the newest sample is the last character.
std::string sparkline(const std::vector<std::optional<double>>& values, int width);

// Two lines for one GPU, fitted to `width`.
std::vector<std::string> gpu_panel_lines(const Gpu& gpu, const GpuHistory& history, int width);

}  // namespace gpukill::top
