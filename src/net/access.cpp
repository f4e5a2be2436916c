#include "net/access.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>

#include "sys/fd_io.hpp"

namespace gpukill::net {
namespace {

constexpr std::size_t kMinimumSecretLength = 32;
constexpr std::size_t kPrivateFileLimit = 1 << 20;

std::string_view trim_access_text(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
        text.remove_suffix(1);
    }
    return text;
}

std::vector<std::string_view> split_access_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t at = 0;
    while (at < line.size()) {
        while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at]))) ++at;
        const std::size_t start = at;
        while (at < line.size() && !std::isspace(static_cast<unsigned char>(line[at]))) ++at;
        if (at > start) fields.push_back(line.substr(start, at - start));
    }
    return fields;
}

bool valid_token_name(std::string_view name) {
    return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
               c == '@';
    });
}

bool valid_secret(std::string_view secret) {
    return secret.size() >= kMinimumSecretLength &&
           std::all_of(secret.begin(), secret.end(), [](char c) { return c > ' ' && c < 127; });
}

// "localhost:9400" -> "localhost"; "[::1]:80" -> "::1"; "127.0.0.1" -> "127.0.0.1".
std::string host_without_port(std::string_view host) {
    host = trim_access_text(host);
    if (!host.empty() && host.front() == '[') {
        const auto close = host.find(']');
        if (close == std::string_view::npos) return {};
        const std::string_view rest = host.substr(close + 1);
        if (!rest.empty() && rest.front() != ':') return {};
        return std::string(host.substr(1, close - 1));
    }
    const auto colon = host.find(':');
    if (colon != std::string_view::npos && host.find(':', colon + 1) != std::string_view::npos) {
        return std::string(host);  // a bare IPv6 address without brackets
    }
    std::string name(host.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name;
}

// `path` opened for reading with its last name resolved beneath its own directory: a
// symbolic link there is followed only while it stays inside that directory. That is how
// the kubelet mounts a Secret (`tokens -> ..data/tokens`, `..data -> ..2024_01_02_...`,
// swapped atomically by renaming `..data`), and it still refuses a link to an absolute
// path or through "..", so a link planted beside the file cannot make the agent read (and
// quote in an error) another private file of root's. The directory part is the
// operator's own choice and is followed as given. Where openat2 is missing (kernels
// before 5.6, old seccomp profiles) the old rule holds: no link at all. `error`: errno, EXDEV for a
// link that leaves the directory.
UniqueFd open_inside_own_directory(const std::string& path, int& error) {
    const std::size_t slash = path.rfind('/');
    const std::string directory =
        slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name.empty() || name == "." || name == "..") {
        error = EISDIR;
        return UniqueFd();
    }
    UniqueFd dir(::open(directory.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir) {
        error = errno;
        return UniqueFd();
    }
    // O_NONBLOCK: a FIFO planted under the name is refused below, not waited on.
    open_how how{};
    how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    const long fd = ::syscall(SYS_openat2, dir.get(), name.c_str(), &how, sizeof how);
    if (fd >= 0) return UniqueFd(static_cast<int>(fd));
    error = errno;
    // ENOSYS: a kernel before 5.6; EPERM: a container's seccomp profile that predates it.
    if (error != ENOSYS && error != EPERM) return UniqueFd();
    UniqueFd plain(::openat(dir.get(), name.c_str(),
                            O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW));
    error = errno;
    return plain;
}

bool name_is_allowed(std::string_view name, const std::vector<std::string>& allowed) {
    if (name.empty()) return false;
    if (is_loopback_address(name)) return true;
    return std::any_of(allowed.begin(), allowed.end(),
                       [&](const std::string& entry) { return host_without_port(entry) == name; });
}

}  // namespace

bool constant_time_equal(std::string_view a, std::string_view b) {
    // OpenSSL's CRYPTO_memcmp visits every byte whatever the contents (and is written so
    // that a compiler cannot stop it early). It compares equal lengths: when the lengths
    // differ, `a` is compared with itself, so the time still depends only on the lengths,
    // and the difference in length decides the answer.
    const bool same_length = a.size() == b.size();
    const std::string_view other = same_length ? b : a;
    const bool same_bytes = CRYPTO_memcmp(a.data(), other.data(), a.size()) == 0;
    return same_length && same_bytes;
}

