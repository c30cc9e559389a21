# SIGKILL of `aidcsim sweep -j 2` (Python parent + a spawn process pool): no process outlives it
# for more than a moment (python/aidcsim/_workers.py: each worker has PR_SET_PDEATHSIG = SIGKILL,
# the multiprocessing resource tracker exits when its pipe closes), and no output or temporary is
# left. Before, the workers were reparented to init and simulated on until their points ended.
# (`aidcsim run` starts no child process at all; its SIGKILL cases are in signals.sh.)
source "$(dirname "$0")/lib/common.bash"

# Points that take several seconds each, so the workers are mid-simulation when the parent dies.
cat > sw.yaml <<EOF
base: $SRC/scenarios/stargate-uk-rollout.yaml
parameters:
  seed: [1, 2, 3, 4]
output: out.csv
EOF
"$AIDCSIM" sweep sw.yaml -j 2 >out.txt 2>err.txt &
P=$!
# Wait for the two workers to be running a point (state R, some CPU time).
busy=0
for i in $(seq 1 600); do
  busy=0
  for c in $(pgrep -P $P); do
    case "$(tr -d '\0' </proc/$c/cmdline 2>/dev/null)" in
      *spawn_main*) [ "$(awk '{print $14 + $15}' /proc/$c/stat 2>/dev/null || echo 0)" -gt 100 ] && busy=$((busy + 1)) ;;
    esac
  done
  [ "$busy" -ge 2 ] && break
  kill -0 $P 2>/dev/null || fail "the sweep ended before both workers were busy"
  sleep 0.1
done
[ "$busy" -ge 2 ] || fail "no two busy workers after 60 s: $(ps -o pid,stat,time,cmd --ppid $P)"
children=$(pgrep -P $P)
kill -KILL $P
wait $P 2>/dev/null
rc=$?
[ "$rc" -eq 137 ] || fail "sweep after SIGKILL: exit status $rc, expected 137"
# Every child (workers, resource tracker) gone within 5 s.
for i in $(seq 1 50); do
  alive=""
  for c in $children; do kill -0 "$c" 2>/dev/null && alive="$alive $c"; done
  [ -z "$alive" ] && break
  sleep 0.1
done
if [ -n "$alive" ]; then
  ps -o pid,ppid,stat,time,cmd -p "${alive# }" >&2
  for c in $alive; do kill -KILL "$c" 2>/dev/null; done
  fail "SIGKILL of the sweep left process(es)$alive running"
fi
[ -z "$(ls -A | grep -vxE 'sw\.yaml|err\.txt|out\.txt')" ] || fail "files left: $(ls -A)"
echo "ok: SIGKILL of a sweep leaves no process ($(echo $children | wc -w) children ended) and no file"
