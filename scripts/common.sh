# Shared by setup.sh and test.sh: the system libraries Roqua links against.
# libproj-dev: PROJ, for boundary layers in any coordinate reference system. librsvg2-bin: rsvg-convert, for `roqua map --png`. zlib1g-dev, libzip-dev: `.gz` and `.zip`/`.kmz` track files.
# libjs-leaflet: the map library `roqua serve` serves to the page (no CDN). libqrencode-dev: the QR codes that set a phone up. libexif-dev: the metadata of photos (`track import` of a camera folder). libjpeg62-turbo-dev, libheif-dev, libpng-dev: previews of photos that carry none (JPEG; HEIC and AVIF; PNG).
ROQUA_APT_PACKAGES=(libsqlite3-dev libgeos-dev libshp-dev libproj-dev librsvg2-bin zlib1g-dev libzip-dev libjs-leaflet libqrencode-dev libexif-dev libjpeg62-turbo-dev libheif-dev libpng-dev)
# Only for the tests of `roqua serve`: a real browser and its driver, geopy's venv, wrk for the load test, and
# zbar-tools (zbarimg) to read its QR codes back as a phone's camera would.
ROQUA_TEST_APT_PACKAGES=(chromium chromium-driver python3-selenium python3-venv wrk zbar-tools)

# Installs ROQUA_APT_PACKAGES and any packages given as arguments that are missing.
roqua_install_system_packages() {
  local missing=()
  for p in "${ROQUA_APT_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing ${missing[*]} (apt-get)…" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

# Fails when the compiler warned about Roqua's own code (dependencies' warnings are theirs).
roqua_check_warnings() {
  if grep -E "^/.*/(Sources|Tests|Benchmarks)/.*warning:" "$1"; then
    echo "Compiler warnings in Roqua's code (see above)." >&2
    return 1
  fi
}

# swift build with the given arguments, its log in $1; stops on errors and on warnings in Roqua's code.
roqua_build() {
  local log=$1; shift
  echo "Building Roqua (swift build $*; the first build takes a minute or two)…" >&2
  local status=0
  swift build "$@" >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    grep -E "error:" "$log" >&2 || tail -30 "$log" >&2
    echo "Build failed (full log: $log)." >&2
    exit 1
  fi
  roqua_check_warnings "$log"
}

# Runs the tour-group server of the build in DIR with ARGS: `roqua-chat-server ARGS`, or in builds
# from before the chat package was split, `roqua-chat server ARGS` (`admin …` likewise), so the
# benchmarks can compare the two.
chat_server() {
  local dir=$1; shift
  if [ -x "$dir/roqua-chat-server" ]; then "$dir/roqua-chat-server" "$@"
  elif [ "${1:-}" = admin ]; then "$dir/roqua-chat" "$@"
  else "$dir/roqua-chat" server "$@"; fi
}

# Both packages (this one and chat/) build into one folder, so that what they share is compiled
# once. SwiftPM keeps one build plan per folder and does not notice that the other package built
# into it since (it would call the next build complete without compiling a changed file): the
# plan is dropped before each package's build, and it is made again in seconds.
roqua_forget_plan() {  # roqua_forget_plan SCRATCH
  rm -f "$1"/*/debug/description.json "$1"/*/release/description.json
}
