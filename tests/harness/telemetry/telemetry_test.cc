// Telemetry: the kernel counters' parsers on synthetic text, the rates between two snapshots, the
// sampler on a synthetic /proc and /sys, and the samples in a run's report.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "harness/telemetry/proc_stats.h"
#include "harness/telemetry/sample.h"
#include "harness/telemetry/sampler.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(TelemetryParse, ProcStatMeminfoAndDiskstats) {
  CpuSnapshot cpu;
  ASSERT_TRUE(parse_proc_stat("cpu  100 5 30 800 40 1 2 0 0 0\ncpu0 60 5 20 400 10 1 2 0 0 0\n"
                              "cpu1 40 0 10 400 30 0 0 0 0 0\nintr 1 2 3\n",
                              &cpu));
  EXPECT_EQ(cpu.all.user, 100u);
  EXPECT_EQ(cpu.all.iowait, 40u);
  EXPECT_EQ(cpu.all.total(), 978u);
  EXPECT_EQ(cpu.all.busy(), 978u - 800 - 40);
  ASSERT_EQ(cpu.cores.size(), 2u);
  EXPECT_EQ(cpu.cores[1].iowait, 30u);
  EXPECT_FALSE(parse_proc_stat("intr 1 2\n", &cpu));

  MemSnapshot mem;
  ASSERT_TRUE(parse_meminfo("MemTotal:  1000 kB\nMemFree: 1 kB\nMemAvailable:   600 kB\nCached: 300 kB\n"
                            "Dirty: 20 kB\nWriteback: 4 kB\n",
                            &mem));
  EXPECT_EQ(mem.total, 1000u * 1024);
  EXPECT_EQ(mem.available, 600u * 1024);
  EXPECT_EQ(mem.dirty, 20u * 1024);
  EXPECT_FALSE(parse_meminfo("Cached: 300 kB\n", &mem));

  std::map<std::string, DiskSnapshot> disks;
  parse_diskstats(" 253 0 vda 10 0 80 5 20 0 160 7 3 900 12 0 0 0 0\n 253 1 vda1 1 0 8 0 2 0 16 0 0 9 0\n"
                  " 8 0 sda 1 0 8 0 2 0 16 0 0 9 0 0 0 0 0\n",
                  {"vda", "nvme9n1"}, &disks);
  ASSERT_EQ(disks.size(), 1u);  // only the devices asked for, and only those listed
  EXPECT_EQ(disks["vda"].reads, 10u);
  EXPECT_EQ(disks["vda"].read_bytes, 80u * 512);
  EXPECT_EQ(disks["vda"].write_bytes, 160u * 512);
  EXPECT_EQ(disks["vda"].in_flight, 3u);
  EXPECT_EQ(disks["vda"].io_ticks_ms, 900u);
}

TEST(TelemetryParse, ProcessTicksCountFromTheLastParenthesis) {
  uint64_t ticks = 0;
  // A command name with a space and a ')' in it must not shift the fields.
  ASSERT_TRUE(parse_process_ticks("4242 (io fab) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 "
                                  "70 30 0 0 20 0 3 0 12345 0 0",
                                  &ticks));
  EXPECT_EQ(ticks, 100u);
  EXPECT_FALSE(parse_process_ticks("4242 (iofab) S 1", &ticks));
}

TEST(TelemetryParse, NetworkAndInfinibandCountersFromSysfs) {
  TempDir dir("/dev/shm");
  const std::string net = dir.path() + "/class/net";
  for (const char* iface : {"eth0", "ib0", "lo"}) {
    fs::create_directories(net + "/" + iface + "/statistics");
    write_file(net + "/" + iface + "/statistics/rx_bytes", "1000\n");
    write_file(net + "/" + iface + "/statistics/tx_bytes", "10\n");
  }
  const NetSnapshot n = read_net(net);
  EXPECT_EQ(n.rx, 2000u);  // loopback left out
  EXPECT_EQ(n.tx, 20u);
  bool present = true;
  read_ib(dir.path() + "/class/infiniband", &present);
  EXPECT_FALSE(present);
  const std::string port = dir.path() + "/class/infiniband/mlx5_0/ports/1/counters";
  fs::create_directories(port);
  write_file(port + "/port_rcv_data", "250\n");
  write_file(port + "/port_xmit_data", "5\n");
  const NetSnapshot ib = read_ib(dir.path() + "/class/infiniband", &present);
  EXPECT_TRUE(present);
  EXPECT_EQ(ib.rx, 1000u);  // 4-byte words
  EXPECT_EQ(ib.tx, 20u);
}

HostSnapshot snapshot(uint64_t t_ns, CpuTimes all, std::vector<CpuTimes> cores, DiskSnapshot disk) {
  HostSnapshot s;
  s.t_ns = t_ns;
  s.cpu.all = all;
  s.cpu.cores = std::move(cores);
  s.mem = {.total = 1000, .available = 400, .cached = 100, .dirty = 10, .writeback = 1};
  s.disks["vda"] = disk;
  return s;
}

