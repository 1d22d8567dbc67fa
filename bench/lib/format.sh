# Helpers for the benchmark scripts (sourced by bench/*/run.sh): the
# machine-readable results file, the machine's facts, number formatting for
# the result tables, and the common end of a run.

say() { printf '%s\n' "$*"; }
# median [VALUE...]: the middle of the values (the upper one of an even
# count), from the arguments (split on blanks) or else one per line on
# stdin; "-" when there are none.
median() {
  { if (($#)); then printf '%s\n' $*; else cat; fi; } | awk 'NF' | sort -g |
    awk '{v[NR] = $1} END {print (NR ? v[int((NR + 1) / 2)] : "-")}'
}
have() { command -v "$1" >/dev/null; }
failures=()    # what went wrong, printed by bench_end
woc_failed=0   # bench_end's exit status

# bench_results FILE: records go to FILE.tmp (moved to FILE by bench_end).
bench_results() { RESULTS=$1; : >"$RESULTS.tmp"; }
# rec FIELD...: one tab-separated record.
rec() { printf '%s\n' "$(IFS=$'\t'; echo "$*")" >>"$RESULTS.tmp"; }
# machine_facts: sets cpu, ncpu and loadavg (at the start of the run).
machine_facts() {
  cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
  ncpu=$(nproc)
  loadavg=$(cut -d' ' -f1-3 /proc/loadavg)
}

# fmt VALUE [DECIMALS] -> 1,234,567 style; values under 100 that are not
# whole keep DECIMALS places (default 1); anything not a number is printed
# as it is ("-", "FAIL").
fmt() { awk -v v="$1" -v d="${2:-1}" 'BEGIN {
  if (v !~ /^[0-9.]+$/) { print v; exit }
  s = sprintf("%.0f", v); if (v < 100 && v != int(v)) s = sprintf("%." d "f", v)
  split(s, p, "."); n = p[1]; o = ""
  while (length(n) > 3) { o = "," substr(n, length(n) - 2) o; n = substr(n, 1, length(n) - 3) }
  print n o (p[2] != "" ? "." p[2] : "") }'; }

# ratio A B HIGHER_IS_BETTER -> how many times better A is than B ("-" when
# either is missing or zero): A/B when higher is better (1), else B/A (0).
ratio() { awk -v a="$1" -v b="$2" -v h="$3" 'BEGIN {
  if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || a + 0 == 0 || b + 0 == 0) { print "-"; exit }
  printf "%.2fx", (h ? a / b : b / a) }'; }

# bench_end: the common end of a benchmark run (needs say, hr, rec, RESULTS,
# the `failures` array and woc_failed from the calling script): the load
# average, the results file moved into place, the failures, and the exit.
bench_end() {
  rec machine loadavg-end "$(cut -d' ' -f1-3 /proc/loadavg)"
  say ""
  say "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  hr
  mv "$RESULTS.tmp" "$RESULTS"
  if ((${#failures[@]})); then
    say "FAILURES:"
    for f in "${failures[@]}"; do say "  - $f"; done
    hr
  fi
  say "machine-readable results: $RESULTS"
  exit "$woc_failed"
}
