#include "audit/action_log_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <ext/stdio_filebuf.h>

#include <cerrno>
#include <istream>

#include "model/parse_util.hpp"
#include "sys/fd_io.hpp"

namespace gpukill::audit {
namespace {

using Json = nlohmann::ordered_json;

// The processes a record is about: its target, a plan's targets, or a refusal itself.
std::vector<const Json*> subjects(const Json& record) {
    std::vector<const Json*> out;
    if (auto target = record.find("target"); target != record.end() && target->is_object()) {
        out.push_back(&*target);
    }
    if (auto targets = record.find("targets"); targets != record.end() && targets->is_array()) {
        for (const Json& target : *targets) {
            if (target.is_object()) out.push_back(&target);
        }
    }
    if (record.value("event", "") == "refused") out.push_back(&record);
    return out;
}

bool string_is(const Json& object, const char* key, const std::string& wanted) {
    auto found = object.find(key);
    return found != object.end() && found->is_string() && found->get<std::string>() == wanted;
}

bool number_is(const Json& object, const char* key, std::optional<std::int64_t> wanted) {
    if (!wanted) return false;
    auto found = object.find(key);
    return found != object.end() && found->is_number_integer() &&
           found->get<std::int64_t>() == *wanted;
}

bool matches_user(const Json& record, const std::string& wanted) {
    const auto uid = text::parse_int<std::int64_t>(wanted);
    if (string_is(record, "user", wanted) || string_is(record, "sudo_user", wanted) ||
        number_is(record, "uid", uid) || number_is(record, "sudo_uid", uid)) {
        return true;
    }
    for (const Json* subject : subjects(record)) {
        if (subject == &record) continue;  // a refusal's own fields name no owner
        if (string_is(*subject, "user", wanted) || number_is(*subject, "uid", uid)) return true;
    }
    return false;
}

}  // namespace

std::optional<Json> parse_action_line(std::string_view line) {
    Json record = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!record.is_object()) return std::nullopt;  // also a parse failure (discarded)
    auto time = record.find("timestamp_unix_ms");
    auto event = record.find("event");
    if (time == record.end() || !time->is_number_integer()) return std::nullopt;
    if (event == record.end() || !event->is_string()) return std::nullopt;
    return record;
}

bool action_matches(const Json& record, const ActionFilter& filter) {
    const auto time = record.value("timestamp_unix_ms", std::int64_t{0});
    if (time < filter.since_unix_ms || time >= filter.until_unix_ms) return false;
    if (filter.user && !matches_user(record, *filter.user)) return false;
    if (!filter.process) return true;
    for (const Json* subject : subjects(record)) {
        auto name = subject->find("name");
        if (name == subject->end() || !name->is_string()) continue;
        if (filter.process->search(name->get<std::string>())) return true;
    }
    return false;
}

Result<ActionLog> scan_action_log(std::istream& in, const ActionFilter& filter) {
    ActionLog log;
    std::string line;
    while (std::getline(in, line)) {
        if (text::trim(line).empty()) continue;
        auto record = parse_action_line(line);
        if (!record) {
            ++log.skipped_lines;
            continue;
        }
        if (action_matches(*record, filter)) log.records.push_back(std::move(*record));
    }
    return log;
}

Result<ActionLog> read_action_log(const std::string& path, const ActionFilter& filter) {
    // O_NONBLOCK: a FIFO planted at the path fails the S_ISREG check below instead of
    // blocking open(); a link to /dev/zero fails it too instead of reading without end.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return std::unexpected(os_error("cannot read the action log " + path, errno));
    __gnu_cxx::stdio_filebuf<char> file(fd, std::ios::in | std::ios::binary);  // owns fd
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        return std::unexpected(os_error("cannot read the action log " + path, errno));
    }
    if (!S_ISREG(st.st_mode)) {
        return fail("cannot read the action log " + path + ": not a regular file", EINVAL);
    }
    std::istream in(&file);
    auto log = scan_action_log(in, filter);
    if (log && in.bad()) {
        return std::unexpected(os_error("cannot read the action log " + path, errno));
    }
    return log;
}

}  // namespace gpukill::audit
