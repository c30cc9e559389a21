#pragma once
// HDF5 writer: a self-describing result file that h5py, pandas, HDFView and xarray read without
// aidcsim. It follows the netCDF-4 data model (HDF5 dimension scales, the HDF5 high-level H5DS
// API), so `xarray.open_dataset(path, engine="h5netcdf", group="/network")` (or engine "netcdf4")
// gives named dimensions with coordinates, and CF-style attributes (units, flag_values/
// flag_meanings, time as "seconds since").
//
// Layout (format_version "2"):
//   /                      attributes: format_version "2", aidcsim_version (the CMake project
//                          version), git_sha (the build's commit or "unknown"), date_created (ISO
//                          8601 UTC, the write time or $SOURCE_DATE_EPOCH; ACDD's name), created_by,
//                          scenario_name, scenario_file, scenario_text (the full YAML, so the file
//                          reproduces its run), seed (uint64)
//   /summary/<key>         one scalar float64 dataset per Results::summary entry (no dimensions)
//   <Dataset::path>        float64 array of Dataset::shape (intermediate groups created), each axis
//                          attached to the dimension scale of its name (Dataset::dims) in the same
//                          group. With flag_meanings: integer codes (int8, int32 past 127 codes)
//                          with CF flag_values 0..n-1 and flag_meanings (blank-separated words).
//   <Labels::path>         1-D variable-length UTF-8 string dataset along Labels::dim
//   /checks/{item,value,limit,unit,headroom,pass,note}
//                          parallel 1-D datasets along the dimension "item" (/checks/item is its
//                          coordinate); `pass` is int8 with flag_values {0, 1}, flag_meanings
//                          "fail pass"
//   /notes                 1-D string dataset, one note per row, along the dimension "note"
//   /warnings              1-D string dataset, inputs used otherwise than written (often empty),
//                          along the dimension "warning"
// Dimensions: each group is self-contained. The coordinate of the axis `d` used in group G is the
// 1-D object G/d along d (netCDF's coordinate variable: a label list such as /network/link, or a
// dataset such as /thermal/transient/time); when there is none, the writer adds G/d as an int32
// index 0..n-1 (units "1"), which readers can tell by being an integer dimension scale without
// flag_meanings. Every dataset carries `units` (UCUM-like text, "1" for dimensionless, never empty;
// absolute times "seconds since 1970-01-01 00:00:00 UTC" with calendar "proleptic_gregorian") and
// `description`. For /checks/value|limit|headroom `units` is the common unit of all rows, or
// "mixed: see /checks/unit" when rows differ (headroom of a degC check is in K).
// Groups track link creation order, so /summary lists its keys in the engine's order (h5py
// iterates such groups in creation order). Object modification times are not recorded, so the
// same Results and date_created give the same bytes.
#include <string>

#include "models/common/results.hpp"

namespace aidcsim {

/// Version of the layout above, stored as the root attribute `format_version`. "1": axis names in
/// a `dims` string attribute, no dimension scales, float tier codes, /checks/pass a boolean enum.
inline constexpr const char* kHdf5FormatVersion = "2";

/// The bytes of the HDF5 file of `results` (built in memory with HDF5's core driver: the same bytes
/// a file on disk would hold). `created_by` is stored as the root attribute of that name (default
/// "aidcsim <version>"). Throws aidcsim::Error with the HDF5 error description, and for
/// inconsistent Results: a Dataset whose shape does not match its data size, two objects at one
/// path, one axis name with two extents in a group, an object named like an axis of its group that
/// is not 1-D along it, a flag code that is not an integer in [0, number of flag_meanings).
std::string hdf5_image(const Results& results, const std::string& created_by = {});

/// Writes hdf5_image(results) to `path` with the guarantees of sim/results/output_set.hpp (an
/// unnamed temporary renamed when complete; special files written through; a terminal refused):
/// on any error `path` is left as it was and aidcsim::Error is thrown.
void write_hdf5(const Results& results, const std::string& path, const std::string& created_by = {});

/// The root attribute date_created for a file written now: $SOURCE_DATE_EPOCH (seconds since the
/// epoch, the reproducible-builds convention) when set and valid, else the current time; ISO 8601
/// UTC, "2025-06-01T12:00:00Z".
std::string hdf5_creation_date();

}  // namespace aidcsim
