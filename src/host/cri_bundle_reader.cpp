// read_cri_bundle and the CriBundles cache: a container's config.json opened beneath its
// runtime's bundle directory and read bounded (cri_bundle.hpp says where and why).
#include <fcntl.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include <cerrno>
#include <vector>

#include "host/cri_bundle.hpp"
#include "model/parse_util.hpp"
#include "sys/fd_io.hpp"

namespace gpukill {
namespace {

bool is_lower_hex_id(std::string_view id) {
    if (id.size() != 64) return false;
    for (char c : id) {
        if (!text::is_digit(c) && !(c >= 'a' && c <= 'f')) return false;
    }
    return true;
}

bool names_nothing(int error) {
    return error == ENOENT || error == ENOTDIR;
}

std::vector<CriRuntime> runtimes_for(const ContainerInfo& container) {
    if (container.runtime == "containerd") return {CriRuntime::containerd};
    if (container.runtime == "cri-o") return {CriRuntime::cri_o};
    // The cgroupfs driver's /kubepods/<qos>/pod<uid>/<id> names no runtime.
    if (container.runtime == "kubernetes") return {CriRuntime::containerd, CriRuntime::cri_o};
    return {};
}

}  // namespace

Result<std::optional<CriBundleFacts>> read_cri_bundle(const std::string& rundir, CriRuntime runtime,
                                                      std::string_view id, std::size_t max_bytes) {
    if (!is_lower_hex_id(id)) {
        return fail(ErrorCategory::invalid_input, "not a container id: " + std::string(id));
    }
    const std::string directory = rundir + "/" + std::string(bundle_directory(runtime));
    // The run directory and the runtime's own directories in it are the operator's and
    // the runtime's choice, followed as given; below them nothing leaves.
    UniqueFd dir(::open(directory.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir) {
        if (names_nothing(errno)) return std::optional<CriBundleFacts>();
        return std::unexpected(
            as(errno == EACCES ? ErrorCategory::permission : ErrorCategory::unavailable,
               os_error("cannot open " + directory, errno)));
    }
    const std::string relative = bundle_config_path(runtime, id);
    const std::string path = directory + "/" + relative;
    auto file = open_beneath(dir.get(), relative);
    if (!file) {
        const int error = file.error().errno_value;
        if (names_nothing(error)) return std::optional<CriBundleFacts>();
        if (error == EXDEV || error == ELOOP) {
            return fail(
                ErrorCategory::refused,
                fmt::format("{}: a symbolic link leads out of {}: not read", path, directory));
        }
        return std::unexpected(
            as(error == EACCES ? ErrorCategory::permission : ErrorCategory::unavailable,
               os_error("cannot open " + path, error)));
    }
    struct stat info {};
    if (::fstat(file->get(), &info) == 0 && (info.st_mode & S_IWOTH) != 0) {
        return fail(ErrorCategory::refused,
                    path + ": writable by every user, so not the runtime's record: not read");
    }
    auto text = read_regular_file_bounded(file->get(), max_bytes, path);
    if (!text) {
        const int error = text.error().errno_value;
        if (error == EFBIG) {
            return fail(ErrorCategory::refused,
                        fmt::format("{}: larger than {} bytes: not read", path, max_bytes));
        }
        if (error == EINVAL) {
            return fail(ErrorCategory::refused, path + ": not a regular file: not read");
        }
        return std::unexpected(as(ErrorCategory::unavailable, text.error()));
    }
    auto facts = parse_cri_bundle(*text, runtime, max_bytes);
    if (!facts) {
        return fail(ErrorCategory::invalid_input,
                    fmt::format("{}: not a complete OCI config ({})", path, facts.error().what));
    }
    return std::optional<CriBundleFacts>(std::move(*facts));
}

CriBundles::CriBundles(CriBundleOptions options) : options_(std::move(options)) {}

CriBundles::Lookup CriBundles::look_up(const ContainerInfo& container,
                                       std::chrono::steady_clock::time_point now) {
    if (!is_lower_hex_id(container.id) || runtimes_for(container).empty()) return {};
    if (const auto found = cache_.find(container.id);
        found != cache_.end() && found->second.expires > now) {
        return found->second.lookup;
    }
    prune(now);
    Lookup lookup = read(container.id, container);
    if (cache_.size() < options_.max_entries) {
        const auto keep = lookup.facts ? options_.ttl : options_.retry_after;
        cache_[container.id] = Entry{lookup, now + keep};
    }
    return lookup;
}

CriBundles::Lookup CriBundles::read(const std::string& id, const ContainerInfo& container) const {
    for (CriRuntime runtime : runtimes_for(container)) {
        auto bundle = read_cri_bundle(options_.rundir, runtime, id, options_.max_bytes);
        // A refused bundle is this runtime's container: no other runtime is asked.
        if (!bundle) return Lookup{.facts = std::nullopt, .refusal = bundle.error().what};
        if (*bundle) return Lookup{.facts = std::move(*bundle), .refusal = std::nullopt};
    }
    return {};
}

void CriBundles::prune(std::chrono::steady_clock::time_point now) {
    std::erase_if(cache_, [&](const auto& entry) { return entry.second.expires <= now; });
}

}  // namespace gpukill
