#!/usr/bin/env bash
# search.sh QUERY: the top 5 web results of a SearXNG instance, one "title: snippet" line each.
# $SEARXNG_URL is the instance's base URL (set it in [env] of config.toml); its
# settings.yml must list json under search.formats. Every failure is one line
# on stderr and exit status 1.
set -euo pipefail

die() { printf 'search: %s\n' "$*" >&2; exit 1; }

query="${1:-}"
[ -n "${query//[[:space:]]/}" ] || die "nothing to search for: the query is empty"
base="${SEARXNG_URL:-}"
[ -n "$base" ] || die "SEARXNG_URL is not set: add it to [env] in config.toml"
base="${base%/}"

errors="$(mktemp)"
trap 'rm -f "$errors"' EXIT
if ! response="$(curl -sS --max-time "${SEARCH_TIMEOUT:-8}" -G "$base/search" \
    --data-urlencode "q=$query" --data-urlencode "format=json" \
    -H 'Accept: application/json' -H 'Accept-Language: en' -A 'desktop-assistant-search' \
    -w '\n%{http_code}' 2>"$errors")"; then
  message="$(tail -n 1 "$errors")"
  die "cannot reach SearXNG at $base: ${message#curl: }"
fi
status="${response##*$'\n'}"
body="${response%$'\n'*}"
case "$status" in
  200) ;;
  403) die "SearXNG at $base refused JSON output (HTTP 403): add json to search.formats in its settings.yml" ;;
  400) die "SearXNG rejected the query (HTTP 400)" ;;
  429) die "SearXNG at $base is rate limiting this client (HTTP 429): turn its limiter off for private use" ;;
  *) die "SearXNG at $base answered HTTP $status" ;;
esac

lines="$(jq -er '
  def clean: tostring | gsub("\\s+"; " ") | ltrimstr(" ") | rtrimstr(" ");
  .results
  | .[:5][]
  | ((.title // "") | clean) as $title
  | ((.content // "") | clean) as $snippet
  | "\(if $title == "" then (.url // "?") else $title end): \(if $snippet == "" then (.url // "") else $snippet end)"
' <<<"$body" 2>/dev/null)" || {
  jq -e '.results | arrays' >/dev/null 2>&1 <<<"$body" || die "SearXNG at $base answered with something that is not search results"
  lines=""
}
if [ -z "$lines" ]; then
  echo "no results for '$query'"
else
  printf '%s\n' "$lines"
fi
