// The cuda:N device.
//
//  - CudaFallback.*: asking for a GPU that is not there (no GPU, no driver,
//    or a CUDA-less build) gives one notice and a correct CPU run.  These run
//    everywhere.
//  - CudaDetect.*: detection agrees with the CUDA runtime (CUDA builds).
//  - CudaDevice.*, CudaRegion.*, CudaData.*: the device itself, regions
//    with hand-written CUDA variants (cuda_variants.cu) on cuda only and
//    cpu+cuda for every scheduler, Jacobi in a data region, memory caps.
//    They need nvcc at build time and skip (only) when the machine has no
//    CUDA device.
#include "jacobi_region.hpp"
#include "runtime.hpp"
#include "sched/scheduler.hpp"
#include "test_support.hpp"

#if HCE_WITH_CUDA
#include "cuda/cuda_device.hpp"
#include "cuda/staging_pool.hpp"

#include <cuda_runtime_api.h>
#endif
#if HCE_TEST_CUDA_VARIANTS
#include "cuda_variants.hpp"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

// Number of CUDA devices the runtime sees (0 in a CUDA-less build), and why
// there are none.
int gpu_count(std::string *why = nullptr) {
#if HCE_WITH_CUDA
  std::string w;
  int n = hce::cuda_device_count(w);
  if (why)
    *why = w;
  return n;
#else
  if (why)
    *why = "runtime built without CUDA";
  return 0;
#endif
}

size_t count_of(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
    ++n;
  return n;
}

// ---- matrix addition over rows: the HCE paper's Fig. 9 loop -----------------

struct RowArgs {
  int64_t n;
};

void matadd_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *args, void *) {
  const double *A = static_cast<const double *>(ptrs[0]);
  const double *B = static_cast<const double *>(ptrs[1]);
  double *C = static_cast<double *>(ptrs[2]);
  const int64_t n = static_cast<const RowArgs *>(args)->n;
#pragma omp parallel for
  for (int64_t i = lb; i < ub; ++i)
    for (int64_t j = 0; j < n; ++j)
      C[i * n + j] = A[i * n + j] + B[i * n + j];
}

hce_cuda_variant matadd_gpu() {
#if HCE_TEST_CUDA_VARIANTS
  return hce_test_matadd_cuda;
#else
  return nullptr;
#endif
}

struct MatAdd {
  int64_t m, n;
  std::vector<double> a, b, c;
  hce_map maps[3];
  RowArgs args;
  void *site = nullptr;
  hce_region region{};

  MatAdd(int64_t m_, int64_t n_, const char *schedule, unsigned seed = 1)
      : m(m_), n(n_), a(hce_test::random_vector(size_t(m * n), seed)),
        b(hce_test::random_vector(size_t(m * n), seed + 1)),
        c(size_t(m * n), -7.0) {
    maps[0] = hce_test::row_map("A", a.data(), HCE_MAP_TO, n);
    maps[1] = hce_test::row_map("B", b.data(), HCE_MAP_TO, n);
    maps[2] = hce_test::row_map("C", c.data(), HCE_MAP_FROM, n);
    args.n = n;
    region.name = "cuda_matadd";
    region.schedule = schedule;
    region.iterations = m;
    region.num_maps = 3;
    region.maps = maps;
    region.args = &args;
    region.args_size = sizeof args;
    region.cpu = matadd_cpu;
    region.cuda = matadd_gpu();
    region.site = &site;
  }
  // Index of the first wrong element, -1 when all are right.
  int64_t first_wrong() const {
    for (int64_t k = 0; k < m * n; ++k)
      if (c[size_t(k)] != a[size_t(k)] + b[size_t(k)])
        return k;
    return -1;
  }
};

// ---- no GPU: one notice, CPU run ----------------------------------------------

// The GPU that is certainly absent: cuda:0 on a machine without one.
std::string absent_gpu() { return "cuda:" + std::to_string(gpu_count()); }

// Runs in a fresh process (threadsafe death test): notices are printed once
// per process, so only a fresh one can show there is exactly one.
[[noreturn]] void fallback_child() {
  const std::string spec = absent_gpu();
  testing::internal::CaptureStderr();
  bool correct = true;
  int64_t cpu_iters = 0;
  for (int round = 0; round < 2; ++round) {
    hce_test::use_devices("cpu," + spec); // restarts the runtime
    for (int rep = 0; rep < 2; ++rep) {
      MatAdd t(97, 13, "fdets", 3 + unsigned(rep));
      correct = correct && hce_co_exec(&t.region) == 0 && t.first_wrong() < 0;
      cpu_iters += hce_last_iterations(&t.site, "cpu");
    }
  }
  const int devices = hce_num_devices();
  std::string err = testing::internal::GetCapturedStderr();
  size_t notices = count_of(err, "hce: note:");
  size_t errors = count_of(err, "error");
  size_t naming = count_of(err, "'" + spec + "'");
  std::fprintf(stderr, "[child] stderr was: %s\n", err.c_str());
  std::fprintf(stderr, "notices=%zu naming=%zu errors=%zu correct=%d cpu_iters=%lld devices=%d\n",
               notices, naming, errors, int(correct), (long long)cpu_iters,
               devices);
  std::exit(0);
}

TEST(CudaFallback, AbsentGpuGivesOneNoticeAndACorrectCpuRun) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fallback_child(), testing::ExitedWithCode(0),
              "notices=1 naming=1 errors=0 correct=1 cpu_iters=388 devices=1");
}

TEST(CudaFallback, OnlyAbsentGpuRequestedRunsOnCpu) {
  const std::string spec = absent_gpu();
  hce_test::use_devices(spec);
  testing::internal::CaptureStderr();
  MatAdd t(120, 9, "static");
  int rc = hce_co_exec(&t.region);
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(rc, 0) << err;
  EXPECT_EQ(t.first_wrong(), -1);
  EXPECT_EQ(hce_last_iterations(&t.site, "cpu"), 120);
  EXPECT_EQ(count_of(err, "hce: error"), 0u) << err;
  EXPECT_EQ(hce_num_devices(), 1);
}

TEST(CudaFallback, DefaultSelectionIsCpuPlusEveryGpu) {
  hce_test::use_devices("");
  testing::internal::CaptureStderr();
  MatAdd t(64, 5, "static");
  int rc = hce_co_exec(&t.region);
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(rc, 0) << err;
  EXPECT_EQ(t.first_wrong(), -1);
  EXPECT_EQ(hce_num_devices(), 1 + gpu_count());
  EXPECT_STREQ(hce_device_name(0), "cpu");
  for (int i = 0; i < gpu_count(); ++i)
    EXPECT_EQ(std::string(hce_device_name(1 + i)), "cuda:" + std::to_string(i));
  EXPECT_EQ(count_of(err, "hce: error"), 0u) << err;
}

#if HCE_WITH_CUDA
TEST(CudaDetect, CountAndReasonAreConsistent) {
  std::string why;
  bool quiet = false;
  int n = hce::cuda_device_count(why, &quiet);
  EXPECT_GE(n, 0);
  if (n == 0)
    EXPECT_FALSE(why.empty());
  else
    EXPECT_TRUE(why.empty()) << why;
#if HCE_TEST_CUDA_VARIANTS
  EXPECT_EQ(n, hce_test_cuda_device_count());
#endif
}

