# Writes aidcsim/units.py from models/common/units.hpp so that Python reads the same constants under
# the same names as C++ (one place to write them). Run as a script by python/CMakeLists.txt:
#   cmake -DHEADER=models/common/units.hpp -DOUT=build/python/aidcsim/units.py -P units_to_python.cmake
# Every `inline constexpr double kName = <expression>;  ///< comment` line becomes
# `kName = <expression>  # comment`; the header keeps its expressions valid Python, and a
# conversion `constexpr double f(double x) { return <expression>; }` becomes a def.
file(STRINGS ${HEADER} lines ENCODING UTF-8)
set(out "\"\"\"Unit constants and conversions, generated at build time from models/common/units.hpp (the one\nplace they are written; C++ uses the same names in namespace aidcsim::units). SI inside:\nK, s, B, B/s.\"\"\"\n\n")
set(n 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^inline constexpr double (k[A-Za-z0-9]+) = ([^;]+);[ ]*(///< (.*))?$")
    set(name ${CMAKE_MATCH_1})
    set(expr ${CMAKE_MATCH_2})
    string(STRIP "${expr}" expr)
    if(CMAKE_MATCH_4)
      string(APPEND out "${name} = ${expr}  # ${CMAKE_MATCH_4}\n")
    else()
      string(APPEND out "${name} = ${expr}\n")
    endif()
    math(EXPR n "${n} + 1")
  elseif(line MATCHES "^constexpr double ([a-z_]+)\\(double ([a-z_]+)\\) { return ([^;]+); }$")
    string(APPEND out "\n\ndef ${CMAKE_MATCH_1}(${CMAKE_MATCH_2}):\n    return ${CMAKE_MATCH_3}\n")
  endif()
endforeach()
if(n EQUAL 0)
  message(FATAL_ERROR "${HEADER}: no `inline constexpr double kName = ...;` line")
endif()
file(WRITE ${OUT}.tmp "${out}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
