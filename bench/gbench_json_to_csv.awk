# Google Benchmark's JSON output (--benchmark_format=json or
# --benchmark_out_format=json) to CSV: one row per run, fixed columns first,
# then every user counter seen in any run (empty where a run lacks it).
# Unlike the library's own CSV reporter, runs may carry different counters.
# Plain POSIX awk; relies on the JSON reporter's layout of one key per line.

function unquote(v) {
    sub(/,[ \t]*$/, "", v)
    if (v ~ /^"/) { sub(/^"/, "", v); sub(/"$/, "", v); gsub(/\\"/, "\"", v); return v }
    return v
}
function csv_cell(v) {
    if (v == "") return ""
    if (v ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) return sprintf("%.10g", v + 0)
    gsub(/"/, "\"\"", v)
    return "\"" v "\""
}

BEGIN {
    nfixed = split("name run_type aggregate_name repetitions repetition_index iterations real_time cpu_time time_unit label error_message", fixed, " ")
    for (i = 1; i <= nfixed; i++) is_fixed[fixed[i]] = 1
    # Bookkeeping keys that are neither columns nor counters.
    split("family_index per_family_instance_index run_name threads error_occurred aggregate_unit", s, " ")
    for (i in s) skip[s[i]] = 1
}

/^  "benchmarks": \[/ { in_runs = 1; next }
in_runs && /^  \]/ { in_runs = 0; next }
in_runs && /^    \{/ { rows++; next }
in_runs && /^      "[^"]+": / {
    key = $0; sub(/^ *"/, "", key); sub(/".*$/, "", key)
    value = $0; sub(/^ *"[^"]+": */, "", value)
    value = unquote(value)
    if (key in skip) next
    if (!(key in is_fixed) && !(key in is_counter)) { is_counter[key] = 1; counters[++ncounters] = key }
    cell[rows, key] = value
}

END {
    header = ""
    for (i = 1; i <= nfixed; i++) header = header (i > 1 ? "," : "") fixed[i]
    for (i = 1; i <= ncounters; i++) header = header "," counters[i]
    print header
    for (r = 1; r <= rows; r++) {
        line = ""
        for (i = 1; i <= nfixed; i++) line = line (i > 1 ? "," : "") csv_cell(cell[r, fixed[i]])
        for (i = 1; i <= ncounters; i++) line = line "," csv_cell(cell[r, counters[i]])
        print line
    }
    if (rows == 0) { print "gbench_json_to_csv: no benchmark runs in the input" > "/dev/stderr"; exit 1 }
}
