// Helpers for the audit tests: reading the log back, and a fixed invocation so records
// are reproducible.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/envelope.hpp"

namespace gpukill::audit_test {

inline std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The file's lines without their '\n'; a last line without one is kept as it is.
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

inline audit::Invocation test_invocation() {
    return audit::Invocation{
        .host = "node7",
        .user = "root",
        .uid = 0,
        .euid = 0,
        .sudo_user = "alice",
        .sudo_uid = 1000,
        .pid = 4000,
        .command = "gpukill kill --pid 4242 --force",
        .run_id = "0123456789abcdef0123456789abcdef",
        .actor = {.interface = Interface::cli, .name = "root", .remote = std::nullopt},
    };
}

}  // namespace gpukill::audit_test
