#include "cli/terminal_width.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

namespace gpukill::cli {
namespace {

std::optional<std::size_t> positive_number(const std::optional<std::string>& text) {
    if (!text || text->empty()) return std::nullopt;
    std::size_t value = 0;
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (error != std::errc() || end != text->data() + text->size() || value == 0) {
        return std::nullopt;
    }
    return value;
}

std::optional<std::size_t> terminal_columns() {
    winsize size{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return std::nullopt;
}

}  // namespace

OutputWidth stdout_width(bool wide, const Environment& env) {
    if (wide || isatty(STDOUT_FILENO) != 1) return std::nullopt;
    if (auto columns = positive_number(env("COLUMNS"))) return *columns;
    return terminal_columns().value_or(80);
}

std::size_t help_width(const Environment& env) {
    if (isatty(STDOUT_FILENO) != 1) return 80;
    std::size_t columns = positive_number(env("COLUMNS")).value_or(terminal_columns().value_or(80));
    return std::clamp<std::size_t>(columns, 40, 100);
}

}  // namespace gpukill::cli