TEST(TelemetrySample, RatesBetweenTwoSnapshots) {
  const HostSnapshot a = snapshot(1'000'000'000, {.user = 100, .system = 50, .idle = 800, .iowait = 50},
                                  {{.user = 50, .idle = 450}, {.user = 50, .system = 50, .idle = 350, .iowait = 50}},
                                  {.read_bytes = 0, .write_bytes = 0, .reads = 0, .writes = 0, .io_ticks_ms = 0});
  // 2 s later: 200 more ticks of user, 100 of iowait, 700 idle over 1000; core 0 busier.
  const HostSnapshot b =
      snapshot(3'000'000'000, {.user = 300, .system = 50, .idle = 1500, .iowait = 150},
               {{.user = 230, .idle = 770}, {.user = 70, .system = 50, .idle = 730, .iowait = 150}},
               {.read_bytes = 4'000'000, .write_bytes = 0, .reads = 100, .writes = 0, .in_flight = 7,
                .io_ticks_ms = 5000});
  const TelemetrySample s = make_sample(a, b, 0);
  EXPECT_DOUBLE_EQ(s.seconds, 2.0);
  EXPECT_DOUBLE_EQ(s.t_s, 3.0);
  EXPECT_DOUBLE_EQ(s.cpu_user, 0.2);
  EXPECT_DOUBLE_EQ(s.cpu_iowait, 0.1);
  EXPECT_DOUBLE_EQ(s.cpu_system, 0.0);
  EXPECT_EQ(s.busiest_core_index, 0);
  EXPECT_DOUBLE_EQ(s.busiest_core, 180.0 / 500);
  EXPECT_EQ(s.mem_used, 600u);
  ASSERT_EQ(s.disks.size(), 1u);
  EXPECT_DOUBLE_EQ(s.disks[0].read_bps, 2'000'000);
  EXPECT_DOUBLE_EQ(s.disks[0].read_iops, 50);
  EXPECT_DOUBLE_EQ(s.disks[0].util, 1.0);  // 5 s of ticks in 2 s: clamped
  EXPECT_EQ(s.disks[0].in_flight, 7u);
  // A counter that went backwards (a device re-added) reads as nothing moved.
  const TelemetrySample back = make_sample(b, a, 0);
  EXPECT_DOUBLE_EQ(back.cpu_user, 0.0);
  EXPECT_FALSE(back.ib_rx_bps.has_value());
}

TEST(TelemetrySampler, SamplesASyntheticHostUntilStopped) {
  TempDir dir("/dev/shm");
  fs::create_directories(dir.path() + "/proc");
  fs::create_directories(dir.path() + "/sys/class/net/eth0/statistics");
  write_file(dir.path() + "/proc/stat", "cpu  1 0 1 10 0 0 0 0 0 0\ncpu0 1 0 1 10 0 0 0 0 0 0\n");
  write_file(dir.path() + "/proc/meminfo", "MemTotal: 100 kB\nMemAvailable: 50 kB\n");
  write_file(dir.path() + "/sys/class/net/eth0/statistics/rx_bytes", "0");
  write_file(dir.path() + "/sys/class/net/eth0/statistics/tx_bytes", "0");
  TelemetrySampler sampler(
      {.interval_s = 0.05, .devices = {}, .proc = dir.path() + "/proc", .sys = dir.path() + "/sys", .gpus = false});
  sampler.start();
  // stop() takes a last sample whenever it comes: at least one, however loaded the machine is.
  sampler.stop();
  ASSERT_FALSE(sampler.samples().empty());
  double last = 0;
  for (const TelemetrySample& s : sampler.samples()) {
    EXPECT_GT(s.seconds, 0);
    EXPECT_GT(s.t_s, last);
    last = s.t_s;
    EXPECT_EQ(s.mem_used, 50u * 1024);
  }
  EXPECT_EQ(sampler.gpu_skip_reason(), "GPU telemetry off");
  const json j = telemetry_json(sampler, 0.05);
  EXPECT_EQ(j["samples"].size(), sampler.samples().size());
  EXPECT_GE(j["sampler_cpu_fraction"].get<double>(), 0.0);
  sampler.stop();  // twice is fine
}

TEST(TelemetryRun, EveryPhaseCarriesItsHostsSamplesAndZeroTurnsItOff) {
  TempDir dir("/dev/shm");
  for (const char* interval : {"\"100ms\"", "0"}) {
    write_file(dir.path() + "/s.json", std::string(R"({"telemetry_interval": )") + interval + R"(,
      "phases": [{"kind": "ingest", "engine": "psync", "files_per_worker": 1, "file_size": "8MiB"}]})");
    const CommandResult r = run_iofab({"run", dir.path() + "/s.json", "--target", dir.path() + "/t", "--out",
                                       dir.path() + "/r.json", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json t = json::parse(read_file(dir.path() + "/r.json"))["phases"][0]["result"]["details"]["telemetry"];
    if (std::string(interval) == "0") {
      EXPECT_TRUE(t["hosts"].empty());
      EXPECT_EQ(t["off"], "telemetry_interval: 0");
    } else {
      ASSERT_EQ(t["hosts"].size(), 1u) << t;
      EXPECT_FALSE(t["hosts"][0]["samples"].empty());  // the last one is taken at the phase's end
      EXPECT_TRUE(t["hosts"][0]["samples"][0].contains("cpu_iowait"));
      EXPECT_DOUBLE_EQ(t["interval_s"].get<double>(), 0.1);
    }
  }
  write_file(dir.path() + "/bad.json", R"({"telemetry_interval": "1ms", "phases": [{"kind": "ingest"}]})");
  const CommandResult bad = run_iofab({"validate", dir.path() + "/bad.json"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("telemetry_interval: expected 0 (off) or a duration from 50ms to 1h"), std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace iofab::testing
