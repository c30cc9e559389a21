#include "sim/results/hdf5_writer.hpp"

#include <hdf5.h>
#include <hdf5_hl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "models/common/errors.hpp"
#include "models/common/version.hpp"
#include "sim/results/output_set.hpp"

namespace aidcsim {
namespace {

// The HDF5 C API is used directly (rather than H5Cpp) for the property lists the C++ API of 1.10
// does not wrap (object time tracking); this small handle closes every id exactly once.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      if (id_ >= 0) close_(id_);
      id_ = o.id_;
      close_ = o.close_;
      o.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  /// Gives up ownership (the caller closes the id).
  hid_t release() {
    const hid_t id = id_;
    id_ = H5I_INVALID_HID;
    return id;
  }

 private:
  hid_t id_;
  Closer close_;
};

// Innermost description on the HDF5 error stack, e.g. "unable to open file".
std::string hdf5_error_text() {
  std::string text;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned n, const H5E_error2_t* err, void* out) -> herr_t {
        auto* s = static_cast<std::string*>(out);
        if (n == 0 && err->desc) *s = err->desc;
        return 0;
      },
      &text);
  return text;
}

[[noreturn]] void fail(const std::string& what) {
  const std::string detail = hdf5_error_text();
  throw Error("HDF5: " + what + (detail.empty() ? "" : " (" + detail + ")"));
}

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return id;
}

void check(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

// Silences HDF5's automatic error-stack printing while we write; we report errors ourselves.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

Handle string_type() {
  Handle t(check(H5Tcopy(H5T_C_S1), "string type"), H5Tclose);
  check(H5Tset_size(t.get(), H5T_VARIABLE), "string type");
  check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "string type");
  return t;
}

Handle scalar_space() { return Handle(check(H5Screate(H5S_SCALAR), "dataspace"), H5Sclose); }

Handle simple_space(const std::vector<hsize_t>& dims) {
  return Handle(check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), "dataspace"), H5Sclose);
}

// "" is not a unit: dimensionless quantities are written as "1".
std::string unit_or_one(const std::string& unit) { return unit.empty() ? "1" : unit; }