TEST(CudaDetect, PinPolicyNames) {
  unsetenv("HCE_CUDA_PIN");
  hce::Settings s;
  std::string why;
  ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
  EXPECT_EQ(s.cuda_pin, hce::PinPolicy::Region);
  for (const char *p : {"region", "keep", "stage", "off"}) {
    setenv("HCE_CUDA_PIN", p, 1);
    ASSERT_TRUE(hce::Settings::from_env(s, why)) << why;
    EXPECT_STREQ(hce::pin_policy_name(s.cuda_pin), p);
  }
  unsetenv("HCE_CUDA_PIN");
}
#endif

#if HCE_TEST_CUDA_VARIANTS

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    std::string why_;                                                          \
    if (gpu_count(&why_) == 0)                                                 \
      GTEST_SKIP() << "no CUDA device on this machine (" << why_ << ")";      \
  } while (0)

hce::CudaDevice *cuda_device(int ordinal) {
  for (const auto &d : hce::Runtime::get().devices())
    if (d->kind() == hce::DeviceKind::Cuda && d->ordinal() == ordinal)
      return dynamic_cast<hce::CudaDevice *>(d.get());
  return nullptr;
}

// Restarts the runtime on `devices` with the given extra environment.
void restart(const std::string &devices, const char *pin = nullptr,
             const char *limit = nullptr) {
  if (pin)
    setenv("HCE_CUDA_PIN", pin, 1);
  else
    unsetenv("HCE_CUDA_PIN");
  if (limit)
    setenv("HCE_CUDA_MEM_LIMIT", limit, 1);
  else
    unsetenv("HCE_CUDA_MEM_LIMIT");
  hce_test::use_devices(devices);
}

class CudaGpu : public testing::Test {
protected:
  void TearDown() override {
    unsetenv("HCE_CUDA_PIN");
    unsetenv("HCE_CUDA_MEM_LIMIT");
    hce_finalize();
  }
};

using CudaDeviceTest = CudaGpu;
using CudaRegion = CudaGpu;
using CudaData = CudaGpu;

// ---- the device on its own ---------------------------------------------------------

TEST_F(CudaDeviceTest, RoundTripUnderEveryPinPolicy) {
  REQUIRE_GPU();
  // 20 MiB (more than two staging slots) at an odd offset into the array.
  const size_t n = (size_t(20) << 20) / sizeof(double) + 77;
  std::vector<double> src = hce_test::random_vector(n + 5, 21);
  for (const char *pin : {"region", "keep", "stage", "off"}) {
    SCOPED_TRACE(pin);
    restart("cuda:0", pin);
    hce::CudaDevice *dev = cuda_device(0);
    ASSERT_NE(dev, nullptr);
    EXPECT_STREQ(hce::pin_policy_name(dev->pin_policy()), pin);
    const size_t bytes = n * sizeof(double);
    void *d = dev->allocate(bytes);
    ASSERT_NE(d, nullptr);
    std::string why;
    ASSERT_TRUE(dev->upload(d, src.data() + 3, bytes, why)) << why;
    // A second buffer through copy_device, then home.
    void *d2 = dev->allocate(bytes);
    ASSERT_NE(d2, nullptr);
    ASSERT_TRUE(dev->copy_device(d2, d, bytes, why)) << why;
    std::vector<double> back(n, 0.0);
    ASSERT_TRUE(dev->download(back.data(), d2, bytes, why)) << why;
    EXPECT_EQ(std::memcmp(back.data(), src.data() + 3, bytes), 0);
    hce::CudaDevice::PinStats st = hce::CudaDevice::pin_stats();
    if (std::string(pin) == "region" || std::string(pin) == "keep") {
      EXPECT_GE(st.registered_bytes, 2 * bytes);
      EXPECT_EQ(st.staged_bytes, 0u);
    } else if (std::string(pin) == "stage") {
      EXPECT_EQ(st.registered_bytes, 0u);
      EXPECT_GE(st.staged_bytes, 2 * bytes);
    }
    dev->release(d);
    dev->release(d2);
    st = hce::CudaDevice::pin_stats();
    if (std::string(pin) == "region")
      EXPECT_EQ(st.registered_bytes, 0u) << "registrations outlive the device memory";
    if (std::string(pin) == "keep")
      EXPECT_GT(st.registered_bytes, 0u);
  }
}

// A one-shot copy under kPoolMinBytes that no staging pool takes is the
// driver's pageable copy: registering its pages and unregistering them at
// the region's end cost more than the copy (cold lud's first GPU chunk,
// 1.77 MiB: 0.43 ms to register, 0.16 to unregister, call RO).  Every byte
// right, both ways, at an odd offset; nothing registered; a copy across
// pages pinned beforehand still right (the driver refuses a pageable copy
// that runs into registered pages: it goes in pieces).
TEST_F(CudaDeviceTest, ASmallOneShotCopyWithoutAPoolRegistersNothing) {
  REQUIRE_GPU();
  restart("cuda:0");
  hce::CudaDevice *dev = cuda_device(0);
  ASSERT_NE(dev, nullptr);
  dev->set_copy_threads(1); // no pool
  const size_t n = (size_t(3) << 20) / sizeof(double) + 77;
  const size_t bytes = n * sizeof(double);
  std::vector<double> src = hce_test::random_vector(n + 5, 41), back(n + 2, 0.0);
  void *d = dev->allocate(bytes);
  ASSERT_NE(d, nullptr);
  std::string why;
  const hce::CudaDevice::PinStats before = hce::CudaDevice::pin_stats();
  ASSERT_TRUE(dev->upload(d, src.data() + 3, bytes, why)) << why;
  ASSERT_TRUE(dev->download(back.data() + 1, d, bytes, why)) << why;
  EXPECT_EQ(std::memcmp(back.data() + 1, src.data() + 3, bytes), 0);
  EXPECT_EQ(back.front(), 0.0);
  EXPECT_EQ(back.back(), 0.0);
  hce::CudaDevice::PinStats st = hce::CudaDevice::pin_stats();
  EXPECT_EQ(st.registrations, before.registrations) << "a small one-shot copy registered";
  EXPECT_EQ(st.pageable_bytes - before.pageable_bytes, 2 * bytes);
  // Across a pinned stretch in the middle of the host array.
  ASSERT_TRUE(dev->pin_host(src.data() + 3 + n / 3, (n / 4) * sizeof(double)));
  std::vector<double> v = hce_test::random_vector(n, 42);
  std::copy(v.begin(), v.end(), src.begin() + 3);
  ASSERT_TRUE(dev->upload(d, src.data() + 3, bytes, why)) << why;
  std::fill(back.begin(), back.end(), 0.0);
  ASSERT_TRUE(dev->download(back.data() + 1, d, bytes, why)) << why;
  EXPECT_EQ(std::memcmp(back.data() + 1, v.data(), bytes), 0);
  dev->release(d);
}

