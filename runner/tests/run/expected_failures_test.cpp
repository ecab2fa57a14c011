// The expected-failures list on its own: how a line reads (pattern, op, the
// status it records, reason), the verdict each (status, listing) gets,
// entries that match nothing, and a written list that reads back the same.
#include <gtest/gtest.h>

#include <sstream>

#include "kiln/conformance/expected_failures.hpp"
#include "test_support.hpp"

namespace kiln::conformance {

// gtest prints a Verdict by its name (found by argument-dependent lookup).
void PrintTo(Verdict verdict, std::ostream* out) { *out << to_string(verdict); }

namespace {

using testing::ScratchDir;
using testing::write_text;

ExpectedFailures parsed(const std::string& text) {
  auto list = ExpectedFailures::parse(text, "list.txt");
  EXPECT_TRUE(list) << list.error();
  return list ? std::move(list).value() : ExpectedFailures();
}

CaseResult result_of(const std::string& id, Operation op, Status status) {
  CaseResult result;
  result.case_id = id;
  result.op = op;
  result.status = status;
  result.got = "what came back";
  return result;
}

// The verdict the list gives a result.
Verdict verdict(ExpectedFailures& list, const std::string& id, Status status,
                Operation op = Operation::kDecode) {
  CaseResult result = result_of(id, op, status);
  list.record(result);
  return result.verdict;
}

TEST(ExpectedFailuresParse, ReadsPatternOpStatusAndReason) {
  const auto list = parsed(
      "# known problems\n"
      "kiln-v2-a:decode  CRASH: aborts on a bad nibble  # bug 12\n"
      "kiln-v2-b*:encode TIMEOUT:\n"
      "kiln-v2-c FAIL:wrong class\n"
      "kiln-v2-d   PROTOCOL: prints a banner\n");
  ASSERT_EQ(list.entries().size(), 4u);
  const auto& a = list.entries()[0];
  EXPECT_EQ(a.id_glob, "kiln-v2-a");
  EXPECT_EQ(a.op, Operation::kDecode);
  ASSERT_TRUE(a.status);
  EXPECT_EQ(to_string(*a.status), "CRASH");
  EXPECT_EQ(a.reason, "aborts on a bad nibble");
  EXPECT_EQ(a.line, 2);
  EXPECT_EQ(a.pattern(), "kiln-v2-a:decode");
  const auto& b = list.entries()[1];
  EXPECT_EQ(b.op, Operation::kEncode);
  ASSERT_TRUE(b.status);
  EXPECT_EQ(to_string(*b.status), "TIMEOUT");
  EXPECT_EQ(b.reason, "");
  const auto& c = list.entries()[2];
  EXPECT_FALSE(c.op);
  ASSERT_TRUE(c.status);
  EXPECT_EQ(to_string(*c.status), "FAIL");
  EXPECT_EQ(c.reason, "wrong class");
  ASSERT_TRUE(list.entries()[3].status);
  EXPECT_EQ(to_string(*list.entries()[3].status), "PROTOCOL");
}

// Lists written before statuses were parsed: no status, any failure matches;
// a reason that only looks like one stays a reason.
TEST(ExpectedFailuresParse, AnOldLineWithoutAStatusAcceptsAnyFailure) {
  const auto list = parsed(
      "kiln-v2-a aborts on a bad nibble\n"
      "kiln-v2-b TODO: fix the encoder\n"
      "kiln-v2-c FAIL without a colon\n"
      "kiln-v2-d crash: lower case\n"
      "kiln-v2-e SKIP: not a failure status\n"
      "kiln-v2-f\n");
  ASSERT_EQ(list.entries().size(), 6u);
  for (const auto& entry : list.entries()) {
    EXPECT_FALSE(entry.status) << entry.id_glob;
    for (const Status status : {Status::kFail, Status::kCrash, Status::kTimeout, Status::kProtocol})
      EXPECT_TRUE(entry.accepts(status)) << entry.id_glob << " " << to_string(status);
    for (const Status status : {Status::kPass, Status::kSkip, Status::kError})
      EXPECT_FALSE(entry.accepts(status)) << entry.id_glob << " " << to_string(status);
  }
  EXPECT_EQ(list.entries()[1].reason, "TODO: fix the encoder");
  EXPECT_EQ(list.entries()[2].reason, "FAIL without a colon");
  EXPECT_EQ(list.entries()[4].reason, "SKIP: not a failure status");
  EXPECT_EQ(list.entries()[5].reason, "");
}

TEST(ExpectedFailuresParse, ABomAndCrlfLineEndsAreAccepted) {
  const auto list = parsed("\xEF\xBB\xBFkiln-v2-a CRASH: crashes\r\n# a comment\r\n\r\nkiln-v2-b:encode\r\n");
  ASSERT_EQ(list.entries().size(), 2u);
  EXPECT_EQ(list.entries()[0].id_glob, "kiln-v2-a");
  EXPECT_EQ(list.entries()[0].reason, "crashes");
  EXPECT_EQ(list.entries()[1].pattern(), "kiln-v2-b:encode");
  EXPECT_EQ(list.entries()[1].line, 4);
}

TEST(ExpectedFailuresParse, AnUnknownOperationNamesFileLineAndColumn) {
  const auto list = ExpectedFailures::parse("kiln-v2-a\nkiln-v2-u4:transcode broken\n", "list.txt");
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error(), "list.txt:2:12: the operation after ':' is decode or encode, not 'transcode'");
}

TEST(ExpectedFailuresParse, LoadNamesAFileItCannotOpen) {
  ScratchDir scratch;
  const auto missing = ExpectedFailures::load(scratch / "missing.txt");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), (scratch / "missing.txt").string() + ": cannot open the expected-failures file");
  write_text(scratch / "list.txt", "kiln-v2-a:encode FAIL: x\n");
  const auto list = ExpectedFailures::load(scratch / "list.txt");
  ASSERT_TRUE(list) << list.error();
  EXPECT_EQ(list.value().entries().size(), 1u);
}