// `s` as valid UTF-8: each byte that starts no well-formed sequence becomes U+FFFD. The strings are
// stored as UTF-8 (string_type); a file path need not be (a Latin-1 name such as "caf\xE9.yaml"),
// and h5py then hands Python a str that no UTF-8 API takes (`aidcsim report` failed on it).
std::string utf8_text(const std::string& s) {
  std::string out;
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    std::size_t len = b[i] < 0x80                    ? 1
                      : b[i] >= 0xC2 && b[i] <= 0xDF ? 2
                      : b[i] >= 0xE0 && b[i] <= 0xEF ? 3
                      : b[i] >= 0xF0 && b[i] <= 0xF4 ? 4
                                                     : 0;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) ok = (b[i + k] & 0xC0) == 0x80;
    // Overlong 3/4-byte forms, UTF-16 surrogates, beyond U+10FFFF.
    if (ok && len == 3) ok = !(b[i] == 0xE0 && b[i + 1] < 0xA0) && !(b[i] == 0xED && b[i + 1] >= 0xA0);
    if (ok && len == 4) ok = !(b[i] == 0xF0 && b[i + 1] < 0x90) && !(b[i] == 0xF4 && b[i + 1] >= 0x90);
    if (ok) {
      out.append(s, i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

void attr_string(hid_t obj, const std::string& name, const std::string& raw) {
  const std::string value = utf8_text(raw);
  Handle type = string_type();
  Handle space = scalar_space();
  Handle a(check(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), "attribute " + name),
           H5Aclose);
  const char* p = value.c_str();
  check(H5Awrite(a.get(), type.get(), &p), "attribute " + name);
}

void attr_u64(hid_t obj, const std::string& name, std::uint64_t value) {
  Handle space = scalar_space();
  Handle a(
      check(H5Acreate2(obj, name.c_str(), H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), "attribute " + name),
      H5Aclose);
  check(H5Awrite(a.get(), H5T_NATIVE_UINT64, &value), "attribute " + name);
}

// An integer array attribute of type `type` (CF: flag_values has the type of its variable).
void attr_ints(hid_t obj, const std::string& name, hid_t type, const std::vector<int>& values) {
  Handle space = simple_space({static_cast<hsize_t>(values.size())});
  Handle a(check(H5Acreate2(obj, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT), "attribute " + name),
           H5Aclose);
  if (!values.empty()) check(H5Awrite(a.get(), H5T_NATIVE_INT, values.data()), "attribute " + name);
}

// Splits "/a/b/c" into {"a","b","c"}; rejects empty paths and "." / ".." components.
std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : path) {
    if (c == '/') {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  if (parts.empty()) throw Error("HDF5: empty object path '" + path + "'");
  for (const auto& p : parts)
    if (p == "." || p == "..") throw Error("HDF5: invalid object path '" + path + "'");
  return parts;
}

class Writer {
 public:
  explicit Writer(const std::string& file, hid_t fapl = H5P_DEFAULT) {
    fcpl_ = std::make_unique<Handle>(check(H5Pcreate(H5P_FILE_CREATE), "property list"), H5Pclose);
    check(H5Pset_obj_track_times(fcpl_->get(), 0), "property list");
    // Members keep the engine's order (h5py iterates a group in creation order when it is tracked).
    check(H5Pset_link_creation_order(fcpl_->get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), "property list");
    gcpl_ = std::make_unique<Handle>(check(H5Pcreate(H5P_GROUP_CREATE), "property list"), H5Pclose);
    check(H5Pset_obj_track_times(gcpl_->get(), 0), "property list");
    check(H5Pset_link_creation_order(gcpl_->get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), "property list");
    file_ = std::make_unique<Handle>(
        check(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, fcpl_->get(), fapl), "cannot create '" + file + "'"), H5Fclose);
  }

  hid_t root() const { return file_->get(); }

  // Opens or creates every group on the way to `path`'s parent; returns the parent and the leaf name.
  std::pair<Handle, std::string> parent_of(const std::string& path) {
    const auto parts = split_path(path);
    Handle cur(check(H5Gopen2(root(), "/", H5P_DEFAULT), "open /"), H5Gclose);
    std::string at;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      at += "/" + parts[i];
      const htri_t exists = H5Lexists(cur.get(), parts[i].c_str(), H5P_DEFAULT);
      check(static_cast<herr_t>(exists < 0 ? -1 : 0), "lookup " + at);
      if (exists > 0) {
        H5O_info_t info;
        check(H5Oget_info_by_name(cur.get(), parts[i].c_str(), &info, H5P_DEFAULT), "lookup " + at);
        if (info.type != H5O_TYPE_GROUP)
          throw Error("HDF5: '" + at + "' is a dataset, cannot create '" + path + "' below it");
        cur = Handle(check(H5Gopen2(cur.get(), parts[i].c_str(), H5P_DEFAULT), "open " + at), H5Gclose);
      } else {
        cur = Handle(check(H5Gcreate2(cur.get(), parts[i].c_str(), H5P_DEFAULT, gcpl_->get(), H5P_DEFAULT),
                           "create group " + at),
                     H5Gclose);
      }
    }
    const htri_t exists = H5Lexists(cur.get(), parts.back().c_str(), H5P_DEFAULT);
    if (exists > 0) throw Error("HDF5: two objects at the same path '" + path + "'");
    return {std::move(cur), parts.back()};
  }

  Handle group(const std::string& path) {
    auto [parent, leaf] = parent_of(path);
    return Handle(
        check(H5Gcreate2(parent.get(), leaf.c_str(), H5P_DEFAULT, gcpl_->get(), H5P_DEFAULT), "create group " + path),
        H5Gclose);
  }

  // Creates a dataset with time tracking off and, when large, shuffle+deflate in chunks.
  Handle dataset(const std::string& path, hid_t file_type, const std::vector<hsize_t>& dims, const std::string& units,
                 const std::string& description) {
    auto [parent, leaf] = parent_of(path);
    Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "property list"), H5Pclose);
    check(H5Pset_obj_track_times(dcpl.get(), 0), "property list");
    const hsize_t n = std::accumulate(dims.begin(), dims.end(), hsize_t{1}, std::multiplies<>());
    if (!dims.empty() && n >= 4096 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
      // Chunks of at most 64 Ki elements (512 KiB of float64): halve the largest axis until it fits.
      std::vector<hsize_t> chunk = dims;
      auto size = [&] { return std::accumulate(chunk.begin(), chunk.end(), hsize_t{1}, std::multiplies<>()); };
      while (size() > 65536) {
        auto it = std::max_element(chunk.begin(), chunk.end());
        *it = (*it + 1) / 2;
      }
      check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), "chunking " + path);
      check(H5Pset_shuffle(dcpl.get()), "shuffle " + path);
      check(H5Pset_deflate(dcpl.get(), 4), "deflate " + path);
    }
    Handle space = dims.empty() ? scalar_space() : simple_space(dims);
    Handle ds(
        check(H5Dcreate2(parent.get(), leaf.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
              "create dataset " + path),
        H5Dclose);
    attr_string(ds.get(), "units", unit_or_one(units));
    attr_string(ds.get(), "description", description);
    return ds;
  }

  hid_t file() const { return file_->get(); }

  void write(hid_t ds, hid_t mem_type, const void* data, std::size_t n, const std::string& path) {
    if (n) check(H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write " + path);
  }

  // The bytes of a file created with the core driver (in memory), then closes it. After a global
  // flush the image is the file as it would be on disk, byte for byte (tested).
  std::string close_image() {
    check(H5Fflush(file_->get(), H5F_SCOPE_GLOBAL), "flush");
    const ssize_t n = H5Fget_file_image(file_->get(), nullptr, 0);
    check(static_cast<herr_t>(n < 0 ? -1 : 0), "file image size");
    std::string image(static_cast<std::size_t>(n), '\0');
    check(static_cast<herr_t>(H5Fget_file_image(file_->get(), image.data(), image.size()) == n ? 0 : -1), "file image");
    const hid_t id = file_->release();
    check(H5Fclose(id), "close");
    return image;
  }

 private:
  std::unique_ptr<Handle> fcpl_, gcpl_, file_;
};