// A 1-D kernel's lanes: its block on every multiprocessor (the scheduler
// then never probes the GPU with fewer iterations); none for a kernel that
// spreads the inner loop (cuda_block_iterations 0).
TEST_F(CudaDeviceTest, LanesAreTheBlockOnEveryMultiprocessor) {
  REQUIRE_GPU();
  restart("cuda:0");
  hce::CudaDevice *dev = cuda_device(0);
  ASSERT_NE(dev, nullptr);
  // hardware() is "<name>/<multiprocessors>sm".
  const std::string hw = dev->hardware();
  const size_t slash = hw.rfind('/');
  ASSERT_NE(slash, std::string::npos) << hw;
  const int sms = std::atoi(hw.c_str() + slash + 1);
  ASSERT_GT(sms, 0) << hw;
  hce_region r{};
  EXPECT_EQ(dev->lanes(r), 0);
  r.cuda_block_iterations = 256;
  EXPECT_EQ(dev->lanes(r), int64_t(256) * sms);
}

// hce_cuda_host_scratch's block: pinned host memory the GPU reaches at the
// address it gives (a generated variant's copy kernels move its reduction
// slots through it), only for the compute stream and small blocks, and kept
// usable as it grows.
TEST_F(CudaDeviceTest, HostScratchIsMappedForTheComputeStreamOnly) {
  REQUIRE_GPU();
  restart("cuda:0");
  hce::CudaDevice *dev = cuda_device(0);
  ASSERT_NE(dev, nullptr);
  using S = hce::CudaDevice::Stream;
  void *gpu = reinterpret_cast<void *>(1);
  EXPECT_EQ(dev->host_scratch(dev->stream(S::Download), 64, &gpu), nullptr);
  EXPECT_EQ(gpu, nullptr);
  EXPECT_EQ(dev->host_scratch(dev->stream(S::Compute),
                              hce::CudaDevice::kMaxHostScratch + 1, &gpu),
            nullptr);
  for (size_t bytes : {size_t(24), size_t(40000)}) {
    SCOPED_TRACE(bytes);
    void *host = dev->host_scratch(dev->stream(S::Compute), bytes, &gpu);
    ASSERT_NE(host, nullptr);
    ASSERT_NE(gpu, nullptr);
    const std::vector<double> v = hce_test::random_vector(bytes / sizeof(double), 5);
    std::memcpy(host, v.data(), bytes);
    // The GPU's address reads what the host wrote, and its writes are the host's.
    void *d = dev->allocate(bytes);
    ASSERT_NE(d, nullptr);
    ASSERT_EQ(cudaMemcpy(d, gpu, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    std::memset(host, 0, bytes);
    ASSERT_EQ(cudaMemcpy(gpu, d, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    EXPECT_EQ(std::memcmp(host, v.data(), bytes), 0);
    dev->release(d);
  }
}

// hce_cuda_scratch's block (a reduction's slots on the GPU) is made with the
// device, not by a cudaMalloc in a reduction's first chunk; only the compute
// stream gets it, it is kept while big enough and grows when asked for more,
// and the GPU reads back what was written to it.
TEST_F(CudaDeviceTest, TheReductionScratchIsMadeWithTheDevice) {
  REQUIRE_GPU();
  restart("cuda:0");
  hce::CudaDevice *dev = cuda_device(0);
  ASSERT_NE(dev, nullptr);
  using S = hce::CudaDevice::Stream;
  EXPECT_EQ(dev->scratch_bytes(), hce::CudaDevice::kMinScratchBytes);
  EXPECT_EQ(dev->scratch(dev->stream(S::Upload), 64), nullptr);
  void *small = dev->scratch(dev->stream(S::Compute), 64);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(dev->scratch(dev->stream(S::Compute), hce::CudaDevice::kMinScratchBytes),
            small);
  const size_t bytes = 3 * hce::CudaDevice::kMinScratchBytes;
  void *big = dev->scratch(dev->stream(S::Compute), bytes);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(dev->scratch_bytes(), bytes);
  const std::vector<double> v = hce_test::random_vector(bytes / sizeof(double), 11);
  std::vector<double> back(v.size(), 0.0);
  ASSERT_EQ(cudaMemcpy(big, v.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), big, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, v);
}

// Rows of a 2-D section (lud's trailing rows): one strided copy each way,
// under every pin policy, with rows both narrower than a staging slot and,
// for "stage", more rows than one slot holds.  Elements between the rows
// must stay untouched on both sides.
TEST_F(CudaDeviceTest, StridedRowsRoundTripUnderEveryPinPolicy) {
  REQUIRE_GPU();
  const size_t cols = 4099, rows = 1500, first = 7, width = 3001; // doubles
  const size_t n = rows * cols;
  const std::vector<double> src = hce_test::random_vector(n, 33);
  for (const char *pin : {"region", "keep", "stage", "off"}) {
    SCOPED_TRACE(pin);
    restart("cuda:0", pin);
    hce::CudaDevice *dev = cuda_device(0);
    ASSERT_NE(dev, nullptr);
    const size_t bytes = n * sizeof(double);
    void *d = dev->allocate(bytes);
    ASSERT_NE(d, nullptr);
    std::string why;
    // Fill the device with something else first, so the gaps are checkable.
    const std::vector<double> other = hce_test::random_vector(n, 34);
    ASSERT_TRUE(dev->upload(d, other.data(), bytes, why)) << why;
    const size_t off = first * sizeof(double);
    ASSERT_TRUE(dev->upload_blocks(static_cast<char *>(d) + off,
                                   reinterpret_cast<const char *>(src.data()) + off,
                                   width * sizeof(double), cols * sizeof(double), rows, why))
        << why;
    std::vector<double> back(n, -1.0);
    ASSERT_TRUE(dev->download(back.data(), d, bytes, why)) << why;
    std::vector<double> host = hce_test::random_vector(n, 35);
    const std::vector<double> host_before = host;
    ASSERT_TRUE(dev->download_blocks(reinterpret_cast<char *>(host.data()) + off,
                                     static_cast<char *>(d) + off, width * sizeof(double),
                                     cols * sizeof(double), rows, why))
        << why;
    size_t bad_dev = 0, bad_host = 0;
    for (size_t e = 0; e < n; ++e) {
      const size_t c = e % cols;
      const bool in = c >= first && c < first + width;
      bad_dev += back[e] != (in ? src[e] : other[e]);
      bad_host += host[e] != (in ? src[e] : host_before[e]);
    }
    EXPECT_EQ(bad_dev, 0u);
    EXPECT_EQ(bad_host, 0u);
    dev->release(d);
  }
}

TEST_F(CudaDeviceTest, AsyncCopiesOrderedByEvents) {
  REQUIRE_GPU();
  restart("cuda:0");
  hce::CudaDevice *dev = cuda_device(0);
  ASSERT_NE(dev, nullptr);
  const size_t n = size_t(1) << 20;
  std::vector<double> src = hce_test::random_vector(n, 5), dst(n, 0.0);
  void *d = dev->allocate(n * sizeof(double));
  ASSERT_NE(d, nullptr);
  std::string why;
  cudaEvent_t uploaded = dev->acquire_event(why);
  ASSERT_NE(uploaded, nullptr) << why;
  ASSERT_TRUE(dev->upload_async(d, src.data(), n * sizeof(double), why)) << why;
  ASSERT_TRUE(dev->record(uploaded, hce::CudaDevice::Stream::Upload, why)) << why;
  // The download stream waits for the upload on the device, not the host.
  ASSERT_TRUE(dev->stream_wait(hce::CudaDevice::Stream::Download, uploaded, why)) << why;
  ASSERT_TRUE(dev->download_async(dst.data(), d, n * sizeof(double), why)) << why;
  ASSERT_TRUE(dev->synchronize(hce::CudaDevice::Stream::Download, why)) << why;
  bool done = false;
  ASSERT_TRUE(dev->event_done(uploaded, done, why)) << why;
  EXPECT_TRUE(done);
  EXPECT_EQ(dst, src);
  dev->release_event(uploaded);
  dev->release(d);
}

// A copy of pageable memory while the execution leaves host threads free
// (set_copy_threads, region_exec) goes through the staging pool: nothing
// registered, every byte right, pages pinned beforehand still copied
// directly, and the copies ordered on their stream as one would be.
TEST_F(CudaDeviceTest, FreeThreadsStageOneShotCopies) {
  REQUIRE_GPU();
  restart("cuda:0");
  hce::CudaDevice *dev = cuda_device(0);
  ASSERT_NE(dev, nullptr);
  dev->set_copy_threads(4);
  // 80 MiB (more than kPoolMakeBytes: the pool is made; several slots per
  // worker) at an odd offset.
  const size_t n = (size_t(80) << 20) / sizeof(double) + 77;
  const size_t bytes = n * sizeof(double);
  std::vector<double> src = hce_test::random_vector(n + 5, 33);
  // A pinned stretch in the middle (a data region's array would be).
  const size_t pinned_lo = n / 3, pinned_n = n / 8;
  ASSERT_TRUE(dev->pin_host(src.data() + 3 + pinned_lo, pinned_n * sizeof(double)));
  const hce::CudaDevice::PinStats before = hce::CudaDevice::pin_stats();
  void *d = dev->allocate(bytes);
  ASSERT_NE(d, nullptr);
  std::string why;
  ASSERT_TRUE(dev->upload(d, src.data() + 3, bytes, why)) << why;
  std::vector<double> back(n, 0.0);
  ASSERT_TRUE(dev->download(back.data(), d, bytes, why)) << why;
  EXPECT_EQ(std::memcmp(back.data(), src.data() + 3, bytes), 0);
  hce::CudaDevice::PinStats st = hce::CudaDevice::pin_stats();
  EXPECT_EQ(st.registrations, before.registrations) << "the pool registers nothing";
  EXPECT_GE(st.staged_bytes - before.staged_bytes,
            2 * (bytes - pinned_n * sizeof(double)));
  EXPECT_LT(st.staged_bytes - before.staged_bytes, 2 * bytes);

  // Once the pool exists a small copy takes it too (registering a one-shot
  // chunk's 268 KiB-1 MiB pieces cost 0.1-1.5 ms each, call UA): 300 KiB
  // at an odd offset, both ways, into a region of `d` already written.
  const size_t small_n = (size_t(300) << 10) / sizeof(double) + 3, at = 12345;
  // n random doubles from an odd host offset to d + at and back beside
  // guard zeros, every one checked; returns the bytes the copies staged.
  auto round_trip = [&](size_t to, size_t n, int seed) -> uint64_t {
    std::vector<double> v = hce_test::random_vector(n + 1, seed), back(n + 2, 0.0);
    const hce::CudaDevice::PinStats b = hce::CudaDevice::pin_stats();
    EXPECT_TRUE(
        dev->upload(static_cast<double *>(d) + to, v.data() + 1, n * sizeof(double), why))
        << why;
    EXPECT_TRUE(dev->download(back.data() + 1, static_cast<double *>(d) + to,
                              n * sizeof(double), why))
        << why;
    EXPECT_TRUE(std::equal(v.begin() + 1, v.end(), back.begin() + 1));
    EXPECT_EQ(back.front(), 0.0);
    EXPECT_EQ(back.back(), 0.0);
    return hce::CudaDevice::pin_stats().staged_bytes - b.staged_bytes;
  };
  const hce::CudaDevice::PinStats before_small = hce::CudaDevice::pin_stats();
  EXPECT_EQ(round_trip(at, small_n, 35), 2 * small_n * sizeof(double));
  EXPECT_EQ(hce::CudaDevice::pin_stats().registrations, before_small.registrations)
      << "a small copy was registered";

  // Copies of fewer slots than workers are cut into pieces the workers
  // share (StagingPool::piece_bytes): sizes around the pieces' and slots'
  // boundaries, at odd offsets, both ways, with 8 workers and with 3.
  for (const int threads : {8, 3})
    for (const size_t sz :
         {(size_t(256) << 10) + 8, (size_t(1) << 20) + 13 * 8, (size_t(3) << 20) - 8,
          (size_t(5) << 20) + 7 * 8, (size_t(9) << 20) + 8}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, " + std::to_string(sz) +
                   " bytes");
      dev->set_copy_threads(threads);
      const size_t m = sz / sizeof(double);
      EXPECT_EQ(round_trip(4321, m, 37 + int(sz % 11)), 2 * m * sizeof(double));
    }
  dev->set_copy_threads(4);

  // A copy of a few KiB (kmeans' centroids) skips the pool, whose workers
  // all wake for it (0.23-0.33 ms per execution, call ZD): the driver's own
  // copy, both ways, nothing staged or registered.
  const size_t tiny_n = 257, tiny_at = 777;
  std::vector<double> tiny = hce_test::random_vector(tiny_n + 1, 36),
                      tiny_back(tiny_n, 0.0);
  const hce::CudaDevice::PinStats before_tiny = hce::CudaDevice::pin_stats();
  ASSERT_TRUE(dev->upload(static_cast<double *>(d) + tiny_at, tiny.data() + 1,
                          tiny_n * sizeof(double), why))
      << why;
  ASSERT_TRUE(dev->download(tiny_back.data(), static_cast<double *>(d) + tiny_at,
                            tiny_n * sizeof(double), why))
      << why;
  EXPECT_TRUE(std::equal(tiny.begin() + 1, tiny.end(), tiny_back.begin()));
  st = hce::CudaDevice::pin_stats();
  EXPECT_EQ(st.staged_bytes, before_tiny.staged_bytes);
  EXPECT_EQ(st.registrations, before_tiny.registrations);
  EXPECT_EQ(st.pageable_bytes - before_tiny.pageable_bytes, 2 * tiny_n * sizeof(double));
  // ... also across the edge of a registration (the pinned stretch): the
  // driver refuses a pageable copy that runs into registered pages, so it
  // goes in two (call AC: "invalid argument", the chunk re-run on the CPU).
  const double *edge = src.data() + 3 + pinned_lo - 1000; // two pages before
  std::vector<double> edge_back(2000, 0.0);
  ASSERT_TRUE(
      dev->upload(static_cast<double *>(d) + tiny_at, edge, 2000 * sizeof(double), why))
      << why;
  ASSERT_TRUE(dev->download(edge_back.data(), static_cast<double *>(d) + tiny_at,
                            2000 * sizeof(double), why))
      << why;
  EXPECT_TRUE(std::equal(edge_back.begin(), edge_back.end(), edge));

  // Asynchronous: the download stream waits for the upload on the device.
  std::vector<double> src2 = hce_test::random_vector(n, 34), back2(n, 0.0);
  cudaEvent_t uploaded = dev->acquire_event(why);
  ASSERT_NE(uploaded, nullptr) << why;
  ASSERT_TRUE(dev->upload_async(d, src2.data(), bytes, why)) << why;
  // The host array may change once upload_async returns.
  std::vector<double> expect = src2;
  std::fill(src2.begin(), src2.end(), -1.0);
  ASSERT_TRUE(dev->record(uploaded, hce::CudaDevice::Stream::Upload, why)) << why;
  ASSERT_TRUE(dev->stream_wait(hce::CudaDevice::Stream::Download, uploaded, why)) << why;
  ASSERT_TRUE(dev->download_async(back2.data(), d, bytes, why)) << why;
  ASSERT_TRUE(dev->synchronize(hce::CudaDevice::Stream::Download, why)) << why;
  EXPECT_EQ(back2, expect);
  dev->release_event(uploaded);
  dev->release(d);
  dev->unpin_host(src.data() + 3 + pinned_lo, pinned_n * sizeof(double));
}

// The staging pool moves an upload and a download at once (a pipelined
// GPU's chunk k+1 going up while chunk k comes home), sharing its workers:
// sizes of one piece, of fewer slots than workers and of many slots, odd
// lengths, with 8 workers and 3, each way's bytes checked.
TEST_F(CudaDeviceTest, StagingPoolMovesAnUploadAndADownloadAtOnce) {
  REQUIRE_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaStream_t up_stream = nullptr, down_stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&up_stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&down_stream, cudaStreamNonBlocking), cudaSuccess);
  for (const int threads : {8, 3}) {
    std::string why;
    auto pool = hce::StagingPool::create(0, threads, why);
    ASSERT_NE(pool, nullptr) << why;
    for (const size_t n :
         {size_t(33) << 10, (size_t(1) << 17) + 3, (size_t(5) << 20) + 11}) {
      SCOPED_TRACE(std::to_string(threads) + " workers, " + std::to_string(n) +
                   " doubles");
      const size_t bytes = n * sizeof(double);
      void *d_up = nullptr, *d_down = nullptr;
      ASSERT_EQ(cudaMalloc(&d_up, bytes), cudaSuccess);
      ASSERT_EQ(cudaMalloc(&d_down, bytes), cudaSuccess);
      for (unsigned rep = 0; rep < 3; ++rep) {
        const std::vector<double> going = hce_test::random_vector(n, 90 + rep),
                                  coming = hce_test::random_vector(n, 190 + rep);
        ASSERT_EQ(cudaMemcpy(d_down, coming.data(), bytes, cudaMemcpyHostToDevice),
                  cudaSuccess);
        std::vector<double> home(n, -1.0);
        std::string down_why;
        bool down_ok = false;
        std::thread downloader([&] {
          down_ok = cudaSetDevice(0) == cudaSuccess &&
                    pool->download(reinterpret_cast<char *>(home.data()),
                                   static_cast<const char *>(d_down), bytes, threads,
                                   down_stream, down_why) &&
                    cudaStreamSynchronize(down_stream) == cudaSuccess;
        });
        const bool up_ok = pool->upload(static_cast<char *>(d_up),
                                        reinterpret_cast<const char *>(going.data()),
                                        bytes, threads, up_stream, why) &&
                           cudaStreamSynchronize(up_stream) == cudaSuccess;
        downloader.join();
        ASSERT_TRUE(up_ok) << why;
        ASSERT_TRUE(down_ok) << down_why;
        EXPECT_EQ(home, coming) << "the download beside an upload";
        std::vector<double> sent(n, -1.0);
        ASSERT_EQ(cudaMemcpy(sent.data(), d_up, bytes, cudaMemcpyDeviceToHost),
                  cudaSuccess);
        EXPECT_EQ(sent, going) << "the upload beside a download";
      }
      cudaFree(d_up);
      cudaFree(d_down);
    }
  }
  cudaStreamDestroy(up_stream);
  cudaStreamDestroy(down_stream);
}

// A strided copy of a few rows far apart registers only what it must: not
// the span between them (two halo rows of a 128 MiB array cost 9-15 ms to
// register on the H100, call IC).  A few rows (a halo) go as the driver's
// pageable copy, more through the staging buffers; rows filling most of
// their span still register it and go as one 2-D copy.
TEST_F(CudaDeviceTest, SparseStridedRowsDoNotPinTheirSpan) {
  REQUIRE_GPU();
  restart("cuda:0");
  hce::CudaDevice *dev = cuda_device(0);
  ASSERT_NE(dev, nullptr);
  const size_t pitch = size_t(8) << 20, width = 4096, count = 3; // 16 MiB + a row
  const size_t span = pitch * (count - 1) + width;
  std::vector<char> src(span), back(span, 0);
  const std::vector<double> noise = hce_test::random_vector(span / sizeof(double), 51);
  std::memcpy(src.data(), noise.data(), span);
  void *d = dev->allocate(span);
  ASSERT_NE(d, nullptr);
  std::string why;
  hce::CudaDevice::PinStats before = hce::CudaDevice::pin_stats();
  ASSERT_TRUE(dev->upload_blocks(d, src.data(), width, pitch, count, why)) << why;
  ASSERT_TRUE(dev->download_blocks(back.data(), d, width, pitch, count, why)) << why;
  hce::CudaDevice::PinStats st = hce::CudaDevice::pin_stats();
  EXPECT_EQ(st.registrations, before.registrations) << "the span was registered";
  EXPECT_GE(st.pageable_bytes - before.pageable_bytes, 2 * width * count);
  EXPECT_EQ(st.staged_bytes, before.staged_bytes) << "a halo made staging buffers";
  for (size_t b = 0; b < count; ++b)
    EXPECT_EQ(std::memcmp(back.data() + b * pitch, src.data() + b * pitch, width), 0)
        << "row " << b;

  // Wider sparse rows (two of 768 KiB): through the staging buffers.
  const size_t wide = size_t(768) << 10;
  std::fill(back.begin(), back.end(), 0);
  before = hce::CudaDevice::pin_stats();
  ASSERT_TRUE(dev->upload_blocks(d, src.data(), wide, pitch, count - 1, why)) << why;
  ASSERT_TRUE(dev->download_blocks(back.data(), d, wide, pitch, count - 1, why)) << why;
  st = hce::CudaDevice::pin_stats();
  EXPECT_EQ(st.registrations, before.registrations) << "the span was registered";
  EXPECT_GE(st.staged_bytes - before.staged_bytes, 2 * wide * (count - 1));
  for (size_t b = 0; b + 1 < count; ++b)
    EXPECT_EQ(std::memcmp(back.data() + b * pitch, src.data() + b * pitch, wide), 0)
        << "wide row " << b;

  // Dense rows: three quarters of each pitch move, the span is registered.
  const size_t dense = pitch / 4 * 3;
  std::fill(back.begin(), back.end(), 0);
  before = hce::CudaDevice::pin_stats();
  ASSERT_TRUE(dev->upload_blocks(d, src.data(), dense, pitch, count - 1, why)) << why;
  ASSERT_TRUE(dev->download_blocks(back.data(), d, dense, pitch, count - 1, why)) << why;
  st = hce::CudaDevice::pin_stats();
  EXPECT_GT(st.registrations, before.registrations);
  for (size_t b = 0; b + 1 < count; ++b)
    EXPECT_EQ(std::memcmp(back.data() + b * pitch, src.data() + b * pitch, dense), 0)
        << "dense row " << b;
  dev->release(d);
}

TEST_F(CudaDeviceTest, OutOfMemoryAndCapGiveNull) {
  REQUIRE_GPU();
  restart("cuda:0", nullptr, "1M");
  hce::CudaDevice *dev = cuda_device(0);
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->memory_limit(), size_t(1) << 20);
  EXPECT_EQ(dev->allocate(size_t(2) << 20), nullptr);
  void *a = dev->allocate(size_t(512) << 10);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(dev->allocate(size_t(600) << 10), nullptr);
  dev->release(a);
  EXPECT_EQ(dev->bytes_allocated(), 0u);

  restart("cuda:0");
  dev = cuda_device(0);
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->allocate(size_t(1) << 52), nullptr); // 4 PiB: cudaMalloc fails
  void *b = dev->allocate(4096);                       // and the error is cleared
  ASSERT_NE(b, nullptr);
  std::vector<double> x = hce_test::random_vector(512, 2), y(512);
  std::string why;
  ASSERT_TRUE(dev->upload(b, x.data(), 4096, why)) << why;
  ASSERT_TRUE(dev->download(y.data(), b, 4096, why)) << why;
  EXPECT_EQ(x, y);
  dev->release(b);
}

