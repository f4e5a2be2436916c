#include "detect/signature_scanner.hpp"

#include <deque>

namespace gpukill::detect {
namespace {

unsigned char folded(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c - 'A' + 'a') : c;
}

}  // namespace

SignatureScanner::SignatureScanner(const std::vector<std::string>& signatures)
    : signatures_(signatures), seen_(signatures.size(), false) {
    // The trie over the folded signatures; 0 in a row means "no edge yet" (the root is
    // never the target of an edge, so 0 is free to mean that while building).
    next_.push_back(Row{});
    ending_.emplace_back();
    for (std::uint32_t index = 0; index < signatures_.size(); ++index) {
        const std::string& signature = signatures_[index];
        if (signature.empty()) continue;
        std::uint32_t state = 0;
        for (const char c : signature) {
            const unsigned char byte = folded(static_cast<unsigned char>(c));
            if (next_[state][byte] == 0) {
                next_[state][byte] = static_cast<std::uint32_t>(next_.size());
                next_.push_back(Row{});
                ending_.emplace_back();
            }
            state = next_[state][byte];
        }
        ending_[state].push_back(index);
    }
    // Breadth first: each state's missing edges are its failure state's, so the table
    // answers every byte in one lookup. Upper-case letters go where lower-case ones do.
    std::vector<std::uint32_t> failure(next_.size(), 0);
    std::deque<std::uint32_t> queue;
    for (unsigned byte = 0; byte < 256; ++byte) {
        if (next_[0][byte] != 0) queue.push_back(next_[0][byte]);
    }
    while (!queue.empty()) {
        const std::uint32_t state = queue.front();
        queue.pop_front();
        const std::vector<std::uint32_t>& inherited = ending_[failure[state]];
        ending_[state].insert(ending_[state].end(), inherited.begin(), inherited.end());
        for (unsigned byte = 0; byte < 256; ++byte) {
            const std::uint32_t child = next_[state][byte];
            if (child == 0) {
                next_[state][byte] = next_[failure[state]][byte];
            } else {
                failure[child] = next_[failure[state]][byte];
                queue.push_back(child);
            }
        }
    }
    for (Row& row : next_) {
        for (unsigned byte = 'A'; byte <= 'Z'; ++byte) row[byte] = row[byte - 'A' + 'a'];
    }
    table_.reserve(next_.size() * 256);
    for (const Row& row : next_) table_.insert(table_.end(), row.begin(), row.end());
    for (const auto& ending : ending_) accepting_.push_back(ending.empty() ? 0 : 1);
}

void SignatureScanner::feed(std::string_view bytes) {
    const std::uint32_t* table = table_.data();
    const std::uint8_t* accepting = accepting_.data();
    std::uint32_t state = state_;
    for (const char c : bytes) {
        state = table[std::size_t{state} * 256 + static_cast<unsigned char>(c)];
        if (accepting[state] != 0) {
            for (const std::uint32_t index : ending_[state]) seen_[index] = true;
        }
    }
    state_ = state;
    bytes_fed_ += bytes.size();
}

void SignatureScanner::restart() {
    state_ = 0;
    bytes_fed_ = 0;
    seen_.assign(seen_.size(), false);
}

std::vector<std::string> SignatureScanner::found() const {
    std::vector<std::string> result;
    for (std::size_t index = 0; index < signatures_.size(); ++index) {
        if (seen_[index]) result.push_back(signatures_[index]);
    }
    return result;
}

}  // namespace gpukill::detect
