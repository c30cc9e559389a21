# The bundled scenario is valid: `aidcsim validate` exits 0.
source "$(dirname "$0")/lib/common.bash"
"$AIDCSIM" validate "$BASE" >out.txt 2>err.txt || fail "aidcsim validate $BASE exited $?"
grep -q "stargate-uk-8k" out.txt || fail "validate did not name the scenario"
echo "ok: $(cat out.txt)"