TEST_F(CudaDeviceTest, PeerAccessIsRecordedBothWays) {
  REQUIRE_GPU();
  if (gpu_count() < 2)
    GTEST_SKIP() << "one CUDA device: no peers";
  restart("cuda");
  hce::CudaDevice *d0 = cuda_device(0), *d1 = cuda_device(1);
  ASSERT_TRUE(d0 && d1);
  EXPECT_EQ(d0->has_peer_access(1), d1->has_peer_access(0));
  // A peer copy is correct whatever the topology.
  std::vector<double> x = hce_test::random_vector(1 << 16, 8), y(1 << 16);
  const size_t bytes = x.size() * sizeof(double);
  void *a = d0->allocate(bytes), *b = d1->allocate(bytes);
  ASSERT_TRUE(a && b);
  std::string why;
  ASSERT_TRUE(d0->upload(a, x.data(), bytes, why)) << why;
  ASSERT_TRUE(d1->copy_from_peer_async(b, *d0, a, bytes, why)) << why;
  ASSERT_TRUE(d1->synchronize(hce::CudaDevice::Stream::Upload, why)) << why;
  ASSERT_TRUE(d1->download(y.data(), b, bytes, why)) << why;
  EXPECT_EQ(x, y);
  d0->release(a);
  d1->release(b);
}

