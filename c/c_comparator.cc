// sift/c.h, part three: a user comparator from C callbacks.

#include <string>
#include <string_view>

#include "c/c_internal.h"

sift_comparator_t::~sift_comparator_t() {
  if (destructor_ != nullptr) destructor_(state_);
}

int sift_comparator_t::Compare(std::string_view a, std::string_view b) const {
  return compare_(state_, a.data(), a.size(), b.data(), b.size());
}

const char* sift_comparator_t::Name() const { return name_(state_); }

extern "C" {

sift_comparator_t* sift_comparator_create(
    void* state, void (*destructor)(void* state),
    int (*compare)(void* state, const char* a, size_t alen, const char* b,
                   size_t blen),
    const char* (*name)(void* state)) {
  return new sift_comparator_t(state, destructor, compare, name);
}

void sift_comparator_destroy(sift_comparator_t* cmp) { delete cmp; }

void sift_options_set_comparator(sift_options_t* options,
                                 sift_comparator_t* cmp) {
  options->rep.comparator = cmp == nullptr ? sift::BytewiseComparator() : cmp;
}

}  // extern "C"
