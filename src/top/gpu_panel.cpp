#include "top/gpu_panel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/human_format.hpp"

namespace gpukill::top {
namespace {

std::optional<double> panel_memory_fraction(const GpuReading& r) {
    if (!r.memory_used_bytes || !r.memory_total_bytes || *r.memory_total_bytes == 0) {
        return std::nullopt;
    }
    return static_cast<double>(*r.memory_used_bytes) / static_cast<double>(*r.memory_total_bytes);
}

std::string panel_fit(std::string text, int width) {
    if (width <= 0) return "";
    if (static_cast<int>(text.size()) > width) text.resize(static_cast<std::size_t>(width));
    return text;
}

}  // namespace

void GpuHistory::add(const Snapshot& snapshot) {
    for (const Gpu& gpu : snapshot.gpus) {
        std::deque<GpuSample>& samples = samples_[gpu.index];
        samples.push_back({gpu.reading.utilization_percent, panel_memory_fraction(gpu.reading)});
        while (samples.size() > capacity_) samples.pop_front();
    }
    // GPUs no longer in the snapshot (a lost board) keep their history until the map
    // is bounded by the host's GPU count again.
    if (samples_.size() > snapshot.gpus.size() + 16) {
        std::erase_if(samples_, [&](const auto& entry) {
            return find_gpu(snapshot, entry.first) == nullptr;
        });
    }
}

const std::deque<GpuSample>* GpuHistory::of(unsigned gpu) const {
    auto found = samples_.find(gpu);
    return found == samples_.end() ? nullptr : &found->second;
}

std::string meter(std::optional<double> fraction, int width) {
    if (width < 1) width = 1;
    if (!fraction) return "[" + std::string(static_cast<std::size_t>(width), '?') + "]";
    const double clamped = std::clamp(*fraction, 0.0, 1.0);
    const int filled = static_cast<int>(std::lround(clamped * width));
    return "[" + std::string(static_cast<std::size_t>(filled), '|') +
           std::string(static_cast<std::size_t>(width - filled), ' ') + "]";
}

std::string sparkline(const std::vector<std::optional<double>>& values, int width) {
    static constexpr std::string_view kLevels = "_.-=+*#";
    if (width <= 0) return "";
    std::string line(static_cast<std::size_t>(width), ' ');
    const std::size_t shown = std::min(values.size(), static_cast<std::size_t>(width));
    const std::size_t first = values.size() - shown;
    const std::size_t offset = static_cast<std::size_t>(width) - shown;
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& value = values[first + i];
        if (!value) continue;
        const double clamped = std::clamp(*value, 0.0, 1.0);
        const auto level = static_cast<std::size_t>(
            std::lround(clamped * static_cast<double>(kLevels.size() - 1)));
        line[offset + i] = kLevels[level];
    }
    return line;
}

std::vector<std::string> gpu_panel_lines(const Gpu& gpu, const GpuHistory& history, int width) {
    const GpuReading& r = gpu.reading;
    // A narrow terminal gives the name less room than the figures.
    const int name_width = width >= 120 ? 20 : 12;
    const std::string name = panel_fit(printable(r.name.value_or(to_string(r.vendor))), name_width);
    std::string memory =
        fmt::format("{}/{}", format_bytes(r.memory_used_bytes), format_bytes(r.memory_total_bytes));
    std::string util = r.utilization_percent ? fmt::format("{}%", *r.utilization_percent) : "?%";
    std::string temperature =
        r.temperature_celsius ? fmt::format("{}C", *r.temperature_celsius) : "-C";
    std::string power = r.power_watts ? fmt::format("{:.0f}W", *r.power_watts) : "-W";
    const std::string power_limit =
        r.power_watts && r.power_limit_watts ? fmt::format("/{:.0f}W", *r.power_limit_watts) : "";
    const std::string state = r.lost ? "  LOST" : "";
    const std::optional<double> util_fraction =
        r.utilization_percent ? std::optional<double>(*r.utilization_percent / 100.0)
                              : std::nullopt;
    // The bars share what the figures leave. Every figure is kept whole: a narrow screen
    // shortens the bars, then drops the power limit, then the bars, never cuts a number.
    const std::string head = fmt::format("GPU {:<2} {:<{}} ", gpu.index, name, name_width);
    const auto compose = [&](const std::string& watts, int bars) {
        if (bars <= 0) {
            return head + "MEM " + memory + "  UTIL " + util + "  " + temperature + " " + watts +
                   state;
        }
        return head + "MEM " + meter(panel_memory_fraction(r), bars) + " " + memory + "  UTIL " +
               meter(util_fraction, bars) + fmt::format(" {} {} {}", temperature, watts, util) +
               state;
    };
    constexpr int kMinBars = 4;
    std::string first;
    for (const std::string& watts : {power + power_limit, power}) {
        // Two bars of b cells take 2b + 5 columns more than the text without them: their
        // brackets and the space after each.
        const int without = static_cast<int>(compose(watts, 0).size());
        const int bars = (width - without - 5) / 2;
        if (bars >= kMinBars) {
            first = compose(watts, bars);
            break;
        }
    }
    if (first.empty()) first = compose(power, 0);

    // Memory nobody accounts for closes the second line, whole: the sparklines give way.
    std::string unaccounted;
    if (gpu.unattributed_memory_bytes && *gpu.unattributed_memory_bytes > 0) {
        unaccounted = fmt::format("  {} unaccounted", format_bytes(*gpu.unattributed_memory_bytes));
    }
    std::vector<std::optional<double>> util_values, memory_values;
    if (const auto* samples = history.of(gpu.index)) {
        for (const GpuSample& sample : *samples) {
            util_values.push_back(sample.utilization_percent
                                      ? std::optional<double>(*sample.utilization_percent / 100.0)
                                      : std::nullopt);
            memory_values.push_back(sample.memory_fraction);
        }
    }
    const int spark = std::max(4, (width - 20 - static_cast<int>(unaccounted.size())) / 2);
    std::string second = "   util " + sparkline(util_values, spark) + "  mem " +
                         sparkline(memory_values, spark) + unaccounted;
    return {panel_fit(std::move(first), width), panel_fit(std::move(second), width)};
}

}  // namespace gpukill::top
