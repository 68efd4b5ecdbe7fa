#!/usr/bin/env bash
# The viewer of `chompute serve` in a real browser: headless Chromium (Debian's package,
# installed if missing) opens the page on several views, and each view must have drawn tiles
# (the root element's data-tiles-loaded), shown what its URL asks for, and logged no error
# (data-errors = 0 and no "chompute viewer:" line from console.error). One view with a bad
# URL must log an error, so the check is seen to work.
#
#   bash tests/browser.sh                       # the checks; last line "browser: N passed, M failed"
#   bash tests/browser.sh --screenshots DIR     # also the serve guide's pictures, DIR/serve*.png
set -euo pipefail
cd "$(dirname "$0")/.."

shots=""
if [ "${1:-}" = "--screenshots" ]; then
  shots="${2:?--screenshots wants a directory}"
fi

if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y chromium
fi

bin="${CHOMPUTE_BIN:-target/release/chompute}"
if [ ! -x "$bin" ]; then
  cargo build --release --bin chompute
fi

work="$(mktemp -d /tmp/chompute-browser.XXXXXX)"
"$bin" serve --port 0 --backend cpu >"$work/url" 2>"$work/serve.err" &
server=$!
cleanup() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

for _ in $(seq 1 300); do
  [ -s "$work/url" ] && break
  sleep 0.1
done
url="$(head -n 1 "$work/url")"
case "$url" in
  http://*/) ;;
  *) echo "chompute serve printed no URL: $(cat "$work/serve.err")"; exit 1 ;;
esac
echo "browser: chompute serve at $url"

chrome() {
  timeout 180 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --enable-logging=stderr --v=0 --window-size=1280,800 \
    --virtual-time-budget=15000 "$@" 2>"$work/chromium.log"
}

attr() { # attribute name, DOM text → its number on the root element (empty if absent)
  grep -o "$1=\"[0-9]*\"" <<<"$2" | head -n 1 | grep -o '[0-9]*' || true
}

passed=0
failed=0
check() { # name, query, text the page must contain ("" for none), "errors" if an error is expected
  local name="$1" query="$2" want="$3" expect="${4:-}"
  local dom tiles errors logged ok=1
  dom="$(chrome --dump-dom "$url$query" || true)"
  tiles="$(attr data-tiles-loaded "$dom")"
  errors="$(attr data-errors "$dom")"
  logged="$(grep -c 'chompute viewer:' "$work/chromium.log" || true)"
  if [ "$expect" = "errors" ]; then
    [ "${errors:-0}" -gt 0 ] && [ "$logged" -gt 0 ] || ok=0
  else
    [ "${tiles:-0}" -gt 0 ] && [ "${errors:-x}" = "0" ] && [ "$logged" = "0" ] || ok=0
    if [ -n "$want" ] && ! grep -qF -- "$want" <<<"$dom"; then ok=0; fi
  fi
  if [ "$ok" = 1 ]; then
    passed=$((passed + 1))
    echo "ok   $name: tiles=$tiles errors=$errors console-errors=$logged"
  else
    failed=$((failed + 1))
    echo "FAIL $name: tiles=${tiles:-none} errors=${errors:-none} console-errors=$logged (wanted '${want}' ${expect})"
    grep 'chompute viewer:' "$work/chromium.log" | head -n 5 || true
  fi
}

big=18446744073709551615
half=9223372036854775808
check "the opening view: C(30001,30001) whole on the sqrt shade" "" 'data-view="30001x30001 sqrt"'
check "the whole largest bar" "?m=$big&n=$big" 'data-view="18446744073709551615x18446744073709551615 linear"'
check "C(30001,30001) at level 8" "?m=30001&n=30001&z=8" ""
check "C(777,1235), log shade, two colours" \
  "?m=777&n=1235&shade=log&colors=%235b2a86,%23f4efe6" ""
check "single cells at the centre of C(2^64-1)" \
  "?m=$big&n=$big&x=$half.5&y=$half.5&z=69&cell=$half,$half" "nim-sum 0"
check "a coarse block's exact count" "?m=$big&n=$big&z=10&cell=1,1" "P-cells of"
check "the far corner of C(2^64-1) cell by cell" \
  "?m=$big&n=$big&x=18446744073709551315&y=18446744073709551415&z=66" ""
check "a bad URL is reported" "?m=abc" "" errors

if [ -n "$shots" ]; then
  mkdir -p "$shots"
  # Single cells at the centre of C(2^64-1), where four copies of P(2^63-1) meet at the
  # cell (2^63, 2^63), pinned with its exact piles.
  chrome --screenshot="$shots/serve.png" \
    "$url?m=$big&n=$big&x=$half&y=$half&z=68&cell=$half,$half" >/dev/null || true
  # A sparse bar whole on the log scale, with the exact count of a block pinned.
  chrome --screenshot="$shots/serve-log.png" \
    "$url?m=10000000000000000001&n=10000000000000000001&shade=log&cell=5000000000000000001,5000000000000000001" \
    >/dev/null || true
  echo "browser: screenshots in $shots"
fi

echo "browser: $passed passed, $failed failed"
[ "$failed" = 0 ]
