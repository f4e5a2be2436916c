// Shared pieces of the rule checks: a candidate's memory, newest-first selection, and
// the numbers in the explanations.
#include <fmt/format.h>

#include <algorithm>

#include "guard/rules.hpp"

namespace gpukill::guard::rules {

std::uint64_t Candidate::memory_on(unsigned gpu) const {
    std::uint64_t total = 0;
    for (const ProcessGpuUse& use : process->gpus) {
        if (use.gpu_index == gpu && use.memory_bytes) total += *use.memory_bytes;
    }
    return total;
}

bool Candidate::on_gpu(unsigned gpu) const {
    return std::any_of(process->gpus.begin(), process->gpus.end(), [&](const ProcessGpuUse& use) {
        return use.gpu_index == gpu && use.known();
    });
}

std::vector<std::size_t> newest_covering(const Context& context, std::vector<std::size_t> members,
                                         std::uint64_t excess,
                                         const std::function<std::uint64_t(std::size_t)>& size) {
    std::erase_if(members, [&](std::size_t index) {
        return context.candidates[index].protected_because.has_value();
    });
    std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
        const ProcessInfo& x = context.candidates[a].info();
        const ProcessInfo& y = context.candidates[b].info();
        if (x.start_time_ticks != y.start_time_ticks)
            return x.start_time_ticks > y.start_time_ticks;
        return x.pid > y.pid;
    });
    std::vector<std::size_t> chosen;
    std::uint64_t covered = 0;
    for (std::size_t index : members) {
        if (covered >= excess) break;
        // Acting on a process that holds none of the excess would give nothing back.
        if (size(index) == 0) continue;
        chosen.push_back(index);
        covered += size(index);
    }
    return chosen;
}

std::string describe_bytes(std::uint64_t bytes) {
    constexpr std::uint64_t MiB = 1ULL << 20;
    constexpr std::uint64_t GiB = 1ULL << 30;
    if (bytes >= GiB) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / GiB);
    if (bytes >= MiB) return fmt::format("{} MiB", bytes / MiB);
    return fmt::format("{} B", bytes);
}

std::string describe_duration(std::chrono::seconds duration) {
    std::int64_t seconds = duration.count();
    if (seconds == 0) return "0s";
    std::string text;
    for (auto [unit, size] : {std::pair{'d', 86400LL}, {'h', 3600LL}, {'m', 60LL}, {'s', 1LL}}) {
        if (seconds >= size) {
            text += fmt::format("{}{}", seconds / size, unit);
            seconds %= size;
        }
    }
    return text;
}

}  // namespace gpukill::guard::rules
