#include "host/proc_maps_parse.hpp"

#include <sys/sysmacros.h>

#include <array>
#include <charconv>

namespace gpukill {
namespace {

// The five fields before the path, split at single spaces; the rest of the line after
// the space that ends the inode. Empty when the line has fewer fields.
struct Fields {
    std::array<std::string_view, 5> head;
    std::string_view rest;
};

std::optional<Fields> split_fields(std::string_view line) {
    Fields fields;
    for (std::string_view& field : fields.head) {
        const auto space = line.find(' ');
        if (space == std::string_view::npos) {
            // Anonymous memory: the line may end right after the inode.
            if (&field != &fields.head.back()) return std::nullopt;
            field = line;
            line = {};
            break;
        }
        field = line.substr(0, space);
        line.remove_prefix(space + 1);
    }
    fields.rest = line;
    return fields;
}

// The padding the kernel puts before the path, removed.
std::string_view path_in(std::string_view rest) {
    const auto first = rest.find_first_not_of(' ');
    return first == std::string_view::npos ? std::string_view{} : rest.substr(first);
}

template <class T>
std::optional<T> parse_number(std::string_view text, int base) {
    if (text.empty()) return std::nullopt;
    T value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

}  // namespace

std::string_view maps_line_path(std::string_view line) {
    const auto fields = split_fields(line);
    return fields ? path_in(fields->rest) : std::string_view{};
}

std::optional<MapsLine> parse_maps_line(std::string_view line) {
    const auto fields = split_fields(line);
    if (!fields) return std::nullopt;
    const auto& [range, perms, offset, device, inode] = fields->head;
    const auto dash = range.find('-');
    if (dash == std::string_view::npos || !parse_number<std::uint64_t>(range.substr(0, dash), 16) ||
        !parse_number<std::uint64_t>(range.substr(dash + 1), 16)) {
        return std::nullopt;
    }
    if (perms.size() != 4 || !parse_number<std::uint64_t>(offset, 16)) return std::nullopt;
    const auto colon = device.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const auto major = parse_number<unsigned>(device.substr(0, colon), 16);
    const auto minor = parse_number<unsigned>(device.substr(colon + 1), 16);
    const auto inode_number = parse_number<std::uint64_t>(inode, 10);
    if (!major || !minor || !inode_number) return std::nullopt;
    return MapsLine{.range = range,
                    .device = ::makedev(*major, *minor),
                    .inode = *inode_number,
                    .path = path_in(fields->rest)};
}

}  // namespace gpukill
