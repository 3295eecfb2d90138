#!/usr/bin/env bash
# Makes sure the real programs the e2e tests drive are installed (Debian packages
# prometheus, prometheus-alertmanager and chromium, the headless browser the web console's
# test drives through playwright-core), the DuckDB package the Parquet tests read
# with, and pyarrow. Run by `npm test` (pretest) and CI; silent no-op when present.
set -euo pipefail

# @duckdb/node-api, which the Parquet tests read exported files back with: it cannot be a saved
# devDependency (its per-platform packages make npm 11's lock check fail `npm ci`), so it is
# installed here without saving when it does not load. Quiet and idempotent; runs as the caller.
duckdb_pkg=@duckdb/node-api@1.5.6-r.1
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -z ${SVCDB_VIA_SUDO:-} ]] &&
  ! (cd "$repo" && node -e "import('@duckdb/node-api').then(() => {}, () => process.exit(1))") >/dev/null 2>&1; then
  duck_log=$(mktemp /tmp/svcdb-install-duckdb.XXXXXX.log)
  if (cd "$repo" && npm install --no-save --no-audit --no-fund "$duckdb_pkg") >"$duck_log" 2>&1; then
    rm -f "$duck_log"
  else
    tail -n 20 "$duck_log" >&2
    echo "install-test-deps: could not install $duckdb_pkg (the Parquet tests will fail); log: $duck_log" >&2
  fi
fi

# pyarrow, which test/e2e/parquet-pyarrow.test.ts reads exported files back with through the
# machine's python3: Debian 12 has no python3-pyarrow, so pip installs it from the indexes the
# machine's pip is configured with (a local mirror on machines of this kind) when it does not import.
if [[ -z ${SVCDB_VIA_SUDO:-} ]] && command -v python3 >/dev/null 2>&1 &&
  ! python3 -c 'import pyarrow' >/dev/null 2>&1; then
  py_log=$(mktemp /tmp/svcdb-install-pyarrow.XXXXXX.log)
  if python3 -m pip install --quiet --disable-pip-version-check --retries 0 --timeout 10 pyarrow >"$py_log" 2>&1 &&
    python3 -c 'import pyarrow' >/dev/null 2>&1; then
    rm -f "$py_log"
  else
    tail -n 5 "$py_log" >&2
    echo "install-test-deps: could not install pyarrow with pip (the pyarrow Parquet test will fail); log: $py_log" >&2
  fi
fi

# Overrides exist only to test this script without uninstalling anything.
prom_bin=${SVCDB_PROMETHEUS_BIN:-/usr/bin/prometheus}
am_bin=${SVCDB_ALERTMANAGER_BIN:-/usr/bin/prometheus-alertmanager}
chromium_bin=${SVCDB_CHROMIUM_BIN:-/usr/bin/chromium}
apt_get=${SVCDB_APT_GET:-apt-get}
policy=${SVCDB_POLICY_RC_D:-/usr/sbin/policy-rc.d}

missing=()
[[ -x $prom_bin ]] || missing+=(prometheus)
[[ -x $am_bin ]] || missing+=(prometheus-alertmanager)
[[ -x $chromium_bin ]] || missing+=(chromium)
((${#missing[@]} == 0)) && exit 0

me=install-test-deps
if ((EUID != 0)); then
  # SVCDB_VIA_SUDO stops a loop should sudo not make us root.
  if [[ -z ${SVCDB_VIA_SUDO:-} ]] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    exec sudo -n env SVCDB_VIA_SUDO=1 SVCDB_PROMETHEUS_BIN="$prom_bin" SVCDB_ALERTMANAGER_BIN="$am_bin" \
      SVCDB_CHROMIUM_BIN="$chromium_bin" SVCDB_APT_GET="$apt_get" SVCDB_POLICY_RC_D="$policy" bash "${BASH_SOURCE[0]}"
  fi
  echo "$me: missing Debian packages: ${missing[*]} (the e2e tests that need them will fail)." >&2
  echo "$me: to install them run as root: bash ${BASH_SOURCE[0]}" >&2
  echo "$me:   (or: sudo apt-get install -y --no-install-recommends ${missing[*]})" >&2
  exit 0
fi

# Daemons the packages may start: they run as user prometheus (init script and systemd unit alike).
# Read /proc rather than ps, since minimal Debian images lack procps.
alive() { [[ -d /proc/$1 ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
daemon_pids() {
  local d
  for d in /proc/[0-9]*; do
    [[ $(cat "$d/comm" 2>/dev/null) == prometheus* ]] && alive "${d#/proc/}" || continue
    [[ $(stat -c %U "$d" 2>/dev/null) == prometheus ]] && echo "${d#/proc/}"
  done
  return 0
}

log=$(mktemp /tmp/svcdb-install-test-deps.XXXXXX.log)
backup=''
wrote_policy=0
restore_policy() {
  if [[ -n $backup ]]; then mv -f "$backup" "$policy"
  elif ((wrote_policy)); then rm -f "$policy"; fi
}
trap restore_policy EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# policy-rc.d answering 101 forbids invoke-rc.d/deb-systemd-invoke from starting the
# services from postinst. Keep an existing one that already does so (Docker images ship one).
denies=0
if [[ -x $policy ]]; then
  rc=0; "$policy" prometheus start >/dev/null 2>&1 || rc=$?
  ((rc == 101)) && denies=1
fi
if ((!denies)); then
  if [[ -e $policy ]]; then backup=$(mktemp "$policy.svcdb.XXXXXX") && cp -p "$policy" "$backup"; fi
  printf '#!/bin/sh\n# Temporary, from svcdb scripts/install-test-deps.sh: start no services.\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  wrote_policy=1
fi

before=" $(daemon_pids | tr '\n' ' ') "
echo "$me: installing ${missing[*]} (log: $log)"
if ! { "$apt_get" -o DPkg::Lock::Timeout=120 update &&
  DEBIAN_FRONTEND=noninteractive "$apt_get" -o DPkg::Lock::Timeout=120 install -y \
    --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "$me: apt-get failed installing ${missing[*]}; full log: $log" >&2
  exit 1
fi

# Belt and braces: stop any daemon the install started anyway; on systemd hosts the postinst
# also enabled the units, so disable them to keep them from starting at the next boot.
for pid in $(daemon_pids); do
  [[ $before == *" $pid "* ]] && continue
  echo "$me: stopping $(cat "/proc/$pid/comm" 2>/dev/null || echo daemon) (pid $pid) started by the install"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
  alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
done
if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
  for svc in "${missing[@]}"; do
    systemctl disable --quiet "$svc.service" >>"$log" 2>&1 || echo "$me: could not disable $svc.service" >&2
  done
fi

# Warn if 9090 (prometheus), 9093 (alertmanager) or 9100 (node exporter) is listening.
# Ports are hex in /proc/net (ss may be absent); state 0A is LISTEN.
busy=$(awk 'BEGIN { m["2382"] = 9090; m["2385"] = 9093; m["238C"] = 9100 }
  $4 == "0A" { n = split($2, a, ":"); if (a[n] in m) print m[a[n]] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null |
  sort -u | tr '\n' ' ') || true # a missing /proc/net/tcp6 (IPv6 off) is no error
[[ -n $busy ]] && echo "$me: warning: port(s) ${busy% } in use, though not by a daemon this install started" >&2

for bin in "$prom_bin" "$am_bin" "$chromium_bin"; do
  [[ -x $bin ]] || { echo "$me: $bin still missing after installing ${missing[*]}; log: $log" >&2; exit 1; }
done
rm -f "$log"
echo "$me: installed ${missing[*]}"
