// What a host answers the fleet controller: an agent's HTTP answer (its status, from the
// first byte, and body) and a remote gpukill's stdout over SSH, read as the transports
// read them (fleet::agent_reply, fleet::reply_from_output): bounded JSON, then the shape
// check that keeps a badly typed field from aborting the controller. The renderers then
// read only documents that passed it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fleet/agent_transport.hpp"
#include "fleet/transport.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static const int kStatuses[] = {200, 201, 400, 401, 403, 404, 409, 422, 500, 503};
    const int status = kStatuses[data[0] % std::size(kStatuses)];
    const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
    (void)gpukill::fleet::agent_reply(status, body);
    (void)gpukill::fleet::reply_from_output(data[0] % 4, body, "gpukill: failed\n");
    return 0;
}
