// Running `gpukill agent` against a simulated host in integration tests: a token file
// written 0600 at test time, the agent started on port 0 and waited for by its start
// line ("listening on http://127.0.0.1:PORT"), and an HTTP client for it.
#pragma once

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <httplib.h>

#include "support.hpp"

namespace gpukill::testing {

inline constexpr const char* kAdminSecret = "admin-secret-0123456789abcdefghijklmnop";
inline constexpr const char* kViewerSecret = "viewer-secret-0123456789abcdefghijklmno";

// "admin read,act ..." and "viewer read ...", in a file only its owner reads.
inline std::string write_token_file(const std::string& dir, mode_t mode = 0600) {
    const std::string path = dir + "/tokens";
    std::ofstream(path) << "# name scopes secret\nadmin read,act " << kAdminSecret
                        << "\nviewer read " << kViewerSecret << "\n";
    ::chmod(path.c_str(), mode);
    return path;
}

// The label every series of the agent's /metrics ends with: this host's name.
inline std::string hostname_label() {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    return std::string("Hostname=\"") + name + "\"";
}

inline httplib::Headers bearer(const char* secret) {
    return {{"Authorization", std::string("Bearer ") + secret}};
}

class RunningAgent {
  public:
    // The clients here write to sockets the agent may close (a refused TLS handshake):
    // EPIPE, not the end of the test run.
    static void ignore_broken_pipes() { ::signal(SIGPIPE, SIG_IGN); }

    // `args` after `gpukill agent`; --listen 127.0.0.1:0 unless given. stderr (the log)
    // is read with stdout.
    RunningAgent(const SimulatedHost& host, const std::vector<std::string>& args,
                 const std::map<std::string, std::string>& extra_env = {}) {
        ignore_broken_pipes();
        std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1", GPUKILL_BIN,
                                         "agent"};
        bool listen_given = false;
        for (const std::string& arg : args) listen_given |= arg == "--listen";
        if (!listen_given) {
            argv.push_back("--listen");
            argv.push_back("127.0.0.1:0");
        }
        argv.insert(argv.end(), args.begin(), args.end());
        std::map<std::string, std::string> env = host.env();
        for (const auto& [key, value] : extra_env) env[key] = value;
        process_ = std::make_unique<RunningCommand>(argv, env);
        while (auto line = process_->read_line(30)) {
            lines_.push_back(*line);
            const std::size_t at = line->find("listening on ");
            if (at == std::string::npos) continue;
            tls_ = line->find("https://") != std::string::npos;
            port_ = std::stoi(line->substr(line->rfind(':') + 1));
            return;
        }
        std::string seen;
        for (const std::string& l : lines_) seen += l + "\n";
        throw std::runtime_error("gpukill agent did not start:\n" + seen);
    }

    int port() const { return port_; }
    pid_t pid() const { return process_->pid(); }
    RunningCommand& process() { return *process_; }
    const std::vector<std::string>& lines() const { return lines_; }

    // The next log line containing `text`, within `timeout_seconds`.
    std::optional<std::string> wait_for_line(const std::string& text, double timeout_seconds = 10) {
        while (auto line = process_->read_line(timeout_seconds)) {
            lines_.push_back(*line);
            if (line->find(text) != std::string::npos) return line;
        }
        return std::nullopt;
    }

    httplib::Client client() const {
        httplib::Client c("127.0.0.1", port_);
        c.set_connection_timeout(5);
        c.set_read_timeout(30);
        return c;
    }

  private:
    std::unique_ptr<RunningCommand> process_;
    std::vector<std::string> lines_;
    int port_ = 0;
    bool tls_ = false;
};

}  // namespace gpukill::testing
