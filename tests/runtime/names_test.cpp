// The runtime's name tables against hce/names.def, the list the translator
// checks `#pragma hce` clauses against (issue 13.10): every scheduler,
// device kind, communication mode and reduction operator named there is
// accepted by the runtime, and every one the runtime has is named there,
// so that a pragma the translator accepts never fails at run time and the
// reverse.  The scheduler registry is generated from names.def
// (runtime/src/sched/registry.cpp); the other tables are checked here.
#include "data_env.hpp"
#include "device.hpp"
#include "device_selection.hpp"
#include "reduction.hpp"
#include "sched/scheduler.hpp"
#include "settings.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace {

const std::vector<std::string> kSchedulers = {
#define HCE_NAME_SCHEDULER(name) #name,
#include "hce/names.def"
};
const std::vector<std::string> kDeviceKinds = {
#define HCE_NAME_DEVICE(name) #name,
#include "hce/names.def"
};
const std::vector<std::string> kCoModes = {
#define HCE_NAME_CO(name) #name,
#include "hce/names.def"
};
struct ReductionName {
  std::string op;
  int value;
};
const std::vector<ReductionName> kReductions = {
#define HCE_NAME_REDUCTION(op, e) {op, e},
#include "hce/names.def"
};

TEST(Names, SchedulersAreExactlyTheSelectableOnes) {
  EXPECT_EQ(hce::scheduler_names(), kSchedulers);
  for (const std::string &name : kSchedulers)
    EXPECT_NE(hce::make_scheduler(name), nullptr) << name;
}

// Every DeviceKind enumerator (0, 1, ... until kind_name says "?") has its
// name in names.def, and every names.def kind parses as HCE_DEVICES.
TEST(Names, DeviceKindsMatchBothWays) {
  std::set<std::string> runtime_kinds;
  for (int k = 0;; ++k) {
    std::string name = hce::kind_name(static_cast<hce::DeviceKind>(k));
    if (name == "?")
      break;
    runtime_kinds.insert(name);
  }
  EXPECT_EQ(runtime_kinds,
            std::set<std::string>(kDeviceKinds.begin(), kDeviceKinds.end()));
  for (const std::string &kind : kDeviceKinds) {
    std::string why;
    auto specs = hce::parse_device_list(kind, why);
    ASSERT_TRUE(specs) << kind << ": " << why;
    ASSERT_EQ(specs->size(), 1u);
    EXPECT_EQ((*specs)[0].kind, kind);
    if (kind != "cpu") { // numbered: sim:1, cuda:1, omp:1
      specs = hce::parse_device_list(kind + ":1", why);
      ASSERT_TRUE(specs) << kind << ":1: " << why;
      EXPECT_EQ((*specs)[0].ordinal, 1);
    }
  }
  std::string why;
  EXPECT_FALSE(hce::parse_device_list("gpu", why));
}

// parse_co_mode and co_name are inverse on names.def's modes, and every
// CoMode enumerator is one of them.
TEST(Names, CommunicationModesMatchBothWays) {
  std::set<std::string> runtime_modes;
  for (int k = 0;; ++k) {
    std::string name = hce::co_name(static_cast<hce::CoMode>(k));
    if (name == "?")
      break;
    runtime_modes.insert(name);
  }
  EXPECT_EQ(runtime_modes, std::set<std::string>(kCoModes.begin(), kCoModes.end()));
  for (const std::string &name : kCoModes) {
    auto mode = hce::parse_co_mode(name);
    ASSERT_TRUE(mode) << name;
    EXPECT_EQ(hce::co_name(*mode), name);
  }
}

int32_t combine(int op, int32_t a, int32_t b) {
  hce_reduction red{"r", nullptr, op, HCE_TYPE_I32, 0};
  unsigned char acc[HCE_RED_SLOT_BYTES], val[HCE_RED_SLOT_BYTES];
  hce::reduction_identity(red, acc);
  std::memset(val, 0, sizeof val);
  std::memcpy(val, &a, sizeof a);
  hce::reduction_combine(red, acc, val); // identity OP a == a
  std::memcpy(val, &b, sizeof b);
  hce::reduction_combine(red, acc, val);
  int32_t out;
  std::memcpy(&out, acc, sizeof out);
  return out;
}

// Each OpenMP spelling in names.def is paired with the enumerator that
// computes it, and the runtime accepts exactly names.def's enumerators.
TEST(Names, ReductionOperatorsMatchBothWays) {
  const std::vector<std::pair<std::string, int32_t>> six_op_three = {
      {"+", 9}, {"*", 18}, {"min", 3}, {"max", 6}, {"&", 2},
      {"|", 7}, {"^", 5},  {"&&", 1},  {"||", 1}};
  ASSERT_EQ(kReductions.size(), six_op_three.size());
  std::set<int> values;
  for (const ReductionName &r : kReductions) {
    values.insert(r.value);
    bool found = false;
    for (const auto &[op, want] : six_op_three)
      if (op == r.op) {
        found = true;
        EXPECT_EQ(combine(r.value, 6, 3), want) << "6 " << op << " 3";
      }
    EXPECT_TRUE(found) << r.op;
  }
  EXPECT_EQ(values.size(), kReductions.size()) << "two spellings, one enumerator";
  for (int op = -2; op < 32; ++op) {
    hce_reduction red{"r", nullptr, op, HCE_TYPE_I32, 0};
    std::string why;
    EXPECT_EQ(hce::reduction_valid(red, why), values.count(op) == 1) << "operator " << op;
  }
}

} // namespace
