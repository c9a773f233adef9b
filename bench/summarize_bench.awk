# Turns the JSON lines of `broadphase bench ... --json` into a table (default)
# or CSV (-v csv=1). Lines that are not JSON objects are ignored.
# Checks, per scene, that no algorithm failed verification and that every
# algorithm found the same number of pairs; exits 1 if not.
# Plain POSIX awk (mawk, gawk, busybox): the CLI's JSON is flat, one object
# per line, with no commas or quotes inside its string values.

function field(line, key,    pat, v) {
    pat = "\"" key "\"[ \t]*:[ \t]*(\"[^\"]*\"|[^,}]*)"
    if (!match(line, pat)) return ""
    v = substr(line, RSTART, RLENGTH)
    sub(/^"[^"]*"[ \t]*:[ \t]*/, "", v)
    gsub(/"/, "", v)
    return v
}

/^[ \t]*\{/ {
    scene = field($0, "scene"); algorithm = field($0, "algorithm"); chosen = field($0, "chosen")
    pairs = field($0, "pairs"); median = field($0, "median_ms"); min = field($0, "min_ms")
    verified = field($0, "verified"); frames = field($0, "frames"); n = field($0, "n")
    threads = field($0, "threads")
    if (csv) {
        if (!header_done) {
            print "scene,n,algorithm,chosen,pairs,median_ms,min_ms,verified,frames,threads"
            header_done = 1
        }
        print scene "," n "," algorithm "," chosen "," pairs "," median "," min "," verified "," frames "," threads
    } else {
        rows++
        r_scene[rows] = scene; r_n[rows] = n; r_pairs[rows] = pairs; r_median[rows] = median
        r_min[rows] = min; r_frames[rows] = frames
        r_alg[rows] = (algorithm == "automatic" && chosen != "") ? "automatic (" chosen ")" : algorithm
        r_ver[rows] = verified == "true" ? "yes" : verified == "false" ? "NO" : "-"
        if (!(scene in best) || median + 0 < best[scene] + 0) best[scene] = median
    }
    if (verified == "false") {
        bad = bad sprintf("  %s %s: pairs differ from brute force\n", scene, algorithm)
    }
    if (!(scene in first_pairs)) first_pairs[scene] = pairs
    else if (first_pairs[scene] != pairs)
        bad = bad sprintf("  %s %s: %s pairs, another algorithm found %s\n", scene, algorithm, pairs, first_pairs[scene])
}

END {
    if (!csv) {
        fmt = "%-16s %8s  %-28s %11s %11s %11s %7s %9s\n"
        printf fmt, "scene", "boxes", "algorithm", "pairs", "median ms", "min ms", "frames", "verified"
        line = "----------------------------------------------------------------------------------------------------------"
        print line
        for (i = 1; i <= rows; i++) {
            if (i > 1 && r_scene[i] != r_scene[i - 1]) print ""
            mark = (r_median[i] == best[r_scene[i]]) ? " *" : ""
            printf fmt, r_scene[i], r_n[i], r_alg[i] mark, r_pairs[i], sprintf("%.3f", r_median[i]),
                sprintf("%.3f", r_min[i]), r_frames[i], r_ver[i]
        }
        print line
        print "* fastest median on the scene. verified: sorted pairs equal brute force's (- = not checked)."
    }
    if (bad != "") {
        printf "FAILED:\n%s", bad > "/dev/stderr"
        exit 1
    }
}
