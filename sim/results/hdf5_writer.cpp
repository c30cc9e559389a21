#include "sim/results/hdf5_writer.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <vector>

#include "models/common/errors.hpp"
#include "sim/results/atomic_file_writer.hpp"

#ifndef AIDCSIM_VERSION
#define AIDCSIM_VERSION "unknown"
#endif

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
  return Handle(check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), "dataspace"),
                H5Sclose);
}

// "" is not a unit: dimensionless quantities are written as "1".
std::string unit_or_one(const std::string& unit) { return unit.empty() ? "1" : unit; }

void attr_string(hid_t obj, const std::string& name, const std::string& value) {
  Handle type = string_type();
  Handle space = scalar_space();
  Handle a(check(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                 "attribute " + name),
           H5Aclose);
  const char* p = value.c_str();
  check(H5Awrite(a.get(), type.get(), &p), "attribute " + name);
}

void attr_strings(hid_t obj, const std::string& name, const std::vector<std::string>& values) {
  Handle type = string_type();
  Handle space = simple_space({static_cast<hsize_t>(values.size())});
  Handle a(check(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                 "attribute " + name),
           H5Aclose);
  std::vector<const char*> p;
  for (const auto& v : values) p.push_back(v.c_str());
  if (!p.empty()) check(H5Awrite(a.get(), type.get(), p.data()), "attribute " + name);
}

