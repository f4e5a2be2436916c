#include "fleet/ssh_transport.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "fleet/child_process.hpp"
#include "fleet/inventory.hpp"
#include "fleet/reply_document.hpp"
#include "model/human_format.hpp"

namespace gpukill::fleet {
namespace {

bool plain_word(const std::string& argument) {
    if (argument.empty()) return false;
    for (char c : argument) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') ||
                        std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
        if (!ok) return false;
    }
    return true;
}

std::string control_base() {
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    if (runtime != nullptr && *runtime == '/' && std::strlen(runtime) < 60 &&
        access(runtime, W_OK) == 0) {
        return runtime;
    }
    return "/tmp";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string shell_quote(const std::string& argument) {
    if (plain_word(argument)) return argument;
    std::string quoted = "'";
    for (char c : argument) {
        if (c == '\'') {
            quoted += "'\\''";
        } else {
            quoted += c;
        }
    }
    return quoted + "'";
}

std::string describe_ssh_failure(const std::string& host, const std::string& stderr_text) {
    const auto has = [&](const char* text) { return stderr_text.find(text) != std::string::npos; };
    if (has("REMOTE HOST IDENTIFICATION HAS CHANGED")) {
        return fmt::format(
            "the host key of {} has CHANGED: refused (it may be intercepted; if the key was "
            "rotated, replace its known_hosts entry)",
            host);
    }
    if (has("Host key verification failed") || has("host key is known for")) {
        return fmt::format(
            "the host key of {} is not in known_hosts: refused (add it, or pass "
            "--accept-new-host-keys to trust a host seen for the first time)",
            host);
    }
    if (has("Permission denied")) {
        return fmt::format(
            "ssh to {}: permission denied (no key it accepts; gpukill never "
            "asks for a password)",
            host);
    }
    std::string line;
    std::size_t end = stderr_text.find_last_not_of(" \t\r\n");
    if (end != std::string::npos) {
        std::size_t start = stderr_text.rfind('\n', end);
        start = start == std::string::npos ? 0 : start + 1;
        line = stderr_text.substr(start, end - start + 1);
    }
    if (line.empty()) return fmt::format("ssh to {} failed (exit 255)", host);
    return fmt::format("ssh to {}: {}", host, line);
}

std::string parse_version_line(const std::string& text) {
    const std::string prefix = "gpukill ";
    if (text.rfind(prefix, 0) != 0) return "";
    const std::size_t end = text.find_first_of(" \n", prefix.size());
    std::string version = text.substr(prefix.size(), end - prefix.size());
    if (version.empty() || version[0] < '0' || version[0] > '9') return "";
    return version;
}

namespace {

// Whether one ssh -o option ("UserKnownHostsFile=/dev/null", "UserKnownHostsFile /dev/null")
// points the known-hosts file at nothing.
bool forgets_host_keys(std::string_view option) {
    const std::size_t split = option.find_first_of("= \t");
    if (split == std::string_view::npos) return false;
    std::string keyword(option.substr(0, split));
    for (char& c : keyword) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (keyword != "userknownhostsfile" && keyword != "globalknownhostsfile") return false;
    std::string_view files = option.substr(split + 1);
    while (!files.empty()) {
        const std::size_t start = files.find_first_not_of(" \t=\"");
        if (start == std::string_view::npos) break;
        files.remove_prefix(start);
        const std::size_t end = files.find_first_of(" \t\"");
        const std::string_view file = files.substr(0, end);
        if (file == "/dev/null" || file == "none") return true;
        if (end == std::string_view::npos) break;
        files.remove_prefix(end);
    }
    return false;
}

}  // namespace

Result<std::unique_ptr<SshTransport>> SshTransport::open(SshOptions options) {
    if (options.accept_new_host_keys) {
        for (const std::string& option : options.options) {
            if (forgets_host_keys(option)) {
                return fail(ErrorCategory::invalid_input,
                            fmt::format("--accept-new-host-keys with --ssh-option {} would accept "
                                        "any key of any host, every time: refused (keep a "
                                        "known_hosts file, or drop --accept-new-host-keys)",
                                        printable(option)));
            }
        }
    }
    std::string pattern = control_base() + "/gpukill-fleet-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
        return fail("cannot make the ssh control directory " + pattern, errno);
    }
    chmod(pattern.c_str(), 0700);
    return std::unique_ptr<SshTransport>(new SshTransport(std::move(options), pattern));
}

SshTransport::SshTransport(SshOptions options, std::string control_dir)
    : options_(std::move(options)), control_dir_(std::move(control_dir)) {}

SshTransport::~SshTransport() {
    std::error_code ignored;
    std::filesystem::remove_all(control_dir_, ignored);
}

std::vector<std::string> SshTransport::ssh_argv(
    const std::string& host, const std::optional<std::string>& remote_command) const {
    std::vector<std::string> argv{options_.ssh_program};
    if (options_.config_file) {
        argv.push_back("-F");
        argv.push_back(*options_.config_file);
    }
    // ssh takes the first value given for an option: these cannot be loosened by -o.
    argv.insert(argv.end(),
                {"-T", "-o", "BatchMode=yes", "-o",
                 options_.accept_new_host_keys ? "StrictHostKeyChecking=accept-new"
                                               : "StrictHostKeyChecking=yes",
                 "-o", "PasswordAuthentication=no", "-o", "KbdInteractiveAuthentication=no"});
    for (const std::string& option : options_.options) {
        argv.push_back("-o");
        argv.push_back(option);
    }
    argv.insert(argv.end(),
                {"-o",
                 fmt::format("ConnectTimeout={}",
                             std::max(1, static_cast<int>(options_.connect_timeout_seconds))),
                 "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", "-o",
                 "ControlMaster=auto", "-o", fmt::format("ControlPath={}/%C", control_dir_), "-o",
                 "ControlPersist=60", "-o", "LogLevel=ERROR"});
    std::string target = host;
    if (auto address = parse_host_address(host); address && address->port) {
        argv.push_back("-p");
        argv.push_back(std::to_string(*address->port));
        target = address->host;
    }
    if (!remote_command) {
        argv.push_back("-O");
        argv.push_back("exit");
    }
    argv.push_back("--");
    argv.push_back(target);
    if (remote_command) argv.push_back(*remote_command);
    return argv;
}

HostReply SshTransport::run_remote(const std::string& host,
                                   const std::vector<std::string>& arguments,
                                   double timeout_seconds, bool acts) {
    std::string command = shell_quote(options_.remote_gpukill);
    for (const std::string& argument : arguments) command += " " + shell_quote(argument);
    const auto start = std::chrono::steady_clock::now();
    // One byte past the document limit: enough for the reader to refuse it as too large.
    auto ran = run_child(ssh_argv(host, command), timeout_seconds, kMaxReplyDocumentBytes + 1,
                         acts ? nullptr : options_.interrupted);
    HostReply reply;
    if (!ran) {
        reply.status = HostStatus::unreachable;
        reply.exit_code = kUnreachableExit;
        reply.error = ran.error().what;
        return reply;
    }
    if (ran->cancelled) {
        reply.status = HostStatus::not_run;
        reply.exit_code = 130;
        reply.error = fmt::format("{}: interrupted", printable(host));
    } else if (ran->timed_out) {
        reply.status = HostStatus::unreachable;
        reply.exit_code = kUnreachableExit;
        reply.error =
            fmt::format("{}: no answer within {:g} s (--command-timeout)", host, timeout_seconds);
    } else if (ran->exit_code == 255) {
        reply.status = HostStatus::unreachable;
        reply.exit_code = kUnreachableExit;
        reply.error = describe_ssh_failure(host, ran->err);
    } else if (ran->exit_code == 127 || ran->exit_code == 126) {
        remember_reached(host);
        reply.status = HostStatus::incompatible;
        reply.exit_code = kUnreachableExit;
        reply.error = fmt::format("{}: no gpukill at '{}' there (exit {}; set --remote-gpukill)",
                                  host, options_.remote_gpukill, ran->exit_code);
    } else if (arguments.size() == 1 && arguments[0] == "--version") {
        remember_reached(host);
        reply.status = ran->exit_code == 0 ? HostStatus::ok : HostStatus::failed;
        reply.exit_code = ran->exit_code;
        reply.error = ran->out;  // the caller reads the version line
    } else {
        remember_reached(host);
        reply = reply_from_output(ran->exit_code, ran->out, ran->err);
    }
    reply.seconds = seconds_since(start);
    return reply;
}

std::optional<HostReply> SshTransport::check_version(const std::string& host) {
    {
        std::lock_guard lock(mutex_);
        if (checked_.contains(host)) return std::nullopt;
    }
    HostReply reply = run_remote(host, {"--version"}, options_.connect_timeout_seconds + 30);
    if (reply.status == HostStatus::unreachable || reply.status == HostStatus::incompatible) {
        return reply;
    }
    const std::string line = reply.error.value_or("");
    const std::string version = parse_version_line(line);
    HostReply bad;
    bad.status = HostStatus::incompatible;
    bad.exit_code = kUnreachableExit;
    bad.seconds = reply.seconds;
    if (reply.exit_code != 0 || version.empty()) {
        bad.error = fmt::format("{}: '{} --version' did not name a gpukill version", host,
                                options_.remote_gpukill);
        return bad;
    }
    if (!version_at_least(version, kMinimumRemoteVersion)) {
        bad.error = fmt::format("{}: gpukill {} there is too old (fleet needs {} or later)", host,
                                version, kMinimumRemoteVersion);
        return bad;
    }
    std::lock_guard lock(mutex_);
    checked_.insert(host);
    return std::nullopt;
}

void SshTransport::remember_reached(const std::string& host) {
    std::lock_guard lock(mutex_);
    reached_.insert(host);
}

HostReply SshTransport::call(const std::string& host, const RemoteCall& call) {
    const auto start = std::chrono::steady_clock::now();
    if (auto refused = check_version(host)) return *refused;
    HostReply reply = run_remote(host, call.arguments, options_.command_timeout_seconds, call.acts);
    reply.seconds = seconds_since(start);
    return reply;
}

void SshTransport::finish(const std::vector<std::string>& hosts) {
    // Each control master told to exit, in parallel batches; a host never reached has
    // none (ssh -O exit then fails at once).
    std::vector<std::string> reached;
    {
        std::lock_guard lock(mutex_);
        for (const std::string& host : hosts) {
            if (reached_.contains(host)) reached.push_back(host);
        }
    }
    constexpr std::size_t kBatch = 32;
    for (std::size_t begin = 0; begin < reached.size(); begin += kBatch) {
        std::vector<std::jthread> workers;
        for (std::size_t i = begin; i < std::min(reached.size(), begin + kBatch); ++i) {
            workers.emplace_back(
                [this, host = reached[i]] { (void)run_child(ssh_argv(host, {}), 5); });
        }
    }
}

}  // namespace gpukill::fleet