// ---- verdicts ----

TEST(ExpectedFailuresVerdict, AListedFailureIsExpectedOnlyWhenItFailsAsRecorded) {
  auto list = parsed("kiln-v2-a FAIL: wrong class\nkiln-v2-b  any way at all\n");
  EXPECT_EQ(verdict(list, "kiln-v2-a", Status::kFail), Verdict::kExpectedFailure);
  EXPECT_EQ(verdict(list, "kiln-v2-a", Status::kCrash), Verdict::kChangedFailure);
  EXPECT_EQ(verdict(list, "kiln-v2-a", Status::kTimeout), Verdict::kChangedFailure);
  EXPECT_EQ(verdict(list, "kiln-v2-a", Status::kPass), Verdict::kStaleListing);
  EXPECT_EQ(verdict(list, "kiln-v2-b", Status::kCrash), Verdict::kExpectedFailure);
  EXPECT_EQ(verdict(list, "kiln-v2-b", Status::kProtocol), Verdict::kExpectedFailure);
  EXPECT_EQ(verdict(list, "kiln-v2-b", Status::kPass), Verdict::kStaleListing);
  EXPECT_EQ(verdict(list, "kiln-v2-c", Status::kFail), Verdict::kUnexpectedFailure);
  EXPECT_EQ(verdict(list, "kiln-v2-c", Status::kPass), Verdict::kPass);
}

TEST(ExpectedFailuresVerdict, TheResultCarriesItsListingAndTheRunFailsOnAChange) {
  auto list = parsed("kiln-v2-a FAIL: wrong class\n");
  CaseResult changed = result_of("kiln-v2-a", Operation::kDecode, Status::kCrash);
  list.record(changed);
  EXPECT_TRUE(changed.listed);
  ASSERT_TRUE(changed.listed_status);
  EXPECT_EQ(to_string(*changed.listed_status), "FAIL");
  EXPECT_EQ(changed.listed_reason, "wrong class");
  EXPECT_TRUE(changed.changed_failure());
  EXPECT_TRUE(changed.unexpected());
  EXPECT_FALSE(changed.expected_failure());

  CaseResult expected = result_of("kiln-v2-a", Operation::kDecode, Status::kFail);
  list.record(expected);
  EXPECT_TRUE(expected.expected_failure());
  EXPECT_FALSE(expected.unexpected());
}

