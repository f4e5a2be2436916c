// Clocks and summary statistics for the benchmark.
#pragma once

#include <sys/time.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace gpukill::bench {

inline double seconds(const timespec& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
inline double seconds(const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

inline double clock_s(clockid_t clock) {
    timespec now{};
    ::clock_gettime(clock, &now);
    return seconds(now);
}

// Wall time on the monotonic clock and this process's CPU time since construction.
class Stopwatch {
  public:
    double elapsed_s() const { return clock_s(CLOCK_MONOTONIC) - wall_start_; }
    double cpu_elapsed_s() const { return clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu_start_; }

  private:
    double wall_start_ = clock_s(CLOCK_MONOTONIC);
    double cpu_start_ = clock_s(CLOCK_PROCESS_CPUTIME_ID);
};

inline double median(std::vector<double> values) {
    if (values.empty()) return NAN;
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// Nearest-rank percentile (p in (0, 100]).
inline double percentile(std::vector<double> values, double p) {
    if (values.empty()) return NAN;
    std::sort(values.begin(), values.end());
    const auto rank =
        static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

// Median over rounds of a[i] / b[i]. When tools are interleaved, each round's pair ran
// under the same conditions: the per-round ratio cancels the drift of a shared machine
// better than the ratio of the medians does.
inline double paired_median(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> ratios;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) ratios.push_back(a[i] / b[i]);
    return median(std::move(ratios));
}

}  // namespace gpukill::bench
