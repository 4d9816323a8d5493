# Timing helpers shared by the bench parts that time commands in alternating rounds
# (damage.sh, wal.sh). Source it after setting:
#   times   the file each run adds a line to: LABEL WALL_S STATUS CPU_S
#   prefix  each run's output goes to $out/$prefix-LABEL.out
# CPU time (user + system, from /usr/bin/time when there is one) is kept beside wall time: on
# a shared machine the wall time mostly says how busy the other tenants were.

timer=()
[[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f '%U %S' -o "$out/$prefix-cpu")

timed() { # label command...
    local label=$1 t0 t1 status=0 cpu=n/a
    shift
    t0=$EPOCHREALTIME
    "${timer[@]}" "$@" >"$out/$prefix-$label.out" 2>&1 || status=$?
    t1=$EPOCHREALTIME
    if ((${#timer[@]})); then
        cpu=$(awk 'END {printf "%.2f", $1 + $2}' "$out/$prefix-cpu")
    fi
    echo "$label $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}') $status $cpu" >>"$times"
}

median() { # label [column: 2 wall, 4 CPU]
    awk -v l="$1" -v c="${2:-2}" '$1 == l {print $c}' "$times" | sort -n |
        awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

statuses() { awk -v l="$1" '$1 == l {print $3}' "$times" | sort -u | paste -sd,; }
