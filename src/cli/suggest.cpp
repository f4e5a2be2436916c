#include "cli/suggest.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/human_format.hpp"

namespace gpukill::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Optimal string alignment: three rows of the table are enough.
    std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                current[j] = std::min(current[j], before[j - 2] + 1);
            }
        }
        before.swap(previous);
        previous.swap(current);
    }
    return previous[b.size()];
}

std::optional<std::string> closest(std::string_view word,
                                   const std::vector<std::string>& candidates) {
    const std::size_t allowed = std::clamp<std::size_t>(word.size() / 3, 1, 3);
    std::optional<std::string> best;
    std::size_t best_distance = allowed + 1;
    for (const std::string& candidate : candidates) {
        if (candidate == word) continue;
        const std::size_t distance = edit_distance(word, candidate);
        if (distance < best_distance) {
            best_distance = distance;
            best = candidate;
        }
    }
    return best;
}

std::string unknown_option_message(std::string_view word, const std::vector<std::string>& names,
                                   const std::vector<std::string>& owners) {
    const std::string shown = printable(word);
    if (!owners.empty()) {
        std::string whose;
        for (std::size_t i = 0; i < owners.size(); ++i) {
            whose += (i == 0 ? "" : i + 1 == owners.size() ? " and " : ", ") + owners[i];
        }
        return fmt::format("{} is an option of {}: give it after the command (gpukill {} {})",
                           shown, whose, owners.front(), shown);
    }
    if (auto near = closest(word, names)) {
        return fmt::format("unknown option '{}'; did you mean '{}'?", shown, *near);
    }
    return fmt::format("unknown option '{}' (see gpukill --help)", shown);
}

}  // namespace gpukill::cli
