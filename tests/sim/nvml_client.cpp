#include "nvml_client.hpp"

#include <dlfcn.h>

namespace nvml_client {

Library::Library(const std::filesystem::path& path) {
    handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) error_ = ::dlerror();
}

Library::~Library() {
    if (handle_ != nullptr) ::dlclose(handle_);
}

void* Library::symbol(const char* name) const {
    return handle_ == nullptr ? nullptr : ::dlsym(handle_, name);
}

Device Library::device(unsigned int index) const {
    Device device = nullptr;
    const auto get = fn<Return(unsigned int, Device*)>("nvmlDeviceGetHandleByIndex_v2");
    return get != nullptr && get(index, &device) == kSuccess ? device : nullptr;
}

}  // namespace nvml_client
