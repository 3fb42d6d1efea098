#!/usr/bin/env bash
# Here: shrink the working tree that a device call sends, and restore it.
#   bash benchmarks/device/slim.sh hide      # before the calls that carry a model half
#   bash benchmarks/device/slim.sh restore   # right after them: never commit in between
# 'hide' takes tests/, docs/ and benchmarks/results/ (about 35 of the 42 MB tracked) out of the index and
# ignores them in .git/info/exclude, so a call sends none of them; the files stay on disk. 'restore' puts
# them back in the index and removes the exclude lines. issue49.sh needs none of them.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
paths=(tests docs benchmarks/results)
mark="# genenv device slim"
exclude=.git/info/exclude
case "${1:-}" in
hide)
    if grep -qF "$mark" "$exclude" 2>/dev/null; then
        echo "already hidden (slim.sh restore first)" >&2
        exit 1
    fi
    git rm -r -q --cached "${paths[@]}"
    for p in "${paths[@]}"; do printf '/%s/\n%s\n' "$p" "$mark"; done >>"$exclude"
    ;;
restore)
    # each hidden path's line is followed by the mark: drop both
    python3 - "$exclude" "$mark" <<'EOF'
import sys
path, mark = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines()
keep = [l for i, l in enumerate(lines) if l != mark and not (i + 1 < len(lines) and lines[i + 1] == mark)]
open(path, "w").write("".join(f"{l}\n" for l in keep))
EOF
    git reset -q -- "${paths[@]}"
    ;;
*)
    echo "usage: slim.sh hide|restore" >&2
    exit 2
    ;;
esac
echo "tracked files: $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1) bytes"
git status --short | sed -n 1,5p
