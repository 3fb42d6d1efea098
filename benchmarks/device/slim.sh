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
    { echo "$mark"; printf '/%s/\n' "${paths[@]}"; } >>"$exclude"
    ;;
restore)
    # the mark and the hidden paths' lines go; any other line of the file stays
    grep -vxF -e "$mark" $(printf -- "-e /%s/ " "${paths[@]}") "$exclude" >"$exclude.tmp" || true
    mv "$exclude.tmp" "$exclude"
    git reset -q -- "${paths[@]}"
    ;;
*)
    echo "usage: slim.sh hide|restore" >&2
    exit 2
    ;;
esac
echo "tracked files: $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1) bytes"
git status --short | sed -n 1,5p
