#include "reclaim/match.hpp"

#include <algorithm>
#include <cctype>

#include "model/human_format.hpp"
#include "model/kubernetes_names.hpp"
#include "model/parse_util.hpp"
#include "model/quoted_text.hpp"

namespace gpukill::reclaim {
namespace {

constexpr std::size_t kMinContainerPrefix = 4;

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool matches_user(const Matcher& matcher, const ProcessInfo& info) {
    const std::string& wanted = *matcher.selectors.user;
    if (!info.user.empty() && info.user == wanted) return true;
    return matcher.user_uid && info.uid && *info.uid == *matcher.user_uid;
}

bool matches_container(const std::string& wanted, const ProcessInfo& info) {
    if (!info.container) return false;
    const ContainerInfo& container = *info.container;
    if (container.pod_uid && lower(*container.pod_uid) == lower(wanted)) return true;
    return !container.id.empty() && container.id.starts_with(lower(wanted));
}

// The process's pod field `field` is known and is exactly `wanted`.
bool info_has(const ProcessInfo& info, std::optional<std::string> ContainerInfo::*field,
              const std::string& wanted) {
    return info.container && (*info.container).*field == wanted;
}

// Tied to `gpu` and known to be there (`known`), or tied only maybe (!`known`).
bool on_gpu(const SnapshotProcess* holder, unsigned gpu, bool known = true) {
    if (holder == nullptr) return false;
    return std::any_of(holder->gpus.begin(), holder->gpus.end(), [&](const ProcessGpuUse& use) {
        return use.gpu_index == gpu && use.known() == known;
    });
}

bool has_memory(const SnapshotProcess* holder, std::uint64_t minimum) {
    if (holder == nullptr) return false;
    return std::any_of(holder->gpus.begin(), holder->gpus.end(), [&](const ProcessGpuUse& use) {
        return use.memory_bytes && *use.memory_bytes >= minimum;
    });
}

// Holds a GPU's device file while the driver, whose list for that GPU was read, does not
// list it: what nvidia-smi cannot show.
bool unlisted(const Matcher& matcher, const SnapshotProcess* holder) {
    if (holder == nullptr) return false;
    return std::any_of(holder->gpus.begin(), holder->gpus.end(), [&](const ProcessGpuUse& use) {
        return use.seen_by.device_file && !use.seen_by.driver &&
               matcher.gpus_with_driver_list.contains(use.gpu_index);
    });
}

// The container image the runtime named, if the process is in a container and it did.
const std::string* image_of(const ProcessInfo& info) {
    if (!info.container || !info.container->image) return nullptr;
    return &*info.container->image;
}

// Every match selector but --gpu.
bool matches_besides_gpu(const Matcher& matcher, const ProcessInfo& info,
                         const SnapshotProcess* holder) {
    const Selectors& s = matcher.selectors;
    if (s.user && !matches_user(matcher, info)) return false;
    if (s.container && !matches_container(*s.container, info)) return false;
    if (s.slurm_job && (!info.slurm_job || info.slurm_job->job_id != *s.slurm_job)) return false;
    if (s.pod_namespace && !info_has(info, &ContainerInfo::pod_namespace, *s.pod_namespace)) {
        return false;
    }
    if (s.pod && !info_has(info, &ContainerInfo::pod_name, *s.pod)) return false;
    if (s.min_memory_bytes && !has_memory(holder, *s.min_memory_bytes)) return false;
    if (s.orphaned && (holder == nullptr || !holder->orphaned)) return false;
    if (s.unlisted && !unlisted(matcher, holder)) return false;
    if (matcher.filter && !search_process(*matcher.filter, info)) return false;
    if (matcher.image || matcher.not_image) {
        const std::string* image = image_of(info);
        if (image == nullptr) return false;
        if (matcher.image && !matcher.image->search(*image)) return false;
        if (matcher.not_image && matcher.not_image->search(*image)) return false;
    }
    return true;
}

}  // namespace

Result<Matcher> compile_matcher(const Selectors& selectors, const Snapshot& snapshot) {
    Matcher matcher;
    matcher.selectors = selectors;
    if (selectors.filter) {
        auto compiled = Pattern::compile(*selectors.filter);
        if (!compiled) return fail("invalid --filter: " + compiled.error().what);
        matcher.filter = std::move(*compiled);
    }
    if (selectors.image) {
        auto compiled = Pattern::compile(*selectors.image);
        if (!compiled) return fail("invalid --image: " + compiled.error().what);
        matcher.image = std::move(*compiled);
    }
    if (selectors.not_image) {
        auto compiled = Pattern::compile(*selectors.not_image);
        if (!compiled) return fail("invalid --not-image: " + compiled.error().what);
        matcher.not_image = std::move(*compiled);
    }
    if (selectors.user) matcher.user_uid = text::parse_int<uid_t>(*selectors.user);
    if (selectors.container && selectors.container->size() < kMinContainerPrefix) {
        return fail("invalid --container: give at least " + std::to_string(kMinContainerPrefix) +
                    " characters of the container id, or a pod UID");
    }
    // Kubernetes' own rules: a name it could not have given is a typo, not "match nothing".
    if (selectors.pod_namespace && !is_kubernetes_label(*selectors.pod_namespace)) {
        return fail("invalid --namespace: " + quote_escaped(*selectors.pod_namespace) +
                    " is not a Kubernetes namespace (lower-case letters, digits and '-', at "
                    "most 63)");
    }
    if (selectors.pod && !is_kubernetes_subdomain(*selectors.pod)) {
        return fail("invalid --pod: " + quote_escaped(*selectors.pod) +
                    " is not a Kubernetes pod name (lower-case letters, digits, '-' and '.', "
                    "at most 253)");
    }
    for (const Gpu& gpu : snapshot.gpus) {
        if (gpu.reading.processes) matcher.gpus_with_driver_list.insert(gpu.index);
    }
    return matcher;
}

bool matches(const Matcher& matcher, const ProcessInfo& info, const SnapshotProcess* holder) {
    const Selectors& s = matcher.selectors;
    if (s.gpu && !on_gpu(holder, *s.gpu)) return false;
    return matches_besides_gpu(matcher, info, holder);
}

bool matches_but_unknown_gpu(const Matcher& matcher, const ProcessInfo& info,
                             const SnapshotProcess* holder) {
    const Selectors& s = matcher.selectors;
    return s.gpu && !on_gpu(holder, *s.gpu) && on_gpu(holder, *s.gpu, /*known=*/false) &&
           matches_besides_gpu(matcher, info, holder);
}

std::string unknown_gpu_reason(const ProcessInfo& info, unsigned gpu) {
    return "PID " + std::to_string(info.pid) + " (" + info.comm +
           ") holds /dev/kfd, and nothing says which AMD GPU it uses: not known to use GPU " +
           std::to_string(gpu) + "; name it with --pid to stop it";
}

std::string describe_match_selectors(const Selectors& s) {
    std::string out;
    auto add = [&](std::string part) {
        if (!out.empty()) out.push_back(' ');
        out += part;
    };
    if (s.gpu) add("--gpu " + std::to_string(*s.gpu));
    if (s.filter) add("--filter " + *s.filter);
    if (s.user) add("--user " + *s.user);
    if (s.container) add("--container " + *s.container);
    if (s.slurm_job) add("--slurm-job " + *s.slurm_job);
    if (s.pod_namespace) add("--namespace " + *s.pod_namespace);
    if (s.pod) add("--pod " + *s.pod);
    if (s.image) add("--image " + *s.image);
    if (s.not_image) add("--not-image " + *s.not_image);
    if (s.min_memory_bytes) add("--min-memory " + format_bytes(*s.min_memory_bytes));
    if (s.orphaned) add("--orphaned");
    if (s.unlisted) add("--unlisted");
    return out;
}

}  // namespace gpukill::reclaim
