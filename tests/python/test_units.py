"""aidcsim.units, generated from models/common/units.hpp at build time: every C++ constant is there
under the same name, with the value of its definition, and the report converts with it."""
import pathlib
import re

import numpy as np

import aidcsim
from aidcsim import units
from aidcsim.report import _as_celsius

HEADER = pathlib.Path(__file__).resolve().parents[2] / "models" / "common" / "units.hpp"


def test_every_cpp_constant_has_the_same_name_in_python():
    names = re.findall(r"^inline constexpr double (k\w+) =", HEADER.read_text(encoding="utf-8"), re.M)
    assert len(names) >= 7
    for name in names:
        assert isinstance(getattr(units, name), float), name


def test_values_are_their_definitions():
    assert units.kZeroCelsius == 273.15
    assert units.kHour == 3600.0 and units.kDay == 86400.0 and units.kWeek == 7 * 86400.0
    assert units.kJulianYear == 365.25 * 86400.0
    assert units.kBitsPerByte == 8.0
    assert units.to_celsius(300.0) == 300.0 - 273.15
    assert units.from_celsius(25.0) == 25.0 + 273.15


def test_report_uses_the_shared_conversion():
    v, unit = _as_celsius([273.15, 353.15], "K")
    assert unit == "°C" and np.array_equal(v, np.array([273.15, 353.15]) - 273.15)
    assert aidcsim.units is units
