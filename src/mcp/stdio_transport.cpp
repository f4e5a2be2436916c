#include "mcp/stdio_transport.hpp"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>

#include "sys/interrupt.hpp"

namespace gpukill::mcp {
namespace {

bool write_message(std::FILE* out, const nlohmann::json& message) {
    const std::string line = to_line(message) + "\n";
    if (std::fwrite(line.data(), 1, line.size(), out) != line.size()) return false;
    return std::fflush(out) == 0;
}

}  // namespace

int serve_stdio(Server& server, int in_fd, std::FILE* out) {
    Session session;
    std::string line;
    bool over_limit = false;
    std::array<char, 65536> chunk{};
    for (;;) {
        if (!InterruptCatcher::wait_readable(in_fd)) {
            return InterruptCatcher::caught() ? 0 : 1;
        }
        const ssize_t n = ::read(in_fd, chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR) continue;  // a stop signal: the next wait says so
        if (n < 0) return 1;
        if (n == 0) return 0;  // end of input
        for (ssize_t at = 0; at < n; ++at) {
            const char c = chunk[static_cast<std::size_t>(at)];
            if (c != '\n') {
                if (line.size() < kMaxMessageBytes) {
                    line.push_back(c);
                } else {
                    over_limit = true;  // the rest of the line is read and dropped
                }
                continue;
            }
            if (over_limit) {
                over_limit = false;
                line.clear();
                if (!write_message(
                        out, error_response(nullptr, rpc_code::invalid_request,
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
            // Stopped during that call: its answer is out; the rest is not read.
            if (InterruptCatcher::caught()) return 0;
        }
    }
}

}  // namespace gpukill::mcp
