// The kernel's /proc text formats gpukill parses: stat, status, cmdline, cgroup, the exe
// link, and DRM fdinfo. Any process can shape some of these (its name, its cgroup path).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "host/drm_fdinfo_parse.hpp"
#include "host/proc_parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)gpukill::parse_proc_stat(text);
    (void)gpukill::parse_proc_status(text);
    (void)gpukill::parse_proc_cmdline(text);
    (void)gpukill::parse_proc_cgroup(text);
    (void)gpukill::parse_exe_link(text);
    (void)gpukill::parse_drm_fdinfo(text);
    return 0;
}
