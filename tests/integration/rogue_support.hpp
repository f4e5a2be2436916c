// Helpers for the rogue-detection integration tests: scratch directories, copies of
// gpusim under other names (optionally with bytes appended, for the content signal), a
// loopback listener playing a mining pool, and `gpukill audit --rogue --json` runs.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support.hpp"

namespace gpukill::testing {

namespace fs = std::filesystem;

// Whether the gpusim under test itself lives where the exe_in_temp_dir signal looks.
inline bool gpusim_in_temp_dir() {
    const std::string bin = fs::weakly_canonical(GPUSIM_BIN).string();
    for (const char* dir : {"/tmp/", "/var/tmp/", "/dev/shm/"}) {
        if (bin.starts_with(dir)) return true;
    }
    return false;
}

// A directory made with mkdtemp under `base`, removed with everything in it.
class ScratchDir {
  public:
    explicit ScratchDir(const fs::path& base) {
        std::string pattern = (base / "gpukill-rogue-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~ScratchDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }
    const fs::path& path() const { return path_; }

  private:
    fs::path path_;
};

// A copy of gpusim under another name: the disguise.
inline std::string copy_of_gpusim(const ScratchDir& dir, const std::string& name) {
    const std::string path = dir / name;
    fs::copy_file(GPUSIM_BIN, path);
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    return path;
}

// The same, with `markers` appended to the copy (an ELF file runs with bytes after its
// end): the strings a real miner's binary carries, for the content signal.
inline std::string copy_of_gpusim_carrying(const ScratchDir& dir, const std::string& name,
                                           const std::vector<std::string>& markers) {
    const std::string path = copy_of_gpusim(dir, name);
    std::ofstream out(path, std::ios::binary | std::ios::app);
    for (const std::string& marker : markers) out << '\0' << marker;
    out << '\0';
    if (!out) throw std::runtime_error("cannot append to " + path);
    return path;
}

// A TCP listener on 127.0.0.1 at a port the kernel picks; connections complete in its
// backlog without being accepted, which is all a client needs to be ESTABLISHED.
class LocalListener {
  public:
    LocalListener() {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(fd_, 16) != 0 ||
            ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
            throw std::runtime_error("cannot listen on 127.0.0.1");
        }
        port_ = ntohs(address.sin_port);
    }
    ~LocalListener() { ::close(fd_); }
    LocalListener(const LocalListener&) = delete;
    LocalListener& operator=(const LocalListener&) = delete;
    unsigned port() const { return port_; }
    std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }

  private:
    int fd_ = -1;
    unsigned port_ = 0;
};

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

struct RogueRun {
    CommandResult result;
    nlohmann::json doc;
};

// `gpukill audit --rogue --json` with its own state and configuration directories.
inline RogueRun rogue_json(const SimulatedHost& host, const ScratchDir& dirs,
                           std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"audit",        "--rogue",      "--json",    "--state-dir",
                                     dirs / "state", "--config-dir", dirs / "etc"};
    args.insert(args.end(), extra.begin(), extra.end());
    RogueRun run{host.gpukill(args), {}};
    if (!run.result.out.empty()) run.doc = nlohmann::json::parse(run.result.out);
    return run;
}

inline const nlohmann::json* entry_for(const nlohmann::json& list, pid_t pid) {
    for (const auto& item : list) {
        if (item["pid"] == pid) return &item;
    }
    return nullptr;
}

inline std::set<std::string> signals_of(const nlohmann::json& finding) {
    std::set<std::string> signals;
    for (const auto& evidence : finding["evidence"]) signals.insert(evidence["signal"]);
    return signals;
}

// The detail of the finding's evidence for `signal`, or "".
inline std::string detail_of(const nlohmann::json& finding, const std::string& signal) {
    for (const auto& evidence : finding["evidence"]) {
        if (evidence["signal"] == signal) return evidence["detail"];
    }
    return "";
}

inline std::vector<nlohmann::json> audit_records(const ScratchDir& dirs, const std::string& event) {
    std::vector<nlohmann::json> records;
    std::istringstream lines(read_text(dirs / "state/audit.jsonl"));
    for (std::string line; std::getline(lines, line);) {
        auto record = nlohmann::json::parse(line, nullptr, false);
        if (!record.is_discarded() && record["event"] == event) records.push_back(record);
    }
    return records;
}

}  // namespace gpukill::testing
