// The command line's two duties towards its standard streams: a descriptor 0, 1 or 2
// that was closed when gpukill started must not be handed to the first file it opens
// (the audit log would then receive the table), and a result that did not reach stdout
// (a full disk, a closed pipe) is a failure, not a silent exit 0.
#pragma once

namespace gpukill::cli {

// Opens /dev/null read-only on each of 0, 1 and 2 that is closed: writes to such a
// stdout or stderr then fail, and are reported as failed, instead of landing in a file.
void reserve_standard_descriptors();

// Flushes stdout. When anything written to it was lost, says so in one line on stderr
// and returns exit_code::failure if `code` was success; otherwise returns `code`.
int finish_stdout(int code);

}  // namespace gpukill::cli
