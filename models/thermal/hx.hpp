#pragma once
// Heat-exchanger relations (effectiveness-NTU) and the cold-plate convection law.
// Source: Incropera & DeWitt, Fundamentals of Heat and Mass Transfer, 6th ed., §11.4,
// Table 11.3 (effectiveness) and Table 11.4 (NTU); Dittus-Boelter eq. 8.60.

namespace aidcsim::thermal {

/// Counter-flow effectiveness eps = (1 - exp(-NTU(1-Cr))) / (1 - Cr exp(-NTU(1-Cr))),
/// Cr = Cmin/Cmax in [0, 1]; Cr = 1: eps = NTU/(1+NTU). NTU >= 0. Dimensionless.
double counterflow_effectiveness(double ntu, double cr);

/// Inverse of counterflow_effectiveness: NTU = ln((1 - eps Cr)/(1 - eps)) / (1 - Cr),
/// Cr = 1: eps/(1 - eps). eps in [0, 1). Throws SimulationError for eps >= 1.
double counterflow_ntu(double eps, double cr);

/// Effectiveness of a stream against an isothermal wall (Cr = 0): 1 - exp(-NTU).
double wall_effectiveness(double ntu);

/// Outlet temperatures of a counter-flow HX. Hot stream: inlet th_in (K), capacity rate ch (W/K);
/// cold stream: tc_in, cc. Heat q = eps Cmin (th_in - tc_in), W.
struct HxResult {
  double q, th_out, tc_out, eps;
};
HxResult counterflow(double ua, double th_in, double ch, double tc_in, double cc);

/// UA (W/K) of a counter-flow CDU sized so that at the design heat `q` (W) the secondary supply
/// (hot-side outlet) is `approach` K above the primary (cold) inlet, with capacity rates ch (rack
/// loop) and cc (facility water). Throws SimulationError if no finite UA reaches that approach.
double cdu_ua_from_approach(double q, double approach, double ch, double cc);

/// Convective conductance hA (W/K) of a cold plate at volume flow `flow`, from hA0 at ref_flow:
/// hA = hA0 (flow/ref_flow)^exponent (Dittus-Boelter turbulent convection, exponent 0.8).
double cold_plate_ha(double ha0, double flow, double ref_flow, double exponent);

}  // namespace aidcsim::thermal