void attr_u64(hid_t obj, const std::string& name, std::uint64_t value) {
  Handle space = scalar_space();
  Handle a(check(H5Acreate2(obj, name.c_str(), H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                 "attribute " + name),
           H5Aclose);
  check(H5Awrite(a.get(), H5T_NATIVE_UINT64, &value), "attribute " + name);
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
  explicit Writer(const std::string& file) {
    fcpl_ = std::make_unique<Handle>(check(H5Pcreate(H5P_FILE_CREATE), "property list"), H5Pclose);
    check(H5Pset_obj_track_times(fcpl_->get(), 0), "property list");
    // Members keep the engine's order (h5py iterates a group in creation order when it is tracked).
    check(H5Pset_link_creation_order(fcpl_->get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), "property list");
    gcpl_ = std::make_unique<Handle>(check(H5Pcreate(H5P_GROUP_CREATE), "property list"), H5Pclose);
    check(H5Pset_obj_track_times(gcpl_->get(), 0), "property list");
    check(H5Pset_link_creation_order(gcpl_->get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), "property list");
    file_ = std::make_unique<Handle>(
        check(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, fcpl_->get(), H5P_DEFAULT), "cannot create '" + file + "'"),
        H5Fclose);
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
    return Handle(check(H5Gcreate2(parent.get(), leaf.c_str(), H5P_DEFAULT, gcpl_->get(), H5P_DEFAULT),
                        "create group " + path),
                  H5Gclose);
  }

  // Creates a dataset with time tracking off and, when large, shuffle+deflate in chunks.
  Handle dataset(const std::string& path, hid_t file_type, const std::vector<hsize_t>& dims,
                 const std::string& units, const std::string& description) {
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
    Handle ds(check(H5Dcreate2(parent.get(), leaf.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(),
                               H5P_DEFAULT),
                    "create dataset " + path),
              H5Dclose);
    attr_string(ds.get(), "units", unit_or_one(units));
    attr_string(ds.get(), "description", description);
    return ds;
  }

  void doubles(const std::string& path, const std::vector<hsize_t>& dims, const std::vector<double>& data,
               const std::string& units, const std::string& description,
               const std::vector<std::string>* dim_names = nullptr) {
    Handle ds = dataset(path, H5T_IEEE_F64LE, dims, units, description);
    if (dim_names) attr_strings(ds.get(), "dims", *dim_names);
    if (!data.empty())
      check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), "write " + path);
  }

  void strings(const std::string& path, const std::vector<std::string>& values, const std::string& description) {
    Handle type = string_type();
    Handle ds = dataset(path, type.get(), {static_cast<hsize_t>(values.size())}, "1", description);
    std::vector<const char*> p;
    for (const auto& v : values) p.push_back(v.c_str());
    if (!p.empty()) check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data()), "write " + path);
  }

  // h5py's boolean convention: enum {FALSE=0, TRUE=1} over int8.
  void booleans(const std::string& path, const std::vector<bool>& values, const std::string& description) {
    Handle type(check(H5Tenum_create(H5T_NATIVE_INT8), "enum type"), H5Tclose);
    std::int8_t f = 0, t = 1;
    check(H5Tenum_insert(type.get(), "FALSE", &f), "enum type");
    check(H5Tenum_insert(type.get(), "TRUE", &t), "enum type");
    Handle ds = dataset(path, type.get(), {static_cast<hsize_t>(values.size())}, "1", description);
    std::vector<std::int8_t> v(values.begin(), values.end());
    if (!v.empty()) check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "write " + path);
  }

  void close() {
    check(H5Fflush(file_->get(), H5F_SCOPE_GLOBAL), "flush");
    const hid_t id = file_->release();
    check(H5Fclose(id), "close");  // errors at close (disk full) must fail the write
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

void write_file(const Results& r, const std::string& file, const std::string& created_by) {
  QuietErrors quiet;
  Writer w(file);

  attr_string(w.root(), "format_version", kHdf5FormatVersion);
  attr_string(w.root(), "aidcsim_version", AIDCSIM_VERSION);
  attr_string(w.root(), "scenario_name", r.scenario_name);
  attr_string(w.root(), "scenario_file", r.scenario_file);
  attr_string(w.root(), "scenario_text", r.scenario_text);
  attr_u64(w.root(), "seed", r.seed);
  attr_string(w.root(), "created_by", created_by.empty() ? std::string("aidcsim ") + AIDCSIM_VERSION : created_by);

  w.group("/summary");
  for (const auto& s : r.summary) {
    if (s.key.empty()) throw Error("HDF5: summary value with an empty key");
    w.doubles("/summary/" + s.key, {}, {s.value}, s.unit, s.description);
  }

  for (const auto& d : r.datasets) {
    std::vector<hsize_t> dims(d.shape.begin(), d.shape.end());
    if (dims.empty()) dims.push_back(d.data.size());  // no shape given: a plain vector
    const hsize_t n = std::accumulate(dims.begin(), dims.end(), hsize_t{1}, std::multiplies<>());
    if (n != d.data.size())
      throw Error("HDF5: dataset '" + d.path + "' has " + std::to_string(d.data.size()) +
                  " values but its shape holds " + std::to_string(n));
    if (!d.dims.empty() && d.dims.size() != dims.size())
      throw Error("HDF5: dataset '" + d.path + "' has " + std::to_string(dims.size()) + " axes but " +
                  std::to_string(d.dims.size()) + " dimension names");
    w.doubles(d.path, dims, d.data, d.unit, d.description, &d.dims);
  }

  for (const auto& l : r.labels) w.strings(l.path, l.values, l.description);

  w.group("/checks");
  std::vector<std::string> item, unit, note;
  std::vector<double> value, limit, headroom;
  std::vector<bool> pass;
  for (const auto& c : r.checks) {
    item.push_back(c.item);
    unit.push_back(unit_or_one(c.unit));
    note.push_back(c.note);
    value.push_back(c.value);
    limit.push_back(c.limit);
    headroom.push_back(c.headroom);
    pass.push_back(c.pass);
  }
  const hsize_t nc = r.checks.size();
  w.strings("/checks/item", item, "Checklist item (the product brief's requirement)");
  w.doubles("/checks/value", {nc}, value, common_unit(r.checks, false), "Value reached in the run");
  w.doubles("/checks/limit", {nc}, limit, common_unit(r.checks, false), "Limit the value is checked against");
  w.strings("/checks/unit", unit, "Unit of value and limit of each row (headroom of degC rows is in K)");
  w.doubles("/checks/headroom", {nc}, headroom, common_unit(r.checks, true),
            "Limit minus value in the direction of safety; negative means violated");
  w.booleans("/checks/pass", pass, "True when the item is met");
  w.strings("/checks/note", note, "Remark on the item (may be empty)");

  w.strings("/notes", r.notes, "Fidelity tiers and caveats of this run, one per row");
  w.close();
}

}  // namespace

void write_hdf5(const Results& results, const std::string& path, const std::string& created_by) {
  write_atomically(path, [&](const std::string& tmp) { write_file(results, tmp, created_by); });
}

}  // namespace aidcsim
