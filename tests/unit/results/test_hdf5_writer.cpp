// The HDF5 file is read back with H5Cpp: root attributes, values, shapes, and a `units`
// attribute on every dataset; failed writes leave neither the file nor a temporary file.
#include <H5Cpp.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "models/common/errors.hpp"
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
        if (info->type == H5O_TYPE_DATASET) static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
        return 0;
      },
      &out);
  return out;
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
  CHECK(read_string_attr(root, "format_version") == "1");
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
  // 8 summary scalars + 2 datasets + 1 labels + 7 checks columns + notes
  REQUIRE(paths.size() == 19);
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
  {
    H5::Attribute a = util.openAttribute("dims");
    hsize_t n = 0;
    a.getSpace().getSimpleExtentDims(&n);
    REQUIRE(n == 2);
    std::vector<char*> p(n);
    H5::StrType t(H5::PredType::C_S1, H5T_VARIABLE);
    a.read(t, p.data());
    CHECK(std::string(p[0]) == "time");
    CHECK(std::string(p[1]) == "link");
    H5Dvlen_reclaim(t.getId(), a.getSpace().getId(), H5P_DEFAULT, p.data());
  }
  CHECK(read_doubles(f.openDataSet("/thermal/gpu/temperature")) == r.datasets[1].data);
  CHECK(read_string_attr(f.openDataSet("/thermal/gpu/temperature"), "units") == "degC");

  CHECK(read_strings(f.openDataSet("/network/link_name")) == r.labels[0].values);
  CHECK(read_strings(f.openDataSet("/checks/item")) ==
        std::vector<std::string>{"coolant outlet < 40 degC", "loop delta T < 15 K"});
  CHECK(read_doubles(f.openDataSet("/checks/headroom")) == std::vector<double>{4.5, -1.0});
  CHECK(read_string_attr(f.openDataSet("/checks/value"), "units") == "mixed: see /checks/unit");
  CHECK(read_string_attr(f.openDataSet("/checks/headroom"), "units") == "K");  // degC and K rows: both K
  std::vector<std::int8_t> pass(2);
  f.openDataSet("/checks/pass").read(pass.data(), H5::PredType::NATIVE_INT8);
  CHECK(pass == std::vector<std::int8_t>{1, 0});
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

TEST_CASE("the same Results give the same HDF5 bytes", "[results][hdf5]") {
  ScratchDir dir;
  write_hdf5(sample_results(), dir.file("a.h5"));
  write_hdf5(sample_results(), dir.file("b.h5"));
  CHECK(file_bytes(dir.file("a.h5")) == file_bytes(dir.file("b.h5")));
}

TEST_CASE("large HDF5 datasets are chunked and compressed and read back exactly", "[results][hdf5]") {
  ScratchDir dir;
  Results r = sample_results();
  Dataset big;
  big.path = "/network/per_link";
  big.shape = {300, 700};
  for (std::size_t i = 0; i < 300 * 700; ++i) big.data.push_back(static_cast<double>(i % 97) / 97.0);
  big.unit = "B/s";
  big.dims = {"time", "link"};
  r.datasets.push_back(big);
  write_hdf5(r, dir.file("big.h5"));
  H5::H5File f(dir.file("big.h5"), H5F_ACC_RDONLY);
  H5::DataSet ds = f.openDataSet("/network/per_link");
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