// ---- regions -----------------------------------------------------------------------

TEST_F(CudaRegion, MatrixAdditionOnCudaOnlyEveryScheduler) {
  REQUIRE_GPU();
  for (const std::string &s : hce::scheduler_names()) {
    SCOPED_TRACE(s);
    restart("cuda:0");
    MatAdd t(1031, 67, s.c_str(), 11);
    ASSERT_EQ(hce_co_exec(&t.region), 0);
    EXPECT_EQ(t.first_wrong(), -1);
    EXPECT_EQ(hce_last_iterations(&t.site, "cuda:0"), 1031);
  }
}

// The GPU alone (no CPU team at work) stages a one-shot region's copies by
// the host's free threads; beside the CPU's chunks it registers them.  (A
// copy of 64 MiB or more makes the pool; smaller ones register until then:
// the second region.)
TEST_F(CudaRegion, AGpuAloneStagesItsCopiesByTheFreeCores) {
  REQUIRE_GPU();
  restart("cuda:0");
  MatAdd small(1024, 1024, "static", 16); // 8 MiB per array: no pool yet
  hce::CudaDevice::PinStats before = hce::CudaDevice::pin_stats();
  ASSERT_EQ(hce_co_exec(&small.region), 0);
  EXPECT_EQ(small.first_wrong(), -1);
  EXPECT_EQ(hce::CudaDevice::pin_stats().staged_bytes, before.staged_bytes);
  MatAdd alone(2304, 4096, "static", 17); // 72 MiB per array
  before = hce::CudaDevice::pin_stats();
  ASSERT_EQ(hce_co_exec(&alone.region), 0);
  EXPECT_EQ(alone.first_wrong(), -1);
  EXPECT_EQ(hce_last_iterations(&alone.site, "cuda:0"), 2304);
  hce::CudaDevice::PinStats st = hce::CudaDevice::pin_stats();
  EXPECT_GE(st.staged_bytes - before.staged_bytes, 3 * alone.a.size() * sizeof(double));
  EXPECT_EQ(st.registrations, before.registrations);

  restart("cpu,cuda:0");
  MatAdd both(1024, 4096, "static", 18);
  before = hce::CudaDevice::pin_stats();
  ASSERT_EQ(hce_co_exec(&both.region), 0);
  EXPECT_EQ(both.first_wrong(), -1);
  ASSERT_GT(hce_last_iterations(&both.site, "cuda:0"), 0);
  ASSERT_GT(hce_last_iterations(&both.site, "cpu"), 0);
  st = hce::CudaDevice::pin_stats();
  EXPECT_EQ(st.staged_bytes, before.staged_bytes);
  EXPECT_GT(st.registrations, before.registrations);
}

