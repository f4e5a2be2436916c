#include "audit/audit_log.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "audit/syslog_line.hpp"
#include "host/state_dir.hpp"
#include "model/json_text.hpp"

namespace gpukill::audit {
namespace {

constexpr mode_t kLogFileMode = kStateFileMode;

// O_RDWR rather than O_WRONLY: append() reads the last byte to repair a cut line.
// O_NONBLOCK only so that a FIFO planted at the path fails instead of blocking; it has
// no effect on regular files, and anything else is refused below.
Result<UniqueFd> open_log_file(const std::string& dir, const std::string& path) {
    UniqueFd fd(::open(path.c_str(),
                       O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW,
                       kLogFileMode));
    if (!fd) return std::unexpected(os_error("cannot open audit log " + path, errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
        return std::unexpected(os_error("cannot open audit log " + path, errno));
    }
    if (!S_ISREG(st.st_mode)) return fail("cannot open audit log " + path + ": not a regular file");
    // A second name for the file (`ln /etc/victim STATE/audit.jsonl`) would make every
    // record land outside the state directory; so would a file someone else owns.
    if (st.st_nlink != 1) {
        return fail("cannot open audit log " + path + ": it has " + std::to_string(st.st_nlink) +
                    " hard links; the log must be a file of its own");
    }
    if (st.st_uid != ::geteuid()) {
        return fail("cannot open audit log " + path + ": owned by uid " +
                    std::to_string(st.st_uid) + ", not by the user writing it (uid " +
                    std::to_string(::geteuid()) + ")");
    }
    // The file's own fdatasync does not make its directory entry durable: sync the
    // directory once, so a log created just before a crash is still there after it.
    // EINVAL: a file system that cannot sync directories, nothing more can be done.
    UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir_fd) return std::unexpected(os_error("cannot open state directory " + dir, errno));
    if (::fsync(dir_fd.get()) != 0 && errno != EINVAL) {
        return std::unexpected(os_error("cannot sync state directory " + dir, errno));
    }
    return fd;
}

// flock held for one append; released on every return path.
class FileLock {
  public:
    static Result<FileLock> acquire(int fd, const std::string& path) {
        while (::flock(fd, LOCK_EX) != 0) {
            if (errno != EINTR) {
                return std::unexpected(os_error("cannot lock audit log " + path, errno));
            }
        }
        return FileLock(fd);
    }
    FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    FileLock& operator=(FileLock&&) = delete;
    ~FileLock() {
        if (fd_ >= 0) ::flock(fd_, LOCK_UN);
    }

  private:
    explicit FileLock(int fd) : fd_(fd) {}
    int fd_;
};

}  // namespace

SyslogSink system_syslog() {
    return [](int priority, std::string_view line) {
        static std::once_flag opened;
        std::call_once(opened, [] { ::openlog("gpukill", LOG_PID, LOG_AUTHPRIV); });
        // The facility is given again in case the program opened syslog with another.
        ::syslog(LOG_AUTHPRIV | priority, "%.*s", static_cast<int>(line.size()), line.data());
    };
}

AuditLog::AuditLog(std::string dir, std::string path, UniqueFd fd, AuditLogOptions options)
    : dir_(std::move(dir)),
      path_(std::move(path)),
      fd_(std::move(fd)),
      options_(std::move(options)),
      mutex_(std::make_unique<std::mutex>()) {
    if (options_.use_syslog && !options_.syslog) options_.syslog = system_syslog();
}

Result<AuditLog> AuditLog::open(const std::string& state_dir, AuditLogOptions options) {
    const std::string dir = without_trailing_slashes(state_dir);
    if (auto made = make_state_directory(dir); !made) return std::unexpected(made.error());
    std::string path = (dir == "/" ? "" : dir) + "/" + kAuditFileName;
    auto fd = open_log_file(dir, path);
    if (!fd) return std::unexpected(fd.error());
    return AuditLog(dir, std::move(path), std::move(*fd), std::move(options));
}

Result<void> AuditLog::append(const nlohmann::ordered_json& record) {
    // dump(-1) escapes every control character, so the record cannot contain a newline.
    std::string line = json_text(record, -1) + '\n';
    Result<void> written;
    {
        std::lock_guard guard(*mutex_);
        written = reopen_if_replaced();
        if (written) written = write_locked(std::move(line));
    }
    if (options_.use_syslog) options_.syslog(syslog_priority(record), syslog_line(record));
    return written;
}

Result<void> AuditLog::append_all(const std::vector<nlohmann::ordered_json>& records) {
    if (records.empty()) return {};
    std::string lines;
    for (const auto& record : records) {
        lines += json_text(record, -1);
        lines += '\n';
    }
    Result<void> written;
    {
        std::lock_guard guard(*mutex_);
        written = reopen_if_replaced();
        if (written) written = write_locked(std::move(lines));
    }
    if (options_.use_syslog) {
        for (const auto& record : records) {
            options_.syslog(syslog_priority(record), syslog_line(record));
        }
    }
    return written;
}

// A long-running writer (the agent) must follow logrotate's rename-and-create: the old
// descriptor would keep writing into the rotated file.
Result<void> AuditLog::reopen_if_replaced() {
    struct stat on_disk {};
    struct stat held {};
    if (::fstat(fd_.get(), &held) != 0) {
        return std::unexpected(os_error("cannot stat audit log " + path_, errno));
    }
    if (::stat(path_.c_str(), &on_disk) == 0) {
        if (on_disk.st_dev == held.st_dev && on_disk.st_ino == held.st_ino) return {};
    } else if (errno != ENOENT && held.st_nlink > 0) {
        return {};  // cannot look (e.g. permissions changed), but ours is still linked
    }
    // Renamed, or deleted: records written to an unlinked file would be lost to everyone.
    auto made = make_state_directory(dir_);
    if (!made) return std::unexpected(made.error());
    auto fd = open_log_file(dir_, path_);
    if (!fd) return std::unexpected(fd.error());
    fd_ = std::move(*fd);
    return {};
}

Result<void> AuditLog::write_locked(std::string line) {
    auto lock = FileLock::acquire(fd_.get(), path_);
    if (!lock) return std::unexpected(lock.error());

    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) {
        return std::unexpected(os_error("cannot stat audit log " + path_, errno));
    }
    // A writer that died mid-line left no newline: end its fragment so ours stays whole.
    if (st.st_size > 0) {
        char last = '\n';
        const ssize_t n = ::pread(fd_.get(), &last, 1, st.st_size - 1);
        if (n < 0) return std::unexpected(os_error("cannot read audit log " + path_, errno));
        if (n == 1 && last != '\n') line.insert(line.begin(), '\n');
    }

    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(fd_.get(), line.data() + done, line.size() - done);
        if (n > 0) {
            done += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        const int error = n < 0 ? errno : EIO;
        Error failed = os_error("cannot write audit log " + path_, error);
        // Everyone else waits on the lock, so the file still ends where we began: cut our
        // fragment off. If even that fails, the next append ends the fragment with '\n'.
        if (done > 0 && ::ftruncate(fd_.get(), st.st_size) != 0) {
            failed.what += " (a partial line remains; the next record starts on a new line)";
        }
        return std::unexpected(std::move(failed));
    }
    if (::fdatasync(fd_.get()) != 0) {
        return std::unexpected(os_error("cannot sync audit log " + path_, errno));
    }
    return {};
}

}  // namespace gpukill::audit
