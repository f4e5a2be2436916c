#include "mcp/stdio_transport.hpp"

#include <string>

namespace gpukill::mcp {
namespace {

bool write_message(std::FILE* out, const nlohmann::json& message) {
    const std::string line = to_line(message) + "\n";
    if (std::fwrite(line.data(), 1, line.size(), out) != line.size()) return false;
    return std::fflush(out) == 0;
}

}  // namespace

int serve_stdio(Server& server, std::FILE* in, std::FILE* out) {
    Session session;
    std::string line;
    bool over_limit = false;
    for (;;) {
        const int c = std::fgetc(in);
        if (c == EOF) break;
        if (c != '\n') {
            if (line.size() < kMaxMessageBytes) {
                line.push_back(static_cast<char>(c));
            } else {
                over_limit = true;  // the rest of the line is read and dropped
            }
            continue;
        }
        if (over_limit) {
            over_limit = false;
            line.clear();
            if (!write_message(out,
                               error_response(nullptr, rpc_code::invalid_request,
                                              "message over the limit of " +
                                                  std::to_string(kMaxMessageBytes) + " bytes"))) {
                return 1;
            }
            continue;
        }
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) {
            line.clear();
            continue;
        }
        std::optional<nlohmann::json> reply = server.handle_text(session, line);
        line.clear();
        if (reply && !write_message(out, *reply)) return 1;
    }
    return 0;
}

}  // namespace gpukill::mcp