// No list hides a case the runner cannot judge; a skip is no failure.
TEST(ExpectedFailuresVerdict, ErrorsAreUnjudgedAndSkipsAreSkipsListedOrNot) {
  auto list = parsed("kiln-v2-a\nkiln-v2-b PROTOCOL:\n");
  CaseResult error = result_of("kiln-v2-a", Operation::kDecode, Status::kError);
  list.record(error);
  EXPECT_EQ(error.verdict, Verdict::kUnjudged);
  EXPECT_TRUE(error.listed);
  EXPECT_TRUE(error.unexpected());
  EXPECT_EQ(verdict(list, "kiln-v2-b", Status::kSkip), Verdict::kSkip);
  EXPECT_EQ(verdict(list, "kiln-v2-c", Status::kSkip), Verdict::kSkip);
  EXPECT_EQ(verdict(list, "kiln-v2-c", Status::kError), Verdict::kUnjudged);
}

TEST(ExpectedFailuresVerdict, OpSuffixesAndGlobsSelectWhatIsListed) {
  auto list = parsed("kiln-v2-high-*:decode CRASH:\nkiln-v2-bool-?yte\n");
  EXPECT_EQ(verdict(list, "kiln-v2-high-nibble", Status::kCrash, Operation::kDecode),
            Verdict::kExpectedFailure);
  EXPECT_EQ(verdict(list, "kiln-v2-high-nibble", Status::kCrash, Operation::kEncode),
            Verdict::kUnexpectedFailure);
  EXPECT_EQ(verdict(list, "kiln-v2-bool-byte", Status::kFail, Operation::kEncode),
            Verdict::kExpectedFailure);
  EXPECT_EQ(verdict(list, "kiln-v2-bool-bytes", Status::kFail), Verdict::kUnexpectedFailure);
}

// Two entries for one case: the one that records how it fails is the one used.
TEST(ExpectedFailuresVerdict, OfSeveralMatchingEntriesTheOneWithTheStatusWins) {
  auto list = parsed("kiln-v2-a:decode FAIL: first\nkiln-v2-* CRASH: second\n");
  const auto* crash = list.find("kiln-v2-a", Operation::kDecode, Status::kCrash);
  ASSERT_NE(crash, nullptr);
  EXPECT_EQ(crash->reason, "second");
  const auto* fail = list.find("kiln-v2-a", Operation::kDecode, Status::kFail);
  ASSERT_NE(fail, nullptr);
  EXPECT_EQ(fail->reason, "first");
  // Neither records a timeout: the last match says how it was expected to fail.
  const auto* timeout = list.find("kiln-v2-a", Operation::kDecode, Status::kTimeout);
  ASSERT_NE(timeout, nullptr);
  EXPECT_EQ(timeout->reason, "second");
  // b is listed as CRASH only: its FAIL finds that entry, and is a change.
  const auto* b_fail = list.find("kiln-v2-b", Operation::kDecode, Status::kFail);
  ASSERT_NE(b_fail, nullptr);
  EXPECT_EQ(b_fail->reason, "second");
  EXPECT_EQ(verdict(list, "kiln-v2-b", Status::kFail), Verdict::kChangedFailure);
  EXPECT_EQ(list.find("other", Operation::kDecode, Status::kFail), nullptr);
  EXPECT_EQ(verdict(list, "kiln-v2-a", Status::kTimeout), Verdict::kChangedFailure);
}

// ---- entries that match nothing ----

TEST(ExpectedFailuresUnused, EntriesThatMatchNoResultAreReportedWithTheirLine) {
  auto list = parsed("kiln-v2-a\n# gone:\nkiln-v2-gone-*  removed long ago\nkiln-v2-b:encode\nkiln-v2-c\n");
  verdict(list, "kiln-v2-a", Status::kFail);
  verdict(list, "kiln-v2-b", Status::kFail, Operation::kDecode);  // not encode
  verdict(list, "kiln-v2-c", Status::kSkip);  // a skip uses its entry: it may fail when run
  const auto unused = list.unused();
  ASSERT_EQ(unused.size(), 2u);
  EXPECT_EQ(unused[0]->line, 3);
  EXPECT_EQ(unused[1]->line, 4);
  std::ostringstream err;
  const auto reported = list.report_unused(err);
  ASSERT_EQ(reported.size(), 2u);
  EXPECT_EQ(reported[0].list, "list.txt");
  EXPECT_EQ(reported[0].line, 3);
  EXPECT_EQ(reported[0].pattern, "kiln-v2-gone-*");
  EXPECT_EQ(reported[1].pattern, "kiln-v2-b:encode");
  EXPECT_EQ(err.str(),
            "list.txt:3: 'kiln-v2-gone-*' matches no case: remove it\n"
            "list.txt:4: 'kiln-v2-b:encode' matches no case: remove it\n");
  // An entry used by a passing result is stale, not unused: reported once, as stale.
  auto stale = parsed("kiln-v2-a FAIL:\n");
  EXPECT_EQ(verdict(stale, "kiln-v2-a", Status::kPass), Verdict::kStaleListing);
  EXPECT_TRUE(stale.unused().empty());
}

