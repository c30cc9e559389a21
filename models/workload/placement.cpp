#include "models/workload/placement.hpp"

#include "models/common/errors.hpp"

namespace aidcsim::workload {

Placement::Placement(const Parallelism& p) : p_(p) {
  if (p.order == "tp,cp,pp,dp")
    pp_inner_ = true;
  else if (p.order == "tp,cp,dp,pp")
    pp_inner_ = false;
  else
    throw Error("unknown rank order '" + p.order + "'");
}

int Placement::gpu(const Coord& c) const {
  const int inner = c.tp + p_.tp * c.cp;
  const int tc = p_.tp * p_.cp;
  return pp_inner_ ? inner + tc * (c.pp + p_.pp * c.dp) : inner + tc * (c.dp + p_.dp * c.pp);
}

Coord Placement::coord(int g) const {
  Coord c;
  c.tp = g % p_.tp;
  g /= p_.tp;
  c.cp = g % p_.cp;
  g /= p_.cp;
  if (pp_inner_) {
    c.pp = g % p_.pp;
    c.dp = g / p_.pp;
  } else {
    c.dp = g % p_.dp;
    c.pp = g / p_.dp;
  }
  return c;
}

std::vector<int> Placement::tp_group(const Coord& c) const {
  std::vector<int> g;
  for (int i = 0; i < p_.tp; ++i) g.push_back(gpu({i, c.cp, c.pp, c.dp}));
  return g;
}
std::vector<int> Placement::cp_group(const Coord& c) const {
  std::vector<int> g;
  for (int i = 0; i < p_.cp; ++i) g.push_back(gpu({c.tp, i, c.pp, c.dp}));
  return g;
}
std::vector<int> Placement::dp_group(const Coord& c) const {
  std::vector<int> g;
  for (int d = 0; d < p_.dp; ++d)
    for (int i = 0; i < p_.cp; ++i) g.push_back(gpu({c.tp, i, c.pp, d}));
  return g;
}
std::vector<int> Placement::ep_group(const Coord& c) const {
  std::vector<int> g;
  const int ep = p_.ep > 0 ? p_.ep : 1;
  const int base = (c.dp / ep) * ep;
  for (int d = base; d < base + ep && d < p_.dp; ++d) g.push_back(gpu({c.tp, c.cp, c.pp, d}));
  return g;
}

}  // namespace aidcsim::workload