// A GPU working alone on a one-shot region whose output the program never
// touched (fresh from mmap): the prefaulter faults the output's pages in
// while the GPU uploads and computes, and every element is right.  Beside
// the CPU's chunks it starts only once the CPU retires (eft: a lending CPU
// under half the GPU's rate, 1763936), its team asleep: on the H100 it does
// in this region (call RF1, 37748736 bytes faulted).
TEST_F(CudaRegion, AGpuAlonesUntouchedOutputIsFaultedInAhead) {
  REQUIRE_GPU();
  for (const char *devices : {"cuda:0", "cpu,cuda:0"}) {
    SCOPED_TRACE(devices);
    restart(devices);
    MatAdd t(2304, 4096, "static", 23); // 72 MiB per array
    const size_t bytes = t.c.size() * sizeof(double);
    hce_test::FreshMapping fresh(bytes);
    ASSERT_NE(fresh.p, MAP_FAILED);
    double *c = reinterpret_cast<double *>(fresh.p);
    t.maps[2] = hce_test::row_map("C", c, HCE_MAP_FROM, t.n);
    ASSERT_EQ(hce_co_exec(&t.region), 0);
    for (size_t k = 0; k < t.c.size(); ++k)
      ASSERT_EQ(c[k], t.a[k] + t.b[k]) << "element " << k;
    const size_t faulted = hce::Runtime::get().prefaulter().total_bytes();
    if (std::string(devices) == "cuda:0") {
      EXPECT_EQ(hce_last_iterations(&t.site, "cuda:0"), t.m);
      EXPECT_GT(faulted, 0u); // pieces no thread took by the end are dropped
      EXPECT_LE(faulted, bytes);
    } else {
      ASSERT_GT(hce_last_iterations(&t.site, "cpu"), 0);
      ASSERT_GT(hce_last_iterations(&t.site, "cuda:0"), 0);
      EXPECT_LE(faulted, bytes);
    }
  }
}