// The units attribute shared by all rows of a /checks column, or a pointer to /checks/unit.
std::string common_unit(const std::vector<Check>& checks, bool delta) {
  std::vector<std::string> units;
  for (const auto& c : checks) {
    std::string u = unit_or_one(c.unit);
    if (delta && u == "degC") u = "K";  // a difference of Celsius temperatures is in kelvin
    units.push_back(u);
  }
  if (units.empty()) return "1";
  for (const auto& u : units)
    if (u != units.front()) return "mixed: see /checks/unit";
  return units.front();
}

std::string join_words(const std::vector<std::string>& words, const std::string& path) {
  std::string out;
  for (const auto& w : words) {
    if (w.empty() || w.find_first_of(" \t\n") != std::string::npos)
      throw Error("HDF5: flag meaning '" + w + "' of '" + path + "' must be one word (CF flag_meanings)");
    out += (out.empty() ? "" : " ") + w;
  }
  return out;
}

// One array object of the file, before it is written: what the dimension pass needs to know.
struct Array {
  std::string path;   // absolute, "/network/link"
  std::string group;  // "/network" ("" for the root group)
  std::string leaf;   // "link"
  std::vector<hsize_t> extents;
  std::vector<std::string> dims;
  bool text = false;  // strings, else numbers
  // payload: the pointer, to the Results or to the owned vector below
  const std::vector<double>* doubles = nullptr;
  const std::vector<std::string>* strings = nullptr;
  std::vector<std::string> owned_strings;
  std::vector<double> owned_doubles;
  const std::vector<std::string>* flags = nullptr;  // integer codes with these meanings
  std::string units, description;
};

