#pragma once
// HDF5 writer: a self-describing result file that h5py, pandas or HDFView read without aidcsim.
//
// Layout (format_version "1"):
//   /                      attributes: format_version "1", aidcsim_version, scenario_name,
//                          scenario_file, scenario_text (the full YAML, so the file reproduces its
//                          run), seed (uint64), created_by
//   /summary/<key>         one scalar float64 dataset per Results::summary entry
//   <Dataset::path>        float64 array of Dataset::shape (intermediate groups created);
//                          attribute dims (string list, one name per axis)
//   <Labels::path>         1-D variable-length UTF-8 string dataset
//   /checks/{item,value,limit,unit,headroom,pass,note}
//                          parallel 1-D datasets, one row per Check; `pass` is an HDF5 enum
//                          {FALSE=0, TRUE=1} over int8, which h5py reads as numpy bool
//   /notes                 1-D string dataset, one note per row
// Every dataset carries the attributes `units` (UCUM-like text, "1" for dimensionless, never
// empty) and `description`. For /checks/value|limit|headroom the units attribute is the common
// unit of all rows, or "mixed: see /checks/unit" when rows differ (headroom of a degC check is in K).
// Groups track link creation order, so /summary lists its keys in the engine's order (h5py
// iterates such groups in creation order). Object modification times are not recorded, so the
// same Results give the same bytes.
#include <string>

#include "sim/results/results.hpp"

namespace aidcsim {

/// Version of the layout above, stored as the root attribute `format_version`.
inline constexpr const char* kHdf5FormatVersion = "1";

/// Writes `results` to `path` through "<path>.tmp-<pid>" and an atomic rename: on any error the
/// temporary file is removed, `path` is left as it was, and aidcsim::Error is thrown with the
/// HDF5 error description. `created_by` is stored as the root attribute of that name (default
/// "aidcsim <version>"). Also throws aidcsim::Error for inconsistent Results (a Dataset whose
/// shape does not match its data size, two objects at one path).
void write_hdf5(const Results& results, const std::string& path, const std::string& created_by = {});

}  // namespace aidcsim
