#include "audit/envelope.hpp"

#include <limits.h>
#include <sys/random.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <cstdlib>

#include "host/proc_reader.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::audit {
namespace {

using json = nlohmann::ordered_json;

std::string host_name() {
    std::array<char, HOST_NAME_MAX + 1> name{};
    if (::gethostname(name.data(), name.size() - 1) != 0) return "";
    return name.data();  // the array's last byte stays 0 even if the name was cut
}

std::optional<std::string> environment(const char* variable) {
    const char* value = std::getenv(variable);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
}

std::optional<uid_t> parse_uid(const std::optional<std::string>& text) {
    if (!text) return std::nullopt;
    uid_t uid = 0;
    const char* end = text->data() + text->size();
    auto [ptr, ec] = std::from_chars(text->data(), end, uid);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return uid;
}

}  // namespace

// Random so that two runs in the same second under the same PID (containers) still
// differ; the fallback is unique enough for grouping when the kernel has no entropy yet.
std::string new_run_id() {
    std::array<unsigned char, 16> bytes{};
    if (::getrandom(bytes.data(), bytes.size(), GRND_NONBLOCK) ==
        static_cast<ssize_t>(bytes.size())) {
        std::string id;
        for (unsigned char b : bytes) id += fmt::format("{:02x}", b);
        return id;
    }
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return fmt::format("{:016x}{:016x}",
                       static_cast<std::uint64_t>(
                           std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()),
                       static_cast<std::uint64_t>(::getpid()));
}

namespace {

template <class T>
json optional_value(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

}  // namespace

Invocation current_invocation(const std::vector<std::string>& argv) {
    Invocation who;
    who.host = host_name();
    who.uid = ::getuid();
    who.euid = ::geteuid();
    who.user = user_name(who.uid);
    who.sudo_user = environment("SUDO_USER");
    who.sudo_uid = parse_uid(environment("SUDO_UID"));
    who.pid = ::getpid();
    who.command = shell_join(argv);
    who.run_id = new_run_id();
    who.actor = Actor{.interface = Interface::cli, .name = who.user, .remote = std::nullopt};
    return who;
}

Actor local_actor(Interface interface) {
    return Actor{.interface = interface, .name = user_name(::getuid()), .remote = std::nullopt};
}

Invocation invocation_for(const Actor& actor, std::string command) {
    Invocation who = current_invocation({});
    who.command = std::move(command);
    who.actor = actor;
    return who;
}

json audit_envelope(std::string_view event, const Invocation& who,
                    std::chrono::system_clock::time_point when) {
    const std::int64_t unix_ms = static_cast<std::int64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count());
    return json{
        {"schema_version", kAuditSchemaVersion},
        {"event", std::string(event)},
        {"timestamp", format_utc_timestamp(unix_ms)},
        {"timestamp_unix_ms", unix_ms},
        {"host", who.host},
        {"user", who.user},
        {"uid", who.uid},
        {"euid", who.euid},
        {"sudo_user", optional_value(who.sudo_user)},
        {"sudo_uid", optional_value(who.sudo_uid)},
        {"gpukill_pid", who.pid},
        {"command", who.command},
        {"run_id", who.run_id},
        {"actor",
         {{"interface", to_string(who.actor.interface)},
          {"name", who.actor.name},
          {"remote", optional_value(who.actor.remote)}}},
    };
}

}  // namespace gpukill::audit