// A program that exits with the runtime alive shuts it down from an atexit
// handler.  With HCE_CUDA_PIN=keep its registrations were still there, and
// unregistering them went through a table already destroyed: matadd exited
// on SIGSEGV on the H200 (call MD), as every policy-keep program did.
void exit_with_registrations_kept() {
  restart("cuda:0", "keep");
  MatAdd t(1031, 67, "static", 19);
  if (hce_co_exec(&t.region) != 0 || t.first_wrong() != -1 ||
      hce::CudaDevice::pin_stats().registrations == 0)
    std::exit(3); // no registration kept: the test would prove nothing
  std::exit(0);   // no hce_finalize(): the atexit handler shuts down
}

TEST_F(CudaRegion, AProgramExitsCleanlyWithItsRegistrationsKept) {
  REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exit_with_registrations_kept(), testing::ExitedWithCode(0), "");
}

TEST_F(CudaRegion, MatrixAdditionOnCpuAndCudaEveryScheduler) {
  REQUIRE_GPU();
  for (const std::string &s : hce::scheduler_names()) {
    SCOPED_TRACE(s);
    restart("cpu,cuda:0");
    MatAdd t(2053, 129, s.c_str(), 13);
    for (int rep = 0; rep < 2; ++rep) { // the second run learns from the first
      std::fill(t.c.begin(), t.c.end(), -7.0);
      ASSERT_EQ(hce_co_exec(&t.region), 0);
      EXPECT_EQ(t.first_wrong(), -1);
      EXPECT_EQ(hce_last_iterations(&t.site, "cpu") +
                    hce_last_iterations(&t.site, "cuda:0"),
                2053);
    }
  }
}

TEST_F(CudaRegion, MatrixAdditionOnEveryDetectedDevice) {
  REQUIRE_GPU();
  restart("");
  MatAdd t(4099, 255, "hguided", 17);
  ASSERT_EQ(hce_co_exec(&t.region), 0);
  EXPECT_EQ(t.first_wrong(), -1);
  int64_t total = hce_last_iterations(&t.site, "cpu");
  for (int g = 0; g < gpu_count(); ++g)
    total += hce_last_iterations(&t.site, ("cuda:" + std::to_string(g)).c_str());
  EXPECT_EQ(total, 4099);
}

void sum_cpu(int64_t lb, int64_t ub, void *const *ptrs, const void *, void *red) {
  const double *x = static_cast<const double *>(ptrs[0]);
  double s = *static_cast<double *>(red);
#pragma omp parallel for reduction(+ : s)
  for (int64_t i = lb; i < ub; ++i)
    s += x[i];
  *static_cast<double *>(red) = s;
}

TEST_F(CudaRegion, SumReductionOnCpuAndCudaEveryScheduler) {
  REQUIRE_GPU();
  const int64_t n = 1000003;
  std::vector<double> x = hce_test::random_vector(size_t(n), 31);
  double ref = 2.5;
  for (double v : x)
    ref += v;
  for (const std::string &s : hce::scheduler_names()) {
    for (const char *devs : {"cuda:0", "cpu,cuda:0"}) {
      SCOPED_TRACE(s + " on " + devs);
      restart(devs);
      double sum = 2.5;
      hce_map map{"x", x.data(), sizeof(double), HCE_MAP_TO, 1, 0, 1, 1, 0};
      hce_reduction red{"sum", &sum, HCE_RED_ADD, HCE_TYPE_F64};
      hce_region r{};
      r.name = "cuda_sum";
      r.schedule = s.c_str();
      r.iterations = n;
      r.num_maps = 1;
      r.maps = &map;
      r.num_reductions = 1;
      r.reductions = &red;
      r.cpu = sum_cpu;
      r.cuda = hce_test_sum_cuda;
      ASSERT_EQ(hce_co_exec(&r), 0);
      EXPECT_NEAR(sum, ref, 1e-9 * double(n));
    }
  }
}

TEST_F(CudaRegion, FailingVariantIsRerunOnCpu) {
  REQUIRE_GPU();
  restart("cpu,cuda:0");
  MatAdd t(300, 31, "static", 19);
  t.region.cuda = hce_test_failing_cuda;
  testing::internal::CaptureStderr();
  int rc = hce_co_exec(&t.region);
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(rc, 0) << err;
  EXPECT_EQ(t.first_wrong(), -1);
  EXPECT_NE(err.find("cuda:0"), std::string::npos) << err;
  EXPECT_NE(err.find("returned 7"), std::string::npos) << err;
}

// ---- Jacobi in a data region ----------------------------------------------------------

using hce_test::jacobi::first_mismatch;
using hce_test::jacobi::Moved;
constexpr auto jacobi_reference = hce_test::jacobi::reference;

// Jacobi in a data region on the selected devices, with the CUDA variants.
Moved run_jacobi(std::vector<double> &a, int64_t m, int64_t n, int steps,
                 const char *schedule) {
  hce_test::jacobi::Variants v;
  v.sweep_cuda = hce_test_sweep_cuda;
  v.copy_cuda = hce_test_copy_back_cuda;
  return hce_test::jacobi::run(a, m, n, steps, schedule, nullptr, v, "cuda");
}

TEST_F(CudaData, JacobiOnCpuAndCudaMatchesSequentialEveryScheduler) {
  REQUIRE_GPU();
  const int64_t m = 514, n = 96;
  const int steps = 8;
  std::vector<double> a0 = hce_test::random_vector(size_t(m * n), 41);
  std::vector<double> ref = jacobi_reference(a0, m, n, steps);
  for (const std::string &s : hce::scheduler_names()) {
    SCOPED_TRACE(s);
    restart("cpu,cuda:0");
    std::vector<double> a = a0;
    run_jacobi(a, m, n, steps, s.c_str());
    EXPECT_EQ(first_mismatch(a, ref), -1);
  }
}

