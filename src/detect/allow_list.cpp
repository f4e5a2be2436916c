#include "detect/allow_list.hpp"

#include "detect/names.hpp"

namespace gpukill::detect {

std::optional<AllowMatch> allowed_by(const ProcessInfo& info, const AllowList& allow) {
    for (const std::string& user : allow.users) {
        const bool by_name = !info.user.empty() && info.user == user;
        const bool by_uid = info.uid && std::to_string(*info.uid) == user;
        if (by_name || by_uid) return AllowMatch{"user", user};
    }
    if (info.exe && !info.exe_deleted) {
        for (const std::string& path : allow.executables) {
            if (*info.exe == path) return AllowMatch{"executable", path};
        }
    }
    if (info.exe && !info.exe->empty()) {
        const std::string_view exe_base = base_name(*info.exe);
        for (const std::string& name : allow.names) {
            // comm keeps the first 15 bytes of a longer name: the kernel's cut, not a prefix
            // match (the executable must still be that program).
            const bool comm_is_name =
                info.comm == name || (info.comm.size() == 15 && name.size() > 15 &&
                                      std::string_view(name).starts_with(info.comm));
            if (comm_is_name && same_program(name, exe_base)) {
                return AllowMatch{"name", name};
            }
        }
    }
    return std::nullopt;
}

}  // namespace gpukill::detect
