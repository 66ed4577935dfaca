#!/usr/bin/env bash
# Writes bench/results/SUMMARY.md from the target lines the harnesses leave in each results file
# (<!-- target | what | target | measured | met|missed -->). Run by bench/run.sh after every benchmark.
set -euo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/results"
out="$dir/SUMMARY.md"
{
  echo "# Benchmark summary"
  echo
  echo "Each benchmark's target against what \`bench/run.sh\` measured on this machine (2 shared cores: ratios from"
  echo "interleaved rounds, not absolute times, are the figures to quote). Each row links the file with the raw"
  echo "numbers, the machine, the versions, the command and, where Sluice misses, the profile and the reason."
  echo
  echo "| benchmark | target | goal | measured | verdict |"
  echo "|---|---|---|---|---|"
  for f in limiter footprint edge redis redis-cluster sdk delivery sim keys; do
    [ -f "$dir/$f.md" ] || continue
    { grep -h '^<!-- target |' "$dir/$f.md" || true; } | sed 's/^<!-- target | //; s/ -->$//' | while IFS='|' read -r what goal measured verdict; do
      v=$(echo "$verdict" | xargs)
      [ "$v" = met ] && v="**met**" || v="**missed**"
      echo "| [$f]($f.md) | $(echo "$what" | xargs) | $(echo "$goal" | xargs) | $(echo "$measured" | xargs) | $v |"
    done
  done
  echo
  echo "Results without a target:"
  echo
  for f in limiter footprint edge redis redis-cluster sdk delivery sim keys; do
    [ -f "$dir/$f.md" ] || continue
    echo "- [$f]($f.md): $(sed -n 's/^- date: //p' "$dir/$f.md" | head -n1), load average at start $(sed -n 's/^- load average at start: //p' "$dir/$f.md" | head -n1)"
  done
  if [ -f "$dir/../notes/SUMMARY.md" ]; then echo; cat "$dir/../notes/SUMMARY.md"; fi
} >"$out"
echo "bench: wrote $out" >&2