// Beside the CPU the GPU registers the data region's arrays, and once its
// rows of a sweep are done it gets the CPU's rows of A in the background
// (DataEnv::prefetch): they land while the CPU works, and the sweeps stay
// right although the CPU writes those rows in the next one.
TEST_F(CudaData, TheCpusRowsReachTheGpuInTheBackground) {
  REQUIRE_GPU();
  const int64_t m = 1026, n = 256;
  const int steps = 6;
  std::vector<double> a0 = hce_test::random_vector(size_t(m * n), 43);
  std::vector<double> ref = jacobi_reference(a0, m, n, steps);
  restart("cpu,cuda:0");
  hce_test::ScopedEnv keep_both("HCE_MIN_SHARE", "0");
  std::vector<double> a = a0;
  Moved moved = run_jacobi(a, m, n, steps, "static");
  EXPECT_EQ(first_mismatch(a, ref), -1);
  EXPECT_GT(moved.accel_iterations, 0);
  hce::CudaDevice *gpu = cuda_device(0);
  ASSERT_NE(gpu, nullptr);
  EXPECT_GT(gpu->background_bytes(), 0u) << "nothing was copied in the background";
}

// Jacobi on the GPU alone over m x n doubles, checked: no array registered,
// and A up, A and B home at the data region's end staged.
void expect_staged_not_registered(int64_t m, int64_t n, unsigned seed) {
  const int steps = 2;
  std::vector<double> a0 = hce_test::random_vector(size_t(m * n), seed);
  std::vector<double> ref = jacobi_reference(a0, m, n, steps);
  std::vector<double> a = a0;
  const hce::CudaDevice::PinStats before = hce::CudaDevice::pin_stats();
  Moved moved = run_jacobi(a, m, n, steps, "static");
  const hce::CudaDevice::PinStats st = hce::CudaDevice::pin_stats();
  EXPECT_EQ(first_mismatch(a, ref), -1);
  EXPECT_EQ(moved.accel_iterations, steps * (m - 2));
  EXPECT_EQ(st.registrations, before.registrations) << "an array was registered";
  EXPECT_GE(st.staged_bytes - before.staged_bytes, 3 * a.size() * sizeof(double));
}

// The GPU alone (the host's cores free to stage) does not register a data
// region's arrays: staging them by the free cores costs less than
// registering them (~70-85 ms/GiB on the H100, call IC) when they cross
// the link once each way.  (64 MiB arrays: the first upload makes the pool.)
TEST_F(CudaData, AGpuAloneStagesADataRegionsArraysInsteadOfPinningThem) {
  REQUIRE_GPU();
  restart("cuda:0");
  expect_staged_not_registered(8200, 1024, 47); // 64 MiB and a few rows per array
}

// Arrays under 64 MiB each that together are worth the pool are staged
// too: cg's GPU alone registered its 36 and 8 MiB arrays for 7.9 ms before
// its first upload on the H200 (call OA).
TEST_F(CudaData, AGpuAloneStagesSmallerArraysThatTogetherMakeThePool) {
  REQUIRE_GPU();
  restart("cuda:0");
  expect_staged_not_registered(5130, 1024, 59); // two 40 MiB arrays
}

TEST_F(CudaData, IncrementalMovesFarLessThanCoOff) {
  REQUIRE_GPU();
  const int64_t m = 1026, n = 256;
  const int steps = 20;
  std::vector<double> a0 = hce_test::random_vector(size_t(m * n), 43);
  std::vector<double> ref = jacobi_reference(a0, m, n, steps);
  // Both devices in every execution of both regions: with HCE_MIN_SHARE's
  // default a region may leave the CPU out on its measured share while the
  // other keeps it, and then each step moves the CPU's rows of both arrays
  // (call AF: 36.7 MB in 20 steps, ~1.8 MB a step, intermittently).  What
  // is measured here is the incremental copies of a fixed partition.
  hce_test::ScopedEnv keep_both("HCE_MIN_SHARE", "0");

  restart("cpu,cuda:0");
  std::vector<double> a = a0;
  Moved with_co = run_jacobi(a, m, n, steps, "static");
  EXPECT_EQ(first_mismatch(a, ref), -1) << "incremental";
  EXPECT_GT(with_co.accel_iterations, 0);

  restart("cpu,cuda:0");
  setenv("HCE_CO", "off", 1);
  a = a0;
  Moved without = run_jacobi(a, m, n, steps, "static");
  unsetenv("HCE_CO");
  EXPECT_EQ(first_mismatch(a, ref), -1) << "HCE_CO=off";

  const uint64_t w = with_co.to + with_co.from, wo = without.to + without.from;
  EXPECT_GT(wo, 0u);
  EXPECT_LE(w * 10, wo) << "incremental moved " << w << " bytes, HCE_CO=off " << wo;
  EXPECT_GT(with_co.avoided, 0u);
}

TEST_F(CudaData, HaloRowsGoPeerToPeerBetweenTwoGpus) {
  REQUIRE_GPU();
  if (gpu_count(nullptr) < 2)
    GTEST_SKIP() << "needs two GPUs";
  restart("cuda:0,cuda:1");
  hce::CudaDevice *g0 = cuda_device(0);
  ASSERT_NE(g0, nullptr);
  if (!g0->has_peer_access(1))
    GTEST_SKIP() << "no peer access between cuda:0 and cuda:1";
  const int64_t m = 1026, n = 256;
  const int steps = 10;
  std::vector<double> a0 = hce_test::random_vector(size_t(m * n), 53);
  std::vector<double> ref = jacobi_reference(a0, m, n, steps);
  Moved t[2];
  for (int p2p = 0; p2p < 2; ++p2p) {
    SCOPED_TRACE(p2p ? "peer to peer" : "HCE_CUDA_P2P=0");
    setenv("HCE_CUDA_P2P", p2p ? "1" : "0", 1);
    restart("cuda:0,cuda:1");
    std::vector<double> a = a0;
    t[p2p] = run_jacobi(a, m, n, steps, "static");
    EXPECT_EQ(first_mismatch(a, ref), -1);
  }
  unsetenv("HCE_CUDA_P2P");
  EXPECT_EQ(t[0].peer, 0u);
  EXPECT_GT(t[1].peer, 0u);
  EXPECT_LT(t[1].to + t[1].from, t[0].to + t[0].from);
}

TEST_F(CudaData, MemoryCapStillGivesTheRightResult) {
  REQUIRE_GPU();
  // Rows of 128 bytes; 32 KiB of device memory holds a few dozen rows of the
  // two arrays, so windows shrink and chunks that cannot fit go to the CPU.
  const int64_t m = 2002, n = 16;
  const int steps = 3;
  std::vector<double> a0 = hce_test::random_vector(size_t(m * n), 47);
  std::vector<double> ref = jacobi_reference(a0, m, n, steps);
  for (const char *devs : {"cpu,cuda:0", "cuda:0"}) {
    SCOPED_TRACE(devs);
    restart(devs, nullptr, "32768");
    hce::CudaDevice *dev = cuda_device(0);
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->memory_limit(), 32768u);
    std::vector<double> a = a0;
    testing::internal::CaptureStderr();
    Moved moved = run_jacobi(a, m, n, steps, "fdets");
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(first_mismatch(a, ref), -1) << err;
    if (std::string(devs) == "cuda:0") // alone, it must have done some rows
      EXPECT_GT(moved.accel_iterations, 0) << err;
    EXPECT_EQ(dev->bytes_allocated(), 0u);
  }
}

#endif // HCE_TEST_CUDA_VARIANTS

} // namespace
