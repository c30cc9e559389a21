// The HDF5 file is read back with H5Cpp and the H5DS API: root attributes, values, shapes, a
// `units` attribute on every dataset, dimension scales (netCDF-4 data model: the Python tests open
// the files with xarray); failed writes leave neither the file nor a temporary file.
#include <H5Cpp.h>
#include <hdf5_hl.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "models/common/errors.hpp"
#include "models/common/version.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "tests/unit/results/sample_results.hpp"

using namespace aidcsim;
using aidcsim::test::sample_results;
using aidcsim::test::ScratchDir;

namespace {

std::string read_string_attr(const H5::H5Object& obj, const std::string& name) {
  H5::Attribute a = obj.openAttribute(name);
  std::string s;
  a.read(a.getStrType(), s);
  return s;
}

std::vector<std::string> read_strings(const H5::DataSet& ds) {
  hsize_t n = 0;
  ds.getSpace().getSimpleExtentDims(&n);
  std::vector<char*> p(n);
  H5::StrType t(H5::PredType::C_S1, H5T_VARIABLE);
  if (n) ds.read(p.data(), t);
  std::vector<std::string> out(p.begin(), p.end());
  if (n) H5Dvlen_reclaim(t.getId(), ds.getSpace().getId(), H5P_DEFAULT, p.data());
  return out;
}

std::vector<double> read_doubles(const H5::DataSet& ds) {
  const auto n = ds.getSpace().getSimpleExtentNpoints();
  std::vector<double> v(static_cast<std::size_t>(n));
  if (n) ds.read(v.data(), H5::PredType::NATIVE_DOUBLE);
  return v;
}

// Every dataset in the file, by absolute path.
std::vector<std::string> all_datasets(const H5::H5File& f) {
  std::vector<std::string> out;
  H5Ovisit(
      f.getId(), H5_INDEX_NAME, H5_ITER_INC,
      [](hid_t, const char* name, const H5O_info_t* info, void* data) -> herr_t {
        if (info->type == H5O_TYPE_DATASET)
          static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
        return 0;
      },
      &out);
  return out;
}

// Name of the dimension scale attached to axis `axis` of `ds` (its NAME attribute), "" if none.
std::string scale_name(const H5::DataSet& ds, unsigned axis) {
  std::string name;
  H5DSiterate_scales(
      ds.getId(), axis, nullptr,
      [](hid_t, unsigned, hid_t scale, void* out) -> herr_t {
        char buf[256] = {};
        H5DSget_scale_name(scale, buf, sizeof buf);
        *static_cast<std::string*>(out) = buf;
        return 1;
      },
      &name);
  return name;
}

std::vector<int> read_int_attr(const H5::H5Object& obj, const std::string& name) {
  H5::Attribute a = obj.openAttribute(name);
  std::vector<int> v(static_cast<std::size_t>(a.getSpace().getSimpleExtentNpoints()));
  a.read(H5::PredType::NATIVE_INT, v.data());
  return v;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("HDF5 file carries the run's identity as root attributes", "[results][hdf5]") {
  ScratchDir dir;
  const auto r = sample_results();
  write_hdf5(r, dir.file("run.h5"));
  H5::H5File f(dir.file("run.h5"), H5F_ACC_RDONLY);
  H5::Group root = f.openGroup("/");
  CHECK(read_string_attr(root, "format_version") == "2");
  CHECK(read_string_attr(root, "git_sha") == git_sha());
  CHECK(read_string_attr(root, "date_created").size() == 20);  // 2025-06-01T12:00:00Z
  const std::string version = read_string_attr(root, "aidcsim_version");
  CHECK_FALSE(version.empty());
  CHECK(version != "unknown");  // the build defines AIDCSIM_VERSION for the writers
  CHECK(read_string_attr(root, "scenario_name") == "stargate-uk-8k");
  CHECK(read_string_attr(root, "scenario_file") == "scenarios/stargate-uk-8k.yaml");
  CHECK(read_string_attr(root, "scenario_text") == r.scenario_text);
  CHECK(read_string_attr(root, "created_by") == "aidcsim " + version);
  std::uint64_t seed = 0;
  root.openAttribute("seed").read(H5::PredType::NATIVE_UINT64, &seed);
  CHECK(seed == 42);
}

TEST_CASE("every HDF5 dataset has a non-empty units attribute and a description", "[results][hdf5]") {
  ScratchDir dir;
  write_hdf5(sample_results(), dir.file("run.h5"));
  H5::H5File f(dir.file("run.h5"), H5F_ACC_RDONLY);
  const auto paths = all_datasets(f);
  // 8 summary scalars + 2 datasets + 1 labels + 7 checks columns + notes + warnings, and the index
  // coordinates of the axes without one: /network/time, /thermal/gpu/gpu, /note, /warning
  REQUIRE(paths.size() == 24);
  for (const auto& p : paths) {
    INFO(p);
    H5::DataSet ds = f.openDataSet(p);
    REQUIRE(ds.attrExists("units"));
    CHECK_FALSE(read_string_attr(ds, "units").empty());
    CHECK(ds.attrExists("description"));
  }
  CHECK(read_string_attr(f.openDataSet("/summary/pue"), "units") == "1");  // "" becomes "1"
  CHECK(read_string_attr(f.openDataSet("/notes"), "units") == "1");
}

TEST_CASE("HDF5 summary, arrays, labels, checks and notes read back unchanged", "[results][hdf5]") {
  ScratchDir dir;
  const auto r = sample_results();
  write_hdf5(r, dir.file("run.h5"));
  H5::H5File f(dir.file("run.h5"), H5F_ACC_RDONLY);

  for (const auto& s : r.summary) {
    H5::DataSet ds = f.openDataSet("/summary/" + s.key);
    CHECK(ds.getSpace().getSimpleExtentNdims() == 0);
    CHECK(read_doubles(ds) == std::vector<double>{s.value});
    CHECK(read_string_attr(ds, "units") == (s.unit.empty() ? "1" : s.unit));
    CHECK(read_string_attr(ds, "description") == s.description);
  }

  H5::DataSet util = f.openDataSet("/network/link_utilization");
  hsize_t dims[2] = {0, 0};
  REQUIRE(util.getSpace().getSimpleExtentNdims() == 2);
  util.getSpace().getSimpleExtentDims(dims);
  CHECK(dims[0] == 2);
  CHECK(dims[1] == 3);
  CHECK(read_doubles(util) == r.datasets[0].data);
  CHECK_FALSE(util.attrExists("dims"));  // format 1's axis names: dimension scales now
  CHECK(read_doubles(f.openDataSet("/thermal/gpu/temperature")) == r.datasets[1].data);
  CHECK(read_string_attr(f.openDataSet("/thermal/gpu/temperature"), "units") == "degC");

  CHECK(read_strings(f.openDataSet("/network/link")) == r.labels[0].values);
  CHECK(read_strings(f.openDataSet("/checks/item")) ==
        std::vector<std::string>{"coolant outlet < 40 degC", "loop delta T < 15 K"});
  CHECK(read_doubles(f.openDataSet("/checks/headroom")) == std::vector<double>{4.5, -1.0});
  CHECK(read_string_attr(f.openDataSet("/checks/value"), "units") == "mixed: see /checks/unit");
  CHECK(read_string_attr(f.openDataSet("/checks/headroom"), "units") == "K");  // degC and K rows: both K
  std::vector<std::int8_t> pass(2);
  f.openDataSet("/checks/pass").read(pass.data(), H5::PredType::NATIVE_INT8);
  CHECK(pass == std::vector<std::int8_t>{1, 0});
  CHECK(f.openDataSet("/checks/pass").getDataType() == H5::PredType::STD_I8LE);
  CHECK(read_int_attr(f.openDataSet("/checks/pass"), "flag_values") == std::vector<int>{0, 1});
  CHECK(read_string_attr(f.openDataSet("/checks/pass"), "flag_meanings") == "fail pass");
  CHECK(read_strings(f.openDataSet("/notes")) == r.notes);  // UTF-8 survives
}

TEST_CASE("HDF5 /summary keeps the engine's order of keys", "[results][hdf5]") {
  ScratchDir dir;
  const auto r = sample_results();
  write_hdf5(r, dir.file("run.h5"));
  H5::H5File f(dir.file("run.h5"), H5F_ACC_RDONLY);
  std::vector<std::string> names;
  H5Literate(
      f.openGroup("/summary").getId(), H5_INDEX_CRT_ORDER, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
        static_cast<std::vector<std::string>*>(data)->push_back(name);
        return 0;
      },
      &names);
  std::vector<std::string> keys;
  for (const auto& s : r.summary) keys.push_back(s.key);
  CHECK(names == keys);  // "gpus" first although "max_gpu_temperature" sorts before it
}

TEST_CASE("every axis is a dimension scale with a coordinate in its group (netCDF-4 model)", "[results][hdf5]") {
  ScratchDir dir;
  write_hdf5(sample_results(), dir.file("run.h5"));
  H5::H5File f(dir.file("run.h5"), H5F_ACC_RDONLY);
  H5::DataSet util = f.openDataSet("/network/link_utilization");
  CHECK(scale_name(util, 0) == "time");
  CHECK(scale_name(util, 1) == "link");
  // The link names are the coordinate of "link"; "time" has none, so an index is written.
  CHECK(H5DSis_scale(f.openDataSet("/network/link").getId()) > 0);
  H5::DataSet time = f.openDataSet("/network/time");
  CHECK(H5DSis_scale(time.getId()) > 0);
  std::vector<std::int32_t> index(2);
  time.read(index.data(), H5::PredType::NATIVE_INT32);
  CHECK(index == std::vector<std::int32_t>{0, 1});
  CHECK(scale_name(f.openDataSet("/thermal/gpu/temperature"), 0) == "gpu");
  CHECK(scale_name(f.openDataSet("/checks/value"), 0) == "item");
  CHECK(scale_name(f.openDataSet("/notes"), 0) == "note");
  CHECK(H5DSget_num_scales(f.openDataSet("/summary/pue").getId(), 0) <= 0);  // scalars have no axes
}

TEST_CASE("integer codes are written as integers with CF flag_values and flag_meanings", "[results][hdf5]") {
  ScratchDir dir;
  Results r = sample_results();
  Dataset tier;
  tier.path = "/network/link_tier";
  tier.shape = {3};
  tier.data = {2, 2, 3};
  tier.dims = {"link"};
  tier.flag_meanings = {"nvlink", "access", "leaf_spine", "spine_core"};
  r.datasets.push_back(tier);
  write_hdf5(r, dir.file("run.h5"));
  H5::H5File f(dir.file("run.h5"), H5F_ACC_RDONLY);
  H5::DataSet ds = f.openDataSet("/network/link_tier");
  CHECK(ds.getDataType() == H5::PredType::STD_I8LE);
  std::vector<int> codes(3);
  ds.read(codes.data(), H5::PredType::NATIVE_INT);
  CHECK(codes == std::vector<int>{2, 2, 3});
  CHECK(read_int_attr(ds, "flag_values") == std::vector<int>{0, 1, 2, 3});
  CHECK(read_string_attr(ds, "flag_meanings") == "nvlink access leaf_spine spine_core");

  r.datasets.back().data[0] = 4;  // no such code
  CHECK_THROWS_WITH(write_hdf5(r, dir.file("bad.h5")), Catch::Contains("not a code in 0..3"));
  r.datasets.back().data[0] = 1.5;
  CHECK_THROWS_AS(write_hdf5(r, dir.file("bad.h5")), Error);
  CHECK_FALSE(std::filesystem::exists(dir.file("bad.h5")));
}

TEST_CASE("absolute times carry CF 'seconds since' units and a calendar", "[results][hdf5]") {
  ScratchDir dir;
  Results r = sample_results();
  r.labels.push_back({"/phases/phase", {"8K", "16K"}, "Rollout phases"});
  Dataset start;
  start.path = "/phases/start";
  start.shape = {2};
  start.data = {1772323200.0, 1788220800.0};
  start.unit = "seconds since 1970-01-01 00:00:00 UTC";
  start.dims = {"phase"};
  r.datasets.push_back(start);
  write_hdf5(r, dir.file("run.h5"));
  H5::H5File f(dir.file("run.h5"), H5F_ACC_RDONLY);
  H5::DataSet ds = f.openDataSet("/phases/start");
  CHECK(read_string_attr(ds, "units") == "seconds since 1970-01-01 00:00:00 UTC");
  CHECK(read_string_attr(ds, "calendar") == "proleptic_gregorian");
  CHECK(scale_name(ds, 0) == "phase");
  CHECK_FALSE(f.openDataSet("/thermal/gpu/temperature").attrExists("calendar"));
}

TEST_CASE("inconsistent axes are refused before a file is written", "[results][hdf5]") {
  ScratchDir dir;
  SECTION("one axis name, two extents in a group") {
    Results r = sample_results();
    r.labels.push_back({"/network/tier", {"a", "b"}, "Tiers"});
    r.labels.push_back({"/network/tier_note", {"x", "y", "z"}, "Three notes on two tiers", "tier"});
    CHECK_THROWS_WITH(write_hdf5(r, dir.file("run.h5")), Catch::Contains("axis 'tier' of group '/network' has 2"));
  }
  SECTION("an object named like an axis that does not run along it") {
    Results r = sample_results();
    r.labels.push_back({"/network/time", {"a", "b"}, "Not the time axis", "slot"});
    CHECK_THROWS_WITH(write_hdf5(r, dir.file("run.h5")), Catch::Contains("named like the axis 'time'"));
  }
  CHECK(dir.entries() == 0);
}

TEST_CASE("date_created is the write time, or $SOURCE_DATE_EPOCH when set", "[results][hdf5]") {
  ::setenv("SOURCE_DATE_EPOCH", "1767225600", 1);
  CHECK(hdf5_creation_date() == "2026-01-01T00:00:00Z");
  ::unsetenv("SOURCE_DATE_EPOCH");
  const std::string now = hdf5_creation_date();
  CHECK(now.size() == 20);
  CHECK(now >= "2025-01-01T00:00:00Z");
}

TEST_CASE("the same Results give the same HDF5 bytes", "[results][hdf5]") {
  ScratchDir dir;
  ::setenv("SOURCE_DATE_EPOCH", "1767225600", 1);  // date_created is the only time in the file
  write_hdf5(sample_results(), dir.file("a.h5"));
  write_hdf5(sample_results(), dir.file("b.h5"));
  ::unsetenv("SOURCE_DATE_EPOCH");
  CHECK(file_bytes(dir.file("a.h5")) == file_bytes(dir.file("b.h5")));
}

TEST_CASE("large HDF5 datasets are chunked and compressed and read back exactly", "[results][hdf5]") {
  ScratchDir dir;
  Results r = sample_results();
  Dataset big;
  big.path = "/network/windows/per_link";  // own group: its axes differ from /network/*
  big.shape = {300, 700};
  for (std::size_t i = 0; i < 300 * 700; ++i) big.data.push_back(static_cast<double>(i % 97) / 97.0);
  big.unit = "B/s";
  big.dims = {"time", "link"};
  r.datasets.push_back(big);
  write_hdf5(r, dir.file("big.h5"));
  H5::H5File f(dir.file("big.h5"), H5F_ACC_RDONLY);
  H5::DataSet ds = f.openDataSet("/network/windows/per_link");
  CHECK(ds.getCreatePlist().getLayout() == H5D_CHUNKED);
  CHECK(read_doubles(ds) == big.data);
}

TEST_CASE("a failing HDF5 write leaves no file and no temporary file", "[results][hdf5]") {
  ScratchDir dir;
  SECTION("directory does not exist") {
    CHECK_THROWS_AS(write_hdf5(sample_results(), dir.file("missing/run.h5")), Error);
    CHECK(dir.entries() == 0);
  }
  SECTION("path is a directory") {
    std::filesystem::create_directory(dir.file("out.h5"));
    CHECK_THROWS_AS(write_hdf5(sample_results(), dir.file("out.h5")), Error);
    CHECK(std::filesystem::is_directory(dir.file("out.h5")));
    CHECK(dir.entries() == 1);
  }
  SECTION("inconsistent results fail half-way: the temporary file is removed") {
    Results r = sample_results();
    r.datasets[0].shape = {5, 5};  // 25 values declared, 6 given
    CHECK_THROWS_WITH(write_hdf5(r, dir.file("run.h5")), Catch::Contains("/network/link_utilization"));
    CHECK(dir.entries() == 0);
  }
  SECTION("two objects at one path") {
    Results r = sample_results();
    r.labels.push_back({"/network/link_utilization", {"x"}, "clash"});
    CHECK_THROWS_WITH(write_hdf5(r, dir.file("run.h5")), Catch::Contains("same path"));
    CHECK(dir.entries() == 0);
  }
  SECTION("a failed write keeps the previous file intact") {
    write_hdf5(sample_results(), dir.file("run.h5"));
    const std::string before = file_bytes(dir.file("run.h5"));
    Results r = sample_results();
    r.datasets[1].shape = {3};
    CHECK_THROWS_AS(write_hdf5(r, dir.file("run.h5")), Error);
    CHECK(file_bytes(dir.file("run.h5")) == before);
    CHECK(dir.entries() == 1);
  }
}
