#!/usr/bin/env bash
# Every Swift file of both packages as `swift format` writes it with the checked-in .swift-format;
# prints each finding and fails on any. To fix: git ls-files -z '*.swift' | xargs -0 swift format -i
set -euo pipefail
cd "$(dirname "$0")/../.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -d '' files < <(git ls-files -z '*.swift')
else
  mapfile -d '' files < <(find . -name '*.swift' -not -path '*/.build*' -print0)
fi
if ! swift format lint --strict --configuration .swift-format "${files[@]}"; then
  echo "error: ${#files[@]} Swift files checked; format them: git ls-files -z '*.swift' | xargs -0 swift format -i" >&2
  exit 1
fi
echo "ok   ${#files[@]} Swift files formatted as .swift-format says"
