#include "model/kubernetes_names.hpp"

#include "model/parse_util.hpp"

namespace gpukill {
namespace {

bool is_lower_alnum(char c) {
    return (c >= 'a' && c <= 'z') || text::is_digit(c);
}

bool is_label_of_at_most(std::string_view name, std::size_t limit) {
    if (name.empty() || name.size() > limit) return false;
    if (!is_lower_alnum(name.front()) || !is_lower_alnum(name.back())) return false;
    for (char c : name) {
        if (!is_lower_alnum(c) && c != '-') return false;
    }
    return true;
}

bool is_image_id(std::string_view reference) {
    if (reference.starts_with("sha256:")) return true;
    return reference.size() == 64 && text::all_of_hex(reference);
}

}  // namespace

bool is_kubernetes_label(std::string_view name) {
    return is_label_of_at_most(name, 63);
}

bool is_kubernetes_subdomain(std::string_view name) {
    if (name.empty() || name.size() > 253) return false;
    while (true) {
        const std::size_t dot = name.find('.');
        if (!is_label_of_at_most(name.substr(0, dot), 253)) return false;
        if (dot == std::string_view::npos) return true;
        name.remove_prefix(dot + 1);
    }
}

bool is_pod_uid(std::string_view uid) {
    if (uid.size() == 32) return text::all_of_hex(uid);
    if (uid.size() != 36) return false;
    for (std::size_t i = 0; i < uid.size(); ++i) {
        const bool dash_position = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash_position ? uid[i] != '-' : !text::is_hex_digit(uid[i])) return false;
    }
    return true;
}

std::string full_image_reference(std::string_view reference) {
    if (reference.empty() || is_image_id(reference)) return std::string(reference);
    std::string_view registry;
    std::string_view path = reference;
    if (const std::size_t slash = reference.find('/'); slash != std::string_view::npos) {
        const std::string_view first = reference.substr(0, slash);
        if (first.find_first_of(".:") != std::string_view::npos || first == "localhost") {
            registry = first;
            path = reference.substr(slash + 1);
        }
    }
    std::string out;
    if (registry.empty() || registry == "docker.io" || registry == "index.docker.io") {
        out = "docker.io/";
        if (path.find('/') == std::string_view::npos) out += "library/";
    } else {
        out = std::string(registry) + "/";
    }
    out += path;
    // A tag is a ':' after the last '/' (a registry's port is before it).
    const std::size_t last_slash = path.rfind('/');
    const std::string_view last =
        path.substr(last_slash == std::string_view::npos ? 0 : last_slash + 1);
    if (path.find('@') == std::string_view::npos && last.find(':') == std::string_view::npos) {
        out += ":latest";
    }
    return out;
}

}  // namespace gpukill