Result<TokenSet> TokenSet::parse(std::string_view text, std::string_view source) {
    TokenSet set;
    std::set<std::string, std::less<>> names;
    std::size_t line_number = 0;
    while (!text.empty()) {
        ++line_number;
        const auto newline = text.find('\n');
        std::string_view line = text.substr(0, newline);
        text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
        line = trim_access_text(line);
        if (line.empty() || line.front() == '#') continue;
        const auto where = fmt::format("{}:{}", source, line_number);
        const auto fields = split_access_fields(line);
        if (fields.size() != 3) {
            return fail(ErrorCategory::invalid_input,
                        where + ": expected NAME SCOPES SECRET (SCOPES: read, act or read,act)");
        }
        TokenEntry entry{.name = std::string(fields[0]), .secret = std::string(fields[2])};
        if (!valid_token_name(fields[0])) {
            return fail(ErrorCategory::invalid_input,
                        where + ": a token name is letters, digits, '-', '_', '.' or '@'");
        }
        if (!names.insert(entry.name).second) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("{}: token name '{}' is used twice", where, entry.name));
        }
        std::string_view scopes = fields[1];
        while (!scopes.empty()) {
            const auto comma = scopes.find(',');
            const std::string_view scope = scopes.substr(0, comma);
            scopes.remove_prefix(comma == std::string_view::npos ? scopes.size() : comma + 1);
            if (scope == "read") {
                entry.can_read = true;
            } else if (scope == "act") {
                entry.can_read = entry.can_act = true;
            } else {
                return fail(ErrorCategory::invalid_input,
                            fmt::format("{}: unknown scope '{}' (read or act)", where, scope));
            }
        }
        if (!valid_secret(entry.secret)) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("{}: the secret of '{}' must be at least {} printable "
                                    "characters (openssl rand -hex 32 makes one)",
                                    where, entry.name, kMinimumSecretLength));
        }
        set.entries_.push_back(std::move(entry));
    }
    return set;
}

Result<TokenSet> TokenSet::load(const std::string& path) {
    auto text = read_private_file(path);
    if (!text) return std::unexpected(text.error());
    return parse(*text, path);
}

const TokenEntry* TokenSet::match(std::string_view presented) const {
    // Compare with every entry, not stopping at the first match, so the time taken does
    // not tell which (or whether an early) entry matched.
    const TokenEntry* found = nullptr;
    for (const TokenEntry& entry : entries_) {
        if (constant_time_equal(entry.secret, presented)) found = &entry;
    }
    return found;
}

std::optional<std::string_view> bearer_secret(std::string_view authorization) {
    authorization = trim_access_text(authorization);
    constexpr std::string_view scheme = "bearer ";
    if (authorization.size() <= scheme.size()) return std::nullopt;
    for (std::size_t i = 0; i < scheme.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i]) {
            return std::nullopt;
        }
    }
    const std::string_view secret = trim_access_text(authorization.substr(scheme.size()));
    if (secret.empty() || secret.find_first_of(" \t") != std::string_view::npos) {
        return std::nullopt;
    }
    return secret;
}

Result<std::string> read_private_file(const std::string& path) {
    int open_error = 0;
    UniqueFd fd = open_inside_own_directory(path, open_error);
    if (!fd) {
        if (open_error == EXDEV) {
            return fail(
                ErrorCategory::permission,
                fmt::format("cannot open {}: it is a link that leaves its directory", path));
        }
        return fail(fmt::format("cannot open {}: {}", path, std::strerror(open_error)), open_error);
    }
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) {
        const int error = errno;
        return fail(fmt::format("cannot stat {}: {}", path, std::strerror(error)), error);
    }
    if (!S_ISREG(info.st_mode)) {
        return fail(ErrorCategory::invalid_input, path + " is not a regular file");
    }
    if ((info.st_mode & 077) != 0) {
        return fail(ErrorCategory::permission,
                    fmt::format("{} is readable by others (mode {:04o}); chmod 600 it", path,
                                info.st_mode & 07777));
    }
    if (info.st_uid != ::geteuid()) {
        return fail(ErrorCategory::permission,
                    fmt::format("{} belongs to uid {}, not to this user ({})", path, info.st_uid,
                                ::geteuid()));
    }
    if (static_cast<std::size_t>(info.st_size) > kPrivateFileLimit) {
        return fail(ErrorCategory::invalid_input, path + " is larger than 1 MiB");
    }
    std::string text(static_cast<std::size_t>(info.st_size), '\0');
    std::size_t used = 0;
    while (used < text.size()) {
        const ssize_t n = ::read(fd.get(), text.data() + used, text.size() - used);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int error = errno;
            return fail(fmt::format("cannot read {}: {}", path, std::strerror(error)), error);
        }
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
    }
    text.resize(used);
    return text;
}

bool is_loopback_address(std::string_view address) {
    const std::string host = host_without_port(address);
    if (host == "localhost" || host == "::1") return true;
    if (!host.starts_with("127.")) return false;
    // 127.a.b.c with three numeric parts after the first.
    int parts = 2;  // "127" and the part being read
    int digits = 0;
    for (char c : std::string_view(host).substr(4)) {
        if (c == '.') {
            if (digits == 0) return false;
            ++parts;
            digits = 0;
        } else if (std::isdigit(static_cast<unsigned char>(c)) && digits < 3) {
            ++digits;
        } else {
            return false;
        }
    }
    return parts == 4 && digits > 0;
}

bool host_header_allowed(std::string_view host, const std::vector<std::string>& allowed) {
    return name_is_allowed(host_without_port(host), allowed);
}

bool origin_allowed(std::optional<std::string_view> origin,
                    const std::vector<std::string>& allowed) {
    if (!origin) return true;
    std::string_view rest = trim_access_text(*origin);
    for (std::string_view scheme : {"http://", "https://"}) {
        if (rest.starts_with(scheme)) {
            rest.remove_prefix(scheme.size());
            if (rest.find('/') != std::string_view::npos) return false;
            return name_is_allowed(host_without_port(rest), allowed);
        }
    }
    return false;  // "null", file://, chrome-extension://...
}

}  // namespace gpukill::net
