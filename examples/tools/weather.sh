#!/usr/bin/env bash
# weather.sh PLACE WHEN: the weather as one short line, from OpenWeatherMap.
#   PLACE  a city ("Rome", "Paris,FR"); empty = home (CITY and COUNTRY of the env file)
#   WHEN   now (also empty), today or tomorrow
# The env file named by $WEATHER_ENV sets KEY, CITY, COUNTRY and UNITS (metric,
# imperial or standard), as conky-theme-udt's does. Home and now is read from
# conky-theme-udt's cache (${XDG_CACHE_HOME:-~/.cache}/udt/weather.json) while
# it is younger than 30 minutes. $OWM_URL replaces https://api.openweathermap.org.
# Every failure is one line on stderr and exit status 1.
set -euo pipefail

die() { printf 'weather: %s\n' "$*" >&2; exit 1; }

trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; printf '%s' "${s%"${s##*[![:space:]]}"}"; }
place="$(trim "${1:-}")"
when="$(trim "${2:-}" | tr '[:upper:]' '[:lower:]')"
case "$when" in
  ""|now) when=now ;;
  today|tomorrow) ;;
  *) die "when must be now, today or tomorrow, not '${2:-}'" ;;
esac

if [ -n "${WEATHER_ENV:-}" ]; then
  [ -r "$WEATHER_ENV" ] || die "cannot read the env file '$WEATHER_ENV' named by WEATHER_ENV"
  # shellcheck source=/dev/null
  . "$WEATHER_ENV"
fi
units="${UNITS:-metric}"
case "$units" in
  metric) deg="°C"; speed="m/s" ;;
  imperial) deg="°F"; speed="mph" ;;
  standard) deg="K"; speed="m/s" ;;
  *) die "UNITS must be metric, imperial or standard, not '$units'" ;;
esac
home=false
if [ -z "$place" ]; then
  [ -n "${CITY:-}" ] || die "no home city: set CITY (and COUNTRY) in the file named by WEATHER_ENV"
  place="$CITY${COUNTRY:+,$COUNTRY}"
  home=true
fi
base="${OWM_URL:-https://api.openweathermap.org}"
base="${base%/}"

# One line from a /data/2.5/weather answer (or conky-theme-udt's cache of one).
current_line() {
  jq -er --arg deg "$deg" --arg speed "$speed" '
    select(.main.temp != null)
    | "\(.name // "?"): \([.weather[]?.description] | join(", ") | if . == "" then "conditions unknown" else . end), "
      + "\(.main.temp | round)\($deg) (min \(.main.temp_min | round), max \(.main.temp_max | round)), "
      + "wind \(.wind.speed // 0) \($speed)"' 2>/dev/null
}

# One line for a day ($1: 0 today, 1 tomorrow, in the place's own time) from /data/2.5/forecast.
forecast_line() {
  jq -er --argjson ahead "$1" --arg what "$when" --arg deg "$deg" --arg speed "$speed" '
    (.city.timezone // 0) as $tz
    | ((now + $tz + 86400 * $ahead) | strftime("%Y-%m-%d")) as $day
    | [.list[] | select(((.dt + $tz) | strftime("%Y-%m-%d")) == $day)] as $steps
    | select($steps | length > 0)
    | ([$steps[].weather[0].description] | reduce .[] as $d ([]; if index([$d]) then . else . + [$d] end)) as $seen
    | "\(.city.name // "?") \($what): \($seen[:3] | join(", then ")), "
      + "\([$steps[].main.temp_min] | min | round) to \([$steps[].main.temp_max] | max | round)\($deg), "
      + "wind up to \([$steps[].wind.speed] | max) \($speed)"' 2>/dev/null
}

# GET /data/2.5/$1 for the place; prints the JSON body or dies with the reason.
fetch() {
  [ -n "${KEY:-}" ] || die "no OpenWeatherMap key: set KEY in the file named by WEATHER_ENV"
  local errors response status body message
  errors="$(mktemp)"
  if ! response="$(curl -sS --max-time "${OWM_TIMEOUT:-8}" -G "$base/data/2.5/$1" \
      --data-urlencode "q=$place" --data-urlencode "appid=$KEY" --data-urlencode "units=$units" \
      -w '\n%{http_code}' 2>"$errors")"; then
    message="$(tail -n 1 "$errors")"
    rm -f "$errors"
    die "cannot reach OpenWeatherMap at $base: ${message#curl: }"
  fi
  rm -f "$errors"
  status="${response##*$'\n'}"
  body="${response%$'\n'*}"
  message="$(jq -r '.message // empty' <<<"$body" 2>/dev/null || true)"
  case "$status" in
    200) printf '%s' "$body" ;;
    401) die "OpenWeatherMap rejected the API key (HTTP 401${message:+: $message})" ;;
    404) die "OpenWeatherMap does not know the place '$place' (HTTP 404${message:+: $message})" ;;
    429) die "OpenWeatherMap refused: too many requests for this key (HTTP 429)" ;;
    *) die "OpenWeatherMap answered HTTP $status${message:+: $message}" ;;
  esac
}

unreadable() { die "OpenWeatherMap answered with data this script cannot read"; }

if [ "$when" = now ]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/udt/weather.json"
  if $home && [ -f "$cache" ] && [ $(( $(date +%s) - $(stat -c %Y "$cache") )) -lt 1800 ]; then
    if current_line <"$cache"; then exit 0; fi   # else: a broken cache, ask the service
  fi
  body="$(fetch weather)"
  current_line <<<"$body" || unreadable
  exit 0
fi

ahead=0
[ "$when" = tomorrow ] && ahead=1
forecast="$(fetch forecast)"
if ! forecast_line "$ahead" <<<"$forecast"; then
  # Late in the day no 3-hour step of today is left: say how it is now instead.
  [ "$when" = today ] && jq -e '.list' >/dev/null 2>&1 <<<"$forecast" || unreadable
  body="$(fetch weather)"
  current_line <<<"$body" || unreadable
fi
