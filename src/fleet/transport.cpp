#include "fleet/transport.hpp"

#include <fmt/format.h>

#include <charconv>

#include "fleet/reply_document.hpp"

namespace gpukill::fleet {
namespace {

std::vector<unsigned long> version_numbers(const std::string& version) {
    std::vector<unsigned long> numbers;
    const char* p = version.data();
    const char* end = version.data() + version.size();
    while (p < end) {
        unsigned long n = 0;
        auto [next, ec] = std::from_chars(p, end, n);
        if (ec != std::errc{}) return {};
        numbers.push_back(n);
        p = next;
        if (p == end) break;
        if (*p != '.') break;  // "0.1.0-rc1": the numbers before the suffix
        ++p;
    }
    return numbers;
}

std::string last_line(const std::string& text) {
    std::size_t end = text.find_last_not_of(" \t\r\n");
    if (end == std::string::npos) return "";
    std::size_t start = text.rfind('\n', end);
    start = start == std::string::npos ? 0 : start + 1;
    std::string line = text.substr(start, end - start + 1);
    if (line.rfind("gpukill: ", 0) == 0) line.erase(0, 9);
    return line;
}

}  // namespace

const char* to_string(HostStatus status) {
    switch (status) {
        case HostStatus::ok:
            return "ok";
        case HostStatus::failed:
            return "failed";
        case HostStatus::unreachable:
            return "unreachable";
        case HostStatus::incompatible:
            return "incompatible";
        case HostStatus::not_run:
            return "not_run";
    }
    return "failed";
}

bool version_at_least(const std::string& version, const std::string& minimum) {
    const std::vector<unsigned long> have = version_numbers(version);
    const std::vector<unsigned long> need = version_numbers(minimum);
    if (have.empty()) return false;
    for (std::size_t i = 0; i < std::max(have.size(), need.size()); ++i) {
        const unsigned long a = i < have.size() ? have[i] : 0;
        const unsigned long b = i < need.size() ? need[i] : 0;
        if (a != b) return a > b;
    }
    return true;
}

std::string query_string(const std::vector<std::pair<std::string, std::string>>& parameters) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    const auto encode = [](std::string& out, std::string_view text) {
        for (const char c : text) {
            const auto byte = static_cast<unsigned char>(c);
            if ((byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' || byte == '_' ||
                byte == '~') {
                out += c;
            } else {
                out += '%';
                out += kHex[byte >> 4];
                out += kHex[byte & 0xF];
            }
        }
    };
    std::string query;
    for (const auto& [name, value] : parameters) {
        query += query.empty() ? '?' : '&';
        encode(query, name);
        query += '=';
        encode(query, value);
    }
    return query;
}

HostReply reply_from_output(int exit_code, const std::string& stdout_text,
                            const std::string& stderr_text) {
    HostReply reply;
    reply.exit_code = exit_code;
    reply.status = exit_code == 0 ? HostStatus::ok : HostStatus::failed;
    auto parsed = read_reply_document(stdout_text);
    if (parsed && !parsed->is_null()) {
        if (auto problem = reply_shape_problem(*parsed)) {
            // A document that is there but unusable: this host's error, whatever its exit.
            reply.status = HostStatus::failed;
            reply.exit_code = exit_code != 0 ? exit_code : 1;
            reply.error = "the remote gpukill's document is malformed: " + *problem;
            return reply;
        }
        reply.result = std::move(*parsed);
    }
    if (exit_code == 0 && reply.result.is_null()) {
        reply.status = HostStatus::failed;
        reply.exit_code = 1;
        reply.error = parsed ? "the remote gpukill printed no JSON document"
                             : "the remote gpukill's output is not usable: " + parsed.error();
        return reply;
    }
    if (exit_code != 0) {
        const auto error =
            reply.result.is_object() ? reply.result.find("error") : reply.result.end();
        if (reply.result.is_object() && error != reply.result.end() && error->contains("message")) {
            reply.error = (*error)["message"].get<std::string>();
        } else if (std::string line = last_line(stderr_text); !line.empty()) {
            reply.error = line;
        } else if (reply.result.is_null()) {
            reply.error = fmt::format("exit {} with no JSON document", exit_code);
        }
    }
    return reply;
}

}  // namespace gpukill::fleet