std::string normalized(const std::string& path) {
  std::string out;
  for (const auto& p : split_path(path)) out += "/" + p;
  return out;
}

Array make_array(const std::string& raw_path, std::vector<hsize_t> extents, std::vector<std::string> dims,
                 std::string units, std::string description) {
  Array a;
  a.path = normalized(raw_path);
  const auto slash = a.path.rfind('/');
  a.group = a.path.substr(0, slash);
  a.leaf = a.path.substr(slash + 1);
  a.extents = std::move(extents);
  if (dims.empty())  // unnamed axes get names of their own, never shared with another dataset
    for (std::size_t i = 0; i < a.extents.size(); ++i) dims.push_back(a.leaf + "_dim" + std::to_string(i));
  if (dims.size() != a.extents.size())
    throw Error("HDF5: dataset '" + a.path + "' has " + std::to_string(a.extents.size()) + " axes but " +
                std::to_string(dims.size()) + " dimension names");
  a.dims = std::move(dims);
  a.units = unit_or_one(units);
  a.description = std::move(description);
  return a;
}

// Every array object of `r`, in the order they are written.
std::vector<Array> plan_arrays(const Results& r) {
  std::vector<Array> out;
  for (const auto& d : r.datasets) {
    std::vector<hsize_t> ext(d.shape.begin(), d.shape.end());
    if (ext.empty()) ext.push_back(d.data.size());  // no shape given: a plain vector
    const hsize_t n = std::accumulate(ext.begin(), ext.end(), hsize_t{1}, std::multiplies<>());
    if (n != d.data.size())
      throw Error("HDF5: dataset '" + d.path + "' has " + std::to_string(d.data.size()) +
                  " values but its shape holds " + std::to_string(n));
    Array a = make_array(d.path, ext, d.dims, d.unit, d.description);
    a.doubles = &d.data;
    if (!d.flag_meanings.empty()) a.flags = &d.flag_meanings;
    out.push_back(std::move(a));
  }
  for (const auto& l : r.labels) {
    Array a = make_array(l.path, {l.values.size()}, {}, "1", l.description);
    a.dims = {l.dim.empty() ? a.leaf : l.dim};
    a.text = true;
    a.strings = &l.values;
    out.push_back(std::move(a));
  }

  static const std::vector<std::string> pass_flags = {"fail", "pass"};
  const hsize_t nc = r.checks.size();
  auto column = [&](const std::string& name, bool text, const std::string& units, const std::string& description) {
    Array a = make_array("/checks/" + name, {nc}, {"item"}, units, description);
    a.text = text;
    return a;
  };
  Array item = column("item", true, "1", "Checklist item (the product brief's requirement)");
  Array value = column("value", false, common_unit(r.checks, false), "Value reached in the run");
  Array limit = column("limit", false, common_unit(r.checks, false), "Limit the value is checked against");
  Array unit = column("unit", true, "1", "Unit of value and limit of each row (headroom of degC rows is in K)");
  Array headroom = column("headroom", false, common_unit(r.checks, true),
                          "Limit minus value in the direction of safety; negative means violated");
  Array pass = column("pass", false, "1", "1 when the item is met, 0 when it is violated");
  Array note = column("note", true, "1", "Remark on the item (may be empty)");
  for (const auto& c : r.checks) {
    item.owned_strings.push_back(c.item);
    value.owned_doubles.push_back(c.value);
    limit.owned_doubles.push_back(c.limit);
    unit.owned_strings.push_back(unit_or_one(c.unit));
    headroom.owned_doubles.push_back(c.headroom);
    pass.owned_doubles.push_back(c.pass ? 1 : 0);
    note.owned_strings.push_back(c.note);
  }
  pass.flags = &pass_flags;
  for (Array* a : {&item, &value, &limit, &unit, &headroom, &pass, &note}) out.push_back(std::move(*a));

  Array notes =
      make_array("/notes", {r.notes.size()}, {"note"}, "1", "Fidelity tiers and caveats of this run, one per row");
  notes.text = true;
  notes.owned_strings = r.notes;
  out.push_back(std::move(notes));
  Array warnings = make_array("/warnings", {r.warnings.size()}, {"warning"}, "1",
                              "Inputs used otherwise than written (capped, shorter than a step), one per row");
  warnings.text = true;
  warnings.owned_strings = r.warnings;
  out.push_back(std::move(warnings));
  for (auto& a : out) {  // owned payloads are pointed at once the vector no longer moves
    if (a.text && !a.strings) a.strings = &a.owned_strings;
    if (!a.text && !a.doubles) a.doubles = &a.owned_doubles;
  }
  return out;
}

