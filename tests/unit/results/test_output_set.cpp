// Output files as a set (sim/results/output_set.hpp): all or none, no temporaries, special files
// written through and never renamed over. Cases ../shared/cases/input/08 (an HDF5 file left
// without its JSON after an exit 1), 09 (a temporary left by an interrupted write), 21 (an empty
// path), and /dev/stdout replaced by a regular file when run as root.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/results/output_set.hpp"
#include "tests/unit/results/sample_results.hpp"

using namespace aidcsim;
using aidcsim::test::ScratchDir;

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
}  // namespace

TEST_CASE("an output set writes every file, and nothing else", "[results][outputs]") {
  ScratchDir dir;
  OutputSet set;
  set.add(dir.file("a.h5"), "binary", true);
  set.add(dir.file("a.json"), "{}\n", false);
  set.commit();
  CHECK(slurp(dir.file("a.h5")) == "binary");
  CHECK(slurp(dir.file("a.json")) == "{}\n");
  CHECK(dir.entries() == 2);
}

TEST_CASE("a set that cannot be completed writes no file at all", "[results][outputs]") {
  // Case input/08: the JSON's directory removed during the run; the HDF5 file used to be published
  // before the JSON failed.
  ScratchDir dir;
  std::filesystem::create_directories(dir.file("gone"));
  put(dir.file("old.h5"), "previous run");
  OutputSet set;
  const auto h5 = set.add(dir.file("old.h5"), true);
  const auto js = set.add(dir.file("gone/x.json"));
  set.set_content(h5, "new run");
  set.set_content(js, "{}");
  std::filesystem::remove_all(dir.file("gone"));
  CHECK_THROWS_AS(set.commit(), Error);
  CHECK(slurp(dir.file("old.h5")) == "previous run");  // untouched
  CHECK(dir.entries() == 1);                           // and no temporary beside it
}

TEST_CASE("a cancelled run publishes nothing", "[results][outputs]") {
  ScratchDir dir;
  OutputSet set;
  set.add(dir.file("x.json"), "{}", false);
  request_cancel(15);
  CHECK_THROWS_AS(set.commit(), Cancelled);
  reset_cancel();
  CHECK(dir.entries() == 0);
}

TEST_CASE("a replaced file keeps its permissions; a symlink keeps pointing at it", "[results][outputs]") {
  ScratchDir dir;
  put(dir.file("real.json"), "old");
  ::chmod(dir.file("real.json").c_str(), 0640);
  std::filesystem::create_symlink(dir.file("real.json"), dir.file("link.json"));
  write_output(dir.file("link.json"), "new");
  CHECK(std::filesystem::is_symlink(dir.file("link.json")));
  CHECK(slurp(dir.file("real.json")) == "new");
  struct stat st {};
  REQUIRE(::stat(dir.file("real.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  CHECK(dir.entries() == 2);
}

TEST_CASE("special files are written through, never renamed over", "[results][outputs]") {
  // /dev/stdout run as root used to become a regular file (rename over the symlink).
  ScratchDir dir;
  // A FIFO read by another thread.
  const std::string fifo = dir.file("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_output(fifo, "through the fifo");
  reader.join();
  CHECK(got == "through the fifo");
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  // A descriptor named /dev/fd/N (what /dev/stdout and '-' lead to).
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  write_output("/dev/fd/" + std::to_string(fds[1]), "through fd");
  ::close(fds[1]);
  char buf[64] = {};
  CHECK(std::string(buf, static_cast<std::size_t>(::read(fds[0], buf, sizeof buf))) == "through fd");
  ::close(fds[0]);
  // /dev/null twice is fine, and stays a character device.
  OutputSet twice;
  twice.add("/dev/null", "a", true);
  twice.add("/dev/null", "b", false);
  twice.commit();
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("unwritable destinations are refused before anything runs", "[results][outputs]") {
  // Case input/21: `-o ''` used to exit 0 writing nothing.
  ScratchDir dir;
  CHECK_THROWS_WITH(resolve_output(""), Catch::Contains("output path is empty"));
  CHECK_THROWS_WITH(resolve_output(dir.path.string()), Catch::Contains("it is a directory"));
  CHECK_THROWS_WITH(resolve_output(dir.file("no/such/dir/x.h5")), Catch::Contains("does not exist"));
  CHECK_THROWS_WITH(resolve_output("/dev/fd/987"), Catch::Contains("not open for writing"));
  std::filesystem::create_symlink(dir.file("nowhere"), dir.file("dangling"));
  CHECK_THROWS_WITH(resolve_output(dir.file("dangling")), Catch::Contains("symbolic link to nothing"));
  OutputSet same;
  same.add(dir.file("x.h5"), true);
  CHECK_THROWS_WITH(same.add(dir.path.string() + "/./x.h5"), Catch::Contains("the same file as another output"));
  if (std::filesystem::exists("/dev/loop0"))
    CHECK_THROWS_WITH(resolve_output("/dev/loop0"), Catch::Contains("block device"));
  CHECK(resolve_output("-").kind == OutputKind::Stream);
  CHECK(resolve_output("/dev/stdout").fd == 1);
  CHECK(resolve_output("/dev/null").kind == OutputKind::Special);
}

TEST_CASE("the HDF5 image written through a set is a readable HDF5 file", "[results][outputs][hdf5]") {
  ScratchDir dir;
  const std::string image = hdf5_image(test::sample_results());
  REQUIRE(image.size() > 8);
  CHECK(image.compare(0, 8, "\x89HDF\r\n\x1a\n") == 0);
  write_output(dir.file("run.h5"), image, true);
  CHECK(slurp(dir.file("run.h5")) == image);
  const hid_t f = H5Fopen(dir.file("run.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(f >= 0);
  if (f >= 0) H5Fclose(f);
}
