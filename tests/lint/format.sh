#!/usr/bin/env bash
# Lint (issue 19): every C++ file of the tree is formatted as .clang-format says (clang-format 14,
# Debian 12's; other versions format some constructs differently). Fix with `make format`.
# Usage: format.sh SOURCE_DIR. Exit 0 clean, 1 with the files to reformat listed.
set -euo pipefail
src=${1:?usage: format.sh SOURCE_DIR}
cd "$src"
fmt=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$fmt" ] || { echo "format lint: clang-format not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
else
  mapfile -t files < <(find models sim python tests bench -name '*.cpp' -o -name '*.hpp' | sort)
fi
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  "$fmt" --style=file --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "format lint: ${#bad[@]} file(s) not formatted as .clang-format says (run: make format):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format lint: ${#files[@]} files formatted"