// The HDF5 file type of integer codes: int8 while the codes fit, else int32.
hid_t code_type(std::size_t n_codes) { return n_codes <= 128 ? H5T_STD_I8LE : H5T_STD_I32LE; }

void write_array(Writer& w, const Array& a) {
  if (a.text) {
    Handle type = string_type();
    Handle ds = w.dataset(a.path, type.get(), a.extents, a.units, a.description);
    std::vector<std::string> text;
    for (const auto& v : *a.strings) text.push_back(utf8_text(v));
    std::vector<const char*> p;
    for (const auto& v : text) p.push_back(v.c_str());
    w.write(ds.get(), type.get(), p.data(), p.size(), a.path);
    return;
  }
  if (a.flags) {
    const auto& meanings = *a.flags;
    std::vector<int> codes;
    for (double v : *a.doubles) {
      if (!(v >= 0 && v < static_cast<double>(meanings.size()) && v == std::floor(v)))
        throw Error("HDF5: dataset '" + a.path + "' holds " + std::to_string(v) + ", not a code in 0.." +
                    std::to_string(meanings.size() - 1) + " of its flag_meanings");
      codes.push_back(static_cast<int>(v));
    }
    const hid_t type = code_type(meanings.size());
    Handle ds = w.dataset(a.path, type, a.extents, a.units, a.description);
    w.write(ds.get(), H5T_NATIVE_INT, codes.data(), codes.size(), a.path);
    std::vector<int> values(meanings.size());
    std::iota(values.begin(), values.end(), 0);
    attr_ints(ds.get(), "flag_values", type, values);
    attr_string(ds.get(), "flag_meanings", join_words(meanings, a.path));
    return;
  }
  Handle ds = w.dataset(a.path, H5T_IEEE_F64LE, a.extents, a.units, a.description);
  w.write(ds.get(), H5T_NATIVE_DOUBLE, a.doubles->data(), a.doubles->size(), a.path);
  if (a.units.find(" since ") != std::string::npos)  // a CF time: POSIX seconds count no leap days away
    attr_string(ds.get(), "calendar", "proleptic_gregorian");
}

