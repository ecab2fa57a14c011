// What every profile's minimizer shares (profiles/<profile>/minimize.cpp).
#pragma once

#include <cstddef>

namespace kiln::conformance {

// Counts predicate calls against the budget.
template <class Predicate, class Candidate>
class Trial {
 public:
  Trial(const Predicate& still_fails, std::size_t budget)
      : still_fails_(still_fails), left_(budget) {}
  bool exhausted() const { return left_ == 0; }
  bool operator()(const Candidate& candidate) {
    if (left_ == 0) return false;
    --left_;
    return still_fails_(candidate);
  }

 private:
  const Predicate& still_fails_;
  std::size_t left_;
};

}  // namespace kiln::conformance
