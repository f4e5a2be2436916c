#include "state/records.hpp"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "state/files.hpp"

namespace gpusim {

namespace {

using nlohmann::json;

std::filesystem::path record_path(const std::filesystem::path& dir, std::uint64_t id) {
    return dir / (std::to_string(id) + ".json");
}

// Record files are named "<id>.json"; anything else (temporaries) is not a record.
bool is_record_name(const std::string& name) {
    constexpr std::string_view kSuffix = ".json";
    if (name.size() <= kSuffix.size() || !name.ends_with(kSuffix)) return false;
    return std::all_of(name.begin(), name.end() - static_cast<std::ptrdiff_t>(kSuffix.size()),
                       [](char c) { return c >= '0' && c <= '9'; });
}

// Parses every record file in `dir` with `parse`, skipping what cannot be read.
template <class Record, class Parse>
std::vector<Record> read_records(const std::filesystem::path& dir, Parse parse) {
    std::vector<Record> records;
    std::error_code error;
    std::filesystem::directory_iterator it(dir, error);
    const std::filesystem::directory_iterator end;
    for (; !error && it != end; it.increment(error)) {
        if (!is_record_name(it->path().filename().string())) continue;
        auto text = read_file(it->path());
        if (!text) continue;
        const json parsed = json::parse(*text, nullptr, /*allow_exceptions=*/false);
        if (parsed.is_discarded()) continue;
        try {
            records.push_back(parse(parsed));
        } catch (const json::exception&) {
            continue;  // a record from another schema: not ours to count
        }
    }
    std::sort(records.begin(), records.end(),
              [](const Record& a, const Record& b) { return a.id < b.id; });
    return records;
}

}  // namespace

std::filesystem::path allocation_path(const Root& root, unsigned gpu, std::uint64_t id) {
    return record_path(root.allocations_dir(gpu), id);
}

std::filesystem::path leak_path(const Root& root, unsigned gpu, std::uint64_t id) {
    return record_path(root.leaks_dir(gpu), id);
}

Result<void> write_allocation(const Root& root, const AllocationRecord& record) {
    const json out{{"id", record.id},       {"gpu", record.gpu},
                   {"pid", record.pid},     {"start_time_ticks", record.start_time_ticks},
                   {"bytes", record.bytes}, {"util_percent", record.util_percent}};
    return write_file_atomic(allocation_path(root, record.gpu, record.id), out.dump() + "\n");
}

Result<void> write_leak(const Root& root, const LeakRecord& record) {
    const json out{{"id", record.id}, {"gpu", record.gpu}, {"bytes", record.bytes}};
    return write_file_atomic(leak_path(root, record.gpu, record.id), out.dump() + "\n");
}

std::vector<AllocationRecord> read_allocations(const Root& root, unsigned gpu) {
    return read_records<AllocationRecord>(root.allocations_dir(gpu), [](const json& in) {
        return AllocationRecord{in.at("id").get<std::uint64_t>(),
                                in.at("gpu").get<unsigned>(),
                                in.at("pid").get<int>(),
                                in.at("start_time_ticks").get<std::uint64_t>(),
                                in.at("bytes").get<std::uint64_t>(),
                                in.at("util_percent").get<unsigned>()};
    });
}

std::vector<LeakRecord> read_leaks(const Root& root, unsigned gpu) {
    return read_records<LeakRecord>(root.leaks_dir(gpu), [](const json& in) {
        return LeakRecord{in.at("id").get<std::uint64_t>(), in.at("gpu").get<unsigned>(),
                          in.at("bytes").get<std::uint64_t>()};
    });
}

}  // namespace gpusim
