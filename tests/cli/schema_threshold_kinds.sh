# `aidcsim schema` (plain) gives a key whose kind follows a sibling (a monitoring sensor's threshold:
# a temperature, a volume flow, a number or a power by its `type`) with its kinds and their ranges
# in the units a plain number is read in. It printed "number" and no range, though the key takes
# "85 degC", "10 L/min" or "30 kW".
source "$(dirname "$0")/lib/common.bash"
"$AIDCSIM" schema >out.txt 2>err.txt || fail "aidcsim schema failed"
line=$(grep -E "^cooling_monitoring\.sensors\[\]\.threshold " out.txt) || fail "no threshold line"
echo "$line" | grep -qE "threshold +by type " || fail "type column does not say the kind follows type: $line"
for want in "temperature: temperature from -50 degC to 150 degC" "flow_rate, flow: volume flow from 0 L/min" \
    "pue: number from 1 to 10" "power: power from 0 kW to 1 MW"; do
  echo "$line" | grep -qF "$want" || fail "missing '$want': $line"
done
echo "ok: $line"