// ---- writing a list ----

TEST(ExpectedFailuresWrite, AWrittenListReadsBackWithTheSameStatusesAndVerdicts) {
  std::vector<CaseResult> results = {
      result_of("kiln-v2-a", Operation::kDecode, Status::kFail),
      result_of("kiln-v2-a", Operation::kEncode, Status::kCrash),
      result_of("kiln-v2-b", Operation::kDecode, Status::kTimeout),
      result_of("kiln-v2-c", Operation::kDecode, Status::kProtocol),
      result_of("kiln-v2-d", Operation::kDecode, Status::kPass),
      result_of("kiln-v2-e", Operation::kDecode, Status::kSkip),
      result_of("kiln-v2-f", Operation::kDecode, Status::kError),
  };
  // An adapter message that tries to start entries and comments of its own.
  results[2].got = "first\nkiln-v2-*  every case\r\x1b[2J";
  ExpectedFailures none;
  for (auto& result : results) none.record(result);
  const std::string text = ExpectedFailures::write(results, "Expected failures of x\ny");
  EXPECT_EQ(text.rfind("# Expected failures of x\\ny\n", 0), 0u) << text;
  EXPECT_NE(text.find("kiln-v2-a:decode  FAIL: what came back\n"), std::string::npos) << text;
  EXPECT_NE(text.find("kiln-v2-b:decode  TIMEOUT: first\\nkiln-v2-*  every case\\r\\x1b[2J\n"),
            std::string::npos)
      << text;
  // Nothing for a pass, a skip or an unjudged case.
  for (const char* absent : {"kiln-v2-d", "kiln-v2-e", "kiln-v2-f"})
    EXPECT_EQ(text.find(absent), std::string::npos) << absent << " in\n" << text;

  auto read_back = parsed(text);
  ASSERT_EQ(read_back.entries().size(), 4u) << text;
  const std::vector<std::string> statuses = {"FAIL", "CRASH", "TIMEOUT", "PROTOCOL"};
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    ASSERT_TRUE(read_back.entries()[i].status) << i;
    EXPECT_EQ(to_string(*read_back.entries()[i].status), statuses[i]);
  }
  for (auto result : results) {
    const Verdict before = result.verdict;
    read_back.record(result);
    EXPECT_EQ(result.verdict, listable(result.status) ? Verdict::kExpectedFailure : before)
        << result.case_id << " " << to_string(result.op);
  }
  EXPECT_TRUE(read_back.unused().empty());
  // The same failures a different way are changes, not expected failures.
  CaseResult now_crashes = result_of("kiln-v2-a", Operation::kDecode, Status::kCrash);
  read_back.record(now_crashes);
  EXPECT_EQ(now_crashes.verdict, Verdict::kChangedFailure);
}

TEST(ExpectedFailuresWrite, AnExpectedFailureKeepsItsReasonAChangedOneGetsWhatCameBack) {
  auto list = parsed("kiln-v2-a  CRASH: aborts on a bad nibble\nkiln-v2-b FAIL: wrong class\n");
  std::vector<CaseResult> results = {result_of("kiln-v2-a", Operation::kDecode, Status::kCrash),
                                     result_of("kiln-v2-b", Operation::kDecode, Status::kTimeout)};
  for (auto& result : results) list.record(result);
  EXPECT_EQ(ExpectedFailures::write(results, "h"),
            "# h\n"
            "kiln-v2-a:decode  CRASH: aborts on a bad nibble\n"
            "kiln-v2-b:decode  TIMEOUT: what came back\n");
}

}  // namespace
}  // namespace kiln::conformance
