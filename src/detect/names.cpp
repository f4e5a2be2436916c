#include "detect/names.hpp"

namespace gpukill::detect {
namespace {

constexpr std::size_t kCommLength = 15;  // TASK_COMM_LEN - 1

char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

std::string_view base_name(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool name_matches(std::string_view name, std::string_view pattern) {
    if (pattern.empty() || name.empty()) return false;
    if (pattern.back() == '*') {
        const std::string_view prefix = pattern.substr(0, pattern.size() - 1);
        return name.size() >= prefix.size() &&
               equal_ignoring_case(name.substr(0, prefix.size()), prefix);
    }
    return equal_ignoring_case(name, pattern);
}

std::optional<std::string> first_match(std::string_view name,
                                       const std::vector<std::string>& patterns) {
    for (const std::string& pattern : patterns) {
        if (name_matches(name, pattern)) return pattern;
    }
    return std::nullopt;
}

std::optional<std::string> argv0_name(std::string_view argv0) {
    std::string_view word = argv0.substr(0, argv0.find(' '));
    if (!word.empty() && word.back() == ':') word.remove_suffix(1);
    if (!word.empty() && word.front() == '-') word.remove_prefix(1);
    word = base_name(word);
    if (word.empty()) return std::nullopt;
    return std::string(word);
}

bool same_program(std::string_view claimed, std::string_view exe_base) {
    if (claimed.empty() || exe_base.empty()) return false;
    if (claimed == exe_base) return true;
    if (!exe_base.starts_with(claimed)) return false;
    if (claimed.size() == kCommLength) return true;
    // A version, not another word: "python3.11", "node-18", never "python-xmrig".
    std::string_view rest = exe_base.substr(claimed.size());
    if (rest.front() == '.' || rest.front() == '-' || rest.front() == '_') rest.remove_prefix(1);
    return !rest.empty() && rest.front() >= '0' && rest.front() <= '9';
}

bool path_inside(std::string_view path, std::string_view dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
    if (dir == "/") return true;
    return path.size() > dir.size() + 1 && path.starts_with(dir) && path[dir.size()] == '/';
}

bool bracketed(std::string_view argv0) {
    return argv0.size() >= 3 && argv0.front() == '[' && argv0.back() == ']';
}

}  // namespace gpukill::detect