// Dimension scales: each (group, axis name) gets one coordinate, the object of that name in the
// group or an int32 index added here, and every other array attaches its axes to them.
void write_dimensions(Writer& w, const std::vector<Array>& arrays) {
  std::map<std::string, const Array*> by_path;
  for (const auto& a : arrays) by_path[a.path] = &a;
  struct Dim {
    hsize_t extent;
    std::string first_user;
  };
  std::map<std::pair<std::string, std::string>, Dim> dims;  // (group, name) -> extent; ordered: same bytes
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& a : arrays)
    for (std::size_t i = 0; i < a.dims.size(); ++i) {
      const auto key = std::make_pair(a.group, a.dims[i]);
      auto [it, fresh] = dims.try_emplace(key, Dim{a.extents[i], a.path});
      if (fresh)
        order.push_back(key);
      else if (it->second.extent != a.extents[i])
        throw Error("HDF5: axis '" + a.dims[i] + "' of group '" + (a.group.empty() ? "/" : a.group) + "' has " +
                    std::to_string(it->second.extent) + " entries in '" + it->second.first_user + "' but " +
                    std::to_string(a.extents[i]) + " in '" + a.path + "'");
    }
  std::map<std::pair<std::string, std::string>, Handle> scales;
  for (const auto& key : order) {
    const auto& [group, name] = key;
    const std::string path = group + "/" + name;
    const hsize_t n = dims.at(key).extent;
    const auto found = by_path.find(path);
    Handle scale(H5I_INVALID_HID, H5Dclose);
    if (found != by_path.end()) {
      const Array& c = *found->second;
      if (c.dims.size() != 1 || c.dims[0] != name)
        throw Error("HDF5: '" + path + "' is named like the axis '" + name +
                    "' of its group but does not run along it");
      scale = Handle(check(H5Dopen2(w.file(), path.c_str(), H5P_DEFAULT), "open " + path), H5Dclose);
    } else {
      if (n > static_cast<hsize_t>(INT32_MAX)) throw Error("HDF5: axis '" + path + "' is too long for an int32 index");
      std::vector<std::int32_t> index(n);
      std::iota(index.begin(), index.end(), 0);
      scale = w.dataset(path, H5T_STD_I32LE, {n}, "1", "Index along the axis '" + name + "' (0-based)");
      w.write(scale.get(), H5T_NATIVE_INT32, index.data(), index.size(), path);
    }
    check(H5DSset_scale(scale.get(), name.c_str()), "dimension scale " + path);
    scales.emplace(key, std::move(scale));
  }
  for (const auto& a : arrays) {
    if (a.dims.size() == 1 && a.dims[0] == a.leaf) continue;  // a coordinate: it is its own scale
    Handle ds(check(H5Dopen2(w.file(), a.path.c_str(), H5P_DEFAULT), "open " + a.path), H5Dclose);
    for (std::size_t i = 0; i < a.dims.size(); ++i)
      check(H5DSattach_scale(ds.get(), scales.at({a.group, a.dims[i]}).get(), static_cast<unsigned>(i)),
            "attach axis '" + a.dims[i] + "' to " + a.path);
  }
}

std::string write_image(const Results& r, const std::string& created_by) {
  QuietErrors quiet;
  const std::vector<Array> arrays = plan_arrays(r);  // checks everything before the file exists
  Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "property list"), H5Pclose);
  check(H5Pset_fapl_core(fapl.get(), 1 << 20, /*backing_store=*/0), "core driver");
  Writer w("results.h5", fapl.get());  // in memory: the name is not a file

  attr_string(w.root(), "format_version", kHdf5FormatVersion);
  attr_string(w.root(), "aidcsim_version", version());
  attr_string(w.root(), "git_sha", git_sha());
  attr_string(w.root(), "date_created", hdf5_creation_date());
  attr_string(w.root(), "created_by", created_by.empty() ? std::string("aidcsim ") + version() : created_by);
  attr_string(w.root(), "scenario_name", r.scenario_name);
  attr_string(w.root(), "scenario_file", r.scenario_file);
  attr_string(w.root(), "scenario_text", r.scenario_text);
  attr_u64(w.root(), "seed", r.seed);

  w.group("/summary");
  for (const auto& s : r.summary) {
    if (s.key.empty()) throw Error("HDF5: summary value with an empty key");
    Handle ds = w.dataset("/summary/" + s.key, H5T_IEEE_F64LE, {}, unit_or_one(s.unit), s.description);
    w.write(ds.get(), H5T_NATIVE_DOUBLE, &s.value, 1, "/summary/" + s.key);
  }
  for (const auto& a : arrays) write_array(w, a);
  write_dimensions(w, arrays);
  return w.close_image();
}

}  // namespace

std::string hdf5_creation_date() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  if (const char* env = std::getenv("SOURCE_DATE_EPOCH"); env && *env) {
    char* end = nullptr;
    const long long v = std::strtoll(env, &end, 10);
    if (end && *end == '\0' && v >= 0) t = static_cast<std::time_t>(v);
  }
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string hdf5_image(const Results& results, const std::string& created_by) {
  return write_image(results, created_by);
}

void write_hdf5(const Results& results, const std::string& path, const std::string& created_by) {
  write_output(path, hdf5_image(results, created_by), /*binary=*/true);
}

}  // namespace aidcsim
